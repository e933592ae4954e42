//! `rtsync demo`: every protocol on the bundled examples, side by side.

use super::{OK, bad_input};
use crate::bundled;
use crate::table::Table;
use rtsync_analysis::{Analysis, Options, Verdict, analyze};
use rtsync_model::{Protocol, Time, load_str};
use rtsync_sim::{Exec, Options as SimOptions, simulate};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> u8 {
    println!("rtsync demo: the same system analysed and simulated under each protocol.\n");
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
                    blocking.push(b.to_string());
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
        println!();
    }
    println!(
        "'!' marks a bound above the deadline; the simulated worst is shown with its share of the bound ('>' would mean above it: a bug).\n\
See it happen: `rtsync simulate examples/pip-chained.toml --gantt pip.svg`. Try `rtsync analyze examples/pip-chained.toml --protocol pcp`."
    );
    OK
}

/// The simulated worst response per task and protocol, as a share of the
/// analysis bound: two hyperperiods (at most 2 s) at WCET from a
/// synchronous release, then as long with random execution times.
fn simulated(sys: &rtsync_model::System, protocols: &[Protocol], analyses: &[Option<Analysis>]) {
    let mut header: Vec<String> = vec!["simulated worst".into(), String::new()];
    header.extend(protocols.iter().map(|p| p.to_string()));
    let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut tb = Table::new(&hdr).left(0);
    let mut cols: Vec<Vec<String>> = Vec::new();
    for a in analyses {
        let Some(a) = a else {
            cols.push(vec!["-".into(); sys.tasks.len()]);
            continue;
        };
        let horizon = super::simulate::hyperperiod(&a.system)
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
                .map(|(w, t)| match (w, t.response.bounded()) {
                    (Some(w), Some(b)) => {
                        let mark = if *w > b { " >" } else { "" };
                        format!("{w} ({:.0}%){mark}", 100.0 * w.ratio(b))
                    }
                    (Some(w), None) => w.to_string(),
                    (None, _) => "-".into(),
                })
                .collect(),
        );
    }
    for (i, task) in sys.tasks.iter().enumerate() {
        let mut row = vec![task.name.clone(), String::new()];
        row.extend(cols.iter().map(|c| c[i].clone()));
        tb.row(row);
    }
    print!("{}", tb.render());
}
