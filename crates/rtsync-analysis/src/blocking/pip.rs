//! The priority inheritance protocol, with nested (transitive) inheritance.
//!
//! Sha, Rajkumar and Lehoczky (1990), Theorem 6: a job is blocked for at
//! most the duration of `min(n, m)` critical sections, `n` being the number
//! of lower-priority jobs and `m` the number of semaphores that can block
//! it. A section can block job `J_i` when its resource's *effective
//! ceiling* reaches `J_i`'s priority. With nesting, inheritance is
//! transitive: if a task locks `r` while holding `o`, a holder of `r` can
//! inherit any priority that `o` can pass on, so the effective ceiling of
//! `r` includes that of `o` (the closure over nesting edges). Without that
//! closure the classic bound misses transitive blocking.
//!
//! The bound is `min(Σ_jobs, Σ_semaphores)` where the first sum takes, per
//! lower job, its longest blocking section, and the second, per semaphore,
//! its longest section among lower jobs.
//!
//! Suspensions: the theorem counts the sections that can be in progress
//! when the job starts; each self-suspension lets lower jobs enter new
//! ones, so the whole term is charged `S_i + 1` times. Waiting for a PIP
//! resource is blocking by its holder, already in the term, not a
//! suspension that lets others in (the holder runs at the job's priority).
//! Checked by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol`.

use super::{Demand, times};
use crate::context::Context;
use rtsync_model::{TaskId, Time};

/// Effective ceilings on `cpu`: the local ceiling closed over nesting edges.
pub fn effective_ceilings(cx: &Context, cpu: usize) -> Vec<u32> {
    let mut c: Vec<u32> = (0..cx.f.n_resources)
        .map(|r| cx.local_ceiling(r, cpu))
        .collect();
    loop {
        let mut changed = false;
        for &(outer, inner, t) in &cx.f.nesting {
            if cx.cpu(t) == Some(cpu) && c[outer] > c[inner] {
                c[inner] = c[outer];
                changed = true;
            }
        }
        if !changed {
            return c;
        }
    }
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    let exec = cx.f.tasks[i].wcet;
    let Some(cpu) = cx.cpu(i) else {
        return Demand {
            exec,
            ..Demand::default()
        };
    };
    let ceil = effective_ceilings(cx, cpu);
    let rank = cx.rank(i);
    let mut by_job = Time::ZERO;
    let mut by_res = vec![Time::ZERO; cx.f.n_resources];
    for j in cx.lower_local(i) {
        let mut longest = Time::ZERO;
        for rq in cx.f.sections(j) {
            if ceil[rq.resource] >= rank {
                longest = longest.max(rq.length);
                by_res[rq.resource] = by_res[rq.resource].max(rq.length);
            }
        }
        by_job = by_job.saturating_add(longest);
    }
    let by_res = by_res.into_iter().fold(Time::ZERO, Time::saturating_add);
    Demand {
        exec,
        local: times(by_job.min(by_res), cx.suspensions(i) + 1),
        ..Demand::default()
    }
}
