//! `rtsync bench locks`: the uncontended cost of each protocol on real
//! threads, beside glibc's mutexes (no protocol, PRIO_INHERIT,
//! PRIO_PROTECT) measured on the same thread in the same run.
//!
//! One SCHED_FIFO thread, pinned to the last CPU, takes and releases one
//! resource in batches of `BATCH`; a batch's time over `BATCH` is one
//! sample (timing each operation alone would measure the clock). The
//! system is built so that the protocol does on the uncontended path what
//! it does in general: a second task of higher priority also uses the
//! resource (so ceilings are above the caller and IPCP raises), and on two
//! CPUs the resource is global (MPCP boosts, DPCP and DFLP migrate to the
//! synchronization CPU, the spin protocols go non-preemptive).
//!
//! Not measured yet (issue 4): contended hand-off latency, cost against
//! the number of waiters, and the overhead profile file.

use super::{BAD_INPUT, OK};
use rtsync_model::{Protocol, System, load_str};
use rtsync_rt::pi::RawMutex;
use rtsync_rt::{Domain, Options, sys};
use std::time::{Duration, Instant};

const BATCH: u32 = 64;

fn system(p: Protocol) -> System {
    let cpus = if !p.is_uniprocessor() { 2 } else { 1 };
    let h_cpu = cpus - 1;
    let sync = if p.needs_sync_cpu() {
        "sync_cpu = 1\n"
    } else {
        ""
    };
    let src = format!(
        "[platform]\ncpus = {cpus}\nprotocol = \"{}\"\n[[resource]]\nname = \"A\"\n{sync}\
         [[task]]\nname = \"T\"\nperiod = \"10ms\"\npriority = 2\ncpu = 0\nbody = [ {{ lock = \"A\", hold = \"10us\" }} ]\n\
         [[task]]\nname = \"H\"\nperiod = \"10ms\"\npriority = 3\ncpu = {h_cpu}\nbody = [ {{ lock = \"A\", hold = \"10us\" }} ]\n",
        p.name()
    );
    load_str(&src, None)
        .map(|(s, _)| s)
        .unwrap_or_else(|d| panic!("bench system: {d}\n{src}"))
}

/// Per-operation nanoseconds of `samples` batches: min, median, p99, max.
fn stats(mut v: Vec<f64>) -> [f64; 4] {
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [v[0], q(0.5), q(0.99), v[v.len() - 1]]
}

fn sample(samples: usize, mut op: impl FnMut()) -> [f64; 4] {
    for _ in 0..BATCH * 4 {
        op(); // warm-up
    }
    let v = (0..samples)
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..BATCH {
                op();
            }
            t0.elapsed().as_nanos() as f64 / BATCH as f64
        })
        .collect();
    stats(v)
}

pub fn run(samples: usize) -> u8 {
    if samples < 10 {
        eprintln!("error: --ops must be at least 10 (batches of {BATCH})");
        return BAD_INPUT;
    }
    if let Err(why) = sys::probe_realtime() {
        eprintln!("error: {why}\n  (bench locks measures on SCHED_FIFO threads)");
        return BAD_INPUT;
    }
    let cpus = sys::allowed_cpus();
    let cpu = *cpus.last().unwrap();
    println!(
        "rtsync bench locks: uncontended lock+unlock, one SCHED_FIFO thread on CPU {cpu}, {samples} batches of {BATCH}; ns per lock+unlock\n"
    );
    let rows = std::thread::spawn(move || {
        let mut rows: Vec<(String, [f64; 4])> = Vec::new();
        let me = sys::gettid();
        if sys::set_cpu(me, cpu).is_err() || sys::set_priority(me, Some(10)).is_err() {
            return Err("cannot make the bench thread SCHED_FIFO".to_string());
        }
        for (name, proto) in [
            ("glibc (no protocol)", libc::PTHREAD_PRIO_NONE),
            ("glibc PRIO_INHERIT", libc::PTHREAD_PRIO_INHERIT),
            ("glibc PRIO_PROTECT", libc::PTHREAD_PRIO_PROTECT),
        ] {
            let m = RawMutex::new(proto, 20).map_err(|e| format!("{name}: {e}"))?;
            rows.push((
                name.to_string(),
                sample(samples, || {
                    m.lock();
                    // SAFETY: locked on the line above, by this thread.
                    unsafe { m.unlock() }
                }),
            ));
        }
        let _ = sys::set_priority(me, None);
        for p in Protocol::ALL {
            let sys_p = system(p);
            let map = if !p.is_uniprocessor() {
                if cpus.len() < 2 {
                    continue;
                }
                vec![cpus[0], cpu]
            } else {
                vec![cpu]
            };
            let d = Domain::new(
                &sys_p,
                Options {
                    cpu_map: Some(map),
                    wait_limit: Duration::from_secs(2),
                    ..Options::default()
                },
            )
            .map_err(|e| e.to_string())?;
            let b = d.bind("T").map_err(|e| e.to_string())?;
            let a = d.resource("A").map_err(|e| e.to_string())?;
            let mut failed = None;
            let s = sample(samples, || {
                if let Err(e) = b.lock(a, 1).and_then(|_| b.unlock(a)) {
                    failed.get_or_insert(e.to_string());
                }
            });
            if let Some(e) = failed {
                return Err(format!("{p}: {e}"));
            }
            rows.push((p.name().to_string(), s));
        }
        Ok(rows)
    })
    .join()
    .unwrap_or_else(|_| Err("the bench thread panicked".into()));
    let rows = match rows {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let pi = rows[1].1[1];
    let pp = rows[2].1[1];
    println!(
        "{:<20} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9}",
        "lock", "min", "median", "p99", "max", "/ PI", "/ PROTECT"
    );
    for (name, s) in &rows {
        println!(
            "{:<20} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>8.1}x {:>8.2}x",
            name,
            s[0],
            s[1],
            s[2],
            s[3],
            s[1] / pi,
            s[1] / pp
        );
    }
    println!(
        "\n/ PI, / PROTECT: median over glibc's PRIO_INHERIT and PRIO_PROTECT medians of this run.\n\
         Targets (DESIGN.md): no priority change on the uncontended path within 1.5x PI; a priority change within 1.0x PROTECT."
    );
    OK
}
