//! FMLP for short resources: FIFO spin locks, non-preemptive spinning and
//! execution (Block, Leontyev, Brandenburg, Anderson 2007).
//!
//! Nested resources are locked as one group (the FMLP's group locks): the
//! groups are the nesting-connected components ([`rtsync_model::Facts::group`]).
//! A spinning job is non-preemptive, so each other CPU has at most one
//! request ahead in a group's FIFO queue: the spin per request is
//! `Σ_{k ≠ P_i} max_{x on k} L_{x,g}` (Block et al. 2007, Sec. 3; Gai et
//! al. 2001 for the same FIFO argument). Spinning is charged as execution.
//! A job can be blocked on arrival (and after each self-suspension) by one
//! non-preemptive spin-plus-section of a lower-priority job of its CPU.
//!
//! Suspensions: spinning is not suspension (the job keeps its CPU,
//! non-preemptively), so only self-suspensions let lower jobs start new
//! non-preemptive sections: the local term is charged `S_i + 1` times.
//! Checked by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol`.

use super::lp::spin::Keys;
use super::{Demand, times};
use crate::context::Context;
use rtsync_model::{TaskId, Time};

/// Longest outermost section of `x` on any resource of group `g`.
pub fn group_cs(cx: &Context, x: TaskId, g: usize) -> Time {
    cx.f.sections(x)
        .iter()
        .filter(|rq| rq.is_outermost() && cx.f.group[rq.resource] == g)
        .map(|rq| rq.length)
        .max()
        .unwrap_or(Time::ZERO)
}

/// Spin of one request of `x` on group `g`: one section per other CPU.
pub fn group_spin(cx: &Context, x: TaskId, g: usize) -> Time {
    let mut spin = Time::ZERO;
    for cpu in 0..cx.f.cpus {
        if Some(cpu) == cx.cpu(x) {
            continue;
        }
        let longest =
            cx.f.on_cpu(cpu)
                .iter()
                .map(|&y| group_cs(cx, y, g))
                .max()
                .unwrap_or(Time::ZERO);
        spin = spin.saturating_add(longest);
    }
    spin
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    let f = &cx.f;
    let spin = f
        .sections(i)
        .iter()
        .filter(|rq| rq.is_outermost())
        .fold(Time::ZERO, |a, rq| {
            a.saturating_add(group_spin(cx, i, f.group[rq.resource]))
        });
    let mut np = Time::ZERO;
    for j in cx.lower_local(i) {
        for rq in f.sections(j).iter().filter(|rq| rq.is_outermost()) {
            np = np.max(group_spin(cx, j, f.group[rq.resource]).saturating_add(rq.length));
        }
    }
    Demand {
        exec: f.tasks[i].wcet,
        spin,
        local: times(np, cx.suspensions(i) + 1),
        remote: Time::ZERO,
        joint: None,
    }
}

/// Task `i`'s demand refined at the response-time estimates `resp`: with
/// `--analysis lp`, the joint bound of Wieder and Brandenburg's program
/// over the groups ([`super::lp::spin`]) on the spin and arrival blocking
/// in the job's busy window, which the engine charges in place of `spin +
/// local` and of the spin of the jobs above; `fixed` where the program does
/// not apply (a job that self-suspends). The keys are built with the LP
/// form alone ([`super::DemandTable`]).
pub fn window_demand(cx: &Context, keys: &Keys, i: TaskId, fixed: Demand, resp: &[Time]) -> Demand {
    Demand {
        joint: super::lp::spin::bound(cx, keys, i, resp, Time::ZERO),
        ..fixed
    }
}
