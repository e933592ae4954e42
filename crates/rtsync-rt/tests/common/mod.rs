//! Helpers shared by the runtime's tests: building systems, skipping where
//! SCHED_FIFO is not permitted, and bounded waiting.

#![allow(dead_code)]

use rtsync_model::{System, load_str, parse_str};
use rtsync_rt::{Domain, Options, sys};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A real-time test's hold on the machine: the real-time tests of one
/// test binary run one at a time. Each pins its threads to the same few
/// CPUs at SCHED_FIFO priorities and checks what ran where and when, and
/// the test harness runs a binary's tests side by side: on a 2-CPU
/// machine another test's real-time threads on the last CPU kept an MrsP
/// spinner off it long enough that the holder was never helped there (a
/// failure seen once in CI, never when the test ran alone).
pub struct RealTime {
    _one_at_a_time: MutexGuard<'static, ()>,
}

/// `Some` where SCHED_FIFO may be used, holding the machine for the test
/// (keep it until the test ends); `None`, after printing why the test
/// skips, where it may not.
pub fn realtime(test: &str) -> Option<RealTime> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    // A test that failed while holding it poisons nothing the next needs.
    let guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    match sys::probe_realtime() {
        Ok(()) => Some(RealTime {
            _one_at_a_time: guard,
        }),
        Err(why) => {
            eprintln!("skipped {test}: {why}");
            None
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
