//! The distributed FIFO locking protocol (Brandenburg 2013).
//!
//! Like DPCP, sections run on the resource's synchronization CPU while the
//! requester suspends; unlike DPCP, requests are served in FIFO order, and
//! the synchronization CPU runs the pending sections in the order their
//! requests were issued (FIFO-ordered priority boosting). Each task has at
//! most one request outstanding, so a request is delayed by at most one
//! section of each other task that uses a resource synchronized on the same
//! CPU, whatever the priorities (Brandenburg 2013, Lemma 1 and Sec. 4):
//!
//! `W_{i,q} = L_{i,q} + Σ_{x ≠ i} max_{r on s(q)} L_{x,r}`.
//!
//! A request served on the job's own CPU waits for its own section alone
//! in this term: the sections queued before it run on that CPU, as agents,
//! and the response-time analysis charges every agent section run there in
//! the job's window as interference (`A_i`). Counting them in the wait too
//! charged them twice (DPCP's correction of issue 28, made for DFLP on
//! 2026-11-25).
//!
//! Suspensions: every section runs on a synchronization CPU, so no lower
//! job of the requester's CPU holds anything there that the job needs
//! after it resumes: there is no local blocking to re-open. The agents'
//! work on a CPU that also hosts tasks is charged as interference by the
//! response-time analysis ([`super::foreign_loads`]). Checked by the
//! simulator's `distributed_protocols_have_no_local_blocking_to_reopen`.

use super::{Demand, own_sections, sync_cpu};
use crate::context::{BoundForm, Context};
use rtsync_model::{Cpu, Request, ResourceId, TaskId, Time};

/// A task's sections on one resource: `(longest, how many per job, the
/// resource)`.
pub(crate) type Pair = (Time, u32, ResourceId);

/// A job's requests on one synchronization CPU: `(CPU, requests there,
/// its own sections there, the classic bound on their responses)`.
type Split = (Option<Cpu>, u64, Time, Time);

/// What the LP form ([`super::lp::dflp`]) reads, built once per system.
pub struct Tables {
    /// Per synchronization CPU, per task with sections there, its pairs,
    /// longest first.
    pub(crate) users_on: Vec<Vec<(TaskId, Vec<Pair>)>>,
    /// Per task, its requests per synchronization CPU.
    split: Vec<Vec<Split>>,
}

impl Tables {
    /// The tables of the system in `cx`.
    pub fn new(cx: &Context) -> Tables {
        let f = &cx.f;
        let mut users_on = vec![Vec::new(); f.cpus];
        let mut split = Vec::with_capacity(cx.n());
        for x in 0..cx.n() {
            let mut per: Vec<Vec<Pair>> = vec![Vec::new(); f.cpus];
            let mut mine: Vec<Split> = Vec::new();
            for rq in f.sections(x).iter().filter(|rq| rq.is_outermost()) {
                let q = rq.resource;
                let s = sync_cpu(cx, q);
                if let Some(c) = s.filter(|&c| c < f.cpus) {
                    match per[c].iter_mut().find(|p| p.2 == q) {
                        Some(p) => {
                            p.0 = p.0.max(rq.length);
                            p.1 += 1;
                        }
                        None => per[c].push((rq.length, 1, q)),
                    }
                }
                let w = request_response(cx, x, rq);
                match mine.iter_mut().find(|m| m.0 == s) {
                    Some(m) => {
                        m.1 += 1;
                        m.2 = m.2.saturating_add(rq.length);
                        m.3 = m.3.saturating_add(w);
                    }
                    None => mine.push((s, 1, rq.length, w)),
                }
            }
            for (c, mut pairs) in per.into_iter().enumerate() {
                if !pairs.is_empty() {
                    pairs.sort_by_key(|p| std::cmp::Reverse(p.0));
                    users_on[c].push((x, pairs));
                }
            }
            split.push(mine);
        }
        Tables { users_on, split }
    }

    /// `N_{i,s}`: task `i`'s requests served on `s`.
    pub fn requests_on(&self, i: TaskId, s: Cpu) -> u64 {
        self.split[i]
            .iter()
            .find(|m| m.0 == Some(s))
            .map_or(0, |m| m.1)
    }
}

/// The longest the request `rq` of task `i` takes from issue to the end
/// of its section on the synchronization CPU: its own section as it is
/// (not the task's longest on the resource), and one section of every
/// other task there.
pub fn request_response(cx: &Context, i: TaskId, rq: &Request) -> Time {
    let f = &cx.f;
    let s = sync_cpu(cx, rq.resource);
    if s.is_some() && s == cx.cpu(i) {
        // Served on the job's own CPU: the sections queued before it run
        // there, as agents, and are in the agents' interference `A_i`
        // already (as under DPCP).
        return rq.length;
    }
    let mut w = rq.length;
    for x in (0..cx.n()).filter(|&x| x != i) {
        let longest = (0..f.n_resources)
            .filter(|&r| sync_cpu(cx, r) == s)
            .map(|r| f.cs(x, r))
            .max()
            .unwrap_or(Time::ZERO);
        w = w.saturating_add(longest);
    }
    w
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    let f = &cx.f;
    let own = own_sections(cx, i);
    let mut remote = Time::ZERO;
    for rq in f.sections(i).iter().filter(|rq| rq.is_outermost()) {
        remote = remote.saturating_add(request_response(cx, i, rq));
    }
    Demand {
        exec: f.tasks[i].wcet.saturating_sub(own),
        remote,
        ..Demand::default()
    }
}

/// [`demand`] read from the tables, which hold every request's classic
/// bound already: the LP form's fixed demand, without solving them again.
pub fn tabled_demand(cx: &Context, tb: &Tables, i: TaskId) -> Demand {
    Demand {
        exec: cx.f.tasks[i].wcet.saturating_sub(own_sections(cx, i)),
        remote: tb.split[i]
            .iter()
            .fold(Time::ZERO, |a, m| a.saturating_add(m.3)),
        ..Demand::default()
    }
}

/// Task `i`'s demand refined at the response-time estimates `resp`: with
/// `--analysis lp`, per synchronization CPU other than `i`'s own, the
/// smaller of the classic bound on its requests there and their own
/// sections plus the LP's bound ([`super::lp::dflp`]). Requests served on
/// `i`'s own CPU keep the classic bound. The classic analysis has no
/// job-window form and keeps `fixed`.
pub fn window_demand(cx: &Context, tb: &Tables, i: TaskId, fixed: Demand, resp: &[Time]) -> Demand {
    if cx.form != BoundForm::Lp {
        return fixed;
    }
    let mut remote = Time::ZERO;
    for &(s, n, own, classic) in &tb.split[i] {
        let best = match s {
            Some(c) if cx.cpu(i) != Some(c) && c < cx.f.cpus => {
                classic.min(own.saturating_add(super::lp::dflp::bound(cx, tb, i, c, n, resp)))
            }
            _ => classic,
        };
        remote = remote.saturating_add(best);
    }
    Demand { remote, ..fixed }
}
