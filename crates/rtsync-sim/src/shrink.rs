//! A plan cut down to the choices it needs.
//!
//! The worst-case search ([`crate::search`]) climbs: every move it keeps
//! raised a response, but most of the choices it leaves in its plan (an
//! offset here, a shortened computation there, a delay of a task on
//! another CPU) were steps on the way that no longer matter. A plan that
//! breaks a bound is a bug report, and a report that names forty choices
//! where three do the damage sends its reader through forty. This module
//! puts each choice back to its default (offset 0, no arrival delay, no
//! jitter, the operation's worst-case duration) wherever what the plan
//! shows still shows without it: first a task's choices all at once, then
//! one choice at a time, passing over them again until a pass removes
//! none. What is left is *one-minimal* (the one-at-a-time end of Zeller and
//! Hildebrandt's delta debugging, TSE 2002): putting back any one of the
//! choices left loses what the plan shows.
//!
//! Each try is one deterministic simulation up to the candidate's own
//! horizon ([`Plan::horizon`]), the one `rtsync simulate --plan` replays
//! it to. That horizon covers every job the plan makes a choice for, and
//! a simulation is causal (running longer only adds events after the
//! shorter run's end), so the plan the search found reproduces under it
//! whatever horizon the search ran it to. Shrinking keeps the length of
//! each list of choices (a list's length is how many jobs the plan
//! plans, and so where its horizon ends), and drops the trailing
//! defaults at the end only where the plan still shows what it must.

use crate::kernel::simulate;
use crate::options::Options;
use crate::plan::{Plan, TaskPlan};
use crate::program::timed_worst;
use crate::result::{Kind, SimResult};
use rtsync_model::{System, Time};
use std::fmt;
use std::sync::Arc;

/// What a cut-down plan must still show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The same break of the promise: this kind, for this task (or for
    /// none, as deadlocks and broken invariants are reported), against
    /// the bounds passed to [`shrink`].
    Broken(Option<usize>, Kind),
    /// Task `.0` responding in at least `.1` (a worst case found, to be
    /// shown with the choices that make it).
    ResponseAtLeast(usize, Time),
}

/// How far a plan was cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Choices {
    /// Choices left in the plan.
    pub kept: usize,
    /// Choices in the plan as it was given.
    pub given: usize,
    /// Whether every choice left was tried and is needed; false where the
    /// budget ran out first, or the plan given did not show what it had
    /// to (then nothing was cut).
    pub minimal: bool,
}

impl fmt::Display for Choices {
    /// How a person reads it beside the plan: which choices are left and
    /// what the others became.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const REST: &str = "offset 0, periodic arrivals, no jitter, worst-case durations";
        match (self.given, self.kept) {
            (0, _) => write!(f, "the plan makes no choice ({REST})"),
            (g, 0) => write!(f, "none of the plan's {g} choice(s) is needed ({REST})"),
            (g, k) if self.minimal => write!(
                f,
                "{k} of the plan's {g} choice(s) kept, each one needed (the others: {REST})"
            ),
            (g, k) => write!(
                f,
                "{k} of the plan's {g} choice(s) kept, not cut further (search budget spent, or not reproduced)"
            ),
        }
    }
}

/// One free choice of a plan that differs from its default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Offset(usize),
    /// Task, job: the delay after that job.
    Delay(usize, usize),
    /// Task, job.
    Jitter(usize, usize),
    /// Task, job, timed operation.
    Exec(usize, usize, usize),
}

/// A plan cut down by [`shrink`].
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The plan, replayable with `rtsync simulate --plan`.
    pub plan: Plan,
    /// How far it was cut.
    pub choices: Choices,
    /// The worst response of the task [`Keep`] names under the plan
    /// (`None` where it names none, or the plan given did not show what
    /// it had to). Putting a choice back can make a schedule worse as
    /// well as keep it: a cut plan can respond later than the search's.
    pub response: Option<Time>,
}

/// Cuts `plan` down to the choices `keep` needs (module documentation),
/// spending at most `budget` simulated events. A plan that does not show
/// `keep` comes back as given.
pub fn shrink(sys: &System, bounds: &[Time], keep: Keep, plan: &Plan, budget: u64) -> Shrunk {
    let worst: Vec<Vec<Time>> = sys.tasks.iter().map(|t| timed_worst(&t.body)).collect();
    let mut tries = Tries {
        sys,
        bounds,
        keep,
        left: budget,
        response: None,
    };
    let given = choices(sys, &worst, plan).len();
    let mut cur = normal(sys, &worst, plan);
    if !tries.holds(&cur) {
        return Shrunk {
            plan: plan.clone(),
            choices: Choices {
                kept: given,
                given,
                minimal: false,
            },
            response: None,
        };
    }
    // Whole tasks first: most of a climb's leftovers are on tasks that
    // have nothing to do with what the plan shows.
    for t in 0..cur.tasks.len() {
        if cur.tasks[t] == TaskPlan::default() {
            continue;
        }
        let mut cand = cur.clone();
        cand.tasks[t] = TaskPlan::default();
        if tries.holds(&cand) {
            cur = cand;
        }
    }
    // Then one choice at a time, until a whole pass removes none.
    let minimal = loop {
        let mut removed = false;
        for c in choices(sys, &worst, &cur) {
            if tries.left == 0 {
                break;
            }
            let mut cand = cur.clone();
            reset(&mut cand, c, &worst);
            if tries.holds(&cand) {
                cur = normal(sys, &worst, &cand);
                removed = true;
            }
        }
        if tries.left == 0 {
            break false;
        }
        if !removed {
            break true;
        }
    };
    let tidy = trimmed(&worst, &cur);
    if tidy != cur && tries.holds(&tidy) {
        cur = tidy;
    }
    let kept = choices(sys, &worst, &cur).len();
    Shrunk {
        plan: cur,
        choices: Choices {
            kept,
            given,
            minimal,
        },
        // Set by the last try that held, which is the plan kept.
        response: tries.response,
    }
}

/// The simulations a shrink runs, and what they must show.
struct Tries<'a> {
    sys: &'a System,
    bounds: &'a [Time],
    keep: Keep,
    /// Simulated events left to spend.
    left: u64,
    /// The kept task's worst response in the last run that held.
    response: Option<Time>,
}

impl Tries<'_> {
    /// Whether `plan` still shows what must be kept; false once the
    /// budget is spent.
    fn holds(&mut self, plan: &Plan) -> bool {
        if self.left == 0 {
            return false;
        }
        let opts = Options {
            horizon: plan.horizon(self.sys),
            max_events: self.left,
            plan: Some(Arc::new(plan.clone())),
            ..Options::default()
        };
        let Ok((res, _)) = simulate(self.sys, &opts) else {
            return false;
        };
        // A run the budget cut short shows what happened before the cut,
        // which is as real as in a whole run.
        self.left = self.left.saturating_sub(res.events.max(1));
        let held = shows(&res, self.bounds, self.keep);
        if held {
            let task = match self.keep {
                Keep::Broken(t, _) => t,
                Keep::ResponseAtLeast(t, _) => Some(t),
            };
            self.response = task.and_then(|t| res.tasks.get(t)?.max_response);
        }
        held
    }
}

/// Whether run `res` shows `keep`.
fn shows(res: &SimResult, bounds: &[Time], keep: Keep) -> bool {
    match keep {
        Keep::Broken(task, kind) => res
            .broken(bounds)
            .iter()
            .any(|b| b.task == task && b.kind == kind),
        Keep::ResponseAtLeast(t, r) => res
            .tasks
            .get(t)
            .and_then(|s| s.max_response)
            .is_some_and(|m| m >= r),
    }
}

/// The choices of `plan` that differ from their defaults, as the
/// simulation reads them (a jitter past the task's is the task's; a
/// duration is clamped to its operation's worst case).
fn choices(sys: &System, worst: &[Vec<Time>], plan: &Plan) -> Vec<Choice> {
    let mut out = Vec::new();
    for (t, p) in plan.tasks.iter().enumerate().take(sys.tasks.len()) {
        if !p.offset.is_zero() {
            out.push(Choice::Offset(t));
        }
        for (k, d) in p.delays.iter().enumerate() {
            if !d.is_zero() {
                out.push(Choice::Delay(t, k));
            }
        }
        for (k, &j) in p.jitter.iter().enumerate() {
            if !j.min(sys.tasks[t].jitter).is_zero() {
                out.push(Choice::Jitter(t, k));
            }
        }
        for (k, ops) in p.exec.iter().enumerate() {
            for (o, &w) in worst[t].iter().enumerate().take(ops.len()) {
                if p.exec(k as u64, o, w) < w {
                    out.push(Choice::Exec(t, k, o));
                }
            }
        }
    }
    out
}

/// Puts choice `c` back to its default.
fn reset(plan: &mut Plan, c: Choice, worst: &[Vec<Time>]) {
    match c {
        Choice::Offset(t) => plan.tasks[t].offset = Time::ZERO,
        Choice::Delay(t, k) => plan.tasks[t].delays[k] = Time::ZERO,
        Choice::Jitter(t, k) => plan.tasks[t].jitter[k] = Time::ZERO,
        Choice::Exec(t, k, o) => plan.tasks[t].exec[k][o] = worst[t][o],
    }
}

/// `plan` with the same choices, written as the simulation reads them:
/// no tasks past the system's (nor default ones at the end), durations
/// clamped to their worst cases, jitter to the task's.
fn normal(sys: &System, worst: &[Vec<Time>], plan: &Plan) -> Plan {
    let mut out = plan.clone();
    out.tasks.truncate(sys.tasks.len());
    for (t, p) in out.tasks.iter_mut().enumerate() {
        for (k, ops) in p.exec.iter_mut().enumerate() {
            ops.truncate(worst[t].len());
            for (o, d) in ops.iter_mut().enumerate() {
                *d = plan.tasks[t].exec(k as u64, o, worst[t][o]);
            }
        }
        for j in &mut p.jitter {
            *j = (*j).min(sys.tasks[t].jitter);
        }
    }
    while out.tasks.last().is_some_and(|p| *p == TaskPlan::default()) {
        out.tasks.pop();
    }
    out
}

/// `plan` without the trailing default entries of its lists, so that a
/// reader of the saved plan sees the choices and little else. Shorter
/// lists plan fewer jobs and so end the plan's horizon sooner, which can
/// lose what the plan shows: the caller keeps this only where it does not.
fn trimmed(worst: &[Vec<Time>], plan: &Plan) -> Plan {
    let mut out = plan.clone();
    for (t, p) in out.tasks.iter_mut().enumerate() {
        while p.delays.last().is_some_and(|d| d.is_zero()) {
            p.delays.pop();
        }
        while p.jitter.last().is_some_and(|d| d.is_zero()) {
            p.jitter.pop();
        }
        while p
            .exec
            .last()
            .is_some_and(|ops| ops.iter().zip(&worst[t]).all(|(d, w)| d == w))
        {
            p.exec.pop();
        }
    }
    while out.tasks.last().is_some_and(|p| *p == TaskPlan::default()) {
        out.tasks.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Kind;

    /// One CPU under PIP: `H` (1 ms, then 1 ms holding `S`), `L` (4 ms
    /// holding `S`), and below them `X` (1 ms, no resource). Released
    /// together, `H` runs first and responds in 2 ms. Released 1 us after
    /// `L` has locked `S`, `H` computes 1 ms, waits for `L`'s section
    /// (which `H`'s computation delayed by 1 ms, to 5 ms) and holds `S`
    /// to 6 ms: a response of 6 ms less 1 us, past a bound of 3 ms.
    /// Whenever `X` arrives and however long it runs, it runs below both.
    fn pip() -> System {
        rtsync_model::load_str(
            r#"
[platform]
cpus = 1
protocol = "pip"
[[resource]]
name = "S"
[[task]]
name = "H"
period = "100ms"
priority = 3
body = [ { compute = "1ms" }, { lock = "S", hold = "1ms" } ]
[[task]]
name = "X"
period = "50ms"
priority = 1
wcet = "1ms"
[[task]]
name = "L"
period = "100ms"
priority = 2
body = [ { lock = "S", hold = "4ms" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0
    }

    const BOUNDS: [Time; 3] = [Time::from_ms(3), Time::MAX, Time::MAX];

    /// The one choice that matters (`H`'s offset) among leftovers a
    /// climb could leave: `X` late and short with a delay after its first
    /// job, `L`'s section its worst case written out, and a second job
    /// of `H` planned with a shorter computation (a choice of the task
    /// whose other choice is needed: only the one-at-a-time pass can
    /// take it out).
    fn noisy() -> Plan {
        let h = TaskPlan {
            offset: Time::from_us(1),
            exec: vec![
                vec![Time::MAX, Time::MAX],
                vec![Time::from_us(500), Time::MAX],
            ],
            ..TaskPlan::default()
        };
        let x = TaskPlan {
            offset: Time::from_ms(20),
            delays: vec![Time::from_ms(3)],
            exec: vec![vec![Time::from_us(500)]],
            ..TaskPlan::default()
        };
        let l = TaskPlan {
            exec: vec![vec![Time::from_ms(4)]],
            ..TaskPlan::default()
        };
        Plan {
            tasks: vec![h, x, l],
        }
    }

    fn run(sys: &System, plan: &Plan) -> SimResult {
        let opts = Options {
            horizon: plan.horizon(sys),
            plan: Some(Arc::new(plan.clone())),
            ..Options::default()
        };
        simulate(sys, &opts).unwrap().0
    }

    #[test]
    fn a_violation_keeps_only_the_choice_that_makes_it() {
        let sys = pip();
        let before = run(&sys, &noisy());
        assert_eq!(
            before.tasks[0].max_response,
            Some(Time::from_us(5_999)),
            "the schedule worked out by hand"
        );
        let keep = Keep::Broken(Some(0), Kind::AboveBound);
        let out = shrink(&sys, &BOUNDS, keep, &noisy(), 100_000);
        let (plan, c) = (out.plan, out.choices);
        assert_eq!(out.response, Some(Time::from_us(5_999)));
        assert_eq!(
            c,
            Choices {
                kept: 1,
                given: 5,
                minimal: true
            },
            "{plan:?}"
        );
        assert_eq!(plan, Plan::offsets([Time::from_us(1)]));
        let after = run(&sys, &plan);
        assert_eq!(after.tasks[0].max_response, Some(Time::from_us(5_999)));
        // And the one choice left is needed: without it, H responds in 2 ms.
        let none = run(&sys, &Plan::default());
        assert_eq!(none.tasks[0].max_response, Some(Time::from_ms(2)));
    }

    /// A worst case to be shown: the offset of `H` may move anywhere that
    /// keeps `L` holding `S` when `H` asks, but not go.
    #[test]
    fn a_worst_response_keeps_what_it_needs() {
        let sys = pip();
        let keep = Keep::ResponseAtLeast(0, Time::from_us(5_999));
        let out = shrink(&sys, &BOUNDS, keep, &noisy(), 100_000);
        let (plan, c) = (out.plan, out.choices);
        assert_eq!((c.kept, c.minimal), (1, true), "{plan:?}");
        assert!(!plan.task(0).offset.is_zero());
    }

    /// A plan that does not show what it must comes back as given, not
    /// cut down to something that shows nothing.
    #[test]
    fn a_plan_that_shows_nothing_is_left_alone() {
        let sys = pip();
        let keep = Keep::Broken(Some(0), Kind::AboveBound);
        let mut plan = noisy();
        plan.tasks[0].offset = Time::ZERO;
        let out = shrink(&sys, &BOUNDS, keep, &plan, 100_000);
        let (out, c) = (out.plan, out.choices);
        assert_eq!(out, plan);
        assert_eq!(
            c,
            Choices {
                kept: 4,
                given: 4,
                minimal: false
            }
        );
    }

    /// With no events to spend nothing can be checked, so nothing is cut.
    #[test]
    fn no_budget_cuts_nothing() {
        let sys = pip();
        let keep = Keep::Broken(Some(0), Kind::AboveBound);
        let out = shrink(&sys, &BOUNDS, keep, &noisy(), 0);
        let (out, c) = (out.plan, out.choices);
        assert_eq!(out, noisy());
        assert!(!c.minimal);
    }
}
