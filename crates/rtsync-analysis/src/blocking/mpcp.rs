//! The multiprocessor priority ceiling protocol (shared-memory MPCP).
//!
//! Global sections run at a priority above every normal priority (the
//! boosted band, keyed by the resource's *remote* ceiling on the holder's
//! CPU, the highest priority among its users on the other CPUs: the
//! protocol core's `protocols/mpcp.rs`, [`key`] here) and waiters suspend
//! in priority order. Bounds after Rajkumar (1990) in
//! the form of Lakshmanan, de Niz and Rajkumar (RTSS 2009), Eqs. 3-6:
//!
//! * per request on global `q`, the wait `W` is the fixed point of
//!   `W = max_lower L'(q) + Σ_{h ≥ i, h uses q} (⌈W / T_h⌉ + 1) · N_{h,q} · L'_{h,q}`
//!   (`N_{h,q} · L'_{h,q}` summed section by section, each at its own
//!   length: a tightening of 2026-12-02, [`Tables::gcs_per_job`]),
//!   where `L'` is a section's length plus the sections that other tasks
//!   of its CPU can run inside it: every other global section whose
//!   key on that CPU is at or above the section's own (one each: a task's normal
//!   priority is below every global section, so it cannot issue a second
//!   request while the section runs). *At or above*, not the published
//!   *strictly above*: a section boosted to the same ceiling that was
//!   granted first keeps the CPU (SCHED_FIFO among equals, and MPCP's own
//!   rule that a global section is never preempted by one of equal
//!   ceiling), so a holder granted meanwhile waits for it whole. The
//!   soundness search found a two-CPU system in which that wait took a
//!   task to 1.62 times the strictly-above bound
//!   (`mpcp_equal_ceilings_delay_a_holder` in the simulator's tests).
//!   `max_lower` ranges over the lower tasks of *other* CPUs: a lower
//!   task of `i`'s own CPU never holds `q` when `i` asks for it (holding
//!   it, it would run boosted, above `i`, which could not run to ask),
//!   nor is granted `q` while `i` waits (it queues behind `i`, by
//!   priority); Eq. 4 counts it, and what it does to `i` is a preemption
//!   at a point, charged below (`mpcp_charges_the_local_blocker_once_per_point`
//!   in the simulator's tests: 10 ms to 9 ms, the search reaching 8);
//! * remote blocking `Σ_q N_{i,q} · (W_{i,q} - H_{i,q})`, where `H_{i,q}`
//!   is the execution of the sections on `q` of the higher tasks of `i`'s
//!   own CPU that `W` counts (`home_sections`): while such a task holds
//!   `q` it runs on `i`'s CPU, and the response-time equation charges that
//!   as its interference already (Lakshmanan et al. and SchedCAT charge
//!   the whole wait as suspension, which counts that time twice;
//!   `mpcp_charges_a_higher_holder_of_the_jobs_cpu_once` in the hand-worked
//!   tests, 9 ms to 6 ms, which the simulator's search reaches);
//! * local blocking, charged once per point at which the job starts or
//!   resumes: its release, the end of each wait for a global resource,
//!   the end of each self-suspension, `ρ_i = N^G_i + S_i + 1` points in
//!   all. At each, one lower-priority section on a local resource whose
//!   ceiling reaches `π_i` (PCP among the CPU's local resources), plus one
//!   global section of every lower-priority task of the CPU (boosted above
//!   `π_i`), the local blocker not charged for both (`per_point`).
//!   While the job waits for a global resource it is suspended, and a
//!   lower-priority job of its CPU may lock a local resource that
//!   the job needs after it resumes; PCP's "blocked at most once" holds
//!   only between two suspensions. This is the `(N^G_i + 1)` factor of
//!   Rajkumar's original analysis (*Synchronization in Real-Time Systems*,
//!   1991, Sec. 5.4, blocking factor 1), with self-suspensions added.
//!   The first wave charged local-resource blocking only `S_i + 1` times,
//!   which a two-CPU system with one release offset breaks
//!   (`tests/hand_worked.rs`, `mpcp_local_blocking_recurs_after_a_global_wait`;
//!   the soundness search finds such systems on its own).
//!
//! Remote blocking is a self-suspension. It is not treated as a simple
//! blocking term for other tasks (the unsound part of early MPCP analyses,
//! shown by Chen, Nelissen and Huang et al. 2016/2019); the engine charges
//! it as release jitter `R_h - C_h` to lower-priority tasks (Bletsas et al.
//! 2018) or, whichever is tighter, as execution (suspension-oblivious).

use super::{Demand, ceiling_sections, times};
use crate::context::{BoundForm, Context};
use crate::recurrence::{self, Term};
use rtsync_model::{ResourceId, TaskId, Time};
use std::cell::RefCell;

/// Per-system tables, computed once: every global section's length with
/// the higher-ceiling sections its CPU can run inside it (`L'`), and each
/// task's longest global section.
pub struct Tables {
    gcs: Vec<Time>,
    longest_global: Vec<Time>,
    nr: usize,
    /// The terms of the recurrence being solved, kept to reuse their space.
    scratch: RefCell<Vec<Term>>,
    /// Per task, once asked for: its global resources `q` with `N_{i,q}`
    /// and the per-request wait `W_{i,q}`, which the LP form reads at
    /// every refinement ([`Tables::waits`]); one list for all tasks, each
    /// task's a range of it.
    waits: RefCell<Waits>,
    /// The LP form's last bounds, reused while their counts hold.
    lp: super::lp::mpcp::Memo,
}

/// `(q, N_{i,q}, W_{i,q})` for a global resource `q` of task `i`.
pub(crate) type Wait = (ResourceId, u64, Time);

/// Every task's [`Wait`]s in one list, and per task its range there once
/// computed.
#[derive(Default)]
struct Waits {
    all: Vec<Wait>,
    range: Vec<Option<(u32, u32)>>,
}

impl Tables {
    /// The per-system tables the MPCP bound reads.
    pub fn new(cx: &Context) -> Tables {
        let f = &cx.f;
        let (n, nr) = (cx.n(), f.n_resources);
        // pre[y * nr + q]: the longest section y runs on another global
        // resource whose key on y's CPU is at or above q's.
        // Read from y's own global sections (`cs` is the longest of them
        // per resource), not from every resource: a task uses few.
        let mut pre = vec![Time::ZERO; n * nr];
        for y in 0..n {
            let Some(c) = cx.cpu(y) else { continue };
            for rq in f.sections(y).iter().filter(|rq| f.global[rq.resource]) {
                let (r, kr) = (rq.resource, key(cx, rq.resource, c));
                for q in (0..nr).filter(|&q| q != r && kr >= key(cx, q, c)) {
                    let m = &mut pre[y * nr + q];
                    *m = (*m).max(rq.length);
                }
            }
        }
        // Per CPU and resource, the sum of `pre` over the CPU's tasks; a
        // task's own share is subtracted below.
        let mut per_cpu = vec![Time::ZERO; f.cpus * nr];
        for y in 0..n {
            if let Some(c) = cx.cpu(y) {
                for q in 0..nr {
                    per_cpu[c * nr + q] = per_cpu[c * nr + q].saturating_add(pre[y * nr + q]);
                }
            }
        }
        let mut gcs = vec![Time::ZERO; n * nr];
        for x in 0..n {
            for q in 0..nr {
                let own = f.cs(x, q);
                gcs[x * nr + q] = match cx.cpu(x) {
                    Some(c) if !own.is_zero() => {
                        own.saturating_add(per_cpu[c * nr + q].saturating_sub(pre[x * nr + q]))
                    }
                    _ => own,
                };
            }
        }
        let longest_global = (0..n)
            .map(|j| {
                (0..nr)
                    .filter(|&r| f.global[r])
                    .map(|r| f.cs(j, r))
                    .max()
                    .unwrap_or(Time::ZERO)
            })
            .collect();
        Tables {
            gcs,
            longest_global,
            nr,
            scratch: RefCell::new(Vec::new()),
            waits: RefCell::new(Waits {
                // One entry per task and global resource it uses.
                all: Vec::with_capacity(
                    (0..nr)
                        .filter(|&q| f.global[q])
                        .map(|q| f.users(q).len())
                        .sum(),
                ),
                range: vec![None; n],
            }),
            lp: Default::default(),
        }
    }

    /// `L'_{x,q}`: a section of `x` on global `q` with the global sections
    /// keyed at or above `q`'s ([`key`]) that other tasks on `x`'s CPU can run
    /// before it ends
    /// (one each: a task's normal priority is below every global section,
    /// so it cannot issue a second request while the section runs).
    pub fn gcs_response(&self, x: TaskId, q: ResourceId) -> Time {
        self.gcs[x * self.nr + q]
    }

    /// `Σ_k L'` over the sections of one job of `x` on `q`: each at its own
    /// length plus what [`Tables::gcs_response`] adds to a section there.
    /// At most `N_{x,q} · L'_{x,q}`, equal where the sections are one
    /// length.
    pub fn gcs_per_job(&self, cx: &Context, x: TaskId, q: ResourceId) -> Time {
        // Each section at its own length: a task with a short and a long
        // section on `q` holds it for their sum a job, not twice the long
        // one (`N · cs`, until 2026-12-02).
        let extra = self.gcs_response(x, q).saturating_sub(cx.f.cs(x, q));
        cx.f.cs_total(x, q)
            .saturating_add(times(extra, cx.f.requests(x, q) as u64))
    }

    /// Task `i`'s global resources with their request counts and waits,
    /// computed the first time they are asked for.
    pub(crate) fn waits(&self, cx: &Context, i: TaskId) -> std::cell::Ref<'_, [Wait]> {
        if self.waits.borrow().range[i].is_none() {
            let f = &cx.f;
            let mut w = self.waits.borrow_mut();
            let from = w.all.len() as u32;
            for q in (0..f.n_resources).filter(|&q| f.global[q] && f.requests(i, q) > 0) {
                let wait = request_wait(cx, self, i, q);
                w.all.push((q, f.requests(i, q) as u64, wait));
            }
            let to = w.all.len() as u32;
            w.range[i] = Some((from, to));
        }
        std::cell::Ref::map(self.waits.borrow(), |w| {
            let (a, b) = w.range[i].expect("filled above");
            &w.all[a as usize..b as usize]
        })
    }
}

/// Where a section of global `r` run on `cpu` sits in the boosted band:
/// the protocol core boosts it to `r`'s remote ceiling there (MPCP's
/// `Hold::BoostRemote`), and sections with equal keys run in grant order.
pub fn key(cx: &Context, r: ResourceId, cpu: usize) -> u32 {
    cx.f.remote_ceiling(r, cpu)
}

/// Wait for one request of `i` on global `q` (its own section excluded).
pub fn request_wait(cx: &Context, tb: &Tables, i: TaskId, q: ResourceId) -> Time {
    wait(cx, tb, i, q, None)
}

/// The per-request wait on `q`: the least fixed point of `W = max_lower
/// L' + Σ_{x ≥ π_i} k_x(W) Σ_k L'_{x,q,k}`, the inner sum over the `N_{x,q}`
/// sections of a job of `x` on `q`, each at its own length (Lakshmanan et
/// al. write `N_{x,q} L'_{x,q}`, every one at the longest; the sum is
/// never more, [`Tables::gcs_per_job`]), where `k_x(W)` counts the jobs
/// of `x` whose requests are granted in the wait: `⌈W / T_x⌉ + 1` (classic), or with
/// response-time estimates `window`, `⌈(W + R_x) / T_x⌉` (the job-window
/// form the LP reads, [`super::lp::mpcp`]). [`Time::MAX`] past the
/// deadline.
pub(crate) fn wait(
    cx: &Context,
    tb: &Tables,
    i: TaskId,
    q: ResourceId,
    window: Option<&[Time]>,
) -> Time {
    let pi = cx.prio(i);
    let mut base = Time::ZERO;
    let mut terms = tb.scratch.borrow_mut();
    terms.clear();
    // One pass over the users: the longest lower section is kept apart and
    // joins the base at the end.
    let mut lower = Time::ZERO;
    for &x in cx.f.users(q) {
        if x == i {
            continue;
        }
        if cx.prio(x) < pi {
            // A lower task of `i`'s own CPU never holds `q` when `i` asks
            // for it: holding it, it runs boosted, above `i`, which could
            // not run to ask. Nor is it granted `q` while `i` waits: it
            // queues behind `i`, by priority.
            if !below_on_cpu(cx, i, x) {
                lower = lower.max(tb.gcs_response(x, q));
            }
        } else {
            // `N_{x,q} L'_{x,q}` of the equation, each section at its own
            // length ([`Tables::gcs_per_job`]).
            let c = tb.gcs_per_job(cx, x, q);
            let jitter = match window {
                Some(resp) => resp[x],
                // Each `(⌈W / T_x⌉ + 1) · c` term puts `c` into the base.
                None => {
                    base = base.saturating_add(c);
                    Time::ZERO
                }
            };
            terms.push(Term::new(c, jitter, cx.period[x]));
        }
    }
    let base = base.saturating_add(lower);
    beyond_deadline(recurrence::solve(base, cx.deadline[i], &mut terms))
}

/// Task `i`'s demand refined at the response-time estimates `resp`: with
/// `--analysis lp`, the remote term the smaller of the classic bound
/// (`fixed`, from [`demand`]) and the LP's ([`super::lp::mpcp`]), and the
/// local term the smaller of the classic one, the LP's, and what the LP's
/// joint optimum leaves beside the remote term. The engine reads `remote`
/// alone (suspension charged to lower tasks) and `local + remote` (the
/// job's own blocking), never `local` alone under P-FP, the only
/// scheduler MPCP runs under, so both reads stay bounds; the local column
/// of a report is then the rest of the joint bound. The classic analysis
/// has no job-window form and keeps `fixed`.
pub fn window_demand(cx: &Context, tb: &Tables, i: TaskId, fixed: Demand, resp: &[Time]) -> Demand {
    if cx.form != BoundForm::Lp {
        return fixed;
    }
    let b = tb.lp.bound(cx, tb, i, resp);
    let remote = fixed.remote.min(b.remote);
    Demand {
        local: fixed.local.min(b.local).min(b.total.saturating_sub(remote)),
        remote,
        ..fixed
    }
}

/// Whether `x` is a lower task of `i`'s CPU: under MPCP it never holds a
/// global resource that `i` waits for (holding it, `x` runs boosted, above
/// `i`, which could not run to ask; asking after `i`, it queues behind),
/// and delays `i` by preemption at `i`'s points instead. The classic wait
/// and the LP's (15, 17) both read it.
pub(crate) fn below_on_cpu(cx: &Context, i: TaskId, x: TaskId) -> bool {
    cx.cpu(i).is_some() && cx.cpu(x) == cx.cpu(i) && cx.prio(x) < cx.prio(i)
}

/// The execution of the sections on `q` of the tasks of `i`'s CPU at or
/// above `π_i` that a wait of `w` counts: `Σ (⌈w / T_h⌉ + 1) · Σ_k
/// cs_{h,q,k}`, each job's sections at their own lengths as the wait
/// charged them (0 for a wait past the deadline, [`Time::MAX`]).
///
/// That much of the wait is no suspension of `i`'s: while `h` holds `q`,
/// `h` runs on `i`'s CPU (boosted; MPCP nests no request inside a global
/// section, so it never suspends holding one), and the response-time
/// equation charges `h`'s execution, these sections included, as
/// interference already, to `i` and to every task below `i`. Charging
/// it in `i`'s suspension too counted the same time twice. What stays
/// is the other holders' sections and, within `h`'s hold, the sections
/// of other tasks that `L'` adds (a lower task's boosted section is not
/// interference). Subtracting the wait's own count of `h`'s sections,
/// not the schedule's, stays a bound: a wait with fewer `h` sections is
/// no longer than `w`, and its other holders no more. Lakshmanan et al.
/// and SchedCAT charge the whole wait; Brandenburg's LP (constraint 9)
/// keeps such tasks out of remote blocking altogether.
fn home_sections(cx: &Context, i: TaskId, q: ResourceId, w: Time) -> Time {
    if w == Time::MAX || cx.cpu(i).is_none() {
        return Time::ZERO;
    }
    let pi = cx.prio(i);
    cx.f.users(q)
        .iter()
        .filter(|&&h| h != i && cx.cpu(h) == cx.cpu(i) && cx.prio(h) >= pi)
        .fold(Time::ZERO, |a, &h| {
            // The wait's own count, `⌈W / T_h⌉ + 1` (see `wait`).
            let jobs = super::jobs(w, Time::ZERO, cx.period[h]) + 1;
            let each = cx.f.cs_total(h, q);
            a.saturating_add(times(each, jobs))
        })
}

/// A request wait that passes `limit` (the task's deadline) alone makes
/// the task miss it: reported as [`Time::MAX`] ("beyond the deadline"),
/// never a partial value of the iteration, which would not be a bound.
pub(crate) fn beyond_deadline(w: Option<Time>) -> Time {
    w.unwrap_or(Time::MAX)
}

/// What lower-priority tasks of `i`'s CPU can run ahead of it from one
/// point at which it starts or resumes until it next suspends: one global
/// section of every such task (boosted above `π_i`), and one section on a
/// local resource whose ceiling reaches `π_i` (PCP). A task cannot do
/// both from one point: after a local section it is back below `π_i` and
/// cannot issue a global request before `J_i` suspends, and it holds no
/// local resource while it waits for a global one (MPCP forbids that
/// nesting). So the local blocker adds only what its local section
/// exceeds its own global section by:
/// `Σ_x G_x + max_x (L_x - G_x)⁺`, never above the classic `Σ_x G_x +
/// max_x L_x` (which charged the blocker both; SchedCAT charges every
/// task its longest section of any kind, `Σ_x max(G_x, L_x)`, at least
/// this).
fn per_point(cx: &Context, tb: &Tables, i: TaskId) -> Time {
    let global = cx
        .lower_local(i)
        .fold(Time::ZERO, |a, j| a.saturating_add(tb.longest_global[j]));
    let excess = ceiling_sections(cx, i, |r| !cx.f.global[r])
        .map(|(j, rq)| rq.length.saturating_sub(tb.longest_global[j]))
        .max()
        .unwrap_or(Time::ZERO);
    global.saturating_add(excess)
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, tb: &Tables, i: TaskId) -> Demand {
    let f = &cx.f;
    let mut remote = Time::ZERO;
    let mut n_global = 0u64;
    for &(q, n, w) in tb.waits(cx, i).iter() {
        n_global += n;
        let away = w.saturating_sub(home_sections(cx, i, q, w));
        remote = remote.saturating_add(times(away, n));
    }
    let resumptions = n_global + cx.suspensions(i) + 1;
    Demand {
        exec: f.tasks[i].wcet,
        local: times(per_point(cx, tb, i), resumptions),
        remote,
        spin: Time::ZERO,
        joint: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::partitioned;
    use proptest::prelude::*;
    use rtsync_model::Protocol;

    proptest! {
        /// `L'` as its definition says, computed here resource by
        /// resource: a global section of `x` on `q` plus, for every other
        /// task `y` of `x`'s CPU, its longest section on another global
        /// resource whose key there is at or above `q`'s. Nested sections
        /// and several requests per resource included.
        #[test]
        fn the_gcs_table_follows_its_definition(
            seed in 0u64..10_000,
            cpus in 2usize..5,
            nest in 0.0f64..0.5,
        ) {
            let sys = partitioned(Protocol::Mpcp, seed, cpus, 4, 0.5, 5, |c| {
                c.nest_prob = nest;
                c.local_resources = 1;
            });
            let cx = Context::new(&sys);
            let f = &cx.f;
            let tb = Tables::new(&cx);
            for x in 0..cx.n() {
                for q in 0..f.n_resources {
                    let own = f.cs(x, q);
                    let want = match cx.cpu(x) {
                        Some(c) if !own.is_zero() => (0..cx.n())
                            .filter(|&y| y != x && cx.cpu(y) == Some(c))
                            .map(|y| {
                                (0..f.n_resources)
                                    .filter(|&r| r != q && f.global[r] && key(&cx, r, c) >= key(&cx, q, c))
                                    .map(|r| f.cs(y, r))
                                    .max()
                                    .unwrap_or(Time::ZERO)
                            })
                            .fold(own, |a, m| a.saturating_add(m)),
                        _ => own,
                    };
                    prop_assert_eq!(tb.gcs_response(x, q), want, "task {}, resource {}", x, q);
                    // Per job: every section of `x` on `q` at its own
                    // length, each with what `L'` adds beyond `x`'s longest.
                    let job = f
                        .sections(x)
                        .iter()
                        .filter(|rq| rq.resource == q)
                        .fold(Time::ZERO, |a, rq| {
                            a.saturating_add(rq.length).saturating_add(want.saturating_sub(own))
                        });
                    prop_assert_eq!(tb.gcs_per_job(&cx, x, q), job, "task {}, resource {}", x, q);
                }
            }
        }
    }
}
