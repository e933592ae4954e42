//! The distributed FIFO locking protocol (Brandenburg 2013).
//!
//! Like DPCP, sections run on the resource's synchronization CPU while the
//! requester suspends; unlike DPCP, requests are served in FIFO order, and
//! the synchronization CPU runs the pending sections in the order their
//! requests were issued (FIFO-ordered priority boosting). Each task has at
//! most one request outstanding, so a request is delayed by at most one
//! section of each other task that uses a resource synchronized on the same
//! CPU, whatever the priorities (Brandenburg 2013, Lemma 1 and Sec. 4):
//!
//! `W_{i,q} = L_{i,q} + Σ_{x ≠ i} max_{r on s(q)} L_{x,r}`.
//!
//! Suspensions: every section runs on a synchronization CPU, so no lower
//! job of the requester's CPU holds anything there that the job needs
//! after it resumes: there is no local blocking to re-open. The agents'
//! work on a CPU that also hosts tasks is charged as interference by the
//! response-time analysis ([`super::foreign_loads`]). Checked by the
//! simulator's `distributed_protocols_have_no_local_blocking_to_reopen`.

use super::{Demand, own_sections, sync_cpu};
use crate::context::Context;
use rtsync_model::{ResourceId, TaskId, Time};

/// The longest a request of task `i` for `q` takes from issue to the end
/// of its section on the synchronization CPU.
pub fn request_response(cx: &Context, i: TaskId, q: ResourceId) -> Time {
    let f = &cx.f;
    let s = sync_cpu(cx, q);
    let mut w = f.cs(i, q);
    for x in (0..cx.n()).filter(|&x| x != i) {
        let longest = (0..f.n_resources)
            .filter(|&r| sync_cpu(cx, r) == s)
            .map(|r| f.cs(x, r))
            .max()
            .unwrap_or(Time::ZERO);
        w = w.saturating_add(longest);
    }
    w
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    let f = &cx.f;
    let own = own_sections(cx, i);
    let mut remote = Time::ZERO;
    for rq in f.sections(i).iter().filter(|rq| rq.is_outermost()) {
        remote = remote.saturating_add(request_response(cx, i, rq.resource));
    }
    Demand {
        exec: f.tasks[i].wcet.saturating_sub(own),
        remote,
        ..Demand::default()
    }
}
