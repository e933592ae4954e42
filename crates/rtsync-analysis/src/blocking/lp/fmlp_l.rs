//! The FMLP+ blocking LP (Brandenburg, RTAS 2013, Sec. V-C, constraints 1
//! and 9 to 14; SchedCAT's `lp_fmlp.cpp`), in resource-group terms.
//!
//! For the job `J_i` with window `R_i`, a task `x ≠ i` has
//! `n_{x,g} = N_{x,g} · ⌈(R_i + R_x) / T_x⌉` requests for group `g` that
//! can overlap it, each delaying `J_i` by at most its longest section
//! `L_{x,g}`, directly (`D`), indirectly (`I`) or by a boosted preemption
//! (`P`). The constraints, for every `x ≠ i`:
//!
//! - (1) `D + I + P ≤ n_{x,g}` per group;
//! - (9) nothing from a task of `J_i`'s CPU at or above its priority (its
//!   work is interference; rtsync serves equal priorities FIFO, so equal
//!   counts as above, where the paper has strictly above);
//! - (10) `P = 0` for a task of another CPU;
//! - (11) for a lower task of `J_i`'s CPU, `Σ_g (D + I + P) ≤ A_i`, where
//!   `A_i = 1 + S_i + Σ_{g} min(N_{i,g}, Σ_{y on other CPUs} n_{y,g})`
//!   counts `J_i`'s arrivals: its release, its `S_i` self-suspensions
//!   (the paper has none), and each request that can wait behind another
//!   CPU's. A wait behind requests of `J_i`'s own CPU alone lets no lower
//!   task of the CPU start a section: the holder ahead is boosted and
//!   ready (holders never suspend: validation refuses a suspension inside
//!   a section), or, once it releases, `J_i` holds and is ready; a chain
//!   of waiters ending at another CPU's holder is a wait behind another
//!   CPU's request. rtsync's classic job-window form counts every task's
//!   requests here, which is why the LP's local term can be below it;
//! - (12) `D ≤ N_{i,g}`: FIFO lets each request of `x` ahead of a request
//!   of `J_i` at most once;
//! - (13) `Σ_g (D + I) ≤ M_c` with `c` the CPU of `x` and
//!   `M_c = Σ_g min(N_{i,g}, Σ_{y on c, y ≠ i} n_{y,g})`: how often `J_i`
//!   can wait behind a request from `c`, and each time at most one
//!   section of `x` delays it (its requests are issued one at a time);
//! - (14) for a remote `x`, `Σ_g I ≤ Σ_g min(N_{i,g}, Σ_{y on c, y ≠ x}
//!   n_{y,g})`: `x` delays `J_i` indirectly only while `J_i` waits behind
//!   another request of `x`'s CPU.
//!
//! **The greedy optimum.** The constraints couple no two tasks, so the
//! program is one small program per task. A lower task of `J_i`'s CPU may
//! put all its sections into `P`, limited by (1) and (11) alone: its `A_i`
//! longest sections. For a remote task, write `y_g = D_g + I_g`; the best
//! split gives `D_g = min(y_g, N_{i,g})`, so the program is: at most `M_c`
//! units of `y` in all, at most `n_{x,g}` of group `g`, and at most the
//! limit of (14) units beyond the first `N_{i,g}` of each group. Unit
//! sets with a cap on all units and a cap on a subset of them form a
//! laminar matroid, on which taking the longest units first is optimal,
//! and whose polytope is integral, so the greedy answer is the LP's.

use super::{Kind, Program, Var};
use crate::blocking::fmlp_l::Tables;
use crate::blocking::{jobs, times};
use crate::context::Context;
use rtsync_model::{TaskId, Time};

/// The counts the constraints read, at the response-time estimates.
struct Counts {
    /// Per group `g`, `N_{i,g}` (0 where `J_i` does not use it).
    mine: Vec<u64>,
    /// Per task, `⌈(R_i + R_x) / T_x⌉`.
    jobs: Vec<u64>,
    /// `A_i` of (11).
    arrivals: u64,
    /// Per CPU, `M_c` of (13).
    per_cpu: Vec<u64>,
}

/// `Σ_{g} min(N_{i,g}, Σ_{y ∈ among} n_{y,g})`.
fn waits(tb: &Tables, mine: &[u64], jobs: &[u64], among: impl Iterator<Item = TaskId>) -> u64 {
    let ng = tb.n_groups;
    let mut per_group = vec![0u64; ng];
    for y in among {
        for &(g, n, _) in tb.groups(y) {
            if mine[g] > 0 {
                per_group[g] = per_group[g].saturating_add(n.saturating_mul(jobs[y]));
            }
        }
    }
    (0..ng).map(|g| mine[g].min(per_group[g])).sum()
}

fn counts(cx: &Context, tb: &Tables, i: TaskId, resp: &[Time]) -> Counts {
    let mut mine = vec![0u64; tb.n_groups];
    for &(g, n, _) in tb.groups(i) {
        mine[g] = n;
    }
    let jobs: Vec<u64> = (0..cx.n())
        .map(|x| jobs(resp[i], resp[x], cx.period[x]))
        .collect();
    let remote = (0..cx.n()).filter(|&y| cx.cpu(y).is_some() && cx.cpu(y) != cx.cpu(i));
    let arrivals = 1 + cx.suspensions(i) + waits(tb, &mine, &jobs, remote);
    let per_cpu = (0..cx.f.cpus)
        .map(|c| {
            let on = cx.f.on_cpu(c).iter().copied().filter(|&y| y != i);
            waits(tb, &mine, &jobs, on)
        })
        .collect();
    Counts {
        mine,
        jobs,
        arrivals,
        per_cpu,
    }
}

/// The limit of (14) for the remote task `x`.
fn indirect_limit(cx: &Context, tb: &Tables, k: &Counts, x: TaskId) -> u64 {
    let c = cx.cpu(x).expect("remote tasks have a CPU");
    let on = cx.f.on_cpu(c).iter().copied().filter(|&y| y != x);
    waits(tb, &k.mine, &k.jobs, on)
}

/// How `x` stands to `J_i`: `None` where (9) rules it out.
fn role(cx: &Context, i: TaskId, x: TaskId) -> Option<bool> {
    let (ci, cx_) = (cx.cpu(i)?, cx.cpu(x)?);
    if ci != cx_ {
        Some(false)
    } else if cx.is_lower(x, i) {
        Some(true)
    } else {
        None
    }
}

/// `J_i`'s `(local, remote)` blocking: the LP's optimum over the variables
/// of tasks of its CPU and of the other CPUs, which share no constraint.
pub fn bound(cx: &Context, tb: &Tables, i: TaskId, resp: &[Time]) -> (Time, Time) {
    let k = counts(cx, tb, i, resp);
    let (mut local, mut remote) = (Time::ZERO, Time::ZERO);
    let mut units: Vec<(Time, bool, u64)> = Vec::new();
    for x in (0..cx.n()).filter(|&x| x != i) {
        match role(cx, i, x) {
            None => {}
            Some(true) => {
                local = local.saturating_add(tb.longest(x, k.jobs[x], k.arrivals));
            }
            Some(false) => {
                let c = cx.cpu(x).expect("remote tasks have a CPU");
                let mut total = k.per_cpu[c];
                if total == 0 {
                    continue;
                }
                let mut beyond = indirect_limit(cx, tb, &k, x);
                // Units of each group, longest first; at one length the
                // units within the first N_{i,g} (which spend no (14)
                // budget) go first.
                units.clear();
                for &(g, n, len) in tb.groups(x) {
                    let all = n.saturating_mul(k.jobs[x]);
                    let free = all.min(k.mine[g]);
                    units.push((len, false, free));
                    units.push((len, true, all - free));
                }
                units.sort_unstable_by_key(|u| (std::cmp::Reverse(u.0), u.1));
                for &(len, excess, n) in &units {
                    if total == 0 {
                        break;
                    }
                    let take = if excess {
                        n.min(total).min(beyond)
                    } else {
                        n.min(total)
                    };
                    total -= take;
                    if excess {
                        beyond -= take;
                    }
                    remote = remote.saturating_add(times(len, take));
                }
            }
        }
    }
    (local, remote)
}

/// The program itself, as the paper states it (aggregated): what the
/// tests solve with a general LP solver to check [`bound`].
pub fn program(cx: &Context, tb: &Tables, i: TaskId, resp: &[Time]) -> Program {
    let k = counts(cx, tb, i, resp);
    let mut p = Program::default();
    for x in (0..cx.n()).filter(|&x| x != i) {
        let Some(cpu) = cx.cpu(x) else { continue };
        let same = cx.cpu(i) == Some(cpu);
        let mut direct_indirect = Vec::new();
        let mut indirect = Vec::new();
        let mut all = Vec::new();
        for &(g, n, len) in tb.groups(x) {
            let var = |kind| Var {
                task: x,
                key: g,
                kind,
                local: same,
                length: len.ns() as f64,
            };
            let d = p.var(var(Kind::Direct));
            let ind = p.var(var(Kind::Indirect));
            let pre = p.var(var(Kind::Preempt));
            p.at_most(1, &[d, ind, pre], n.saturating_mul(k.jobs[x]));
            p.at_most(12, &[d], k.mine[g]);
            direct_indirect.extend([d, ind]);
            indirect.push(ind);
            all.extend([d, ind, pre]);
            match role(cx, i, x) {
                None => p.at_most(9, &[d, ind, pre], 0),
                Some(false) => p.at_most(10, &[pre], 0),
                Some(true) => {}
            }
        }
        p.at_most(13, &direct_indirect, k.per_cpu[cpu]);
        match role(cx, i, x) {
            Some(true) => p.at_most(11, &all, k.arrivals),
            Some(false) => p.at_most(14, &indirect, indirect_limit(cx, tb, &k, x)),
            None => {}
        }
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

    /// The FIFO example: `J_0` on CPU 0 with two requests for `q`; on CPU
    /// 1 one task with three requests for `q` (2 ms each) and one with a
    /// request for `r` (5 ms), which can only delay `J_0` indirectly;
    /// on CPU 0 a lower task with one 4 ms section of `r`.
    #[test]
    fn a_hand_worked_fifo_example() {
        let sys = rtsync_model::load_str(
            r#"
[platform]
cpus = 2
protocol = "fmlp-l"
[[resource]]
name = "q"
[[resource]]
name = "r"
[[task]]
name = "i"
period = "100ms"
priority = 4
cpu = 0
body = [ { compute = "8ms" }, { lock = "q", hold = "1ms" }, { lock = "q", hold = "1ms" } ]
[[task]]
name = "x"
period = "100ms"
priority = 3
cpu = 1
body = [ { lock = "q", hold = "2ms" }, { lock = "q", hold = "2ms" }, { lock = "q", hold = "2ms" } ]
[[task]]
name = "y"
period = "100ms"
priority = 2
cpu = 1
body = [ { lock = "r", hold = "5ms" } ]
[[task]]
name = "z"
period = "100ms"
priority = 1
cpu = 0
body = [ { lock = "r", hold = "4ms" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        // One job of each in the window.
        let resp = vec![Time::from_ms(50); 4];
        let (local, remote) = bound(&cx, &tb, 0, &resp);
        // M_1 = min(2, 3) = 2 waits behind CPU 1's requests: x delays
        // J_0 directly at most N_{i,q} = 2 times (2 · 2 ms); y's one
        // section may delay it indirectly, within (14)'s limit
        // min(2, n_{x,q} = 3) = 2 and (13)'s M_1 = 2: 5 ms.
        assert_eq!(remote, Time::from_ms(9));
        // A_0 = 1 + min(2, 3) = 3 arrivals; z has one section: 4 ms.
        assert_eq!(local, Time::from_ms(4));
    }

    fn system(seed: u64, cpus: usize, requests_max: u32, groups: usize) -> rtsync_model::System {
        let c = GenConfig {
            nest_prob: 0.2,
            ..config(Protocol::FmlpL, cpus, requests_max, groups)
        };
        generate(&c, seed, 0)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The greedy optimum is the LP's, as a general solver finds it,
        /// for the local and the remote objective, at random windows.
        #[test]
        fn greedy_is_the_lp_optimum(
            seed in any::<u64>(),
            cpus in 2usize..4,
            requests_max in 1u32..4,
            groups in 1usize..4,
            scale in 1u64..6,
        ) {
            let sys = system(seed, cpus, requests_max, groups);
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            let resp = windows(&cx, scale);
            for i in 0..cx.n() {
                let (local, remote) = bound(&cx, &tb, i, &resp);
                let p = program(&cx, &tb, i, &resp);
                let lp_local = optimum(&p, |v| v.local);
                let lp_remote = optimum(&p, |v| !v.local);
                prop_assert!((local.ns() as f64 - lp_local).abs() < 0.5, "task {i}: local {local} vs LP {lp_local}");
                prop_assert!((remote.ns() as f64 - lp_remote).abs() < 0.5, "task {i}: remote {remote} vs LP {lp_remote}");
            }
        }
    }
}
