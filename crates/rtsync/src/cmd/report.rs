//! `rtsync report`: one self-contained HTML page for a system (the
//! analysis with every blocking term and where it comes from, the worst
//! schedule the simulator's search found, its Gantt chart), with the CSV
//! and JSON beside it.

use super::{BAD_INPUT, NOT_SCHEDULABLE, OK};
use rtsync_analysis::{BoundForm, Heuristic};
use rtsync_model::Time;
use rtsync_report::gantt::Window;
use rtsync_report::html::{Measured, Page, Simulated};
use rtsync_sim::search::{SearchOptions, search};
use rtsync_sim::{Options, simulate};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
rtsync report --out report            (the bundled example)\n  \
rtsync report examples/pip-chained.toml --out pip\n  \
rtsync report my.toml --protocol mrsp --search 1000000 --out my-mrsp\n\n\
Writes DIR/report.html (open it in a browser; it needs no network), DIR/analysis.json,\n\
DIR/analysis.csv and DIR/gantt.svg. Each file is written whole or not at all.\n\n\
Exit codes: 0 schedulable and every simulated response within its bound; 1 not schedulable,\n\
or a response above its bound; 2 bad input or a folder that cannot be written.")]
pub struct Args {
    #[command(flatten)]
    pub input: super::Input,
    /// Folder for the page and its files (created if missing; files of
    /// the same names are replaced).
    #[arg(long, default_value = "report")]
    pub out: PathBuf,
    /// Simulated events the worst-case search may spend looking for the
    /// schedule closest to the bounds (offsets, arrival delays, jitter,
    /// execution times); 0 for one synchronous periodic run instead.
    #[arg(long, default_value_t = 200_000)]
    pub search: u64,
    /// Seed of the search.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How to place tasks that have no CPU (as in `rtsync analyze`).
    #[arg(long, default_value = "sync", value_parser = |s: &str| s.parse::<Heuristic>())]
    pub partition: Heuristic,
    /// Run the system on real threads (SCHED_FIFO, pinned, the shipped
    /// lock paths) for this long and show the worst measured response per
    /// task beside the bound; 0 to skip. Where SCHED_FIFO is not
    /// permitted, or the system has more CPUs than this machine, the page
    /// says so instead.
    #[arg(long, default_value = "1s", value_parser = super::duration)]
    pub run_for: Time,
    /// Blocking bounds: fixed, classic or lp (as in `rtsync analyze`).
    #[arg(long, default_value = "classic", value_parser = |s: &str| s.parse::<BoundForm>())]
    pub analysis: BoundForm,
}

/// Writes `dir/name` whole or not at all, the error naming the file.
fn write_whole(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    rtsync_report::files::write_whole(dir, name, text)
        .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))
}

/// The system on real threads for `run_for`: the worst measured response
/// per task, or why it did not run.
fn measure(sys: &rtsync_model::System, run_for: std::time::Duration) -> Measured {
    if run_for.is_zero() {
        return Measured::Not("Not run on real threads (--run-for 0).".into());
    }
    if let Err(why) = rtsync_rt::sys::probe_realtime() {
        // The probe's message says what to grant.
        return Measured::Not(format!("Not run on real threads: {why}."));
    }
    let placed = match rtsync_rt::placement::place(sys, None) {
        Ok(p) if !p.folded() => p,
        Ok(p) => {
            return Measured::Not(format!(
                "Not run on real threads: the system has {} CPUs and this process may use {}; \
                 `rtsync run` runs it folded ({}) and compares with the folded system's bounds.",
                sys.platform.cpus,
                p.machine.len(),
                p.describe()
            ));
        }
        Err(e) => return Measured::Not(format!("Not run on real threads: {e}.")),
    };
    let o = rtsync_rt::RunOptions {
        duration: run_for,
        domain: rtsync_rt::Options {
            cpu_map: Some(placed.machine.clone()),
            ..rtsync_rt::Options::default()
        },
        lock_memory: rtsync_rt::sys::lock_memory().is_ok(),
        ..rtsync_rt::RunOptions::default()
    };
    match rtsync_rt::run(&placed.system, &o) {
        Ok(r) => Measured::Ran {
            worst: r
                .tasks
                .iter()
                .map(|t| t.max_response.map(|d| Time::from_ns(d.as_nanos() as u64)))
                .collect(),
            how: format!(
                "The measured worst column: the system run for {run_for:?} on SCHED_FIFO threads \
                 pinned to CPUs {:?}, with the locks' shipped paths (nothing recorded); a response \
                 on real threads includes the machine's own interference, which the bound does not.",
                placed.machine
            ),
        },
        Err(e) => Measured::Not(format!("Not run on real threads: {e}.")),
    }
}

pub fn run(a: Args) -> u8 {
    let run_for = std::time::Duration::from_nanos(a.run_for.ns());
    let (loaded, analysis, bounds) =
        match super::load_and_analyse(&a.input, a.partition, a.analysis) {
            Ok(x) => x,
            Err(code) => return code,
        };
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!(
            "error: cannot create {}: {e}\n  hint: give --out a folder you can write",
            a.out.display()
        );
        return BAD_INPUT;
    }
    let sys = &analysis.system;

    // The schedule to show: the search's worst for the task that came
    // closest to its bound, or one synchronous periodic run.
    let (worst, plan, how) = if a.search > 0 {
        eprintln!(
            "searching {} simulated events for the worst schedule...",
            a.search
        );
        let found = search(
            sys,
            &bounds,
            &SearchOptions {
                budget: a.search,
                seed: a.seed,
                ..SearchOptions::default()
            },
        );
        let mut worst: Vec<Option<Time>> = found
            .worst
            .iter()
            .map(|w| w.as_ref().map(|(r, _)| *r))
            .collect();
        let cut = super::worst_to_show(sys, &bounds, &found, a.search);
        let thin = super::thin_search(&found, a.search);
        if let Some(note) = &thin {
            eprintln!("note: {note}");
        }
        let shown = cut.as_ref().map_or(String::new(), |(i, r, c)| {
            let name = &sys.tasks[*i].name;
            let later = c.response.filter(|x| x > r).map_or(String::new(), |x| {
                format!(
                    "; with choices put back {name} responds in {x}, later than the search \
                     found, as the column and the chart show"
                )
            });
            let told = super::choices_in_words(&c.plan, sys, None)
                .map_or(String::new(), |w| format!(": {w}"));
            format!(" for {name}: {}{told}{later}", c.choices)
        });
        if let Some((i, _, c)) = &cut
            && let Some(x) = c.response
        {
            worst[*i] = Some(worst[*i].map_or(x, |w| w.max(x)));
        }
        let plan = cut.map(|(_, _, c)| c.plan);
        let how = format!(
            "The simulator's search tried {} schedules ({} events, seed {}; offsets, arrival \
             delays, jitter and execution times) for the one that brings each task closest to \
             its bound. The simulated worst column is the worst it saw per task; the chart shows \
             the worst schedule it found{shown}.{}",
            found.simulations,
            found.events,
            a.seed,
            thin.map_or(String::new(), |t| format!(" Note: {t}"))
        );
        (Some(worst), plan, how)
    } else {
        (
            None,
            None,
            "One synchronous periodic run, every segment at its worst-case time.".to_string(),
        )
    };
    let horizon = match &plan {
        Some(p) => p.horizon(sys),
        None => rtsync_sim::horizon::default_horizon(sys, 1).horizon,
    };
    let sim_opts = Options {
        offsets: sys.tasks.iter().map(|t| t.offset).collect(),
        horizon,
        seed: a.seed,
        record: true,
        plan: plan.map(Arc::new),
        ..Options::default()
    };
    let (res, rec) = match simulate(sys, &sim_opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let rec = rec.expect("recording was asked for");
    let worst = worst.unwrap_or_else(|| res.tasks.iter().map(|t| t.max_response).collect());
    // Drawn whole: the page's chart zooms and scrolls, and the schedule
    // it shows is the one found for the task it names (one hyperperiod,
    // or the plan's reach), not a run to find the worst job in.
    let gantt = rtsync_report::gantt::render(sys, &rec, Window::whole(res.end));
    let measured = measure(sys, run_for);
    let measured_worst = match &measured {
        Measured::Ran { worst, .. } => Some(worst.clone()),
        Measured::Not(_) => None,
    };

    let mut sources: Vec<(String, rtsync_analysis::blocking::Source)> = analysis
        .result
        .protocols
        .iter()
        .map(|&p| (p.name().to_string(), rtsync_analysis::blocking::source(p)))
        .collect();
    if sys.components.is_some() {
        sources.push((
            "components".into(),
            rtsync_analysis::blocking::COMPONENTS_SOURCE,
        ));
    }
    let json = rtsync_report::analysis::json(&analysis, &loaded.label);
    let files: Vec<(String, String)> = vec![
        (
            "analysis.json".into(),
            "the analysis, as `rtsync analyze --format json` writes it".into(),
        ),
        (
            "analysis.csv".into(),
            "one row per task: the blocking terms, the bound, the simulated and measured worst (ns)".into(),
        ),
        ("gantt.svg".into(), "the Gantt chart alone".into()),
    ];
    let page = rtsync_report::html::page(&Page {
        label: &loaded.label,
        analysis: &analysis,
        form: a.analysis,
        sources,
        simulated: Some(Simulated {
            worst: worst.clone(),
            how,
            gantt: gantt.clone(),
        }),
        measured,
        files,
    });
    let written = write_whole(
        &a.out,
        "analysis.json",
        &serde_json::to_string_pretty(&json).expect("a JSON value serialises"),
    )
    .and_then(|()| {
        write_whole(
            &a.out,
            "analysis.csv",
            &rtsync_report::analysis::csv(&analysis, Some(&worst), measured_worst.as_deref()),
        )
    })
    .and_then(|()| write_whole(&a.out, "gantt.svg", &gantt))
    // The page last: where it is, everything it links to is.
    .and_then(|()| write_whole(&a.out, "report.html", &page));
    if let Err(e) = written {
        eprintln!("error: {e}");
        return BAD_INPUT;
    }
    println!(
        "{}: {} — report: {} (open it in a browser)",
        loaded.label,
        analysis.result.verdict,
        a.out.join("report.html").display()
    );
    let above = worst
        .iter()
        .zip(&bounds)
        .any(|(w, &b)| w.is_some_and(|w| w > b));
    if above {
        println!(
            "ABOVE THE BOUND: a simulated response passed its analytic bound (see the tightness column); please report it with this spec"
        );
    }
    if above || analysis.result.verdict != rtsync_analysis::Verdict::Schedulable {
        NOT_SCHEDULABLE
    } else {
        OK
    }
}
