//! The MPCP blocking LP (Brandenburg, RTAS 2013, Sec. V-B, constraints 1,
//! 9 to 11 and 15 to 20; SchedCAT's `lp_mpcp.cpp`), restated for rtsync's
//! MPCP: boosting keys (remote ceilings) compared *at or above* (see
//! [`crate::blocking::mpcp`]),
//! local resources under PCP, self-suspensions.
//!
//! For the job `J_i` with window `R_i`, a task `x ≠ i` has
//! `n_{x,r} = N_{x,r} · ⌈(R_i + R_x) / T_x⌉` sections on a global `r` that
//! can overlap the window, each delaying `J_i` by at most its longest
//! section `L_{x,r}`: directly (`D`: `J_i` waits for `r` while `x` holds
//! it), indirectly (`I`: `x`'s boosted section preempts the holder of a
//! resource `J_i` waits for, on `x`'s CPU) or by preemption (`P`: `x`'s
//! boosted section runs on `J_i`'s CPU while `J_i` is ready). `D` and `I`
//! are suspension, the remote term; `P` is the local term. Three optima
//! come out ([`Bound`]): the remote and the local terms each alone, and
//! their sum jointly, where (1) lets a lower task of `J_i`'s CPU spend
//! each section once, directly, indirectly or by preemption (SchedCAT
//! maximises the sum and the remote part, the same program).
//!
//! **Remote** (`J_i` waits for a global `q` it requests `N_{i,q}` times,
//! each wait `W_q` the classic per-request bound):
//!
//! - (1) `D + I ≤ n_{x,r}`;
//! - (9) nothing from a task of `J_i`'s CPU at or above `π_i`: its work is
//!   interference already;
//! - (15) `Σ_{x below π_i} D_{x,q} ≤ N_{i,q}`: the wait queue is in
//!   priority order, so one lower holder at most per request; `D = 0` for
//!   a resource `J_i` does not request, and for a lower task of `J_i`'s
//!   own CPU, which never holds `q` when `J_i` asks for it (it would run
//!   boosted, above `J_i`) nor is granted it while `J_i` waits (it queues
//!   behind): it delays `J_i` by preemption, and its sections are no
//!   events (below). The paper's (15) lets it in; rtsync's classic wait
//!   leaves it out the same way ([`crate::blocking::mpcp`]);
//! - (16, 19) for `x` at or above `π_i`: `D_{x,q} ≤ N_{i,q} · (⌈W_q /
//!   T_x⌉ + 1) · N_{x,q}`, the count of the classic wait (none where `W_q`
//!   passes the deadline);
//! - (17, 18) the holders `J_i` waits behind are the *events*: a section
//!   of `y` on `q` that delays `J_i` directly, at most `E_{y,q}` of them
//!   (the caps of 15 and 16 per task, taken alone, for every `y ≠ i`,
//!   those of 9 included: a higher local holder is interference, but what
//!   preempts it is not). While an event's holder has the resource, its
//!   CPU runs boosted sections only, so every other task `x` of that CPU
//!   runs at most one section inside it, on a resource `r ≠ q` whose
//!   key on that CPU is at or above `q`'s. Hence `I_{x,r} ≤ Σ E_{y,q}` over the
//!   events on `x`'s CPU with `y ≠ x`, `q ≠ r`, `key(q) ≤ key(r)` there (18),
//!   and `Σ_r I_{x,r} ≤ Σ E_{y,q}` over the events on `x`'s CPU, `y ≠ x`,
//!   that some section of `x` can preempt (17);
//! - (20) the remote total is at most the classic bound `Σ_q N_{i,q} W_q`:
//!   the engine takes the smaller of the two, which is the same.
//!
//! **Local** (`ρ_i` points at which `J_i` starts or resumes: its release,
//! its `S_i` self-suspensions, and the global requests that can find
//! their resource held by another CPU's section, at most `N^G_i`, the
//! classic count; see `points`): per lower task `x` of `J_i`'s CPU,
//! `Σ_r P_{x,r} ≤ ρ_i` over its global sections (11: one boosted section
//! per point) and `P_{x,r} ≤ n_{x,r}`; and over all lower tasks' sections
//! on local resources whose ceiling reaches `J_i`, at most `ρ_i` (PCP: one
//! per point), each at most once per job of its task in the window. Both
//! are the classic terms with each section's count capped by its jobs in
//! the window, so they never exceed the classic ones.
//!
//! **(11')**, constraint 11 over all three ways. SchedCAT states it as
//! `Σ_r (D + I + P)_{x,r} ≤ ρ_i` for a lower task `x` of `J_i`'s CPU
//! (`add_local_lower_priority_constraints_shm`; the paper caps the
//! preemptions alone, which (11) keeps). That is not sound:
//! `tests/data/mpcp-lower-preempts-a-holder-ahead.toml` has a schedule
//! in which `x` delays `J_i` three times with `ρ_i = 2`, 16.7 ms against
//! the 15.0 ms that SchedCAT's `lp-mpcp` and rtsync with that cap give
//! (the simulator's `mpcp_a_lower_task_preempts_a_holder_ahead`). rtsync
//! caps the three ways at `ρ_i + H_i`, where `H_i` counts the events
//! of tasks of `J_i`'s CPU at or above `π_i` (their grants of a resource
//! `J_i` waits for). The argument: `x` starts a section only at its
//! normal priority, below `π_i`, so only while `J_i` is suspended or not
//! yet released and no boosted section is ready on the CPU; its sections
//! run one after another. A section still pending or held at the end of
//! such an interval (a point) delays `J_i` at most once, by preemption or
//! by holding what `J_i` asks for: one per point. A section that starts
//! and ends inside an interval delays `J_i` only through a holder of the
//! resource `J_i` waits for that it keeps off the CPU: not one of
//! another CPU; not a lower task of the CPU (such a task cannot hold it
//! when `J_i` asks, being boosted, and queues behind `J_i` after); so a
//! task at or above `π_i` granted it while the section runs, once per
//! grant (after the section `x` is back at its normal priority, below the
//! boosted holder). The schedule above: `x`'s section at `J_i`'s release,
//! a second that keeps `y`, queued ahead of `J_i`, off the CPU when
//! granted, and a third started while another CPU's task held the
//! resource after `y`, still running when `J_i` is granted it.
//!
//! **(11'')**, rtsync's (row 0 of [`program`]): the same cap counts `x`'s
//! sections on local resources whose ceiling reaches `J_i` as well. Such
//! a section delays `J_i` only at a point (`x` cannot start it while
//! `J_i` is ready, and inside an interval it runs below any boosted
//! holder), and at a point `x` is inside one outermost section, local or
//! global (global MPCP sections neither nest nor are nested). Brandenburg
//! and SchedCAT count every resource alike, so a local section there
//! shares the task's cap; rtsync's PCP term, a knapsack over all lower
//! tasks, sat on top of the cap instead and counted a task's local section
//! and its global ones at the same point (on the SchedCAT test's sets,
//! the one reason besides `H_i` for a bound above SchedCAT's converged
//! port: 9 sets, a local section too many; the test
//! `a_lower_task_spends_its_points_on_local_and_global_sections_alike`,
//! and the simulator's `mpcp_lp_counts_one_section_per_point_local_or_global`,
//! whose search reaches the new bound to a few nanoseconds).
//!
//! Since a lower task of `J_i`'s CPU has no direct delay (15), (11')
//! follows from (11) and (17) (its indirect units are at most the events
//! of tasks at or above `π_i` on the CPU, which `H_i` counts); it stays in
//! [`program`] as the statement of the argument. (11'') does not follow:
//! PCP caps the local sections over all lower tasks together, (11) the
//! preemptions per task.
//!
//! **The optimum.** The local program falls apart into knapsacks with
//! unit weights: the longest sections first. The remote one does not: a
//! unit of `(x, r)` counts against `J_i`'s request (`D`) or against the
//! holder it preempts (`I`), and which is better depends on the other
//! pairs. Each row is an arc into the sink, each pair an arc to every row
//! it may use, and the greedy over that network (the private `flow` module) reaches
//! the LP's optimum. The joint program adds, per lower task of `J_i`'s
//! CPU, a row of (11) that its pairs may also use. (11'') does not fit
//! the network (it crosses the PCP row, which spans the lower tasks):
//! `bound_at` takes the smaller of the network's total with the
//! knapsack and a relaxation that keeps the cap and drops what it
//! crosses, each lower task of the CPU charged its own longest sections
//! beside the network of the others. The result lies between the
//! optimum with these rows and the one without them (property test
//! `greedy_is_the_lp_optimum`).
//!
//! **Speed.** The engine refines every task at every round; the bound
//! reads the estimates through integer counts only, so [`Memo`] keeps the
//! last bound per task and recomputes it only when a count changed.

use super::flow::Network;
use super::{Kind, Program, Var};
use crate::blocking::mpcp::{Tables, Wait, below_on_cpu, key};
use crate::blocking::{ceiling_sections, jobs, times};
use crate::context::Context;
use rtsync_model::{ResourceId, TaskId, Time};
use std::cell::RefCell;

/// How a pair's direct delay is capped.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Direct {
    /// `J_i` never requests the resource.
    Never,
    /// A task below `π_i`: with the other lower tasks, at most `N_{i,q}` (15).
    Shared,
    /// A task at or above `π_i`: at most this many (16, 19).
    Alone(u64),
}

/// One `(x, r)` of the remote program.
struct Pair {
    task: TaskId,
    res: ResourceId,
    len: Time,
    /// `n_{x,r}`.
    n: u64,
    direct: Direct,
    /// The cap of (18).
    indirect: u64,
}

/// The remote program's data, at the response-time estimates.
struct Remote {
    /// Heaviest first, the greedy's order.
    pairs: Vec<Pair>,
    /// `J_i`'s global resources and `N_{i,q}`.
    mine: Vec<(ResourceId, u64)>,
    /// Per task, the cap of (17).
    task_cap: Vec<u64>,
    /// The bound of (20), `Σ_q N_{i,q} W_q`.
    total: Time,
    /// `H_i`: the events of tasks of `J_i`'s CPU at or above `π_i`, the
    /// grants of a resource `J_i` waits for to a task ahead of it there;
    /// each can let a lower task of the CPU delay `J_i` once more than
    /// (11') alone counts (see [`bound_at`]).
    ahead: u64,
}

/// `J_i`'s global resources with `N_{i,q}` and the wait `W_q`, each the
/// smaller of the classic one and its job-window form.
fn waits(cx: &Context, tb: &Tables, i: TaskId, resp: &[Time]) -> Vec<Wait> {
    tb.waits(cx, i)
        .iter()
        .map(|&(q, n_iq, w)| {
            (
                q,
                n_iq,
                w.min(crate::blocking::mpcp::wait(cx, tb, i, q, Some(resp))),
            )
        })
        .collect()
}

fn remote(cx: &Context, i: TaskId, resp: &[Time], waits: &[Wait]) -> Remote {
    let f = &cx.f;
    let pi = cx.prio(i);
    let r_i = resp[i];
    // `(n_{y,q}, cap of 15 or 16 alone)` for `y`'s sections on `q`.
    let caps = |y: TaskId, q: ResourceId, n_iq: u64, w: Time| -> (u64, u64) {
        let n = (f.requests(y, q) as u64).saturating_mul(jobs(r_i, resp[y], cx.period[y]));
        let cap = if cx.prio(y) < pi {
            n_iq
        } else if w == Time::MAX {
            n
        } else {
            n_iq.saturating_mul(arrivals(w, resp[y], cx.period[y]))
                .saturating_mul(f.requests(y, q) as u64)
        };
        (n, cap)
    };
    // The events `E_{y,q}` (`q` the `k`-th resource `J_i` waits for):
    // `event(y, k)` per task, and their sums per CPU, `on_cpu[c·nw + k]`.
    let nw = waits.len();
    // A lower task of `J_i`'s CPU is never a holder `J_i` waits behind
    // (see `Direct::Never` below).
    let event = |y: TaskId, k: usize| -> u64 {
        let (q, n_iq, w) = waits[k];
        if y == i || f.requests(y, q) == 0 || below_on_cpu(cx, i, y) {
            return 0;
        }
        let (n, cap) = caps(y, q, n_iq, w);
        n.min(cap)
    };
    let mut on_cpu = vec![0u64; cx.sys.platform.cpus * nw];
    for (k, &(q, _, _)) in waits.iter().enumerate() {
        for &y in f.users(q) {
            if let Some(c) = cx.cpu(y) {
                on_cpu[c * nw + k] = on_cpu[c * nw + k].saturating_add(event(y, k));
            }
        }
    }
    // The events on `x`'s CPU other than `x`'s own (a saturated sum stays
    // saturated: never a cap below the true one).
    let others = |x: TaskId, c: usize, k: usize| -> u64 {
        match on_cpu[c * nw + k] {
            u64::MAX => u64::MAX,
            s => s - event(x, k),
        }
    };
    let mut pairs = Vec::new();
    let mut task_cap = vec![0u64; cx.n()];
    let mut own = Vec::new();
    for x in (0..cx.n()).filter(|&x| x != i) {
        let Some(c) = cx.cpu(x) else { continue };
        if Some(c) == cx.cpu(i) && cx.prio(x) >= pi {
            continue; // (9)
        }
        own.clear();
        own.extend((0..f.n_resources).filter(|&r| f.global[r] && f.requests(x, r) > 0));
        if own.is_empty() {
            continue;
        }
        task_cap[x] = (0..nw)
            .filter(|&k| {
                let q = waits[k].0;
                own.iter()
                    .any(|&r| r != q && key(cx, r, c) >= key(cx, q, c))
            })
            .fold(0u64, |a, k| a.saturating_add(others(x, c, k)));
        let lower_local = below_on_cpu(cx, i, x);
        let jx = jobs(r_i, resp[x], cx.period[x]);
        for &r in &own {
            let n = (f.requests(x, r) as u64).saturating_mul(jx);
            let direct = match waits.iter().find(|w| w.0 == r) {
                // A lower task of `J_i`'s CPU never holds `r` when `J_i`
                // asks for it (holding it, it would run boosted, above
                // `J_i`), nor is granted it while `J_i` waits (it queues
                // behind, by priority): it delays `J_i` by preemption.
                None => Direct::Never,
                Some(_) if lower_local => Direct::Never,
                Some(_) if cx.prio(x) < pi => Direct::Shared,
                Some(&(_, n_iq, w)) => Direct::Alone(caps(x, r, n_iq, w).1),
            };
            let indirect = if task_cap[x] == 0 {
                0
            } else {
                (0..nw)
                    .filter(|&k| waits[k].0 != r && key(cx, waits[k].0, c) <= key(cx, r, c))
                    .fold(0u64, |a, k| a.saturating_add(others(x, c, k)))
            };
            // A pair that can delay the job in none of the three ways has
            // every variable at zero: left out.
            if direct == Direct::Never && indirect == 0 && !lower_local {
                continue;
            }
            pairs.push(Pair {
                task: x,
                res: r,
                len: f.cs(x, r),
                n,
                direct,
                indirect,
            });
        }
    }
    // The greedy's order, heaviest first (ties in any order).
    pairs.sort_unstable_by_key(|p| std::cmp::Reverse(p.len));
    let mine = waits.iter().map(|w| (w.0, w.1)).collect();
    let total = waits
        .iter()
        .fold(Time::ZERO, |a, &(_, n, w)| a.saturating_add(times(w, n)));
    let ahead = (0..nw)
        .flat_map(|k| f.users(waits[k].0).iter().map(move |&y| (y, k)))
        .filter(|&(y, _)| y != i && cx.cpu(y) == cx.cpu(i) && cx.prio(y) >= pi)
        .fold(0u64, |a, (y, k)| a.saturating_add(event(y, k)));
    Remote {
        pairs,
        mine,
        task_cap,
        total,
        ahead,
    }
}

/// Jobs of a task (period `t`, response time `r`) whose requests can be
/// granted during a wait of length `w`: `⌈w / t⌉ + 1` (the classic
/// count: the jobs released in the wait and one before it) or, tighter
/// where `r < t`, `⌈(w + r) / t⌉` (the jobs released in `(t₀ - r, t₀ + w)`,
/// the only ones pending in the wait). Both hold where `r` bounds the
/// task's response time, as at the engine's fixed point.
fn arrivals(w: Time, r: Time, t: Time) -> u64 {
    let t = t.ns().max(1);
    (w.ns().div_ceil(t) + 1).min(w.ns().saturating_add(r.ns()).div_ceil(t))
}

/// The remote program's optimum, the greedy over its network; with
/// `preempt = Some(ρ_i)` the joint optimum of the remote and the local
/// global sections instead: a lower task of `J_i`'s CPU may also spend a
/// unit of a pair on preemption (`P`, at most `ρ_i` per task, 11), which
/// (1) lets it spend only once.
///
/// With `apart`, the lower tasks of `J_i`'s CPU are left out of the
/// network: [`bound_at`] charges them by their own cap instead.
fn remote_bound(cx: &Context, i: TaskId, rm: &Remote, preempt: Option<u64>, apart: bool) -> Time {
    let m = rm.pairs.len();
    let mut net = Network::new(m);
    let sink = net.node();
    let groups: Vec<usize> = rm
        .mine
        .iter()
        .map(|&(_, n_iq)| {
            let g = net.node();
            net.arc(g, sink, n_iq);
            g
        })
        .collect();
    let mut task_node = vec![usize::MAX; rm.task_cap.len()];
    let mut preempt_node = vec![usize::MAX; rm.task_cap.len()];
    for (k, p) in rm.pairs.iter().enumerate() {
        if apart && below_on_cpu(cx, i, p.task) {
            continue;
        }
        match p.direct {
            Direct::Never => {}
            Direct::Shared => {
                let g = rm
                    .mine
                    .iter()
                    .position(|w| w.0 == p.res)
                    .expect("J_i requests it");
                net.arc(k, groups[g], p.n);
            }
            Direct::Alone(cap) => net.arc(k, sink, cap.min(p.n)),
        }
        let cap = rm.task_cap[p.task];
        if p.indirect > 0 && cap > 0 {
            if task_node[p.task] == usize::MAX {
                task_node[p.task] = net.node();
                net.arc(task_node[p.task], sink, cap);
            }
            net.arc(k, task_node[p.task], p.indirect.min(p.n));
        }
        if let (Some(rho), true) = (preempt, below_on_cpu(cx, i, p.task)) {
            if preempt_node[p.task] == usize::MAX {
                preempt_node[p.task] = net.node();
                net.arc(preempt_node[p.task], sink, rho);
            }
            net.arc(k, preempt_node[p.task], p.n);
        }
    }
    let mut delay = Time::ZERO;
    for k in 0..m {
        let sent = net.push(k, sink, rm.pairs[k].n);
        delay = delay.saturating_add(times(rm.pairs[k].len, sent));
    }
    delay
}

/// A candidate of the local program: a section's length and how many
/// times it can delay the job.
type Cand = (Time, u64);

/// The local program's candidates.
#[derive(Default)]
struct Local {
    /// Per lower task of `J_i`'s CPU with global sections, those sections
    /// with `n_{x,r}`.
    global: Vec<(TaskId, Vec<Cand>)>,
    /// The lower tasks' sections on local resources whose ceiling reaches
    /// `J_i`, each with its task and its task's jobs in the window.
    ceiling: Vec<(TaskId, Cand)>,
}

fn local(cx: &Context, i: TaskId, resp: &[Time]) -> Local {
    let f = &cx.f;
    let mut l = Local::default();
    let jx = |x: TaskId| jobs(resp[i], resp[x], cx.period[x]);
    for x in cx.lower_local(i) {
        let mine: Vec<Cand> = (0..f.n_resources)
            .filter(|&r| f.global[r] && f.requests(x, r) > 0)
            .map(|r| (f.cs(x, r), (f.requests(x, r) as u64).saturating_mul(jx(x))))
            .collect();
        if !mine.is_empty() {
            l.global.push((x, mine));
        }
    }
    l.ceiling = ceiling_sections(cx, i, |r| !f.global[r])
        .map(|(x, rq)| (x, (rq.length, jx(x))))
        .collect();
    l
}

/// The longest `k` units of `(length, count)` candidates.
fn longest(cands: &mut [Cand], mut k: u64) -> Time {
    cands.sort_by_key(|c| std::cmp::Reverse(c.0));
    let mut sum = Time::ZERO;
    for &(len, count) in cands.iter() {
        if k == 0 {
            break;
        }
        let take = count.min(k);
        sum = sum.saturating_add(times(len, take));
        k -= take;
    }
    sum
}

/// `ρ_i`: the points at which `J_i` starts or resumes, at the estimates
/// `resp`: its release, its self-suspensions, and each request of a
/// global `q` that can find `q` held. While `J_i` runs at its own
/// priority, no task of its CPU is inside a global section (it would run
/// boosted, above `J_i`), so a request finds `q` held only by a section
/// of another CPU, and each such section at most once (a request waits
/// until it is granted; the next finds another holder). So the requests
/// of `q` that suspend are at most `N_{i,q}` and at most the sections of
/// `q` that other CPUs' jobs in `J_i`'s window issue, `Σ_x N_{x,q} ·
/// ⌈(R_i + R_x) / T_x⌉`; SchedCAT's `max_num_arrivals_shm` counts the
/// same (with deadlines for `R_x`). Sound where `resp` bounds every
/// task's response time, as at the engine's fixed point. The argument
/// needs what validation guarantees: a global MPCP section neither nests
/// nor is nested (so `J_i` requests `q` at its own priority, and a holder
/// of `q` on its CPU never waits while holding it), and no job suspends
/// inside a section.
fn points(cx: &Context, i: TaskId, resp: &[Time]) -> u64 {
    let f = &cx.f;
    let suspending: u64 = (0..f.n_resources)
        .filter(|&q| f.global[q] && f.requests(i, q) > 0)
        .map(|q| {
            let elsewhere = f
                .users(q)
                .iter()
                .filter(|&&x| x != i && cx.cpu(x) != cx.cpu(i))
                .fold(0u64, |a, &x| {
                    a.saturating_add((f.requests(x, q) as u64).saturating_mul(jobs(
                        resp[i],
                        resp[x],
                        cx.period[x],
                    )))
                });
            (f.requests(i, q) as u64).min(elsewhere)
        })
        .sum();
    suspending + cx.suspensions(i) + 1
}

/// The LP's bounds on `J_i`'s blocking at the response-time estimates
/// `resp` (`resp[i]` the job's own window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The local optimum alone.
    pub local: Time,
    /// The remote optimum alone, with (20).
    pub remote: Time,
    /// The joint optimum of both, without (20): a lower task of `J_i`'s
    /// CPU spends each section once, blocking directly, indirectly or by
    /// preemption, so this can be well below `local + remote`.
    pub total: Time,
}

/// The LP's bounds on `J_i`'s blocking at the response-time estimates
/// `resp`.
pub fn bound(cx: &Context, tb: &Tables, i: TaskId, resp: &[Time]) -> Bound {
    bound_at(cx, i, resp, &waits(cx, tb, i, resp))
}

/// [`bound`] with the waits computed.
fn bound_at(cx: &Context, i: TaskId, resp: &[Time], waits: &[Wait]) -> Bound {
    let rho = points(cx, i, resp);
    let mut l = local(cx, i, resp);
    let mut pcp_cands: Vec<Cand> = l.ceiling.iter().map(|e| e.1).collect();
    let pcp = longest(&mut pcp_cands, rho);
    let mut local = pcp;
    for (_, cands) in &mut l.global {
        local = local.saturating_add(longest(cands, rho));
    }
    let rm = remote(cx, i, resp, waits);
    let free = remote_bound(cx, i, &rm, None, false);
    // Without a lower task of `J_i`'s CPU holding global resources, the
    // joint program is the remote one without (20) beside the knapsack.
    let joint = if l.global.is_empty() {
        free
    } else {
        remote_bound(cx, i, &rm, Some(rho), false)
    };
    Bound {
        local,
        remote: free.min(rm.total),
        total: joint
            .saturating_add(pcp)
            .min(one_cap(cx, i, &rm, &l, rho.saturating_add(rm.ahead))),
    }
}

/// (11'') as a bound on the total: it caps a lower task of `J_i`'s CPU,
/// over its global sections and its sections on local resources whose
/// ceiling reaches `J_i` together, at `once = ρ_i + H_i` (see the
/// module's doc), so its `once` longest sections of either kind bound
/// what it adds, and the others' network without those tasks bounds the
/// rest. [`Time::MAX`] where it cannot win: unless a task with such local
/// sections has more units than `once`, it counts every unit of those
/// tasks, and of a task with global sections alone at least what (11)
/// and (17) let the network give it (which is why (11') alone, over the
/// global sections, would never win), so never less than the network
/// and the knapsack.
fn one_cap(cx: &Context, i: TaskId, rm: &Remote, l: &Local, once: u64) -> Time {
    if l.ceiling.is_empty() {
        return Time::MAX;
    }
    // Per lower task: its sections of both kinds, and whether it has
    // local ones.
    let mut own: Vec<(TaskId, Vec<Cand>, bool)> = l
        .global
        .iter()
        .map(|(x, c)| (*x, c.clone(), false))
        .collect();
    for &(x, c) in &l.ceiling {
        match own.iter_mut().find(|e| e.0 == x) {
            Some(e) => {
                e.1.push(c);
                e.2 = true;
            }
            None => own.push((x, vec![c], true)),
        }
    }
    let units = |c: &[Cand]| c.iter().fold(0u64, |a, c| a.saturating_add(c.1));
    if !own.iter().any(|(_, c, local)| *local && units(c) > once) {
        return Time::MAX;
    }
    own.iter_mut()
        .fold(remote_bound(cx, i, rm, None, true), |a, (_, c, _)| {
            a.saturating_add(longest(c, once))
        })
}

/// The last bound per task, with the counts it was computed from.
///
/// The bound reads the response-time estimates only through integers:
/// each task's jobs in `J_i`'s window, the waits `W_q`, and the arrivals
/// of the higher tasks in each wait. The engine refines every task at
/// every round while the estimates climb by less than a period, so most
/// refinements find those integers unchanged and the bound with them.
#[derive(Debug, Default)]
pub struct Memo {
    last: RefCell<Vec<Option<Counted>>>,
}

/// A bound with the counts it was computed from ([`counts`]).
type Counted = (Vec<u64>, Bound);

impl Memo {
    /// [`bound`], recomputed only where its counts changed since the last
    /// call for the same task.
    pub fn bound(&self, cx: &Context, tb: &Tables, i: TaskId, resp: &[Time]) -> Bound {
        let w = waits(cx, tb, i, resp);
        let key = counts(cx, i, resp, &w);
        let mut last = self.last.borrow_mut();
        if last.len() < cx.n() {
            last.resize(cx.n(), None);
        }
        match &last[i] {
            Some((k, b)) if *k == key => *b,
            _ => {
                let b = bound_at(cx, i, resp, &w);
                last[i] = Some((key, b));
                b
            }
        }
    }
}

/// Everything [`bound_at`] reads from `resp`, as integers: per task its
/// jobs in `J_i`'s window; per wait, its length and the arrivals of the
/// tasks at or above `π_i` that use its resource.
fn counts(cx: &Context, i: TaskId, resp: &[Time], waits: &[Wait]) -> Vec<u64> {
    let f = &cx.f;
    let mut key: Vec<u64> = (0..cx.n())
        .map(|x| jobs(resp[i], resp[x], cx.period[x]))
        .collect();
    for &(q, _, w) in waits {
        key.push(w.ns());
        for &y in f.users(q) {
            if y != i && cx.prio(y) >= cx.prio(i) {
                key.push(arrivals(w, resp[y], cx.period[y]));
            }
        }
    }
    key
}

/// The program itself, as stated in the module's doc (aggregated): what the tests solve with a general LP solver to check
/// [`bound`]. Its local variables are those marked `local`.
pub fn program(cx: &Context, tb: &Tables, i: TaskId, resp: &[Time]) -> Program {
    let rho = points(cx, i, resp);
    let rm = remote(cx, i, resp, &waits(cx, tb, i, resp));
    let Local { global, ceiling } = local(cx, i, resp);
    let mut p = Program::default();
    let var = |task, key, kind, length: Time| Var {
        task,
        key,
        kind,
        local: kind == Kind::Preempt,
        length: length.ns() as f64,
    };
    let mut shared = vec![Vec::new(); rm.mine.len()];
    let mut per_task = vec![Vec::new(); cx.n()];
    let mut preempt = vec![Vec::new(); cx.n()];
    for pr in &rm.pairs {
        let mut one = Vec::new();
        if pr.direct != Direct::Never {
            let d = p.var(var(pr.task, pr.res, Kind::Direct, pr.len));
            one.push(d);
            match pr.direct {
                Direct::Shared => {
                    let g = rm.mine.iter().position(|w| w.0 == pr.res).unwrap();
                    shared[g].push(d);
                }
                Direct::Alone(cap) => p.at_most(19, &[d], cap),
                Direct::Never => unreachable!(),
            }
        }
        let ind = p.var(var(pr.task, pr.res, Kind::Indirect, pr.len));
        one.push(ind);
        p.at_most(18, &[ind], pr.indirect);
        per_task[pr.task].push(ind);
        if global.iter().any(|g| g.0 == pr.task) {
            // A lower task of J_i's CPU: its boosted section may preempt;
            // in all three ways together it delays J_i at most ρ_i times
            // (11').
            let pv = p.var(var(pr.task, pr.res, Kind::Preempt, pr.len));
            one.push(pv);
            preempt[pr.task].extend_from_slice(&one);
        }
        p.at_most(1, &one, pr.n);
    }
    for (g, vars) in shared.iter().enumerate() {
        p.at_most(15, vars, rm.mine[g].1);
    }
    for (x, vars) in per_task.iter().enumerate() {
        p.at_most(17, vars, rm.task_cap[x]);
    }
    // (11) over the preemptions, at most `ρ_i`, and (11') over all three
    // ways, at most `ρ_i + H_i` (both numbered 11: the tests that keep
    // only the preemptions of these rows get (11) alone).
    for vars in &preempt {
        let own: Vec<usize> = vars.iter().copied().filter(|&v| p.vars[v].local).collect();
        p.at_most(11, &own, rho);
        p.at_most(11, vars, rho.saturating_add(rm.ahead));
    }
    // (20): its coefficients are the objective's, so the remote optimum is
    // the smaller of this bound and the optimum without it.
    let weighted: Vec<(usize, f64)> = (0..p.vars.len())
        .filter(|&v| !p.vars[v].local)
        .map(|v| (v, p.vars[v].length))
        .collect();
    p.rows.push(super::Row {
        constraint: 20,
        terms: weighted,
        bound: rm.total.ns() as f64,
    });
    let mut pcp = Vec::new();
    for &(x, (len, count)) in &ceiling {
        let v = p.var(var(x, usize::MAX, Kind::Preempt, len));
        p.at_most(1, &[v], count);
        pcp.push(v);
        preempt[x].push(v);
    }
    p.at_most(11, &pcp, rho);
    // (11''), rtsync's: (11') over the task's sections on local resources
    // whose ceiling reaches `J_i` as well (numbered 0, not the paper's).
    for vars in &preempt {
        p.at_most(0, vars, rho.saturating_add(rm.ahead));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocking::lp::check::{config, optimum, windows};
    use crate::generate::{GenConfig, generate};
    use crate::partition::Heuristic;
    use proptest::prelude::*;
    use rtsync_model::Protocol;

    /// A system from a spec written in the test.
    fn spec(src: &str) -> rtsync_model::System {
        rtsync_model::load_str(src, None)
            .unwrap_or_else(|d| panic!("{d}"))
            .0
    }

    /// Three CPUs. On CPU 0, `a` (priority 5) requests the global `g` four
    /// times; `l` (priority 2) holds `g` for 2 ms. On CPU 1, `b` (priority
    /// 3) holds `g` for 3 ms and `c` (priority 6) holds the global `h` for
    /// 1 ms; `d` (priority 7) on CPU 2 shares `h`. On CPU 1, `h`'s key (its
    /// remote ceiling there, `d`'s 7) is at or above `g`'s (`a`'s 5).
    /// Windows: `R_a = 20`, `R_l = 30`, `R_b = 10`, `R_c = 2`, `R_d = 10` ms.
    ///
    /// Classic: `ρ_a = 4 + 1 = 5` points, each with `l`'s 2 ms section:
    /// 10 ms local. Each wait is the longest lower section of another CPU
    /// with what its CPU runs inside it, `3 + 1 = 4` ms (`l`, on `a`'s CPU,
    /// never holds `g` when `a` asks: it would run boosted, above `a`):
    /// 16 ms remote.
    ///
    /// LP: `l` has one job in the window (`⌈50 / 100⌉`), so one section,
    /// 2 ms local. Remote: the lower holder of `g` on another CPU, `b`, one
    /// section in the window (`⌈30 / 50⌉`), 3 ms directly; `c` preempts a
    /// holder on CPU 1 once per event there (`b`'s one), though it has
    /// `⌈22 / 10⌉ = 3` sections in the window: 1 ms; `d`'s CPU holds no
    /// event. 4 ms remote.
    #[test]
    fn a_hand_worked_example() {
        let sys = spec(
            r#"
[platform]
cpus = 3
protocol = "mpcp"
[[resource]]
name = "g"
[[resource]]
name = "h"
[[task]]
name = "a"
period = "100ms"
priority = 5
cpu = 0
body = [ { lock = "g", hold = "1ms" }, { lock = "g", hold = "1ms" }, { lock = "g", hold = "1ms" }, { lock = "g", hold = "1ms" } ]
[[task]]
name = "l"
period = "100ms"
priority = 2
cpu = 0
body = [ { lock = "g", hold = "2ms" } ]
[[task]]
name = "b"
period = "50ms"
priority = 3
cpu = 1
body = [ { lock = "g", hold = "3ms" } ]
[[task]]
name = "c"
period = "10ms"
priority = 6
cpu = 1
body = [ { lock = "h", hold = "1ms" } ]
[[task]]
name = "d"
period = "100ms"
priority = 7
cpu = 2
body = [ { lock = "h", hold = "1ms" } ]
"#,
        );
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let classic = crate::blocking::mpcp::demand(&cx, &tb, 0);
        assert_eq!(
            (classic.local, classic.remote),
            (Time::from_ms(10), Time::from_ms(16))
        );
        let resp = [20, 30, 10, 2, 10].map(Time::from_ms);
        let b = bound(&cx, &tb, 0, &resp);
        assert_eq!((b.local, b.remote), (Time::from_ms(2), Time::from_ms(4)));
        assert_eq!(b.total, Time::from_ms(6));
    }

    /// On CPU 0, `a` (priority 5) requests the global `g` once (`ρ_a = 2`
    /// points); `l` below it holds `g`, `k1`, `k2` for 2 ms each; `z` on
    /// CPU 1 (lowest) shares all three for 10 us. Windows: one job of each
    /// in `a`'s.
    ///
    /// `l` never holds `g` when `a` asks for it (holding it, `l` would run
    /// boosted, above `a`, which could not run to ask), nor is it granted
    /// `g` while `a` waits (it queues behind `a`, by priority): it delays
    /// `a` by preemption alone, at most once per point (11), its two
    /// longest sections, 4 ms; `z`'s section on `g` directly, 10 us. Before
    /// `l` was kept out of `g`'s direct delay, as the paper's (15) allows
    /// any lower task in, the program with (11) over the preemptions alone
    /// let `l` spend `g` directly and `k1`, `k2` by preemption, 6 ms, and
    /// the classic wait for `g` was `l`'s 2 ms.
    #[test]
    fn a_lower_task_of_the_cpu_delays_the_job_once_per_point() {
        let sys = spec(
            r#"
[platform]
cpus = 2
protocol = "mpcp"
[[resource]]
name = "g"
[[resource]]
name = "k1"
[[resource]]
name = "k2"
[[task]]
name = "a"
period = "100ms"
priority = 5
cpu = 0
body = [ { lock = "g", hold = "1ms" } ]
[[task]]
name = "l"
period = "200ms"
priority = 2
cpu = 0
body = [ { lock = "g", hold = "2ms" }, { lock = "k1", hold = "2ms" }, { lock = "k2", hold = "2ms" } ]
[[task]]
name = "z"
period = "300ms"
priority = 1
cpu = 1
body = [ { lock = "g", hold = "10us" }, { lock = "k1", hold = "10us" }, { lock = "k2", hold = "10us" } ]
"#,
        );
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let resp = [20, 30, 30].map(Time::from_ms);
        let b = bound(&cx, &tb, 0, &resp);
        assert_eq!((b.local, b.remote), (Time::from_ms(4), Time::from_us(10)));
        assert_eq!(b.total, Time::from_us(4010));
        // The program with (11) over the preemptions alone (and without
        // rtsync's (11'')): the same.
        let mut p = program(&cx, &tb, 0, &resp);
        p.rows.retain(|r| r.constraint != 0);
        let all = p.clone();
        for r in p.rows.iter_mut().filter(|r| r.constraint == 11) {
            r.terms.retain(|&(v, _)| all.vars[v].local);
        }
        p.rows.retain(|r| r.constraint != 20);
        assert!((optimum(&p, |_| true) - 4.01e6).abs() < 0.5);
    }

    /// (11''). On CPU 0, `a` (priority 5) locks the local `k` (1 ms),
    /// then the global `g` (1 ms): `ρ_a = 1 + min(1, 1) = 2` points, `H_a
    /// = 0`. `l` below it holds `k` for 4 ms, `g` for 2 ms and the global
    /// `h` for 1.5 ms; `z` on CPU 1 shares `g` and `h` for 10 us. Windows:
    /// one job of each in `a`'s.
    ///
    /// Brandenburg's program, and (11') over `l`'s global sections alone:
    /// `l`'s `k` at one point (PCP, 4 ms), its `g` and `h` by preemption
    /// at the two points (3.5 ms), `z`'s `g` directly (10 us): 7.51 ms.
    /// But `l` is inside one section at most at each point, of either
    /// kind: its two longest, `k` and `g`, 6 ms, and `z`'s 10 us (the
    /// network without `l`): 6.01 ms, the exact optimum with (11'').
    #[test]
    fn a_lower_task_spends_its_points_on_local_and_global_sections_alike() {
        let sys = spec(include_str!(
            "../../../tests/data/mpcp-one-section-per-point.toml"
        ));
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let resp = [20, 30, 30].map(Time::from_ms);
        assert_eq!(points(&cx, 0, &resp), 2);
        let b = bound(&cx, &tb, 0, &resp);
        assert_eq!(
            (b.local, b.remote),
            (Time::from_us(7500), Time::from_us(10))
        );
        assert_eq!(b.total, Time::from_us(6010));
        let exact = program(&cx, &tb, 0, &resp);
        let mut p = exact.clone();
        p.rows.retain(|r| r.constraint != 0 && r.constraint != 20);
        assert!((optimum(&p, |_| true) - 7.51e6).abs() < 0.5);
        let mut exact = exact;
        exact.rows.retain(|r| r.constraint != 20);
        assert!((optimum(&exact, |_| true) - 6.01e6).abs() < 0.5);
    }

    /// (11') counts the grants to tasks ahead of the job on its CPU
    /// (`tests/data/mpcp-lower-preempts-a-holder-ahead.toml`). `i` (CPU 0,
    /// priority 5) requests the global `q` once; `y` above it on CPU 0
    /// shares `q`; `x` below both holds `r`, keyed above `q` there, three
    /// times (5 ms each). Windows: `R_i = 20`, `R_y = 15`, `R_x = 25`,
    /// `R_w = 20`, `R_z = 15`, `R_v = 10` ms; one job of each in `i`'s.
    ///
    /// The wait for `q`: `z`'s 0.5 ms, `y`'s 1 ms with `x`'s 5 ms inside it
    /// (`L'`), `w`'s 3 ms, one job each: 9.5 ms. `ρ_i = 1 + min(1, 2) = 2`.
    /// Remote: `x` preempts `y`'s section once (the one event on CPU 0,
    /// 17), `w` 3 ms and `z` 0.5 ms directly: 8.5 ms. Local: two of `x`'s
    /// sections, 10 ms. Jointly `x` spends all three (one indirectly, two
    /// by preemption), 18.5 ms: `H_i = 1` (`y`'s grant) raises (11')'s cap
    /// to 3, so it no longer binds. Capped at `ρ_i = 2`, as SchedCAT's
    /// `lp-mpcp` caps it, the total would be 13.5 ms, and the simulator
    /// finds a schedule past that (`mpcp_a_lower_task_preempts_a_holder_ahead`
    /// in its tests).
    #[test]
    fn a_lower_task_delays_the_job_once_more_per_grant_ahead_of_it() {
        let sys = spec(include_str!(
            "../../../tests/data/mpcp-lower-preempts-a-holder-ahead.toml"
        ));
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let resp = [15, 20, 25, 20, 15, 10].map(Time::from_ms);
        let w = waits(&cx, &tb, 1, &resp);
        assert_eq!(w.as_slice(), &[(0, 1, Time::from_us(9500))]);
        assert_eq!(points(&cx, 1, &resp), 2);
        assert_eq!(remote(&cx, 1, &resp, &w).ahead, 1);
        let b = bound(&cx, &tb, 1, &resp);
        assert_eq!(
            (b.local, b.remote, b.total),
            (Time::from_ms(10), Time::from_us(8500), Time::from_us(18500))
        );
    }

    /// The points `ρ_a` count only the requests that can find their
    /// resource held by another CPU. `a` (CPU 0, priority 5) requests the
    /// global `g` three times; its only other user is `b` (CPU 1), one
    /// 1 ms section a job, one job in `a`'s window (`⌈(40 + 10) / 200⌉`).
    /// So at most one of `a`'s requests suspends: `ρ_a = 1 + 1 = 2` points
    /// (the classic count, `3 + 1 = 4`). `l` (CPU 0, priority 1, period
    /// 10 ms) holds the local `k`, whose ceiling reaches `a`, for 2 ms, and
    /// has `⌈(40 + 5) / 10⌉ = 5` jobs in the window: one section per point,
    /// 2 · 2 = 4 ms of local blocking, where four points gave 8 ms.
    #[test]
    fn only_requests_that_can_find_the_resource_held_elsewhere_are_points() {
        let sys = spec(
            r#"
[platform]
cpus = 2
protocol = "mpcp"
[[resource]]
name = "g"
[[resource]]
name = "k"
[[task]]
name = "a"
period = "100ms"
priority = 5
cpu = 0
body = [ { lock = "g", hold = "1ms" }, { lock = "g", hold = "1ms" }, { lock = "g", hold = "1ms" }, { lock = "k", hold = "10us" } ]
[[task]]
name = "l"
period = "10ms"
priority = 1
cpu = 0
body = [ { lock = "k", hold = "2ms" } ]
[[task]]
name = "b"
period = "200ms"
priority = 3
cpu = 1
body = [ { lock = "g", hold = "1ms" } ]
"#,
        );
        let cx = Context::new(&sys);
        let tb = Tables::new(&cx);
        let resp = [40, 5, 10].map(Time::from_ms);
        assert_eq!(points(&cx, 0, &resp), 2);
        assert_eq!(bound(&cx, &tb, 0, &resp).local, Time::from_ms(4));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The greedy optima (the network's for the remote part, the
        /// knapsacks' for the local one) are the LP's, as a general solver
        /// finds them, for every task at random windows, with (11) for the
        /// preemptions alone; with (11') the bounds lie between that and
        /// the exact optimum (never below it: they bound what it bounds).
        #[test]
        fn greedy_is_the_lp_optimum(
            seed in any::<u64>(),
            cpus in 2usize..5,
            requests_max in 1u32..4,
            resources in 2usize..6,
            scale in 1u64..8,
            local_resources in 0usize..3,
            suspend_prob in 0.0f64..0.5,
        ) {
            let c = GenConfig {
                local_resources,
                suspend_prob,
                suspend_max: Time::from_us(200),
                ..config(Protocol::Mpcp, cpus, requests_max, resources)
            };
            let sys = generate(&c, seed, 0);
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            let resp = windows(&cx, scale);
            for i in 0..cx.n() {
                let b = bound(&cx, &tb, i, &resp);
                let exact = program(&cx, &tb, i, &resp);
                // (11) over the preemptions alone, as Brandenburg states it,
                // and without rtsync's (11'').
                let mut p = exact.clone();
                p.rows.retain(|r| r.constraint != 0);
                for r in p.rows.iter_mut().filter(|r| r.constraint == 11) {
                    r.terms.retain(|&(v, _)| exact.vars[v].local);
                }
                let lp_remote = optimum(&p, |v| !v.local);
                let lp_local = optimum(&p, |v| v.local);
                let exact_remote = optimum(&exact, |v| !v.local);
                p.rows.retain(|r| r.constraint != 20);
                let lp_total = optimum(&p, |_| true);
                let mut exact = exact;
                exact.rows.retain(|r| r.constraint != 20);
                let exact_total = optimum(&exact, |_| true);
                let ns = |t: Time| t.ns() as f64;
                prop_assert!(ns(b.remote) < lp_remote + 0.5 && ns(b.remote) > exact_remote - 0.5, "task {i}: remote {} vs LP {lp_remote}, exact {exact_remote}", b.remote);
                prop_assert!((ns(b.local) - lp_local).abs() < 0.5, "task {i}: local {} vs LP {lp_local}", b.local);
                prop_assert!(ns(b.total) < lp_total + 0.5 && ns(b.total) > exact_total - 0.5, "task {i}: total {} vs LP {lp_total}, exact {exact_total}", b.total);
            }
        }

        /// The memo answers as the bound does along climbing estimates,
        /// as the engine's rounds make them: one task's estimate at a
        /// time, raised by a random part of its period (its counts change
        /// at some steps and not at others).
        #[test]
        fn the_memo_answers_as_the_bound_does(
            seed in any::<u64>(),
            cpus in 2usize..4,
            steps in prop::collection::vec((any::<prop::sample::Index>(), 1u64..1000), 1..24),
        ) {
            let c = GenConfig {
                cpus,
                tasks: 3 * cpus,
                utilization: 0.6 * cpus as f64,
                resources: 2,
                protocol: Protocol::Mpcp,
                requests_max: 3,
                cs_max: Time::from_ms(2),
                partition: Some(Heuristic::WorstFit),
                ..GenConfig::default()
            };
            let sys = generate(&c, seed, 0);
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            let memo = Memo::default();
            let mut resp: Vec<Time> = (0..cx.n()).map(|x| Time::from_ns(cx.period[x].ns() / 8 + 1)).collect();
            for (who, part) in steps {
                for i in 0..cx.n() {
                    prop_assert_eq!(memo.bound(&cx, &tb, i, &resp), bound(&cx, &tb, i, &resp), "task {}", i);
                }
                let x = who.index(cx.n());
                resp[x] = Time::from_ns(resp[x].ns() + cx.period[x].ns() * part / 1000);
            }
        }
    }
}
