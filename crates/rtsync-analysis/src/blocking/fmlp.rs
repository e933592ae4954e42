//! The FMLP as published: short resources (FIFO spin, non-preemptive)
//! beside long ones (FIFO suspension, priority boosting) in one system
//! (Block, Leontyev, Brandenburg and Anderson 2007, Sec. 3;
//! [`rtsync_model::Mix::Fmlp`]).
//!
//! The rules the bound relies on, all enforced before analysis: short and
//! long resources form separate groups (a group lock per nesting-connected
//! set of one kind, [`rtsync_model::Facts::group`]); a long request may
//! contain short ones, never the reverse (validation refuses a suspending
//! request inside a section that keeps its CPU). The bound composes the
//! two published ones, [`super::fmlp_s`] and [`super::fmlp_l`] (FMLP+
//! ordering of boosted jobs), with three interaction terms:
//!
//! - **Spin inside long sections.** A short request nested in a long
//!   section spins (non-preemptively) while the long resource is held, so
//!   each long section is charged its nested short requests' spin:
//!   `L'_x = max_{long s of x} (|s| + Σ_{short q in s} spin(q))`. Every
//!   term that charges another task's long section uses `L'`.
//! - **Short sections on the holder's CPU.** A long holder is granted while
//!   it is suspended; when it becomes ready its CPU may be inside a
//!   non-preemptive short section (spin and section) of any job there,
//!   which delays it once: a boosted holder is never preempted by a job
//!   that could start a new one. Each task counted in the request wait of
//!   [`super::fmlp_l::request_wait`] is charged that once on its CPU, and
//!   so is each other task of the requester's own CPU: [`super::fmlp_l`]
//!   leaves their long sections out of the wait (interference above the
//!   requester, one per arrival below it), but a lower task's short
//!   stretch, non-preemptive, can hold back a holder of that CPU queued
//!   ahead of the requester whatever the order of issue.
//! - **Local blocking per resumption.** `J_i` resumes after each long
//!   request and each self-suspension (`N_i + S_i + 1` times, as under
//!   FMLP-L). At each, every lower job of its CPU may be inside a boosted
//!   long section (`Σ_j L'_j`) and one may be inside a non-preemptive
//!   short section (`max_j` of its spin and section, FMLP-S's term): at
//!   most one job of a CPU is non-preemptive at a time.
//!
//! Spinning is charged as execution (`spin`), once per short request of
//! `J_i` (nested in a long section or not), one section per other CPU:
//! spinning is non-preemptive, so each CPU has at most one short request
//! in any FIFO queue. On a system with only short (only long) resources
//! the bound equals [`super::fmlp_s`]'s ([`super::fmlp_l`]'s); a test checks
//! it. The searched soundness experiment checks the composition
//! (`rtsync experiment soundness --mix by-length`).

use super::{Demand, times};
use crate::context::Context;
use rtsync_model::{Protocol, Request, TaskId, Time};

fn short(cx: &Context, r: usize) -> bool {
    cx.sys.resources[r].protocol == Protocol::FmlpS
}

/// Whether `rq` is a short request that holds no short resource: the
/// request that spins for its group.
fn short_outermost(cx: &Context, rq: &Request) -> bool {
    short(cx, rq.resource) && !cx.f.held(rq).iter().any(|&h| short(cx, h))
}

/// Longest short section of `x` in group `g` (its outermost short level).
fn short_cs(cx: &Context, x: TaskId, g: usize) -> Time {
    cx.f.sections(x)
        .iter()
        .filter(|rq| short_outermost(cx, rq) && cx.f.group[rq.resource] == g)
        .map(|rq| rq.length)
        .max()
        .unwrap_or(Time::ZERO)
}

/// Spin of one short request of `x` for group `g`: the longest section of
/// each other CPU.
fn spin(cx: &Context, x: TaskId, g: usize) -> Time {
    (0..cx.f.cpus)
        .filter(|&c| Some(c) != cx.cpu(x))
        .map(|c| {
            cx.f.on_cpu(c)
                .iter()
                .map(|&y| short_cs(cx, y, g))
                .max()
                .unwrap_or(Time::ZERO)
        })
        .fold(Time::ZERO, Time::saturating_add)
}

/// `L'_x`: the longest long section of `x`, its nested short requests'
/// spin included.
fn long_eff(cx: &Context, x: TaskId) -> Time {
    let mut best = Time::ZERO;
    let mut current: Option<Time> = None;
    for rq in cx.f.sections(x) {
        if rq.is_outermost() {
            if let Some(c) = current.take() {
                best = best.max(c);
            }
            if !short(cx, rq.resource) {
                current = Some(rq.length);
            }
        } else if let Some(c) = current.as_mut()
            && short_outermost(cx, rq)
        {
            *c = c.saturating_add(spin(cx, x, cx.f.group[rq.resource]));
        }
    }
    best.max(current.unwrap_or(Time::ZERO))
}

/// The longest non-preemptive stretch of `x` outside long sections: an
/// outermost short request's spin and section.
fn short_np(cx: &Context, x: TaskId) -> Time {
    cx.f.sections(x)
        .iter()
        .filter(|rq| rq.is_outermost() && short(cx, rq.resource))
        .map(|rq| spin(cx, x, cx.f.group[rq.resource]).saturating_add(rq.length))
        .max()
        .unwrap_or(Time::ZERO)
}

/// The per-task and per-CPU terms every task's bound reads, computed once
/// per system.
pub struct Tables {
    /// `L'_x` per task.
    long_eff: Vec<Time>,
    /// The longest non-preemptive short stretch per task.
    short_np: Vec<Time>,
    /// The longest such stretch of any task, per CPU.
    np_on: Vec<Time>,
    /// Per group, the per-request costs of every task that can delay a
    /// long request for it, the requester's included
    /// ([`super::fmlp_l::ahead_sums`]).
    ahead: Vec<Time>,
    /// Per CPU, `L'` summed over its tasks: the part of a request's wait
    /// that its own CPU's tasks do not add ([`Tables::request_wait`]).
    long_on: Vec<Time>,
}

impl Tables {
    /// The tables of `cx`'s system.
    pub fn new(cx: &Context) -> Tables {
        let long_eff: Vec<Time> = (0..cx.n()).map(|x| long_eff(cx, x)).collect();
        let short_np: Vec<Time> = (0..cx.n()).map(|x| short_np(cx, x)).collect();
        let mut np_on = vec![Time::ZERO; cx.f.cpus];
        for (x, &np) in short_np.iter().enumerate() {
            if let Some(c) = cx.cpu(x) {
                np_on[c] = np_on[c].max(np);
            }
        }
        let cost = |x: TaskId| {
            let np = cx.cpu(x).map_or(Time::ZERO, |c| np_on[c]);
            long_eff[x].saturating_add(np)
        };
        let ahead = super::fmlp_l::ahead_sums(cx, super::fmlp_l::n_groups(cx), cost);
        let long_on = super::fmlp_l::per_cpu(cx, &long_eff);
        Tables {
            long_eff,
            short_np,
            np_on,
            ahead,
            long_on,
        }
    }

    /// The longest a long request of `i` for group `g` waits: one long
    /// section (and one short stretch on its CPU) of each task queued
    /// ahead or boosted ahead, as [`super::fmlp_l::request_wait`] counts
    /// them: the long sections of `i`'s own CPU left out (charged as
    /// interference above `i`, and per arrival below it), their short
    /// stretches kept. A short stretch is non-preemptive: a lower task can
    /// start one while `i` and a holder of its CPU ahead of `i` are
    /// suspended, and the holder, once granted, waits for it whatever the
    /// order of issue. Every task of `i`'s CPU is in the group's sum (the
    /// CPU hosts a user, `i`).
    fn request_wait(&self, cx: &Context, i: TaskId, g: usize) -> Time {
        let own = match cx.cpu(i) {
            Some(c) => self.long_on[c].saturating_add(self.np_on[c]),
            None => self.long_eff[i],
        };
        super::excluding(self.ahead[g], own)
    }
}

/// Task `i`'s blocking and execution terms with FMLP short and long
/// resources (the module's bound).
pub fn demand(cx: &Context, tb: &Tables, i: TaskId) -> Demand {
    let f = &cx.f;
    let (mut spin_total, mut remote, mut n_long) = (Time::ZERO, Time::ZERO, 0u64);
    for rq in f.sections(i) {
        let g = f.group[rq.resource];
        if short_outermost(cx, rq) {
            spin_total = spin_total.saturating_add(spin(cx, i, g));
        } else if rq.is_outermost() {
            n_long += 1;
            remote = remote.saturating_add(tb.request_wait(cx, i, g));
        }
    }
    let resumptions = n_long + cx.suspensions(i) + 1;
    let (mut boosted, mut np) = (Time::ZERO, Time::ZERO);
    for j in cx.lower_local(i) {
        boosted = boosted.saturating_add(tb.long_eff[j]);
        np = np.max(tb.short_np[j]);
    }
    Demand {
        exec: f.tasks[i].wcet,
        spin: spin_total,
        local: times(boosted.saturating_add(np), resumptions),
        remote,
        joint: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtsync_model::System;

    /// Two CPUs; `a` (high) and `b` (low) on CPU 0, `c` on CPU 1.
    fn sys(protocol_s: &str, protocol_l: &str) -> System {
        let src = format!(
            "[platform]\ncpus = 2\n\
[[resource]]\nname = \"S\"\nprotocol = \"{protocol_s}\"\n\
[[resource]]\nname = \"L\"\nprotocol = \"{protocol_l}\"\n\
[[task]]\nname = \"a\"\nperiod = \"100ms\"\npriority = 3\ncpu = 0\nbody = [ {{ lock = \"S\", hold = \"1ms\" }} ]\n\
[[task]]\nname = \"b\"\nperiod = \"100ms\"\npriority = 1\ncpu = 0\nbody = [ {{ lock = \"L\", body = [ {{ compute = \"4ms\" }}, {{ lock = \"S\", hold = \"2ms\" }} ] }} ]\n\
[[task]]\nname = \"c\"\nperiod = \"100ms\"\npriority = 2\ncpu = 1\nbody = [ {{ lock = \"S\", hold = \"3ms\" }}, {{ lock = \"L\", hold = \"5ms\" }} ]\n"
        );
        rtsync_model::load_str(&src, None)
            .unwrap_or_else(|d| panic!("{d}"))
            .0
    }

    /// Worked by hand from the module's terms.
    #[test]
    fn the_composed_bound_by_hand() {
        let s = sys("fmlp-s", "fmlp-l");
        let cx = Context::new(&s);
        // a: one short request; the other CPU's longest S section is c's
        // 3 ms. Lower job b may be inside its long section, 6 ms plus its
        // nested S request's spin (c's 3 ms): 9 ms; b has no outermost
        // short section. One resumption (no long request, no suspension).
        let tb = Tables::new(&cx);
        let d = demand(&cx, &tb, 0);
        assert_eq!(d.spin, Time::from_ms(3));
        assert_eq!(d.local, Time::from_ms(9));
        assert_eq!(d.remote, Time::ZERO);
        // c: its S request spins for CPU 0's longest S section at the
        // outermost short level: a's 1 ms or b's 2 ms (nested in L, but
        // the outermost short level of b's requests): 2 ms. Its L request
        // waits for b (a user of L): L'_b = 9 ms plus the longest short
        // stretch on CPU 0 (a's spin 3 + 1 = 4 ms), and for a (on CPU 0,
        // a user's CPU): L'_a = 0 plus 4 ms: 17 ms in all.
        let d = demand(&cx, &tb, 2);
        assert_eq!(d.spin, Time::from_ms(2));
        assert_eq!(d.remote, Time::from_ms(17));
        assert_eq!(d.local, Time::ZERO);
    }

    /// A long request's wait leaves out the long sections of the
    /// requester's own CPU but keeps that CPU's short stretches. CPU 0:
    /// `a` (high) holds L 2 ms; `b` (low) holds S 1 ms, then L 4 ms. CPU
    /// 1: `c` holds L 3 ms, then S 2 ms. `a`'s L request waits for `c`
    /// (`L'_c` = 3 ms plus CPU 1's longest short stretch, `c`'s spin for
    /// `b`'s 1 ms and its 2 ms section: 6 ms) and for one short stretch of
    /// `b` on its own CPU (its spin for `c`'s 2 ms and its 1 ms: 3 ms),
    /// which can hold back a holder of CPU 0 queued ahead of `a`: 9 ms.
    /// `b`'s 4 ms long section is charged at `a`'s two arrivals instead,
    /// with its short stretch: 14 ms of local blocking. (The wait held
    /// `b`'s long section too until 2026-12-02: 13 ms.)
    #[test]
    fn own_cpu_long_sections_leave_the_wait_but_short_stretches_stay() {
        let src = "[platform]\ncpus = 2\n\
[[resource]]\nname = \"S\"\nprotocol = \"fmlp-s\"\n\
[[resource]]\nname = \"L\"\nprotocol = \"fmlp-l\"\n\
[[task]]\nname = \"a\"\nperiod = \"100ms\"\npriority = 3\ncpu = 0\nbody = [ { lock = \"L\", hold = \"2ms\" } ]\n\
[[task]]\nname = \"b\"\nperiod = \"100ms\"\npriority = 1\ncpu = 0\nbody = [ { lock = \"S\", hold = \"1ms\" }, { lock = \"L\", hold = \"4ms\" } ]\n\
[[task]]\nname = \"c\"\nperiod = \"100ms\"\npriority = 2\ncpu = 1\nbody = [ { lock = \"L\", hold = \"3ms\" }, { lock = \"S\", hold = \"2ms\" } ]\n";
        let s = rtsync_model::load_str(src, None)
            .unwrap_or_else(|d| panic!("{d}"))
            .0;
        let cx = Context::new(&s);
        let tb = Tables::new(&cx);
        let d = demand(&cx, &tb, 0);
        assert_eq!(d.remote, Time::from_ms(9));
        assert_eq!(d.local, Time::from_ms(14));
    }

    /// With one kind only, the composition is the published bound.
    #[test]
    fn one_kind_alone_gives_the_published_bound() {
        let fmlp_l = |cx: &Context, i: TaskId| {
            super::super::fmlp_l::demand(cx, &super::super::fmlp_l::Tables::new(cx), i)
        };
        for (p, one) in [
            (
                "fmlp-s",
                &super::super::fmlp_s::demand as &dyn Fn(&Context, TaskId) -> Demand,
            ),
            ("fmlp-l", &fmlp_l),
        ] {
            let s = sys(p, p);
            let cx = Context::new(&s);
            let tb = Tables::new(&cx);
            for i in 0..cx.n() {
                assert_eq!(demand(&cx, &tb, i), one(&cx, i), "{p}, task {i}");
            }
        }
    }
}
