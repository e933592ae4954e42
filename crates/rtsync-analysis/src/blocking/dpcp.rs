//! The distributed priority ceiling protocol.
//!
//! Every section of a resource runs on the resource's synchronization CPU
//! (rtsync runs all DPCP resources there, local or not, so one rule covers
//! both), at a priority above every normal priority, under PCP among the
//! requests that CPU serves; the requesting job suspends meanwhile
//! (Rajkumar, Sha, Lehoczky 1988). Per request on `q` synchronized on `s`,
//! the response `W` (own section included) is the fixed point of
//!
//! `W = L_{i,q} + max_{lower j, r on s, ceil(r) ≥ π_i} L_{j,r}
//!      + Σ_{h ≠ i, π_h ≥ π_i} (⌈W / T_h⌉ + 1) · Σ_{r on s} N_{h,r} · L_{h,r}`
//!
//! (the request-driven bound of Rajkumar 1991, Ch. 5, in the form used by
//! Brandenburg's SchedCAT `dpcp` module without its LP refinements). The
//! `+ 1` counts a job released before the window that is still pending, and
//! holds while every task meets its deadline. The job's own CPU runs only
//! the code outside sections. Tasks hosted on a synchronization CPU suffer
//! the agents' work as interference (see [`super::foreign_load`]).

use super::mpcp::fixed_point;
use super::{Demand, own_sections, sync_cpu, times};
use crate::context::Cx;
use rtsync_model::{ResourceId, TaskId, Time};

/// Response of one request of `i` on `q`, own section included.
pub fn request_response(cx: &Cx, i: TaskId, q: ResourceId) -> Time {
    let f = &cx.f;
    let s = sync_cpu(cx, q);
    let on_s = |r: ResourceId| sync_cpu(cx, r) == s;
    let pi = cx.prio(i);
    let mut low = Time::ZERO;
    let mut high = Vec::new();
    for x in 0..cx.n() {
        if x == i {
            continue;
        }
        if cx.prio(x) < pi {
            for r in (0..f.n_resources).filter(|&r| on_s(r) && f.ceiling[r] >= pi) {
                low = low.max(f.cs(x, r));
            }
        } else {
            let load = (0..f.n_resources)
                .filter(|&r| on_s(r))
                .fold(Time::ZERO, |a, r| {
                    a.saturating_add(times(f.cs(x, r), f.requests(x, r) as u64))
                });
            if !load.is_zero() {
                high.push((cx.period[x], load));
            }
        }
    }
    fixed_point(f.cs(i, q).saturating_add(low), &high, cx.deadline[i])
}

pub fn demand(cx: &Cx, i: TaskId) -> Demand {
    let f = &cx.f;
    let (own, _) = own_sections(cx, i, |_| true);
    let mut remote = Time::ZERO;
    for rq in f.tasks[i].requests.iter().filter(|rq| rq.is_outermost()) {
        remote = remote.saturating_add(request_response(cx, i, rq.resource));
    }
    Demand {
        exec: f.tasks[i].wcet.saturating_sub(own),
        remote,
        ..Demand::default()
    }
}
