//! The DPCP blocking LP (Brandenburg, RTAS 2013, Sec. V-A, constraints 1,
//! 6, 7 and 8 with the response-time bound on waits; SchedCAT's
//! `lp_dpcp.cpp`), per synchronization CPU.
//!
//! For the job `J_i` with window `R_i` and one synchronization CPU `s` of
//! another CPU, a task `x ≠ i` has `n_{x,r} = N_{x,r} · ⌈(R_i + R_x) /
//! T_x⌉` requests for a resource `r` served on `s` that can overlap the
//! window, each delaying `J_i`'s requests there by at most its longest
//! section, directly (`D`) or indirectly (`I`; there is no boosted
//! preemption of `J_i` by another CPU's agents, the paper's constraint 2).
//! The constraints:
//!
//! - (1) `D + I ≤ n_{x,r}`;
//! - (6) nothing from a resource whose ceiling is below `π_i`: PCP among
//!   the agents lets it block no request of `J_i`;
//! - (7) for the tasks below `π_i`, `Σ (D + I) ≤ N_{i,s}`, `J_i`'s requests
//!   on `s`: PCP lets at most one lower section delay each. The paper
//!   bounds only `D` so; rtsync's agents run in the requesting task's
//!   priority order under PCP, so a lower agent delays a request of `J_i`
//!   only by holding a resource at or above `π_i` when the request comes,
//!   once per request, directly or not (the premise of the classic bound,
//!   checked by the simulator's search);
//! - (8) for a task `x` at or above `π_i` (equal counts as above; the
//!   paper has strictly above), `D + I ≤ Σ_y ⌈(W_y + R_x) / T_x⌉ N_{x,r}`
//!   over `J_i`'s requests `y` on `s`, where `W_y` is the request's wait,
//!   the least fixed point of `W = L_{i,y} + max_{lower, ceil ≥ π_i} L +
//!   Σ_{x ≥ π_i} ⌈(W + R_x) / T_x⌉ Σ_{r on s} N_{x,r} L_{x,r}` (no cap
//!   where `W_y` passes the deadline).
//!
//! Requests served on `J_i`'s own CPU are not in the program: every
//! agent section there is interference in the response-time equation
//! already ([`crate::blocking::dpcp`]).
//!
//! **The greedy optimum.** The tasks at or above `π_i` share no
//! constraint, each pair its own cap: `min(n_{x,r}, cap)` sections each.
//! The tasks below share (7) alone, a knapsack with unit weights: the
//! `N_{i,s}` longest sections, each pair at most `n_{x,r}` times. Both
//! are the classic job window's terms with the higher tasks' counts
//! capped by (8), so the LP bound never exceeds the job window.

use super::{Kind, Program, Var};
use crate::blocking::dpcp::Tables;
use crate::blocking::{jobs, times};
use crate::context::Context;
use crate::recurrence::{self, Term};
use rtsync_model::{Cpu, TaskId, Time};

/// `J_i`'s requests on `s`, as section lengths.
fn requests_on(cx: &Context, tb: &Tables, i: TaskId, s: Cpu) -> Vec<Time> {
    cx.f.sections(i)
        .iter()
        .filter(|rq| rq.is_outermost() && tb.sync[rq.resource] == Some(s))
        .map(|rq| rq.length)
        .collect()
}

/// Per task `x` at or above `π_i` with sections on `s`, the cap of (8)
/// divided by `N_{x,r}`: `Σ_y ⌈(W_y + R_x) / T_x⌉`, or `None` where some
/// `W_y` passes the deadline.
fn wait_jobs(
    cx: &Context,
    tb: &Tables,
    i: TaskId,
    s: Cpu,
    mine: &[Time],
    resp: &[Time],
) -> Vec<Option<u64>> {
    let f = &cx.f;
    let pi = cx.prio(i);
    let mut low = Time::ZERO;
    for &r in tb.served[s].iter().filter(|&&r| f.ceiling[r] >= pi) {
        low = low.max(tb.longest_below(r, pi));
    }
    let above: Vec<_> = tb.load[s]
        .iter()
        .take_while(|e| e.0 >= pi)
        .filter(|e| e.3 != i)
        .collect();
    let mut terms: Vec<Term> = above
        .iter()
        .map(|&&(_, period, load, x)| Term::new(load, resp[x], period))
        .collect();
    let mut out = vec![Some(0u64); cx.n()];
    for &len in mine {
        let w = recurrence::solve(len.saturating_add(low), cx.deadline[i], &mut terms);
        for &&(_, period, _, x) in &above {
            out[x] = match (out[x], w) {
                (Some(k), Some(w)) => Some(k + jobs(w, resp[x], period)),
                _ => None,
            };
        }
    }
    out
}

/// The LP's bound on how long other tasks' sections on `s` delay `J_i`'s
/// requests there (its own sections not included), at the response-time
/// estimates `resp`.
pub fn bound(cx: &Context, tb: &Tables, i: TaskId, s: Cpu, resp: &[Time]) -> Time {
    let pi = cx.prio(i);
    let mine = requests_on(cx, tb, i, s);
    let n_s = mine.len() as u64;
    let caps = wait_jobs(cx, tb, i, s, &mine, resp);
    let mut delay = Time::ZERO;
    let mut left = n_s;
    // Longest sections first, for the knapsack of (7).
    for &(p, x, count, len, r) in &tb.users_on(cx)[s] {
        if x == i || cx.f.ceiling[r] < pi {
            continue;
        }
        let n = (count as u64).saturating_mul(jobs(resp[i], resp[x], cx.period[x]));
        if p >= pi {
            let k = caps[x].map_or(n, |c| n.min(c.saturating_mul(count as u64)));
            delay = delay.saturating_add(times(len, k));
        } else if left > 0 {
            let k = n.min(left);
            delay = delay.saturating_add(times(len, k));
            left -= k;
        }
    }
    delay
}

/// The program itself, as stated in the module's doc (aggregated): what
/// the tests solve with a general LP solver to check [`bound`].
pub fn program(cx: &Context, tb: &Tables, i: TaskId, s: Cpu, resp: &[Time]) -> Program {
    let pi = cx.prio(i);
    let mine = requests_on(cx, tb, i, s);
    let n_s = mine.len() as u64;
    let caps = wait_jobs(cx, tb, i, s, &mine, resp);
    let mut p = Program::default();
    let mut lower = Vec::new();
    for &(prio, x, count, len, r) in &tb.users_on(cx)[s] {
        if x == i {
            continue;
        }
        let var = |kind| Var {
            task: x,
            key: r,
            kind,
            local: false,
            length: len.ns() as f64,
        };
        let d = p.var(var(Kind::Direct));
        let ind = p.var(var(Kind::Indirect));
        let n = (count as u64).saturating_mul(jobs(resp[i], resp[x], cx.period[x]));
        p.at_most(1, &[d, ind], n);
        if cx.f.ceiling[r] < pi {
            p.at_most(6, &[d, ind], 0);
        }
        if prio >= pi {
            if let Some(c) = caps[x] {
                p.at_most(8, &[d, ind], c.saturating_mul(count as u64));
            }
        } else {
            lower.extend([d, ind]);
        }
    }
    p.at_most(7, &lower, n_s);
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocking::lp::check::{config, optimum, windows};
    use crate::generate::{GenConfig, generate};
    use proptest::prelude::*;
    use rtsync_model::Protocol;

    /// `J_a` (CPU 0) has one 1 ms request on `r`, served on CPU 2. The
    /// higher task `h` (period 4 ms, one 1 ms section of `r`) and the
    /// lower `l` (two 3 ms sections of `r`) are on CPU 1. With windows
    /// `R_a = 20ms`, `R_h = 2ms`, `R_l = 20ms`: the job window counts
    /// `⌈22 / 4⌉ = 6` sections of `h` and one of `l` (one request):
    /// 6 + 3 = 9 ms. The request's wait: `W = 1 + 3 + ⌈(W + 2) / 4⌉ · 1`;
    /// from W = 4, ⌈6/4⌉ = 2 gives 6, and ⌈8/4⌉ = 2 keeps it: W = 6. So
    /// (8) caps `h` at ⌈(6 + 2) / 4⌉ = 2 sections: 2 + 3 = 5 ms.
    #[test]
    fn a_hand_worked_wait_cap() {
        let sys = rtsync_model::load_str(
            r#"
[platform]
cpus = 3
protocol = "dpcp"
[[resource]]
name = "r"
sync_cpu = 2
[[task]]
name = "a"
period = "100ms"
priority = 2
cpu = 0
body = [ { compute = "5ms" }, { lock = "r", hold = "1ms" } ]
[[task]]
name = "h"
period = "4ms"
priority = 3
cpu = 1
body = [ { lock = "r", hold = "1ms" } ]
[[task]]
name = "l"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "r", hold = "3ms" }, { compute = "1ms" }, { lock = "r", hold = "3ms" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let resp = vec![Time::from_ms(20), Time::from_ms(2), Time::from_ms(20)];
        assert_eq!(bound(&cx, &tb, 0, 2, &resp), Time::from_ms(5));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The greedy optimum is the LP's, as a general solver finds it,
        /// on every synchronization CPU of every task, at random windows.
        #[test]
        fn greedy_is_the_lp_optimum(
            seed in any::<u64>(),
            cpus in 2usize..5,
            requests_max in 1u32..4,
            scale in 1u64..6,
            spread in any::<u64>(),
        ) {
            let c = GenConfig {
                nest_prob: 0.0,
                ..config(Protocol::Dpcp, cpus, requests_max, 4)
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
                    let b = bound(&cx, &tb, i, s, &resp);
                    let lp = optimum(&program(&cx, &tb, i, s, &resp), |_| true);
                    prop_assert!((b.ns() as f64 - lp).abs() < 0.5, "task {i} on {s}: {b} vs LP {lp}");
                }
            }
        }
    }
}
