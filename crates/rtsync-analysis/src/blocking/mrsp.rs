//! The multiprocessor resource sharing protocol (Burns and Wellings 2013).
//!
//! A job raises its priority to the resource's *local* ceiling (the highest
//! priority among the resource's users on its CPU), spins there in FIFO
//! order, and a preempted holder is helped by a spinning waiter (it
//! migrates to the waiter's CPU). Helping makes each access cost at most
//! `e_q = |G(q)| · c_q`, `|G(q)|` being the number of CPUs with users of `q`
//! and `c_q` the longest section on `q` (Burns and Wellings 2013, Sec. 4,
//! the access-cost equation). The response-time equation charges `e_q`
//! per access as execution (the part beyond the job's own section is
//! spin), and blocking of at most one access, `max e_r` over resources used
//! by lower-priority local tasks with a local ceiling at or above the job's
//! priority (their Eq. for `B_i`). For local resources `e_r = c_r`.
//!
//! Suspensions: a waiter spins at the local ceiling and keeps its CPU, so
//! waiting lets no lower job of its CPU lock anything; each self-suspension
//! does: the blocking term is charged `S_i + 1` times. (A job that resumes
//! joins the tail of its priority level, so it never preempts a holder
//! raised to that level; the simulator first let it, and the soundness
//! search found the job spinning on its own holder's CPU forever.)
//! Checked by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol`.

use super::{Demand, ceiling_sections, times};
use crate::context::Context;
use rtsync_model::{ResourceId, TaskId, Time};

/// Worst cost of one access to `q`.
pub fn access_cost(cx: &Context, q: ResourceId) -> Time {
    let f = &cx.f;
    let longest = f
        .users(q)
        .iter()
        .map(|&x| f.cs(x, q))
        .max()
        .unwrap_or(Time::ZERO);
    let mut cpus: Vec<usize> = f.users(q).iter().filter_map(|&x| f.cpu_of[x]).collect();
    cpus.sort_unstable();
    cpus.dedup();
    times(longest, cpus.len().max(1) as u64)
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    let f = &cx.f;
    let mut spin = Time::ZERO;
    for rq in f
        .sections(i)
        .iter()
        .filter(|rq| rq.is_outermost() && f.global[rq.resource])
    {
        spin = spin.saturating_add(access_cost(cx, rq.resource).saturating_sub(rq.length));
    }
    // Arrival blocking: one lower section whose ceiling reaches `i`, a
    // global one at its whole access cost (spin included).
    let b = ceiling_sections(cx, i, |_| true)
        .map(|(_, rq)| {
            if f.global[rq.resource] {
                access_cost(cx, rq.resource)
            } else {
                rq.length
            }
        })
        .max()
        .unwrap_or(Time::ZERO);
    Demand {
        exec: f.tasks[i].wcet,
        spin,
        local: times(b, cx.suspensions(i) + 1),
        remote: Time::ZERO,
        joint: None,
    }
}
