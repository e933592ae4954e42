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
//!   non-preemptive short section (spin and section) of another job there,
//!   which delays it once: while it is ready, boosted, no job that could
//!   start a new one runs. Each user of the group, queued ahead at most
//!   once, is charged the longest stretch of another task of its CPU; a
//!   holder of the requester's own CPU, that of a task below the requester
//!   (a task above runs its stretch as execution its equation charges as
//!   interference). Only a holder whose predecessor in the queue is of
//!   another CPU can be held back: a CPU's holders in a row are charged
//!   once (`Tables::held_back`). Until 2026-12-02 every task counted in
//!   the wait of [`super::fmlp_l::request_wait`], holder or not, and every
//!   other task of the requester's CPU was charged its CPU's longest
//!   stretch, the holder's own included: a holder alone on its CPU was
//!   charged a stretch that nothing could run; until 2026-12-03 every
//!   holder was charged.
//! - **Local blocking per resumption.** `J_i` resumes after each long
//!   request and each self-suspension (`N_i + S_i + 1` times, as under
//!   FMLP-L). At each, every lower job of its CPU may be inside a boosted
//!   long section (`Σ_j L'_j`) and one may be inside a non-preemptive
//!   short section (`max_j` of its spin and section, FMLP-S's term): at
//!   most one job of a CPU is non-preemptive at a time. Not the latter
//!   after a request for a group that only tasks of `J_i`'s CPU use: `J_i`
//!   is then granted after a holder of its CPU, which no stretch can
//!   start beside. And a stretch is never in progress beside a section
//!   (or a request) in such a group: the stretch started while a holder
//!   of it would have been ready, and none is granted during the stretch,
//!   so at an arrival either the stretch or those sections. (Until
//!   2026-12-03 both, at every arrival.)
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

/// `L'_x`: the longest long section of `x` in a group `keep` accepts, its
/// nested short requests' spin included.
fn long_eff(cx: &Context, x: TaskId, keep: impl Fn(usize) -> bool) -> Time {
    let mut best = Time::ZERO;
    let mut current: Option<Time> = None;
    for rq in cx.f.sections(x) {
        if rq.is_outermost() {
            if let Some(c) = current.take() {
                best = best.max(c);
            }
            if !short(cx, rq.resource) && keep(cx.f.group[rq.resource]) {
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
    /// `L'_x` over the groups a task off `x`'s CPU uses: the long
    /// sections `x` can have in progress beside another task's stretch
    /// ([`demand`]).
    long_shared: Vec<Time>,
    /// The longest non-preemptive short stretch per task.
    short_np: Vec<Time>,
    /// Per group, `L'` summed over every task that can delay a long
    /// request for it, the requester's included
    /// ([`super::fmlp_l::ahead_sums`]).
    ahead: Vec<Time>,
    /// Per group, its users `(CPU, stretch, task)` by CPU (unplaced tasks
    /// last, as [`usize::MAX`]), each CPU's longest stretch first, where a
    /// user's stretch is the longest of another task of its CPU: what can
    /// hold it back once granted a long resource (its own stretches
    /// cannot: it is suspended, waiting, outside any short section). The
    /// stretches before holders' grants are charged per CPU, the longest
    /// first ([`Tables::held_back`]).
    users: Vec<Vec<(usize, Time, TaskId)>>,
    /// Per CPU, `L'` summed over its tasks: the part of a request's wait
    /// that its own CPU's tasks do not add ([`Tables::request_wait`]).
    long_on: Vec<Time>,
}

impl Tables {
    /// The tables of `cx`'s system.
    pub fn new(cx: &Context) -> Tables {
        let n = cx.n();
        let short_np: Vec<Time> = (0..n).map(|x| short_np(cx, x)).collect();
        let per_cpu: Vec<Stretches> = (0..cx.f.cpus)
            .map(|c| Stretches::of(cx.f.on_cpu(c).iter().copied(), &short_np))
            .collect();
        let np_other: Vec<Time> = (0..n)
            .map(|x| cx.cpu(x).map_or(Time::ZERO, |c| per_cpu[c].without(x)))
            .collect();
        let groups = super::fmlp_l::n_groups(cx);
        let mut uses = vec![false; n * groups];
        for x in 0..n {
            for rq in cx.f.sections(x) {
                uses[x * groups + cx.f.group[rq.resource]] = true;
            }
        }
        let mut users: Vec<Vec<(usize, Time, TaskId)>> = vec![Vec::new(); groups];
        for x in 0..n {
            for (g, list) in users.iter_mut().enumerate() {
                if uses[x * groups + g] {
                    list.push((cx.cpu(x).unwrap_or(usize::MAX), np_other[x], x));
                }
            }
        }
        for list in &mut users {
            list.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        }
        let long_shared: Vec<Time> = (0..n)
            .map(|x| long_eff(cx, x, |g| used_off(&users[g], cx.cpu(x))))
            .collect();
        let long_eff: Vec<Time> = (0..n).map(|x| long_eff(cx, x, |_| true)).collect();
        let ahead = super::fmlp_l::ahead_sums(cx, groups, |x| long_eff[x]);
        let long_on = super::fmlp_l::per_cpu(cx, &long_eff);
        Tables {
            long_eff,
            long_shared,
            short_np,
            ahead,
            users,
            long_on,
        }
    }

    /// The longest a long request of `i` for group `g` waits: one long
    /// section of each task queued ahead or boosted ahead, as
    /// [`super::fmlp_l::request_wait`] counts them (the long sections of
    /// `i`'s own CPU left out: charged as interference above `i`, and per
    /// arrival below it), and the short stretches that hold holders
    /// queued ahead back ([`Tables::held_back`]).
    fn request_wait(&self, cx: &Context, i: TaskId, g: usize, own_np: Stretches) -> Time {
        let wait = match cx.cpu(i) {
            Some(c) => super::excluding(self.ahead[g], self.long_on[c]),
            None => super::excluding(self.ahead[g], self.long_eff[i]),
        };
        wait.saturating_add(self.held_back(cx, i, g, own_np))
    }

    /// The short stretches that hold back the holders queued ahead of a
    /// long request of `i` for group `g`: at most one per holder, of a
    /// task of the holder's CPU other than the holder, and only for a
    /// holder whose predecessor in the queue is of another CPU.
    ///
    /// A holder becomes ready when granted; a stretch in progress then
    /// holds it back, and no new one can start while it is ready,
    /// boosted above every job that could start one. Nor while its
    /// predecessor holds `g` on the same CPU: that holder is ready and
    /// boosted from its grant to its release, so at the release no new
    /// stretch is in progress (one that was, at the predecessor's grant,
    /// is the predecessor's charge). Each user of `g` is queued ahead of
    /// `i` once at most (FIFO: a request issued after `i`'s queues behind
    /// it), so the users of a CPU `c` ahead of `i` form runs, each after
    /// a request of another CPU but the first: at most `1 + m` charged
    /// holders on `c`, `m` the users of other CPUs (not `i`). On `i`'s
    /// own CPU not even the first: the queue's head when `i` requests is
    /// not of `i`'s CPU (granted and ready, or held back by a stretch, it
    /// would keep `i` from running to issue its request), so each charged
    /// holder there follows one of the `m` users of other CPUs. Each CPU
    /// is charged its longest stretches that many times.
    ///
    /// A holder of `i`'s own CPU is held back by a stretch of a task below
    /// `i` alone: a task above `i` runs its stretch as its own execution,
    /// which `i`'s equation charges as interference whether `i` is ready
    /// or suspended meanwhile. `own_np`: the two longest stretches of the
    /// tasks below `i` on its CPU ([`Stretches::of`]).
    ///
    /// Until 2026-12-03 every holder was charged, whatever its
    /// predecessor's CPU (docs/ANALYSIS.md, "One stretch per run of a
    /// CPU's holders").
    fn held_back(&self, cx: &Context, i: TaskId, g: usize, own_np: Stretches) -> Time {
        let users = &self.users[g];
        let mine = cx.cpu(i);
        let others = users.iter().filter(|u| u.2 != i).count();
        let mut total = Time::ZERO;
        for run in users.chunk_by(|a, b| a.0 == b.0) {
            let cpu = run[0].0;
            let here = run.iter().filter(|u| u.2 != i).count();
            if cpu == usize::MAX {
                // Unplaced holders: no CPU, no stretch of another task.
            } else if Some(cpu) == mine {
                let charged = here.min(others - here);
                let has_first = run.iter().any(|u| own_np.is(u.2));
                total = total.saturating_add(own_np.longest(charged, here, has_first));
            } else {
                let charged = here.min(1 + others - here);
                for u in &run[..charged] {
                    total = total.saturating_add(u.1);
                }
            }
        }
        total
    }
}

/// Whether a task off `cpu` (on another CPU, or on none) is among a
/// group's `users` ([`Tables`]'s lists).
fn used_off(users: &[(usize, Time, TaskId)], cpu: Option<usize>) -> bool {
    let cpu = cpu.unwrap_or(usize::MAX);
    users.iter().any(|u| u.0 != cpu)
}

/// The two longest short stretches of a set of tasks, the first with its
/// task: the longest of the set without any one task in two reads.
#[derive(Clone, Copy, Default)]
struct Stretches {
    first: Option<(Time, TaskId)>,
    second: Time,
}

impl Stretches {
    fn of(tasks: impl Iterator<Item = TaskId>, np: &[Time]) -> Stretches {
        let mut s = Stretches::default();
        for y in tasks {
            match s.first {
                Some((t, _)) if np[y] <= t => s.second = s.second.max(np[y]),
                Some((t, _)) => {
                    s.second = t;
                    s.first = Some((np[y], y));
                }
                None => s.first = Some((np[y], y)),
            }
        }
        s
    }

    /// Whether `x` has the longest stretch.
    fn is(self, x: TaskId) -> bool {
        matches!(self.first, Some((_, y)) if y == x)
    }

    /// The `k` longest of `n` charges of [`Stretches::without`], one per
    /// task, where `has_first` says whether the longest stretch's own
    /// task is one of the `n` (whose charge is the second longest).
    fn longest(self, k: usize, n: usize, has_first: bool) -> Time {
        let Some((first, _)) = self.first else {
            return Time::ZERO;
        };
        let firsts = k.min(n - usize::from(has_first));
        let seconds = k - firsts;
        let sum = first
            .checked_mul(firsts as u64)
            .and_then(|a| a.checked_add(self.second.checked_mul(seconds as u64)?));
        sum.unwrap_or(Time::MAX)
    }

    /// The longest stretch of a task other than `x`.
    fn without(self, x: TaskId) -> Time {
        match self.first {
            Some((_, y)) if y == x => self.second,
            Some((t, _)) => t,
            None => Time::ZERO,
        }
    }
}

/// Task `i`'s blocking and execution terms with FMLP short and long
/// resources (the module's bound).
pub fn demand(cx: &Context, tb: &Tables, i: TaskId) -> Demand {
    let f = &cx.f;
    let own_np = Stretches::of(cx.lower_local(i), &tb.short_np);
    let (mut spin_total, mut remote, mut n_long) = (Time::ZERO, Time::ZERO, 0u64);
    // Long requests for a group no task off `i`'s CPU uses: `i` is granted
    // one right after a holder of its own CPU (or at once), ready and
    // boosted from its grant to its release, so no stretch is in progress
    // at the grant ([`Tables::held_back`]'s argument).
    let mut at_home = 0u64;
    for rq in f.sections(i) {
        let g = f.group[rq.resource];
        if short_outermost(cx, rq) {
            spin_total = spin_total.saturating_add(spin(cx, i, g));
        } else if rq.is_outermost() {
            n_long += 1;
            remote = remote.saturating_add(tb.request_wait(cx, i, g, own_np));
            if !used_off(&tb.users[g], cx.cpu(i)) {
                at_home += 1;
            }
        }
    }
    let resumptions = n_long + cx.suspensions(i) + 1;
    // At an arrival a lower task's stretch and another's long section in
    // a group only `i`'s CPU uses are never both in progress: started
    // while it ran, the stretch had no holder of the CPU ready beside it,
    // so no holder (or waiter, whose holder would be) of such a group;
    // and none is granted during it, which needs a holder to run there.
    let (mut boosted, mut shared, mut np) = (Time::ZERO, Time::ZERO, Time::ZERO);
    for j in cx.lower_local(i) {
        boosted = boosted.saturating_add(tb.long_eff[j]);
        shared = shared.saturating_add(tb.long_shared[j]);
        np = np.max(tb.short_np[j]);
    }
    let with_stretch = boosted.max(shared.saturating_add(np));
    Demand {
        exec: f.tasks[i].wcet,
        spin: spin_total,
        local: times(boosted, at_home).saturating_add(times(with_stretch, resumptions - at_home)),
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
        two_cpus(
            &[("S", protocol_s), ("L", protocol_l)],
            &[
                ("a", 3, 0, r#"{ lock = "S", hold = "1ms" }"#),
                (
                    "b",
                    1,
                    0,
                    r#"{ lock = "L", body = [ { compute = "4ms" }, { lock = "S", hold = "2ms" } ] }"#,
                ),
                (
                    "c",
                    2,
                    1,
                    r#"{ lock = "S", hold = "3ms" }, { lock = "L", hold = "5ms" }"#,
                ),
            ],
        )
    }

    /// A system on two CPUs, every task of period 100 ms: `resources` as
    /// `(name, protocol)`, `tasks` as `(name, priority, CPU, body)`, the
    /// body's segments in the spec's inline form.
    fn two_cpus(resources: &[(&str, &str)], tasks: &[(&str, u32, usize, &str)]) -> System {
        let mut src = String::from("[platform]\ncpus = 2\n");
        for (name, protocol) in resources {
            src += &format!("[[resource]]\nname = \"{name}\"\nprotocol = \"{protocol}\"\n");
        }
        for (name, priority, cpu, body) in tasks {
            src += &format!(
                "[[task]]\nname = \"{name}\"\nperiod = \"100ms\"\npriority = {priority}\ncpu = {cpu}\nbody = [ {body} ]\n"
            );
        }
        rtsync_model::load_str(&src, None)
            .unwrap_or_else(|d| panic!("{d}"))
            .0
    }

    /// Task `i`'s demand in `s`.
    fn demand_in(s: &System, i: TaskId) -> Demand {
        let cx = Context::new(s);
        demand(&cx, &Tables::new(&cx), i)
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
        // stretch of another task of CPU 0 (a's spin 3 + 1 = 4 ms), and
        // for a (on CPU 0, a user's CPU, no user of L: boosted ahead, not
        // queued): L'_a = 0. 13 ms in all. (17 ms until 2026-12-02, when
        // a, not a holder, was charged CPU 0's stretch too.)
        let d = demand(&cx, &tb, 2);
        assert_eq!(d.spin, Time::from_ms(2));
        assert_eq!(d.remote, Time::from_ms(13));
        assert_eq!(d.local, Time::ZERO);
    }

    /// A long request's wait leaves out the long sections of the
    /// requester's own CPU, and charges a holder a stretch of another
    /// task alone. CPU 0: `a` (high) holds L 2 ms; `b` (low) holds S 1 ms,
    /// then L 4 ms. CPU 1: `c` holds L 3 ms, then S 2 ms. `a`'s L request
    /// waits for `c` (`L'_c` = 3 ms; `c` is alone on CPU 1, and its own
    /// stretch cannot run while it waits) and for `b` queued ahead on CPU
    /// 0, whose long section is charged at `a`'s two arrivals instead and
    /// whom no third task of CPU 0 can hold back: 3 ms. Local blocking:
    /// `b`'s 4 ms section and its 3 ms stretch (spin for `c`'s 2 ms, its
    /// own 1 ms) at each of two arrivals, 14 ms. (The wait was 13 ms until
    /// the long section left it, 9 ms until each holder's stretch came
    /// from another task, both on 2026-12-02.)
    #[test]
    fn own_cpu_long_sections_leave_the_wait_and_a_holder_is_not_its_own_stretch() {
        let s = two_cpus(
            &[("S", "fmlp-s"), ("L", "fmlp-l")],
            &[
                ("a", 3, 0, r#"{ lock = "L", hold = "2ms" }"#),
                (
                    "b",
                    1,
                    0,
                    r#"{ lock = "S", hold = "1ms" }, { lock = "L", hold = "4ms" }"#,
                ),
                (
                    "c",
                    2,
                    1,
                    r#"{ lock = "L", hold = "3ms" }, { lock = "S", hold = "2ms" }"#,
                ),
            ],
        );
        let d = demand_in(&s, 0);
        assert_eq!(d.remote, Time::from_ms(3));
        assert_eq!(d.local, Time::from_ms(14));
    }

    /// Each holder queued ahead is charged one stretch of another task of
    /// its CPU (on the requester's CPU, of a task below the requester),
    /// and only a holder that follows one of another CPU: a CPU's holders
    /// in a row are held back once. CPU 0: `a` (4) holds L 2 ms; `i` (3)
    /// holds L 1 ms; `b` (2) holds S 1 ms, then L 4 ms; `d` (1) holds S 2
    /// ms. CPU 1: `c` (2) holds L 3 ms; `e` (1) holds S 1 ms. Stretches
    /// (spin for the other CPU's longest S section, then the section):
    /// `b` 1 + 1 = 2 ms, `d` 1 + 2 = 3 ms, `e` 2 + 1 = 3 ms. `i`'s L
    /// request waits for `c`'s 3 ms section (`e` holds nothing long: 0)
    /// and `e`'s 3 ms stretch before `c` runs; on CPU 0 for `a` and `b`
    /// queued ahead, their long sections left to interference (`a`) and
    /// arrivals (`b`). Of `a` and `b` only one can follow `c`, the one
    /// user of another CPU (the queue's head when `i` requests is not of
    /// CPU 0: a holder there, ready or held back, would keep `i` from
    /// running), so `d`'s 3 ms stretch (the longest below `i` but the
    /// holder's own) once: 3 + 3 + 3 = 9 ms. Local blocking at each of
    /// two arrivals: `b`'s 4 ms and `d`'s 3 ms stretch, 14 ms. (18 ms
    /// before 2026-12-02, when every task of CPUs 0 and 1 was charged its
    /// CPU's longest stretch; 12 ms before 2026-12-03, when `a` and `b`
    /// were each charged one.)
    #[test]
    fn each_holder_ahead_is_held_back_by_one_stretch_of_another_task() {
        let s = two_cpus(
            &[("S", "fmlp-s"), ("L", "fmlp-l")],
            &[
                ("a", 4, 0, r#"{ lock = "L", hold = "2ms" }"#),
                ("i", 3, 0, r#"{ lock = "L", hold = "1ms" }"#),
                (
                    "b",
                    2,
                    0,
                    r#"{ lock = "S", hold = "1ms" }, { lock = "L", hold = "4ms" }"#,
                ),
                ("d", 1, 0, r#"{ lock = "S", hold = "2ms" }"#),
                ("c", 2, 1, r#"{ lock = "L", hold = "3ms" }"#),
                ("e", 1, 1, r#"{ lock = "S", hold = "1ms" }"#),
            ],
        );
        let d = demand_in(&s, 1);
        assert_eq!(d.remote, Time::from_ms(9));
        assert_eq!(d.local, Time::from_ms(14));
        assert_eq!(d.spin, Time::ZERO);
        // `c` (CPU 1): `a`, `i` and `b` queued ahead on CPU 0, their
        // sections 2 + 1 + 4 ms; `d`, boosted ahead on a user's CPU,
        // holds nothing long: 0. The three are one run, no request of
        // another CPU between them, so one of them is held back, by the
        // longest stretch of CPU 0 but its own (`d`'s 3 ms). No holder
        // of CPU 1 is queued ahead of `c`, so `e`'s stretch is not in
        // the wait: 10 ms (16 ms until 2026-12-03, a stretch each).
        let d = demand_in(&s, 4);
        assert_eq!(d.remote, Time::from_ms(10));
    }

    /// After a request for a group that only tasks of its own CPU use, a
    /// job meets no stretch: it is granted right after a holder of its
    /// CPU (or at once), and nothing starts one beside that holder. CPU
    /// 0: `i` (3) holds L1 1 ms; `b` (2) holds L2 2 ms; `d` (1) holds S 1
    /// ms. CPU 1: `e` holds S 1 ms, then L2 1 ms. L1 is `i`'s alone.
    /// `d`'s stretch: spin for `e`'s 1 ms, then its own 1 ms, 2 ms. `i`
    /// arrives twice (release, L1's grant): `b`'s 2 ms boosted section at
    /// each (L2 is shared with CPU 1, so `b` may be granted it during
    /// `d`'s stretch), `d`'s stretch at the release alone: 6 ms (8 ms until
    /// 2026-12-03, the stretch at both). L1's wait holds nothing.
    #[test]
    fn a_request_served_on_its_own_cpu_meets_no_stretch_at_its_grant() {
        let s = two_cpus(
            &[("S", "fmlp-s"), ("L1", "fmlp-l"), ("L2", "fmlp-l")],
            &[
                ("i", 3, 0, r#"{ lock = "L1", hold = "1ms" }"#),
                ("b", 2, 0, r#"{ lock = "L2", hold = "2ms" }"#),
                ("d", 1, 0, r#"{ lock = "S", hold = "1ms" }"#),
                (
                    "e",
                    1,
                    1,
                    r#"{ lock = "S", hold = "1ms" }, { lock = "L2", hold = "1ms" }"#,
                ),
            ],
        );
        let d = demand_in(&s, 0);
        assert_eq!(d.local, Time::from_ms(6));
        assert_eq!(d.remote, Time::ZERO);
    }

    /// A lower task's stretch and another's section in a group only the
    /// CPU uses are never both in progress at an arrival: when the
    /// stretch started, a holder of that group (or the holder a waiter
    /// waits for) would have been ready, boosted, and none is granted
    /// during it, as no holder can run there. CPU 0: `i` (3) holds L 1 ms;
    /// `b` (2) holds L 2 ms; `d` (1) holds S 1 ms. CPU 1: `e` holds S 1
    /// ms. L is CPU 0's alone; `d`'s stretch is 2 ms. At `i`'s release
    /// `b`'s 2 ms or `d`'s 2 ms, at L's grant `b`'s (no stretch after a
    /// holder of the CPU): 4 ms (8 ms until 2026-12-03: both at both).
    #[test]
    fn a_stretch_and_a_section_of_a_cpu_local_group_are_never_both_in_progress() {
        let s = two_cpus(
            &[("S", "fmlp-s"), ("L", "fmlp-l")],
            &[
                ("i", 3, 0, r#"{ lock = "L", hold = "1ms" }"#),
                ("b", 2, 0, r#"{ lock = "L", hold = "2ms" }"#),
                ("d", 1, 0, r#"{ lock = "S", hold = "1ms" }"#),
                ("e", 1, 1, r#"{ lock = "S", hold = "1ms" }"#),
            ],
        );
        let d = demand_in(&s, 0);
        assert_eq!(d.local, Time::from_ms(4));
        assert_eq!(d.remote, Time::ZERO);
    }

    /// The wait as the module states it, task by task: one `L'` of each
    /// task ahead off the requester's CPU (users of the group, and the
    /// tasks of a CPU hosting one); and per CPU, the longest stretches
    /// of its users queued ahead (each user's the longest of another task
    /// of its CPU, or on the requester's CPU of another task below the
    /// requester), as many as the CPU can have holders right after a
    /// holder of another CPU: on the requester's CPU one per user of
    /// another CPU, elsewhere one more.
    fn wait_by_definition(cx: &Context, tb: &Tables, i: TaskId, g: usize) -> Time {
        let f = &cx.f;
        let uses = |x: TaskId| f.sections(x).iter().any(|rq| f.group[rq.resource] == g);
        let hosts = |c: Option<usize>| {
            c.is_some() && (c == cx.cpu(i) || (0..cx.n()).any(|u| uses(u) && cx.cpu(u) == c))
        };
        let home = |x: TaskId| cx.cpu(i).is_some() && cx.cpu(x) == cx.cpu(i);
        let mut w = Time::ZERO;
        let mut stretches: std::collections::BTreeMap<Option<usize>, Vec<Time>> =
            Default::default();
        for x in (0..cx.n()).filter(|&x| x != i) {
            if (uses(x) || hosts(cx.cpu(x))) && !home(x) {
                w = w.saturating_add(tb.long_eff[x]);
            }
            if !uses(x) {
                continue;
            }
            let others: Vec<TaskId> = if home(x) {
                cx.lower_local(i).filter(|&y| y != x).collect()
            } else {
                match cx.cpu(x) {
                    Some(c) => f.on_cpu(c).iter().copied().filter(|&y| y != x).collect(),
                    None => Vec::new(),
                }
            };
            let longest = others.iter().map(|&y| tb.short_np[y]).max();
            stretches
                .entry(cx.cpu(x))
                .or_default()
                .push(longest.unwrap_or(Time::ZERO));
        }
        let users: usize = stretches.values().map(Vec::len).sum();
        for (c, mut v) in stretches {
            v.sort_unstable_by(|a, b| b.cmp(a));
            let elsewhere = users - v.len();
            let runs = if c.is_some() && c == cx.cpu(i) {
                elsewhere
            } else {
                elsewhere + 1
            };
            for t in v.into_iter().take(runs) {
                w = w.saturating_add(t);
            }
        }
        w
    }

    proptest::proptest! {
        /// The tabled wait (sums per group, less the requester's CPU) is
        /// the wait task by task, on systems mixed by length with nesting,
        /// local resources, several requests per job, and a task left
        /// unplaced.
        #[test]
        fn the_tabled_wait_is_the_wait_task_by_task(
            seed in 0u64..10_000,
            cpus in 1usize..5,
            nest in 0.0f64..0.6,
            unplaced in proptest::prelude::any::<bool>(),
        ) {
            let mut sys = super::super::fmlp_l::tests::waits_system(seed, cpus, nest);
            crate::generate::Mixing::ByLength.apply(&mut sys, seed, 0);
            if unplaced {
                sys.tasks[0].cpu = None;
            }
            let cx = Context::new(&sys);
            let tb = Tables::new(&cx);
            for i in 0..cx.n() {
                let own = Stretches::of(cx.lower_local(i), &tb.short_np);
                for rq in cx.f.sections(i).iter().filter(|rq| rq.is_outermost() && !short(&cx, rq.resource)) {
                    let g = cx.f.group[rq.resource];
                    proptest::prop_assert_eq!(
                        tb.request_wait(&cx, i, g, own),
                        wait_by_definition(&cx, &tb, i, g),
                        "task {}, group {}", i, g
                    );
                }
            }
        }
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
