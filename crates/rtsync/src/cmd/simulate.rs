//! `rtsync simulate`: run a system in the discrete-event simulator and
//! print per-task results beside the analysis bounds.

use super::{BAD_INPUT, NOT_SCHEDULABLE, OK, bad_input};
use crate::spec_arg;
use crate::table::Table;
use rtsync_analysis::{Heuristic, Options as AnalysisOptions, analyze};
use rtsync_model::{Protocol, System, Time};
use rtsync_sim::{Arrivals, Exec, Options, simulate};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
rtsync simulate examples/pip-chained.toml --gantt pip.svg\n  \
rtsync simulate --protocol mrsp --horizon 3h --exec random --seed 7\n  \
rtsync simulate my.toml --trace events.jsonl   (one JSON object per event)\n\n\
Exit codes: 0 no deadline missed, 1 a miss, a deadlock or a broken invariant, 2 bad input.")]
pub struct Args {
    /// Spec file (TOML), or the name of a bundled example; the bundled
    /// four-CPU example when omitted.
    pub spec: Option<PathBuf>,
    /// Simulated time: a duration ("1s", "250ms") or a number of
    /// hyperperiods ("10h").
    #[arg(long, default_value = "2h")]
    pub horizon: String,
    /// Seed for random execution times, jitter and sporadic arrivals.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// wcet: every segment at its worst case; random: drawn in (0, worst].
    #[arg(long, default_value = "wcet", value_parser = |s: &str| s.parse::<Exec>())]
    pub exec: Exec,
    /// periodic (synchronous first release) or sporadic (random offsets,
    /// inter-arrival times up to 1.5 periods).
    #[arg(long, default_value = "periodic", value_parser = |s: &str| s.parse::<Arrivals>())]
    pub arrivals: Arrivals,
    /// Write the event trace as JSON lines.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Draw a Gantt chart (SVG): one lane per CPU and one per task.
    #[arg(long, value_name = "FILE.svg")]
    pub gantt: Option<PathBuf>,
    /// First release of a task, NAME=TIME (repeatable; default 0): stage a
    /// scenario, e.g. `--offset low=0ms --offset high=2ms`.
    #[arg(long = "offset", value_name = "NAME=TIME")]
    pub offsets: Vec<String>,
    /// Put every resource under this protocol first.
    #[arg(long, value_parser = super::check::parse_protocol)]
    pub protocol: Option<Protocol>,
    /// Overhead profile (TOML) charged where the analysis charges it.
    #[arg(long, value_name = "FILE")]
    pub overheads: Option<PathBuf>,
    /// How to place tasks that have no CPU (as in `rtsync analyze`).
    #[arg(long, default_value = "sync", value_parser = |s: &str| s.parse::<Heuristic>())]
    pub partition: Heuristic,
}

/// The least common multiple of the periods, `None` past `Time::MAX`.
pub fn hyperperiod(sys: &System) -> Option<Time> {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    sys.tasks
        .iter()
        .try_fold(1u64, |acc, t| {
            let p = t.period.ns().max(1);
            (acc / gcd(acc, p)).checked_mul(p)
        })
        .map(Time::from_ns)
}

/// Parses `--horizon`: a duration, or `Nh` hyperperiods of `sys`.
pub fn parse_horizon(text: &str, sys: &System) -> Result<Time, String> {
    if let Some(n) = text.strip_suffix('h') {
        let n: u64 = n.trim().parse().map_err(|_| {
            format!("--horizon `{text}`: expected a duration (\"1s\") or hyperperiods (\"10h\")")
        })?;
        let h = hyperperiod(sys).ok_or_else(|| {
            "--horizon in hyperperiods: the periods' least common multiple overflows; give a duration instead".to_string()
        })?;
        return h
            .checked_mul(n)
            .ok_or_else(|| format!("--horizon `{text}`: {n} hyperperiods of {h} overflow"));
    }
    Time::parse(text).map_err(|e| format!("--horizon `{text}`: {e}"))
}

pub fn run(a: Args) -> u8 {
    let loaded = match spec_arg::load(a.spec.as_deref(), a.protocol) {
        Ok(l) => l,
        Err(d) => return bad_input(&d),
    };
    let overheads = match super::load_overheads(a.overheads.as_deref()) {
        Ok(p) => p,
        Err(code) => return code,
    };
    for d in loaded.diagnostics.iter() {
        eprintln!("{d}");
    }
    let opts = AnalysisOptions {
        overheads,
        heuristic: a.partition,
        ..AnalysisOptions::default()
    };
    // The analysis places the tasks and inflates the bodies by the
    // overheads; the simulator runs exactly that system.
    let analysis = match analyze(&loaded.system, &opts) {
        Ok(x) => x,
        Err(d) => return bad_input(&d),
    };
    let sys = &analysis.system;
    let horizon = match parse_horizon(&a.horizon, sys) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let mut offsets = vec![Time::ZERO; sys.tasks.len()];
    for o in &a.offsets {
        let parsed = o
            .split_once('=')
            .ok_or_else(|| format!("--offset `{o}`: expected NAME=TIME"))
            .and_then(|(n, t)| {
                let i = sys.task_by_name(n.trim()).ok_or_else(|| {
                    let names: Vec<&str> = sys.tasks.iter().map(|t| t.name.as_str()).collect();
                    format!(
                        "--offset `{o}`: no task `{n}`; tasks are {}",
                        names.join(", ")
                    )
                })?;
                let t = Time::parse(t.trim()).map_err(|e| format!("--offset `{o}`: {e}"))?;
                Ok((i, t))
            });
        match parsed {
            Ok((i, t)) => offsets[i] = t,
            Err(e) => {
                eprintln!("error: {e}");
                return BAD_INPUT;
            }
        }
    }
    let sim_opts = Options {
        offsets,
        horizon,
        seed: a.seed,
        exec: a.exec,
        arrivals: a.arrivals,
        record: a.trace.is_some() || a.gantt.is_some(),
        ..Options::default()
    };
    let (res, rec) = match simulate(sys, &sim_opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    println!(
        "{}: simulated {} ({} events), protocol {}",
        loaded.label,
        res.end,
        res.events,
        sys.protocol().map_or("none".to_string(), |p| p.to_string())
    );
    let mut t = Table::new(&[
        "task", "cpu", "jobs", "sim max", "sim mean", "bound", "local", "remote", "spin", "misses",
    ]);
    for (st, an) in res.tasks.iter().zip(&analysis.result.tasks) {
        let show = |x: Option<Time>| x.map_or("-".to_string(), |v| v.to_string());
        t.row(vec![
            st.name.clone(),
            st.cpu.to_string(),
            st.jobs.to_string(),
            show(st.max_response),
            show(st.mean_response),
            an.response.to_string(),
            st.max_blocking.local.to_string(),
            st.max_blocking.remote.to_string(),
            st.max_blocking.spin.to_string(),
            st.misses.to_string(),
        ]);
    }
    print!("{}", t.render());
    println!(
        "(sim max/mean: response from arrival; bound: the analysis; local/remote/spin: worst measured blocking)"
    );
    if let Some(rec) = &rec {
        if let Some(path) = &a.trace {
            let written = std::fs::File::create(path).and_then(|f| {
                let mut w = std::io::BufWriter::new(f);
                rec.write_jsonl(&mut w)
            });
            if let Err(e) = written {
                eprintln!("error: cannot write {}: {e}", path.display());
                return BAD_INPUT;
            }
            println!("trace: {} ({} events)", path.display(), rec.events.len());
        }
        if let Some(path) = &a.gantt {
            let svg = rtsync_sim::gantt::render(sys, rec, res.end);
            if let Err(e) = std::fs::write(path, svg) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return BAD_INPUT;
            }
            println!("gantt: {}", path.display());
        }
    }
    let mut bad = false;
    if let Some(d) = &res.deadlock {
        println!("{d}");
        bad = true;
    }
    for v in &res.violations {
        println!("INVARIANT BROKEN at {}: {}", v.at, v.what);
        bad = true;
    }
    if res.misses() > 0 {
        println!("{} deadline miss(es)", res.misses());
        bad = true;
    }
    if bad { NOT_SCHEDULABLE } else { OK }
}
