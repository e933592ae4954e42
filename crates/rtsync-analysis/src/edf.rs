//! EDF on each CPU, with SRP-style blocking.
//!
//! * The processor-demand criterion with blocking (Baruah, Rosier, Howell
//!   1990 for the demand bound; Baruah 2006 / Spuri 1996 for the blocking
//!   term): for every `L` up to the analysis horizon,
//!   `Σ_i max(0, ⌊(L + J_i - D_i)/T_i⌋ + 1) · C_i + B(L) ≤ L`, where `B(L)`
//!   is the longest section of a job with deadline beyond `L` that can
//!   block a job with deadline within `L`. rtsync bounds `B(L)` by
//!   `max{B_k : D_k ≤ L}`, which contains every such section.
//! * Baker's test (Baker 1991, Theorem 8): with tasks sorted by relative
//!   deadline, `Σ_{i ≤ k} C_i / D_i + B_k / D_k ≤ 1` for every `k`.
//!
//! Spin is execution; remote waiting and self-suspension are counted as
//! execution (suspension-oblivious), the sound choice for EDF as well.
//!
//! **Release jitter.** A job with jitter `J_k` belongs to the busy window
//! of length `L` once `D_k - J_k ≤ L` (it may arrive before the window and
//! be released in it), and both the demand and the blocking term count it
//! from there. The blocking argument of the classic tests assumes that a
//! job released later with the earlier deadline has the higher preemption
//! level; jitter breaks that (a job arriving first, released last, can
//! have the earlier deadline and the lower level), which the papers above
//! do not treat. rtsync's corrected form, derived in
//! docs/ANALYSIS.md ("EDF with release jitter"):
//!
//! * a job blocks `k`'s if its relative deadline exceeds `D_k - J_k` (not
//!   only `D_k`), which [`Context::is_lower`] says for every protocol's
//!   local term;
//! * under SRP's start test ([`Protocol::tests_start`]), a job kept from
//!   starting waits also for every job that started before the window
//!   above the section that holds it back: such a job passed the test
//!   above that section's ceiling, so its level is above `k`'s and its
//!   relative deadline shorter, yet its deadline is after the window:
//!   `D_k - J_k < D_y < D_k`, and its level is above that ceiling. Each
//!   runs at most once, whole ([`EdfTask::q`]). Without jitter the range
//!   is empty.
//!
//! [`Protocol::tests_start`]: rtsync_model::Protocol::tests_start

use crate::blocking::Demand;
use crate::blocking::ceiling_sections;
use crate::context::Context;
use rtsync_model::mix::family;
use rtsync_model::{ResourceId, TaskId, Time};

/// The per-job quantities the EDF tests use.
#[derive(Clone, Copy)]
pub struct EdfTask {
    /// The task.
    pub id: TaskId,
    /// Execution, overheads included.
    pub c: Time,
    /// Relative deadline.
    pub d: Time,
    /// Period.
    pub t: Time,
    /// Release jitter.
    pub j: Time,
    /// Blocking: one section of a job whose deadline is after the window
    /// (per arrival, as the protocol's local term counts it).
    pub b: Time,
    /// Under SRP's start test with release jitter: the execution of the
    /// tasks whose relative deadline lies strictly between `d - j` and
    /// `d`, each of which can run whole while this task's job, released
    /// late, is kept from starting (the module's doc). Zero without
    /// jitter or without a start test on the CPU.
    pub q: Time,
}

/// The tasks on `cpu`, with their blocking from `demands`.
pub fn tasks_on(cx: &Context, demands: &[Demand], cpu: usize) -> Vec<EdfTask> {
    let on = cx.f.on_cpu(cpu);
    let mut ts: Vec<EdfTask> = on
        .iter()
        .map(|&i| EdfTask {
            id: i,
            c: demands[i]
                .cpu_time()
                .saturating_add(demands[i].remote)
                .saturating_add(cx.f.tasks[i].suspension),
            d: cx.deadline[i],
            t: cx.period[i],
            j: cx.jitter[i],
            b: demands[i].local,
            q: Time::ZERO,
        })
        .collect();
    // A job is kept from starting by a resource whose rules (its own
    // protocol's, or the local protocol a multiprocessor one prescribes)
    // test starts, held by a job due after its window (one `is_lower`
    // than it) with a ceiling that reaches its level. The jobs that then
    // run whole passed the start test above such a ceiling: their level
    // is above the lowest of those ceilings. The window's task of longest
    // deadline among those kept back covers every such job (the module's
    // doc), so each task's own range is charged with its own ceiling.
    let tested = |r: ResourceId| family(cx.sys, r, cx.f.global[r]).tests_start();
    for (k, &i) in on.iter().enumerate() {
        let Some(lowest) = ceiling_sections(cx, i, tested)
            .map(|(_, r, _)| cx.local_ceiling(r, cpu))
            .min()
        else {
            continue;
        };
        let (lo, hi) = (ts[k].d.saturating_sub(ts[k].j), ts[k].d);
        ts[k].q = on
            .iter()
            .zip(&ts)
            .filter(|&(&y, x)| lo < x.d && x.d < hi && cx.rank(y) > lowest)
            .fold(Time::ZERO, |a, (_, x)| a.saturating_add(x.c));
    }
    ts
}

/// The outcome of the demand test on one CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DemandOutcome {
    /// Every deadline holds.
    Schedulable,
    /// Demand plus blocking exceeds the interval at this `L`.
    Fails(Time),
    /// Utilization above one.
    Overloaded,
    /// Too many test points to check (the horizon is huge).
    Inconclusive,
}

/// Most points the demand test checks before giving up.
pub const MAX_POINTS: u64 = 2_000_000;

/// The processor-demand criterion with blocking on one CPU (the module's
/// first test: Baruah, Rosier, Howell 1990; the blocking term after
/// Baruah 2006 and Spuri 1996).
pub fn demand_test(ts: &[EdfTask]) -> DemandOutcome {
    if ts.is_empty() {
        return DemandOutcome::Schedulable;
    }
    if ts
        .iter()
        .any(|x| x.c == Time::MAX || x.b == Time::MAX || x.q == Time::MAX)
    {
        return DemandOutcome::Overloaded;
    }
    // Exact utilization comparison in rationals would need big integers;
    // the float sum decides only the horizon, the points decide the verdict.
    let u: f64 = ts.iter().map(|x| x.c.ratio(x.t)).sum();
    if u > 1.0 + 1e-12 {
        return DemandOutcome::Overloaded;
    }
    let dmax = ts.iter().map(|x| x.d).max().unwrap();
    let bmax = ts.iter().map(|x| x.b.saturating_add(x.q)).max().unwrap();
    let horizon = if u < 1.0 - 1e-9 {
        let num: f64 = ts
            .iter()
            .map(|x| {
                (x.t.ns() as f64 - x.d.ns() as f64 + x.j.ns() as f64).max(0.0) * x.c.ratio(x.t)
            })
            .sum::<f64>()
            + bmax.ns() as f64;
        let l = (num / (1.0 - u)).ceil();
        Time::from_ns(if l >= u64::MAX as f64 {
            u64::MAX
        } else {
            l as u64
        })
        .max(dmax)
    } else {
        // Utilization one: the synchronous busy period ends by the
        // hyperperiod plus the largest deadline.
        match hyperperiod(ts) {
            Some(h) => h.saturating_add(dmax),
            None => return DemandOutcome::Inconclusive,
        }
    };
    // Deadline points d = D_i - J_i + k T_i <= horizon.
    let mut points: Vec<Time> = Vec::new();
    for x in ts {
        let first = x.d.saturating_sub(x.j);
        if first > horizon {
            continue;
        }
        let count = (horizon.ns() - first.ns()) / x.t.ns() + 1;
        if points.len() as u64 + count > MAX_POINTS {
            return DemandOutcome::Inconclusive;
        }
        let mut p = first;
        for _ in 0..count {
            points.push(p);
            p = p.saturating_add(x.t);
        }
    }
    points.sort_unstable();
    points.dedup();
    for &l in &points {
        let mut demand = Time::ZERO;
        for x in ts {
            let shifted = l.saturating_add(x.j);
            if shifted >= x.d {
                let jobs = (shifted.ns() - x.d.ns()) / x.t.ns() + 1;
                demand = demand.saturating_add(x.c.checked_mul(jobs).unwrap_or(Time::MAX));
            }
        }
        // The jobs of the window: released in it, so arrived at most
        // their jitter before it.
        let in_window = || ts.iter().filter(|x| x.d.saturating_sub(x.j) <= l);
        let b = in_window().map(|x| x.b).max().unwrap_or(Time::ZERO);
        let q = in_window().map(|x| x.q).max().unwrap_or(Time::ZERO);
        if demand.saturating_add(b).saturating_add(q) > l {
            return DemandOutcome::Fails(l);
        }
    }
    DemandOutcome::Schedulable
}

/// The hyperperiod of `ts`, `None` beyond a quarter of the time range:
/// the demand test enumerates deadline points up to the hyperperiod plus
/// the largest deadline, which must neither overflow nor be hopeless.
fn hyperperiod(ts: &[EdfTask]) -> Option<Time> {
    Time::hyperperiod(ts.iter().map(|x| x.t)).filter(|h| h.ns() <= u64::MAX / 4)
}

/// Baker's density test; returns the first failing task, if any.
pub fn baker_test(ts: &[EdfTask]) -> Result<(), TaskId> {
    // By window (`D - J`): the jobs of a window are those whose window
    // fits in it.
    let mut sorted: Vec<&EdfTask> = ts.iter().collect();
    sorted.sort_by_key(|x| x.d.saturating_sub(x.j));
    let mut density = 0.0;
    for x in sorted {
        let window = x.d.saturating_sub(x.j);
        if window.is_zero() {
            return Err(x.id);
        }
        density += x.c.ratio(window);
        if density + x.b.saturating_add(x.q).ratio(window) > 1.0 + 1e-12 {
            return Err(x.id);
        }
    }
    Ok(())
}
