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
use rtsync_model::{Cpu, Priority, ResourceId, TaskId, Time};
use std::cell::RefCell;

/// Per-system tables, computed once.
pub struct Tables {
    /// Per resource: its synchronization CPU.
    sync: Vec<Option<Cpu>>,
    /// Per synchronization CPU: the resources it serves.
    served: Vec<Vec<ResourceId>>,
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
    /// Built by walking the tasks in priority order ([`Facts::by_priority`]),
    /// so that no list needs sorting.
    ///
    /// [`Facts::by_priority`]: rtsync_model::Facts::by_priority
    pub fn new(cx: &Cx) -> Tables {
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
        let mut load = vec![Vec::new(); f.cpus];
        let mut below: Vec<Vec<(Priority, Time)>> = f
            .users
            .iter()
            .map(|u| Vec::with_capacity(u.len()))
            .collect();
        let mut per = vec![Time::ZERO; f.cpus];
        for &x in &f.by_priority {
            per.fill(Time::ZERO);
            let p = cx.prio(x);
            for r in 0..nr {
                let n = f.requests(x, r);
                if n == 0 {
                    continue;
                }
                below[r].push((p, f.cs(x, r)));
                if let Some(s) = sync[r] {
                    per[s] = per[s].saturating_add(times(f.cs(x, r), n as u64));
                }
            }
            for (s, &l) in per.iter().enumerate() {
                if !l.is_zero() {
                    load[s].push((p, cx.period[x], l, x));
                }
            }
        }
        for v in &mut below {
            // Highest priority first so far: lowest first, then the
            // running maximum.
            v.reverse();
            let mut m = Time::ZERO;
            for e in v.iter_mut() {
                m = m.max(e.1);
                e.1 = m;
            }
        }
        Tables {
            sync,
            served,
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
    let Some(s) = tb.sync[q] else {
        return Time::MAX;
    };
    let pi = cx.prio(i);
    let mut low = Time::ZERO;
    for &r in tb.served[s].iter().filter(|&&r| f.ceiling[r] >= pi) {
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
