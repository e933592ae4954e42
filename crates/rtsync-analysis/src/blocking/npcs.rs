//! Non-preemptive critical sections.
//!
//! Every section runs with preemption disabled, so a job can be blocked by
//! one section of any lower-priority job on its CPU, whether or not it
//! shares a resource with it (Mok 1983; Buttazzo, *Hard Real-Time Computing
//! Systems*, Sec. 7.4; paper 001 Eq. 6 with `p_min(c) < p_i` and no upper
//! limit). Each self-suspension opens one more such window.
//!
//! Suspensions: each resumption finds at most one lower non-preemptive
//! section in progress (self-suspension is the only suspension under
//! NPCS), so `S_i + 1` sections. Checked by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol`.

use super::{Demand, times};
use crate::context::Context;
use rtsync_model::{TaskId, Time};

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    let b = cx
        .lower_local(i)
        .map(|j| cx.f.longest_outer_cs(j))
        .max()
        .unwrap_or(Time::ZERO);
    Demand {
        exec: cx.f.tasks[i].wcet,
        local: times(b, cx.suspensions(i) + 1),
        ..Demand::default()
    }
}
