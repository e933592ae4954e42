//! SchedCAT beside rtsync: the same task sets analysed by both in one run.
//!
//! SchedCAT (Brandenburg's schedulability toolkit) is the reference the
//! field's multiprocessor locking analyses are published in. It is Python 2
//! with a C++ core; `scripts/schedcat/build.sh` ports a checkout the user
//! has to Python 3 and builds it. This module hands that port the sets as
//! JSON (`scripts/schedcat/analyse.py` reads them, runs SchedCAT's bound
//! functions and its response-time analysis, and times them), then sets
//! SchedCAT's answers beside rtsync's, set by set and task by task.
//!
//! Which of SchedCAT's analyses is the peer of which rtsync protocol is
//! the one table here ([`peer_of`]); nothing else in rtsync names SchedCAT.

use crate::Error;
use rtsync_analysis::{Context, Response, SystemResult, Verdict};
use rtsync_model::{Protocol, System, Time};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// SchedCAT's analysis that bounds what rtsync's `p` bounds, if it has one
/// (classic analyses; the LP ones carry an `lp-` prefix).
pub fn peer_of(p: Protocol, lp: bool) -> Option<&'static str> {
    let name = match (p, lp) {
        (Protocol::Mpcp, false) => "mpcp",
        (Protocol::Dpcp, false) => "dpcp",
        (Protocol::FmlpL, false) => "fmlp+",
        (Protocol::Msrp, false) => "msrp",
        (Protocol::Mpcp, true) => "lp-mpcp",
        (Protocol::Dpcp, true) => "lp-dpcp",
        (Protocol::FmlpL, true) => "lp-fmlp+",
        (Protocol::Dflp, true) => "lp-dflp",
        (Protocol::Msrp, true) => "lp-msrp",
        _ => return None,
    };
    Some(name)
}

/// A built SchedCAT port (see `scripts/schedcat/build.sh`).
pub struct Peer {
    python: PathBuf,
    script: PathBuf,
    dir: PathBuf,
}

impl Peer {
    /// Opens the port built in `dir`, or says how to build one.
    pub fn open(dir: &Path) -> Result<Peer, Error> {
        let python = dir.join(".venv/bin/python");
        let script = dir.join("rtsync_analyse.py");
        if !dir.join("schedcat").is_dir() {
            return Err(Error::BadInput(format!(
                "--schedcat {}: not a SchedCAT folder (no schedcat/ in it). Build the Python 3 port first: scripts/schedcat/build.sh SCHEDCAT_CHECKOUT {}",
                dir.display(),
                dir.display()
            )));
        }
        if !python.is_file() || !script.is_file() {
            return Err(Error::BadInput(format!(
                "--schedcat {}: a SchedCAT tree, but not one built by scripts/schedcat/build.sh (no .venv/ or rtsync_analyse.py). Run: scripts/schedcat/build.sh SCHEDCAT_CHECKOUT DEST, then pass DEST",
                dir.display()
            )));
        }
        Ok(Peer {
            python,
            script,
            dir: dir.to_path_buf(),
        })
    }

    /// Runs SchedCAT's `analysis` on `sets`, `repeat` times over (the
    /// answers are the last repeat's; the time is all of them).
    pub fn run(&self, analysis: &str, sets: &[System], repeat: u32) -> Result<PeerRun, Error> {
        let job = Job {
            analyses: vec![analysis.to_string()],
            repeat,
            sets: sets.iter().map(PeerSet::of).collect(),
        };
        let input = serde_json::to_vec(&job).map_err(|e| Error::Environment(e.to_string()))?;
        let mut child = Command::new(&self.python)
            .arg(&self.script)
            .current_dir(&self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Environment(format!("starting {}: {e}", self.python.display())))?;
        let mut stdin = child.stdin.take().expect("piped");
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child
            .wait_with_output()
            .map_err(|e| Error::Environment(format!("waiting for SchedCAT: {e}")))?;
        let _ = writer.join();
        if !out.status.success() {
            return Err(Error::Environment(format!(
                "SchedCAT's {analysis} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let mut answer: Answer = serde_json::from_slice(&out.stdout)
            .map_err(|e| Error::Environment(format!("reading SchedCAT's answer: {e}")))?;
        answer
            .analyses
            .remove(analysis)
            .ok_or_else(|| Error::Environment(format!("SchedCAT gave no answer for {analysis}")))
    }
}

#[derive(Serialize)]
struct Job {
    analyses: Vec<String>,
    repeat: u32,
    sets: Vec<PeerSet>,
}

/// One set in SchedCAT's model: tasks highest priority first, each with
/// its requests as `(resource, count, longest)` per resource, as
/// SchedCAT's `ResourceRequirement` holds them.
#[derive(Serialize)]
struct PeerSet {
    cpus: usize,
    sync: Vec<usize>,
    tasks: Vec<PeerTask>,
}

#[derive(Serialize)]
struct PeerTask {
    period: u64,
    deadline: u64,
    cost: u64,
    cpu: usize,
    requests: Vec<(usize, u32, u64)>,
}

impl PeerSet {
    fn of(sys: &System) -> PeerSet {
        let cx = Context::new(sys);
        let f = &cx.f;
        let tasks = f
            .by_priority
            .iter()
            .map(|&i| PeerTask {
                period: cx.period[i].ns(),
                deadline: cx.deadline[i].ns(),
                cost: f.tasks[i].wcet.ns(),
                cpu: cx.cpu(i).unwrap_or(0),
                requests: (0..f.n_resources)
                    .filter(|&r| f.requests(i, r) > 0)
                    .map(|r| (r, f.requests(i, r), f.outer_cs(i, r).ns()))
                    .collect(),
            })
            .collect();
        PeerSet {
            cpus: f.cpus,
            sync: sys
                .resources
                .iter()
                .map(|r| r.sync_cpu.unwrap_or(f.cpus.saturating_sub(1)))
                .collect(),
            tasks,
        }
    }
}

#[derive(Deserialize)]
struct Answer {
    analyses: std::collections::HashMap<String, PeerRun>,
}

/// SchedCAT's answers on a list of sets, and the time it took.
#[derive(Deserialize, Clone, Debug)]
pub struct PeerRun {
    /// Seconds for all repeats, the analysis alone.
    pub seconds: f64,
    /// Per set, in the order given, its fastest repeat's seconds (empty
    /// from a port built before the script timed sets one by one: build
    /// it again to get the time by verdict).
    #[serde(default)]
    pub set_seconds: Vec<f64>,
    /// Per set, in the order given.
    pub sets: Vec<PeerAnswer>,
}

/// SchedCAT's answer for one set.
#[derive(Deserialize, Clone, Debug)]
pub struct PeerAnswer {
    /// Its verdict.
    pub schedulable: bool,
    /// Per task, highest priority first.
    pub tasks: Vec<PeerTaskAnswer>,
}

/// SchedCAT's bounds for one task.
#[derive(Deserialize, Clone, Debug)]
pub struct PeerTaskAnswer {
    /// Response-time bound in ns, when the set is schedulable.
    pub response: Option<u64>,
    /// Its `blocked` field: all blocking, remote included (for MSRP the
    /// local blocking alone; the spin is added to the cost).
    pub blocking: u64,
    /// Remote blocking (suspension, or for MSRP the spin).
    pub remote: u64,
}

/// How one task's bounds compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Relation {
    /// The same response-time bound.
    Equal,
    /// rtsync's bound is lower.
    Tighter(Why),
    /// rtsync's bound is higher.
    Looser(Why),
    /// A side rejects the set: both stop at the first miss, so the
    /// per-task bounds are partial iterates; only the verdicts compare.
    Unmatched,
}

/// Which term the difference comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Why {
    /// The blocking bound (local plus remote, spin for spin locks) differs.
    Blocking,
    /// The blocking bounds agree: the response-time analysis differs
    /// (rtsync charges each suspending task above the smaller of
    /// suspension as jitter and suspension as execution; SchedCAT uses the
    /// jitter form alone).
    ResponseForm,
    /// Only one side found a bound below the deadline.
    Verdict,
    /// SchedCAT's bound is below a schedule rtsync's simulator found for
    /// the task ([`refute`]): not a bound at all, so rtsync's being above
    /// it is no looseness.
    Broken,
    /// A task above on the same CPU has sections served on another CPU
    /// (DPCP, DFLP) and suspends for them, but SchedCAT's remote blocking
    /// for it is zero, and its driver then counts it as not suspending:
    /// no jitter, and nothing for the lower sections it can meet after it
    /// resumes. That rule is what makes SchedCAT's LP DPCP and DFLP bounds
    /// fall below a simulated schedule on `oblivious-reopened-dpcp.toml`
    /// (docs/ANALYSIS.md, "Form 2 charges a suspending job's blocking"),
    /// so rtsync's being above such a bound is no looseness either.
    Unsuspended,
}

impl Relation {
    /// A short column head for the table.
    pub fn head(self) -> &'static str {
        match self {
            Relation::Equal => "equal",
            Relation::Tighter(Why::Blocking) => "tighter: blocking",
            Relation::Tighter(Why::ResponseForm) => "tighter: RTA form",
            Relation::Tighter(Why::Verdict) => "tighter: bounded",
            Relation::Looser(Why::Blocking) => "looser: blocking",
            Relation::Looser(Why::ResponseForm) => "looser: RTA",
            Relation::Looser(Why::Verdict) => "looser: unbounded",
            Relation::Looser(Why::Broken) => "looser: SchedCAT broken",
            Relation::Tighter(Why::Broken) => "tighter: broken",
            Relation::Looser(Why::Unsuspended) => "looser: SchedCAT no suspension",
            Relation::Tighter(Why::Unsuspended) => "tighter: no suspension",
            Relation::Unmatched => "not compared",
        }
    }
}

/// What the column heads of [`Relation::head`] mean, for the legend.
pub const LEGEND: &str = "Tasks of sets both accept: tighter/looser: rtsync's response-time bound is below/above SchedCAT's. blocking: the blocking bounds differ the same way; RTA form: they do not (rtsync charges each suspending task above the smaller of suspension as jitter and suspension as execution, SchedCAT the jitter form); unbounded: rtsync finds no bound where SchedCAT does; SchedCAT broken: rtsync's simulator found a schedule in which the task responds later than SchedCAT's bound (checked for every looser task, a bounded search); SchedCAT no suspension: a task above it on its CPU suspends for sections served elsewhere, which SchedCAT's driver counts as no suspension because their remote blocking is zero (its rule that a simulated schedule breaks, docs/ANALYSIS.md). not compared: tasks of sets a side rejects (both stop at the first miss; the verdict table compares those).";

/// rtsync's blocking of task `i` in SchedCAT's terms: everything that
/// delays the job beyond its own execution (remote waits, local blocking,
/// spin), less the job's own sections where the protocol runs them
/// elsewhere (SchedCAT keeps those in the task's cost).
fn ours_blocking(cx: &Context, r: &SystemResult, i: usize) -> Option<u64> {
    let sys = cx.sys;
    let b = r.tasks[i].blocking.total().bounded()?;
    let elsewhere =
        cx.f.sections(i)
            .iter()
            .filter(|rq| rq.is_outermost() && sys.resources[rq.resource].protocol.needs_sync_cpu())
            .fold(Time::ZERO, |a, rq| a.saturating_add(rq.length));
    Some(b.saturating_sub(elsewhere).ns())
}

fn theirs_blocking(t: &PeerTaskAnswer, spin_in_cost: bool) -> u64 {
    if spin_in_cost {
        t.blocking + t.remote
    } else {
        t.blocking
    }
}

/// Compares one set: per task (system order), how rtsync's bounds relate
/// to SchedCAT's.
pub fn compare(
    sys: &System,
    ours: &SystemResult,
    theirs: &PeerAnswer,
    p: Protocol,
) -> Vec<Relation> {
    let cx = Context::new(sys);
    // SchedCAT adds a spin lock's spin to the cost, outside `blocked`.
    let spin_in_cost = p.keeps_cpu();
    let mut out = vec![Relation::Equal; sys.tasks.len()];
    // Per task, whether SchedCAT's driver counts it as not suspending
    // though it does: sections served on another CPU, no remote blocking
    // in SchedCAT's answer, no self-suspension ([`Why::Unsuspended`]).
    let mut unsuspended = vec![false; sys.tasks.len()];
    for (rank, &h) in cx.f.by_priority.iter().enumerate() {
        let away = (cx.f.agent_sections(sys, h)).any(|(c, _)| cx.cpu(h) != Some(c));
        unsuspended[h] = away && theirs.tasks[rank].remote == 0 && cx.f.tasks[h].suspensions == 0;
    }
    let below_unsuspended = |i: usize| {
        (0..sys.tasks.len())
            .any(|h| h != i && unsuspended[h] && cx.cpu(h) == cx.cpu(i) && cx.prio(h) >= cx.prio(i))
    };
    for (rank, &i) in cx.f.by_priority.iter().enumerate() {
        let t = &theirs.tasks[rank];
        let d = cx.deadline[i].ns();
        let our_r = match ours.tasks[i].response {
            Response::Bounded(x) if x.ns() <= d => Some(x.ns()),
            _ => None,
        };
        let their_r = t.response.filter(|&x| x <= d && theirs.schedulable);
        let ob = ours_blocking(&cx, ours, i);
        let tb = theirs_blocking(t, spin_in_cost);
        let by_blocking = |tighter: bool| match ob {
            Some(o) if o != tb => {
                if (o < tb) == tighter {
                    Why::Blocking
                } else {
                    Why::ResponseForm
                }
            }
            _ => Why::ResponseForm,
        };
        out[i] = match (our_r, their_r) {
            _ if !(theirs.schedulable && ours.verdict == Verdict::Schedulable) => {
                Relation::Unmatched
            }
            (Some(a), Some(b)) if a == b => Relation::Equal,
            (Some(a), Some(b)) if a < b => Relation::Tighter(by_blocking(true)),
            (Some(_), Some(_)) if below_unsuspended(i) => Relation::Looser(Why::Unsuspended),
            (Some(_), Some(_)) => Relation::Looser(by_blocking(false)),
            (None, _) => Relation::Looser(Why::Verdict),
            (Some(_), None) => Relation::Tighter(Why::Verdict),
        };
    }
    out
}

/// Simulated events the search spends on one task SchedCAT bounds below
/// rtsync ([`refute`]).
pub const REFUTE_BUDGET: u64 = 60_000;

/// A response of task `i` above `bound` (SchedCAT's, in ns) in a schedule
/// that rtsync's worst-case search finds (offsets, delays, execution
/// times), `None` if its budget finds none. Such a schedule shows that
/// SchedCAT's bound is not one for this task under the protocol both
/// model (shape (a)'s `lp-mpcp` has such tasks: its per-request wait
/// falls back to 1 ns when the first estimate passes the task's current
/// response time, `bound_remote_delay` in `lp_mpcp.cpp`).
pub fn refute(sys: &System, i: usize, bound: u64) -> Option<Time> {
    let mut bounds = vec![Time::MAX; sys.tasks.len()];
    bounds[i] = Time::from_ns(bound);
    let opts = rtsync_sim::search::SearchOptions {
        budget: REFUTE_BUDGET,
        // Only the worst response is read, not the violation's plan.
        shrink: false,
        ..Default::default()
    };
    let out = rtsync_sim::search::search(sys, &bounds, &opts);
    out.worst[i]
        .as_ref()
        .map(|w| w.0)
        .filter(|&w| w > Time::from_ns(bound))
}

/// Both verdicts on a set: `(rtsync's, SchedCAT's)`, schedulable or not.
pub fn verdicts(ours: &SystemResult, theirs: &PeerAnswer) -> (bool, bool) {
    (ours.verdict == Verdict::Schedulable, theirs.schedulable)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MPCP on two CPUs: `h` (highest) asks for `g`, which `l` on the other
    /// CPU holds for 100 us. A "bound" of `h`'s execution alone (as
    /// `lp-mpcp`'s fallback gives) is broken by the search; rtsync's bound
    /// (execution, plus the wait for `l`'s section) is not.
    #[test]
    fn the_search_breaks_a_bound_that_ignores_blocking_and_not_a_sound_one() {
        let sys = rtsync_model::load_str(
            r#"
[platform]
cpus = 2
protocol = "mpcp"
[[resource]]
name = "g"
[[task]]
name = "h"
period = "10ms"
priority = 2
cpu = 0
body = [ { compute = "10us" }, { lock = "g", hold = "10us" } ]
[[task]]
name = "l"
period = "50ms"
priority = 1
cpu = 1
body = [ { lock = "g", hold = "100us" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let w = refute(&sys, 0, 20_000).expect("a schedule past the execution time");
        assert!(w > Time::from_us(20) && w <= Time::from_us(120), "{w}");
        let ours = rtsync_analysis::analyze_result(&sys, &Default::default()).unwrap();
        let Response::Bounded(b) = ours.tasks[0].response else {
            panic!("h is bounded")
        };
        assert_eq!(b, Time::from_us(120));
        assert_eq!(refute(&sys, 0, b.ns()), None);
    }

    /// `oblivious-reopened-dpcp.toml` (rtsync-analysis's tests/data): `h`
    /// suspends for its own sections of r1, served on CPU 1, which nobody
    /// else uses. Told, as SchedCAT's LP DPCP answers, that `h`'s remote
    /// blocking is zero and `i`'s bound 19.02 ms (below the 22.962 ms
    /// schedule), `i` above it is classified as resting on that answer;
    /// told a non-zero remote blocking for `h`, as plain looseness.
    #[test]
    fn a_bound_that_counts_a_suspending_task_as_not_suspending_is_classified() {
        let sys = rtsync_model::load_str(
            include_str!("../../rtsync-analysis/tests/data/oblivious-reopened-dpcp.toml"),
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let ours = rtsync_analysis::analyze_result(&sys, &Default::default()).unwrap();
        let Response::Bounded(r_i) = ours.tasks[1].response else {
            panic!("i is bounded")
        };
        assert!(r_i > Time::from_us(19_020), "{r_i}");
        let answer = |h_remote: u64| PeerAnswer {
            schedulable: true,
            tasks: [
                ours.tasks[0].response,
                Response::Bounded(Time::from_us(19_020)),
                ours.tasks[2].response,
            ]
            .into_iter()
            .enumerate()
            .map(|(k, r)| PeerTaskAnswer {
                response: match r {
                    Response::Bounded(x) => Some(x.ns()),
                    _ => None,
                },
                blocking: 0,
                remote: if k == 0 { h_remote } else { 0 },
            })
            .collect(),
        };
        let rel = compare(&sys, &ours, &answer(0), Protocol::Dpcp);
        assert_eq!(rel[1], Relation::Looser(Why::Unsuspended));
        let rel = compare(&sys, &ours, &answer(1_000), Protocol::Dpcp);
        assert!(
            matches!(rel[1], Relation::Looser(w) if w != Why::Unsuspended),
            "{:?}",
            rel[1]
        );
    }
}
