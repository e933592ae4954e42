//! How a simulation runs: horizon, seed, execution times, arrivals.

use crate::plan::Plan;
use rtsync_model::Time;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// The backlog at which a task is declared overloaded: far beyond what any
/// schedulable system (at most a few jobs pending) accumulates.
pub const DEFAULT_MAX_BACKLOG: usize = 1000;

/// Execution (and self-suspension) times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Exec {
    /// Every segment takes its worst case.
    #[default]
    Wcet,
    /// Each segment takes a seeded uniform draw in `(0, worst case]`.
    Random,
}

impl FromStr for Exec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "wcet" => Ok(Exec::Wcet),
            "random" => Ok(Exec::Random),
            _ => Err(format!(
                "unknown execution mode `{s}`; expected wcet or random"
            )),
        }
    }
}

/// Job arrivals.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Arrivals {
    /// Every task releases its first job at 0, then one per period.
    #[default]
    Periodic,
    /// Inter-arrival times drawn in `[T, (1 + spread) T]`, first arrival
    /// in `[0, T)`.
    Sporadic {
        /// How far beyond the period an inter-arrival may stretch, as a
        /// fraction of it.
        spread: f64,
    },
}

impl FromStr for Arrivals {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "periodic" => Ok(Arrivals::Periodic),
            "sporadic" => Ok(Arrivals::Sporadic { spread: 0.5 }),
            _ => Err(format!(
                "unknown arrival model `{s}`; expected periodic or sporadic"
            )),
        }
    }
}

/// How a simulation runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Simulated time; events after it are not processed.
    pub horizon: Time,
    /// Seed of the random draws (execution times, sporadic arrivals).
    pub seed: u64,
    /// Execution at its worst case, or drawn below it.
    pub exec: Exec,
    /// Periodic or sporadic arrivals.
    pub arrivals: Arrivals,
    /// Record the event trace and the timeline for the Gantt chart.
    pub record: bool,
    /// Check mutual exclusion and the priority rule after every event.
    pub check: bool,
    /// Stop after this many events (a guard for huge horizons).
    pub max_events: u64,
    /// Stop, reporting the system overloaded, once a task has this many
    /// jobs arrived and not finished. Periods of a few nanoseconds once
    /// grew a backlog of 10^8 jobs (2.6 GB) in ten seconds.
    pub max_backlog: usize,
    /// Where the run publishes how far it has simulated (nanoseconds),
    /// every few thousand events, for a caller's progress bar.
    pub progress: Option<Arc<AtomicU64>>,
    /// First arrival of each task, by task index (missing: the task's own
    /// `offset` from the spec, 0 by default). Periodic
    /// arrivals follow at whole periods; conformance scenarios use this to
    /// stage their releases.
    pub offsets: Vec<Time>,
    /// Every arrival, jitter and duration fixed by a plan (the worst-case
    /// search's variables). When set it replaces `offsets`, `arrivals` and
    /// `exec`.
    pub plan: Option<Arc<Plan>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            horizon: Time::from_s(1),
            seed: 1,
            exec: Exec::Wcet,
            arrivals: Arrivals::Periodic,
            record: false,
            check: true,
            max_events: u64::MAX,
            max_backlog: DEFAULT_MAX_BACKLOG,
            progress: None,
            offsets: Vec::new(),
            plan: None,
        }
    }
}
