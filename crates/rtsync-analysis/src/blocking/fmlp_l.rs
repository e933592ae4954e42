//! FMLP for long resources, in its FMLP+ form (Brandenburg 2011, Ch. 6):
//! FIFO queues per resource group, waiters suspend, a holder is priority
//! boosted, and the boosted jobs of a CPU run in the order in which they
//! issued their requests.
//!
//! With that order, everything that can delay a request of `J_i` was issued
//! before it, and each task has at most one request outstanding, so a
//! request is delayed by at most one section of each other task that either
//! uses the same group (queued ahead) or runs on a CPU hosting a user of the
//! group or `J_i`'s own CPU (boosted ahead of a holder, or of `J_i` once it
//! holds): `W_{i,g} = Σ_{x ∈ X} max L_x`. This is coarser than the
//! per-request bounds of Brandenburg's thesis (Lemma 6.x), and sound for
//! the issue-time boosting order this project's protocol core implements.
//!
//! Local blocking: at release and after each suspension (each request,
//! each self-suspension) every lower-priority job of the CPU may have one
//! boosted section in progress.
//!
//! Suspensions: waiting for a long resource suspends the job, and so does a
//! self-suspension; after each, every lower-priority job of the CPU may be
//! inside a boosted section, hence the `N_i + S_i + 1` resumptions. Checked
//! by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol` and the
//! searched soundness experiment.

use super::{Demand, times};
use crate::context::Context;
use rtsync_model::{TaskId, Time};

/// The longest a request of task `i` for group `g` waits in its FIFO
/// queue.
pub fn request_wait(cx: &Context, i: TaskId, g: usize) -> Time {
    ahead(cx, i, g, |x| cx.f.longest_outer_cs(x))
}

/// `Σ cost(x)` over the tasks `x ≠ i` that can delay a request of `i`
/// for group `g`: users of the group (queued ahead), and tasks of a CPU
/// hosting a user or `i` itself (boosted ahead of a holder). The mixed
/// FMLP bound ([`super::fmlp`]) charges each its own cost.
pub(crate) fn ahead(cx: &Context, i: TaskId, g: usize, cost: impl Fn(TaskId) -> Time) -> Time {
    let f = &cx.f;
    let mut cpus = vec![false; f.cpus];
    if let Some(c) = cx.cpu(i) {
        cpus[c] = true;
    }
    let in_group = |x: TaskId| f.sections(x).iter().any(|rq| f.group[rq.resource] == g);
    for x in 0..cx.n() {
        if in_group(x)
            && let Some(c) = cx.cpu(x)
        {
            cpus[c] = true;
        }
    }
    let mut w = Time::ZERO;
    for x in (0..cx.n()).filter(|&x| x != i) {
        if in_group(x) || cx.cpu(x).is_some_and(|c| cpus[c]) {
            w = w.saturating_add(cost(x));
        }
    }
    w
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    let f = &cx.f;
    let mut remote = Time::ZERO;
    let mut n_req = 0u64;
    for rq in f.sections(i).iter().filter(|rq| rq.is_outermost()) {
        n_req += 1;
        remote = remote.saturating_add(request_wait(cx, i, f.group[rq.resource]));
    }
    let resumptions = n_req + cx.suspensions(i) + 1;
    let local = cx.lower_local(i).fold(Time::ZERO, |a, j| {
        a.saturating_add(times(cx.f.longest_outer_cs(j), resumptions))
    });
    Demand {
        exec: f.tasks[i].wcet,
        remote,
        local,
        spin: Time::ZERO,
    }
}
