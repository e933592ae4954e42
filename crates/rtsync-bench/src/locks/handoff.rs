//! Contended hand-off: from a holder's unlock to the first waiter running
//! with the lock, with 1 to 64 waiters queued.
//!
//! One round: the holder (lowest priority) takes the lock; `k` waiters of
//! equal, higher priority request it and block (on the holder's CPU, or
//! on the other CPU); once all are queued and asleep (1 ms later), the
//! holder reads the clock and unlocks; the waiter that gets the lock
//! reads the clock. Then every waiter takes and releases the lock in turn
//! and the round ends at a barrier. The clock is one `CLOCK_MONOTONIC`
//! for all CPUs.
//!
//! On one CPU the waiters preempt the holder to queue (PIP, PCP, and
//! glibc's PRIO_INHERIT mutex, the kernel's PI futex, as the peer); the
//! hand-off then includes the holder's lowering and a context switch. The
//! multiprocessor protocols boost the holder above the waiters of its own
//! CPU, so their waiters queue from the other CPU (MPCP, FMLP-L, and the
//! PI futex again as the peer); the spin protocols (FMLP-S, MSRP, MrsP)
//! have at most one waiter per other CPU, so only `k = 1` there.

use super::stats::summary;
use rtsync_model::{Protocol, System};
use rtsync_protocols::{Config, Wait};
use rtsync_rt::pi::RawMutex;
use rtsync_rt::{Binding, Domain, Options, sys};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

/// What is contended: glibc's PI mutex, or a resource of an rtsync
/// domain.
#[derive(Clone)]
enum Subject {
    Futex(Arc<RawMutex>),
    Rt(Domain),
}

/// A thread's hold on the subject.
enum Handle {
    Futex(Arc<RawMutex>),
    Rt(Binding, usize),
}

impl Handle {
    fn lock(&self) -> Result<(), String> {
        match self {
            Handle::Futex(m) => {
                m.lock();
                Ok(())
            }
            Handle::Rt(b, a) => b.lock(*a, 1).map(|_| ()).map_err(|e| e.to_string()),
        }
    }

    fn unlock(&self) -> Result<(), String> {
        match self {
            // SAFETY: called only after this thread's `lock`.
            Handle::Futex(m) => {
                unsafe { m.unlock() };
                Ok(())
            }
            Handle::Rt(b, a) => b.unlock(*a).map_err(|e| e.to_string()),
        }
    }
}

/// One curve: hand-off latency against the number of waiters.
pub struct Series {
    pub name: String,
    pub protocol: Option<Protocol>,
    /// Waiters on the other CPU (else on the holder's).
    pub cross: bool,
    /// `(waiters, [min, median, p99, max])`, ns.
    pub points: Vec<(usize, [f64; 4])>,
}

struct Round {
    start: Barrier,
    end: Barrier,
    stop: AtomicBool,
    requested: AtomicUsize,
    served: AtomicUsize,
    released_at: AtomicU64,
    epoch: Instant,
    latencies: Mutex<Vec<f64>>,
    error: Mutex<Option<String>>,
}

impl Round {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn fail(&self, e: String) {
        self.error.lock().unwrap().get_or_insert(e);
    }
}

/// L (priority 1) holds on the last system CPU; W1..Wk (priority 2) wait
/// on CPU 0 (the same CPU unless `cross`).
fn system(p: Protocol, k: usize, cross: bool) -> System {
    let cpus = if cross { 2 } else { 1 };
    let mut tasks = vec![("L".to_string(), 1, cpus - 1)];
    tasks.extend(h_waiters(k).into_iter().map(|w| (w, 2, 0)));
    super::one_resource(p, cpus, &tasks)
}

/// A thread's handle: bound to its task (rtsync), or pinned and set to
/// SCHED_FIFO `prio` by hand (the futex peer).
fn handle(s: &Subject, task: &str, cpu: usize, prio: i32) -> Result<Handle, String> {
    match s {
        Subject::Futex(m) => {
            let me = sys::gettid();
            sys::set_cpu(me, cpu).map_err(|e| e.to_string())?;
            sys::set_priority(me, Some(prio)).map_err(|e| e.to_string())?;
            Ok(Handle::Futex(m.clone()))
        }
        Subject::Rt(d) => {
            let b = d.bind(task).map_err(|e| e.to_string())?;
            let a = d.resource("A").map_err(|e| e.to_string())?;
            Ok(Handle::Rt(b, a))
        }
    }
}

/// Hand-off latencies of `rounds` rounds with `k` waiters.
fn rounds_of(
    s: &Subject,
    k: usize,
    rounds: usize,
    holder_cpu: usize,
    waiter_cpu: usize,
) -> Result<[f64; 4], String> {
    const WARM: usize = 3;
    let round = Arc::new(Round {
        start: Barrier::new(k + 1),
        end: Barrier::new(k + 1),
        stop: AtomicBool::new(false),
        requested: AtomicUsize::new(0),
        served: AtomicUsize::new(0),
        released_at: AtomicU64::new(0),
        epoch: Instant::now(),
        latencies: Mutex::new(Vec::new()),
        error: Mutex::new(None),
    });
    let waiters: Vec<_> = (1..=k)
        .map(|i| {
            let (s, round) = (s.clone(), round.clone());
            std::thread::spawn(move || {
                let h = handle(&s, &format!("W{i}"), waiter_cpu, 12);
                loop {
                    round.start.wait();
                    if round.stop.load(Ordering::Acquire) {
                        return;
                    }
                    match &h {
                        Err(e) => round.fail(e.clone()),
                        Ok(h) => {
                            round.requested.fetch_add(1, Ordering::AcqRel);
                            match h.lock() {
                                Ok(()) => {
                                    let now = round.now();
                                    if round.served.fetch_add(1, Ordering::AcqRel) == 0 {
                                        let at = round.released_at.load(Ordering::Acquire);
                                        round
                                            .latencies
                                            .lock()
                                            .unwrap()
                                            .push(now.saturating_sub(at) as f64);
                                    }
                                    if let Err(e) = h.unlock() {
                                        round.fail(e);
                                    }
                                }
                                Err(e) => round.fail(e),
                            }
                        }
                    }
                    round.end.wait();
                }
            })
        })
        .collect();
    let holder = {
        let (s, round) = (s.clone(), round.clone());
        std::thread::spawn(move || {
            let h = handle(&s, "L", holder_cpu, 11);
            let names = h_waiters(k);
            for r in 0..rounds + WARM + 1 {
                let last = r == rounds + WARM;
                if last || h.is_err() {
                    round.stop.store(true, Ordering::Release);
                    round.start.wait();
                    break;
                }
                let h = h.as_ref().unwrap();
                round.requested.store(0, Ordering::Release);
                round.served.store(0, Ordering::Release);
                if let Err(e) = h.lock() {
                    round.fail(e);
                }
                round.start.wait();
                // Every waiter has asked, and has had time to fall asleep.
                let t0 = Instant::now();
                while round.requested.load(Ordering::Acquire) < k || !queued(&s, &names) {
                    if t0.elapsed() > Duration::from_secs(2) {
                        round.fail(format!("{k} waiters did not queue within 2 s"));
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(200));
                }
                std::thread::sleep(Duration::from_millis(1));
                round.released_at.store(round.now(), Ordering::Release);
                if let Err(e) = h.unlock() {
                    round.fail(e);
                }
                round.end.wait();
                if r < WARM {
                    round.latencies.lock().unwrap().clear();
                }
            }
            h.err()
        })
    };
    let herr = holder.join().map_err(|_| "the holder thread panicked")?;
    for w in waiters {
        w.join().map_err(|_| "a waiter thread panicked")?;
    }
    if let Some(e) = herr.or(round.error.lock().unwrap().take()) {
        return Err(e);
    }
    let v = std::mem::take(&mut *round.latencies.lock().unwrap());
    if v.is_empty() {
        return Err("no hand-off measured".into());
    }
    Ok(summary(v))
}

/// The waiter tasks' names.
fn h_waiters(k: usize) -> Vec<String> {
    (1..=k).map(|i| format!("W{i}")).collect()
}

/// Whether every waiter is queued (rtsync: the machine says it waits; the
/// futex peer has no such view, the request count stands for it).
fn queued(s: &Subject, names: &[String]) -> bool {
    match s {
        Subject::Futex(_) => true,
        Subject::Rt(d) => names
            .iter()
            .all(|n| d.task(n).is_ok_and(|t| d.waiting(t).is_some())),
    }
}

/// Every series, `ks` waiter counts each (`k = 1` only for the spin
/// protocols); `tick` is called after each point.
pub fn measure(
    rounds: usize,
    ks: &[usize],
    cpu: usize,
    other: Option<usize>,
    mut tick: impl FnMut(&str),
) -> Result<Vec<Series>, String> {
    let futex = || -> Result<Subject, String> {
        Ok(Subject::Futex(Arc::new(
            RawMutex::new(libc::PTHREAD_PRIO_INHERIT, 0).map_err(|e| e.to_string())?,
        )))
    };
    let mut out = Vec::new();
    for (name, p, cross) in plan(other.is_some()) {
        let (holder_cpu, waiter_cpu) = if cross {
            (cpu, other.unwrap())
        } else {
            (cpu, cpu)
        };
        let mut points = Vec::new();
        for &k in waiter_counts(p, ks) {
            let subject = match p {
                None => futex()?,
                Some(p) => {
                    let map = if cross {
                        vec![waiter_cpu, holder_cpu]
                    } else {
                        vec![cpu]
                    };
                    Subject::Rt(
                        Domain::new(
                            &system(p, k, cross),
                            Options {
                                cpu_map: Some(map),
                                wait_limit: Duration::from_secs(2),
                                ..Options::default()
                            },
                        )
                        .map_err(|e| format!("{name}: {e}"))?,
                    )
                }
            };
            let s = rounds_of(&subject, k, rounds, holder_cpu, waiter_cpu)
                .map_err(|e| format!("{name}, {k} waiters: {e}"))?;
            points.push((k, s));
            tick(&name);
        }
        out.push(Series {
            name,
            protocol: p,
            cross,
            points,
        });
    }
    Ok(out)
}

/// The series: `(name, protocol or the PI futex, waiters on the other
/// CPU)`; the cross-CPU ones only where a second CPU is allowed.
fn plan(two_cpus: bool) -> Vec<(String, Option<Protocol>, bool)> {
    let mut plan = vec![
        ("PI futex".to_string(), None, false),
        ("pip".into(), Some(Protocol::Pip), false),
        ("pcp".into(), Some(Protocol::Pcp), false),
    ];
    if two_cpus {
        plan.push(("PI futex".into(), None, true));
        for p in [
            Protocol::Mpcp,
            Protocol::FmlpL,
            Protocol::FmlpS,
            Protocol::Msrp,
            Protocol::Mrsp,
        ] {
            plan.push((p.name().into(), Some(p), true));
        }
    }
    plan
}

/// The waiter counts of a series: where the cross-CPU resource's rule has
/// its waiters spin, there is at most one waiter per other CPU.
fn waiter_counts(p: Option<Protocol>, ks: &[usize]) -> impl Iterator<Item = &usize> {
    let spin = p.is_some_and(|p| {
        let sys = system(p, 1, !p.is_uniprocessor());
        Config::new(&sys).rules[0].wait == Wait::Spin
    });
    ks.iter().filter(move |&&k| !spin || k == 1)
}

/// The points `measure` will take for `ks`, for a progress bar.
pub fn count(ks: &[usize], two_cpus: bool) -> u64 {
    plan(two_cpus)
        .iter()
        .map(|(_, p, _)| waiter_counts(*p, ks).count() as u64)
        .sum()
}
