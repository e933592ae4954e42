pub mod analyze;
pub mod bench;
pub mod check;
pub mod demo;
pub mod experiment;
pub mod generate;
pub mod merge;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod simulate;
pub mod sweep;

/// Exit codes shared by the commands.
pub const OK: u8 = 0;
pub const NOT_SCHEDULABLE: u8 = 1;
pub const BAD_INPUT: u8 = 2;
/// The machine cannot do what was asked: SCHED_FIFO not permitted, a CPU
/// this process may not use, a system call refused.
pub const ENVIRONMENT: u8 = 3;

/// A progress bar over `len` items named `what`, drawn on a terminal only.
/// A duration option (`--run-for 500ms`, `--step 1ms`): clap parses it
/// with this, so every command refuses a bad one alike (the value, the
/// option, what a duration looks like, exit code 2 as for any bad input)
/// and the commands receive a [`Time`](rtsync_model::Time).
pub fn duration(s: &str) -> Result<rtsync_model::Time, String> {
    rtsync_model::Time::parse(s.trim()).map_err(|e| format!("{e} (a duration: 500us, 2ms, 1.5s)"))
}

/// A duration option that must be above zero (a grid step, how long to
/// run).
pub fn positive_duration(s: &str) -> Result<rtsync_model::Time, String> {
    match duration(s)? {
        t if t.is_zero() => Err("must be above zero, e.g. 1ms".into()),
        t => Ok(t),
    }
}

pub fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what}  {{elapsed}} (eta {{eta}})"
        ))
        .expect("valid template"),
    );
    bar
}

/// Prints diagnostics to stderr and returns the bad-input code.
pub fn bad_input(d: &rtsync_model::Diagnostics) -> u8 {
    eprint!("{d}");
    BAD_INPUT
}

/// Loads `--overheads FILE` when given; on a bad file, prints the
/// diagnostics and returns the bad-input code.
pub fn load_overheads(
    path: Option<&std::path::Path>,
) -> Result<Option<rtsync_analysis::Profile>, u8> {
    path.map(rtsync_analysis::Profile::load)
        .transpose()
        .map_err(|d| bad_input(&d))
}

/// The system a command analyses or simulates, as its arguments name it.
#[derive(clap::Args)]
pub struct Input {
    /// Spec file (TOML), or the name of a bundled example; the bundled
    /// four-CPU example when omitted.
    pub spec: Option<std::path::PathBuf>,
    /// Put every resource under this protocol first.
    #[arg(long, value_parser = check::parse_protocol)]
    pub protocol: Option<rtsync_model::Protocol>,
    /// Overhead profile (TOML) to charge where the analysis charges it:
    /// context switch, release, migration, lock and unlock per protocol,
    /// and a component spec's request costs (its `[component]` table).
    /// `rtsync bench locks` and `rtsync bench components` write one.
    #[arg(long, value_name = "FILE")]
    pub overheads: Option<std::path::PathBuf>,
}

impl Input {
    /// The spec and the profile; on bad input, the diagnostics printed and
    /// the bad-input code.
    pub fn load(&self) -> Result<(crate::spec_arg::Loaded, Option<rtsync_analysis::Profile>), u8> {
        let loaded = crate::spec_arg::load(self.spec.as_deref(), self.protocol)
            .map_err(|d| bad_input(&d))?;
        Ok((loaded, load_overheads(self.overheads.as_deref())?))
    }
}

/// The spec of `input` loaded (its warnings printed) and analysed as the
/// simulator needs it: tasks placed by `heuristic`, overheads charged;
/// with every task's response bound (`Time::MAX` where unbounded). On
/// bad input, the diagnostics printed and the bad-input code.
pub fn load_and_analyse(
    input: &Input,
    heuristic: rtsync_analysis::Heuristic,
    form: rtsync_analysis::BoundForm,
) -> Result<
    (
        crate::spec_arg::Loaded,
        rtsync_analysis::Analysis,
        Vec<rtsync_model::Time>,
    ),
    u8,
> {
    let (loaded, overheads) = input.load()?;
    for d in loaded.diagnostics.iter() {
        eprintln!("{d}");
    }
    let opts = rtsync_analysis::Options {
        overheads,
        heuristic,
        form,
        ..rtsync_analysis::Options::default()
    };
    // The analysis places the tasks and inflates the bodies by the
    // overheads; the simulator runs exactly that system.
    let analysis = rtsync_analysis::analyze(&loaded.system, &opts).map_err(|d| bad_input(&d))?;
    let bounds = search_bounds(&analysis);
    Ok((loaded, analysis, bounds))
}

/// Per task, the bound the worst-case search climbs towards: the
/// analysis's, or [`Time::MAX`](rtsync_model::Time::MAX) where it has none
/// (the search still records the worst it finds there).
pub fn search_bounds(analysis: &rtsync_analysis::Analysis) -> Vec<rtsync_model::Time> {
    (analysis.result.tasks.iter())
        .map(|t| t.response.bounded().unwrap_or(rtsync_model::Time::MAX))
        .collect()
}

/// The task whose worst simulated response came closest to its bound
/// (past it, if any did): the schedule worth showing.
pub fn closest_to_bound(tightness: &[Option<f64>]) -> Option<usize> {
    (0..tightness.len())
        .filter(|&i| tightness[i].is_some())
        .max_by(|&x, &y| {
            tightness[x]
                .unwrap_or(0.0)
                .total_cmp(&tightness[y].unwrap_or(0.0))
        })
}

/// The schedule a search's run shows (`simulate --search`, `report`):
/// the worst found for the task closest to its bound, with that worst
/// response, its plan cut down to the choices the response needs
/// (spending at most `budget` events more). The plan shown is then the
/// schedule's cause, not the climb's path. Where several tasks are as
/// close (often every one at its bound), the first whose worst schedule
/// needed a choice: on the bundled `pip-chained.toml`, `ctrl` blocked
/// by both lower jobs in turn, not `logger`'s synchronous release,
/// which a plain `simulate` shows already. As close means within
/// [`AS_CLOSE`] of the closest's share of its bound: the search builds
/// ties 1 ns apart, so a chain it had to build often ends a nanosecond
/// or two short of a bound that a synchronous release meets exactly
/// (`ctrl`'s 7.5 ms less 2 ns at most seeds).
/// How far short of the closest task's share of its bound another
/// task's worst may be and still count as as close, in time at its
/// bound: a microsecond, the tolerance `experiment exhaustive` gives
/// ties.
const AS_CLOSE: rtsync_model::Time = rtsync_model::Time::from_us(1);

pub fn worst_to_show(
    sys: &rtsync_model::System,
    bounds: &[rtsync_model::Time],
    found: &rtsync_sim::search::Outcome,
    budget: u64,
) -> Option<(usize, rtsync_model::Time, rtsync_sim::shrink::Shrunk)> {
    use rtsync_sim::shrink::{Keep, shrink};
    let tightness = found.tightness(bounds);
    let top = closest_to_bound(&tightness)?;
    let level = tightness[top]?;
    let slack = |k: usize| AS_CLOSE.ns() as f64 / bounds[k].ns().max(1) as f64;
    let i = (0..tightness.len())
        .filter(|&k| tightness[k].is_some_and(|t| t >= level - slack(k) - 1e-9))
        .find(|&k| (found.worst[k].as_ref()).is_some_and(|(_, p)| p.makes_choices()))
        .unwrap_or(top);
    let (r, p) = found.worst[i].as_ref()?;
    Some((
        i,
        *r,
        shrink(sys, bounds, Keep::ResponseAtLeast(i, *r), p, budget),
    ))
}

/// The choices of a shown schedule's plan in words (`Plan::describe`),
/// joined: at most `most` of them and how many more (the terminal), or
/// all (the report page). `None` where the plan makes no choice.
pub fn choices_in_words(
    plan: &rtsync_sim::Plan,
    sys: &rtsync_model::System,
    most: Option<usize>,
) -> Option<String> {
    let words = plan.describe(sys);
    if words.is_empty() {
        return None;
    }
    let shown = most.map_or(words.len(), |m| m.min(words.len()));
    let mut line = words[..shown].join("; ");
    if shown < words.len() {
        line.push_str(&format!(
            "; and {} more (--save-plan writes them all)",
            words.len() - shown
        ));
    }
    Some(line)
}

/// What to tell the user after a search that its budget bought few
/// simulations per task searched for ([`Outcome::thin`]), or `None`.
///
/// [`Outcome::thin`]: rtsync_sim::search::Outcome::thin
pub fn thin_search(found: &rtsync_sim::search::Outcome, budget: u64) -> Option<String> {
    found.thin().then(|| {
        format!(
            "a thin search: {} schedules for {} tasks to search with {} events, under {} \
             each. It finds worse schedules as it is given more: try --search {} \
             (docs/PERFORMANCE.md, \"Search strength\").",
            found.simulations,
            found.targets,
            budget,
            rtsync_sim::search::THIN,
            budget.saturating_mul(10)
        )
    })
}

/// The long help of an `--analysis fixed|classic|lp` option: `head`, then
/// which protocols each form changes.
pub fn forms_help(head: &str) -> String {
    format!(
        "{head}\n\nProtocols with a job-window form (where fixed can answer above classic): {}. \
         Protocols with an LP form: {} (the others keep their classic bounds).",
        rtsync_analysis::blocking::job_window_protocols(),
        lp_protocols()
    )
}

/// The names of the protocols that have an LP form, comma-separated.
pub fn lp_protocols() -> String {
    rtsync_analysis::blocking::lp_protocols()
}

/// Which bounds an experiment compares (the library's choice, as a clap
/// value).
pub use rtsync_analysis::sweep::Forms;
