//! Random operations per protocol on real SCHED_FIFO threads, on the paths
//! users get by default and again recorded (every operation through the
//! machine): four threads on two CPUs (one for the uniprocessor
//! protocols) lock A, B or A then B (where the protocol allows nesting) in
//! a seeded random order, each section a few microseconds of computation,
//! each thread sleeping between sections.
//!
//! Canaries, checked by the threads themselves: mutual exclusion (a count
//! of threads inside each resource), the priority the kernel runs a holder
//! at (read from `/proc/thread-self/stat`, which shows PI boosts that
//! `sched_getparam` hides: never below the thread's base, never below the
//! ceiling the protocol raises it to), every thread back at its base once
//! done, and every request granted within the wait limit (no deadlock, no
//! lost wake-up). Bounded: 400 operations and 400 ms per thread; RT
//! throttling stays on; skipped with the reason where SCHED_FIFO is not
//! permitted.

mod common;

use common::{compute, last_cpu, realtime, system};
use rtsync_model::Protocol;
use rtsync_rt::{Domain, Mutex, Options, sys};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const OPS: u64 = 400;
const LIMIT: Duration = Duration::from_millis(400);

fn spec(p: Protocol) -> String {
    let cpus = if p.is_uniprocessor() { 1 } else { 2 };
    let nest = p.is_uniprocessor() || p.allows_nested_global();
    let mut s = format!("[platform]\ncpus = {cpus}\nprotocol = \"{}\"\n", p.name());
    for r in ["A", "B"] {
        s += &format!("[[resource]]\nname = \"{r}\"\n");
        if p.needs_sync_cpu() {
            s += "sync_cpu = 1\n";
        }
    }
    let nested = if nest {
        ", { lock = \"A\", body = [ { lock = \"B\", hold = \"10us\" } ] }"
    } else {
        ""
    };
    for t in 0..4 {
        s += &format!(
            "[[task]]\nname = \"t{t}\"\nperiod = \"10ms\"\npriority = {}\ncpu = {}\nbody = [ {{ lock = \"A\", hold = \"10us\" }}, {{ lock = \"B\", hold = \"10us\" }}{nested} ]\n",
            4 - t,
            t % cpus
        );
    }
    s
}

/// The calling thread's effective SCHED_FIFO priority as the kernel runs
/// it (PI boosts included): field 18 of its stat is `-1 - priority`.
fn kernel_priority() -> i32 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let prio: i32 = after.split_whitespace().nth(15).unwrap().parse().unwrap();
    -1 - prio
}

#[derive(Default)]
struct Canary {
    inside: [AtomicUsize; 2],
    broken: std::sync::Mutex<Vec<String>>,
    sections: AtomicU64,
}

impl Canary {
    fn fail(&self, what: String) {
        let mut b = self.broken.lock().unwrap();
        if b.len() < 10 {
            b.push(what);
        }
    }
}

fn worker(
    d: Domain,
    t: usize,
    locks: Arc<[Mutex<()>; 2]>,
    c: Arc<Canary>,
    nest: bool,
) -> Result<(), String> {
    let name = format!("t{t}");
    let b = d.bind(&name).map_err(|e| e.to_string())?;
    let base = kernel_priority();
    let floor = |r: usize| {
        let raise = d.fast_raise(t, r).unwrap_or(0);
        base.max(raise)
    };
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ (t as u64 + 1);
    let started = Instant::now();
    let check = |r: usize, inside: bool| {
        if inside {
            let was = c.inside[r].fetch_add(1, Ordering::SeqCst);
            if was != 0 {
                c.fail(format!(
                    "{name}: {} other thread(s) inside resource {r}",
                    was
                ));
            }
            let k = kernel_priority();
            if k < floor(r) {
                c.fail(format!(
                    "{name}: runs at {k} inside resource {r}, below {}",
                    floor(r)
                ));
            }
        } else {
            c.inside[r].fetch_sub(1, Ordering::SeqCst);
        }
    };
    for _ in 0..OPS {
        if started.elapsed() > LIMIT {
            break;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let op = x % if nest { 3 } else { 2 };
        let hold = Duration::from_micros(2 + (x >> 8) % 15);
        b.job_begin()
            .map_err(|e| format!("{name}: job_begin: {e}"))?;
        let outer = if op == 1 { 1 } else { 0 };
        {
            let g = locks[outer]
                .lock()
                .map_err(|e| format!("{name}: lock {outer}: {e:?}"))?;
            check(outer, true);
            compute(hold);
            if op == 2 {
                let g2 = locks[1]
                    .lock()
                    .map_err(|e| format!("{name}: lock 1 inside 0: {e:?}"))?;
                check(1, true);
                compute(hold);
                check(1, false);
                drop(g2);
            }
            check(outer, false);
            drop(g);
        }
        b.job_end().map_err(|e| format!("{name}: job_end: {e}"))?;
        c.sections
            .fetch_add(1 + (op == 2) as u64, Ordering::Relaxed);
        std::thread::sleep(Duration::from_micros(50 + (x >> 20) % 250));
    }
    let k = kernel_priority();
    if k != base {
        c.fail(format!("{name}: left at priority {k}, base {base}"));
    }
    drop(b);
    Ok(())
}

/// One protocol, one set of options: `(sections, violations)`.
fn stress(p: Protocol, record: bool) -> (u64, Vec<String>) {
    let cpus = sys::allowed_cpus();
    let n = if p.is_uniprocessor() { 1 } else { 2 };
    let map: Vec<usize> = if cpus.len() >= 2 {
        cpus[cpus.len() - n..].to_vec()
    } else {
        vec![last_cpu(); n]
    };
    let d = Domain::new(
        &system(&spec(p)),
        Options {
            cpu_map: Some(map),
            wait_limit: Duration::from_secs(2),
            record,
            ..Options::default()
        },
    )
    .unwrap();
    let locks = Arc::new([
        Mutex::new(&d, "A", ()).unwrap(),
        Mutex::new(&d, "B", ()).unwrap(),
    ]);
    let nest = p.is_uniprocessor() || p.allows_nested_global();
    let c = Arc::new(Canary::default());
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let (d, l, c) = (d.clone(), locks.clone(), c.clone());
            std::thread::spawn(move || worker(d, t, l, c, nest))
        })
        .collect();
    let mut bad = Vec::new();
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => bad.push(e),
            Err(_) => bad.push("a worker panicked".into()),
        }
    }
    bad.extend(c.broken.lock().unwrap().iter().cloned());
    (c.sections.load(Ordering::Relaxed), bad)
}

#[test]
fn random_operations_on_real_threads_break_no_canary() {
    let Some(_rt) = realtime("random_operations_on_real_threads_break_no_canary") else {
        return;
    };
    let mut bad = Vec::new();
    let mut total = 0;
    for p in Protocol::ALL {
        for record in [false, true] {
            let (sections, v) = stress(p, record);
            eprintln!(
                "{:<7} {:<8} {sections:>4} sections, {} violation(s)",
                p.name(),
                if record { "recorded" } else { "default" },
                v.len()
            );
            assert!(sections > 100, "{p}: only {sections} sections ran");
            total += sections;
            bad.extend(v.into_iter().map(|v| format!("{p} (record {record}): {v}")));
        }
    }
    eprintln!("{total} sections in all");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
