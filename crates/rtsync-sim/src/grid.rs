//! Every release offset on a grid: an exhaustive check of the search.
//!
//! The search ([`crate::search`]) builds the schedules that break bounds
//! from what it knows of them (critical instants, convoys, staircases,
//! preempted holders) and climbs from there; what it does not know to
//! build, it finds only by chance. Its strength is measured against
//! itself (`rtsync bench search` plants bounds where a longer search
//! reached), which cannot show a kind of schedule that no step builds.
//!
//! This module is the independent oracle for small systems: every
//! combination of release offsets on a grid, each task's jobs periodic
//! after its first, every job at its worst case. Where every duration and
//! period of the system is a multiple of the grid's step, every event of
//! such a run falls on a grid point (or a few nanoseconds past one), and
//! the `nudges` (offsets of 0, 1, 2, ... ns past a point, `2n - 1` of
//! them for `n` tasks) put releases that meet at one point in every
//! order: a release just before or just after another task's lock or
//! release is one of the schedules enumerated, and so is a chain of them
//! (PIP's transitive blocking needs three releases in order within a
//! nanosecond or two; with three nudges the grid fell 1 ms short of the
//! 8 ms of `pip-transitive-chain.toml`). Task 0 is released at the middle
//! nudge and the others at every offset within their period: the horizon
//! covers one hyperperiod after the last first release, so every phasing
//! of the periodic jobs is run in its steady state (fixing task 0 loses
//! no phasing: moving every offset by one amount moves the steady-state
//! schedule with them).
//!
//! What it does not enumerate, and the search does: sporadic delays
//! between jobs, release jitter and durations below the worst case. On
//! the systems it covers it is complete for the offsets alone, so a
//! schedule it finds and the search misses is a gap in the search, and a
//! response past a bound is a violation that no heuristic chose.

use rtsync_model::{System, Time};
use std::sync::Arc;

use crate::kernel::simulate;
use crate::options::Options;
use crate::plan::Plan;
use crate::result::Kind;

/// The grid and how much of it may be run.
#[derive(Clone, Debug)]
pub struct GridOptions {
    /// The distance between two grid points.
    pub step: Time,
    /// Offsets per grid point: `k · step + j` ns for `j < nudges` (1: the
    /// points alone). `None`: `2n - 1` for `n` tasks, task 0 at `n - 1`,
    /// so that the tasks released at one point can come in every order.
    pub nudges: Option<u32>,
    /// Refuse a system that needs more simulations than this.
    pub max_plans: u64,
}

impl Default for GridOptions {
    fn default() -> GridOptions {
        GridOptions {
            step: Time::from_ms(1),
            nudges: None,
            max_plans: 100_000,
        }
    }
}

/// A broken promise the grid found, with the offsets that show it.
#[derive(Clone, Debug)]
pub struct GridFinding {
    /// The task it concerns, where one does.
    pub task: Option<usize>,
    /// What broke.
    pub kind: Kind,
    /// In words.
    pub what: String,
    /// The offsets that reproduce it (`rtsync simulate --plan`).
    pub plan: Plan,
}

/// What the enumeration found.
#[derive(Clone, Debug, Default)]
pub struct GridOutcome {
    /// Simulations run: every combination of offsets.
    pub plans: u64,
    /// Scheduling events simulated.
    pub events: u64,
    /// Per task, its worst response over every plan and the first plan
    /// that shows it.
    pub worst: Vec<Option<(Time, Plan)>>,
    /// Every promise broken, once per task and kind (the first plan that
    /// breaks it).
    pub findings: Vec<GridFinding>,
    /// How long each plan ran: a worst of `worst` can come from a later
    /// job than a plan's first, and a replay shows it only when run as
    /// long (`rtsync simulate --plan FILE --horizon` this).
    pub horizon: Time,
}

/// Why a system was not enumerated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotEnumerated {
    /// The grid needs more simulations than `max_plans`.
    TooMany(u128),
    /// A period that is not a multiple of the step: offsets on the grid
    /// would not cover its phasings.
    OffGrid(String),
}

impl std::fmt::Display for NotEnumerated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotEnumerated::TooMany(n) => write!(f, "{n} combinations of offsets, above the limit"),
            NotEnumerated::OffGrid(t) => {
                write!(f, "task {t}'s period is not a multiple of the grid's step")
            }
        }
    }
}

/// The nudges per grid point `o` gives `sys`.
fn nudges(sys: &System, o: &GridOptions) -> u64 {
    o.nudges
        .map_or((2 * sys.tasks.len() as u64).saturating_sub(1), u64::from)
        .max(1)
}

/// How many offsets [`choices`] gives task `t`, without listing them.
fn count(sys: &System, t: usize, o: &GridOptions) -> u64 {
    if t == 0 {
        1
    } else {
        sys.tasks[t].period.ns() / o.step.ns() * nudges(sys, o)
    }
}

/// The offsets task `t` takes: task 0 one, in the middle of the nudges
/// (with five, 2 ns, so that two other tasks can be released before it in
/// either order, with it, or after it), every grid point within its
/// period with each nudge for the others.
fn choices(sys: &System, t: usize, o: &GridOptions) -> Vec<Time> {
    let n = nudges(sys, o);
    if t == 0 {
        return vec![Time::from_ns((n - 1) / 2)];
    }
    let points = sys.tasks[t].period.ns() / o.step.ns();
    (0..points)
        .flat_map(|k| (0..n).map(move |j| Time::from_ns(k * o.step.ns() + j)))
        .collect()
}

/// How many simulations the grid needs for `sys`, or why it cannot be
/// enumerated.
pub fn plans_needed(sys: &System, o: &GridOptions) -> Result<u128, NotEnumerated> {
    let mut n: u128 = 1;
    for (t, task) in sys.tasks.iter().enumerate() {
        if task.period.ns() == 0 || !task.period.ns().is_multiple_of(o.step.ns().max(1)) {
            return Err(NotEnumerated::OffGrid(task.name.clone()));
        }
        n = n.saturating_mul(count(sys, t, o) as u128);
    }
    Ok(n)
}

/// The horizon of one run: the last first release, then one hyperperiod
/// (capped at four of the longest periods where the periods share little)
/// and the longest deadline, so that every phasing of the periodic jobs
/// is run once every task has released a job.
fn horizon(sys: &System) -> Time {
    let longest = sys
        .tasks
        .iter()
        .map(|t| t.period)
        .max()
        .unwrap_or(Time::ZERO);
    let cap = longest.checked_mul(4).unwrap_or(Time::MAX);
    let hyper = sys.hyperperiod().filter(|&h| h <= cap).unwrap_or(cap);
    let deadline = sys
        .tasks
        .iter()
        .map(|t| t.deadline)
        .max()
        .unwrap_or(Time::ZERO);
    longest
        .saturating_add(hyper)
        .saturating_add(deadline)
        .saturating_add(Time::from_ns(1))
}

/// Runs every combination of offsets on the grid against `bounds` (one
/// per task, as the search takes them).
pub fn enumerate(
    sys: &System,
    bounds: &[Time],
    o: &GridOptions,
) -> Result<GridOutcome, NotEnumerated> {
    let needed = plans_needed(sys, o)?;
    if needed > o.max_plans as u128 {
        return Err(NotEnumerated::TooMany(needed));
    }
    let offsets: Vec<Vec<Time>> = (0..sys.tasks.len()).map(|t| choices(sys, t, o)).collect();
    let horizon = horizon(sys);
    let mut out = GridOutcome {
        worst: vec![None; sys.tasks.len()],
        horizon,
        ..GridOutcome::default()
    };
    // An odometer over the offsets, task 0 fixed.
    let mut at = vec![0usize; sys.tasks.len()];
    loop {
        let plan = Plan::offsets(at.iter().enumerate().map(|(t, &k)| offsets[t][k]));
        run(sys, bounds, plan, horizon, &mut out);
        let mut t = at.len();
        loop {
            if t == 0 {
                return Ok(out);
            }
            t -= 1;
            at[t] += 1;
            if at[t] < offsets[t].len() {
                break;
            }
            at[t] = 0;
        }
    }
}

fn run(sys: &System, bounds: &[Time], plan: Plan, horizon: Time, out: &mut GridOutcome) {
    let plan = Arc::new(plan);
    let opts = Options {
        horizon,
        plan: Some(plan.clone()),
        ..Options::default()
    };
    out.plans += 1;
    let res = match simulate(sys, &opts) {
        Ok((r, _)) => r,
        Err(e) => {
            note(
                out,
                None,
                Kind::Unsimulable,
                format!("cannot simulate: {e}"),
                &plan,
            );
            return;
        }
    };
    out.events += res.events;
    for b in res.broken(bounds) {
        note(out, b.task, b.kind, b.what, &plan);
    }
    for (t, st) in res.tasks.iter().enumerate() {
        if let Some(r) = st.max_response
            && out.worst[t].as_ref().is_none_or(|(w, _)| r > *w)
        {
            out.worst[t] = Some((r, (*plan).clone()));
        }
    }
}

fn note(out: &mut GridOutcome, task: Option<usize>, kind: Kind, what: String, plan: &Plan) {
    if out
        .findings
        .iter()
        .any(|f| f.task == task && f.kind == kind)
    {
        return;
    }
    out.findings.push(GridFinding {
        task,
        kind,
        what,
        plan: plan.clone(),
    });
}
