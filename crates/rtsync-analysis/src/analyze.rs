//! The entry point: partition if needed, charge overheads, run the selected
//! tests, and return one immutable [`SystemResult`].

use crate::blocking::demands;
use crate::bounds::{self, hyperbolic, liu_layland};
use crate::context::{BoundForm, Context};
use crate::edf::{self, DemandOutcome};
use crate::edf_rta;
use crate::fp;
use crate::overheads::Profile;
use crate::partition::{Heuristic, partition};
use crate::result::*;
use rtsync_model::{Diagnostics, Facts, Scheduler, System, Time};
use std::borrow::Cow;
use std::str::FromStr;

/// Which tests to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TestSelection {
    /// RTA under FP; the demand criterion under EDF.
    Rta,
    /// The EDF tests (demand criterion and Baker's test).
    Edf,
    /// The Liu-Layland bound with blocking (Sha et al. 1990).
    Ll,
    /// The hyperbolic bound with blocking (paper 001, Eq. 4).
    Hyperbolic,
    /// Every test that applies to the scheduler.
    #[default]
    All,
}

impl FromStr for TestSelection {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "rta" => Ok(TestSelection::Rta),
            "edf" => Ok(TestSelection::Edf),
            "ll" | "liu-layland" => Ok(TestSelection::Ll),
            "hyperbolic" | "hb" => Ok(TestSelection::Hyperbolic),
            "all" => Ok(TestSelection::All),
            _ => Err(format!(
                "unknown test `{s}`; expected rta, edf, ll, hyperbolic or all"
            )),
        }
    }
}

impl TestSelection {
    /// The selection's name, as [`FromStr`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            TestSelection::Rta => "rta",
            TestSelection::Edf => "edf",
            TestSelection::Ll => "ll",
            TestSelection::Hyperbolic => "hyperbolic",
            TestSelection::All => "all",
        }
    }

    /// Every selection, in `--test`'s order.
    pub const ALL: [TestSelection; 5] = [
        TestSelection::Rta,
        TestSelection::Edf,
        TestSelection::Ll,
        TestSelection::Hyperbolic,
        TestSelection::All,
    ];

    /// The selections that fit a system scheduled by `sched` (none of
    /// theirs [`TestSelection::inapplicable`]): what to offer instead of
    /// one that does not.
    pub fn fitting(sched: Scheduler) -> impl Iterator<Item = TestSelection> {
        TestSelection::ALL
            .into_iter()
            .filter(move |t| t.inapplicable(sched).is_none())
    }

    /// Why no test of this selection applies to a system scheduled by
    /// `sched`, where none does: the EDF tests to fixed priorities, the
    /// utilization bounds (rate-monotonic) to EDF. The analysis then
    /// reports the selection not applicable, with this reason; a command
    /// line refuses the option before analysing.
    pub fn inapplicable(self, sched: Scheduler) -> Option<&'static str> {
        match (self, sched) {
            (TestSelection::Edf, Scheduler::Fp) => {
                Some("the system is scheduled by fixed priority")
            }
            (TestSelection::Ll | TestSelection::Hyperbolic, Scheduler::Edf) => {
                Some("utilization bounds here are for rate-monotonic fixed priorities")
            }
            _ => None,
        }
    }
}

/// How to analyse.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which tests to run.
    pub tests: TestSelection,
    /// Run-time overheads to charge, measured by `rtsync bench locks`.
    pub overheads: Option<Profile>,
    /// How to place tasks without a CPU.
    pub heuristic: Heuristic,
    /// Verdict only: stop the response-time analysis at the first task
    /// that misses; the tasks not analysed then are reported
    /// [`Response::Unbounded`]. Sweeps and the benchmark use it (SchedCAT
    /// stops the same way); per-task reports leave it off.
    pub first_miss: bool,
    /// Classic bounds, or classic lowered by the LP bounds.
    pub form: BoundForm,
}

/// The analysed system (partitioned, overheads included) with its result.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The system as analysed (placed, overheads charged).
    pub system: System,
    /// Its result.
    pub result: SystemResult,
}

/// Analyses `sys`. Fails only when partitioning breaks a rule of the
/// protocol (a uniprocessor protocol's resource split across CPUs), with
/// the validation errors that say so.
///
/// `sys` must be valid (no errors from [`rtsync_model::validate()`], as
/// [`rtsync_model::load_str`] and [`rtsync_model::load_file`] return it): the bounds lean on the protocols'
/// rules, such as no nesting between sections served on different CPUs,
/// and a system built in code that breaks one gets bounds that need not
/// hold. Debug builds check it.
pub fn analyze(sys: &System, opts: &Options) -> Result<Analysis, Diagnostics> {
    let (system, result) = prepare_and_run(sys, opts)?;
    Ok(Analysis {
        system: system.into_owned(),
        result,
    })
}

/// Like [`analyze`], returning the result alone: a system that is already
/// partitioned is analysed in place, without a copy (experiments and
/// benchmarks use this).
pub fn analyze_result(sys: &System, opts: &Options) -> Result<SystemResult, Diagnostics> {
    prepare_and_run(sys, opts).map(|(_, r)| r)
}

/// The system's verdict alone, the same as [`analyze_result`]'s.
///
/// For a verdict-only response-time analysis under fixed priority
/// (`tests: Rta`, `first_miss`), the one a schedulability sweep runs on
/// thousands of systems, no per-task result rows are built (with 80 tasks
/// that is a tenth of the analysis); other selections build the full
/// result and return its verdict.
pub fn verdict(sys: &System, opts: &Options) -> Result<Verdict, Diagnostics> {
    if !(opts.first_miss
        && opts.tests == TestSelection::Rta
        && sys.platform.scheduler == Scheduler::Fp)
    {
        return analyze_result(sys, opts).map(|r| r.verdict);
    }
    let (system, _) = prepare(sys, opts)?;
    let cx = Context::with_form(&system, opts.form);
    Ok(if fp::schedulable(&cx) {
        Verdict::Schedulable
    } else {
        Verdict::NotSchedulable
    })
}

/// `sys` with every task on a CPU: as it is when already partitioned,
/// else placed by `heuristic` and validated again (a placement can break a
/// protocol's rule: a uniprocessor protocol's users split across CPUs).
/// `rtsync check` calls this too, so that it refuses what `analyze` would.
pub fn place(sys: &System, heuristic: Heuristic) -> Result<Cow<'_, System>, Diagnostics> {
    if sys.is_partitioned() {
        return Ok(Cow::Borrowed(sys));
    }
    let p = partition(sys, heuristic);
    let d = rtsync_model::validate(&p);
    if d.has_errors() {
        return Err(d);
    }
    Ok(Cow::Owned(p))
}

/// The system to analyse (partitioned, overheads charged) and, with
/// overheads, the execution times before they were charged.
fn prepare<'a>(
    sys: &'a System,
    opts: &Options,
) -> Result<(Cow<'a, System>, Option<Vec<Time>>), Diagnostics> {
    debug_assert!(
        !rtsync_model::validate(sys).has_errors(),
        "analysed an invalid system: {}",
        rtsync_model::validate(sys)
    );
    let placed = place(sys, opts.heuristic)?;
    let (system, base_wcet) = match &opts.overheads {
        Some(p) => {
            let base: Vec<Time> = Facts::new(&placed).tasks.iter().map(|t| t.wcet).collect();
            (Cow::Owned(p.inflate(&placed)), Some(base))
        }
        None => (placed, None),
    };
    Ok((system, base_wcet))
}

fn prepare_and_run<'a>(
    sys: &'a System,
    opts: &Options,
) -> Result<(Cow<'a, System>, SystemResult), Diagnostics> {
    let (system, base_wcet) = prepare(sys, opts)?;
    let result = {
        let cx = Context::with_form(&system, opts.form);
        let base: Vec<Time> =
            base_wcet.unwrap_or_else(|| cx.f.tasks.iter().map(|t| t.wcet).collect());
        match cx.scheduler {
            Scheduler::Fp => analyze_fp(&cx, opts, &base),
            Scheduler::Edf => analyze_edf(&cx, opts, &base),
        }
    };
    Ok((system, result))
}

fn task_row(
    cx: &Context,
    i: usize,
    d: &crate::blocking::Demand,
    base: Time,
    response: Response,
) -> TaskResult {
    let t = &cx.sys.tasks[i];
    let wcet = cx.f.tasks[i].wcet;
    let verdict = if response.meets(t.deadline) {
        Verdict::Schedulable
    } else {
        Verdict::NotSchedulable
    };
    // With a joint spin bound (MSRP's LP), the response reads it in place
    // of the job's own spin and local blocking: the row shows the local
    // blocking it holds (at most the classic one) and the rest as spin,
    // the job's own and that of the jobs above it in its busy window.
    let (spin, local) = match d.joint {
        Some(j) => {
            let local = d.local.min(j);
            (j.saturating_sub(local), local)
        }
        None => (d.spin, d.local),
    };
    TaskResult {
        name: t.name.clone(),
        cpu: t.cpu,
        priority: t.priority,
        period: t.period,
        deadline: t.deadline,
        wcet,
        blocking: Blocking {
            local: Delay::from_saturated(local),
            remote: Delay::from_saturated(d.remote),
            spin: Delay::from_saturated(spin),
            overhead: wcet.saturating_sub(base),
        },
        response,
        slack: response.bounded().and_then(|r| t.deadline.checked_sub(r)),
        verdict,
    }
}

fn bound_outcomes(
    cx: &Context,
    demands: &[crate::blocking::Demand],
    sel: TestSelection,
) -> Vec<TestOutcome> {
    let mut out = Vec::new();
    let want_ll = matches!(sel, TestSelection::Ll | TestSelection::All);
    let want_hb = matches!(sel, TestSelection::Hyperbolic | TestSelection::All);
    if !(want_ll || want_hb) {
        return out;
    }
    let mut per_cpu = Vec::new();
    let mut na = None;
    let foreign = crate::blocking::foreign_loads(cx);
    for (c, agents) in foreign.iter().enumerate() {
        match bounds::tasks_on(cx, demands, c, agents) {
            Ok(ts) => per_cpu.push(ts),
            Err(why) => {
                na = Some(why);
                break;
            }
        }
    }
    let mut run = |test: Test, check: fn(&[bounds::BoundTask]) -> Result<(), usize>| {
        let o = match &na {
            Some(why) => TestOutcome {
                test,
                verdict: Verdict::NotApplicable,
                detail: Some(why.clone()),
            },
            None => match per_cpu.iter().find_map(|ts| check(ts).err()) {
                None => TestOutcome {
                    test,
                    verdict: Verdict::Schedulable,
                    detail: None,
                },
                Some(i) => TestOutcome {
                    test,
                    verdict: Verdict::NotSchedulable,
                    detail: Some(format!("task {} fails the bound", cx.sys.tasks[i].name)),
                },
            },
        };
        out.push(o);
    };
    if want_ll {
        run(Test::LiuLayland, liu_layland::check);
    }
    if want_hb {
        run(Test::Hyperbolic, hyperbolic::check);
    }
    out
}

fn decide(cx: &Context, tests: Vec<TestOutcome>, tasks: Vec<TaskResult>) -> SystemResult {
    let decided = tests
        .iter()
        .find(|t| t.verdict == Verdict::Schedulable)
        .map(|t| t.test);
    let verdict = if decided.is_some() {
        Verdict::Schedulable
    } else if tests.iter().any(|t| t.verdict == Verdict::NotSchedulable) {
        Verdict::NotSchedulable
    } else {
        Verdict::NotApplicable
    };
    let decided_by = decided.or_else(|| {
        tests
            .iter()
            .find(|t| t.verdict == Verdict::NotSchedulable)
            .map(|t| t.test)
    });
    SystemResult {
        protocol: cx.mix.protocol(),
        protocols: rtsync_model::mix::protocols(cx.sys),
        scheduler: cx.scheduler,
        analysis: cx.form,
        verdict,
        decided_by,
        tests,
        tasks,
    }
}

fn analyze_fp(cx: &Context, opts: &Options, base: &[Time]) -> SystemResult {
    let a = fp::analyse(cx, opts.first_miss);
    // A verdict-only run leaves the demands of tasks below the first miss
    // uncomputed; their rows say no blocking (their response is Unbounded:
    // not analysed).
    let demands: Vec<crate::blocking::Demand> = (0..cx.n())
        .map(|i| a.demands.computed(i).unwrap_or_default())
        .collect();
    let tasks: Vec<TaskResult> = (0..cx.n())
        .map(|i| {
            // Where the classic demand decided the bound (beside a joint
            // spin bound that a suspending task above made the larger),
            // the row shows the classic terms: the ones the bound holds.
            let mut d = demands[i];
            if a.classic.get(i) == Some(&true) {
                d.joint = None;
            }
            task_row(cx, i, &d, base[i], a.responses[i])
        })
        .collect();
    let mut tests = Vec::new();
    if matches!(opts.tests, TestSelection::Rta | TestSelection::All) {
        let failing = tasks.iter().find(|t| t.verdict != Verdict::Schedulable);
        tests.push(TestOutcome {
            test: Test::Rta,
            verdict: if failing.is_none() {
                Verdict::Schedulable
            } else {
                Verdict::NotSchedulable
            },
            detail: failing.map(|t| {
                format!(
                    "task {} bound {} vs deadline {}",
                    t.name, t.response, t.deadline
                )
            }),
        });
    }
    if let Some(why) = opts.tests.inapplicable(Scheduler::Fp) {
        tests.push(TestOutcome {
            test: Test::EdfDemand,
            verdict: Verdict::NotApplicable,
            detail: Some(why.into()),
        });
    }
    if matches!(
        opts.tests,
        TestSelection::Ll | TestSelection::Hyperbolic | TestSelection::All
    ) {
        tests.extend(bound_outcomes(cx, &a.demands.into_vec(), opts.tests));
    }
    decide(cx, tests, tasks)
}

fn analyze_edf(cx: &Context, opts: &Options, base: &[Time]) -> SystemResult {
    let demands = demands(cx);
    // Each CPU is decided on its own: by the demand test, or by Baker's
    // test where that passes (both are sufficient; the demand test gives
    // up where the horizon is too long).
    let mut cpu_ok = vec![true; cx.f.cpus];
    let mut demand_fail: Option<String> = None;
    let mut undecided: Option<String> = None;
    let mut rescued: Vec<String> = Vec::new();
    let mut baker_fail: Option<String> = None;
    // Spuri's response-time bounds where the CPU passes, else the
    // deadline stands (the demand test decides the verdict; a verdict-only
    // run computes none).
    let mut bound = cx.deadline.clone();
    for (c, ok) in cpu_ok.iter_mut().enumerate() {
        let ts = edf::tasks_on(cx, &demands, c);
        let baker = edf::baker_test(&ts);
        if let Err(i) = baker {
            baker_fail.get_or_insert(format!(
                "task {} fails Baker's density condition",
                cx.sys.tasks[i].name
            ));
        }
        match edf::demand_test(&ts) {
            DemandOutcome::Schedulable => {}
            DemandOutcome::Fails(l) => {
                // Baker's test bounds the blocking of a window through the
                // task that closes it, the demand test through every task
                // in it: where blocking differs by task, either can pass
                // alone, and each is sufficient.
                *ok = baker.is_ok();
                demand_fail.get_or_insert(format!("CPU {c}: demand plus blocking exceeds L = {l}"));
            }
            DemandOutcome::Overloaded => {
                *ok = false;
                demand_fail.get_or_insert(format!("CPU {c}: utilization above 1"));
            }
            DemandOutcome::Inconclusive if baker.is_ok() => rescued.push(format!("CPU {c}")),
            DemandOutcome::Inconclusive => {
                *ok = false;
                undecided.get_or_insert(format!(
                    "CPU {c}: too many test points (horizon too long) and Baker's test fails"
                ));
            }
        }
        if !*ok || opts.first_miss {
            continue;
        }
        if let Some(r) = edf_rta::response_bounds(&ts) {
            for (x, r) in ts.iter().zip(r) {
                bound[x.id] = r.min(x.d);
            }
        }
    }
    let tasks = (0..cx.n())
        .map(|i| {
            let ok = cx.cpu(i).is_some_and(|c| cpu_ok[c]);
            let r = if ok {
                Response::Bounded(bound[i])
            } else {
                Response::Exceeds(cx.deadline[i])
            };
            task_row(cx, i, &demands[i], base[i], r)
        })
        .collect();
    let mut tests = Vec::new();
    if matches!(
        opts.tests,
        TestSelection::Rta | TestSelection::Edf | TestSelection::All
    ) {
        let (verdict, detail) = match (demand_fail, undecided) {
            (Some(f), _) => (Verdict::NotSchedulable, Some(f)),
            (None, Some(u)) => (Verdict::NotApplicable, Some(u)),
            (None, None) if !rescued.is_empty() => (
                Verdict::Schedulable,
                Some(format!(
                    "{}: horizon too long for the demand test, decided by Baker's test",
                    rescued.join(", ")
                )),
            ),
            (None, None) => (Verdict::Schedulable, None),
        };
        tests.push(TestOutcome {
            test: Test::EdfDemand,
            verdict,
            detail,
        });
    }
    if matches!(opts.tests, TestSelection::Edf | TestSelection::All) {
        let v = if baker_fail.is_none() {
            Verdict::Schedulable
        } else {
            Verdict::NotSchedulable
        };
        tests.push(TestOutcome {
            test: Test::EdfBaker,
            verdict: v,
            detail: baker_fail,
        });
    }
    if let Some(why) = opts.tests.inapplicable(Scheduler::Edf) {
        for test in [Test::LiuLayland, Test::Hyperbolic] {
            if (test == Test::LiuLayland) == (opts.tests == TestSelection::Ll) {
                tests.push(TestOutcome {
                    test,
                    verdict: Verdict::NotApplicable,
                    detail: Some(why.into()),
                });
            }
        }
    }
    decide(cx, tests, tasks)
}
