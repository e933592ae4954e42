//! EDF on each CPU, with SRP-style blocking.
//!
//! * The processor-demand criterion with blocking (Baruah, Rosier, Howell
//!   1990 for the demand bound; Baruah 2006 / Spuri 1996 for the blocking
//!   term): for every `L` up to the analysis horizon,
//!   `Σ_i max(0, ⌊(L + J_i - D_i)/T_i⌋ + 1) · C_i + B(L) ≤ L`, where `B(L)`
//!   is the longest section of a job with deadline beyond `L` that can
//!   block a job with deadline within `L`: each protocol's local term of
//!   the window's tasks, counting only tasks with relative deadlines above
//!   `L` (Baruah 2006; [`Context::with_window`], for up to
//!   [`WINDOWED_MAX`] tasks a CPU), else `max{B_k : D_k - J_k ≤ L}`, which
//!   contains every such section (the form before 2026-11-27).
//! * Baker's test (Baker 1991, Theorem 8): with tasks sorted by relative
//!   deadline, `Σ_{i ≤ k} C_i / D_i + B_k / D_k ≤ 1` for every `k`.
//!
//! Spin is execution; remote waiting and self-suspension are counted as
//! execution (suspension-oblivious), the sound choice for EDF as well.
//!
//! **Self-suspension reopens blocking for the whole window** (corrected
//! 2026-11-27). A job due after the window can start whenever every
//! pending job of the window is suspended, and what it then runs
//! (a section, a non-preemptive spin) blocks whichever window job is
//! ready next: the one that resumes, or one released meanwhile. rtsync
//! charged `max_k (S_k + 1)·B_k`, one task's arrivals and lower jobs
//! only, which two mistakes break:
//!
//! * the window is blocked once at its start and once per *resumption of
//!   any of its jobs* (tests/data/edf-suspensions.toml: two suspending
//!   tasks, three sections);
//! * at a resumption the job met can be of *any* other task, whatever its
//!   relative deadline: it arrived less than that before the window ends
//!   (tests/data/edf-suspension-late.toml: a task of shorter deadline
//!   holds its section across the resumption). [`EdfTask::late`] reads
//!   each protocol's local term through [`Context::with_late_jobs`].
//!
//! With `n_k(L)` the window's jobs of `k`, the blocking term is
//! `B(L) = min(β + Σ_k n_k(L)·S_k·λ, Σ_y hold_y)`: `β` the blocking at
//! the window's start (the `B(L)` above: [`EdfTask::first_w`] and
//! [`EdfTask::first_d`] at the steps), `λ` the largest
//! [`EdfTask::late`] of the window's tasks, and the cap what one job of
//! every task of the CPU can hold a window job back for
//! ([`EdfTask::hold`]). Blocking is the running of jobs due after the
//! window while a window job is ready, and each task has at most one such
//! job (it arrived within its relative deadline, at most a period, of
//! the window's end). Without self-suspension the first term is the
//! classic one, and the cap only trims it.
//! Baker's test takes the same count through `n_k(L) ≤ L / (D_k - J_k)`
//! (docs/ANALYSIS.md, "EDF with self-suspension").
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

use crate::blocking::ceiling_sections;
use crate::blocking::{Demand, DemandTable, own_sections};
use crate::context::Context;
use rtsync_model::mix::family;
use rtsync_model::{ResourceId, TaskId, Time};

/// The per-job quantities the EDF tests use.
#[derive(Clone, Copy)]
pub struct EdfTask {
    /// The task.
    pub id: TaskId,
    /// Execution, overheads included (with suspension and remote waiting,
    /// suspension-oblivious).
    pub c: Time,
    /// The most one job of the task can hold a job of another task back
    /// when its own deadline is after the window: its running (execution
    /// and spin) where its level can pass a start test above a held
    /// section and it then runs whole; otherwise its sections, its spin
    /// and its overheads, the only code no window job preempts.
    pub hold: Time,
    /// Relative deadline.
    pub d: Time,
    /// Period.
    pub t: Time,
    /// Release jitter.
    pub j: Time,
    /// Blocking: one section of a job whose deadline is after the window,
    /// per arrival (the release or one resumption).
    pub b: Time,
    /// Self-suspensions per job: each resumption lets a section of a job
    /// due after the window begin again (the module's doc).
    pub s: u64,
    /// Under SRP's start test with release jitter: the execution of the
    /// tasks whose relative deadline lies strictly between `d - j` and
    /// `d`, each of which can run whole while this task's job, released
    /// late, is kept from starting (the module's doc). Zero without
    /// jitter or without a start test on the CPU.
    pub q: Time,
    /// The blocking at the start of a window of length `D - J` (the first
    /// that holds this task's jobs): the largest per-arrival local term
    /// and the largest `Q` of its tasks, counting only jobs due after it
    /// (relative deadlines above `D - J`, [`Context::with_window`]).
    pub first_w: Time,
    /// The same for a window of length `D`.
    pub first_d: Time,
    /// At a resumption of a window job: one section (or non-preemptive
    /// spin) of *any* other task's job due after the window, plus the
    /// jobs that run whole above it ([`Context::with_late_jobs`]); zero
    /// where no job of the CPU self-suspends.
    pub late: Time,
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
            hold: demands[i].cpu_time(),
            b: per_arrival(demands[i].local, cx.suspensions(i)),
            s: cx.suspensions(i),
            q: Time::ZERO,
            late: Time::ZERO,
            first_w: Time::ZERO,
            first_d: Time::ZERO,
        })
        .collect();
    for k in 0..on.len() {
        let lo = ts[k].d.saturating_sub(ts[k].j);
        ts[k].q = whole_runs(cx, on, &ts, k, lo);
    }
    // A job passes a start test above a held section only with a level
    // above that section's ceiling, at its lowest while the section holds
    // its units (a multi-unit resource's ceiling falls as units are left
    // free).
    let lowest = on
        .iter()
        .flat_map(|&i| cx.f.sections(i))
        .filter(|rq| tests_start(cx, rq.resource))
        .map(|rq| cx.held_ceiling(rq.resource, cpu, rq.units))
        .min();
    for (x, &i) in ts.iter_mut().zip(on) {
        if lowest.is_none_or(|c| cx.rank(i) <= c) {
            let d = &demands[i];
            let overhead = d.exec.saturating_sub(cx.f.tasks[i].wcet);
            let held = own_sections(cx, i)
                .saturating_add(d.spin)
                .saturating_add(overhead);
            x.hold = x.hold.min(held);
        }
    }
    first_terms(cx, on, &mut ts);
    if ts.iter().any(|x| x.s > 0) {
        // The jobs a resumption meets: any other task's, due after the
        // window (the module's doc), read by the same protocol rules.
        let lx = cx.with_late_jobs();
        let table = DemandTable::new(&lx);
        for (k, &i) in on.iter().enumerate() {
            let b = per_arrival(table.get(i).local, cx.suspensions(i));
            ts[k].late = b.saturating_add(whole_runs(&lx, on, &ts, k, Time::ZERO));
        }
    }
    ts
}

/// Most tasks on a CPU for which the window's first blocking is computed
/// per window (`first_terms`); above, each task's own term is charged,
/// as before Baruah's form (every protocol's local terms once per
/// threshold: quadratic in the tasks per threshold).
pub const WINDOWED_MAX: usize = 64;

/// Fills [`EdfTask::first_w`] and [`EdfTask::first_d`]: the blocking at
/// the start of the window of each length where its set of jobs or of
/// blockers changes. A job that blocks a window from before it is due
/// after it, so its relative deadline exceeds the window's length
/// (Baruah 2006, "Resource sharing in EDF-scheduled systems: a closer
/// look", the `B(L)` of the demand test): fewer jobs than each window
/// task's own term counts (`D_j > D_k - J_k`). Each protocol's local term
/// is read through [`Context::with_window`].
fn first_terms(cx: &Context, on: &[TaskId], ts: &mut [EdfTask]) {
    let inside = |ts: &[EdfTask], l: Time| {
        ts.iter()
            .enumerate()
            .filter(move |(_, x)| x.d.saturating_sub(x.j) <= l)
            .map(|(k, _)| k)
            .collect::<Vec<usize>>()
    };
    let classic = |ts: &[EdfTask], l: Time| {
        let ks = inside(ts, l);
        let b = ks.iter().map(|&k| ts[k].b).max().unwrap_or(Time::ZERO);
        let q = ks.iter().map(|&k| ts[k].q).max().unwrap_or(Time::ZERO);
        b.saturating_add(q)
    };
    let at = |ts: &[EdfTask], l: Time| {
        if on.len() > WINDOWED_MAX {
            return classic(ts, l);
        }
        let wx = cx.with_window(l);
        let table = DemandTable::new(&wx);
        let (mut b, mut q) = (Time::ZERO, Time::ZERO);
        for k in inside(ts, l) {
            let i = on[k];
            b = b.max(per_arrival(table.get(i).local, cx.suspensions(i)));
            let lo = l.max(ts[k].d.saturating_sub(ts[k].j));
            q = q.max(whole_runs(&wx, on, ts, k, lo));
        }
        b.saturating_add(q)
    };
    // Tasks share thresholds (equal deadlines, no jitter): each once.
    let mut seen: Vec<(Time, Time)> = Vec::new();
    for k in 0..ts.len() {
        let (w, d) = (ts[k].d.saturating_sub(ts[k].j), ts[k].d);
        let (first_w, first_d) = {
            let view: &[EdfTask] = ts;
            let mut first = |l: Time| match seen.iter().find(|&&(x, _)| x == l) {
                Some(&(_, b)) => b,
                None => {
                    let b = at(view, l);
                    seen.push((l, b));
                    b
                }
            };
            (first(w), first(d))
        };
        ts[k].first_w = first_w;
        ts[k].first_d = first_d;
    }
}

/// Whether `r`'s rules (its own protocol's, or the local protocol a
/// multiprocessor one prescribes) test a job's start against the system
/// ceiling ([`rtsync_model::Protocol::tests_start`]).
fn tests_start(cx: &Context, r: ResourceId) -> bool {
    family(cx.sys, r, cx.f.global[r]).tests_start()
}

/// The execution of the jobs that can run whole while task `on[k]`'s job
/// is kept from starting, those with relative deadlines in `(lo, D_k)`.
///
/// A job is kept from starting by a resource whose rules (its own
/// protocol's, or the local protocol a multiprocessor one prescribes)
/// test starts, held by a job due after its window (one `is_lower` than
/// it) with a ceiling that reaches its level. The jobs that then run
/// whole passed the start test above such a ceiling: their level is above
/// the lowest of those ceilings. The window's task of longest deadline
/// among those kept back covers every such job (the module's doc), so
/// each task's own range is charged with its own ceiling.
///
/// A multi-unit resource's ceiling is read at its lowest while the
/// section holds its own units ([`Context::held_ceiling`]): a job can
/// start above a section that leaves units free, take some itself, and
/// so raise the ceiling past the level of a job released later (found by
/// the `combined` shape on 2026-12-02, `edf-jitter-multiunit.toml`: the
/// highest ceiling left that job out of this term).
fn whole_runs(cx: &Context, on: &[TaskId], ts: &[EdfTask], k: usize, lo: Time) -> Time {
    let cpu = cx.cpu(on[k]).expect("a task placed on a CPU");
    let Some(lowest) = ceiling_sections(cx, on[k], |r| tests_start(cx, r))
        .map(|(_, rq)| cx.held_ceiling(rq.resource, cpu, rq.units))
        .min()
    else {
        return Time::ZERO;
    };
    let hi = ts[k].d;
    on.iter()
        .zip(ts)
        .filter(|&(&y, x)| lo < x.d && x.d < hi && cx.rank(y) > lowest)
        .fold(Time::ZERO, |a, (_, x)| a.saturating_add(x.c))
}

/// One arrival's share of a local blocking term: every protocol analysed
/// under EDF (NPCS, SRP, FMLP-S, MSRP and their mixes) charges its local
/// term once per release and per self-suspension, `(S + 1)·b`
/// (docs/ANALYSIS.md, the arrival-blocking table), and the EDF tests
/// count the arrivals of the whole window instead.
fn per_arrival(local: Time, suspensions: u64) -> Time {
    if local == Time::MAX || suspensions == 0 {
        return local;
    }
    let arrivals = suspensions + 1;
    debug_assert_eq!(
        local.ns() % arrivals,
        0,
        "a local term not charged per arrival"
    );
    Time::from_ns(local.ns() / arrivals)
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
    let cap = all_late(ts);
    let horizon = if u < 1.0 - 1e-9 {
        // demand(L) ≤ u·L + Σ (T - D + J)·C/T, and the blocking is at most
        // `cap`, and at most `first + R(L)·late` with `R(L)` growing like
        // demand: the test can fail only below either horizon.
        let slack = |x: &EdfTask| (x.t.ns() as f64 - x.d.ns() as f64 + x.j.ns() as f64).max(0.0);
        let num: f64 = ts.iter().map(|x| slack(x) * x.c.ratio(x.t)).sum();
        let first = ts.iter().map(|x| x.b.saturating_add(x.q)).max().unwrap();
        let mut l = (num + first.min(cap).ns() as f64) / (1.0 - u);
        if ts.iter().any(|x| x.s > 0) {
            let late = ts.iter().map(|x| x.late).max().unwrap().ns() as f64;
            let grow: f64 = ts.iter().map(|x| x.s as f64 * late / x.t.ns() as f64).sum();
            let capped = (num + cap.ns() as f64) / (1.0 - u);
            l = capped;
            if u + grow < 1.0 - 1e-9 {
                let resumed: f64 = ts
                    .iter()
                    .map(|x| slack(x) * x.s as f64 * late / x.t.ns() as f64)
                    .sum();
                l = l.min((num + resumed + first.ns() as f64 + late) / (1.0 - u - grow));
            }
        }
        let l = l.ceil();
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
    let Some(points) = points(ts, horizon) else {
        return DemandOutcome::Inconclusive;
    };
    for &l in &points {
        let (demand, blocking) = window(ts, l, cap);
        if demand.saturating_add(blocking) > l {
            return DemandOutcome::Fails(l);
        }
    }
    DemandOutcome::Schedulable
}

/// The deadline points `D_i - J_i + k·T_i` up to `horizon`, sorted and
/// distinct: where the demand and the blocking of a window step. `None`
/// beyond [`MAX_POINTS`].
pub(crate) fn points(ts: &[EdfTask], horizon: Time) -> Option<Vec<Time>> {
    let mut points: Vec<Time> = Vec::new();
    for x in ts {
        let first = x.d.saturating_sub(x.j);
        if first > horizon {
            continue;
        }
        let count = (horizon.ns() - first.ns()) / x.t.ns() + 1;
        if points.len() as u64 + count > MAX_POINTS {
            return None;
        }
        let mut p = first;
        for _ in 0..count {
            points.push(p);
            p = p.saturating_add(x.t);
        }
    }
    points.sort_unstable();
    points.dedup();
    Some(points)
}

/// How many jobs of `x` a window of length `l` holds: those released in
/// it (arrived at most their jitter before it) and due by its end,
/// `max(0, ⌊(l + J - D)/T⌋ + 1)`.
pub(crate) fn due_by(x: &EdfTask, l: Time) -> u64 {
    let shifted = l.saturating_add(x.j);
    if shifted < x.d {
        return 0;
    }
    (shifted.ns() - x.d.ns()) / x.t.ns() + 1
}

/// The window of length `l`: the demand of the jobs due by its end
/// (released in it, so arrived at most their jitter before it) and its
/// blocking, `min(β + R·λ, cap)` (the module's doc), with `cap` from
/// [`all_late`].
pub(crate) fn window(ts: &[EdfTask], l: Time, cap: Time) -> (Time, Time) {
    let mut demand = Time::ZERO;
    // Resumptions of the window's jobs: each can meet a section again.
    let mut resumptions: u64 = 0;
    for x in ts {
        let jobs = due_by(x, l);
        demand = demand.saturating_add(x.c.checked_mul(jobs).unwrap_or(Time::MAX));
        resumptions = resumptions.saturating_add(jobs.saturating_mul(x.s));
    }
    let in_window = || ts.iter().filter(|x| x.d.saturating_sub(x.j) <= l);
    // The first blocking of the window of length `l`: that of the longest
    // window no longer than `l` where the terms step.
    let first = ts
        .iter()
        .flat_map(|x| [(x.d.saturating_sub(x.j), x.first_w), (x.d, x.first_d)])
        .filter(|&(at, _)| at <= l)
        .max_by_key(|&(at, _)| at)
        .map_or(Time::ZERO, |(_, b)| b);
    let late = in_window().map(|x| x.late).max().unwrap_or(Time::ZERO);
    let blocking = late
        .checked_mul(resumptions)
        .unwrap_or(Time::MAX)
        .saturating_add(first)
        .min(cap);
    (demand, blocking)
}

/// Everything the jobs due after a window can hold its jobs back for: one
/// job per task at most (one due after the window arrived less than its
/// relative deadline, at most its period, before the window ends), each
/// its [`EdfTask::hold`].
pub(crate) fn all_late(ts: &[EdfTask]) -> Time {
    ts.iter().fold(Time::ZERO, |a, x| a.saturating_add(x.hold))
}

/// The hyperperiod of `ts`, `None` beyond a quarter of the time range:
/// the demand test enumerates deadline points up to the hyperperiod plus
/// the largest deadline, which must neither overflow nor be hopeless.
fn hyperperiod(ts: &[EdfTask]) -> Option<Time> {
    Time::hyperperiod(ts.iter().map(|x| x.t)).filter(|h| h.ns() <= u64::MAX / 4)
}

/// Baker's density test; returns the first failing task, if any.
///
/// With self-suspension, the window of length `L ≥ W_x` (`W = D - J`)
/// that `x` closes is blocked at its start (`x`'s `B + Q`, Baker's bound)
/// and at each of `Σ_y n_y(L)·S_y` resumptions, with `n_y(L) ≤ L / W_y`
/// (deadlines within periods) and each at most the largest
/// [`EdfTask::late`] of the tasks sorted up to `x`; divided by `L`, it
/// charges `(B_x + Q_x)/W_x + λ_x·Σ_y S_y/W_y`, and at most the cap of
/// the module's doc over `W_x`. Without self-suspension it is Baker's
/// `B_x / D_x`.
pub fn baker_test(ts: &[EdfTask]) -> Result<(), TaskId> {
    // By window (`D - J`): the jobs of a window are those whose window
    // fits in it.
    let mut sorted: Vec<&EdfTask> = ts.iter().collect();
    sorted.sort_by_key(|x| x.d.saturating_sub(x.j));
    let cap = all_late(ts).ns() as f64;
    let mut density = 0.0;
    let mut resumptions = 0.0;
    let mut late = Time::ZERO;
    for x in sorted {
        let window = x.d.saturating_sub(x.j);
        if window.is_zero() {
            return Err(x.id);
        }
        density += x.c.ratio(window);
        resumptions += x.s as f64 / window.ns() as f64;
        late = late.max(x.late);
        let first = x.b.saturating_add(x.q).ns() as f64 / window.ns() as f64;
        let blocking = (first + late.ns() as f64 * resumptions).min(cap / window.ns() as f64);
        if density + blocking > 1.0 + 1e-12 {
            return Err(x.id);
        }
    }
    Ok(())
}
