//! Fixed-priority response-time analysis with blocking, release jitter and
//! self-suspension, iterated to a system-wide fixed point.
//!
//! For each task, the response time is the least fixed point of
//! (Joseph and Pandya 1986; Audsley et al. 1993 for jitter and blocking)
//!
//! `w = E_i + S_i + B_i + Σ_{h ∈ hp(i)} ⌈(w + J_h) / T_h⌉ · C_h + A_i(w)`,  `R_i = J_i + w`
//!
//! with `E_i` execution plus spin, `S_i` self-suspension plus remote
//! blocking, `B_i` local blocking and `A_i` the work of synchronization
//! agents on the CPU. Suspension (remote blocking included) is handled in
//! the two ways proven sound by Chen et al., "Many suspensions, many
//! problems" (Real-Time Systems 2019), chosen per suspending task above at
//! each step of the recurrence, the smaller term (`Engine::response`
//! says why that is sound; before 2026-12-01 the two forms were solved
//! apart and the smaller answer kept):
//!
//! 1. *jitter*: a suspending higher-priority task `h` interferes with
//!    release jitter `J_h = R_h - C_h` (Bletsas et al. 2018, correcting the
//!    earlier jitter-free forms used in several MPCP analyses);
//! 2. *suspension-oblivious*: `h`'s suspension is counted as execution,
//!    and its blocking by lower tasks with it (`Engine::oblivious_cost`:
//!    corrected 2026-12-01, the sections lower tasks start while `h` is
//!    suspended hold it back once it resumes).
//!
//! Form 1 needs the other tasks' response times, so the engine starts from
//! `R = C` and repeats the per-task analysis until no bound changes. Each
//! round can only raise bounds, and a bound past its deadline stops, so the
//! iteration ends.
//!
//! Protocols whose blocking bound has a job-window form (DPCP, FMLP+; see
//! [`DemandTable::refine`]) read response times in the blocking terms too:
//! the engine then refines every task's demand at each look from the
//! current estimates, starting from the job's execution alone, and looks at
//! every task each round. Every step is monotone in the estimates, so the
//! rounds climb to the least fixed point, where every job completes within
//! its estimate and the job windows hold (SchedCAT's iteration, Brandenburg
//! 2011). Should that not settle within the round limit, the analysis is
//! redone with the fixed forms alone.

use crate::blocking::{Demand, DemandTable, foreign_loads};
use crate::context::Context;
use crate::recurrence::{self, Term, Top};
use crate::result::Response;
use rtsync_model::{TaskId, Time};
use std::cell::RefCell;

/// Per-task demand and response-time bound.
pub struct FpAnalysis<'c> {
    /// The demands; with `first_miss`, only those of the tasks analysed
    /// and of the tasks above them are computed.
    pub demands: DemandTable<'c>,
    /// Per task, its response-time bound.
    pub responses: Vec<Response>,
    /// Rounds of the system-wide fixed point.
    pub rounds: usize,
    /// Per task, whether its bound came from its classic demand where it
    /// also has a joint spin bound (the spin LP's, [`Demand::joint`]): a
    /// suspending task above can make the classic demand the smaller
    /// (`Engine::response`), and the row of such a task shows the terms
    /// that decided its bound. Empty where nothing was recorded (a
    /// verdict-only pass).
    pub classic: Vec<bool>,
}

/// Runs the analysis on a partitioned system; with `first_miss`, stops at
/// the first task whose bound passes its deadline.
pub fn analyse<'c>(cx: &'c Context<'c>, first_miss: bool) -> FpAnalysis<'c> {
    analyse_with(cx, DemandTable::new(cx), first_miss)
}

/// The verdict alone, as a sweep asks for it: whether every task meets
/// its deadline. Where the fixed forms already accept the system, the job
/// windows (never larger) accept it too, so those cheaper rounds are tried
/// first.
///
/// A verdict needs one miss, not every bound, so the fixed forms look at
/// the tasks one CPU at a time (`cpu_major`), the most loaded CPU first:
/// a miss there is met after that CPU's tasks' demands alone, where the
/// priority order would first compute the demands of most of the system.
/// Any order is sound (see `settle`).
pub fn schedulable(cx: &Context) -> bool {
    let meets = |r: &[Response]| (0..cx.n()).all(|i| r[i].meets(cx.deadline[i]));
    let demands = DemandTable::new(cx);
    // One engine for both passes: its interfering sets and agent loads
    // are the same in each.
    let e = Engine::new(cx, &demands);
    let order = cpu_major(cx, &demands);
    if demands.windowed() {
        let fixed = iterate(&e, None, &order, true, false, Start::Floor)
            .expect("the fixed forms always end");
        if meets(&fixed.responses) {
            return true;
        }
        // The job-window rounds meet a miss sooner where they look first,
        // and the fixed forms' miss `m` says where that is likely. Any
        // order is sound (`settle`); this one only saves looks.
        let m = fixed.missed;
        if demands.served_by_priority() {
            // Waits served by priority (DPCP's agents) are longest at the
            // bottom of a CPU, and that CPU's own estimates raise them
            // most: where `m` has tasks above it, its CPU is first
            // settled alone (others' estimates still low, which keeps the
            // looks below the fixed point), and a miss there is met after
            // some ten looks at a time, where a round of the whole system
            // takes eighty on shape (b). Then CPU by CPU, the most loaded
            // first. Measured on the bench's shape (b): the rejected sets
            // 830k to 652k instructions each, the accepted ones unchanged.
            // Where `m` is its CPU's top task, that CPU says nothing
            // more: the priority order, which has raised the estimates
            // of every task above before it looks.
            if let Some(c) = m
                .filter(|&m| e.hp(m).next().is_some())
                .and_then(|m| cx.cpu(m))
            {
                return meets(&settle(&e, Some(cx.f.on_cpu(c)), &order, true).responses);
            }
            return meets(&settle(&e, None, &cx.f.by_priority, true).responses);
        }
        // FIFO queues (FMLP+), whose waits hardly depend on priority,
        // miss first where deadlines are shortest. Below the middle of
        // the priority order: CPU by CPU, that CPU's tasks alone before
        // the miss. Above it: in priority order. (Settling `m`'s CPU
        // first costs FMLP+ more: its miss is mostly on another CPU, and
        // a look reads every CPU's estimates.)
        let low = m.is_some_and(|m| {
            2 * cx.f.by_priority.iter().position(|&t| t == m).unwrap_or(0) >= cx.n()
        });
        let order = if low { &order } else { &cx.f.by_priority };
        return meets(&settle(&e, None, order, true).responses);
    }
    meets(&settle(&e, None, &order, true).responses)
}

/// The CPUs in decreasing load, the likeliest to miss first: each task's
/// [`DemandTable::cpu_time_hint`] over its period. Under MSRP, whose spin
/// is charged as execution, counting the spin there meets the first miss
/// on the bench's shape (b) after 7.9 looks per rejected set where the
/// execution alone took 19.1.
fn cpu_order(cx: &Context, demands: &DemandTable) -> Vec<usize> {
    let f = &cx.f;
    let load = |c: usize| -> f64 {
        f.on_cpu(c)
            .iter()
            .map(|&t| demands.cpu_time_hint(t).ratio(cx.period[t]))
            .sum()
    };
    let mut cpus: Vec<(f64, usize)> = (0..f.cpus).map(|c| (load(c), c)).collect();
    cpus.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    cpus.into_iter().map(|(_, c)| c).collect()
}

/// The tasks CPU by CPU, each CPU's in decreasing priority order, the CPUs
/// in decreasing load ([`cpu_order`]), tasks without a CPU last.
fn cpu_major(cx: &Context, demands: &DemandTable) -> Vec<TaskId> {
    let f = &cx.f;
    let mut order: Vec<TaskId> = Vec::with_capacity(cx.n());
    for c in cpu_order(cx, demands) {
        order.extend_from_slice(f.on_cpu(c));
    }
    order.extend(f.by_priority.iter().filter(|&&t| cx.cpu(t).is_none()));
    order
}

/// Runs the analysis with the fixed forms of the blocking bounds alone (no
/// job windows): what the bounds were before issue 28, kept so that tests
/// can check that the job windows only ever lower a bound.
pub fn analyse_fixed<'c>(cx: &'c Context<'c>) -> Vec<Response> {
    let demands = DemandTable::new(cx);
    iterate(
        &Engine::new(cx, &demands),
        None,
        &cx.f.by_priority,
        false,
        false,
        Start::Floor,
    )
    .expect("the fixed forms always end")
    .responses
}

/// Runs the fixed point over `demands`, which computes each task's demand
/// when the analysis first needs it, looking at the tasks in decreasing
/// priority order: in the first round every task above the one analysed
/// already has its first bound (fewer rounds), and a verdict-only run
/// meets a miss before it has computed the demands of the tasks below it.
pub fn analyse_with<'c>(
    cx: &'c Context<'c>,
    demands: DemandTable<'c>,
    first_miss: bool,
) -> FpAnalysis<'c> {
    let pass = settle(
        &Engine::new(cx, &demands),
        None,
        &cx.f.by_priority,
        first_miss,
    );
    FpAnalysis {
        demands,
        responses: pass.responses,
        rounds: pass.rounds,
        classic: pass.classic,
    }
}

/// The fixed point, the tasks looked at in `order` each round (after the
/// rounds of the `lead` tasks alone, see [`iterate`]): with the job
/// windows where the protocol has them, with the fixed forms alone should
/// those rounds not settle (then without the lead).
///
/// Any order that keeps each CPU's tasks in decreasing priority order
/// gives the same bounds and verdict: every estimate starts below the
/// least fixed point (a task not yet looked at reads as zero) and each
/// look raises it to at most its value there, so the rounds end at that
/// fixed point, and a look past the deadline from estimates below it is
/// past the deadline at it too. The order only changes how many looks
/// that takes. (With job windows, a look reads the demands of the tasks
/// above it on its CPU as last refined; their fixed forms are larger, so
/// they must have been looked at first for the look to stay below the
/// fixed point.)
fn settle(e: &Engine, lead: Option<&[TaskId]>, order: &[TaskId], first_miss: bool) -> Pass {
    let windowed = e.d.windowed();
    iterate(e, lead, order, first_miss, windowed, Start::Floor).unwrap_or_else(|| {
        // The job-window rounds did not settle: the fixed forms.
        e.d.unrefine();
        iterate(e, None, order, first_miss, false, Start::Floor)
            .expect("the fixed forms always end")
    })
}

/// The lower tasks of a task's CPU whose sections agents run there, as
/// [`Engine::lower_agents_at_once`] and [`Engine::agents_after_resuming`]
/// read them.
#[derive(Clone, Copy, Default)]
struct LowerHome {
    /// Whether there is one.
    any: bool,
    /// The longest such section of any of them.
    longest: Time,
    /// Each one's charge at one job, summed: the smaller of its longest
    /// section per arrival of the task and its load.
    each: Time,
}

/// What one run of the fixed point found.
struct Pass {
    /// Per task, its bound (with `first_miss`, the miss's alone, every
    /// other task [`Response::Unbounded`]).
    responses: Vec<Response>,
    /// Rounds taken.
    rounds: usize,
    /// With `first_miss`, the task whose bound passed its deadline.
    missed: Option<TaskId>,
    /// Per task, the estimate the others read at the end: its bound, or
    /// for a task past its deadline what it was held at (its deadline, or
    /// its first estimate where that was already past it).
    #[cfg_attr(not(test), allow(dead_code))]
    estimates: Vec<Time>,
    /// Per task, whether its last look's bound came from its classic
    /// demand beside a joint spin bound ([`FpAnalysis::classic`]); empty
    /// with `first_miss`, which reports one bound and no rows.
    classic: Vec<bool>,
}

/// Where the job-window rounds start a task's estimate: any value below
/// its least fixed point gives the same bounds, a higher one fewer rounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Start {
    /// [`Engine::floor`]: the busy window without blocking.
    Floor,
    /// The job's execution and self-suspension alone (the first wave's
    /// start, kept for the test that the two end at the same bounds).
    #[cfg_attr(not(test), allow(dead_code))]
    Execution,
}

/// The system-wide fixed point; `None` when the job-window rounds
/// (`windowed`) reached the round limit unsettled.
///
/// The `lead` tasks are first looked at alone, round after round until
/// their own estimates settle (or the round limit), then `order`'s until
/// nothing moves. A lead only
/// reorders looks: the others' estimates stay below the fixed point
/// meanwhile (see [`settle`]), so a miss met in a lead round is a miss,
/// and the rounds of `order` still end at the fixed point.
fn iterate(
    e: &Engine,
    lead: Option<&[TaskId]>,
    order: &[TaskId],
    first_miss: bool,
    windowed: bool,
    start: Start,
) -> Option<Pass> {
    let (cx, demands) = (e.cx, e.d);
    let n = cx.n();
    // Start from the job's own demand, a lower bound of the fixed point;
    // set when a task is first looked at (as itself, interferer or agent).
    // With job windows, the demand itself reads the estimates: start from
    // the busy window without blocking ([`Engine::floor`]), which every
    // form of the bound exceeds (the job's execution alone would do too,
    // in more rounds).
    let mut resp = vec![Time::ZERO; n];
    let mut seen = vec![false; n];
    // Whether it set an estimate: with job windows that is a rise like any
    // other (see its use below).
    let mut first_look = |x: TaskId, resp: &mut [Time]| -> bool {
        if seen[x] {
            return false;
        }
        seen[x] = true;
        resp[x] = if windowed && start == Start::Floor {
            e.floor(x, resp)
        } else if windowed {
            let d = demands.fixed(x);
            cx.jitter[x]
                .saturating_add(d.exec)
                .saturating_add(cx.f.tasks[x].suspension)
        } else {
            cx.jitter[x].saturating_add(e.own(x))
        };
        !resp[x].is_zero()
    };
    // The suspension-oblivious form needs no response times unless agents
    // run on the CPU: computed once there, at the first look.
    let no_resp = vec![Time::ZERO; n];
    let mut oblivious: Vec<Option<Option<Time>>> = vec![None; n];
    // Per task, where each form's recurrence stopped at its last look
    // ([`Engine::response`]).
    let mut warm = vec![[Time::ZERO; 2]; n];
    let mut out = vec![Response::Unbounded; n];
    let mut classic = if first_miss {
        Vec::new()
    } else {
        vec![false; n]
    };
    // From the second round on, a task needs a new look only when
    // something its bound reads moved after its last look (`rose`,
    // `moved` and `looked` read one clock): the demand of a task above it,
    // the estimate of a suspending task above it (its jitter), or an
    // agent's estimate. In decreasing priority order, a task's
    // interferers have their first-round bounds before it is looked at,
    // so without agents the second round of the fixed forms confirms and
    // recomputes nothing. With job windows a look refines the task's own
    // demand first (it reads every estimate); if that came out as before
    // and nothing else it reads moved, its recurrences are the same as at
    // its last look and are not solved again.
    let (mut clock, mut rose, mut looked) = (0u64, vec![0u64; n], vec![0u64; n]);
    // When each task's refined demand last changed (the fixed forms never
    // change once computed).
    let mut moved = vec![0u64; n];
    let moved_since = |i: TaskId, since: u64, rose: &[u64], moved: &[u64]| {
        e.hp(i)
            .any(|h| moved[h] > since || (rose[h] > since && e.suspends(h)))
            || e.agents(i).iter().any(|&(x, _)| x != i && rose[x] > since)
    };
    let mut last_rise = 0u64;
    // Under DPCP a task's job window grows with its own estimate (its
    // requests wait for every higher agent's jobs in that window): a look
    // whose estimate rose refines its demand at once and solves again,
    // until the two agree, rather than a round later. Another look in
    // the order, so sound as any (see `settle`). Measured on the bench's
    // shape (b): DPCP rejected sets 652k to 594k instructions each,
    // accepted 2.60M to 1.98M; FMLP+ 462k to 538k and 2.06M to 2.20M (its
    // FIFO waits hardly grow with the job's own window, and its job
    // window costs more), so FMLP+ waits for the next round.
    let climb = windowed && e.climb;
    let max_rounds = 4 * n + 8;
    // Whether the rounds are still the lead's, and how many rounds the
    // current set of tasks (the lead's, then the order's) has had.
    let (mut rounds, mut leading, mut phase_rounds) = (0, lead.is_some(), 0);
    loop {
        rounds += 1;
        phase_rounds += 1;
        let round_start = clock;
        let mut any = false;
        let this = if leading {
            lead.unwrap_or(order)
        } else {
            order
        };
        for &i in this {
            if looked[i] != 0
                && if windowed {
                    // Job windows read every estimate.
                    last_rise <= looked[i]
                } else {
                    !moved_since(i, looked[i], &rose, &moved)
                }
            {
                continue;
            }
            let since = looked[i];
            clock += 1;
            looked[i] = clock;
            if since == 0 {
                // A job window reads every estimate, those of tasks not
                // yet looked at as zero: a task looked at before one of
                // them first gets its estimate read a count of that
                // task's jobs too low, and must look again. (Until
                // 2026-12-02 a first estimate was no rise: where nothing
                // rose after it, the earlier task kept that demand, and
                // its bound, or a tied task's, ended below its equation.
                // Found by `the_rounds_end_at_a_fixed_point`, MPCP's LP
                // form, seed 61077: a lower task's jobs in the local term.)
                let mut set = first_look(i, &mut resp);
                for h in e.hp(i) {
                    set |= first_look(h, &mut resp);
                    // A first refinement can lower a demand (the job
                    // window below the fixed form); later ones only raise
                    // it. `i` reads the demands of the tasks above it, so
                    // each is refined before `i` first reads it: in
                    // priority order they are looked at first anyway,
                    // but a task of equal priority (in `hp`, served FIFO)
                    // may come after `i`, and a demand that fell after
                    // `i`'s look would leave `i`'s bound above the least
                    // fixed point and its recurrences resumed from above
                    // their least solutions (`warm`).
                    if windowed && !demands.is_refined(h) {
                        demands.refine(h, &resp);
                        moved[h] = clock;
                    }
                }
                for &(x, _) in e.agents(i) {
                    set |= first_look(x, &mut resp);
                }
                if set && windowed {
                    last_rise = clock;
                    any = true;
                }
            }
            let mut again = false;
            loop {
                if windowed {
                    let before = demands.computed(i);
                    let d = demands.refine(i, &resp);
                    if before != Some(d) {
                        moved[i] = clock;
                        // A task that reads this demand and was looked at
                        // before `i` this round (one tied with `i`) looks
                        // again, even where `i`'s estimate does not rise:
                        // held at its deadline, a missing task's demand
                        // still grows with the others' estimates, and a
                        // reader left on the old one would end below its
                        // equation (found by `climbing_ends_at_the_same_bounds`).
                        last_rise = clock;
                        any = true;
                    } else if again || (since != 0 && !moved_since(i, since, &rose, &moved)) {
                        break;
                    }
                }
                // Form 2 alone answers where nothing above suspends (and
                // no agents run): then it reads no estimate, and is solved
                // once.
                let obl = if !windowed && e.agents(i).is_empty() && !e.hp(i).any(|h| e.suspends(h))
                {
                    Some(*oblivious[i].get_or_insert_with(|| {
                        let mut cold = Time::ZERO;
                        e.oblivious(i, &no_resp, e.limit(i), &mut cold)
                    }))
                } else {
                    None
                };
                // The last estimate is below every form's least solution now
                // (every input only rose since), and so is where each form's
                // recurrence stopped at the last look: it resumes from the
                // higher of the two instead of climbing again from its base.
                let low = resp[i].saturating_sub(cx.jitter[i]);
                for w in &mut warm[i] {
                    *w = (*w).max(low);
                }
                let (r, by_classic) = e.response(i, &resp, obl, &mut warm[i]);
                out[i] = r;
                if let Some(c) = classic.get_mut(i) {
                    *c = by_classic;
                }
                if first_miss && !matches!(r, Response::Bounded(_)) {
                    // The verdict is known; the other tasks are not analysed.
                    for (k, o) in out.iter_mut().enumerate() {
                        if k != i {
                            *o = Response::Unbounded;
                        }
                    }
                    return Some(Pass {
                        responses: out,
                        rounds,
                        missed: Some(i),
                        estimates: resp,
                        classic,
                    });
                }
                let v = match r {
                    Response::Bounded(t) => t,
                    // Past its deadline the task's bound no longer matters to
                    // the verdict; hold it at the deadline for others' jitter.
                    Response::Exceeds(_) | Response::Unbounded => cx.deadline[i],
                };
                if v > resp[i] {
                    resp[i] = v;
                    clock += 1;
                    rose[i] = clock;
                    last_rise = clock;
                    any = true;
                    if climb {
                        again = true;
                        continue;
                    }
                }
                break;
            }
        }
        if leading {
            // The lead's rounds end where its own estimates settle (or at
            // the round limit): the whole order goes on from them.
            if !any || phase_rounds >= max_rounds {
                leading = false;
                phase_rounds = 0;
            }
            continue;
        }
        if !any {
            break;
        }
        if phase_rounds >= max_rounds {
            if windowed {
                return None;
            }
            // Not converged: the current values are not yet bounds.
            for (i, o) in out.iter_mut().enumerate() {
                if rose[i] > round_start {
                    *o = Response::Unbounded;
                }
            }
            break;
        }
    }
    Some(Pass {
        responses: out,
        rounds,
        missed: None,
        estimates: resp,
        classic,
    })
}

/// What the per-task equations share: demands, interfering sets, who
/// suspends, and the agents' work per CPU.
struct Engine<'a> {
    cx: &'a Context<'a>,
    d: &'a DemandTable<'a>,
    /// Per task, the tasks of its CPU with equal or higher priority, itself
    /// included (a prefix of the CPU's list, which is sorted by priority);
    /// [`Engine::hp`] leaves the task out.
    at_or_above: Vec<&'a [TaskId]>,
    foreign: Vec<Vec<(TaskId, Time)>>,
    /// Beside each entry of `foreign`: whether its task is on that CPU
    /// (the only entries that can be a task below another of the CPU,
    /// [`Engine::agents_below`]), asked once here rather than at every
    /// term of every recurrence.
    home: Vec<Vec<bool>>,
    /// Per task, its own sections that agents run on its own CPU (DPCP
    /// and DFLP resources synchronized there): part of its `remote`
    /// demand, but not a suspension, and charged to the tasks below it
    /// through the agents' interference already.
    at_home: Vec<Time>,
    /// Per task on a CPU with agents, how often its job can find a
    /// lower-priority task of its CPU with a request in progress there
    /// ([`Engine::lower_agents`]): at release and after each suspension.
    arrivals: Vec<u64>,
    /// Every task's sections that agents of its own CPU run, longest
    /// first, one task after another, and per task its range there.
    home_arena: Vec<Time>,
    home_of: Vec<(u32, u32)>,
    /// Per task, [`Engine::lower_agents_at_once`], which reads nothing
    /// that changes: computed with the engine, not at every recurrence.
    at_once: Vec<Option<Time>>,
    /// Per task, how long the agents of the lower tasks of its CPU can
    /// hold one of its jobs back after its resumptions
    /// ([`Engine::reopened`]).
    reopened: Vec<Time>,
    /// Per task, how often one of its jobs can resume: after each
    /// self-suspension and each request under a protocol that may suspend
    /// it (`Protocol::suspends`: a wait, or a section served elsewhere;
    /// nested ones included). NPCS, IPCP, SRP and the spin locks never
    /// suspend a job for a request.
    resumptions: Vec<u64>,
    /// The terms of the recurrence being solved, kept to reuse their space.
    scratch: RefCell<Vec<Term>>,
    /// The pairs of terms of the recurrence being solved (form 1 or 2,
    /// whichever is smaller, per suspending task above), likewise.
    scratch_pairs: RefCell<Vec<(Term, Term)>>,
    /// The lower tasks' agents of the recurrence being solved
    /// ([`Engine::lower_agents`]), likewise.
    scratch_tops: RefCell<Vec<Top>>,
    /// Whether a job-window look whose estimate rose looks again at once
    /// ([`iterate`]): where the waits are served by priority.
    climb: bool,
}

impl<'a> Engine<'a> {
    fn new(cx: &'a Context<'a>, d: &'a DemandTable<'a>) -> Engine<'a> {
        let n = cx.n();
        let foreign = foreign_loads(cx);
        let mut at_home = vec![Time::ZERO; n];
        for (c, agents) in foreign.iter().enumerate() {
            for &(x, load) in agents {
                if cx.cpu(x) == Some(c) {
                    at_home[x] = load;
                }
            }
        }
        let (arrivals, home_arena, home_of) = lower_agent_counts(cx, &foreign);
        let home = foreign
            .iter()
            .enumerate()
            .map(|(c, agents)| agents.iter().map(|&(x, _)| cx.cpu(x) == Some(c)).collect())
            .collect();
        let mut e = Engine {
            cx,
            d,
            at_or_above: (0..n)
                .map(|i| match cx.cpu(i) {
                    Some(c) => {
                        let list = cx.f.on_cpu(c);
                        let p = cx.prio(i);
                        &list[..list.partition_point(|&h| cx.prio(h) >= p)]
                    }
                    None => &[],
                })
                .collect(),
            foreign,
            home,
            at_home,
            arrivals,
            home_arena,
            home_of,
            at_once: Vec::new(),
            reopened: Vec::new(),
            resumptions: (0..n)
                .map(|h| {
                    let waits = (cx.f.sections(h).iter())
                        .filter(|rq| cx.sys.resources[rq.resource].protocol.suspends())
                        .count();
                    cx.suspensions(h).saturating_add(waits as u64)
                })
                .collect(),
            scratch: RefCell::new(Vec::new()),
            scratch_pairs: RefCell::new(Vec::new()),
            scratch_tops: RefCell::new(Vec::new()),
            climb: d.served_by_priority(),
        };
        if e.foreign.iter().all(Vec::is_empty) {
            // No agents (every protocol but DPCP and DFLP): neither term
            // has anything to charge.
            e.at_once = vec![None; n];
            e.reopened = vec![Time::ZERO; n];
        } else {
            // One pass over each task's lower agents serves both terms.
            (e.at_once, e.reopened) = (0..n)
                .map(|i| {
                    let lower = e.lower_home(i);
                    (
                        e.lower_agents_at_once(i, lower),
                        e.agents_after_resuming(i, lower),
                    )
                })
                .unzip();
        }
        e
    }

    /// The agents' work of the lower tasks of `h`'s CPU that one job of
    /// `h` can wait for after it resumes: a lower task issues a request
    /// only while it runs, which it can while `h` is suspended, and the
    /// agent then runs above `h` once it resumes; at each resumption at
    /// most one such request is in progress ([`Engine::lower_agents_at_once`]'s
    /// argument): `(arrivals - 1) · longest`, `lower` being
    /// [`Engine::lower_home`]`(h)`.
    fn agents_after_resuming(&self, h: TaskId, lower: LowerHome) -> Time {
        lower
            .longest
            .checked_mul(self.arrivals[h].saturating_sub(1))
            .unwrap_or(Time::MAX)
    }

    /// What form 2 charges a task below `h` for one job of `h`: `h`'s time
    /// on the CPU, its suspensions counted as execution, and, where it
    /// suspends, the lower tasks' sections it can meet after it resumes.
    /// `lower` is the analysed task's own local blocking (its `local`).
    ///
    /// The last is the correction of 2026-12-01. The oblivious form's
    /// busy window starts before the analysed job's release, where no
    /// job above it is pending; in that window, a task below the analysed
    /// one runs only while every pending job above is suspended, and a
    /// section it starts then (a boosted or ceiling section, an agent's)
    /// holds back the job above once it resumes: time the analysed job's
    /// own blocking (once per *its* arrival) and the job's execution and
    /// suspension do not cover. tests/data/oblivious-reopened-ipcp.toml
    /// (one CPU, IPCP) and oblivious-reopened-dpcp.toml: a lower task's
    /// two 6 ms sections, each started while the task above suspends,
    /// push that task's job into the analysed one's window; simulated
    /// 22.96 ms against a bound of 19.02 ms before. Brandenburg and
    /// Anderson's s-oblivious analysis inflates each job by all its
    /// pi-blocking likewise; a job that never suspends needs no
    /// inflation, as no lower task runs while it is pending.
    ///
    /// The charge: at each resumption at most one such section is in
    /// progress (a lower task starts one only while it runs, and the
    /// section runs above it until done); one that holds back `h`, above
    /// the analysed job, would block that job at its arrival too, so
    /// `lower` bounds it, and `h`'s own local blocking bounds them all:
    /// `min(B_h, resumptions · lower)`, plus the agents' sections
    /// ([`Engine::reopened`]; DPCP and DFLP charge them apart from
    /// `local`). `B_h` alone (the first form of the correction) lost a
    /// tenth of the soundness stream's `reopened` systems under the
    /// uniprocessor protocols.
    fn oblivious_cost(&self, h: TaskId, d: &Demand, joint: bool, lower: Time) -> Time {
        let c = Engine::above(joint, d);
        if !self.suspends_in(h, d) {
            return c;
        }
        let met = lower
            .checked_mul(self.resumptions[h])
            .unwrap_or(Time::MAX)
            .min(d.local);
        c.saturating_add(self.suspension(h, d))
            .saturating_add(self.cx.f.tasks[h].suspension)
            .saturating_add(met)
            .saturating_add(self.reopened[h])
    }

    /// The tasks that can preempt `i` on its CPU: equal or higher priority
    /// (equal priorities are served FIFO, so an equal-priority job released
    /// earlier runs first).
    fn hp(&self, i: TaskId) -> impl Iterator<Item = TaskId> + '_ {
        self.at_or_above[i].iter().copied().filter(move |&h| h != i)
    }

    /// The part of `h`'s remote demand that it spends suspended: all of
    /// it but its own sections run by agents on its own CPU. Those run on
    /// the CPU `h` would run on, at a priority above every task's, and the
    /// CPU never idles while `h` waits for them; the tasks below `h` are
    /// charged for them through the agents' interference, so counting
    /// them in `h`'s suspension too would charge them twice (and make `h`
    /// a suspending task with jitter where it never leaves its CPU).
    /// `d` is `h`'s demand, read once by the caller for every use.
    fn suspension(&self, h: TaskId, d: &Demand) -> Time {
        d.remote.saturating_sub(self.at_home[h])
    }

    /// Whether `h` can suspend (remote blocking elsewhere, or its own
    /// suspensions).
    fn suspends(&self, h: TaskId) -> bool {
        self.suspends_in(h, &self.d.get(h))
    }

    /// [`Engine::suspends`] from `h`'s demand `d`, already read.
    fn suspends_in(&self, h: TaskId, d: &Demand) -> bool {
        !self.suspension(h, d).is_zero() || self.cx.f.tasks[h].suspensions > 0
    }

    fn agents(&self, i: TaskId) -> &[(TaskId, Time)] {
        self.cx.cpu(i).map_or(&[], |c| &self.foreign[c])
    }

    /// [`Engine::agents`], each entry with whether it is a task below `i`
    /// on `i`'s CPU.
    fn agents_below(&self, i: TaskId) -> impl Iterator<Item = (TaskId, Time, bool)> + '_ {
        let (agents, home): (&[_], &[bool]) = match self.cx.cpu(i) {
            Some(c) => (&self.foreign[c], &self.home[c]),
            None => (&[], &[]),
        };
        agents
            .iter()
            .zip(home)
            .map(move |(&(x, load), &h)| (x, load, h && self.cx.is_lower(x, i)))
    }

    /// The job's own demand: execution, spin, blocking, suspension; with
    /// a joint spin bound ([`Demand::joint`]), that in place of spin and
    /// local blocking.
    ///
    /// [`Demand::joint`]: crate::blocking::Demand::joint
    fn own(&self, i: TaskId) -> Time {
        let d = self.d.get(i);
        Engine::own_of(&d, d.joint.is_some(), self.cx.f.tasks[i].suspension)
    }

    /// [`Engine::own`] of the demand `d` with self-suspension
    /// `suspension`: with its joint bound where `joint`, else with its
    /// spin and local blocking.
    fn own_of(d: &Demand, joint: bool, suspension: Time) -> Time {
        let blocking = match d.joint {
            Some(j) if joint => j,
            _ => d.spin.saturating_add(d.local),
        };
        d.exec
            .saturating_add(blocking)
            .saturating_add(d.remote)
            .saturating_add(suspension)
    }

    /// What a job of `h` above `i` executes on their CPU as `i` is
    /// charged for it: its execution and spin, or its execution alone
    /// where `i`'s joint bound holds the spin of the jobs above.
    fn above(i_joint: bool, d: &Demand) -> Time {
        if i_joint { d.exec } else { d.cpu_time() }
    }

    /// The agents' work for `x`, a task of `i`'s CPU below it, that can
    /// delay `i`, as one term of the busy-window recurrence: `x` issues a
    /// request only while it runs, which it does not while `i` is ready,
    /// and waits for it, so at each of `i`'s arrivals ([`Engine::arrivals`])
    /// at most one request of `x` is in progress: the `arrivals` longest of
    /// the request instances of `x`'s jobs in the window, `⌈(w + R_x)/T_x⌉`
    /// of them (Brandenburg 2013, RTAS, the LP's constraint on local
    /// lower-priority tasks, which SchedCAT's `lp_dpcp.cpp` applies to
    /// DPCP and DFLP alike, summing the longest instances). It is at most
    /// both `arrivals · longest` and the jobs' whole agent work, and below
    /// their smaller where `x`'s sections differ: a step function of the
    /// job count, charged at each step of the recurrence ([`Top`]).
    ///
    /// History: before 2026-12-02 one of the two coarse bounds was chosen
    /// for all steps (`tests/data/dflp-lower-agents-capped.toml`, found
    /// beside SchedCAT's LP at seed 9); then their smaller at each step;
    /// then (the same day) the longest instances, after the hunt beside
    /// SchedCAT's LP DFLP at seed 10 found a task 1.2% above it, whose
    /// window held one job of a lower task with sections of 217.6, 74.7
    /// and 67.5 us and two arrivals: 292.3 us, where `2 · 217.6` and the
    /// job's 359.8 both charged more (`tests/data/dflp-lower-instances.toml`).
    /// Where the top instances of one job are all the longest, the charge
    /// is `arrivals · longest` at every `w > 0`, and goes in the base.
    /// `x` must be below `i` on its CPU ([`Engine::agents_below`]).
    fn lower_agents(&self, i: TaskId, x: TaskId, r_x: Time) -> LowerAgents {
        // One job's `a` longest sections are all the longest (read off the
        // sorted list, not summed at every solve): the top sum is the cap
        // at every job count.
        let (home, a) = (self.home(x), self.arrivals[i]);
        let flat = a == 0
            || usize::try_from(a - 1)
                .ok()
                .and_then(|k| home.get(k))
                .is_some_and(|&s| home.first() == Some(&s));
        if flat {
            LowerAgents::Cap(self.once_per_arrival(i, x))
        } else {
            LowerAgents::Top(Top::new(
                self.arrivals[i],
                r_x,
                self.cx.period[x],
                self.home_of[x],
            ))
        }
    }

    /// `x`'s sections that agents of its own CPU run, longest first.
    fn home(&self, x: TaskId) -> &[Time] {
        let (from, to) = self.home_of[x];
        &self.home_arena[from as usize..to as usize]
    }

    /// `x`'s longest section that agents of its own CPU run.
    fn home_longest(&self, x: TaskId) -> Time {
        self.home(x).first().copied().unwrap_or(Time::ZERO)
    }

    /// `x`'s longest section run by agents, once per arrival of `i`.
    fn once_per_arrival(&self, i: TaskId, x: TaskId) -> Time {
        self.home_longest(x)
            .checked_mul(self.arrivals[i])
            .unwrap_or(Time::MAX)
    }

    /// All the lower tasks of `i`'s CPU together: while an agent there
    /// serves one of them, nothing but agents runs on the CPU (they run
    /// above every task and never wait off it), so no other lower task
    /// can issue a request; at each of `i`'s arrivals at most one request
    /// of all of them is in progress: `arrivals · longest` over them all.
    /// `Some` where that is no more than [`Engine::lower_agents`]' charges
    /// at their least (one job each), and replaces them. `lower` is
    /// [`Engine::lower_home`]`(i)`.
    fn lower_agents_at_once(&self, i: TaskId, lower: LowerHome) -> Option<Time> {
        let all = lower
            .longest
            .checked_mul(self.arrivals[i])
            .unwrap_or(Time::MAX);
        (lower.any && all <= lower.each).then_some(all)
    }

    /// The lower tasks of `i`'s CPU whose sections agents run there, in
    /// one pass ([`LowerHome`]).
    fn lower_home(&self, i: TaskId) -> LowerHome {
        let mut out = LowerHome::default();
        for (x, load, lower) in self.agents_below(i) {
            if x == i || !lower {
                continue;
            }
            out.any = true;
            out.longest = out.longest.max(self.home_longest(x));
            out.each = out
                .each
                .saturating_add(self.once_per_arrival(i, x).min(load));
        }
        out
    }

    /// The latest the busy window may end: deadline minus release jitter.
    fn limit(&self, i: TaskId) -> Time {
        self.cx.deadline[i].saturating_sub(self.cx.jitter[i])
    }

    /// A response time below `i`'s bound under every form of its demand,
    /// where the job-window rounds start: the busy window of the job's
    /// execution and self-suspension with the execution of the jobs above
    /// it and the agents' work, no blocking, no suspension of others
    /// (each form of [`Engine::response`] charges at least that much; a
    /// joint spin bound can be below the job's own classic spin, so no
    /// spin either). Held at the deadline when it passes it.
    fn floor(&self, i: TaskId, resp: &[Time]) -> Time {
        let cx = self.cx;
        let base = self.d.get(i).exec.saturating_add(cx.f.tasks[i].suspension);
        let mut from = base;
        let w = self
            .fixed_point(i, base, &mut from, self.limit(i), resp, |h| {
                ((self.d.get(h).exec, cx.jitter[h]), None)
            })
            .unwrap_or(self.limit(i));
        cx.jitter[i].saturating_add(w)
    }

    /// Form 2 (suspension as execution), `None` once it passes `limit`
    /// (the busy window's [`Engine::limit`], or a smaller answer already
    /// in hand, past which it cannot be the smaller form); the iteration
    /// starts at `from` where that is above the base, and `from` becomes
    /// where it stopped (see [`Engine::response`]).
    fn oblivious(&self, i: TaskId, resp: &[Time], limit: Time, from: &mut Time) -> Option<Time> {
        let cx = self.cx;
        let di = self.d.get(i);
        let (joint, lower) = (di.joint.is_some(), di.local);
        self.fixed_point(i, self.own(i), from, limit, resp, |h| {
            (
                (
                    self.oblivious_cost(h, &self.d.get(h), joint, lower),
                    cx.jitter[h],
                ),
                None,
            )
        })
    }

    /// The response-time bound of `i` from the current estimates: forms 1
    /// and 2 taken task by task. Each suspending task above is charged,
    /// at each step of the recurrence, the smaller of its form-1 term
    /// (its time on the CPU, jitter `R_h - C_h`) and its form-2 term (its
    /// suspension and blocking counted as execution,
    /// [`Engine::oblivious_cost`]); tasks that do not suspend are charged
    /// their execution alone. Before 2026-12-01 the two forms were solved
    /// apart, every task above in one form, and the smaller answer kept.
    ///
    /// Why a choice per task, even per step, is sound: either form's
    /// charge for a task holds in the busy window that starts at the last
    /// instant before the release at which no job above charged by form 2
    /// (or by its execution alone) and no earlier job of `i` is pending.
    /// That window holds `J_i` alone, since a bound is reported only
    /// within `D_i - J_i` ([`Engine::limit`]) and `D_i <= T_i`: a section
    /// of `i`'s previous job that holds back a resumed job above (which
    /// `i`'s own blocking does not count) falls before it, as Lehoczky's
    /// busy period for constrained deadlines holds one job of `i` (the
    /// argument: docs/ANALYSIS.md, "The analysed task's previous jobs";
    /// hand-worked `oblivious-previous-job.toml`). Form 1 bounds a task's work
    /// in any interval, and form 2 the work, suspension and blocking of
    /// the jobs released in the window, so any split of the tasks above
    /// between the two bounds the window (docs/ANALYSIS.md, "Forms 1 and
    /// 2 task by task", has the argument; Chen, Nelissen and Huang's
    /// unifying analysis, ECRTS 2016, also lets each task choose, with
    /// other terms). At the least solution `w*` of the per-step minimum, the
    /// split that is smaller there has `w*` as a fixed point, so its own
    /// least solution, a bound, is at most `w*`. The minimum is no larger
    /// than either form alone.
    ///
    /// `known`: form 2's answer where [`iterate`] solved it once (only
    /// where nothing above suspends and no agents run, so it answers
    /// alone). The iteration starts at `warm[0]` (`warm[1]` for form 2
    /// alone) where that is above its base, and leaves there where it
    /// stopped (its answer, or its first iterate past the deadline's
    /// limit).
    /// An entry must not exceed the least solution: where it stopped at an
    /// earlier look qualifies as long as every input (demands, estimates,
    /// jitter) only rose since, as every iterate is below the least
    /// solution and that only rises with the inputs ([`recurrence::climb`]).
    /// So a later look climbs from where the last one ended, not from the
    /// base.
    ///
    /// Also says whether the bound came from `i`'s classic demand where it
    /// has a joint spin bound too (only where a task above suspends).
    fn response(
        &self,
        i: TaskId,
        resp: &[Time],
        known: Option<Option<Time>>,
        warm: &mut [Time; 2],
    ) -> (Response, bool) {
        let cx = self.cx;
        let di = self.d.get(i);
        let suspension = cx.f.tasks[i].suspension;
        let (base, limit) = (
            Engine::own_of(&di, di.joint.is_some(), suspension),
            self.limit(i),
        );
        let suspending_above = self.hp(i).any(|h| self.suspends(h));
        // Where `i` has a joint spin bound and a task above suspends, its
        // classic demand is solved too (below).
        let classic_too = di.joint.is_some() && suspending_above;
        if base > limit && !classic_too {
            // A demand past the deadline (including the saturated "beyond
            // the deadline" value of a request bound) is a miss.
            return (Response::Exceeds(cx.deadline[i]), false);
        }
        let [w1, w2] = warm;
        let mut by_classic = false;
        let best = if suspending_above || !self.agents(i).is_empty() {
            debug_assert!(
                known.is_none(),
                "form 2 is solved apart only where nothing above suspends"
            );
            let best = self.by_forms(i, base, w1, limit, resp, di.joint.is_some(), di.local);
            if classic_too {
                // The joint spin bound (LP) counts the jobs of a suspending
                // task above with its response as jitter, as form 1 does
                // (its spin may fall in the window from any job that
                // overlaps it), where the forms may charge that task by
                // form 2, its jobs released in the window alone: the joint
                // bound can then be above the classic one (found on the
                // soundness stream's `tight` shape, 2026-12-02:
                // `tests/data/msrp-lp-suspending-above.toml`, 9 ms against
                // 8 ms). Each bounds the response: the classic demand is
                // solved too, from its base, and the smaller kept.
                let mut cold = Time::ZERO;
                let classic = Engine::own_of(&di, false, suspension);
                let cap = best.unwrap_or(limit);
                let alt = self.by_forms(i, classic, &mut cold, cap, resp, false, di.local);
                by_classic = alt.is_some();
                alt.or(best)
            } else {
                best
            }
        } else {
            // Nothing above suspends: both forms are the same equation,
            // and where it stopped is below either form's solution later.
            known.unwrap_or_else(|| {
                let o = self.oblivious(i, resp, limit, w2);
                *w1 = (*w1).max(*w2);
                o
            })
        };
        let r = match best {
            Some(w) => Response::Bounded(cx.jitter[i].saturating_add(w)),
            None => Response::Exceeds(cx.deadline[i]),
        };
        (r, by_classic)
    }

    /// Forms 1 and 2 task by task ([`Engine::response`]): each suspending
    /// task above is charged the smaller of its two terms at each step,
    /// the others their execution; `joint` whether `i`'s demand holds
    /// the spin of the jobs above ([`Engine::above`]), `lower` its local
    /// blocking.
    #[allow(clippy::too_many_arguments)]
    fn by_forms(
        &self,
        i: TaskId,
        base: Time,
        from: &mut Time,
        limit: Time,
        resp: &[Time],
        joint: bool,
        lower: Time,
    ) -> Option<Time> {
        let cx = self.cx;
        self.fixed_point(i, base, from, limit, resp, |h| {
            let d = self.d.get(h);
            let c = Engine::above(joint, &d);
            if self.suspends_in(h, &d) {
                let j = resp[h].saturating_sub(c).max(cx.jitter[h]);
                let o = (self.oblivious_cost(h, &d, joint, lower), cx.jitter[h]);
                ((c, j), Some(o))
            } else {
                ((c, cx.jitter[h]), None)
            }
        })
    }

    /// Least `w` with `w = base + Σ ⌈(w + J_h)/T_h⌉ C_h + Σ ⌈(w + R_x)/T_x⌉ L_x`,
    /// or `None` once `w` passes `limit`; `param(h)` gives `(C_h, J_h)`.
    /// The iteration starts at `from` where that is above the base, which
    /// must then not exceed the least solution, and `from` becomes where
    /// it stopped ([`recurrence::climb`]).
    fn fixed_point(
        &self,
        i: TaskId,
        base: Time,
        from: &mut Time,
        limit: Time,
        resp: &[Time],
        param: impl Fn(TaskId) -> ((Time, Time), Option<(Time, Time)>),
    ) -> Option<Time> {
        if *from > limit {
            // Where it stopped before is past the limit already: so is
            // the least solution, and no term need be built.
            return None;
        }
        let cx = self.cx;
        let mut terms = self.scratch.borrow_mut();
        let mut pairs = self.scratch_pairs.borrow_mut();
        let mut tops = self.scratch_tops.borrow_mut();
        terms.clear();
        pairs.clear();
        tops.clear();
        for h in self.hp(i) {
            let t = cx.period[h];
            match param(h) {
                ((c, j), None) => terms.push(Term::new(c, j, t)),
                ((c, j), Some((c2, j2))) => pairs.push((Term::new(c, j, t), Term::new(c2, j2, t))),
            }
        }
        let mut base = base;
        let at_once = self.at_once[i];
        if let Some(all) = at_once {
            base = base.saturating_add(all);
        }
        for (x, load, lower) in self.agents_below(i) {
            if x == i {
                continue;
            }
            if lower && at_once.is_some() {
                continue;
            }
            if !lower {
                terms.push(Term::new(load, resp[x], cx.period[x]));
                continue;
            }
            match self.lower_agents(i, x, resp[x]) {
                LowerAgents::Cap(cap) => base = base.saturating_add(cap),
                LowerAgents::Top(top) => tops.push(top),
            }
        }
        let stop = recurrence::climb_with(
            base,
            (*from).max(base),
            limit,
            &mut terms,
            &mut pairs,
            &mut tops,
            &self.home_arena,
        );
        let (Ok(w) | Err(w)) = stop;
        *from = w;
        stop.ok()
    }
}

/// How a lower task's agents on the job's CPU are charged
/// ([`Engine::lower_agents`]).
enum LowerAgents {
    /// `arrivals · longest`, whatever the window.
    Cap(Time),
    /// The longest instances of its jobs in the window, at each step.
    Top(Top),
}

/// Per task, [`Engine::arrivals`], and its sections that agents of its
/// own CPU run, longest first, in one arena with each task's range there
/// ([`Engine::home_arena`]). A job arrives at release, after each
/// self-suspension, and after each request served on another CPU (it
/// suspends); a request served on its own CPU keeps that CPU busy with
/// agents until it is done (agents run above every task), so no lower
/// task runs meanwhile. That needs agents that never suspend: a section
/// served on one CPU never nests one served on another, which the nesting
/// rules refuse (`rtsync_model::nesting`, `Conflict::ServedApart`) and
/// [`crate::analyze`] asks of its input.
fn lower_agent_counts(
    cx: &Context,
    foreign: &[Vec<(TaskId, Time)>],
) -> (Vec<u64>, Vec<Time>, Vec<(u32, u32)>) {
    let f = &cx.f;
    let n = cx.n();
    if foreign.iter().all(Vec::is_empty) {
        return (vec![0; n], Vec::new(), vec![(0, 0); n]);
    }
    let mut arrivals = Vec::with_capacity(n);
    let mut arena = Vec::new();
    let mut of = Vec::with_capacity(n);
    for x in 0..n {
        let own = cx.cpu(x);
        let from = arena.len();
        // Every outermost request is an arrival but those that agents of
        // the job's own CPU serve without suspending.
        let mut away = f.sections(x).iter().filter(|rq| rq.is_outermost()).count() as u64;
        for (c, rq) in f.agent_sections(cx.sys, x) {
            if own == Some(c) {
                arena.push(rq.length);
                away -= 1;
            }
        }
        arena[from..].sort_unstable_by(|a, b| b.cmp(a));
        of.push((from as u32, arena.len() as u32));
        arrivals.push(away.saturating_add(cx.suspensions(x)).saturating_add(1));
    }
    (arrivals, arena, of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::partitioned;
    use proptest::prelude::*;
    use rtsync_model::Protocol;

    /// Under MSRP a request's spin runs as execution, so the verdict looks
    /// first at the CPU that is busiest with it. `b` (CPU 1) executes 0.5
    /// ms per 100 ms but spins for `a`'s 10 ms section at each of its five
    /// requests: 50.5 ms on its CPU, where CPU 0's `a` has 40.1 ms. By
    /// execution alone CPU 0 came first.
    #[test]
    fn the_cpus_are_ordered_by_their_time_spun_too() {
        let (sys, _) = rtsync_model::load_str(
            r#"
[platform]
cpus = 2
protocol = "msrp"
[[resource]]
name = "g"
[[task]]
name = "a"
period = "100ms"
cpu = 0
body = [ { compute = "30ms" }, { lock = "g", hold = "10ms" } ]
[[task]]
name = "b"
period = "100ms"
cpu = 1
body = [
  { lock = "g", hold = "100us" }, { lock = "g", hold = "100us" },
  { lock = "g", hold = "100us" }, { lock = "g", hold = "100us" },
  { lock = "g", hold = "100us" },
]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"));
        let cx = Context::new(&sys);
        let demands = DemandTable::new(&cx);
        assert_eq!(demands.cpu_time_hint(1), Time::from_us(50_500));
        assert_eq!(cpu_order(&cx, &demands), [1, 0]);
    }

    /// Tasks of equal priority on one CPU are served FIFO, so each is in
    /// the other's `hp` and reads its demand. Folding the RTEMS example
    /// (three tasks of each priority on four CPUs) onto two CPUs puts two
    /// tasks of each priority on CPU 0; under FMLP+ with 3.16 ms of
    /// release overhead charged (a noisy VM's measured timer lateness,
    /// as `rtsync demo` charged it in a CI run) the job window lowers a
    /// demand below its fixed form at its first refinement. The rounds
    /// end at the same bounds whichever of two equal tasks is looked at
    /// first. Before each task above was refined ahead of a look, the one
    /// looked at first read the other's fixed form, its recurrences later
    /// resumed above their least solutions, and debug builds (CI's) stopped
    /// there, in `rtsync demo` too; release builds came down to the same
    /// bounds here.
    #[test]
    fn equal_priorities_end_at_the_same_bounds_in_either_order() {
        let text = include_str!("../../../examples/rtems-table1.toml");
        let (mut sys, _) = rtsync_model::load_str(text, None).unwrap();
        sys.platform.cpus = 2;
        for t in &mut sys.tasks {
            t.cpu = t.cpu.map(|c| c % 2);
        }
        for r in &mut sys.resources {
            r.sync_cpu = r.sync_cpu.map(|c| c % 2);
        }
        let opts = crate::Options {
            overheads: Some(crate::overheads::Profile {
                context_switch: Time::from_us(5),
                release: Time::from_us(3_160),
                ..Default::default()
            }),
            ..Default::default()
        };
        let charged = crate::analyze(&sys.with_protocol(Protocol::FmlpL), &opts)
            .unwrap()
            .system;
        let cx = Context::new(&charged);
        let forward = cx.f.by_priority.clone();
        // The same order with every run of equal priorities reversed.
        let mut swapped = forward.clone();
        for run in swapped.chunk_by_mut(|&a, &b| cx.prio(a) == cx.prio(b)) {
            run.reverse();
        }
        assert_ne!(forward, swapped);
        let bounds = |order: &[TaskId]| {
            let demands = DemandTable::new(&cx);
            let e = Engine::new(&cx, &demands);
            iterate(&e, None, order, false, true, Start::Floor)
                .expect("settles")
                .responses
        };
        assert_eq!(bounds(&forward), bounds(&swapped));
    }

    /// The sets of the property below come where the orders matter: the
    /// fixed forms reject, and the job windows then accept some and
    /// reject others (on DPCP, most of the rejections lead with the
    /// fixed forms' missing CPU).
    #[test]
    fn the_verdict_orders_are_tried_where_the_job_windows_decide() {
        let (mut accepted, mut rejected) = (0, 0);
        for seed in 0..400 {
            let sys = partitioned(Protocol::Dpcp, seed, 4, 5, 0.8, 4, |c| c.suspend_prob = 0.2);
            let cx = Context::new(&sys);
            if analyse_fixed(&cx)
                .iter()
                .enumerate()
                .all(|(i, r)| r.meets(cx.deadline[i]))
            {
                continue;
            }
            let full = analyse(&cx, false);
            let meets = (0..cx.n()).all(|i| full.responses[i].meets(cx.deadline[i]));
            assert_eq!(schedulable(&cx), meets, "seed {seed}");
            if meets {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
        assert!(
            accepted >= 10 && rejected >= 10,
            "{accepted} accepted, {rejected} rejected"
        );
    }

    /// `sys` with pairs of equal priorities where `ties` (served FIFO,
    /// each in the other's `hp`): debug builds check that no recurrence
    /// resumes above its least solution.
    fn tied(mut sys: rtsync_model::System, ties: bool) -> rtsync_model::System {
        if ties {
            for k in (1..sys.tasks.len()).step_by(2) {
                sys.tasks[k].priority = sys.tasks[k - 1].priority;
            }
        }
        sys
    }

    proptest! {
        /// Where the rounds settle, with the job windows or the fixed
        /// forms, the bounds are a fixed point of the equations: every
        /// task's demand refined at the final estimates (job windows), and
        /// its response solved from them afresh, give its bound again. A
        /// look skipped while something it reads had moved (`moved_since`)
        /// would leave a bound below its equation's value; a recurrence
        /// resumed from above its least solution (`warm`), one above it
        /// (and in debug builds a failed assertion, with tied priorities
        /// too). Tasks past their deadlines included, held at them: a
        /// demand that moved without its task's estimate rising once left
        /// a task tied with it below its equation.
        #[test]
        fn the_rounds_end_at_a_fixed_point(
            p in prop::sample::select(vec![Protocol::Dpcp, Protocol::FmlpL, Protocol::Mpcp, Protocol::Msrp]),
            lp in any::<bool>(),
            windowed in any::<bool>(),
            seed in 0u64..100_000,
            cpus in 2usize..5,
            util in 0.3f64..0.9,
            ties in any::<bool>(),
        ) {
            let sys = tied(partitioned(p, seed, cpus, 4, util, 4, |c| c.suspend_prob = 0.2), ties);
            let form = if lp { crate::BoundForm::Lp } else { crate::BoundForm::Classic };
            let cx = Context::with_form(&sys, form);
            let demands = DemandTable::new(&cx);
            prop_assume!(!windowed || demands.windowed());
            let e = Engine::new(&cx, &demands);
            let Some(pass) = iterate(&e, None, &cx.f.by_priority, false, windowed, Start::Floor) else {
                return Ok(());
            };
            // A task past its deadline is held for the others where the
            // rounds held it.
            prop_assume!(pass.responses.iter().all(|r| !matches!(r, Response::Unbounded)));
            let resp = pass.estimates.clone();
            if windowed {
                for i in 0..cx.n() {
                    demands.refine(i, &resp);
                }
            }
            for i in 0..cx.n() {
                let (again, _) = e.response(i, &resp, None, &mut [Time::ZERO; 2]);
                prop_assert_eq!(again, pass.responses[i], "task {}", i);
            }
        }

        /// The verdict's orders (under DPCP the fixed forms' missing CPU
        /// settled alone first, under FMLP+ CPU by CPU or by priority)
        /// give the full analysis's verdict, in both bound forms: each
        /// look reads estimates below the least fixed point, whatever
        /// the order, so a miss met early is a miss there, and the rounds
        /// that find none end at that fixed point.
        #[test]
        fn the_verdict_orders_agree_with_the_full_analysis(
            p in prop::sample::select(vec![Protocol::Dpcp, Protocol::FmlpL]),
            lp in any::<bool>(),
            seed in 0u64..100_000,
            cpus in 2usize..5,
            per_cpu in 3usize..7,
            util in 0.35f64..0.8,
        ) {
            let sys = partitioned(p, seed, cpus, per_cpu, util, 4, |c| c.suspend_prob = 0.2);
            let form = if lp { crate::BoundForm::Lp } else { crate::BoundForm::Classic };
            let cx = Context::with_form(&sys, form);
            let full = analyse(&cx, false);
            let meets = (0..cx.n()).all(|i| full.responses[i].meets(cx.deadline[i]));
            prop_assert_eq!(schedulable(&cx), meets);
        }

        /// A look that climbs (under DPCP: its demand refined again at
        /// once where its estimate rose, and solved again) ends at the
        /// bounds of the rounds without it, the least fixed point, in
        /// both bound forms and with tied priorities. A climb resumed
        /// from above a recurrence's least solution would end above it.
        #[test]
        fn climbing_ends_at_the_same_bounds(
            lp in any::<bool>(),
            seed in 0u64..100_000,
            cpus in 2usize..5,
            util in 0.3f64..0.9,
            ties in any::<bool>(),
        ) {
            let sys = tied(partitioned(Protocol::Dpcp, seed, cpus, 4, util, 4, |c| c.suspend_prob = 0.2), ties);
            let form = if lp { crate::BoundForm::Lp } else { crate::BoundForm::Classic };
            let cx = Context::with_form(&sys, form);
            let demands = DemandTable::new(&cx);
            let mut e = Engine::new(&cx, &demands);
            prop_assert!(e.climb);
            let climbed = iterate(&e, None, &cx.f.by_priority, false, true, Start::Floor);
            demands.unrefine();
            e.climb = false;
            let plain = iterate(&e, None, &cx.f.by_priority, false, true, Start::Floor);
            if let (Some(a), Some(b)) = (climbed, plain) {
                prop_assert_eq!(a.responses, b.responses);
            }
        }

        /// The job-window rounds end at the same bounds whether each
        /// estimate starts at the job's execution or at the higher
        /// blocking-free busy window: both are below the least fixed
        /// point. A floor above it would end at a larger fixed point.
        #[test]
        fn the_floor_start_ends_at_the_same_bounds(
            p in prop::sample::select(vec![Protocol::Dpcp, Protocol::FmlpL, Protocol::FmlpS]),
            seed in 0u64..100_000,
            cpus in 2usize..5,
            util in 0.3f64..0.95,
        ) {
            let sys = partitioned(p, seed, cpus, 3, util, 4, |_| {});
            let cx = Context::new(&sys);
            let demands = DemandTable::new(&cx);
            prop_assume!(demands.windowed());
            let order = &cx.f.by_priority;
            let e = Engine::new(&cx, &demands);
            let floor = iterate(&e, None, order, false, true, Start::Floor);
            demands.unrefine();
            let exec = iterate(&e, None, order, false, true, Start::Execution);
            if let (Some(a), Some(b)) = (floor, exec) {
                prop_assert_eq!(a.responses, b.responses);
            }
        }
    }
}
