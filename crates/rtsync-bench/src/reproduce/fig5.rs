//! Paper 003 Fig. 5: the lock and unlock costs of the multiprocessor
//! protocols, measured while the paper's Table I application runs (three
//! application CPUs of five priority levels, a synchronization CPU, three
//! resources: the bundled `rtems-table1` example), not on an idle
//! machine; and the migration to and back from the synchronization CPU.
//!
//! The runtime times every lock and unlock call as its caller sees it
//! ([`rtsync_rt::RunOptions::time_calls`]: two clock reads per section,
//! the lock's path otherwise the shipped one). Under DPCP and DFLP the
//! caller migrates to the synchronization CPU inside the lock and back
//! inside the unlock, so their lock and unlock costs hold the migration
//! to and the migration back, which the paper measures apart: the
//! runtime times the caller's moves of itself inside each call
//! ([`rtsync_rt::sys::time_own_moves`]; a thread that moves itself
//! returns from `sched_setaffinity` on the new CPU), and those are shown
//! apart, over the calls in which the caller moved itself. A lock call
//! that waited holds its wait: the median is the cost of the uncontended
//! call, the mean what the paper averages.

use super::Made;
use crate::Error;
use crate::locks::stats::{mean_std, summary};
use rtsync_model::Protocol;
use rtsync_rt::{Options as RtOptions, RunOptions};
use std::fmt::Write;
use std::time::Duration;

/// `[mean, min, median, p99, max]` in ns.
fn stats(v: Vec<f64>) -> [f64; 5] {
    let (mean, _) = mean_std(&v);
    let s = summary(v);
    [mean, s[0], s[1], s[2], s[3]]
}

pub(crate) fn run(quick: bool) -> Result<Made, Error> {
    let spec = rtsync_model::load_str(include_str!("../../../../examples/rtems-table1.toml"), None)
        .map_err(|d| Error::BadInput(format!("the bundled Table I application: {d}")))?
        .0;
    // The application makes about 360 calls a second: 25 s is the
    // paper's 9,000 per protocol.
    let duration = if quick {
        Duration::from_millis(300)
    } else {
        Duration::from_secs(25)
    };
    let protocols: Vec<Protocol> = Protocol::ALL
        .into_iter()
        .filter(|p| !p.is_uniprocessor())
        .collect();
    rtsync_rt::sys::probe_realtime().map_err(|why| {
        Error::Environment(format!(
            "003-fig5 runs the Table I application on SCHED_FIFO threads: {why}\n  \
             hint: the targets that need no real-time thread run here (`rtsync reproduce --list`)"
        ))
    })?;
    // Page faults in the timed calls would be measured as lock costs:
    // lock the memory where the process may.
    let locked = rtsync_rt::sys::lock_memory().is_ok();
    let mut csv = String::from("protocol,op,calls,mean_ns,min_ns,median_ns,p99_ns,max_ns\n");
    let mut rows: Vec<Row> = Vec::new();
    let mut folded = None;
    // Shown on a terminal only (indicatif hides it elsewhere).
    let bar = indicatif::ProgressBar::new(protocols.len() as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "003-fig5 {bar:30} {pos}/{len} protocols ({msg}), {elapsed} (eta {eta})",
        )
        .expect("static template"),
    );
    for &p in &protocols {
        bar.set_message(p.name());
        let mut sys = spec.clone();
        for r in &mut sys.resources {
            r.protocol = p;
        }
        // DPCP and DFLP need a synchronization CPU: the application's own.
        let sys = rtsync_analysis::place(&sys, rtsync_analysis::Heuristic::SyncAware)
            .map_err(|d| Error::BadInput(format!("{p}: {d}")))?
            .into_owned();
        let placed = rtsync_rt::placement::place(&sys, None).map_err(|e| {
            if e.is_environment() {
                Error::Environment(e.to_string())
            } else {
                Error::BadInput(e.to_string())
            }
        })?;
        if placed.folded() {
            folded = Some(placed.describe());
        }
        let o = RunOptions {
            duration,
            domain: RtOptions {
                cpu_map: Some(placed.machine.clone()),
                ..RtOptions::default()
            },
            time_calls: true,
            ..RunOptions::default()
        };
        let r = rtsync_rt::run(&placed.system, &o)
            .map_err(|e| Error::Environment(format!("{p} on SCHED_FIFO threads: {e}")))?;
        let calls: Vec<rtsync_rt::LockCall> = r
            .tasks
            .iter()
            .flat_map(|t| t.calls.iter().copied())
            .collect();
        if calls.is_empty() {
            return Err(Error::Environment(format!(
                "{p}: no section ran in {duration:?}; the machine may be overloaded"
            )));
        }
        let ns = |d: Duration| d.as_nanos() as f64;
        let lock = stats(calls.iter().map(|c| ns(c.lock)).collect());
        let unlock = stats(calls.iter().map(|c| ns(c.unlock)).collect());
        for (op, s) in [("lock", lock), ("unlock", unlock)] {
            let _ = writeln!(
                csv,
                "{},{op},{},{:.0},{:.0},{:.0},{:.0},{:.0}",
                p.name(),
                calls.len(),
                s[0],
                s[1],
                s[2],
                s[3],
                s[4]
            );
        }
        // The migrations, over the calls that made one (the caller moving
        // itself; a waiter moved by the releaser shows none).
        let moves = |f: fn(&rtsync_rt::LockCall) -> Duration| {
            let v: Vec<f64> = calls
                .iter()
                .map(f)
                .filter(|d| !d.is_zero())
                .map(ns)
                .collect();
            (!v.is_empty()).then(|| (stats(v.clone()), v.len()))
        };
        let to = moves(|c| c.lock_move);
        let back = moves(|c| c.unlock_move);
        for (op, m) in [("migrate-to", &to), ("migrate-back", &back)] {
            if let Some((s, n)) = m {
                let _ = writeln!(
                    csv,
                    "{},{op},{n},{:.0},{:.0},{:.0},{:.0},{:.0}",
                    p.name(),
                    s[0],
                    s[1],
                    s[2],
                    s[3],
                    s[4]
                );
            }
        }
        rows.push(Row {
            p,
            lock,
            unlock,
            n: calls.len(),
            to,
            back,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let groups: Vec<(String, Vec<(String, f64)>)> = rows
        .iter()
        .map(|r| {
            let mut bars = vec![
                ("lock".to_string(), r.lock[2]),
                ("unlock".to_string(), r.unlock[2]),
            ];
            bars.extend(r.to.map(|(s, _)| ("migrate to".to_string(), s[2])));
            bars.extend(r.back.map(|(s, _)| ("migrate back".to_string(), s[2])));
            (r.p.name().to_uppercase(), bars)
        })
        .collect();
    let figure = rtsync_report::plot::bars(
        &groups,
        "lock and unlock under the Table I application (median, ns)",
        "ns",
    );
    let mut note = note(quick, duration, &rows, folded.as_deref());
    if !locked {
        note.push_str("(Memory could not be locked here (mlockall): page faults may add to the first calls.)\n");
    }
    Ok(Made {
        files: vec![
            ("costs.csv".into(), csv),
            ("costs.svg".into(), figure.clone()),
        ],
        figures: vec![figure],
        note,
    })
}

/// One protocol's measurement: lock and unlock `[mean, min, median,
/// p99, max]`, the calls, and the migrations with the calls that made
/// them.
struct Row {
    p: Protocol,
    lock: [f64; 5],
    unlock: [f64; 5],
    n: usize,
    to: Option<([f64; 5], usize)>,
    back: Option<([f64; 5], usize)>,
}

fn note(quick: bool, duration: Duration, rows: &[Row], folded: Option<&str>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Paper 003 Fig. 5 measures RTEMS SMP on a 1.67 GHz PowerPC T4240 (24 virtual cores) \
         while its Table I application runs, over 9,000 lock and unlock calls: DPCP and DFLP \
         cost most (they migrate to the synchronization CPU and back), DFLP the most on \
         average, MrsP high too (about 5.4 us lock and 5.5 us unlock on average, its helping \
         migrates), FMLP-L the least; the migration back to the application CPU costs more \
         than the one to the synchronization CPU (more tasks there contend for the scheduler).\n"
    );
    let _ = writeln!(
        o,
        "Here: the same application on rtsync's runtime, SCHED_FIFO threads, {duration:?} per \
         protocol{}{}. Per call (ns): mean, median, p99.",
        if quick { " (--quick)" } else { "" },
        folded.map_or(String::new(), |f| format!(
            "; this machine has fewer CPUs than the application, so it runs folded ({f}) and only \
             the tasks whose CPU is not folded onto the synchronization CPU's migrate"
        ))
    );
    for r in rows {
        let (l, u) = (r.lock, r.unlock);
        let _ = writeln!(
            o,
            "  {:<7} lock {:>7.0} {:>7.0} {:>8.0}   unlock {:>7.0} {:>7.0} {:>8.0}   ({} calls)",
            r.p.name(),
            l[0],
            l[2],
            l[3],
            u[0],
            u[2],
            u[3],
            r.n
        );
    }
    for r in rows {
        let part = |m: &Option<([f64; 5], usize)>| {
            m.map_or("none".to_string(), |(s, n)| {
                format!("median {:.0} ns, mean {:.0} ns over {n} calls", s[2], s[0])
            })
        };
        if r.to.is_some() || r.back.is_some() {
            let _ = writeln!(
                o,
                "  {} migration, timed inside the calls: to the synchronization CPU {}; back {}",
                r.p.name(),
                part(&r.to),
                part(&r.back)
            );
        }
    }
    o.push_str(
        "\nWhat differs and why: the machine (a shared x86-64 VM, Linux; not RTEMS on PowerPC), \
         the runtime (a user-space protocol core over futexes, whose uncontended calls take a \
         compare-and-swap fast path where the protocol allows it), and the migration (Linux's \
         sched_setaffinity, where RTEMS moves a scheduler node). A lock call that waited holds \
         its wait: the median is the uncontended cost.\n",
    );
    o
}
