//! What a simulation reports, per task in the same form as the analysis
//! (worst and mean response, worst blocking by kind, misses), so that the
//! two print side by side.

use rtsync_model::Time;
use serde::Serialize;

/// A job's delays by kind, measured. `local`: ready (or waiting for a
/// lock) while a job of lower base priority runs on its CPU; `remote`:
/// waiting for a lock otherwise, or running a section on another CPU;
/// `spin`: busy-waiting on its CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Blocking {
    /// Ready or waiting while lower-priority work runs on its CPU.
    pub local: Time,
    /// Waiting for a lock held elsewhere, or in a section run elsewhere.
    pub remote: Time,
    /// Busy-waiting on its CPU.
    pub spin: Time,
}

impl Blocking {
    /// The worst of each kind of the two (not necessarily one job's).
    pub fn max(self, o: Blocking) -> Blocking {
        Blocking {
            local: self.local.max(o.local),
            remote: self.remote.max(o.remote),
            spin: self.spin.max(o.spin),
        }
    }
}

/// What the simulation measured of one task.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskStats {
    /// The task.
    pub name: String,
    /// Its CPU.
    pub cpu: usize,
    /// Jobs completed.
    pub jobs: u64,
    /// Worst response time of a completed job, from its arrival.
    pub max_response: Option<Time>,
    /// Arrival of the (first) job that took `max_response`.
    pub worst_arrival: Option<Time>,
    /// Mean response of the completed jobs.
    pub mean_response: Option<Time>,
    /// The worst of each kind over the jobs (not necessarily one job's).
    pub max_blocking: Blocking,
    /// Jobs that completed after their deadline, or had not completed when
    /// their deadline passed before the horizon.
    pub misses: u64,
}

/// A task whose arrived, unfinished jobs passed the run's backlog bound:
/// the system is overloaded and the run stopped there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Overload {
    /// When the bound was passed.
    pub at: Time,
    /// The task.
    pub task: String,
    /// Its jobs arrived and unfinished then.
    pub backlog: usize,
}

impl std::fmt::Display for Overload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "overloaded at {}: task {} has {} jobs arrived and not finished; the run stopped there",
            self.at, self.task, self.backlog
        )
    }
}

/// A cycle of waits: each thread waits for a resource the next one holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Deadlock {
    /// When it was found.
    pub at: Time,
    /// `(task, resource it waits for)`, by name.
    pub cycle: Vec<(String, String)>,
}

impl std::fmt::Display for Deadlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "deadlock at {}: ", self.at)?;
        let parts: Vec<String> = self
            .cycle
            .iter()
            .map(|(t, r)| format!("{t} waits for {r}"))
            .collect();
        write!(f, "{}", parts.join(", held by "))?;
        if let Some((first, _)) = self.cycle.first() {
            write!(f, ", held by {first}")?;
        }
        Ok(())
    }
}

/// A broken invariant: a bug in the simulator or in a protocol's rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// When it was found.
    pub at: Time,
    /// What was broken.
    pub what: String,
}

/// What a simulation run found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimResult {
    /// Per task, in the system's order.
    pub tasks: Vec<TaskStats>,
    /// Simulated time reached.
    pub end: Time,
    /// Scheduling events processed (releases, completions, requests,
    /// releases of locks, suspensions, context switches).
    pub events: u64,
    /// The deadlock the run ended in, if it did.
    pub deadlock: Option<Deadlock>,
    /// Broken invariants (none, unless something is wrong).
    pub violations: Vec<Violation>,
    /// Set when a task's backlog passed [`crate::Options::max_backlog`].
    pub overload: Option<Overload>,
}

impl SimResult {
    /// Deadline misses, all tasks together.
    pub fn misses(&self) -> u64 {
        self.tasks.iter().map(|t| t.misses).sum()
    }

    /// Everything this run broke of the design's promise, given each
    /// task's analytic bound: a deadlock, a broken invariant, a missed
    /// deadline, a response above its bound. The one judgement that the
    /// worst-case search, the soundness experiment and `rtsync simulate`
    /// all make.
    pub fn broken(&self, bounds: &[Time]) -> Vec<Broken> {
        let mut out = Vec::new();
        if let Some(d) = &self.deadlock {
            out.push(Broken {
                task: None,
                kind: Kind::Deadlock,
                what: d.to_string(),
            });
        }
        if let Some(o) = &self.overload {
            out.push(Broken {
                task: None,
                kind: Kind::Overload,
                what: o.to_string(),
            });
        }
        for v in &self.violations {
            out.push(Broken {
                task: None,
                kind: Kind::Invariant,
                what: format!("invariant broken at {}: {}", v.at, v.what),
            });
        }
        for (t, st) in self.tasks.iter().enumerate() {
            if st.misses > 0 {
                out.push(Broken {
                    task: Some(t),
                    kind: Kind::Miss,
                    what: format!("task {} missed {} deadline(s)", st.name, st.misses),
                });
            }
            if let (Some(r), Some(&b)) = (st.max_response, bounds.get(t))
                && r > b
            {
                out.push(Broken {
                    task: Some(t),
                    kind: Kind::AboveBound,
                    what: format!("task {} responded in {r}, above its bound {b}", st.name),
                });
            }
        }
        out
    }
}

/// The kinds of broken promise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A job's response above the task's bound.
    AboveBound,
    /// A job finished after its deadline, or had not finished by then.
    Miss,
    /// Jobs waited for each other in a cycle.
    Deadlock,
    /// A task's backlog grew past the run's bound: the system is
    /// overloaded (its misses are counted too).
    Overload,
    /// Mutual exclusion or the priority rule broken (a protocol or kernel
    /// bug, whatever the analysis says).
    Invariant,
    /// The system could not be simulated at all.
    Unsimulable,
}

/// One thing a run broke ([`SimResult::broken`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// The task it concerns, where one does.
    pub task: Option<usize>,
    /// Its kind.
    pub kind: Kind,
    /// In words: task, response and bound; a miss; a deadlock's cycle.
    pub what: String,
}
