//! Helpers shared by the runtime's tests: building systems, skipping where
//! SCHED_FIFO is not permitted, and bounded waiting.

#![allow(dead_code)]

use rtsync_model::{System, load_str, parse_str};
use rtsync_rt::{Domain, Options, sys};
use std::time::{Duration, Instant};

/// Whether SCHED_FIFO may be used; prints why a test skips otherwise.
pub fn realtime(test: &str) -> bool {
    match sys::probe_realtime() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped {test}: {why}");
            false
        }
    }
}

pub fn system(src: &str) -> System {
    load_str(src, None)
        .map(|(s, _)| s)
        .unwrap_or_else(|d| panic!("{d}\n{src}"))
}

/// A system the validator would reject for a reason the test is about
/// (a lock-order cycle that the runtime must refuse at run time).
pub fn system_unchecked(src: &str) -> System {
    parse_str(src, None).unwrap_or_else(|d| panic!("{d}\n{src}"))
}

/// The last CPU this process may use: real-time threads of a test go
/// there, away from CPU 0's interrupts.
pub fn last_cpu() -> usize {
    *sys::allowed_cpus().last().unwrap()
}

/// A recording domain; real-time with every system CPU mapped to
/// `cpus` (cycled), or logic only.
pub fn domain(src: &str, realtime: bool, cpus: &[usize]) -> Domain {
    domain_of(&system(src), realtime, cpus)
}

pub fn domain_of(sys: &System, realtime: bool, cpus: &[usize]) -> Domain {
    let map = rtsync_rt::placement::default_map(sys.platform.cpus, cpus);
    Domain::new(
        sys,
        Options {
            realtime,
            cpu_map: Some(map),
            wait_limit: Duration::from_secs(5),
            record: true,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A real-time domain that keeps no log, with system CPU c on `cpus[c]`:
/// raising fast sections are taken only where no log must show them.
pub fn unrecorded(src: &str, cpus: &[usize]) -> Domain {
    Domain::new(
        &system(src),
        Options {
            cpu_map: Some(cpus.to_vec()),
            wait_limit: Duration::from_secs(5),
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Polls `cond` every millisecond for at most 5 s.
pub fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !cond() {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "timed out waiting until {what}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The calling thread's CPU time.
pub fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is valid and writable.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Spins until the calling thread has used `d` of CPU time (as a
/// preempted computation would, in the model), or for 5 s of wall time.
pub fn compute(d: Duration) {
    let until = cpu_time() + d;
    let limit = Instant::now() + Duration::from_secs(5);
    while cpu_time() < until && Instant::now() < limit {}
}

/// The CPU the calling thread runs on.
pub fn current_cpu() -> usize {
    // SAFETY: sched_getcpu has no preconditions.
    unsafe { libc::sched_getcpu() as usize }
}
