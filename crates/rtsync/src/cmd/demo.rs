//! `rtsync demo`: every protocol on the bundled examples, side by side.

use super::{OK, bad_input};
use crate::bundled;
use crate::table::Table;
use rtsync_analysis::{Analysis, Options, Verdict, analyze};
use rtsync_model::{Protocol, Time, load_str};
use rtsync_rt::{Options as RtOptions, RunOptions, sys};
use rtsync_sim::{Exec, Options as SimOptions, simulate};
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// How long each protocol runs on real SCHED_FIFO threads for the
    /// measured column; `0` leaves it out.
    #[arg(long, default_value = "500ms")]
    pub run_for: String,
}

pub fn run(a: Args) -> u8 {
    let run_for = match Time::parse(&a.run_for) {
        Ok(t) => Duration::from_nanos(t.ns()),
        Err(e) => {
            eprintln!("error: --run-for `{}`: {e}", a.run_for);
            return super::BAD_INPUT;
        }
    };
    println!(
        "rtsync demo: the same system analysed, simulated and run on real threads under each protocol.\n"
    );
    let realtime = if run_for.is_zero() {
        Err("--run-for 0".to_string())
    } else {
        sys::probe_realtime()
    };
    let groups: [(&bundled::Example, Vec<Protocol>); 2] = [
        (
            bundled::uniprocessor_example(),
            Protocol::ALL
                .into_iter()
                .filter(|p| p.is_uniprocessor())
                .collect(),
        ),
        (
            bundled::default_example(),
            Protocol::ALL
                .into_iter()
                .filter(|p| !p.is_uniprocessor())
                .collect(),
        ),
    ];
    for (ex, protocols) in groups {
        let (sys, _) = match load_str(ex.src, Some(ex.file)) {
            Ok(x) => x,
            Err(d) => return bad_input(&d),
        };
        println!(
            "== {} ({} CPU(s), {} tasks, {} resources): response-time bound per task ==",
            ex.file,
            sys.platform.cpus,
            sys.tasks.len(),
            sys.resources.len()
        );
        let mut header: Vec<String> = vec!["task".into(), "deadline".into()];
        header.extend(protocols.iter().map(|p| p.to_string()));
        let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut tb = Table::new(&hdr).left(0);
        let mut results = Vec::new();
        let mut analyses: Vec<Option<Analysis>> = Vec::new();
        for &p in &protocols {
            let s = sys.with_protocol(p);
            let d = rtsync_model::validate(&s);
            if d.has_errors() {
                results.push(Err(d));
                continue;
            }
            let a = analyze(&s, &Options::default());
            results.push(a.as_ref().map(|a| a.result.clone()).map_err(Clone::clone));
            analyses.push(a.ok());
        }
        for (i, task) in sys.tasks.iter().enumerate() {
            let mut row = vec![task.name.clone(), task.deadline.to_string()];
            for r in &results {
                row.push(match r {
                    Ok(res) => {
                        let x = &res.tasks[i];
                        let mark = if x.verdict == Verdict::Schedulable {
                            ""
                        } else {
                            " !"
                        };
                        format!("{}{mark}", x.response)
                    }
                    Err(_) => "invalid".into(),
                });
            }
            tb.row(row);
        }
        let mut verdict = vec!["verdict".into(), String::new()];
        let mut blocking = vec!["max blocking".into(), String::new()];
        for r in &results {
            match r {
                Ok(res) => {
                    verdict.push(if res.verdict == Verdict::Schedulable {
                        "ok".into()
                    } else {
                        "MISS".into()
                    });
                    let b = res
                        .tasks
                        .iter()
                        .map(|t| t.blocking.total())
                        .max()
                        .unwrap_or_default();
                    blocking.push(rtsync_analysis::result::shown(b));
                }
                Err(_) => {
                    verdict.push("-".into());
                    blocking.push("-".into());
                }
            }
        }
        tb.row(blocking);
        tb.row(verdict);
        print!("{}", tb.render());
        for (p, r) in protocols.iter().zip(&results) {
            if let Err(d) = r {
                let first = d
                    .errors()
                    .next()
                    .map(|e| e.message.clone())
                    .unwrap_or_default();
                println!("  {p}: not applicable here: {first}");
            }
        }
        simulated(&sys, &protocols, &analyses);
        match &realtime {
            Ok(()) => measured(&sys, &protocols, &analyses, run_for),
            Err(why) => println!("(no measured column: {why})"),
        }
        println!();
    }
    println!(
        "'!' marks a bound above the deadline; the simulated worst is shown with its share of the bound ('>' would mean above it: a bug).\n\
The measured worst comes from SCHED_FIFO threads on this machine (a VM: tails are noisy). It can pass a tight bound ('>') by the \
overheads the bound leaves out: `rtsync bench locks` measures them, `rtsync analyze --overheads overheads.toml` charges them. \
Where the system has more CPUs than the machine, system CPUs share machine CPUs, and the bounds do not hold there.\n\
See it happen: `rtsync simulate examples/pip-chained.toml --gantt pip.svg`. Try `rtsync analyze examples/pip-chained.toml --protocol pcp`."
    );
    OK
}

/// The simulated worst response per task and protocol, as a share of the
/// analysis bound: two hyperperiods (at most 2 s) at WCET from a
/// synchronous release, then as long with random execution times.
fn simulated(sys: &rtsync_model::System, protocols: &[Protocol], analyses: &[Option<Analysis>]) {
    let mut cols: Vec<Vec<String>> = Vec::new();
    for a in analyses {
        let Some(a) = a else {
            cols.push(vec!["-".into(); sys.tasks.len()]);
            continue;
        };
        let horizon = rtsync_sim::horizon::hyperperiod(&a.system)
            .and_then(|h| h.checked_mul(2))
            .unwrap_or(Time::MAX)
            .min(Time::from_s(2));
        let mut worst: Vec<Option<Time>> = vec![None; sys.tasks.len()];
        for (exec, seed) in [(Exec::Wcet, 1), (Exec::Random, 2)] {
            let o = SimOptions {
                horizon,
                exec,
                seed,
                ..SimOptions::default()
            };
            if let Ok((r, _)) = simulate(&a.system, &o) {
                for (w, t) in worst.iter_mut().zip(&r.tasks) {
                    *w = (*w).max(t.max_response);
                }
            }
        }
        cols.push(
            worst
                .iter()
                .zip(&a.result.tasks)
                .map(|(w, t)| match w {
                    Some(w) => share(*w, w.to_string(), t.response.bounded()),
                    None => "-".into(),
                })
                .collect(),
        );
    }
    print_columns("simulated worst", sys, protocols, &cols);
}

/// A worst response shown as `shown`, with its share of the bound and a
/// `>` where it passes it.
fn share(worst: Time, shown: String, bound: Option<Time>) -> String {
    match bound {
        Some(b) => {
            let mark = if worst > b { " >" } else { "" };
            format!("{shown} ({:.0}%){mark}", 100.0 * worst.ratio(b))
        }
        None => shown,
    }
}

/// One table: a row per task, a column per protocol.
fn print_columns(
    title: &str,
    sys: &rtsync_model::System,
    protocols: &[Protocol],
    cols: &[Vec<String>],
) {
    let mut header: Vec<String> = vec![title.into(), String::new()];
    header.extend(protocols.iter().map(|p| p.to_string()));
    let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut tb = Table::new(&hdr).left(0);
    for (i, task) in sys.tasks.iter().enumerate() {
        let mut row = vec![task.name.clone(), String::new()];
        row.extend(cols.iter().map(|c| c[i].clone()));
        tb.row(row);
    }
    print!("{}", tb.render());
}

/// The measured worst response per task and protocol on real SCHED_FIFO
/// threads, as a share of the analysis bound. System CPUs beyond the
/// machine's are folded onto its CPUs (said above the table).
fn measured(
    sys: &rtsync_model::System,
    protocols: &[Protocol],
    analyses: &[Option<Analysis>],
    run_for: Duration,
) {
    let machine = rtsync_rt::sys::allowed_cpus();
    let cpus = sys.platform.cpus.max(1);
    let map: Vec<usize> = (0..cpus).map(|c| machine[c % machine.len()]).collect();
    let folded = cpus > machine.len();
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut failures = Vec::new();
    let bar = indicatif::ProgressBar::new(analyses.len() as u64);
    for (p, a) in protocols.iter().zip(analyses) {
        bar.set_message(p.to_string());
        let Some(a) = a else {
            cols.push(vec!["-".into(); sys.tasks.len()]);
            bar.inc(1);
            continue;
        };
        let o = RunOptions {
            duration: run_for,
            domain: RtOptions {
                cpu_map: Some(map.clone()),
                ..RtOptions::default()
            },
            lock_memory: true,
            ..RunOptions::default()
        };
        let col = match rtsync_rt::run(&a.system, &o) {
            Ok(r) => r
                .tasks
                .iter()
                .zip(&a.result.tasks)
                .map(|(m, t)| match m.max_response {
                    Some(w) => share(
                        Time::from_ns(w.as_nanos().min(u64::MAX as u128) as u64),
                        crate::table::duration(w),
                        t.response.bounded(),
                    ),
                    None => "-".into(),
                })
                .collect(),
            Err(e) => {
                failures.push(format!("{p}: {e}"));
                vec!["-".into(); sys.tasks.len()]
            }
        };
        cols.push(col);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if folded {
        println!(
            "(measured: {cpus} system CPUs folded onto this machine's {} CPU(s) {machine:?}; tasks of different system CPUs compete)",
            machine.len()
        );
    }
    print_columns(
        &format!("measured worst, {run_for:?}"),
        sys,
        protocols,
        &cols,
    );
    for f in failures {
        println!("  not run: {f}");
    }
}
