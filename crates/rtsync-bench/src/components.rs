//! Component requests on real threads (paper 001, Table 2 and Fig. 6),
//! each beside its peer measured in the same run on the same CPU.
//!
//! **Round trips** (call and reply, one CPU, the requester under
//! SCHED_FIFO): the baseline is a plain in-process request/reply of two
//! threads over two futex words (the server a dedicated thread at the
//! requester's priority), what a hand-written server costs. Each
//! interface kind is measured through `rtsync_rt::component` with the
//! same empty request: fixed (one thread at the ceiling), propagated,
//! inherited with its lock free, inherited requesting inherited, and
//! inherited requesting propagated (two round trips: compared with two
//! baselines). Samples are batches of 50 round trips.
//!
//! **Hand-offs** (one CPU): a low task's request holds an inherited
//! interface; a high task's request waits for it; from the low request's
//! last instruction to the high request's first. The peer is glibc's
//! PRIO_INHERIT mutex (the kernel's PI futex) between the same two
//! priorities, from the holder's last instruction before unlocking to
//! the waiter's first after locking. `nest`: the holder of the interface
//! is itself inside a nested request to a second inherited interface
//! held by a third task, and the high request's wait reaches it through
//! both (two hand-offs and a reply on the way back: compared with two PI
//! hand-offs).
//!
//! **The notification manager** (Fig. 6): push + pop on the max-heap with
//! 1 to 100 requests queued, plotted.
//!
//! The p99s become the `[component]` table of the overhead profile.

use crate::Error;
use crate::locks::stats::summary;
use rtsync_analysis::components::Overheads;
use rtsync_analysis::overheads::Profile;
use rtsync_model::Time;
use rtsync_rt::component::{AssemblyOptions, Builder, Kind, NotifyQueue, Remote};
use rtsync_rt::pi::RawMutex;
use rtsync_rt::sys;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// What to measure.
pub struct Config {
    /// Round trips per case (in batches of 50).
    pub calls: usize,
    /// Hand-off rounds per case.
    pub rounds: usize,
    /// Where to write the notification manager's plot.
    pub plot: std::path::PathBuf,
    /// The overhead profile to add the `[component]` table to (made if
    /// missing).
    pub profile: std::path::PathBuf,
}

const BATCH: usize = 50;

fn ns_since(origin: Instant) -> u64 {
    origin.elapsed().as_nanos() as u64
}

/// The requester's SCHED_FIFO priority in the baseline and the peers.
const PRIO: i32 = 10;

fn pin_and_raise(cpu: usize, prio: i32) -> Result<(), String> {
    let tid = sys::gettid();
    sys::set_cpu(tid, cpu).map_err(|e| format!("pinning to CPU {cpu}: {e}"))?;
    sys::set_priority(tid, Some(prio)).map_err(|e| format!("SCHED_FIFO {prio}: {e}"))
}

/// Per-round-trip nanoseconds of each batch: two threads over futexes.
fn baseline(cpu: usize, calls: usize) -> Result<Vec<f64>, String> {
    let req = Arc::new(AtomicU32::new(0));
    let rep = Arc::new(AtomicU32::new(0));
    let slot = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let server = {
        let (req, rep, slot, stop) = (req.clone(), rep.clone(), slot.clone(), stop.clone());
        std::thread::spawn(move || -> Result<(), String> {
            pin_and_raise(cpu, PRIO)?;
            let mut seen = 0;
            let until = Instant::now() + Duration::from_secs(60);
            while !stop.load(Ordering::Acquire) && Instant::now() < until {
                let r = req.load(Ordering::Acquire);
                if r == seen {
                    sys::futex_wait(&req, r, Some(Duration::from_millis(100)));
                    continue;
                }
                seen = r;
                // The request's work: as the components' (an empty one).
                slot.store(slot.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
                rep.fetch_add(1, Ordering::Release);
                sys::futex_wake(&rep, 1);
            }
            Ok(())
        })
    };
    let out = (|| {
        pin_and_raise(cpu, PRIO)?;
        let mut v = Vec::new();
        for _ in 0..calls.div_ceil(BATCH) {
            let t0 = Instant::now();
            for _ in 0..BATCH {
                let seen = rep.load(Ordering::Acquire);
                req.fetch_add(1, Ordering::Release);
                sys::futex_wake(&req, 1);
                let until = Instant::now() + Duration::from_secs(1);
                while rep.load(Ordering::Acquire) == seen {
                    if Instant::now() > until {
                        return Err("the baseline server did not answer within 1 s".into());
                    }
                    sys::futex_wait(&rep, seen, Some(Duration::from_millis(100)));
                }
            }
            v.push(t0.elapsed().as_nanos() as f64 / BATCH as f64);
        }
        Ok(v)
    })();
    let _ = sys::set_priority(sys::gettid(), None);
    stop.store(true, Ordering::Release);
    req.fetch_add(1, Ordering::Release);
    sys::futex_wake(&req, 1);
    server
        .join()
        .map_err(|_| "the baseline server panicked")??;
    out
}

/// An interface's state: nothing, or the interface it requests.
#[derive(Default)]
struct Node {
    below: std::sync::OnceLock<Remote<Node>>,
}

fn options(cpu: usize) -> AssemblyOptions {
    AssemblyOptions {
        cpu_map: Some(vec![cpu]),
        wait_limit: Duration::from_secs(5),
        ..AssemblyOptions::default()
    }
}

/// Per-round-trip nanoseconds through an interface of `kind` (requesting
/// one of `below` when given).
fn round_trips(
    cpu: usize,
    calls: usize,
    kind: Kind,
    below: Option<Kind>,
) -> Result<Vec<f64>, String> {
    let mut b = Builder::new();
    let top = b.serve("A.api", kind, Node::default());
    if let Some(k) = below {
        let inner = b.serve("B.api", k, Node::default());
        b.component("A", &["B.api"]);
        let _ = top.state().below.set(inner);
    }
    b.task("req", 2, &["A.api"]);
    let asm = b.build(&options(cpu)).map_err(|e| e.to_string())?;
    let _g = asm.bind("req").map_err(|e| e.to_string())?;
    let call = || {
        top.call(|s: &Node| match s.below.get() {
            Some(b) => b.call(|_| 1u64).unwrap_or(0),
            None => 1u64,
        })
    };
    // Warm up: every thread has run once.
    for _ in 0..BATCH {
        call().map_err(|e| e.to_string())?;
    }
    let mut v = Vec::new();
    for _ in 0..calls.div_ceil(BATCH) {
        let t0 = Instant::now();
        for _ in 0..BATCH {
            call().map_err(|e| e.to_string())?;
        }
        v.push(t0.elapsed().as_nanos() as f64 / BATCH as f64);
    }
    Ok(v)
}

/// Flags one hand-off round shares.
#[derive(Default)]
struct Round {
    inside: AtomicBool,
    go: AtomicBool,
    t0: AtomicU64,
    t1: AtomicU64,
}

fn spin_until(flag: &AtomicBool, limit: Duration) {
    let until = Instant::now() + limit;
    while !flag.load(Ordering::Acquire) && Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// Sleeps in short steps until `flag` (a higher-priority thread must not
/// spin while a lower one is to set it on its CPU).
fn sleep_until(flag: &AtomicBool, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while !flag.load(Ordering::Acquire) {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_micros(20));
    }
    true
}

/// Hand-off nanoseconds through an inherited interface, or (`nested`)
/// through an interface whose holder waits in a nested request.
fn handoffs(cpu: usize, rounds: usize, nested: bool) -> Result<Vec<f64>, String> {
    let mut b = Builder::new();
    let a = b.serve("A.api", Kind::Inherited, Node::default());
    let inner = b.serve("B.api", Kind::Inherited, Node::default());
    b.component("A", &["B.api"]);
    let _ = a.state().below.set(inner.clone());
    b.task("high", 3, &["A.api"])
        .task("mid", 2, &["A.api"])
        .task("low", 1, &["B.api"]);
    let asm = b.build(&options(cpu)).map_err(|e| e.to_string())?;
    let origin = Instant::now();
    let round = Arc::new(std::sync::Mutex::new(Arc::new(Round::default())));
    let parties = if nested { 3 } else { 2 };
    let start = Arc::new(Barrier::new(parties));
    let end = Arc::new(Barrier::new(parties));
    // The holder: `low` on B (nested) or `mid` on A (plain).
    let holder = {
        let (asm, round, start, end, a, inner) = (
            asm.clone(),
            round.clone(),
            start.clone(),
            end.clone(),
            a.clone(),
            inner.clone(),
        );
        std::thread::spawn(move || -> Result<(), String> {
            let _g = asm
                .bind(if nested { "low" } else { "mid" })
                .map_err(|e| e.to_string())?;
            for _ in 0..rounds {
                start.wait();
                let r = round.lock().unwrap().clone();
                let work = move |_: &Node| {
                    r.inside.store(true, Ordering::Release);
                    spin_until(&r.go, Duration::from_millis(200));
                    r.t0.store(ns_since(origin), Ordering::Release);
                };
                if nested {
                    inner.call(work).map_err(|e| e.to_string())?;
                } else {
                    a.call(work).map_err(|e| e.to_string())?;
                }
                end.wait();
            }
            Ok(())
        })
    };
    // Nested: `mid` holds A and requests B, held by `low`.
    let middle = nested.then(|| {
        let (asm, round, start, end, a) = (
            asm.clone(),
            round.clone(),
            start.clone(),
            end.clone(),
            a.clone(),
        );
        std::thread::spawn(move || -> Result<(), String> {
            let _g = asm.bind("mid").map_err(|e| e.to_string())?;
            for _ in 0..rounds {
                start.wait();
                let r = round.lock().unwrap().clone();
                if !sleep_until(&r.inside, Duration::from_secs(1)) {
                    return Err("the holder did not start".into());
                }
                a.call(move |s: &Node| {
                    if let Some(b) = s.below.get() {
                        let _ = b.call(|_| ());
                    }
                })
                .map_err(|e| e.to_string())?;
                end.wait();
            }
            Ok(())
        })
    });
    let mut v = Vec::new();
    let out = (|| -> Result<(), String> {
        let _g = asm.bind("high").map_err(|e| e.to_string())?;
        for _ in 0..rounds {
            *round.lock().unwrap() = Arc::new(Round::default());
            let r = round.lock().unwrap().clone();
            start.wait();
            if !sleep_until(&r.inside, Duration::from_secs(1)) {
                return Err("the holder did not start".into());
            }
            if nested {
                // Let `mid`'s request reach B and wait there.
                std::thread::sleep(Duration::from_micros(300));
            }
            r.go.store(true, Ordering::Release);
            let rr = r.clone();
            a.call(move |_: &Node| rr.t1.store(ns_since(origin), Ordering::Release))
                .map_err(|e| e.to_string())?;
            let (t0, t1) = (r.t0.load(Ordering::Acquire), r.t1.load(Ordering::Acquire));
            v.push(t1.saturating_sub(t0) as f64);
            end.wait();
        }
        Ok(())
    })();
    let joined = holder
        .join()
        .map_err(|_| "the holder panicked".to_string())?;
    if let Some(m) = middle {
        m.join()
            .map_err(|_| "the middle task panicked".to_string())??;
    }
    out?;
    joined?;
    Ok(v)
}

/// The peer: glibc's PRIO_INHERIT mutex, holder's last instruction to
/// the waiter's first with the lock.
fn pi_handoffs(cpu: usize, rounds: usize) -> Result<Vec<f64>, String> {
    let m = Arc::new(RawMutex::new(libc::PTHREAD_PRIO_INHERIT, 0).map_err(|e| e.to_string())?);
    let origin = Instant::now();
    let round = Arc::new(std::sync::Mutex::new(Arc::new(Round::default())));
    let start = Arc::new(Barrier::new(2));
    let end = Arc::new(Barrier::new(2));
    let holder = {
        let (m, round, start, end) = (m.clone(), round.clone(), start.clone(), end.clone());
        std::thread::spawn(move || -> Result<(), String> {
            pin_and_raise(cpu, PRIO)?;
            for _ in 0..rounds {
                start.wait();
                let r = round.lock().unwrap().clone();
                m.lock();
                r.inside.store(true, Ordering::Release);
                spin_until(&r.go, Duration::from_millis(200));
                r.t0.store(ns_since(origin), Ordering::Release);
                // SAFETY: locked above by this thread.
                unsafe { m.unlock() };
                end.wait();
            }
            let _ = sys::set_priority(sys::gettid(), None);
            Ok(())
        })
    };
    let mut v = Vec::new();
    let out = (|| -> Result<(), String> {
        pin_and_raise(cpu, PRIO + 2)?;
        for _ in 0..rounds {
            *round.lock().unwrap() = Arc::new(Round::default());
            let r = round.lock().unwrap().clone();
            start.wait();
            if !sleep_until(&r.inside, Duration::from_secs(1)) {
                return Err("the holder did not start".into());
            }
            r.go.store(true, Ordering::Release);
            m.lock();
            r.t1.store(ns_since(origin), Ordering::Release);
            // SAFETY: locked just above.
            unsafe { m.unlock() };
            v.push(
                r.t1.load(Ordering::Acquire)
                    .saturating_sub(r.t0.load(Ordering::Acquire)) as f64,
            );
            end.wait();
        }
        Ok(())
    })();
    let _ = sys::set_priority(sys::gettid(), None);
    holder
        .join()
        .map_err(|_| "the holder panicked".to_string())??;
    out?;
    Ok(v)
}

/// Push + pop nanoseconds on the notification manager's heap holding
/// `n` requests (median of batches).
fn heap_cost(n: usize) -> f64 {
    summary(heap_samples(n, 200))[1]
}

/// Push + pop nanoseconds on the notification manager's heap holding `n`
/// requests, one sample per batch of 2,000 (paper 001's Fig. 6 method:
/// `n - 1` queued with random priorities, then one more pushed and the
/// highest popped).
pub(crate) fn heap_samples(n: usize, batches: usize) -> Vec<f64> {
    let mut q: NotifyQueue<u32> = NotifyQueue::with_capacity(n + 1);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        // xorshift: priorities spread over 1..=64.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        1 + x % 64
    };
    for _ in 1..n {
        q.push(next(), 0);
    }
    let mut v = Vec::new();
    const OPS: usize = 2000;
    for _ in 0..batches {
        let t0 = Instant::now();
        for _ in 0..OPS {
            q.push(next(), 0);
            std::hint::black_box(q.pop());
        }
        v.push(t0.elapsed().as_nanos() as f64 / OPS as f64);
    }
    v
}

fn us(ns: f64) -> String {
    if ns >= 1000.0 {
        format!("{:.2} us", ns / 1000.0)
    } else {
        format!("{ns:.0} ns")
    }
}

/// What the round trips and hand-offs measured, `[min, median, p99,
/// max]` in ns each.
pub struct Measured {
    /// The CPU everything ran on.
    pub cpu: usize,
    /// The plain futex request/reply.
    pub baseline: [f64; 4],
    /// Per interface case: its name, its round trip, how many baselines
    /// it is compared with, and the target ratio.
    pub round_trips: Vec<(&'static str, [f64; 4], f64, Option<f64>)>,
    /// glibc's PRIO_INHERIT hand-off.
    pub pi: [f64; 4],
    /// The inherited interface's hand-off.
    pub locked: [f64; 4],
    /// The hand-off through a nested request.
    pub nest: [f64; 4],
}

/// Measures the round trips (`calls` each) and hand-offs (`rounds`) on
/// the last CPU this process may use, under SCHED_FIFO.
pub fn measure(calls: usize, rounds: usize) -> Result<Measured, Error> {
    sys::probe_realtime().map_err(|why| {
        Error::Environment(format!(
            "the component requests run on SCHED_FIFO threads: {why}"
        ))
    })?;
    if calls < BATCH || rounds == 0 {
        return Err(Error::BadInput(format!(
            "--ops must be at least {BATCH} (round trips per case) and --rounds at least 1"
        )));
    }
    let cpu = *sys::allowed_cpus()
        .last()
        .ok_or_else(|| Error::Environment("no CPU allowed".into()))?;
    let env = |e: String| Error::Environment(e);
    let baseline = summary(self::baseline(cpu, calls).map_err(env)?);
    let mut round_trips = Vec::new();
    for (name, kind, below, peers, target) in CASES {
        let s = summary(self::round_trips(cpu, calls, kind, below).map_err(env)?);
        round_trips.push((name, s, peers, target));
    }
    Ok(Measured {
        cpu,
        baseline,
        round_trips,
        pi: summary(pi_handoffs(cpu, rounds).map_err(env)?),
        locked: summary(handoffs(cpu, rounds, false).map_err(env)?),
        nest: summary(handoffs(cpu, rounds, true).map_err(env)?),
    })
}

impl Measured {
    /// The profile's `[component]` table from these measurements, with
    /// `queue_ns` the notification manager's cost: p99s, as `rtsync bench
    /// locks` writes its own (the analysis charges them per request; a
    /// round trip split evenly into call and reply; `pip_locked` the
    /// hand-off; `nest` what a nested request adds to a hand-off).
    pub fn overheads(&self, queue_ns: f64) -> Overheads {
        let ns = |x: f64| Time::from_ns(x.max(0.0).round() as u64);
        let half = |x: f64| ns(x / 2.0);
        let tail = |name: &str| {
            (self.round_trips.iter())
                .find(|r| r.0 == name)
                .map_or(0.0, |r| r.1[2])
        };
        let (fixed, prop, unlocked) = (
            tail("fixed"),
            tail("propagated"),
            tail("inherited, unlocked"),
        );
        Overheads {
            fix_call: half(fixed),
            fix_reply: half(fixed),
            prop_call: half(prop),
            prop_reply: half(prop),
            pip_unlocked: half(unlocked),
            pip_reply: half(unlocked),
            pip_locked: ns(self.locked[2]),
            queue: ns(queue_ns),
            nest: ns(self.nest[2] - self.locked[2]),
        }
    }
}

/// This machine's request costs in about half a second, for `rtsync run`
/// to charge on a component system: three short rounds of the bench's
/// round trips and hand-offs, each statistic the median of the rounds'
/// (`stats::robust`: a burst of the hypervisor in one round is noise,
/// not a cost), as `locks::quick_costs` measures the kernel's.
pub fn quick_costs() -> Result<Overheads, Error> {
    let rounds = (0..3)
        .map(|_| measure(500, 50))
        .collect::<Result<Vec<_>, _>>()?;
    let robust = |f: &dyn Fn(&Measured) -> [f64; 4]| {
        crate::locks::stats::robust(&rounds.iter().map(f).collect::<Vec<_>>())
    };
    let first = &rounds[0];
    let m = Measured {
        cpu: first.cpu,
        baseline: robust(&|m| m.baseline),
        round_trips: (0..first.round_trips.len())
            .map(|k| {
                let (name, _, peers, target) = first.round_trips[k];
                (name, robust(&|m| m.round_trips[k].1), peers, target)
            })
            .collect(),
        pi: robust(&|m| m.pi),
        locked: robust(&|m| m.locked),
        nest: robust(&|m| m.nest),
    };
    Ok(m.overheads(heap_cost(100)))
}

/// Name, kind, the kind it requests, baselines it is compared with,
/// target ratio.
type Case = (&'static str, Kind, Option<Kind>, f64, Option<f64>);

/// The interface cases of the round trips.
const CASES: [Case; 5] = [
    ("fixed", Kind::Fixed, None, 1.0, Some(1.3)),
    ("propagated", Kind::Propagated, None, 1.0, Some(1.3)),
    ("inherited, unlocked", Kind::Inherited, None, 1.0, Some(1.5)),
    (
        "inherited to inherited",
        Kind::Inherited,
        Some(Kind::Inherited),
        2.0,
        None,
    ),
    (
        "inherited to propagated",
        Kind::Inherited,
        Some(Kind::Propagated),
        2.0,
        None,
    ),
];

/// Runs the bench and prints its tables.
pub fn run(c: Config) -> Result<(), Error> {
    let m = measure(c.calls, c.rounds)?;
    let (cpu, base) = (m.cpu, m.baseline);
    println!(
        "Component requests on one CPU (CPU {cpu}), paper 001 Table 2: {} round trips per case, {} hand-offs",
        c.calls, c.rounds
    );
    let mut t = rtsync_report::table::Table::new(&[
        "call and reply",
        "median",
        "p99",
        "ratio",
        "peer",
        "target",
    ]);
    t.row(vec![
        "plain futex request/reply (baseline)".into(),
        us(base[1]),
        us(base[2]),
        "1.00".into(),
        "-".into(),
        "-".into(),
    ]);
    let mut misses = Vec::new();
    for &(name, s, peers, target) in &m.round_trips {
        let ratio = s[1] / (base[1] * peers);
        if let Some(tg) = target
            && ratio > tg
        {
            misses.push(format!("{name}: {ratio:.2}x the baseline, target {tg}x"));
        }
        t.row(vec![
            name.into(),
            us(s[1]),
            us(s[2]),
            format!("{ratio:.2}"),
            if peers > 1.0 {
                "2 baselines".into()
            } else {
                "baseline".into()
            },
            target.map_or("-".into(), |x| format!("<= {x}")),
        ]);
    }
    print!("{}", t.render());
    let (pi, locked, nest) = (m.pi, m.locked, m.nest);
    let mut t =
        rtsync_report::table::Table::new(&["hand-off", "median", "p99", "ratio", "peer", "target"]);
    t.row(vec![
        "glibc PRIO_INHERIT mutex (PI futex)".into(),
        us(pi[1]),
        us(pi[2]),
        "1.00".into(),
        "-".into(),
        "-".into(),
    ]);
    let r_locked = locked[1] / pi[1];
    if r_locked > 1.2 {
        misses.push(format!(
            "inherited hand-off: {r_locked:.2}x the PI futex's, target 1.2x"
        ));
    }
    t.row(vec![
        "inherited, locked".into(),
        us(locked[1]),
        us(locked[2]),
        format!("{r_locked:.2}"),
        "PI futex".into(),
        "<= 1.2".into(),
    ]);
    t.row(vec![
        "nest (through a nested request)".into(),
        us(nest[1]),
        us(nest[2]),
        format!("{:.2}", nest[1] / (2.0 * pi[1])),
        "2 PI futex hand-offs".into(),
        "-".into(),
    ]);
    print!("{}", t.render());

    println!("Notification manager, push + pop against the requests queued (paper 001 Fig. 6):");
    let sizes = [1usize, 2, 5, 10, 20, 50, 100];
    let mut pts = Vec::new();
    let mut t = rtsync_report::table::Table::new(&["queued", "push + pop"]);
    for &n in &sizes {
        let ns = heap_cost(n);
        pts.push((n as f64, ns));
        t.row(vec![n.to_string(), format!("{ns:.1} ns")]);
    }
    print!("{}", t.render());
    let at100 = pts.last().map_or(0.0, |p| p.1);
    if at100 > 100.0 {
        misses.push(format!(
            "notification manager: {at100:.1} ns at 100, target 100 ns"
        ));
    }
    let svg = rtsync_report::plot::lines(
        &[rtsync_report::plot::Line {
            name: "push + pop".into(),
            points: pts,
        }],
        "Notification manager: push + pop against requests queued (paper 001 Fig. 6)",
        "requests queued",
        "ns (median)",
        Some((100.0, "target 100 ns")),
    );
    std::fs::write(&c.plot, svg)
        .map_err(|e| Error::BadInput(format!("cannot write {}: {e}", c.plot.display())))?;
    println!("Plot: {}", c.plot.display());

    let mut profile = if c.profile.exists() {
        Profile::load(&c.profile).map_err(|d| Error::BadInput(d.to_string()))?
    } else {
        Profile::default()
    };
    profile.component = m.overheads(at100);
    let text = format!(
        "# Overhead profile; its [component] table measured by `rtsync bench components`\n\
         # on this machine (p99s: call and reply each half a round trip; pip_locked the\n\
         # hand-off; nest what a nested request adds to a hand-off; queue the notification\n\
         # manager's median at 100). Read by: rtsync analyze --overheads FILE.\n{}",
        profile.to_toml()
    );
    std::fs::write(&c.profile, text)
        .map_err(|e| Error::BadInput(format!("cannot write {}: {e}", c.profile.display())))?;
    println!(
        "Wrote the [component] table to {}: rtsync analyze --overheads {}",
        c.profile.display(),
        c.profile.display()
    );
    if misses.is_empty() {
        println!("Targets: all met.");
    } else {
        println!("Targets missed:");
        for m in misses {
            println!("  {m}");
        }
    }
    Ok(())
}
