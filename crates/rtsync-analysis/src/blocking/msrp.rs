//! The multiprocessor stack resource policy (Gai, Lipari, Di Natale 2001).
//!
//! Local resources follow SRP. A global resource is requested
//! non-preemptively and its waiters spin in FIFO order, so each other CPU
//! has at most one request ahead: the spin per request on global `q` is
//! `s_q = Σ_{k ≠ P_i} max_{x on k} L_{x,q}` (Gai et al. 2001, Sec. 4),
//! charged as execution. The blocking of a job (once, plus once per
//! self-suspension) is the larger of its SRP blocking on local resources
//! and the longest non-preemptive spin-plus-section `s_q + L_{j,q}` of a
//! lower-precedence job of its CPU.
//!
//! Suspensions: a spinning waiter keeps its CPU non-preemptively, so
//! waiting for a global resource lets no lower job in; each
//! self-suspension does (and the job passes SRP's start test again): the
//! local term is charged `S_i + 1` times. Checked by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol`.

use super::lp::spin::Keys;
use super::{Demand, ceiling_blocking, times};
use crate::context::{BoundForm, Context};
use rtsync_model::{ResourceId, TaskId, Time};

/// Per CPU and global resource, the spin of one request issued there,
/// built once per system: `Σ_{k ≠ c} max_{x on k} L_{x,q}` is the sum over
/// all CPUs less CPU `c`'s own term, so each is two lookups rather than a
/// walk over every task (a job's bound reads one per section of every
/// lower task of its CPU).
pub struct Tables {
    /// `longest[c · nr + q]`: the longest section on `q` of a task of `c`.
    longest: Vec<Time>,
    /// Per resource, the sum of `longest` over all CPUs.
    all: Vec<Time>,
    nr: usize,
    /// With the LP form only, the spin-lock program's view of the system
    /// ([`super::lp::spin`]).
    keys: Option<Keys>,
}

impl Tables {
    /// The tables of the system in `cx`.
    pub fn new(cx: &Context) -> Tables {
        let f = &cx.f;
        let nr = f.n_resources;
        let mut longest = vec![Time::ZERO; f.cpus * nr];
        for x in 0..cx.n() {
            let Some(c) = cx.cpu(x).filter(|&c| c < f.cpus) else {
                continue;
            };
            // The task's own sections, not every resource: a task uses
            // few of them.
            for rq in f.sections(x).iter().filter(|rq| f.global[rq.resource]) {
                let l = &mut longest[c * nr + rq.resource];
                *l = (*l).max(rq.length);
            }
        }
        let all = (0..nr)
            .map(|q| (0..f.cpus).fold(Time::ZERO, |a, c| a.saturating_add(longest[c * nr + q])))
            .collect();
        Tables {
            longest,
            all,
            nr,
            keys: (cx.form == BoundForm::Lp).then(|| Keys::resources(cx)),
        }
    }

    /// Spin of one request of `x` on global `q`: one section of each other
    /// CPU, its longest.
    pub fn spin(&self, cx: &Context, x: TaskId, q: ResourceId) -> Time {
        match cx.cpu(x).filter(|&c| c < cx.f.cpus) {
            // A saturated sum is kept: never less than the true one.
            Some(_) if self.all[q] == Time::MAX => Time::MAX,
            Some(c) => self.all[q].saturating_sub(self.longest[c * self.nr + q]),
            None => self.all[q],
        }
    }
}

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound).
pub fn demand(cx: &Context, tb: &Tables, i: TaskId) -> Demand {
    let f = &cx.f;
    // One spin per section on a global resource (`N_{i,q}` of them on
    // each `q`, nested ones included).
    let mut total_spin = Time::ZERO;
    for rq in f.sections(i).iter().filter(|rq| f.global[rq.resource]) {
        total_spin = total_spin.saturating_add(tb.spin(cx, i, rq.resource));
    }
    let mut b = ceiling_blocking(cx, i, |r| !f.global[r]);
    for j in cx.lower_local(i) {
        for rq in f.sections(j).iter().filter(|rq| f.global[rq.resource]) {
            b = b.max(tb.spin(cx, j, rq.resource).saturating_add(rq.length));
        }
    }
    Demand {
        exec: f.tasks[i].wcet,
        spin: total_spin,
        local: times(b, cx.suspensions(i) + 1),
        remote: Time::ZERO,
        joint: None,
    }
}

/// Task `i`'s demand refined at the response-time estimates `resp`: with
/// `--analysis lp`, the joint bound of Wieder and Brandenburg's program
/// ([`super::lp::spin`]) on the spin and arrival blocking in the job's
/// busy window, which the engine charges in place of `spin + local` and
/// of the spin of the jobs above; `fixed` where the program does not
/// apply. The classic analysis has no job-window form and keeps `fixed`.
pub fn window_demand(cx: &Context, tb: &Tables, i: TaskId, fixed: Demand, resp: &[Time]) -> Demand {
    let Some(keys) = &tb.keys else {
        return fixed;
    };
    let local = ceiling_blocking(cx, i, |r| !cx.f.global[r]);
    Demand {
        joint: super::lp::spin::bound(cx, keys, i, resp, local),
        ..fixed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three CPUs; `q` is held 2 ms by `a` (CPU 0), 3 and 5 ms by `b` and
    /// `c` (CPU 1), 1 ms by `d` (CPU 2). A request from CPU 1 spins for
    /// one section of CPU 0 and one of CPU 2: 2 + 1 = 3 ms; from CPU 0,
    /// 5 + 1 = 6 ms; from CPU 2, 2 + 5 = 7 ms.
    #[test]
    fn one_section_of_each_other_cpu_its_longest() {
        let sys = rtsync_model::load_str(
            r#"
[platform]
cpus = 3
protocol = "msrp"
[[resource]]
name = "q"
[[task]]
name = "a"
period = "100ms"
cpu = 0
body = [ { lock = "q", hold = "2ms" } ]
[[task]]
name = "b"
period = "100ms"
cpu = 1
body = [ { lock = "q", hold = "3ms" } ]
[[task]]
name = "c"
period = "100ms"
cpu = 1
body = [ { lock = "q", hold = "5ms" } ]
[[task]]
name = "d"
period = "100ms"
cpu = 2
body = [ { lock = "q", hold = "1ms" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let spins: Vec<Time> = (0..4).map(|x| tb.spin(&cx, x, 0)).collect();
        assert_eq!(spins, [6, 3, 3, 7].map(Time::from_ms));
    }
}
