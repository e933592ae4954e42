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
    pub local: Time,
    pub remote: Time,
    pub spin: Time,
}

impl Blocking {
    pub fn max(self, o: Blocking) -> Blocking {
        Blocking {
            local: self.local.max(o.local),
            remote: self.remote.max(o.remote),
            spin: self.spin.max(o.spin),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskStats {
    pub name: String,
    pub cpu: usize,
    /// Jobs completed.
    pub jobs: u64,
    /// Worst response time of a completed job, from its arrival.
    pub max_response: Option<Time>,
    /// Arrival of the (first) job that took `max_response`.
    pub worst_arrival: Option<Time>,
    pub mean_response: Option<Time>,
    /// The worst of each kind over the jobs (not necessarily one job's).
    pub max_blocking: Blocking,
    /// Jobs that completed after their deadline, or had not completed when
    /// their deadline passed before the horizon.
    pub misses: u64,
}

/// A cycle of waits: each thread waits for a resource the next one holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Deadlock {
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
    pub at: Time,
    pub what: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimResult {
    pub tasks: Vec<TaskStats>,
    /// Simulated time reached.
    pub end: Time,
    /// Scheduling events processed (releases, completions, requests,
    /// releases of locks, suspensions, context switches).
    pub events: u64,
    pub deadlock: Option<Deadlock>,
    pub violations: Vec<Violation>,
}

impl SimResult {
    pub fn misses(&self) -> u64 {
        self.tasks.iter().map(|t| t.misses).sum()
    }
}
