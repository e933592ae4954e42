//! The uncontended cost of each protocol on one SCHED_FIFO thread, beside
//! glibc's mutexes (no protocol, PRIO_INHERIT, PRIO_PROTECT) measured on
//! the same thread in the same run.
//!
//! Two passes per lock. Batches of `BATCH` lock+unlock pairs, a batch's
//! time over `BATCH` one sample (the table: timing one pair alone would
//! mostly measure the clock); then single locks and single unlocks, each
//! timed alone less the clock's own cost (the overhead profile wants each
//! operation's tail, not a batch mean).
//!
//! A protocol's batches alternate, batch by batch, with batches of its
//! peer (PRIO_INHERIT for the fast path, PRIO_PROTECT for a priority
//! change) on the same thread at the same base priority: the ratio then
//! compares the two under the same noise. (Measured one after the other,
//! a VM's drift moved the ratio of the same binary between 0.93x and
//! 1.6x.)
//!
//! The system is built so that the protocol does on the uncontended path
//! what it does in general: on one CPU a higher-priority task also uses
//! the resource (ceilings above the caller: IPCP raises); on two CPUs the
//! resource is global (MPCP boosts, DPCP and DFLP migrate to the
//! synchronization CPU, the spin protocols go non-preemptive) and a
//! higher-priority user on the caller's own CPU puts MrsP's local ceiling
//! above it.

use super::stats::{clock_cost, summary};
use rtsync_model::{Protocol, System};
use rtsync_rt::pi::RawMutex;
use rtsync_rt::{Domain, Options, sys};
use std::time::{Duration, Instant};

const BATCH: u32 = 64;

/// What a lock does on its uncontended path, which decides its peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A glibc mutex: the peers themselves.
    Peer,
    /// Changes no priority and no CPU (rtsync's fast path): beside glibc's
    /// PRIO_INHERIT mutex.
    Unchanged,
    /// Changes the caller's priority: beside PRIO_PROTECT. `true`: on the
    /// fast path (the thread raises itself, as PRIO_PROTECT does).
    Raises(bool),
    /// Moves the caller to another CPU (DPCP, DFLP): beside nothing.
    Migrates,
}

#[derive(Clone)]
pub struct Row {
    pub name: String,
    pub protocol: Option<Protocol>,
    pub class: Class,
    /// ns per lock+unlock pair, batch means.
    pub pair: [f64; 4],
    /// The peer's batches, interleaved with this lock's.
    pub peer: Option<[f64; 4]>,
    /// ns per lock and per unlock, each timed alone.
    pub lock: [f64; 4],
    pub unlock: [f64; 4],
}

fn system(p: Protocol) -> System {
    let multi = !p.is_uniprocessor();
    let cpus = if multi { 2 } else { 1 };
    let mut tasks = vec![("T".to_string(), 2, 0), ("H".to_string(), 3, cpus - 1)];
    if multi {
        tasks.push(("U".to_string(), 4, 0));
    }
    super::one_resource(p, cpus, &tasks)
}

/// Batch means of `op` (a lock+unlock pair), ns per pair.
fn batches(samples: usize, mut op: impl FnMut()) -> [f64; 4] {
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
    summary(v)
}

/// Batch means of `op` and of `peer`, alternating batch by batch.
fn interleaved(samples: usize, mut op: impl FnMut(), mut peer: impl FnMut()) -> [[f64; 4]; 2] {
    for _ in 0..BATCH * 4 {
        op();
        peer();
    }
    let time = |f: &mut dyn FnMut()| {
        let t0 = Instant::now();
        for _ in 0..BATCH {
            f();
        }
        t0.elapsed().as_nanos() as f64 / BATCH as f64
    };
    let (mut a, mut b) = (Vec::with_capacity(samples), Vec::with_capacity(samples));
    for i in 0..samples {
        // Alternate which goes first, too.
        if i % 2 == 0 {
            a.push(time(&mut op));
            b.push(time(&mut peer));
        } else {
            b.push(time(&mut peer));
            a.push(time(&mut op));
        }
    }
    [summary(a), summary(b)]
}

/// Single lock and unlock times, less the clock's cost.
fn singles(
    n: usize,
    clock: f64,
    mut lock: impl FnMut(),
    mut unlock: impl FnMut(),
) -> [[f64; 4]; 2] {
    let mut l = Vec::with_capacity(n);
    let mut u = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        lock();
        let t1 = Instant::now();
        unlock();
        let t2 = Instant::now();
        l.push(((t1 - t0).as_nanos() as f64 - clock).max(0.0));
        u.push(((t2 - t1).as_nanos() as f64 - clock).max(0.0));
    }
    [summary(l), summary(u)]
}

/// Measures every lock on CPU `cpu` (`other`: a second CPU, for the
/// multiprocessor protocols; without one they are left out).
pub fn measure(samples: usize, cpu: usize, other: Option<usize>) -> Result<Vec<Row>, String> {
    let me = sys::gettid();
    sys::set_cpu(me, cpu).map_err(|e| format!("pinning the bench thread: {e}"))?;
    let clock = clock_cost();
    let singles_n = samples * 16;
    let mut rows = Vec::new();
    sys::set_priority(me, Some(10)).map_err(|e| format!("SCHED_FIFO for the bench: {e}"))?;
    let mut peers = Vec::new();
    for (name, proto) in [
        ("glibc (no protocol)", libc::PTHREAD_PRIO_NONE),
        ("glibc PRIO_INHERIT", libc::PTHREAD_PRIO_INHERIT),
        ("glibc PRIO_PROTECT", libc::PTHREAD_PRIO_PROTECT),
    ] {
        // The ceiling is above every priority a bench thread runs at.
        let m = RawMutex::new(proto, 90).map_err(|e| format!("{name}: {e}"))?;
        // SAFETY (both closures): each unlock follows this thread's lock.
        let pair = batches(samples, || {
            m.lock();
            unsafe { m.unlock() }
        });
        let [lock, unlock] = singles(singles_n, clock, || m.lock(), || unsafe { m.unlock() });
        rows.push(Row {
            name: name.into(),
            protocol: None,
            class: Class::Peer,
            pair,
            peer: None,
            lock,
            unlock,
        });
        peers.push(m);
    }
    let _ = sys::set_priority(me, None);
    for p in Protocol::ALL {
        let map = match (p.is_uniprocessor(), other) {
            (true, _) => vec![cpu],
            (false, Some(o)) => vec![cpu, o],
            (false, None) => continue,
        };
        let sys_p = system(p);
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
        let (t, a) = (b.task(), d.resource("A").map_err(|e| e.to_string())?);
        let class = if p.needs_sync_cpu() {
            Class::Migrates
        } else if !d.fast_path(t, a) {
            Class::Raises(false)
        } else if d.fast_raise(t, a).is_some() {
            Class::Raises(true)
        } else {
            Class::Unchanged
        };
        let failed = std::cell::RefCell::new(None);
        let note = |r: Result<(), rtsync_rt::RtError>| {
            if let Err(e) = r {
                failed.borrow_mut().get_or_insert(e.to_string());
            }
        };
        let op = || note(b.lock(a, 1).and_then(|_| b.unlock(a)));
        let (pair, peer) = match class {
            Class::Unchanged | Class::Raises(_) => {
                let m = &peers[if class == Class::Unchanged { 1 } else { 2 }];
                // SAFETY: each unlock follows this thread's lock.
                let [pair, peer] = interleaved(samples, op, || {
                    m.lock();
                    unsafe { m.unlock() }
                });
                (pair, Some(peer))
            }
            _ => (batches(samples, op), None),
        };
        let [lock, unlock] = singles(
            singles_n,
            clock,
            || note(b.lock(a, 1).map(|_| ())),
            || note(b.unlock(a)),
        );
        if let Some(e) = failed.into_inner() {
            return Err(format!("{p}: {e}"));
        }
        rows.push(Row {
            name: p.name().into(),
            protocol: Some(p),
            class,
            pair,
            peer,
            lock,
            unlock,
        });
    }
    Ok(rows)
}

/// One lock measured in a mixed system and in the same system with one
/// protocol.
pub struct MixRow {
    /// `"pip beside pcp"`.
    pub name: String,
    /// ns per lock+unlock pair in the mixed system, batch means.
    pub mixed: [f64; 4],
    /// The same lock in the single-protocol system, batches interleaved.
    pub single: [f64; 4],
}

/// The mixes measured: resource `A`'s protocol, and the protocol of the
/// second resource `B` beside it (each accepted by `rtsync_model::mix`).
pub const MIXES: [(Protocol, Protocol); 6] = [
    (Protocol::Pip, Protocol::Pcp),
    (Protocol::Ipcp, Protocol::Pip),
    (Protocol::Pcp, Protocol::Ipcp),
    (Protocol::FmlpS, Protocol::FmlpL),
    (Protocol::FmlpL, Protocol::FmlpS),
    (Protocol::Mpcp, Protocol::Pcp),
];

/// [`system`]'s tasks with `A` under `a` and a second resource `B` under
/// `b`, used by the tasks of CPU 0 (so local: PCP beside MPCP is allowed
/// only there).
fn system_with(a: Protocol, b: Protocol) -> System {
    let multi = !a.is_uniprocessor();
    let cpus = if multi { 2 } else { 1 };
    let mut src = format!(
        "[platform]\ncpus = {cpus}\n[[resource]]\nname = \"A\"\nprotocol = \"{a}\"\n\
         [[resource]]\nname = \"B\"\nprotocol = \"{b}\"\n"
    );
    let mut tasks = vec![("T", 2, 0), ("H", 3, cpus - 1)];
    if multi {
        tasks.push(("U", 4, 0));
    }
    for (name, prio, cpu) in tasks {
        let b_too = if cpu == 0 {
            ", { lock = \"B\", hold = \"10us\" }"
        } else {
            ""
        };
        src += &format!(
            "[[task]]\nname = \"{name}\"\nperiod = \"100ms\"\npriority = {prio}\ncpu = {cpu}\n\
             body = [ {{ lock = \"A\", hold = \"10us\" }}{b_too} ]\n"
        );
    }
    rtsync_model::load_str(&src, None)
        .map(|(s, _)| s)
        .unwrap_or_else(|d| panic!("bench system: {d}\n{src}"))
}

/// The uncontended lock+unlock of `A` by `T` in each of [`MIXES`], batch
/// by batch against the same lock in the system where `B` has `A`'s
/// protocol, on CPU `cpu` (and `other` for the multiprocessor mixes, left
/// out without it). Default options: the path a user gets.
pub fn measure_mixed(
    samples: usize,
    cpu: usize,
    other: Option<usize>,
) -> Result<Vec<MixRow>, String> {
    let mut rows = Vec::new();
    for (a, b) in MIXES {
        let map = match (a.is_uniprocessor(), other) {
            (true, _) => vec![cpu],
            (false, Some(o)) => vec![cpu, o],
            (false, None) => continue,
        };
        let domain = |sys: &System| {
            Domain::new(
                sys,
                Options {
                    cpu_map: Some(map.clone()),
                    wait_limit: Duration::from_secs(2),
                    ..Options::default()
                },
            )
            .map_err(|e| e.to_string())
        };
        let (mixed, single) = (domain(&system_with(a, b))?, domain(&system_with(a, a))?);
        // One thread, bound in both domains, alternating between them.
        let (bm, bs) = (
            mixed.bind("T").map_err(|e| e.to_string())?,
            single.bind("T").map_err(|e| e.to_string())?,
        );
        let (am, as_) = (
            mixed.resource("A").map_err(|e| e.to_string())?,
            single.resource("A").map_err(|e| e.to_string())?,
        );
        let failed = std::cell::RefCell::new(None);
        let note = |r: Result<(), rtsync_rt::RtError>| {
            if let Err(e) = r {
                failed.borrow_mut().get_or_insert(e.to_string());
            }
        };
        let [m, s] = interleaved(
            samples,
            || note(bm.lock(am, 1).and_then(|_| bm.unlock(am))),
            || note(bs.lock(as_, 1).and_then(|_| bs.unlock(as_))),
        );
        if let Some(e) = failed.into_inner() {
            return Err(format!("{a} beside {b}: {e}"));
        }
        rows.push(MixRow {
            name: format!("{a} beside {b}"),
            mixed: m,
            single: s,
        });
    }
    Ok(rows)
}
