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
//! the agents' work as interference (see [`super::foreign_loads`]).

use super::mpcp::beyond_deadline;
use super::{Demand, own_sections, sync_cpu, times};
use crate::context::Cx;
use crate::recurrence::{self, Term};
use rtsync_model::{Priority, ResourceId, TaskId, Time};
use std::cell::RefCell;

/// Per-system tables, computed once.
pub struct Tables {
    /// Per synchronization CPU: `(priority, period, load, task)` of every
    /// task with sections there, highest priority first, where
    /// `load = Σ_{r on s} N_{x,r} L_{x,r}`.
    load: Vec<Vec<(Priority, Time, Time, TaskId)>>,
    /// Per resource: its users' `(priority, running max of cs)` sorted by
    /// priority, for "longest section of a task below priority p".
    below: Vec<Vec<(Priority, Time)>>,
    /// The terms of the recurrence being solved, kept to reuse their space.
    scratch: RefCell<Vec<Term>>,
}

impl Tables {
    pub fn new(cx: &Cx) -> Tables {
        let f = &cx.f;
        let mut load = vec![Vec::new(); f.cpus];
        let mut per = vec![Time::ZERO; f.cpus];
        for x in 0..cx.n() {
            per.fill(Time::ZERO);
            for r in 0..f.n_resources {
                let n = f.requests(x, r);
                if n > 0
                    && let Some(s) = sync_cpu(cx, r)
                {
                    per[s] = per[s].saturating_add(times(f.cs(x, r), n as u64));
                }
            }
            for (s, &l) in per.iter().enumerate() {
                if !l.is_zero() {
                    load[s].push((cx.prio(x), cx.period[x], l, x));
                }
            }
        }
        for l in &mut load {
            l.sort_by_key(|e| std::cmp::Reverse(e.0));
        }
        let below = (0..f.n_resources)
            .map(|r| {
                let mut v: Vec<(Priority, Time)> = f.users[r]
                    .iter()
                    .map(|&x| (cx.prio(x), f.cs(x, r)))
                    .collect();
                v.sort_by_key(|e| e.0);
                let mut m = Time::ZERO;
                for e in &mut v {
                    m = m.max(e.1);
                    e.1 = m;
                }
                v
            })
            .collect();
        Tables {
            load,
            below,
            scratch: RefCell::new(Vec::new()),
        }
    }

    /// Longest section on `r` of a task with priority strictly below `p`.
    fn longest_below(&self, r: ResourceId, p: Priority) -> Time {
        let v = &self.below[r];
        let k = v.partition_point(|e| e.0 < p);
        if k == 0 { Time::ZERO } else { v[k - 1].1 }
    }
}

/// Response of one request of `i` on `q`, own section included.
pub fn request_response(cx: &Cx, tb: &Tables, i: TaskId, q: ResourceId) -> Time {
    let f = &cx.f;
    let Some(s) = sync_cpu(cx, q) else {
        return Time::MAX;
    };
    let pi = cx.prio(i);
    let mut low = Time::ZERO;
    for r in (0..f.n_resources).filter(|&r| sync_cpu(cx, r) == Some(s) && f.ceiling[r] >= pi) {
        low = low.max(tb.longest_below(r, pi));
    }
    // Each `(⌈W / T_h⌉ + 1) · load` term puts `load` into the base.
    let mut base = f.cs(i, q).saturating_add(low);
    let mut terms = tb.scratch.borrow_mut();
    terms.clear();
    for &(_, period, load, x) in tb.load[s].iter().take_while(|e| e.0 >= pi) {
        if x != i {
            base = base.saturating_add(load);
            terms.push(Term::new(load, Time::ZERO, period));
        }
    }
    beyond_deadline(recurrence::solve(base, cx.deadline[i], &mut terms))
}

pub fn demand(cx: &Cx, tb: &Tables, i: TaskId) -> Demand {
    let f = &cx.f;
    let own = own_sections(cx, i);
    let mut remote = Time::ZERO;
    for rq in f.tasks[i].requests.iter().filter(|rq| rq.is_outermost()) {
        remote = remote.saturating_add(request_response(cx, tb, i, rq.resource));
    }
    Demand {
        exec: f.tasks[i].wcet.saturating_sub(own),
        remote,
        ..Demand::default()
    }
}
