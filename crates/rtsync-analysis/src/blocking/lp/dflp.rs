//! The DFLP blocking LP (Brandenburg, RTAS 2013, Sec. VI, constraints 1
//! to 5; SchedCAT's `lp_dflp.cpp`), per synchronization CPU.
//!
//! For the job `J_i` with window `R_i` and a synchronization CPU `s` other
//! than its own, a task `x ≠ i` has `n_{x,r} = N_{x,r} · ⌈(R_i + R_x) /
//! T_x⌉` requests for a resource `r` served on `s` that can overlap the
//! window, each delaying `J_i`'s requests there by at most its longest
//! section, directly (`D`, `x` ahead of `J_i` in `r`'s FIFO queue) or
//! indirectly (`I`, `x`'s agent ahead of the holder `J_i` waits for in
//! `s`'s FIFO-ordered boosting). The constraints:
//!
//! - (1) `D + I ≤ n_{x,r}`;
//! - (2) no boosted preemption of `J_i` by another CPU's agents;
//! - (3) none by the agents on `J_i`'s own CPU either, here: rtsync charges
//!   every agent section there as interference in the response-time
//!   equation ([`crate::blocking::foreign_loads`]), and `J_i`'s requests
//!   served there keep their classic bound;
//! - (4) `Σ D_{x,q} ≤ N_{i,q}` per task and resource: a FIFO queue lets
//!   each other task ahead of each request once, `D = 0` for a resource
//!   `J_i` does not request;
//! - (5) `Σ_{r on s} (D + I)_{x,r} ≤ N_{i,s}` per task, `J_i`'s requests
//!   on `s`: with one request outstanding per task and FIFO boosting on
//!   `s`, each other task delays each request there once at most, by
//!   whichever of its sections is ahead.
//!
//! **The greedy optimum.** `D` and `I` weigh the same and (4) binds `D`
//! alone, so every unit can count as `I`: (4) never binds the optimum.
//! What is left falls apart per task: the `N_{i,s}` longest of `x`'s
//! sections on `s`, each pair at most `n_{x,r}` times, a knapsack with
//! unit weights. Against the classic bound (`N_{i,s}` times `x`'s longest
//! section there) it gains where `x` has fewer requests in the window
//! than `J_i` has on `s`.

use super::{Kind, Program, Var};
use crate::blocking::dflp::Tables;
use crate::blocking::{jobs, times};
use crate::context::Context;
use rtsync_model::{Cpu, TaskId, Time};

/// The LP's bound on how long other tasks' sections on `s` delay `J_i`'s
/// `n_s` requests there (its own sections not included), at the
/// response-time estimates `resp`.
pub fn bound(cx: &Context, tb: &Tables, i: TaskId, s: Cpu, n_s: u64, resp: &[Time]) -> Time {
    let mut delay = Time::ZERO;
    for (x, pairs) in &tb.users_on[s] {
        if *x == i {
            continue;
        }
        let jx = jobs(resp[i], resp[*x], cx.period[*x]);
        // Longest first (the table keeps each task's pairs so).
        let mut left = n_s;
        for &(len, count, _) in pairs {
            if left == 0 {
                break;
            }
            let k = (count as u64).saturating_mul(jx).min(left);
            delay = delay.saturating_add(times(len, k));
            left -= k;
        }
    }
    delay
}

/// The program itself, as stated in the module's doc (aggregated): what
/// the tests solve with a general LP solver to check [`bound`].
pub fn program(cx: &Context, tb: &Tables, i: TaskId, s: Cpu, resp: &[Time]) -> Program {
    let f = &cx.f;
    let mut p = Program::default();
    let n_s: u64 = tb.requests_on(i, s);
    for (x, pairs) in &tb.users_on[s] {
        let x = *x;
        if x == i {
            continue;
        }
        let jx = jobs(resp[i], resp[x], cx.period[x]);
        let mut per_task = Vec::new();
        for &(len, count, r) in pairs {
            let var = |kind| Var {
                task: x,
                key: r,
                kind,
                local: false,
                length: len.ns() as f64,
            };
            let d = p.var(var(Kind::Direct));
            let ind = p.var(var(Kind::Indirect));
            p.at_most(1, &[d, ind], (count as u64).saturating_mul(jx));
            let n_ir = f
                .sections(i)
                .iter()
                .filter(|rq| rq.is_outermost() && rq.resource == r)
                .count() as u64;
            p.at_most(4, &[d], n_ir);
            per_task.extend([d, ind]);
        }
        p.at_most(5, &per_task, n_s);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocking::lp::check::{config, optimum, windows};
    use crate::generate::{GenConfig, generate};
    use proptest::prelude::*;
    use rtsync_model::Protocol;

    /// `J_a` (CPU 0) makes three 1 ms requests on `r`, served on CPU 2.
    /// On CPU 1, `b` (period 100 ms) holds `r` for 3 ms and `q` (also on
    /// CPU 2) for 2 ms, once each per job. Classic: each of `a`'s requests
    /// waits for one section of `b`, its longest, 3 ms: 3 · (1 + 3) =
    /// 12 ms. LP at `R_a = 20`, `R_b = 30` ms: `b` has one job in the
    /// window (`⌈50 / 100⌉`), so one section of each resource, at most
    /// three in all: 3 + 2 = 5 ms beside `a`'s own 3 ms.
    #[test]
    fn a_hand_worked_example() {
        let sys = rtsync_model::load_str(
            r#"
[platform]
cpus = 3
protocol = "dflp"
[[resource]]
name = "r"
sync_cpu = 2
[[resource]]
name = "q"
sync_cpu = 2
[[task]]
name = "a"
period = "100ms"
priority = 2
cpu = 0
body = [ { lock = "r", hold = "1ms" }, { lock = "r", hold = "1ms" }, { lock = "r", hold = "1ms" } ]
[[task]]
name = "b"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "r", hold = "3ms" }, { lock = "q", hold = "2ms" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let cx = Context::new(&sys);
        let classic = crate::blocking::dflp::demand(&cx, 0);
        assert_eq!(classic.remote, Time::from_ms(12));
        let tb = Tables::new(&cx);
        let resp = [20, 30].map(Time::from_ms);
        assert_eq!(bound(&cx, &tb, 0, 2, 3, &resp), Time::from_ms(5));
        // With `b` released every 10 ms it has four jobs in the window,
        // and the three longest units are its 3 ms sections.
        let mut fast = sys.clone();
        fast.tasks[1].period = Time::from_ms(10);
        fast.tasks[1].deadline = Time::from_ms(10);
        let cx = Context::new(&fast);
        let tb = Tables::new(&cx);
        let resp = [20, 10].map(Time::from_ms);
        assert_eq!(bound(&cx, &tb, 0, 2, 3, &resp), Time::from_ms(9));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The greedy optimum is the LP's, as a general solver finds it,
        /// for every task and synchronization CPU at random windows.
        #[test]
        fn greedy_is_the_lp_optimum(
            seed in any::<u64>(),
            cpus in 2usize..5,
            requests_max in 1u32..4,
            resources in 1usize..6,
            scale in 1u64..8,
            spread in any::<u64>(),
        ) {
            let c = GenConfig {
                utilization: 0.4 * cpus as f64,
                ..config(Protocol::Dflp, cpus, requests_max, resources)
            };
            let mut sys = generate(&c, seed, 0);
            for (r, res) in sys.resources.iter_mut().enumerate() {
                res.sync_cpu = Some((spread >> (2 * r)) as usize % cpus);
            }
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            let resp = windows(&cx, scale);
            for i in 0..cx.n() {
                for s in 0..cpus {
                    let b = bound(&cx, &tb, i, s, tb.requests_on(i, s), &resp);
                    let lp = optimum(&program(&cx, &tb, i, s, &resp), |_| true);
                    prop_assert!((b.ns() as f64 - lp).abs() < 0.5, "task {i} CPU {s}: {} vs LP {lp}", b);
                }
            }
        }
    }
}
