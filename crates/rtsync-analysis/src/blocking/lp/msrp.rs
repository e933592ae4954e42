//! The MSRP spin-lock blocking program (Wieder and Brandenburg, "On spin
//! locks in AUTOSAR: blocking analysis of FIFO, unordered, and
//! priority-ordered spin locks", RTSS 2013, Sec. V, constraints 1 to 9 and
//! the contention-window constraint of SchedCAT's `lp_spinlocks.cpp`), for
//! non-preemptive FIFO spinning under P-FP.
//!
//! **Joint over the busy window.** The program bounds, in one objective,
//! everything spinning adds to the busy window of `J_i` (length `R_i`):
//! the spin of `J_i`'s own requests, the spin of the requests of the jobs
//! above it on its CPU released in the window (`hp(i)`, the tasks the
//! response-time equation charges as interference), and arrival blocking
//! (a lower job of the CPU inside a non-preemptive section, spin
//! included, or inside an SRP section that reaches `J_i`). The engine
//! then charges the jobs above their execution alone
//! ([`crate::blocking::Demand::joint`]). Counting them jointly is what
//! makes it tighter than the per-request bound: a remote task has only
//! `m_{x,q} = N_{x,q} · ⌈(R_i + R_x) / T_x⌉` requests that can overlap the
//! window, however many local requests they could each delay.
//!
//! Variables, per task `x ≠ i` and resource `q` (aggregated over the
//! `m_{x,q}` instances, see [`super`]): `D` (an instance `J_i` or a job
//! above spins for) and `A` (an instance that delays the job that blocks
//! `J_i` at its arrival). Constraints, with `ncs_q = N_{i,q} + Σ_{h ∈
//! hp(i)} ⌈(w_i + J_h) / T_h⌉ N_{h,q}` the local requests for `q` in the
//! busy window `w_i = R_i - J_i` (the engine's count of the jobs above) and `A_q ∈ {0, 1}` whether `q` causes the arrival blocking:
//!
//! - (1) `D + A ≤ m_{x,q}`;
//! - (2) `Σ_q A_q ≤ 1`; (3) `A_q = 0` unless a lower task of the CPU uses
//!   `q`; (4) `A_q = 0` for a local resource whose ceiling is below `J_i`;
//! - (5) `A = 0` for the tasks above `J_i` on its CPU; (7) `D = 0` for all
//!   tasks of its CPU; (6) `Σ_{x lower, local} A_{x,q} ≤ A_q`;
//! - (8) per other CPU `c`: `Σ_{x on c} D_{x,q} ≤ ncs_q` (FIFO: each other
//!   CPU has one request ahead of each local one); (9) `Σ_{x on c}
//!   A_{x,q} ≤ A_q`;
//! - (contention window) for `q` that `J_i` does not request, `D_{x,q} ≤
//!   Σ_{h ∈ hp(i), N_{h,q} > 0} ⌈(w_i + J_h) / T_h⌉ ⌈(R_h + R_x) / T_x⌉
//!   N_{x,q}`: an instance of `x` can only delay a job above that it
//!   overlaps.
//!
//! **Solved by structure.** Fix the arrival choice (no resource, or one
//! `q` with `A_q = 1`): the rest falls apart per other CPU and resource,
//! and each piece is a max-weight independent set of a matroid (instances
//! routed to `ncs_q` direct slots through per-task caps, and one arrival
//! slot that takes any instance), so the greedy choice is optimal: the
//! longest instances as `D` up to the caps, then the longest instance
//! left as `A`. The direct part does not depend on the choice, so the
//! optimum is the direct part plus the best choice. The tests check it
//! against a general LP solver, one program per choice.
//!
//! **Where it applies.** Jobs that self-suspend are arrival-blocked once
//! per resumption, which the binary `A_q` does not express, and a nested
//! global request spins inside its outer section, which the section
//! lengths do not hold: for those jobs, and for systems with nested global
//! resources, [`bound`] answers `None` and the classic bound stays.

use super::{Kind, Program, Var};
use crate::blocking::msrp::Tables;
use crate::blocking::{ceiling_blocking, jobs, times};
use crate::context::Context;
use rtsync_model::{ResourceId, TaskId, Time};

/// What the program reads at the response-time estimates: the jobs above
/// `J_i` in its window, `ncs_q`, and the arrival candidates.
struct Window {
    cpu: usize,
    /// `(h, its jobs in J_i's window)` for every task above `J_i`.
    hp: Vec<(TaskId, u64)>,
    /// Per resource, `ncs_q`.
    ncs: Vec<u64>,
}

impl Window {
    /// `None` where the program does not apply (see the module's doc).
    fn new(cx: &Context, i: TaskId, resp: &[Time]) -> Option<Window> {
        let f = &cx.f;
        let cpu = cx.cpu(i).filter(|&c| c < f.cpus)?;
        if f.tasks[i].suspensions > 0
            || f.nesting
                .iter()
                .any(|&(a, b, _)| f.global[a] || f.global[b])
        {
            return None;
        }
        let pi = cx.prio(i);
        // The busy window, `R_i` less `J_i`: the engine counts the jobs
        // above in it as `⌈(w + J_h) / T_h⌉`, and so does `ncs_q`.
        let busy = resp[i].saturating_sub(cx.jitter[i]);
        let hp: Vec<(TaskId, u64)> = f
            .on_cpu(cpu)
            .iter()
            .copied()
            .filter(|&h| h != i && cx.prio(h) >= pi)
            .map(|h| {
                // A job above that self-suspends can be released up to
                // its response time before the window and still run in it.
                let j = if f.tasks[h].suspensions > 0 {
                    resp[h]
                } else {
                    cx.jitter[h]
                };
                (h, jobs(busy, j, cx.period[h]))
            })
            .collect();
        let ncs = (0..f.n_resources)
            .map(|q| {
                hp.iter().fold(f.requests(i, q) as u64, |a, &(h, k)| {
                    a.saturating_add(k.saturating_mul(f.requests(h, q) as u64))
                })
            })
            .collect();
        Some(Window { cpu, hp, ncs })
    }

    /// `m_{x,q}`: `x`'s requests for `q` that can overlap the window.
    fn instances(&self, cx: &Context, i: TaskId, x: TaskId, q: ResourceId, resp: &[Time]) -> u64 {
        jobs(resp[i], resp[x], cx.period[x]).saturating_mul(cx.f.requests(x, q) as u64)
    }

    /// The cap on `D_{x,q}`: `m_{x,q}`, and the contention window where
    /// `J_i` does not request `q` itself.
    fn direct_cap(&self, cx: &Context, i: TaskId, x: TaskId, q: ResourceId, resp: &[Time]) -> u64 {
        let f = &cx.f;
        let m = self.instances(cx, i, x, q, resp);
        if f.requests(i, q) > 0 {
            return m;
        }
        let per_job = f.requests(x, q) as u64;
        let window =
            self.hp
                .iter()
                .filter(|&&(h, _)| f.requests(h, q) > 0)
                .fold(0u64, |a, &(h, k)| {
                    a.saturating_add(
                        k.saturating_mul(jobs(resp[h], resp[x], cx.period[x]))
                            .saturating_mul(per_job),
                    )
                });
        m.min(window)
    }

    /// The longest section on global `q` of a lower task of the CPU, if
    /// one uses `q` (constraint 3).
    fn lower_section(&self, cx: &Context, i: TaskId, q: ResourceId) -> Option<Time> {
        cx.lower_local(i)
            .filter(|&x| cx.f.requests(x, q) > 0)
            .map(|x| cx.f.cs(x, q))
            .max()
    }
}

/// The program's optimum: a bound on `J_i`'s own spin, its arrival
/// blocking and the spin of the jobs above it in its window, at the
/// response-time estimates `resp` (`resp[i]` the window); `None` where
/// the program does not apply.
pub fn bound(cx: &Context, tb: &Tables, i: TaskId, resp: &[Time]) -> Option<Time> {
    let f = &cx.f;
    let w = Window::new(cx, i, resp)?;
    let mut direct = Time::ZERO;
    // The best arrival blocking through a global resource.
    let mut arrival = ceiling_blocking(cx, i, |r| !f.global[r]);
    for q in (0..f.n_resources).filter(|&q| f.global[q]) {
        let lower = w.lower_section(cx, i, q);
        if w.ncs[q] == 0 && lower.is_none() {
            continue;
        }
        // Per other CPU: the direct part, and the longest instance left.
        let mut left_over = Time::ZERO;
        for c in (0..f.cpus).filter(|&c| c != w.cpu) {
            let mut slots = w.ncs[q];
            let mut spare: Option<Time> = None;
            for &(len, x) in tb.users(c, q) {
                let m = w.instances(cx, i, x, q, resp);
                let take = w.direct_cap(cx, i, x, q, resp).min(slots);
                direct = direct.saturating_add(times(len, take));
                slots -= take;
                if spare.is_none() && m > take {
                    // Longest first: the first task with an instance left.
                    spare = Some(len);
                }
                if slots == 0 && spare.is_some() {
                    break;
                }
            }
            left_over = left_over.saturating_add(spare.unwrap_or(Time::ZERO));
        }
        if let Some(l) = lower {
            arrival = arrival.max(l.saturating_add(left_over));
        }
    }
    Some(direct.saturating_add(arrival))
}

/// The arrival choices the program's binary `A_q` ranges over: `None`
/// (no arrival blocking) and every resource constraints 3 and 4 allow.
pub fn choices(cx: &Context, i: TaskId) -> Vec<Option<ResourceId>> {
    let f = &cx.f;
    let Some(cpu) = cx.cpu(i) else {
        return vec![None];
    };
    let rank = cx.rank(i);
    let mut out = vec![None];
    for q in 0..f.n_resources {
        let used_below = cx.lower_local(i).any(|x| f.requests(x, q) > 0);
        let reaches = f.global[q] || cx.local_ceiling(q, cpu) >= rank;
        if used_below && reaches {
            out.push(Some(q));
        }
    }
    out
}

/// The program with the arrival choice `arrival` fixed, as the module's
/// doc states it (aggregated): what the tests solve with a general LP
/// solver to check [`bound`] (its optimum is the largest over
/// [`choices`]). `None` where the program does not apply.
pub fn program(
    cx: &Context,
    i: TaskId,
    resp: &[Time],
    arrival: Option<ResourceId>,
) -> Option<Program> {
    let f = &cx.f;
    let w = Window::new(cx, i, resp)?;
    let mut p = Program::default();
    let allowed = |q: ResourceId| u64::from(arrival == Some(q));
    for q in 0..f.n_resources {
        let var = |x: TaskId, kind, local| Var {
            task: x,
            key: q,
            kind,
            local,
            length: f.cs(x, q).ns() as f64,
        };
        // (6): lower tasks of the CPU, arrival alone (5, 7).
        let mut lower = Vec::new();
        for x in cx.lower_local(i).filter(|&x| f.requests(x, q) > 0) {
            let a = p.var(var(x, Kind::Arrival, true));
            p.at_most(1, &[a], w.instances(cx, i, x, q, resp));
            lower.push(a);
        }
        p.at_most(6, &lower, allowed(q));
        if !f.global[q] {
            continue;
        }
        for c in (0..f.cpus).filter(|&c| c != w.cpu) {
            let (mut ds, mut as_) = (Vec::new(), Vec::new());
            for &x in f.on_cpu(c).iter().filter(|&&x| f.requests(x, q) > 0) {
                let d = p.var(var(x, Kind::Direct, false));
                let a = p.var(var(x, Kind::Arrival, false));
                p.at_most(1, &[d, a], w.instances(cx, i, x, q, resp));
                p.at_most(10, &[d], w.direct_cap(cx, i, x, q, resp));
                ds.push(d);
                as_.push(a);
            }
            p.at_most(8, &ds, w.ncs[q]);
            p.at_most(9, &as_, allowed(q));
        }
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocking::lp::check::optimum;
    use crate::generate::{GenConfig, generate};
    use crate::partition::Heuristic;
    use proptest::prelude::*;
    use rtsync_model::Protocol;

    /// Two CPUs. On CPU 0, `h` (high) requests `q` twice per job (1 ms),
    /// `i` once (1 ms), `l` (low) once (2 ms). On CPU 1, `x` holds `q` for
    /// 3 ms once per job, period 100 ms. At windows of 10 ms for `i`, 5
    /// for `h`, 10 for `x`, and `h`'s period 50 ms: `h` has one job in the
    /// window, so `ncs_q = 1 + 2 = 3`, but `x` has `⌈(10 + 10) / 100⌉ = 1`
    /// instance: one 3 ms direct delay, and none left for the arrival
    /// blocking, which is `l`'s 2 ms section: 5 ms. The classic bound
    /// charges 3 ms per request, `i`'s and `h`'s two, plus `l`'s section
    /// and its 3 ms spin: 9 + 5 = 14 ms.
    #[test]
    fn a_hand_worked_example() {
        let sys = rtsync_model::load_str(
            r#"
[platform]
cpus = 2
protocol = "msrp"
[[resource]]
name = "q"
[[task]]
name = "h"
period = "50ms"
priority = 3
cpu = 0
body = [ { lock = "q", hold = "1ms" }, { lock = "q", hold = "1ms" } ]
[[task]]
name = "i"
period = "100ms"
priority = 2
cpu = 0
body = [ { lock = "q", hold = "1ms" } ]
[[task]]
name = "l"
period = "200ms"
priority = 1
cpu = 0
body = [ { lock = "q", hold = "2ms" } ]
[[task]]
name = "x"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "q", hold = "3ms" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let cx = Context::with_form(&sys, crate::BoundForm::Lp);
        let tb = Tables::new(&cx);
        let resp = [5, 10, 20, 10].map(Time::from_ms);
        assert_eq!(bound(&cx, &tb, 1, &resp), Some(Time::from_ms(5)));
        // With `x`'s period 10 ms it has two instances, both direct
        // delays (`ncs_q = 3`): 6 + 2 ms. With 5 ms, four: three direct,
        // the fourth the arrival blocking's spin, 9 + 2 + 3 = 14 ms, the
        // classic bound, which dense remote contention reaches.
        for (period, want) in [(10, 8), (5, 14)] {
            let mut sys2 = sys.clone();
            sys2.tasks[3].period = Time::from_ms(period);
            sys2.tasks[3].deadline = Time::from_ms(period);
            let cx2 = Context::with_form(&sys2, crate::BoundForm::Lp);
            let tb2 = Tables::new(&cx2);
            assert_eq!(bound(&cx2, &tb2, 1, &resp), Some(Time::from_ms(want)));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The greedy optimum is the program's, as a general solver finds
        /// it (the largest over the arrival choices), for every task at
        /// random windows, with local resources beside the global ones.
        #[test]
        fn greedy_is_the_lp_optimum(
            seed in any::<u64>(),
            cpus in 2usize..5,
            requests_max in 1u32..4,
            resources in 1usize..6,
            scale in 1u64..8,
        ) {
            let c = GenConfig {
                cpus,
                tasks: 3 * cpus,
                utilization: 0.4 * cpus as f64,
                resources,
                local_resources: 1,
                protocol: Protocol::Msrp,
                requests_max,
                cs_max: Time::from_us(300),
                partition: Some(Heuristic::WorstFit),
                ..GenConfig::default()
            };
            let sys = generate(&c, seed, 0);
            let cx = Context::with_form(&sys, crate::BoundForm::Lp);
            let tb = Tables::new(&cx);
            let resp: Vec<Time> = (0..cx.n())
                .map(|x| Time::from_ns(cx.period[x].ns() * scale / 4 + 1))
                .collect();
            for i in 0..cx.n() {
                let Some(b) = bound(&cx, &tb, i, &resp) else { continue };
                let lp = choices(&cx, i)
                    .into_iter()
                    .map(|a| optimum(&program(&cx, i, &resp, a).expect("applies"), |_| true))
                    .fold(0.0, f64::max);
                prop_assert!((b.ns() as f64 - lp).abs() < 0.5, "task {i}: {} vs LP {lp}", b);
            }
        }
    }
}
