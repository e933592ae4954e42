//! The multiprocessor stack resource policy (Gai, Lipari, Di Natale 2001).
//!
//! Local resources follow SRP. A global resource is requested
//! non-preemptively and its waiters spin in FIFO order, so each other CPU
//! has at most one request ahead: the spin per request on global `q` is
//! `s_q = Σ_{k ≠ P_i} max_{x on k} L_{x,q}` (Gai et al. 2001, Sec. 4),
//! charged as execution. The blocking of a job (once, plus once per
//! self-suspension) is the larger of its SRP blocking on local resources
//! and the longest non-preemptive spin-plus-section `s_q + L_{j,q}` of a
//! lower-precedence job of its CPU.
//!
//! Suspensions: a spinning waiter keeps its CPU non-preemptively, so
//! waiting for a global resource lets no lower job in; each
//! self-suspension does (and the job passes SRP's start test again): the
//! local term is charged `S_i + 1` times. Checked by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol`.

use super::{Demand, ceiling_blocking, times};
use crate::context::Context;
use rtsync_model::{ResourceId, TaskId, Time};

/// Spin of one request of `x` on global `q`.
pub fn spin(cx: &Context, x: TaskId, q: ResourceId) -> Time {
    let mut s = Time::ZERO;
    for cpu in 0..cx.f.cpus {
        if Some(cpu) != cx.cpu(x) {
            let longest =
                cx.f.on_cpu(cpu)
                    .iter()
                    .map(|&y| cx.f.cs(y, q))
                    .max()
                    .unwrap_or(Time::ZERO);
            s = s.saturating_add(longest);
        }
    }
    s
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    let f = &cx.f;
    let mut total_spin = Time::ZERO;
    for q in (0..f.n_resources).filter(|&q| f.global[q]) {
        let n = f.requests(i, q) as u64;
        if n > 0 {
            total_spin = total_spin.saturating_add(times(spin(cx, i, q), n));
        }
    }
    let mut b = ceiling_blocking(cx, i, |r| !f.global[r]);
    for j in cx.lower_local(i) {
        for rq in f.sections(j).iter().filter(|rq| f.global[rq.resource]) {
            b = b.max(spin(cx, j, rq.resource).saturating_add(rq.length));
        }
    }
    Demand {
        exec: f.tasks[i].wcet,
        spin: total_spin,
        local: times(b, cx.suspensions(i) + 1),
        remote: Time::ZERO,
    }
}
