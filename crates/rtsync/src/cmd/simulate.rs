//! `rtsync simulate`: run a system in the discrete-event simulator and
//! print per-task results beside the analysis bounds.

use super::{BAD_INPUT, NOT_SCHEDULABLE, OK};
use rtsync_analysis::{BoundForm, Heuristic};
use rtsync_model::{System, Time};
use rtsync_report::Table;
use rtsync_report::gantt::Window;
use rtsync_sim::search::{SearchOptions, search};
use rtsync_sim::{Arrivals, Exec, Options, Plan, simulate};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
rtsync simulate examples/pip-chained.toml --gantt pip.svg\n  \
rtsync simulate --protocol mrsp --horizon 3h --exec random --seed 7\n  \
rtsync simulate my.toml --trace events.jsonl   (one JSON object per event)\n  \
rtsync simulate my.toml --horizon 10s --gantt g.svg --gantt-window 2s..2.05s\n  \
rtsync simulate my.toml --search 200000 --save-plan worst.plan.toml --gantt worst.svg\n  \
rtsync simulate my.toml --plan worst.plan.toml   (replay a plan found by a search)\n\n\
Exit codes: 0 every response within its bound and no deadline missed; 1 a response above\n\
its analytic bound, a miss, a deadlock or a broken invariant; 2 bad input.")]
pub struct Args {
    #[command(flatten)]
    pub input: super::Input,
    /// Simulated time: a duration ("1s", "250ms") or a number of
    /// hyperperiods ("10h"). Default: 2 hyperperiods, or with --plan or
    /// --search until every planned job has finished.
    #[arg(long)]
    pub horizon: Option<String>,
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
    /// Draw a Gantt chart (SVG): one lane per CPU and one per task (and one
    /// per component thread for a component spec, with request arrows).
    #[arg(long, value_name = "FILE.svg")]
    pub gantt: Option<PathBuf>,
    /// The part of the run the Gantt chart draws, FROM..TO (e.g.
    /// `0..50ms`). Default: the whole run where it is short enough to
    /// read, else a window around the job whose response came closest to
    /// its deadline (said on the `gantt:` line).
    #[arg(long, value_name = "FROM..TO", requires = "gantt", value_parser = parse_window)]
    pub gantt_window: Option<(Time, Time)>,
    /// First release of a task, NAME=TIME (repeatable; default: the task's
    /// `offset` in the spec, else 0): stage a scenario, e.g. `--offset
    /// low=0ms --offset high=2ms`.
    #[arg(long = "offset", value_name = "NAME=TIME")]
    pub offsets: Vec<String>,
    /// Replay a plan (release offsets, arrival delays, jitter and
    /// durations of the first jobs), as written by --save-plan or by
    /// `rtsync experiment soundness --save`. Replaces --offset, --exec and
    /// --arrivals.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["offsets", "search"])]
    pub plan: Option<PathBuf>,
    /// Search this many simulated events for the schedule that brings
    /// each task closest to its analytic bound (offsets, delays, jitter,
    /// execution times), then show the worst schedule found, its plan cut
    /// down to the choices that response needs (every other choice put
    /// back: offset 0, periodic, no jitter, worst case).
    #[arg(long, value_name = "EVENTS")]
    pub search: Option<u64>,
    /// With --search: write the worst schedule's plan here, cut down as
    /// shown (replay it with --plan).
    #[arg(long, value_name = "FILE", requires = "search")]
    pub save_plan: Option<PathBuf>,
    /// How to place tasks that have no CPU (as in `rtsync analyze`).
    #[arg(long, default_value = "sync", value_parser = |s: &str| s.parse::<Heuristic>())]
    pub partition: Heuristic,
    /// The bounds shown beside the simulation and searched towards, as in
    /// `rtsync analyze`: fixed, classic (the default) or lp (the tightest,
    /// which `rtsync demo` shows).
    #[arg(long, default_value = "classic", value_parser = |s: &str| s.parse::<BoundForm>(),
        long_help = super::forms_help(
        "The bounds shown beside the simulation, and those --search climbs towards and checks, \
         as in `rtsync analyze`, each never above the one before: fixed, classic (the default) \
         or lp (also the linear-programming bounds, each term the smaller of the two: the \
         bounds `rtsync demo` shows)."))]
    pub analysis: BoundForm,
}

/// Runs the simulation with a progress bar of simulated time (shown on a
/// terminal, once a run takes long enough to need one).
fn with_progress(
    sys: &System,
    mut opts: Options,
) -> Result<(rtsync_sim::SimResult, Option<rtsync_sim::Recording>), rtsync_sim::SimError> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let reached = Arc::new(AtomicU64::new(0));
    opts.progress = Some(reached.clone());
    let horizon = opts.horizon.ns();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let bar = indicatif::ProgressBar::hidden();
            let start = std::time::Instant::now();
            while !done.load(Ordering::Acquire) {
                // Woken at once when the run ends: a short run is not
                // held up by the watcher's tick.
                std::thread::park_timeout(std::time::Duration::from_millis(100));
                if bar.is_hidden() && start.elapsed().as_secs() >= 1 {
                    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    bar.set_length(horizon);
                    bar.set_style(
                        indicatif::ProgressStyle::with_template(
                            "simulating {bar:30} {percent}% of the horizon, {elapsed} (eta {eta})",
                        )
                        .expect("static template"),
                    );
                }
                bar.set_position(reached.load(Ordering::Relaxed));
            }
            bar.finish_and_clear();
        });
        let r = simulate(sys, &opts);
        done.store(true, Ordering::Release);
        watcher.thread().unpark();
        r
    })
}

/// Parses `--gantt-window`: `FROM..TO`, two durations, FROM before TO.
fn parse_window(text: &str) -> Result<(Time, Time), String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}`: expected FROM..TO, e.g. 0..50ms"))?;
    let time = |s: &str| Time::parse(s.trim()).map_err(|e| format!("`{text}`: {e}"));
    let (from, to) = (time(a)?, time(b)?);
    if from >= to {
        return Err(format!("`{text}`: FROM must come before TO"));
    }
    Ok((from, to))
}

/// Parses `--horizon`: a duration, or `Nh` hyperperiods of `sys`.
pub fn parse_horizon(text: &str, sys: &System) -> Result<Time, String> {
    if let Some(n) = text.strip_suffix('h') {
        let n: u64 = n.trim().parse().map_err(|_| {
            format!("--horizon `{text}`: expected a duration (\"1s\") or hyperperiods (\"10h\")")
        })?;
        let h = sys.hyperperiod().ok_or_else(|| {
            "--horizon in hyperperiods: the periods' least common multiple overflows; give a duration instead".to_string()
        })?;
        let t = h
            .checked_mul(n)
            .ok_or_else(|| format!("--horizon `{text}`: {n} hyperperiods of {h} overflow"))?;
        return positive(t, text);
    }
    let t = Time::parse(text).map_err(|e| format!("--horizon `{text}`: {e}"))?;
    positive(t, text)
}

fn positive(t: Time, text: &str) -> Result<Time, String> {
    if t.is_zero() {
        Err(format!(
            "--horizon `{text}` simulates nothing; give a positive duration (\"1s\") or hyperperiods (\"2h\")"
        ))
    } else {
        Ok(t)
    }
}

pub fn run(a: Args) -> u8 {
    let (loaded, analysis, bounds) =
        match super::load_and_analyse(&a.input, a.partition, a.analysis) {
            Ok(x) => x,
            Err(code) => return code,
        };
    let sys = &analysis.system;
    let mut plan = match &a.plan {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Plan::from_toml(&text, sys))
        {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return BAD_INPUT;
            }
        },
    };
    if let Some(budget) = a.search {
        let found = search(
            sys,
            &bounds,
            &SearchOptions {
                budget,
                seed: a.seed,
                ..SearchOptions::default()
            },
        );
        println!(
            "search: {} schedules simulated ({} events); worst found per task:",
            found.simulations, found.events
        );
        let mut t = Table::new(&["task", "worst found", "bound", "found / bound"]);
        let tight = found.tightness(&bounds);
        for (i, w) in found.worst.iter().enumerate() {
            t.row(vec![
                sys.tasks[i].name.clone(),
                w.as_ref().map_or("-".into(), |(r, _)| r.to_string()),
                analysis.result.tasks[i].response.to_string(),
                tight[i].map_or("-".into(), |x| format!("{x:.3}")),
            ]);
        }
        print!("{}", t.render());
        if let Some(note) = super::thin_search(&found, budget) {
            println!("note: {note}");
        }
        // Show the schedule of the task that came closest to its bound
        // (past it, if any did), its plan cut down to what it needs.
        if let Some((i, r, cut)) = super::worst_to_show(sys, &bounds, &found, budget) {
            let name = &sys.tasks[i].name;
            println!(
                "showing the worst schedule found for {name} ({r}); {}:",
                cut.choices
            );
            if let Some(line) = super::choices_in_words(&cut.plan, sys, Some(8)) {
                println!("  {line}");
            }
            if let Some(later) = cut.response.filter(|&x| x > r) {
                println!(
                    "note: with choices put back {name} responds in {later}, later than the search found: a default can be worse than the climb's choice"
                );
            }
            plan = Some(cut.plan);
        }
        if let (Some(path), Some(p)) = (&a.save_plan, &plan) {
            if let Err(e) = std::fs::write(path, p.to_toml(sys)) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return BAD_INPUT;
            }
            println!("plan: {} (replay with --plan)", path.display());
        }
    }
    let horizon = match (&a.horizon, &plan) {
        (Some(h), _) => parse_horizon(h, sys),
        (None, Some(p)) => Ok(p.horizon(sys)),
        (None, None) => {
            let d = rtsync_sim::horizon::default_horizon(sys, 2);
            if let Some(why) = &d.capped {
                eprintln!("note: {why}");
            }
            Ok(d.horizon)
        }
    };
    let horizon = match horizon {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    // Refused before the run, not after it: a long horizon's whole
    // simulation would be spent on a chart that cannot be drawn.
    if let Some((from, to)) = a.gantt_window
        && to > horizon
    {
        eprintln!(
            "error: --gantt-window {from}..{to} ends after the run, which ends at {horizon}; \
             give a window within it or a longer --horizon"
        );
        return BAD_INPUT;
    }
    let mut offsets: Vec<Time> = sys.tasks.iter().map(|t| t.offset).collect();
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
        plan: plan.map(Arc::new),
        ..Options::default()
    };
    let (res, rec) = match with_progress(sys, sim_opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    if let Some(o) = &res.overload {
        println!(
            "{o}\n  (a task whose jobs pile up is overloaded: `rtsync analyze` says where; \
             the misses below count the jobs left unfinished)"
        );
    }
    println!(
        "{}: simulated {} ({} events), {}",
        loaded.label,
        res.end,
        res.events,
        sys.protocol_phrase()
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
            let (window, why) = match a.gantt_window {
                Some((from, to)) => (Window { from, to }, None),
                None => rtsync_report::gantt::default_window(sys, rec, res.end),
            };
            let svg = rtsync_report::gantt::render(sys, rec, window);
            if let Err(e) = std::fs::write(path, svg) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return BAD_INPUT;
            }
            match why {
                Some(why) => println!(
                    "gantt: {} ({} .. {} of the {} run, {why}; --gantt-window FROM..TO draws another part)",
                    path.display(),
                    window.from,
                    window.to,
                    res.end
                ),
                None => println!("gantt: {}", path.display()),
            }
        }
    }
    let mut bad = false;
    for line in above_bounds(&res, &bounds) {
        println!("{line}");
        bad = true;
    }
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

/// A line for every task whose simulated worst response passed its
/// analytic bound, as the experiment counts it (deadlocks, invariants and
/// misses are printed where they were before).
fn above_bounds(res: &rtsync_sim::SimResult, bounds: &[Time]) -> Vec<String> {
    res.broken(bounds)
        .into_iter()
        .filter(|b| b.kind == rtsync_sim::Kind::AboveBound)
        .map(|b| {
            format!(
                "ABOVE THE BOUND: {}: the analysis is unsound here (please report it with this spec and plan)",
                b.what
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtsync_sim::{Blocking, TaskStats};

    fn stats(name: &str, max: Option<Time>) -> TaskStats {
        TaskStats {
            name: name.into(),
            cpu: 0,
            jobs: 1,
            max_response: max,
            worst_arrival: None,
            mean_response: max,
            max_blocking: Blocking::default(),
            misses: 0,
        }
    }

    /// Only a response strictly above its bound is flagged, by name;
    /// equal is the bound reached, and a task without a completed job says
    /// nothing.
    #[test]
    fn a_response_above_its_bound_is_named() {
        let ms = Time::from_ms;
        let tasks = [
            stats("a", Some(ms(3))),
            stats("b", Some(ms(5))),
            stats("c", None),
            stats("d", Some(ms(7))),
        ];
        let res = rtsync_sim::SimResult {
            tasks: tasks.to_vec(),
            end: ms(10),
            events: 0,
            deadlock: None,
            violations: Vec::new(),
            overload: None,
        };
        let lines = above_bounds(&res, &[ms(3), ms(4), ms(1), Time::MAX]);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("task b responded in 5ms, above its bound 4ms"));
    }
}
