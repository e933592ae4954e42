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
    /// Per task, the spin of one job ([`Tables::job_spin`]).
    job_spin: Vec<Time>,
    /// Per task, its longest non-preemptive stretch on a global resource,
    /// spin and section together (`s_q + L_{j,q}`): what one of its jobs
    /// can hold its CPU for ahead of a higher task, read by every task
    /// above it on its CPU.
    stretch: Vec<Time>,
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
        let mut tb = Tables {
            longest,
            all,
            nr,
            job_spin: Vec::new(),
            stretch: Vec::new(),
            keys: (cx.form == BoundForm::Lp).then(|| Keys::resources(cx)),
        };
        // Each task's sections once here, rather than every lower task's
        // at every demand (a walk per pair of tasks on a CPU).
        (tb.job_spin, tb.stretch) = (0..cx.n())
            .map(|x| {
                let (mut sum, mut longest) = (Time::ZERO, Time::ZERO);
                for rq in f.sections(x).iter().filter(|rq| f.global[rq.resource]) {
                    let s = tb.spin(cx, x, rq.resource);
                    sum = sum.saturating_add(s);
                    longest = longest.max(s.saturating_add(rq.length));
                }
                (sum, longest)
            })
            .unzip();
        tb
    }

    /// The spin of one job of `i`: one per section on a global resource
    /// (`N_{i,q}` of them on each `q`, nested ones included), each
    /// [`Tables::spin`]. Tabled, so the engine also reads it ahead of any
    /// bound to order its looks ([`super::DemandTable::cpu_time_hint`]).
    pub fn job_spin(&self, i: TaskId) -> Time {
        self.job_spin[i]
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
    let mut b = ceiling_blocking(cx, i, |r| !f.global[r]);
    for j in cx.lower_local(i) {
        b = b.max(tb.stretch[j]);
    }
    Demand {
        exec: f.tasks[i].wcet,
        spin: tb.job_spin(i),
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

    /// `l` (CPU 0, below `h`) holds `p` 1 ms and `q` 6 ms; `o`, on the
    /// other CPU, holds them 8 and 1 ms. Each request of `l` spins for
    /// `o`'s section: 8 ms on `p`, 1 ms on `q`, so `l`'s job spins 9 ms and
    /// its longest non-preemptive stretch is `max(8 + 1, 1 + 6) = 9` ms,
    /// `h`'s local blocking: not the longest spin with the longest section
    /// (14 ms), which no single request can take.
    #[test]
    fn the_stretch_is_one_request_spin_and_section() {
        let sys = rtsync_model::load_str(
            r#"
[platform]
cpus = 2
protocol = "msrp"
[[resource]]
name = "p"
[[resource]]
name = "q"
[[task]]
name = "h"
period = "100ms"
priority = 2
cpu = 0
body = [ { compute = "1ms" } ]
[[task]]
name = "l"
period = "200ms"
priority = 1
cpu = 0
body = [ { lock = "p", hold = "1ms" }, { lock = "q", hold = "6ms" } ]
[[task]]
name = "o"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "p", hold = "8ms" }, { lock = "q", hold = "1ms" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let (h, l, o) = (
            demand(&cx, &tb, 0),
            demand(&cx, &tb, 1),
            demand(&cx, &tb, 2),
        );
        assert_eq!(h.local, Time::from_ms(9));
        assert_eq!(h.spin, Time::ZERO);
        assert_eq!(l.spin, Time::from_ms(9));
        assert_eq!(l.local, Time::ZERO);
        // `o` spins for `l`'s sections: 1 + 6 ms.
        assert_eq!(o.spin, Time::from_ms(7));
        // The engine's ordering hint is the job's time on its CPU exactly.
        let table = super::super::DemandTable::new(&cx);
        for (x, d) in [h, l, o].iter().enumerate() {
            assert_eq!(table.cpu_time_hint(x), d.cpu_time(), "task {x}");
        }
    }
}
