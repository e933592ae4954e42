//! `rtsync demo`: every protocol on the bundled examples, side by side.

use super::{OK, bad_input};
use crate::bundled;
use rtsync_analysis::{Analysis, BoundForm, Options, Verdict, analyze};
use rtsync_bench::locks::Against;
use rtsync_experiment::as_it_runs::run_placed;
use rtsync_model::{Protocol, Time, load_str};
use rtsync_report::Table;
use rtsync_rt::sys;
use rtsync_sim::search::{SearchOptions, search};
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// How long each protocol runs on real SCHED_FIFO threads for the
    /// measured column; `0` leaves it out.
    #[arg(long, default_value = "500ms", value_parser = super::duration)]
    pub run_for: Time,
    /// Blocking bounds: lp (the default here: the tightest rtsync has),
    /// classic (`rtsync analyze`'s default) or fixed.
    #[arg(long, default_value = "lp", value_parser = |s: &str| s.parse::<BoundForm>(),
        long_help = super::forms_help(
        "Blocking bounds, each never above the one before: fixed (each request's closed-form \
         bound on its own), classic (`rtsync analyze`'s default: lowered by the job-window form) \
         or lp (the default here: also the linear-programming bounds of Brandenburg 2013 and \
         Wieder and Brandenburg 2013, each term the smaller of the two). The demo sets \
         protocols side by side, so each gets the tightest bound rtsync has: under classic, \
         MPCP's closed form charges the four-CPU example's tasks a third more than its LP \
         form, and the table would rank the protocols by their analyses' slack rather than \
         by what they cost."))]
    pub analysis: BoundForm,
}

/// One protocol's column: the system as it is analysed, simulated and run
/// (folded onto this machine when it is measured), with its analysis.
struct Column {
    /// What runs on real threads: the folded, partitioned system.
    runs: Option<rtsync_rt::placement::Placement>,
    analysis: Option<Analysis>,
    /// Why there is no analysis.
    refused: Option<String>,
}

/// The marks that appeared, so that the legend explains those alone.
#[derive(Default)]
struct Marks {
    bound_above_deadline: bool,
    simulated_above: bool,
    measured_noise: bool,
    measured_above: bool,
    /// A run's CPUs have a steal clock: its tick can go uncounted
    /// (`Stolen::uncounted`).
    uncounted: Option<std::time::Duration>,
}

pub fn run(a: Args) -> u8 {
    let run_for = Duration::from_nanos(a.run_for.ns());
    println!(
        "rtsync demo: the same system analysed, simulated and run on real threads under each protocol.\n"
    );
    let realtime = if run_for.is_zero() {
        Err("--run-for 0".to_string())
    } else {
        sys::probe_realtime()
    };
    // Measured here first, so that the bounds charge what this machine
    // costs and a measured response above one can be set against the
    // noise seen.
    let costs = match &realtime {
        Ok(()) => {
            eprintln!("measuring this machine's costs (about a second)...");
            match rtsync_bench::locks::quick_costs() {
                Ok(c) => {
                    println!(
                        "This machine: context switch {}, timer lateness p99 {} (worst {}), lock and unlock per protocol: \
                         charged in every bound below as `rtsync analyze --overheads` charges them.\n",
                        c.profile.context_switch, c.profile.release, c.worst_timer_lateness
                    );
                    Some(c)
                }
                Err(e) => {
                    println!("(overheads not measured: {e}; bounds without overheads)\n");
                    None
                }
            }
        }
        Err(_) => None,
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
    let mut marks = Marks::default();
    for (ex, protocols) in groups {
        let (sys, _) = match load_str(ex.src, Some(ex.file)) {
            Ok(x) => x,
            Err(d) => return bad_input(&d),
        };
        let options = Options {
            overheads: costs.as_ref().map(|c| c.profile.clone()),
            form: a.analysis,
            ..Options::default()
        };
        let cols: Vec<Column> = protocols
            .iter()
            .map(|&p| column(&sys, p, realtime.is_ok(), &options))
            .collect();
        let folded = cols
            .iter()
            .find_map(|c| c.runs.as_ref().filter(|r| r.folded()));
        println!(
            "== {} ({} CPU(s), {} tasks, {} resources): response-time bound per task ==",
            ex.file,
            sys.platform.cpus,
            sys.tasks.len(),
            sys.resources.len()
        );
        if let Some(f) = folded {
            println!(
                "(this machine allows {} CPU(s): the system runs folded, {}, and every table below is of the folded system, the one that runs)",
                f.machine.len(),
                f.describe()
            );
        }
        // Where no protocol of the group has another form (the
        // uniprocessor ones), the form says nothing.
        if protocols.iter().any(|&p| {
            rtsync_analysis::blocking::has_lp_form(p)
                || rtsync_analysis::blocking::has_job_window(p)
        }) {
            println!("(bounds: {})", a.analysis.describe());
        }
        bounds(&sys, &protocols, &cols, &mut marks);
        simulated(&sys, &protocols, &cols, &mut marks);
        match (&realtime, &costs) {
            (Ok(()), Some(c)) => measured(&sys, &protocols, &cols, run_for, c, &mut marks),
            (Ok(()), None) => {
                println!("(no measured column: the machine's costs could not be measured)")
            }
            (Err(why), _) => println!("(no measured column: {why})"),
        }
        println!();
    }
    legend(&marks, costs.as_ref());
    println!(
        "See it happen: `rtsync simulate examples/pip-chained.toml --gantt pip.svg`. Try `rtsync analyze examples/pip-chained.toml --protocol pcp`."
    );
    OK
}

/// `sys` under `p`, placed on this machine when it will run here, and
/// analysed as placed.
fn column(sys: &rtsync_model::System, p: Protocol, runs: bool, options: &Options) -> Column {
    let refused = |why: String| Column {
        runs: None,
        analysis: None,
        refused: Some(why),
    };
    let first = |d: &rtsync_model::Diagnostics| {
        d.errors()
            .next()
            .map(|e| e.message.clone())
            .unwrap_or_default()
    };
    let s = sys.with_protocol(p);
    let d = rtsync_model::validate(&s);
    if d.has_errors() {
        return refused(first(&d));
    }
    if !runs {
        return match analyze(&s, options) {
            Ok(a) => Column {
                runs: None,
                analysis: Some(a),
                refused: None,
            },
            Err(d) => refused(first(&d)),
        };
    }
    match rtsync_experiment::as_it_runs::as_it_runs(&s, None, options) {
        Ok((placed, a)) => Column {
            runs: Some(placed),
            analysis: Some(a),
            refused: None,
        },
        Err(
            rtsync_experiment::as_it_runs::Unplaced::Input(e)
            | rtsync_experiment::as_it_runs::Unplaced::Environment(e),
        ) => refused(e.lines().next().unwrap_or_default().to_string()),
    }
}

/// The bound table: a row per task, a column per protocol.
fn bounds(sys: &rtsync_model::System, protocols: &[Protocol], cols: &[Column], marks: &mut Marks) {
    let mut header: Vec<String> = vec!["task".into(), "deadline".into()];
    header.extend(protocols.iter().map(|p| p.to_string()));
    let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut tb = Table::new(&hdr).left(0);
    for (i, task) in sys.tasks.iter().enumerate() {
        let mut row = vec![task.name.clone(), task.deadline.to_string()];
        for c in cols {
            row.push(match &c.analysis {
                Some(a) => {
                    let x = &a.result.tasks[i];
                    if x.verdict == Verdict::Schedulable {
                        x.response.to_string()
                    } else {
                        marks.bound_above_deadline = true;
                        format!("{} !", x.response)
                    }
                }
                None => "invalid".into(),
            });
        }
        tb.row(row);
    }
    let mut verdict = vec!["verdict".into(), String::new()];
    let mut blocking = vec!["max blocking".into(), String::new()];
    for c in cols {
        match &c.analysis {
            Some(a) => {
                verdict.push(if a.result.verdict == Verdict::Schedulable {
                    "ok".into()
                } else {
                    "MISS".into()
                });
                let b = a
                    .result
                    .tasks
                    .iter()
                    .map(|t| t.blocking.total())
                    .max()
                    .unwrap_or_default();
                blocking.push(b.to_string());
            }
            None => {
                verdict.push("-".into());
                blocking.push("-".into());
            }
        }
    }
    tb.row(blocking);
    tb.row(verdict);
    print!("{}", tb.render());
    for (p, c) in protocols.iter().zip(cols) {
        if let Some(why) = &c.refused {
            println!("  {p}: not applicable here: {why}");
        }
    }
}

/// What the legend says: only the marks that appeared.
fn legend(m: &Marks, costs: Option<&rtsync_bench::locks::MachineCosts>) {
    if m.bound_above_deadline {
        println!(
            "'!' marks a bound above the deadline: the analysis cannot promise that task's deadline."
        );
        if let Some(c) = costs {
            println!("{}", c.charged_explained());
        }
    }
    print!(
        "simulated worst: the worst response the simulator's search found ({SEARCH_BUDGET} events per protocol \
         over release offsets, delays and execution times)"
    );
    if costs.is_some() {
        print!("; measured worst: the worst on real threads");
    }
    if m.bound_above_deadline {
        // A bound past the deadline may have no value to take a share of.
        println!(
            ". Each is shown with its share of the bound (or alone, where the bound is marked '!')."
        );
    } else {
        println!(". Each is shown with its share of the bound.");
    }
    if m.simulated_above {
        println!(
            "'>' in a simulated table: a response above its bound, which the analysis promises never happens: \
             a defect; please report it with the output of `rtsync simulate SPEC --protocol P --search 100000 --save-plan plan.toml`."
        );
    }
    if let Some(c) = costs
        && (m.measured_noise || m.measured_above)
    {
        if m.measured_noise {
            println!("'~' in a measured table: {}", c.noise_explained());
        }
        if m.measured_above {
            println!(
                "'>' in a measured table: {}; `rtsync run` with the spec and `--protocol` repeats it alone.",
                c.above_explained(m.uncounted)
            );
        }
    }
}

/// Events the search spends per protocol: under a second for the two
/// examples' twelve columns, and on the bundled examples it reaches the
/// real threads' worst in every cell.
const SEARCH_BUDGET: u64 = 200_000;

/// The simulated worst response per task and protocol, as a share of the
/// analysis bound: the worst the simulator's search found
/// ([`rtsync_sim::search`]: release offsets, sporadic delays, jitter and
/// execution times, climbing towards each bound), on the system analysed
/// (overheads charged, folded when it runs folded). Until 2026-12-03 this
/// column was two plain runs (synchronous release at WCET, then random
/// times), which the real threads beat in most cells of the four-CPU
/// example (H0 under MPCP: 1.7 ms simulated, 3.5 ms measured): a newcomer
/// read a "worst" that was no worst case.
fn simulated(
    sys: &rtsync_model::System,
    protocols: &[Protocol],
    cols: &[Column],
    marks: &mut Marks,
) {
    let mut out: Vec<Vec<String>> = Vec::new();
    for c in cols {
        let Some(a) = &c.analysis else {
            out.push(vec!["-".into(); sys.tasks.len()]);
            continue;
        };
        let found = search(
            &a.system,
            &super::search_bounds(a),
            &SearchOptions {
                budget: SEARCH_BUDGET,
                ..SearchOptions::default()
            },
        );
        let worst: Vec<Option<Time>> = found
            .worst
            .iter()
            .map(|w| w.as_ref().map(|(r, _)| *r))
            .collect();
        out.push(
            worst
                .iter()
                .zip(&a.result.tasks)
                .map(|(w, t)| match (w, t.response.bounded()) {
                    (Some(w), Some(b)) => {
                        let above = *w > b;
                        marks.simulated_above |= above;
                        format!(
                            "{} ({:.0}%){}",
                            rtsync_analysis::result::shown(*w),
                            100.0 * w.ratio(b),
                            if above { " >" } else { "" }
                        )
                    }
                    (Some(w), None) => rtsync_analysis::result::shown(*w),
                    (None, _) => "-".into(),
                })
                .collect(),
        );
    }
    print_columns("simulated worst", sys, protocols, &out);
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
/// threads, as a share of the bound of the system that ran. A value above
/// its bound is set against the noise measured: the worst timer lateness
/// and the time the hypervisor stole from the task's CPU during the run.
fn measured(
    sys: &rtsync_model::System,
    protocols: &[Protocol],
    cols: &[Column],
    run_for: Duration,
    costs: &rtsync_bench::locks::MachineCosts,
    marks: &mut Marks,
) {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut failures = Vec::new();
    let bar = indicatif::ProgressBar::new(cols.len() as u64);
    for (p, c) in protocols.iter().zip(cols) {
        bar.set_message(p.to_string());
        let (Some(a), Some(placed)) = (&c.analysis, &c.runs) else {
            out.push(vec!["-".into(); sys.tasks.len()]);
            bar.inc(1);
            continue;
        };
        let col = match run_placed(placed, run_for, true) {
            Ok((r, stolen)) => r
                .tasks
                .iter()
                .zip(&a.result.tasks)
                .zip(&placed.system.tasks)
                .map(|((m, t), task)| {
                    let Some(measured) = m.max_response else {
                        return "-".into();
                    };
                    let shown = rtsync_report::table::duration(measured);
                    let Some(b) = t.response.bounded() else {
                        return shown;
                    };
                    let w = Time::from_ns(measured.as_nanos().min(u64::MAX as u128) as u64);
                    let share = format!("{shown} ({:.0}%)", 100.0 * w.ratio(b));
                    let (a, mark) = costs.mark(measured, b, stolen.reaching(task.cpu.unwrap_or(0)));
                    match a {
                        Against::Within => {}
                        Against::Noise => marks.measured_noise = true,
                        Against::Above => {
                            marks.measured_above = true;
                            marks.uncounted = marks.uncounted.or(stolen.uncounted());
                        }
                    }
                    format!("{share}{mark}")
                })
                .collect(),
            Err(e) => {
                failures.push(format!("{p}: {e}"));
                vec!["-".into(); sys.tasks.len()]
            }
        };
        out.push(col);
        bar.inc(1);
    }
    bar.finish_and_clear();
    print_columns(
        &format!("measured worst, {run_for:?}"),
        sys,
        protocols,
        &out,
    );
    for f in failures {
        println!("  not run: {f}");
    }
}
