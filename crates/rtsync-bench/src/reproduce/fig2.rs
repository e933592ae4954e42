//! Paper 004 Fig. 2: the cost of `p` (lock) and `v` (unlock) against the
//! number of tasks waiting on the semaphore, per protocol.
//!
//! EPOS times its `p` and `v` methods with the TSC: the protocol's
//! decisions (ceilings, inheritance, the waiting queue) and the kernel's
//! queueing and rescheduling inside them. rtsync's decisions live in one
//! place, the protocol core (`rtsync_protocols::Locks`), shared by the
//! simulator and the Linux runtime; this target times that core's `lock`
//! and `unlock` alone, for all twelve protocols, with `k` tasks already
//! waiting: `p` is the request of one more task (it queues behind the
//! `k`; with none waiting, the uncontended grant), `v` the holder's release
//! with `k` waiting (the hand-off or the wake-up). The kernel's part
//! (futex, context switch) is what `rtsync bench locks` measures on real
//! SCHED_FIFO threads; the note says so beside the published figure.
//!
//! Where SCHED_FIFO is permitted, `v` is also measured with the kernel
//! included, as EPOS measures it: the hand-off on real threads, from the
//! holder's unlock call to the first waiter running with the lock, with
//! 1 to 64 waiters asleep in the queue (`rtsync bench locks`'s hand-off,
//! `locks::handoff`, glibc's PI futex beside as the peer). `p` with tasks
//! waiting has no such counterpart: a request that finds the lock taken
//! goes to sleep inside the call, and from user space its cost cannot be
//! told from its wait.
//!
//! Who can wait, per protocol, follows from its facts, not its name: a
//! uniprocessor protocol whose jobs never wait once they run (NPCS, IPCP,
//! SRP) has no waiting task, only the `k = 0` point; the other
//! uniprocessor ones (PIP, PCP) queue tasks of rising priority that
//! preempt the holder and block; spinning protocols (FMLP-S, MSRP, MrsP)
//! have one waiter per other CPU, so `k` waiters take `k + 1` CPUs; the
//! suspending multiprocessor ones (MPCP, DPCP, FMLP-L, DFLP) queue tasks
//! of rising priority from a second CPU.

use super::Made;
use crate::Error;
use crate::locks::stats::{clock_cost, summary};
use rtsync_model::{
    Platform, Protocol, Resource, Scheduler, Segment, SourceMap, System, Task, Time,
};
use rtsync_protocols::{Config, Locks};
use std::fmt::Write;
use std::time::Instant;

/// The numbers of waiting tasks measured.
const WAITING: [usize; 8] = [0, 1, 2, 4, 8, 16, 32, 64];

/// How `k` waiters are placed for `p`; `None` where `p` has no waiter.
fn layout(p: Protocol, k: usize) -> Option<(usize, Vec<(u32, usize)>)> {
    let f = p.facts();
    // `(priority, cpu)` of the holder, the `k` waiters, and the one more
    // requester, in the order they request.
    let tasks: Vec<(u32, usize)>;
    let mut cpus;
    if f.uniprocessor {
        if f.never_waits && k > 0 {
            return None;
        }
        cpus = 1;
        tasks = (0..k + 2).map(|i| (i as u32 + 1, 0)).collect();
    } else if f.busy {
        cpus = k + 2;
        tasks = (0..k + 2).map(|i| (1, i)).collect();
    } else {
        cpus = 2;
        tasks = std::iter::once((1, 0))
            .chain((0..k + 1).map(|i| (i as u32 + 2, 1)))
            .collect();
    }
    if p.needs_sync_cpu() {
        // Sections run on a CPU of their own, the last.
        cpus += 1;
    }
    Some((cpus, tasks))
}

/// The system of `layout`: one resource under `p`, each task one section.
fn system(p: Protocol, cpus: usize, tasks: &[(u32, usize)]) -> System {
    System {
        name: None,
        platform: Platform {
            cpus,
            scheduler: Scheduler::Fp,
        },
        resources: vec![Resource {
            name: "S".into(),
            protocol: p,
            units: 1,
            sync_cpu: p.needs_sync_cpu().then_some(cpus - 1),
            ceiling: None,
        }],
        tasks: tasks
            .iter()
            .enumerate()
            .map(|(i, &(priority, cpu))| Task {
                name: format!("t{i}"),
                period: Time::from_ms(50),
                deadline: Time::from_ms(50),
                jitter: Time::ZERO,
                offset: Time::ZERO,
                priority,
                cpu: Some(cpu),
                body: vec![Segment::Lock {
                    resource: 0,
                    units: 1,
                    body: vec![Segment::Compute(Time::from_ms(1))],
                }],
            })
            .collect(),
        source: SourceMap::default(),
        components: None,
    }
}

/// A fresh machine with every task's base priority set.
fn fresh(cfg: &Config, bases: &[u32]) -> Result<Locks, String> {
    let mut m = Locks::new(cfg.clone());
    for (t, &b) in bases.iter().enumerate() {
        m.set_base(t, u64::from(b), t as u64)
            .map_err(|e| e.to_string())?;
    }
    Ok(m)
}

/// A fresh machine with the holder holding and `k` tasks waiting.
fn staged(cfg: &Config, bases: &[u32], k: usize) -> Result<Locks, String> {
    let mut m = fresh(cfg, bases)?;
    m.lock(0, 0, 1).map_err(|e| e.to_string())?;
    for w in 1..=k {
        m.lock(w, 0, 1).map_err(|e| e.to_string())?;
    }
    Ok(m)
}

/// `(p, v)` samples (ns, the clock's own cost taken off) for `p` with `k`
/// waiting, over `reps` staged machines.
fn measure(
    p: Protocol,
    k: usize,
    reps: usize,
    clock: f64,
) -> Result<Option<[Vec<f64>; 2]>, String> {
    let Some((cpus, tasks)) = layout(p, k) else {
        return Ok(None);
    };
    let sys = system(p, cpus, &tasks);
    let errors: Vec<String> = rtsync_model::validate(&sys)
        .errors()
        .map(|d| d.to_string())
        .collect();
    if !errors.is_empty() {
        return Err(format!("{p} with {k} waiting: {}", errors.join("; ")));
    }
    let cfg = Config::new(&sys);
    let bases: Vec<u32> = tasks.iter().map(|t| t.0).collect();
    let (mut ps, mut vs) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        // p: with none waiting, the grant of the free resource; with k
        // waiting, one more request, which queues behind them.
        let (mut m, t) = if k == 0 {
            (fresh(&cfg, bases.as_slice())?, 0)
        } else {
            (staged(&cfg, &bases, k)?, k + 1)
        };
        let t0 = Instant::now();
        let r = m.lock(t, 0, 1);
        ps.push(t0.elapsed().as_nanos() as f64 - clock);
        r.map_err(|e| e.to_string())?;
        // v: the holder's release with k waiting.
        let mut m = staged(&cfg, &bases, k)?;
        let t0 = Instant::now();
        let r = m.unlock(0, 0);
        vs.push(t0.elapsed().as_nanos() as f64 - clock);
        r.map_err(|e| e.to_string())?;
    }
    Ok(Some([ps, vs]))
}

/// Runs the measurement: `quick` takes 200 samples per point, the full
/// mode 5,000 (EPOS took 1,000 per task and its worst case).
pub(crate) fn run(quick: bool) -> Result<Made, Error> {
    let reps = if quick { 200 } else { 5000 };
    let clock = clock_cost();
    let mut csv = String::from("protocol,waiting,op,min_ns,median_ns,p99_ns,max_ns\n");
    let mut p_lines = Vec::new();
    let mut v_lines = Vec::new();
    let mut rows: Vec<(Protocol, usize, [f64; 4], [f64; 4])> = Vec::new();
    for p in Protocol::ALL {
        let (mut pl, mut vl) = (Vec::new(), Vec::new());
        for k in WAITING {
            let Some([ps, vs]) = measure(p, k, reps, clock).map_err(Error::BadInput)? else {
                continue;
            };
            let (sp, sv) = (summary(ps), summary(vs));
            for (op, s) in [("p", sp), ("v", sv)] {
                let _ = writeln!(
                    csv,
                    "{},{k},{op},{:.0},{:.0},{:.0},{:.0}",
                    p.name(),
                    s[0],
                    s[1],
                    s[2],
                    s[3]
                );
            }
            pl.push((k as f64, sp[2]));
            vl.push((k as f64, sv[2]));
            rows.push((p, k, sp, sv));
        }
        p_lines.push(rtsync_report::plot::Line {
            name: p.name().to_uppercase(),
            points: pl,
        });
        v_lines.push(rtsync_report::plot::Line {
            name: p.name().to_uppercase(),
            points: vl,
        });
    }
    let figures = vec![
        rtsync_report::plot::lines(
            &p_lines,
            "p (lock): the protocol core's decision, p99",
            "tasks waiting",
            "ns",
            None,
        ),
        rtsync_report::plot::lines(
            &v_lines,
            "v (unlock): the protocol core's decision, p99",
            "tasks waiting",
            "ns",
            None,
        ),
    ];
    let mut note = note(quick, reps, &rows);
    let mut files = vec![
        ("costs.csv".into(), csv),
        ("p.svg".into(), figures[0].clone()),
        ("v.svg".into(), figures[1].clone()),
    ];
    let mut figures = figures;
    match kernel_v(quick)? {
        Ok((hcsv, svg, text)) => {
            files.push(("handoff.csv".into(), hcsv));
            files.push(("handoff.svg".into(), svg.clone()));
            figures.push(svg);
            note.push_str(&text);
        }
        Err(why) => {
            let _ = writeln!(
                note,
                "\nv with the kernel included (the hand-off on real threads) was not measured: {why}"
            );
        }
    }
    Ok(Made {
        files,
        figures,
        note,
    })
}

/// `v` with the kernel included: the hand-off on SCHED_FIFO threads
/// against the waiters (`handoff.csv`, `handoff.svg` and the note's
/// lines), or why it could not run here (not an error: the core's figure
/// stands alone).
type Kernel = Result<(String, String, String), String>;

fn kernel_v(quick: bool) -> Result<Kernel, Error> {
    if let Err(why) = rtsync_rt::sys::probe_realtime() {
        return Ok(Err(why));
    }
    let cpus = rtsync_rt::sys::allowed_cpus();
    let cpu = *cpus.last().expect("at least one CPU");
    let other = (cpus.len() > 1).then(|| cpus[0]);
    let (rounds, ks): (usize, Vec<usize>) = if quick {
        (15, vec![1, 2, 4, 8])
    } else {
        (200, vec![1, 2, 4, 8, 16, 32, 64])
    };
    // Shown on a terminal only (indicatif hides it elsewhere).
    let bar = indicatif::ProgressBar::new(crate::locks::handoff::count(&ks, other.is_some()))
        .with_style(
            indicatif::ProgressStyle::with_template(
                "004-fig2 {bar:30} {pos}/{len} points ({msg}), {elapsed} (eta {eta})",
            )
            .expect("static template"),
        );
    let b2 = bar.clone();
    let measured = std::thread::spawn(move || {
        crate::locks::handoff::measure(rounds, &ks, cpu, other, |name| {
            b2.set_message(format!("hand-off: {name}"));
            b2.inc(1);
        })
    })
    .join()
    .unwrap_or_else(|_| Err("a measuring thread panicked".into()));
    bar.finish_and_clear();
    let series = measured.map_err(Error::Environment)?;
    let label = |s: &crate::locks::handoff::Series| {
        let name = if s.protocol.is_some() {
            s.name.to_uppercase()
        } else {
            s.name.clone()
        };
        if s.cross {
            format!("{name} (other CPU)")
        } else {
            name
        }
    };
    let mut csv = String::from("series,waiting,min_ns,median_ns,p99_ns,max_ns\n");
    let mut lines = Vec::new();
    let mut text = format!(
        "\nv with the kernel included, on SCHED_FIFO threads: the hand-off from the holder's unlock \
         call to the first waiter running with the lock, {rounds} rounds per point{}, median (ns) \
         against the waiters (other CPU: the waiters queue from the other CPU, as the \
         multiprocessor protocols have them; the spin protocols have one waiter per other CPU, so \
         one point):\n",
        if quick { " (--quick)" } else { "" }
    );
    for s in &series {
        let name = label(s);
        for (k, q) in &s.points {
            let _ = writeln!(
                csv,
                "{name},{k},{:.0},{:.0},{:.0},{:.0}",
                q[0], q[1], q[2], q[3]
            );
        }
        let pts: Vec<(f64, f64)> = s.points.iter().map(|(k, q)| (*k as f64, q[1])).collect();
        let shown: Vec<String> = s
            .points
            .iter()
            .map(|(k, q)| format!("{k}: {:.0}", q[1]))
            .collect();
        let _ = writeln!(text, "  {name:<22} {}", shown.join(", "));
        lines.push(rtsync_report::plot::Line { name, points: pts });
    }
    let svg = rtsync_report::plot::lines(
        &lines,
        "v (unlock) with the kernel: hand-off to the first waiter, median",
        "tasks waiting",
        "ns",
        None,
    );
    Ok(Ok((csv, svg, text)))
}

fn note(quick: bool, reps: usize, rows: &[(Protocol, usize, [f64; 4], [f64; 4])]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Paper 004 Fig. 2 plots EPOS's worst-case p and v on an Intel i7-2600 (3.4 GHz) against \
         the tasks waiting (up to 20 on one core, up to 8 cores for MPCP and MSRP): every \
         operation below 4 us, the waiting queue's cost growing with the tasks and dominating the \
         protocols' own, PCP, PIP and IPCP alike with none waiting, and SRP's v the worst (its \
         system ceiling is recomputed in a loop). Its points are not published as numbers.\n"
    );
    let _ = writeln!(
        o,
        "Here: rtsync's protocol core, {reps} samples per point{}, p99 plotted (a shared machine's \
         maximum is its noise), min / median / p99 / max in costs.csv. Growth from none to 64 \
         waiting (p99, ns):",
        if quick { " (--quick)" } else { "" }
    );
    for p in Protocol::ALL {
        let mine: Vec<&(Protocol, usize, [f64; 4], [f64; 4])> =
            rows.iter().filter(|r| r.0 == p).collect();
        let (Some(first), Some(last)) = (mine.first(), mine.last()) else {
            continue;
        };
        if first.1 == last.1 {
            let _ = writeln!(
                o,
                "  {:<7} p {:>6.0}  v {:>6.0}  (no task ever waits: a job runs only when the resource is free)",
                p.name(),
                first.2[2],
                first.3[2]
            );
        } else {
            let _ = writeln!(
                o,
                "  {:<7} p {:>6.0} -> {:>6.0}  v {:>6.0} -> {:>6.0}  ({} waiting)",
                p.name(),
                first.2[2],
                last.2[2],
                first.3[2],
                last.3[2],
                last.1
            );
        }
    }
    o.push_str(
        "\nWhat differs and why: EPOS's figure includes the kernel's queueing and rescheduling \
         inside p and v; p.svg and v.svg are the protocol's decision alone, in a user-space state \
         machine, and handoff.svg (below, where SCHED_FIFO is permitted) is v with the kernel: \
         the futex wake and the context switch to the waiter. A p that finds the lock taken \
         sleeps inside its call, so its kernel part cannot be told from its wait from user \
         space; the uncontended p and v on real threads are in `rtsync bench locks`, whose \
         profile `004-figs3-4 --overheads` charges. The machine \
         differs (this one is a shared 2-vCPU VM), and NPCS, IPCP and SRP have no waiting task \
         to plot: under them a job that runs never finds its resource taken (EPOS's SRP queues \
         non-real-time tasks, which have no preemption level).\n",
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every protocol stages its waiters as its rules say: the k-th
    /// request waits (spinning where the protocol spins), and the release
    /// passes the resource on or wakes a waiter.
    #[test]
    fn every_protocol_queues_its_waiters() {
        for p in Protocol::ALL {
            for k in [1, 3] {
                let Some((cpus, tasks)) = layout(p, k) else {
                    assert!(p.facts().never_waits, "{p} has no waiter");
                    continue;
                };
                let sys = system(p, cpus, &tasks);
                let cfg = Config::new(&sys);
                let bases: Vec<u32> = tasks.iter().map(|t| t.0).collect();
                let mut m = staged(&cfg, &bases, k).unwrap_or_else(|e| panic!("{p}: {e}"));
                for w in 1..=k {
                    assert_eq!(m.waiting(w), Some(0), "{p}: task {w} of {k} does not wait");
                }
                // One more request queues too (what p times).
                m.lock(k + 1, 0, 1).unwrap();
                assert_eq!(
                    m.waiting(k + 1),
                    Some(0),
                    "{p}: the timed request did not wait"
                );
                let woken = m.unlock(0, 0).unwrap();
                assert!(!woken.is_empty(), "{p}: the release woke no one");
            }
        }
    }
}
