//! Human-readable and JSON reports.

use crate::table::Table;
use rtsync_analysis::{Analysis, Verdict};
use rtsync_model::{Facts, System, Time};
use serde_json::json;
use std::fmt::Write;

fn t(x: Time) -> String {
    rtsync_analysis::result::shown(x)
}

/// What `rtsync check` prints: the system and its derived facts.
pub fn facts(sys: &System, label: &str) -> String {
    let f = Facts::new(sys);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: {} CPU(s), {} scheduling, {} task(s), {} resource(s){}",
        label,
        sys.platform.cpus,
        sys.platform.scheduler,
        sys.tasks.len(),
        sys.resources.len(),
        if sys.resources.is_empty() {
            String::new()
        } else {
            format!(" under {}", sys.protocol_label())
        }
    );
    let mut tasks = Table::new(&[
        "task", "cpu", "prio", "level", "period", "deadline", "wcet", "util", "sections",
    ])
    .left(0)
    .left(8);
    for (i, task) in sys.tasks.iter().enumerate() {
        let secs: Vec<String> = f
            .sections(i)
            .iter()
            .map(|rq| {
                let nest = if rq.is_outermost() {
                    String::new()
                } else {
                    format!(
                        " in {}",
                        f.held(rq)
                            .iter()
                            .map(|&h| sys.resources[h].name.as_str())
                            .collect::<Vec<_>>()
                            .join(">")
                    )
                };
                format!("{}:{}{}", sys.resources[rq.resource].name, rq.length, nest)
            })
            .collect();
        tasks.row(vec![
            task.name.clone(),
            task.cpu.map_or("-".into(), |c| c.to_string()),
            task.priority.to_string(),
            f.level(i).to_string(),
            t(task.period),
            t(task.deadline),
            t(f.tasks[i].wcet),
            format!("{:.3}", task.utilization()),
            if secs.is_empty() {
                "-".into()
            } else {
                secs.join(", ")
            },
        ]);
    }
    o.push('\n');
    o.push_str(&tasks.render());
    if !sys.resources.is_empty() {
        let mut res = Table::new(&[
            "resource",
            "protocol",
            "units",
            "sync cpu",
            "scope",
            "ceiling",
            "level ceiling",
            "users",
            "group",
        ])
        .left(0)
        .left(1)
        .left(4)
        .left(7);
        for (r, x) in sys.resources.iter().enumerate() {
            let users: Vec<&str> = f
                .users(r)
                .iter()
                .map(|&u| sys.tasks[u].name.as_str())
                .collect();
            let scope = if f.users(r).is_empty() {
                "unused"
            } else if !sys.is_partitioned() && sys.platform.cpus > 1 {
                if f.global[r] { "global?" } else { "local?" }
            } else if f.global[r] {
                "global"
            } else {
                "local"
            };
            res.row(vec![
                x.name.clone(),
                x.protocol.to_string(),
                x.units.to_string(),
                x.sync_cpu.map_or("-".into(), |c| c.to_string()),
                scope.into(),
                f.ceiling[r].to_string(),
                f.level_ceiling(r).to_string(),
                if users.is_empty() {
                    "-".into()
                } else {
                    users.join(" ")
                },
                sys.resources[f.group[r]].name.clone(),
            ]);
        }
        o.push('\n');
        o.push_str(&res.render());
        if !sys.is_partitioned() && sys.platform.cpus > 1 {
            o.push_str("(scope marked ? is provisional: some tasks have no CPU yet; `analyze` partitions them)\n");
        }
    }
    o.push('\n');
    o
}

/// What `rtsync analyze` prints.
pub fn analysis_table(a: &Analysis, label: &str) -> String {
    let r = &a.result;
    let mut o = String::new();
    let names = || {
        r.protocols
            .iter()
            .map(|p| p.name())
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let proto = match (r.protocols.len(), r.protocol) {
        (0, _) => "no shared resources".to_string(),
        (1, _) => format!("protocol {}", names()),
        // MPCP or MSRP with the local protocol it prescribes.
        (_, Some(p)) => format!("protocols {} (analysed as {p})", names()),
        (_, None) => format!("protocols {} (mixed)", names()),
    };
    let proto = a.system.with_components(proto);
    let _ = writeln!(
        o,
        "{label}: {} CPU(s), {} scheduling, {proto}\n",
        a.system.platform.cpus, r.scheduler
    );
    let mut tb = Table::new(&[
        "task", "cpu", "prio", "period", "deadline", "wcet", "local", "remote", "spin", "overhead",
        "response", "slack", "verdict",
    ])
    .left(0)
    .left(12);
    for x in &r.tasks {
        tb.row(vec![
            x.name.clone(),
            x.cpu.map_or("-".into(), |c| c.to_string()),
            x.priority.to_string(),
            t(x.period),
            t(x.deadline),
            t(x.wcet),
            x.blocking.local.to_string(),
            x.blocking.remote.to_string(),
            x.blocking.spin.to_string(),
            t(x.blocking.overhead),
            x.response.to_string(),
            x.slack.map_or("-".into(), t),
            if x.verdict == Verdict::Schedulable {
                "ok".into()
            } else {
                "MISS".into()
            },
        ]);
    }
    o.push_str(&tb.render());
    o.push('\n');
    for test in &r.tests {
        let _ = write!(o, "  {:<11} {}", test.test.name(), test.verdict);
        if let Some(d) = &test.detail {
            let _ = write!(o, " ({d})");
        }
        o.push('\n');
    }
    let _ = writeln!(
        o,
        "\nverdict: {}{}",
        r.verdict,
        r.decided_by
            .map_or(String::new(), |t| format!(" (decided by {t})"))
    );
    if r.scheduler == rtsync_model::Scheduler::Edf {
        o.push_str(
            "note: under EDF the response column is Spuri's response-time bound, at most the deadline \
             (the deadline itself where the busy period is too long to bound).\n",
        );
    }
    o
}

/// The JSON document of `analyze --format json` (schema in docs/analysis-json.md).
pub fn json(a: &Analysis, label: &str) -> serde_json::Value {
    json!({
        "schema": "rtsync.analysis/1",
        "spec": label,
        "system": {
            "name": a.system.name,
            "cpus": a.system.platform.cpus,
            "scheduler": a.system.platform.scheduler,
        },
        "result": a.result,
    })
}

/// One CSV row per task: the analysis's terms, and beside them the worst
/// simulated response where a simulation ran and the worst measured one
/// where the system ran on real threads (times in nanoseconds, empty
/// where unbounded or not seen).
pub fn csv(
    a: &Analysis,
    worst: Option<&[Option<Time>]>,
    measured: Option<&[Option<Time>]>,
) -> String {
    let ns = |d: &rtsync_analysis::Delay| match d {
        rtsync_analysis::Delay::Bounded(t) => t.ns().to_string(),
        rtsync_analysis::Delay::Unbounded => String::new(),
    };
    let mut o = String::from(
        "task,cpu,priority,period_ns,deadline_ns,wcet_ns,local_ns,remote_ns,spin_ns,overhead_ns,response_ns,simulated_worst_ns,verdict,measured_worst_ns\n",
    );
    for (i, x) in a.result.tasks.iter().enumerate() {
        let response = match x.response {
            rtsync_analysis::Response::Bounded(t) => t.ns().to_string(),
            _ => String::new(),
        };
        let ns_of = |w: Option<&[Option<Time>]>| {
            w.and_then(|w| w.get(i).copied().flatten())
                .map_or(String::new(), |t| t.ns().to_string())
        };
        let (seen, ran) = (ns_of(worst), ns_of(measured));
        // Names are identifiers in specs; quote anyway, doubling quotes.
        let _ = writeln!(
            o,
            "\"{}\",{},{},{},{},{},{},{},{},{},{},{},{},{ran}",
            x.name.replace('"', "\"\""),
            x.cpu.map_or(String::new(), |c| c.to_string()),
            x.priority,
            x.period.ns(),
            x.deadline.ns(),
            x.wcet.ns(),
            ns(&x.blocking.local),
            ns(&x.blocking.remote),
            ns(&x.blocking.spin),
            x.blocking.overhead.ns(),
            response,
            seen,
            if x.verdict == Verdict::Schedulable {
                "ok"
            } else {
                "miss"
            }
        );
    }
    o
}
