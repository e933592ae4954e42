//! `rtsync demo`: every protocol on the bundled examples, side by side.

use super::{OK, bad_input};
use crate::bundled;
use crate::table::Table;
use rtsync_analysis::{Options, Verdict, analyze};
use rtsync_model::{Protocol, load_str};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> u8 {
    println!("rtsync demo: the same system analysed under each protocol.\n");
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
        for &p in &protocols {
            let s = sys.with_protocol(p);
            let d = rtsync_model::validate(&s);
            if d.has_errors() {
                results.push(Err(d));
                continue;
            }
            results.push(analyze(&s, &Options::default()).map(|a| a.result));
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
        println!();
    }
    println!(
        "'!' marks a bound above the deadline. Try `rtsync analyze examples/pip-chained.toml --protocol pcp`."
    );
    OK
}
