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
//! (the request-driven bound of Rajkumar, Sha and Lehoczky 1988 and
//! Rajkumar 1991, Ch. 5), where `L_{i,q}` is *this request's* section, not
//! the task's longest on `q` (a job with a short and a long section on `q`
//! waits for each as it is; charging the longest for both was rtsync's
//! last gap to SchedCAT's DPCP). Each request is a busy window of its own on `s`,
//! solved by itself; the job's wait on `s` is the sum over its requests
//! served there.
//!
//! **Job window** ([`window_demand`]), the form of Brandenburg's SchedCAT
//! (`dpcp.cpp`, after Rajkumar 1991, p. 87): over the job's whole pending
//! window `R_i`, every section on `s` of a task at or above `π_i` whose job
//! overlaps it, `⌈(R_i + R_x) / T_x⌉ · Σ_{r on s} N_{x,r} L_{x,r}`, plus at
//! most one lower-priority section per request of `J_i` on `s` (PCP among
//! the agents), the longest such sections first, each task's count capped
//! by its jobs in the window. Neither form dominates (per request is
//! smaller for a job with one short request, the job window for a job with
//! many), and both bound the same quantity, the job's wait on `s`, so the
//! bound is the smaller of the two *per synchronization CPU*. The job
//! window reads response times: the engine iterates it from below with
//! the response times (see [`crate::fp`]). The `+ 1` of the per-request
//! form counts a job released before the window that is still pending,
//! and holds while every task meets its deadline.
//!
//! **Requests served on the job's own CPU** wait for the job's own section
//! alone in this term: every other agent section run there during the job's
//! window is already in the agents' interference `A_i` of the response-time
//! equation ([`super::foreign_loads`]: all tasks' sections on the CPU, at
//! any priority, since agents run above every normal priority). The first
//! wave counted those sections in both places; SchedCAT counts them once,
//! as "local" blocking, which is the same sum over the window.
//!
//! Suspensions: every section runs on a synchronization CPU, so while the
//! job waits for an agent (or self-suspends) no lower job of its CPU can
//! lock anything it needs afterwards: there is no local blocking to
//! re-open (`distributed_protocols_have_no_local_blocking_to_reopen` in
//! the simulator's tests). The agents' sections are suspensions of the
//! requesting job, which the response-time analysis charges as jitter to
//! the tasks below it on its CPU.

use super::mpcp::beyond_deadline;
use super::{Demand, excluding, jobs, own_sections, sync_cpu, times};
use crate::context::{BoundForm, Context};
use rtsync_model::{Cpu, Priority, ResourceId, TaskId, Time};
use std::cell::{OnceCell, RefCell};

/// A job's per-request wait on one synchronization CPU: `(CPU, wait,
/// requests there, own sections there)`.
type Split = (Cpu, Time, u32, Time);

/// The CPU of a [`Split`] for the requests no CPU serves (a resource
/// whose synchronization CPU is not the platform's, which validation
/// refuses but a system built in code can have): their wait is unbounded
/// in either form.
const UNSERVED: Cpu = Cpu::MAX;

/// A user of a resource served on a synchronization CPU: `(priority,
/// task, requests per job, longest section, resource)`.
type User = (Priority, TaskId, u32, Time, ResourceId);

/// Per-system tables, computed once.
pub struct Tables {
    /// Per resource: its synchronization CPU.
    pub(crate) sync: Vec<Option<Cpu>>,
    /// Per synchronization CPU: the resources it serves.
    pub(crate) served: Vec<Vec<ResourceId>>,
    /// Per synchronization CPU: `(priority, period, load, task)` of every
    /// task with sections there, highest priority first, where
    /// `load = Σ_{r on s} N_{x,r} L_{x,r}`.
    pub(crate) load: Vec<Vec<(Priority, Time, Time, TaskId)>>,
    /// Per synchronization CPU, beside `load`: the running sums of the
    /// loads (`k` entries sum to `sums[s][k].0`) and the shortest period
    /// from each entry on (`sums[s][k].1`, the last one [`Time::MAX`]).
    /// The per-request recurrence charges the first `m` loads once more
    /// than it counts their jobs, and the jobs of the entries whose period
    /// is at least the window are one each: [`Above::solve`] sums those at
    /// once and stops its scan at the first entry from which no shorter
    /// period follows.
    sums: Vec<Vec<(Time, Time)>>,
    /// Per resource: its users' `(priority, running max of cs)` sorted by
    /// priority, for "longest section of a task below priority p".
    below: Vec<Vec<(Priority, Time)>>,
    /// A job's requests as `(synchronization CPU, section length)`, kept
    /// to reuse their space.
    asks: RefCell<Vec<(Cpu, Time)>>,
    /// Per task, its per-request wait per synchronization CPU
    /// `(CPU, wait, requests there, own sections there)`, set by
    /// [`demand`] for [`window_demand`].
    split: RefCell<Vec<Vec<Split>>>,
    /// Per synchronization CPU, per resource served there, its users
    /// `(priority, task, count, length, resource)`, longest section
    /// first: the job window's candidates ([`Tables::users_on`]). The
    /// length is the longest section on the resource at any nesting
    /// level: a lower agent that holds it nested blocks as long as one
    /// that holds it outermost (until 2026-12-02 the outermost length,
    /// zero for a resource only ever nested, which the `nested` shape's
    /// first run broke: a request of the CPU's top task charged nothing
    /// for a lower agent holding its resource inside another).
    users_on: OnceCell<Vec<Vec<User>>>,
}

impl Tables {
    /// Built by walking the tasks in priority order ([`Facts::by_priority`]),
    /// so that no list needs sorting.
    ///
    /// [`Facts::by_priority`]: rtsync_model::Facts::by_priority
    pub fn new(cx: &Context) -> Tables {
        let f = &cx.f;
        let nr = f.n_resources;
        let sync: Vec<Option<Cpu>> = (0..nr)
            .map(|r| sync_cpu(cx, r).filter(|&s| s < f.cpus))
            .collect();
        let mut served = vec![Vec::new(); f.cpus];
        for (r, s) in sync.iter().enumerate() {
            if let Some(s) = *s {
                served[s].push(r);
            }
        }
        let mut load: Vec<Vec<(Priority, Time, Time, TaskId)>> = served
            .iter()
            .map(|v| Vec::with_capacity(if v.is_empty() { 0 } else { f.n_tasks }))
            .collect();
        let mut below: Vec<Vec<(Priority, Time)>> = (0..nr)
            .map(|r| Vec::with_capacity(f.users(r).len()))
            .collect();
        // Lowest priority first, so that each `below` list gets its running
        // maximum as it grows; the load lists are turned around after.
        // Only the resources of a task's own sections are looked at (the
        // first section on each marks it done for the task).
        let mut per = vec![Time::ZERO; f.cpus];
        let mut done = vec![usize::MAX; nr];
        let mut touched: Vec<Cpu> = Vec::new();
        for &x in f.by_priority.iter().rev() {
            let p = cx.prio(x);
            for rq in f.sections(x) {
                let r = rq.resource;
                // An agent's work on `s` per job: each section served there
                // at its own length, a section nested in one served on the
                // same CPU inside it (until 2026-12-02 every section counted
                // at the task's longest on its resource, the nested ones
                // again beside the section holding them).
                if let Some(s) = sync[r].filter(|&s| f.held(rq).iter().all(|&h| sync[h] != Some(s)))
                {
                    if per[s].is_zero() {
                        touched.push(s);
                    }
                    per[s] = per[s].saturating_add(rq.length);
                }
                if done[r] == x {
                    continue;
                }
                done[r] = x;
                let cs = f.cs(x, r);
                let m = below[r].last().map_or(cs, |e| e.1.max(cs));
                below[r].push((p, m));
            }
            for s in touched.drain(..) {
                load[s].push((p, cx.period[x], per[s], x));
                per[s] = Time::ZERO;
            }
        }
        for v in &mut load {
            v.reverse();
        }
        let sums = load
            .iter()
            .map(|v| {
                let mut out = vec![(Time::ZERO, Time::MAX); v.len() + 1];
                for (k, e) in v.iter().enumerate() {
                    out[k + 1].0 = out[k].0.saturating_add(e.2);
                }
                for (k, e) in v.iter().enumerate().rev() {
                    out[k].1 = out[k + 1].1.min(e.1);
                }
                out
            })
            .collect();
        Tables {
            sync,
            served,
            load,
            sums,
            below,
            asks: RefCell::new(Vec::new()),
            split: RefCell::new(vec![Vec::new(); f.n_tasks]),
            users_on: OnceCell::new(),
        }
    }

    /// Per synchronization CPU, the users of the resources served there
    /// `(priority, task, count, length, resource)`, longest section first:
    /// the job window's candidates. Built at the first job-window look,
    /// not with the tables: a set the fixed forms accept (every set of
    /// the benchmark's shape (a)) never reads them (DPCP (a) 112.2k to
    /// 106.3k instructions a set).
    pub(crate) fn users_on(&self, cx: &Context) -> &[Vec<User>] {
        self.users_on.get_or_init(|| {
            let f = &cx.f;
            let mut users_on: Vec<Vec<User>> = vec![Vec::new(); f.cpus];
            let mut keys: Vec<u64> = Vec::new();
            for (s, rs) in self.served.iter().enumerate() {
                let list = &mut users_on[s];
                for &r in rs {
                    for &x in f.users(r) {
                        let n = f.requests(x, r);
                        if n > 0 {
                            list.push((cx.prio(x), x, n, f.cs(x, r), r));
                        }
                    }
                }
                // Longest sections first: the job window takes them in
                // order (among equal lengths any order gives the same
                // sum: each section taken adds the same length, and the
                // count taken is capped by the requests left whatever the
                // order).
                sort_longest_first(list, &mut keys);
            }
            users_on
        })
    }

    /// Longest section on `r` of a task with priority strictly below `p`.
    pub(crate) fn longest_below(&self, r: ResourceId, p: Priority) -> Time {
        let v = &self.below[r];
        let k = v.partition_point(|e| e.0 < p);
        if k == 0 { Time::ZERO } else { v[k - 1].1 }
    }
}

/// Sorts `list` by section length, longest first. A synchronization CPU
/// can serve every resource of the system (the generator's default puts
/// them all on one), so its list holds a few hundred users, and moving
/// them whole while sorting showed in profiles: where every length fits
/// in 48 bits (78 hours in nanoseconds) the lengths are sorted as one
/// word each with the entry's index in the low bits, and the entries
/// gathered after. Ties come out in some order, which the job window does
/// not depend on (see the caller).
fn sort_longest_first(list: &mut Vec<User>, keys: &mut Vec<u64>) {
    const INDEX_BITS: u32 = 16;
    const INDEX: u64 = (1 << INDEX_BITS) - 1;
    const LENGTHS: u64 = 1 << (64 - INDEX_BITS);
    let fits = list.len() <= INDEX as usize + 1 && list.iter().all(|u| u.3.ns() < LENGTHS);
    if !fits {
        list.sort_unstable_by_key(|u| std::cmp::Reverse(u.3));
        return;
    }
    // Ascending keys, longest first: the length's complement in the high
    // bits, the index in the low ones.
    keys.clear();
    keys.extend(
        list.iter()
            .enumerate()
            .map(|(k, u)| (LENGTHS - 1 - u.3.ns()) << INDEX_BITS | k as u64),
    );
    keys.sort_unstable();
    let sorted: Vec<User> = keys.iter().map(|&k| list[(k & INDEX) as usize]).collect();
    *list = sorted;
}

/// The longest section of a task below `pi` on a resource served on `s`
/// whose ceiling reaches `pi` (PCP among the agents): the one lower
/// section a request of a task at `pi` can wait for there.
fn lower_blocker(cx: &Context, tb: &Tables, pi: Priority, s: Cpu) -> Time {
    tb.served[s]
        .iter()
        .filter(|&&r| cx.f.ceiling[r] >= pi)
        .map(|&r| tb.longest_below(r, pi))
        .max()
        .unwrap_or(Time::ZERO)
}

/// The recurrence of `i`'s requests served on `s`, in the form that
/// [`Tables::sums`] solves quickly.
struct Above<'t> {
    /// The load list of `s` and its sums.
    list: &'t [(Priority, Time, Time, TaskId)],
    sums: &'t [(Time, Time)],
    /// The entries at or above `i`'s priority: `list[..m]`.
    m: usize,
    i: TaskId,
    /// `low + 2 Σ load` over the entries above but `i`'s own: the base
    /// and the one job of each entry that every window holds.
    base: Time,
}

impl<'t> Above<'t> {
    fn new(cx: &Context, tb: &'t Tables, i: TaskId, s: Cpu) -> Above<'t> {
        let pi = cx.prio(i);
        let low = lower_blocker(cx, tb, pi, s);
        let (list, sums) = (&tb.load[s][..], &tb.sums[s][..]);
        let m = list.partition_point(|e| e.0 >= pi);
        // `i`'s own load, among the entries of its priority at the end of
        // the prefix, is not interference.
        let own = list[..m]
            .iter()
            .rev()
            .take_while(|e| e.0 == pi)
            .filter(|e| e.3 == i)
            .fold(Time::ZERO, |a, e| a.saturating_add(e.2));
        let loads = excluding(sums[m].0, own);
        Above {
            list,
            sums,
            m,
            i,
            base: low.saturating_add(loads).saturating_add(loads),
        }
    }

    /// The least `W` with `W = cs + low + Σ_x (⌈W / T_x⌉ + 1) · load_x`
    /// over the entries above, or `None` once an iterate passes `limit`:
    /// what [`crate::recurrence::solve_from`] answers for the term list
    /// (`from`, zero or a warm start, obeys the same rule). Where `W > 0`
    /// every entry has at least one job, so the sum is `2 Σ load_x` plus
    /// `(⌈W / T_x⌉ - 1) · load_x` over the entries with `T_x < W`, which
    /// the scan finds without looking past the suffix minima of the
    /// periods; in most windows no period is that short.
    fn solve(&self, cs: Time, from: Time, limit: Time) -> Option<Time> {
        let base = cs.saturating_add(self.base);
        if base.is_zero() {
            // No section and no load: the window is empty.
            return Some(Time::ZERO);
        }
        let mut w = from.max(base);
        loop {
            if w > limit {
                return None;
            }
            let mut next = base;
            for k in 0..self.m {
                if self.sums[k].1 >= w {
                    break;
                }
                let (_, t, load, x) = self.list[k];
                if t < w && x != self.i {
                    next = next.saturating_add(times(load, w.div_ceil(t) - 1));
                }
            }
            if next == w {
                return Some(w);
            }
            w = next;
        }
    }
}

/// `Σ` over the outermost requests of `i` of their responses.
///
/// The requests of one job served on one synchronization CPU share the
/// recurrence except for the own section in the base, so it is set up once
/// per CPU, solved once per distinct section length, shortest first, each
/// solution starting from the previous one raised by the difference in
/// length (a lower bound of the new least solution, see
/// `recurrence::solve_from`); the answers are those of solving each
/// request afresh.
pub fn demand(cx: &Context, tb: &Tables, i: TaskId) -> Demand {
    let f = &cx.f;
    let own = own_sections(cx, i);
    let mut remote = Time::ZERO;
    let mut asks = tb.asks.borrow_mut();
    asks.clear();
    let mut unserved = false;
    for rq in f.sections(i).iter().filter(|rq| rq.is_outermost()) {
        match tb.sync[rq.resource] {
            // The request's own section, not the task's longest on the
            // resource: a job with a short and a long section on `q`
            // waits for each as it is.
            Some(s) => asks.push((s, rq.length)),
            None => unserved = true,
        }
    }
    asks.sort_unstable();
    let mut split = tb.split.borrow_mut();
    let split = &mut split[i];
    split.clear();
    if unserved {
        // A request no CPU serves is never answered: no form bounds it.
        remote = Time::MAX;
        split.push((UNSERVED, Time::MAX, 0, Time::ZERO));
    }
    let mut k = 0;
    while k < asks.len() {
        let s = asks[k].0;
        let (mut wait, mut n, mut sections) = (Time::ZERO, 0u32, Time::ZERO);
        if cx.cpu(i) == Some(s) {
            // Served on the job's own CPU: other agents' sections are in
            // the interference `A_i` already.
            while k < asks.len() && asks[k].0 == s {
                wait = wait.saturating_add(asks[k].1);
                n += 1;
                k += 1;
            }
            remote = remote.saturating_add(wait);
            split.push((s, wait, n, wait));
            continue;
        }
        let above = Above::new(cx, tb, i, s);
        // (length, solution) of the last solve on `s`; `None` once a
        // solution passed the deadline (longer sections pass it too).
        let mut last: Option<(Time, Option<Time>)> = None;
        while k < asks.len() && asks[k].0 == s {
            let cs = asks[k].1;
            let w = match last {
                Some((l, w)) if l == cs => w,
                Some((_, None)) => None,
                Some((l, Some(w))) => {
                    above.solve(cs, w.saturating_add(cs.saturating_sub(l)), cx.deadline[i])
                }
                None => above.solve(cs, Time::ZERO, cx.deadline[i]),
            };
            last = Some((cs, w));
            wait = wait.saturating_add(beyond_deadline(w));
            sections = sections.saturating_add(cs);
            n += 1;
            k += 1;
        }
        remote = remote.saturating_add(wait);
        split.push((s, wait, n, sections));
    }
    Demand {
        exec: f.tasks[i].wcet.saturating_sub(own),
        remote,
        ..Demand::default()
    }
}

/// Task `i`'s demand with each synchronization CPU's wait the smaller of
/// the per-request form (`fixed`, from [`demand`]) and the job-window form
/// over the response-time estimates `resp` (`resp[i]` the job's window).
pub fn window_demand(cx: &Context, tb: &Tables, i: TaskId, fixed: Demand, resp: &[Time]) -> Demand {
    let pi = cx.prio(i);
    let r_i = resp[i];
    let mut remote = Time::ZERO;
    let split = tb.split.borrow();
    for &(s, per_request, n, sections) in &split[i] {
        // A per-request wait past the deadline (`Time::MAX`) still takes
        // the job window: the two forms bound the same wait each on its
        // own, so the window alone bounds it where the per-request
        // recurrence passed the deadline. (Until 2026-12-01 such a CPU's
        // wait stayed unbounded, and a job with short sections below
        // tasks holding long ones was refused where SchedCAT's `dpcp`
        // accepts it: found by the side-by-side hunt over random shapes.)
        if cx.cpu(i) == Some(s) || s == UNSERVED {
            remote = remote.saturating_add(per_request);
            continue;
        }
        // The window is only ever read as `min(w, per_request)`: once the
        // sum reaches the per-request wait the rest cannot lower it.
        let mut w = sections;
        for &(_, period, load, x) in tb.load[s].iter().take_while(|e| e.0 >= pi) {
            if w >= per_request {
                break;
            }
            if x != i {
                w = w.saturating_add(times(load, jobs(r_i, resp[x], period)));
            }
        }
        // At most one lower section per request, longest first.
        let mut left = n as u64;
        for &(p, x, count, len, r) in &tb.users_on(cx)[s] {
            if left == 0 || w >= per_request {
                break;
            }
            if p < pi && cx.f.ceiling[r] >= pi {
                let k = (count as u64)
                    .saturating_mul(jobs(r_i, resp[x], cx.period[x]))
                    .min(left);
                w = w.saturating_add(times(len, k));
                left -= k;
            }
        }
        let mut best = w.min(per_request);
        if cx.form == BoundForm::Lp {
            best = best.min(sections.saturating_add(super::lp::dpcp::bound(cx, tb, i, s, resp)));
        }
        remote = remote.saturating_add(best);
    }
    Demand { remote, ..fixed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenConfig, generate};
    use crate::partition::Heuristic;
    use crate::recurrence::{self, Term};
    use proptest::prelude::*;
    use rtsync_model::{Protocol, Request};

    proptest! {
        /// The job window's candidates come out longest first and none is
        /// lost, whether the lengths fit the one-word keys or one of them
        /// (past 78 hours) sends the list to the plain sort.
        #[test]
        fn candidates_are_sorted_longest_first_on_either_path(
            lengths in prop::collection::vec(0u64..1_000, 0..300),
            huge in any::<bool>(),
        ) {
            let mut list: Vec<User> = lengths
                .iter()
                .enumerate()
                .map(|(k, &l)| (k as Priority % 7, k, 1 + k as u32 % 3, Time::from_us(l), k % 5))
                .collect();
            if huge && !list.is_empty() {
                list[0].3 = Time::from_ns(u64::MAX - 5);
            }
            let mut before = list.clone();
            sort_longest_first(&mut list, &mut Vec::new());
            prop_assert!(list.windows(2).all(|w| w[0].3 >= w[1].3), "not longest first");
            let mut after = list.clone();
            before.sort_unstable();
            after.sort_unstable();
            prop_assert_eq!(before, after);
        }
    }

    /// The agents' work on `s` for one job of `x`, walked from the body
    /// itself: the outermost sections of `x` served on `s`, each at its
    /// own length (a section nested inside runs inside it), and, should a
    /// section served on `s` sit inside one served elsewhere or nowhere,
    /// that one too.
    fn agent_work(cx: &Context, tb: &Tables, x: TaskId, s: Cpu) -> Time {
        fn walk(tb: &Tables, s: Cpu, body: &[rtsync_model::Segment], under: bool) -> Time {
            let mut sum = Time::ZERO;
            for seg in body {
                if let rtsync_model::Segment::Lock {
                    resource,
                    body: inner,
                    ..
                } = seg
                {
                    let here = tb.sync[*resource] == Some(s);
                    if here && !under {
                        sum = sum.saturating_add(seg.execution().unwrap_or(Time::MAX));
                    }
                    sum = sum.saturating_add(walk(tb, s, inner, under || here));
                }
            }
            sum
        }
        walk(tb, s, &cx.sys.tasks[x].body, false)
    }

    /// The oracle: the response of one request of `i` on `q`, own section
    /// included, as the equation states it, over the plain term list and
    /// [`recurrence::solve`]. [`demand`] computes the same values grouped,
    /// over running sums ([`Above`]).
    fn request_response(cx: &Context, tb: &Tables, i: TaskId, rq: &Request) -> Time {
        let Some(s) = tb.sync[rq.resource] else {
            return Time::MAX;
        };
        if cx.cpu(i) == Some(s) {
            // Other agents' sections there are interference `A_i` already.
            return rq.length;
        }
        let mut terms = Vec::new();
        let rest = window(cx, tb, i, s, &mut terms);
        beyond_deadline(recurrence::solve(
            rq.length.saturating_add(rest),
            cx.deadline[i],
            &mut terms,
        ))
    }

    /// Sets `terms` to the interference of `i`'s requests served on `s`
    /// and returns the base of their recurrence without the request's own
    /// section: the longest lower-priority section that can block it
    /// there plus one extra job of every higher-priority load.
    fn window(cx: &Context, tb: &Tables, i: TaskId, s: Cpu, terms: &mut Vec<Term>) -> Time {
        let pi = cx.prio(i);
        // Each `(⌈W / T_h⌉ + 1) · load` term puts `load` into the base.
        let mut base = lower_blocker(cx, tb, pi, s);
        terms.clear();
        for &(_, period, load, x) in tb.load[s].iter().take_while(|e| e.0 >= pi) {
            if x != i {
                base = base.saturating_add(load);
                terms.push(Term::new(load, Time::ZERO, period));
            }
        }
        base
    }

    /// The sum of every outermost request's response, solved one by one.
    fn one_by_one(cx: &Context, tb: &Tables, i: TaskId) -> Time {
        cx.f.sections(i)
            .iter()
            .filter(|rq| rq.is_outermost())
            .fold(Time::ZERO, |a, rq| {
                a.saturating_add(request_response(cx, tb, i, rq))
            })
    }

    /// A DPCP system with its resources spread over synchronization CPUs
    /// by `spread`. With `short`, periods of 0.2 to 5 ms, so that windows
    /// span several periods of the tasks above, and priorities that do
    /// not follow the periods (a permutation drawn from `spread`). With
    /// `ties`, every section 50 us long, so that lengths tie.
    fn spread_system(
        seed: u64,
        cpus: usize,
        util: f64,
        requests_max: u32,
        spread: u64,
        short: bool,
        ties: bool,
    ) -> rtsync_model::System {
        let mut c = GenConfig {
            cpus,
            tasks: 4 * cpus,
            utilization: util * cpus as f64,
            resources: 5,
            protocol: Protocol::Dpcp,
            requests_max,
            nest_prob: 0.3,
            cs_max: Time::from_us(400),
            partition: Some(Heuristic::WorstFit),
            ..GenConfig::default()
        };
        if ties {
            c.cs_min = Time::from_us(50);
            c.cs_max = Time::from_us(50);
        }
        if short {
            c.periods = crate::generate::Periods::LogUniform {
                min: Time::from_us(200),
                max: Time::from_ms(5),
            };
        }
        let mut sys = generate(&c, seed, 0);
        for (r, res) in sys.resources.iter_mut().enumerate() {
            res.sync_cpu = Some((spread >> (2 * r)) as usize % cpus);
        }
        if short {
            // 4 · cpus tasks; an odd multiplier coprime with it permutes.
            let n = sys.tasks.len() as u64;
            let m = (2 * (spread >> 32) + 1..)
                .find(|m| gcd(*m, n) == 1)
                .unwrap();
            for (k, t) in sys.tasks.iter_mut().enumerate() {
                t.priority = ((k as u64 * m) % n + 1) as u32;
            }
        }
        // Ties in priority, which the tables' orders must survive.
        if spread & 1 == 1 {
            for t in &mut sys.tasks {
                t.priority = t.priority.div_ceil(2);
            }
        }
        sys
    }

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }

    proptest! {
        /// The tables hold what their definitions say, computed here from
        /// the facts without the tables' orders: for every priority level
        /// and resource the longest lower-priority section, and for every
        /// synchronization CPU each task's load there.
        #[test]
        fn tables_match_their_definitions(
            seed in any::<u64>(),
            cpus in 2usize..5,
            requests_max in 1u32..4,
            spread in any::<u64>(),
        ) {
            let sys = spread_system(seed, cpus, 0.6, requests_max, spread, false, false);
            let cx = Context::new(&sys);
            let f = &cx.f;
            let tb = Tables::new(&cx);
            for r in 0..f.n_resources {
                for p in 0..=f.n_tasks as Priority + 1 {
                    let want = (0..f.n_tasks)
                        .filter(|&j| cx.prio(j) < p)
                        .map(|j| f.cs(j, r))
                        .max()
                        .unwrap_or(Time::ZERO);
                    prop_assert_eq!(tb.longest_below(r, p), want, "resource {} below {}", r, p);
                }
            }
            for s in 0..f.cpus {
                let mut want: Vec<(Priority, Time, Time, TaskId)> = (0..f.n_tasks)
                    .filter_map(|x| {
                        let l = agent_work(&cx, &tb, x, s);
                        (!l.is_zero()).then_some((cx.prio(x), cx.period[x], l, x))
                    })
                    .collect();
                // Highest priority first, ties in index order.
                want.sort_by_key(|e| (std::cmp::Reverse(e.0), e.3));
                prop_assert_eq!(&tb.load[s], &want, "CPU {}", s);
            }
        }

        /// The job window ([`window_demand`]) is its definition, computed
        /// here from the facts: per synchronization CPU the job's own
        /// sections, each task's load there at or above its priority times
        /// its jobs in the window, and at most one lower section per
        /// request whose ceiling reaches it, the longest first, here taken
        /// with ties between equal lengths in the opposite order to any
        /// the tables could hold (`ties`: every section the same length),
        /// then the smaller of that and the per-request wait.
        #[test]
        fn the_job_window_is_its_definition_whatever_the_order_of_equal_sections(
            seed in any::<u64>(),
            cpus in 2usize..5,
            util in 0.2f64..0.9,
            requests_max in 1u32..4,
            spread in any::<u64>(),
            ties in any::<bool>(),
            stretch in 1u64..4,
        ) {
            let sys = spread_system(seed, cpus, util, requests_max, spread, false, ties);
            let cx = Context::new(&sys);
            let f = &cx.f;
            let tb = Tables::new(&cx);
            // Estimates from the job's execution up to `stretch` periods.
            let resp: Vec<Time> = (0..cx.n())
                .map(|x| {
                    let k = seed.rotate_left(x as u32 * 7) % (stretch * 1000) + 1;
                    f.tasks[x].wcet.max(Time::from_ns(cx.period[x].ns() / 1000 * k))
                })
                .collect();
            for i in 0..cx.n() {
                let fixed = demand(&cx, &tb, i);
                let got = window_demand(&cx, &tb, i, fixed, &resp).remote;
                let pi = cx.prio(i);
                let mut want = Time::ZERO;
                for &(s, per_request, n, sections) in &tb.split.borrow()[i] {
                    if cx.cpu(i) == Some(s) {
                        want = want.saturating_add(per_request);
                        continue;
                    }
                    let on_s: Vec<ResourceId> =
                        (0..f.n_resources).filter(|&r| tb.sync[r] == Some(s)).collect();
                    let mut w = sections;
                    for x in (0..cx.n()).filter(|&x| x != i && cx.prio(x) >= pi) {
                        let load = agent_work(&cx, &tb, x, s);
                        w = w.saturating_add(times(load, jobs(resp[i], resp[x], cx.period[x])));
                    }
                    let mut lower: Vec<(Time, u64, usize, ResourceId)> = Vec::new();
                    for &r in on_s.iter().filter(|&&r| f.ceiling[r] >= pi) {
                        for x in (0..cx.n()).filter(|&x| cx.prio(x) < pi && f.requests(x, r) > 0) {
                            let cap = f.requests(x, r) as u64 * jobs(resp[i], resp[x], cx.period[x]);
                            lower.push((f.cs(x, r), cap, x, r));
                        }
                    }
                    // Longest first; among equals, highest task and resource first.
                    lower.sort_by(|a, b| b.cmp(a));
                    let mut left = n as u64;
                    for &(len, cap, _, _) in &lower {
                        let k = cap.min(left);
                        w = w.saturating_add(times(len, k));
                        left -= k;
                    }
                    want = want.saturating_add(w.min(per_request));
                }
                prop_assert_eq!(got, want, "task {}", i);
            }
        }

        /// The grouped, warm-started demand, solved over the running sums
        /// ([`Above::solve`]), equals the equation applied to each request
        /// afresh over the term list: with several requests per resource,
        /// nested sections, resources spread over several synchronization
        /// CPUs, loads from light to past every deadline, and (`short`)
        /// windows spanning several periods of the tasks above under
        /// priorities that do not follow the periods, so that the scan's
        /// stop at the suffix minima is taken both early and late.
        #[test]
        fn grouped_requests_give_the_one_by_one_sum(
            seed in any::<u64>(),
            cpus in 2usize..5,
            util in 0.3f64..0.95,
            requests_max in 1u32..4,
            spread in any::<u64>(),
            short in any::<bool>(),
        ) {
            let sys = spread_system(seed, cpus, util, requests_max, spread, short, false);
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            for i in 0..cx.n() {
                let d = demand(&cx, &tb, i);
                prop_assert_eq!(d.remote, one_by_one(&cx, &tb, i), "task {}", i);
            }
        }
    }
}
