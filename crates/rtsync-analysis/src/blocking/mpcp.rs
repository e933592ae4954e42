//! The multiprocessor priority ceiling protocol (shared-memory MPCP).
//!
//! Global sections run at a priority above every normal priority (here the
//! base plus the resource's ceiling, the highest priority among its users)
//! and waiters suspend in priority order. Bounds after Rajkumar (1990) in
//! the form of Lakshmanan, de Niz and Rajkumar (RTSS 2009), Eqs. 3-6:
//!
//! * per request on global `q`, the wait `W` is the fixed point of
//!   `W = max_lower L'(q) + Σ_{h ≥ i, h uses q} (⌈W / T_h⌉ + 1) · N_{h,q} · L'_{h,q}`
//!   where `L'` is a section's length plus the sections of strictly higher
//!   global priority that other tasks of its CPU can run inside it (one
//!   each: a task's normal priority is below every global section, so it
//!   cannot issue a second request while the section runs);
//! * remote blocking `Σ_q N_{i,q} · W_{i,q}`;
//! * local blocking: PCP on local resources, once per suspension, plus for
//!   every lower-priority task of the CPU one global section per point at
//!   which the job resumes (release, each global request, each
//!   self-suspension).
//!
//! Remote blocking is a self-suspension. It is not treated as a simple
//! blocking term for other tasks (the unsound part of early MPCP analyses,
//! shown by Chen, Nelissen and Huang et al. 2016/2019); the engine charges
//! it as release jitter `R_h - C_h` to lower-priority tasks (Bletsas et al.
//! 2018) or, whichever is tighter, as execution (suspension-oblivious).

use super::{Demand, ceiling_blocking, times};
use crate::context::Cx;
use rtsync_model::{ResourceId, TaskId, Time};

/// A section of `x` on global `q`, with the higher-ceiling global sections
/// that other tasks on `x`'s CPU can run inside it.
pub fn gcs_response(cx: &Cx, x: TaskId, q: ResourceId) -> Time {
    let mut len = cx.f.cs(x, q);
    let Some(cpu) = cx.cpu(x) else { return len };
    for &y in &cx.f.on_cpu[cpu] {
        if y == x {
            continue;
        }
        let preempt = (0..cx.f.n_resources)
            .filter(|&r| cx.f.global[r] && cx.f.ceiling[r] > cx.f.ceiling[q])
            .map(|r| cx.f.cs(y, r))
            .max()
            .unwrap_or(Time::ZERO);
        len = len.saturating_add(preempt);
    }
    len
}

/// Wait for one request of `i` on global `q` (its own section excluded).
pub fn request_wait(cx: &Cx, i: TaskId, q: ResourceId) -> Time {
    let pi = cx.prio(i);
    let mut low = Time::ZERO;
    let mut high: Vec<(Time, Time)> = Vec::new(); // (period, N * L')
    for &x in &cx.f.users[q] {
        if x == i {
            continue;
        }
        let l = gcs_response(cx, x, q);
        if cx.prio(x) < pi {
            low = low.max(l);
        } else {
            high.push((cx.period[x], times(l, cx.f.requests(x, q) as u64)));
        }
    }
    fixed_point(low, &high, cx.deadline[i])
}

/// `w = base + Σ (⌈w / T⌉ + 1) · c`, iterated from `base`. Once `w` passes
/// `limit` (the task's deadline) the request alone makes the task miss it,
/// and the result is [`Time::MAX`] ("beyond the deadline"), never the
/// partial value of the iteration, which would not be a bound.
pub(crate) fn fixed_point(base: Time, terms: &[(Time, Time)], limit: Time) -> Time {
    let mut w = base;
    loop {
        if w > limit {
            return Time::MAX;
        }
        let mut next = base;
        for &(t, c) in terms {
            next = next.saturating_add(times(c, w.div_ceil(t) + 1));
        }
        if next == w {
            return w;
        }
        w = next;
    }
}

pub fn demand(cx: &Cx, i: TaskId) -> Demand {
    let f = &cx.f;
    let mut remote = Time::ZERO;
    let mut n_global = 0u64;
    for q in 0..f.n_resources {
        let n = f.requests(i, q) as u64;
        if n > 0 && f.global[q] {
            n_global += n;
            remote = remote.saturating_add(times(request_wait(cx, i, q), n));
        }
    }
    let resumptions = n_global + cx.suspensions(i) + 1;
    let mut local = times(
        ceiling_blocking(cx, i, |r| !f.global[r]),
        cx.suspensions(i) + 1,
    );
    for j in cx.lower_local(i) {
        let longest = (0..f.n_resources)
            .filter(|&r| f.global[r])
            .map(|r| f.cs(j, r))
            .max()
            .unwrap_or(Time::ZERO);
        local = local.saturating_add(times(longest, resumptions));
    }
    Demand {
        exec: f.tasks[i].wcet,
        local,
        remote,
        spin: Time::ZERO,
    }
}
