//! Blocking bounds, one module per protocol, each citing the paper and
//! equation it implements.
//!
//! Every protocol maps a task to a [`Demand`]: how long the job executes on
//! its own CPU, how long it may spin there, how long lower-priority work may
//! block it there, and how long it may be suspended waiting for resources
//! held on (or sections run on) other CPUs. The fixed-point engine in
//! [`crate::fp`] combines demands into response times.
//!
//! Conventions shared by all modules: a job's own critical sections are part
//! of its execution unless the protocol runs them elsewhere (DPCP, DFLP);
//! each self-suspension gives lower-priority work a fresh chance to block
//! (the job is, for blocking purposes, a new job when it resumes), which is
//! why local terms are multiplied by `suspensions + 1`. All arithmetic
//! saturates at [`Time::MAX`], which the engine reports as unbounded.

pub mod dflp;
pub mod dpcp;
pub mod fmlp_l;
pub mod fmlp_s;
pub mod mpcp;
pub mod mrsp;
pub mod msrp;
pub mod npcs;
pub mod pcp;
pub mod pip;
pub mod srp;

use crate::context::Cx;
use rtsync_model::{Cpu, Protocol, ResourceId, TaskId, Time};

/// What a job of one task asks of the platform.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Demand {
    /// Execution on the task's own CPU.
    pub exec: Time,
    /// Busy-waiting on its own CPU (preemptable or not, as the protocol says).
    pub spin: Time,
    /// Blocking by lower-priority work on its own CPU.
    pub local: Time,
    /// Suspension waiting for remote holders or remote execution.
    pub remote: Time,
}

impl Demand {
    /// Execution charged as interference to lower-priority tasks.
    pub fn cpu_time(&self) -> Time {
        self.exec.saturating_add(self.spin)
    }
    /// Whether the job can suspend (through `remote`); self-suspension is
    /// added by the engine.
    pub fn suspends(&self) -> bool {
        !self.remote.is_zero()
    }
}

/// The demands of all tasks under the system's protocol. MPCP and DPCP
/// build their per-system tables once here. None of the bounds needs other
/// tasks' response times: those enter through release jitter and agent
/// load, which the engine iterates.
pub fn demands(cx: &Cx) -> Vec<Demand> {
    let n = cx.n();
    let Some(p) = cx.protocol else {
        return (0..n)
            .map(|i| Demand {
                exec: cx.f.tasks[i].wcet,
                ..Demand::default()
            })
            .collect();
    };
    match p {
        Protocol::Mpcp => {
            let tb = mpcp::Tables::new(cx);
            (0..n).map(|i| mpcp::demand(cx, &tb, i)).collect()
        }
        Protocol::Dpcp => {
            let tb = dpcp::Tables::new(cx);
            (0..n).map(|i| dpcp::demand(cx, &tb, i)).collect()
        }
        _ => {
            let one: fn(&Cx, TaskId) -> Demand = match p {
                Protocol::Npcs => npcs::demand,
                Protocol::Pip => pip::demand,
                Protocol::Pcp | Protocol::Ipcp => pcp::demand,
                Protocol::Srp => srp::demand,
                Protocol::FmlpS => fmlp_s::demand,
                Protocol::FmlpL => fmlp_l::demand,
                Protocol::Dflp => dflp::demand,
                Protocol::Msrp => msrp::demand,
                Protocol::Mrsp => mrsp::demand,
                Protocol::Mpcp | Protocol::Dpcp => unreachable!("handled above"),
            };
            (0..n).map(|i| one(cx, i)).collect()
        }
    }
}

/// Execution that the protocol places on `cpu` on behalf of tasks of other
/// CPUs (agents on a synchronization CPU): `(task, per-job time)`. Tasks
/// hosted on `cpu` suffer it as interference above every normal priority.
pub fn foreign_load(cx: &Cx, cpu: Cpu) -> Vec<(TaskId, Time)> {
    match cx.protocol {
        Some(Protocol::Dpcp) | Some(Protocol::Dflp) => sync_cpu_load(cx, cpu),
        _ => Vec::new(),
    }
}

/// Per task, the total length of its sections whose resource is
/// synchronized on `cpu`.
pub(crate) fn sync_cpu_load(cx: &Cx, cpu: Cpu) -> Vec<(TaskId, Time)> {
    let mut out = Vec::new();
    for t in 0..cx.n() {
        let load = Time::checked_sum(
            cx.f.tasks[t]
                .requests
                .iter()
                .filter(|rq| rq.is_outermost() && sync_cpu(cx, rq.resource) == Some(cpu))
                .map(|rq| rq.length),
        )
        .unwrap_or(Time::MAX);
        if !load.is_zero() {
            out.push((t, load));
        }
    }
    out
}

pub(crate) fn sync_cpu(cx: &Cx, r: ResourceId) -> Option<Cpu> {
    cx.sys.resources[r].sync_cpu
}

/// `a * k`, saturating.
pub(crate) fn times(a: Time, k: u64) -> Time {
    a.checked_mul(k).unwrap_or(Time::MAX)
}

/// The classic ceiling-blocking term shared by PCP, IPCP and SRP, and used
/// for local resources by MPCP and MSRP: the longest section (at any nesting
/// level, so that a section containing nested ones counts whole) of a
/// lower-precedence task on the same CPU, on a resource whose local ceiling
/// reaches the task's rank. Only resources accepted by `filter` count.
pub(crate) fn ceiling_blocking(cx: &Cx, i: TaskId, filter: impl Fn(ResourceId) -> bool) -> Time {
    let Some(cpu) = cx.cpu(i) else {
        return Time::ZERO;
    };
    let rank = cx.rank(i);
    let mut b = Time::ZERO;
    for j in cx.lower_local(i) {
        for rq in &cx.f.tasks[j].requests {
            let r = rq.resource;
            if rq.length > b && filter(r) && cx.local_ceiling(r, cpu) >= rank {
                b = rq.length;
            }
        }
    }
    b
}

/// Total length of the outermost sections of `i`.
pub(crate) fn own_sections(cx: &Cx, i: TaskId) -> Time {
    cx.f.tasks[i]
        .requests
        .iter()
        .filter(|rq| rq.is_outermost())
        .fold(Time::ZERO, |a, rq| a.saturating_add(rq.length))
}
