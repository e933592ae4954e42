//! The kernel's own costs that the overhead profile charges per job and
//! per section (paper 004, Sec. IV-C; paper 001, Eqs. 1, 7, 8): a context
//! switch, a job release, a migration; and the two ways of running a
//! DPCP or DFLP section on its synchronization CPU side by side.

use super::stats::summary;
use rtsync_rt::sys;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// One context switch: two SCHED_FIFO threads on one CPU hand the CPU to
/// each other through futex words; a round trip is two switches, each
/// with the wake and the wait that a suspending protocol pays with it.
pub fn context_switch(cpu: usize, n: usize) -> Result<[f64; 4], String> {
    let words = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
    let limit = Some(Duration::from_millis(100));
    let peer = {
        let words = words.clone();
        std::thread::spawn(move || -> Result<(), String> {
            let me = sys::gettid();
            sys::set_cpu(me, cpu).map_err(|e| e.to_string())?;
            sys::set_priority(me, Some(10)).map_err(|e| e.to_string())?;
            for i in 1..=n as u32 + 1 {
                // Wait for the i-th ping, answer with the i-th pong.
                let t0 = Instant::now();
                while words[0].load(Ordering::Acquire) < i {
                    if t0.elapsed() > Duration::from_secs(2) {
                        return Err("context-switch partner stalled".into());
                    }
                    sys::futex_wait(&words[0], i - 1, limit);
                }
                words[1].store(i, Ordering::Release);
                sys::futex_wake(&words[1], 1);
            }
            Ok(())
        })
    };
    let me = sys::gettid();
    sys::set_cpu(me, cpu).map_err(|e| e.to_string())?;
    sys::set_priority(me, Some(10)).map_err(|e| e.to_string())?;
    let mut v = Vec::with_capacity(n);
    let mut err = None;
    for i in 1..=n as u32 + 1 {
        let t0 = Instant::now();
        words[0].store(i, Ordering::Release);
        sys::futex_wake(&words[0], 1);
        while words[1].load(Ordering::Acquire) < i {
            if t0.elapsed() > Duration::from_secs(2) {
                err = Some("context-switch partner stalled".to_string());
                break;
            }
            sys::futex_wait(&words[1], i - 1, limit);
        }
        if err.is_some() {
            break;
        }
        if i > 1 {
            v.push(t0.elapsed().as_nanos() as f64 / 2.0);
        }
    }
    let _ = sys::set_priority(me, None);
    peer.join().map_err(|_| "partner panicked")??;
    match err {
        Some(e) => Err(e),
        None => Ok(summary(v)),
    }
}

/// A job release: how late a SCHED_FIFO thread wakes from an absolute
/// timer (the timer interrupt, the wake-up and the switch in), one release
/// per `period`.
pub fn release(cpu: usize, n: usize, period: Duration) -> Result<[f64; 4], String> {
    let me = sys::gettid();
    sys::set_cpu(me, cpu).map_err(|e| e.to_string())?;
    sys::set_priority(me, Some(10)).map_err(|e| e.to_string())?;
    let now = || {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: ts is a valid out-pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128
    };
    let mut at = now() + period.as_nanos() as i128;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let ts = libc::timespec {
            tv_sec: (at / 1_000_000_000) as libc::time_t,
            tv_nsec: (at % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: ts is valid; an absolute sleep on the monotonic clock.
        unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        v.push((now() - at).max(0) as f64);
        at += period.as_nanos() as i128;
    }
    let _ = sys::set_priority(me, None);
    Ok(summary(v))
}

/// The longest a SCHED_FIFO thread spinning alone on `cpu` for `spin`
/// was kept off it: the largest gap between two consecutive reads of the
/// monotonic clock. An interrupt handler takes microseconds; gaps of
/// milliseconds on an otherwise idle CPU are the hypervisor running
/// something else on it, which a virtual machine's steal counter shows
/// only in whole ticks. `spin` is capped at 250 ms, far inside the
/// kernel's real-time throttling budget (950 ms a second), which stays on.
pub fn held_off(cpu: usize, spin: Duration) -> Result<Duration, String> {
    let me = sys::gettid();
    sys::set_cpu(me, cpu).map_err(|e| e.to_string())?;
    sys::set_priority(me, Some(10)).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let until = start + spin.min(Duration::from_millis(250));
    let (mut last, mut worst) = (start, Duration::ZERO);
    while last < until {
        let now = Instant::now();
        worst = worst.max(now - last);
        last = now;
    }
    let _ = sys::set_priority(me, None);
    Ok(worst)
}

/// A migration: the calling thread moves itself to `to` and back with
/// `sched_setaffinity` (each call returns on the new CPU); half a round
/// trip.
pub fn migration(from: usize, to: usize, n: usize) -> Result<[f64; 4], String> {
    let me = sys::gettid();
    sys::set_cpu(me, from).map_err(|e| e.to_string())?;
    sys::set_priority(me, Some(10)).map_err(|e| e.to_string())?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        sys::set_cpu(me, to).map_err(|e| e.to_string())?;
        sys::set_cpu(me, from).map_err(|e| e.to_string())?;
        v.push(t0.elapsed().as_nanos() as f64 / 2.0);
    }
    let _ = sys::set_priority(me, None);
    Ok(summary(v))
}

/// The two ways of running an (empty) section on the synchronization CPU
/// `to` for a caller on `from`, interleaved sample by sample so that both
/// see the same noise, each a whole round trip:
/// - the caller migrates there and back (`sched_setaffinity` twice), as
///   the runtime does;
/// - an agent thread pinned on `to`, at a priority above the caller's
///   (DPCP's agents run above every normal priority), is woken through a
///   futex word, runs the section and wakes the caller, which sleeps
///   meanwhile.
///
/// Returns `(migration, agent)`.
pub fn sync_section(from: usize, to: usize, n: usize) -> Result<([f64; 4], [f64; 4]), String> {
    // words[0]: requests posted; words[1]: requests done.
    let words = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
    let limit = Some(Duration::from_millis(100));
    let stalled = || "DPCP agent stalled".to_string();
    let agent = {
        let words = words.clone();
        std::thread::spawn(move || -> Result<(), String> {
            let me = sys::gettid();
            sys::set_cpu(me, to).map_err(|e| e.to_string())?;
            sys::set_priority(me, Some(11)).map_err(|e| e.to_string())?;
            let mut done = 0;
            // One request per sample, then a last one that says stop.
            while done <= n as u32 {
                let t0 = Instant::now();
                while words[0].load(Ordering::Acquire) == done {
                    if t0.elapsed() > Duration::from_secs(2) {
                        let _ = sys::set_priority(me, None);
                        return Err(stalled());
                    }
                    sys::futex_wait(&words[0], done, limit);
                }
                done += 1;
                // The section (empty) runs here, on `to`.
                words[1].store(done, Ordering::Release);
                sys::futex_wake(&words[1], 1);
            }
            let _ = sys::set_priority(me, None);
            Ok(())
        })
    };
    let me = sys::gettid();
    let run = || -> Result<(Vec<f64>, Vec<f64>), String> {
        sys::set_cpu(me, from).map_err(|e| e.to_string())?;
        sys::set_priority(me, Some(10)).map_err(|e| e.to_string())?;
        let (mut mig, mut ag) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for i in 1..=n as u32 {
            let t0 = Instant::now();
            sys::set_cpu(me, to).map_err(|e| e.to_string())?;
            sys::set_cpu(me, from).map_err(|e| e.to_string())?;
            mig.push(t0.elapsed().as_nanos() as f64);
            let t0 = Instant::now();
            words[0].store(i, Ordering::Release);
            sys::futex_wake(&words[0], 1);
            while words[1].load(Ordering::Acquire) < i {
                if t0.elapsed() > Duration::from_secs(2) {
                    return Err(stalled());
                }
                sys::futex_wait(&words[1], i - 1, limit);
            }
            ag.push(t0.elapsed().as_nanos() as f64);
        }
        Ok((mig, ag))
    };
    let out = run();
    let _ = sys::set_priority(me, None);
    // Let the agent go, whatever happened above.
    words[0].store(n as u32 + 1, Ordering::Release);
    sys::futex_wake(&words[0], 1);
    agent.join().map_err(|_| "DPCP agent panicked")??;
    let (mig, ag) = out?;
    Ok((summary(mig), summary(ag)))
}
