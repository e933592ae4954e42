//! Conformance on real threads: the scenarios of `scenarios/` (the same
//! files the simulator reproduces exactly) run on SCHED_FIFO threads must
//! give the same grant order, the same first-completion order and the same
//! priority changes. Times are not compared: a VM's timers and caches move
//! them by tens of microseconds; the order of decisions must not move.
//!
//! Every scenario runs twice. *Recorded*: every operation through the
//! machine, under the bookkeeping lock, which logs every priority change
//! where it happens (the log turns off the paths that bypass the lock).
//! *Default*: the options a user gets (the kernel's PI futex for PIP
//! resources, the fast path with its raising grants), with only the trace,
//! which changes no path: grants and completions must be the same there.
//! The kernel's PI boosts and a fast path's own raises are invisible to
//! the trace, so priorities are compared in the recorded run only.
//!
//! Skipped, with the reason printed: where SCHED_FIFO is not permitted;
//! scenarios with more CPUs than this machine; `pip-deadlock` (the runtime
//! refuses the request that would close the cycle instead of entering the
//! deadlock: `tests/robust.rs`) and `mix-pip-lends-above-ipcp`, a deadlock
//! the validator refuses too, whose closing request the runtime refuses
//! on both paths as well (checked by hand, 2026-12-03). MrsP's helping is compared too: which
//! holder runs on which spinner's CPU, in order.

mod common;

use common::realtime;
use rtsync_model::scenario::{Scenario, files};
use rtsync_model::{Segment, System, Time};
use rtsync_rt::{Options, Record, RunOptions, run, sys};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

fn at(s: &str) -> (String, Time) {
    rtsync_model::scenario::at(s).unwrap_or_else(|e| panic!("{e}"))
}

const NOT_ON_REAL_THREADS: &[(&str, &str)] = &[
    (
        "pip-deadlock.toml",
        "the runtime refuses the deadlocking request (tests/robust.rs)",
    ),
    (
        "mix-pip-lends-above-ipcp.toml",
        "a deadlock the validator refuses, as pip-deadlock is: on both paths the runtime refuses the request that closes it (`mid` waits for `B`, `lo` waits for `P`), where the simulator enters it",
    ),
];

/// Real time per scenario time: the scenarios' 1 ms steps become 10 ms, so
/// that a VM's scheduling hiccups do not reorder decisions a step apart.
///
/// At 4 this test failed in CI on every attempt of three scenarios, and
/// 2 of 15 runs of the component scenarios alone failed on an idle 2-vCPU
/// VM (2026-12-03). The timed log of one failing `comp-fig2` attempt: the
/// first release 1.1 ms late and a 4 ms computation (thread CPU time)
/// lasting 4.8 ms of wall time, 1.9 ms lost in all against the 2 ms by
/// which `active2` asks for `LockA` before `active1`'s release. A halted
/// vCPU woken late and the host's steal, which no priority on the guest
/// prevents. At 10, 23 runs (8 of them beside a busy loop) had no
/// attempt differ; the whole test takes about 7 s instead of 4.
const SCALE: u64 = 10;

fn scale_body(body: &mut [Segment]) {
    for s in body {
        match s {
            Segment::Compute(t) | Segment::Suspend(t) => *t = t.checked_mul(SCALE).unwrap(),
            Segment::Lock { body, .. } => scale_body(body),
        }
    }
}

fn scaled(mut sys: System) -> System {
    for t in &mut sys.tasks {
        t.period = t.period.checked_mul(SCALE).unwrap();
        t.deadline = t.deadline.checked_mul(SCALE).unwrap();
        scale_body(&mut t.body);
    }
    sys
}

/// The two ways a scenario runs (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Paths {
    Recorded,
    Default,
}

/// Which paths the runs exercised, summed over the scenarios.
#[derive(Default)]
struct Exercised {
    /// Default runs on the kernel's PI futex.
    kernel_pi: usize,
    /// Fast-path grants in the recorded and in the default runs (the
    /// default ones add the raising grants that recording turns off).
    fast_recorded: u64,
    fast_default: u64,
}

/// Runs one scenario (up to three attempts: see `scenarios_on_real_threads`);
/// returns the mismatches of the last attempt, or `None` when skipped.
fn check(path: &Path, paths: Paths, seen: &mut Exercised) -> Option<Vec<String>> {
    let mut last = Vec::new();
    for attempt in 1..=3 {
        last = attempt_once(path, paths, seen)?;
        if last.is_empty() {
            return Some(last);
        }
        eprintln!(
            "attempt {attempt} ({paths:?}) differed: {}",
            last.join("; ")
        );
        // A stall of the VM (the host's steal) can last longer than one
        // attempt: let it pass before the next.
        std::thread::sleep(Duration::from_millis(250));
    }
    Some(last)
}

fn attempt_once(path: &Path, paths: Paths, seen: &mut Exercised) -> Option<Vec<String>> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    if let Some((_, why)) = NOT_ON_REAL_THREADS.iter().find(|(n, _)| *n == name) {
        eprintln!("skipped {name}: {why}");
        return None;
    }
    let sc = Scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
    let sys = scaled(sc.system(&name).unwrap_or_else(|e| panic!("{e}")));
    let cpus = sys::allowed_cpus();
    if sys.platform.cpus > cpus.len() {
        eprintln!(
            "skipped {name}: {} CPUs needed, {} here",
            sys.platform.cpus,
            cpus.len()
        );
        return None;
    }
    // One CPU: the last (away from CPU 0's interrupts); more: in order.
    let map = if sys.platform.cpus == 1 {
        vec![*cpus.last().unwrap()]
    } else {
        cpus[..sys.platform.cpus].to_vec()
    };
    let offsets = sc
        .offsets(&sys)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .iter()
        .map(|t| Duration::from_nanos(t.ns() * SCALE))
        .collect();
    let opts = RunOptions {
        duration: Duration::from_nanos(sc.horizon().unwrap().ns() * SCALE),
        offsets,
        max_jobs: Some(1),
        domain: Options {
            cpu_map: Some(map),
            record: paths == Paths::Recorded,
            trace: paths == Paths::Default,
            wait_limit: Duration::from_secs(2),
            ..Options::default()
        },
        lock_memory: false,
        time_calls: false,
    };
    let res = match run(&sys, &opts) {
        Ok(r) => r,
        Err(e) => return Some(vec![format!("{name} ({paths:?}): {e}")]),
    };
    let mut bad = Vec::new();
    // A PIP resource nested with nothing is the kernel's in every system,
    // mixed or not.
    let nesting = rtsync_model::Facts::new(&sys).nesting;
    let lone_pip = (sys.resources.iter().enumerate()).any(|(r, res)| {
        res.protocol == rtsync_model::Protocol::Pip
            && !nesting.iter().any(|&(a, b, _)| a == r || b == r)
    });
    match paths {
        Paths::Recorded if res.kernel_pi => {
            bad.push("the recorded run took the kernel's PI futex".to_string())
        }
        Paths::Default if lone_pip && !res.kernel_pi => bad.push(
            "a PIP resource nested with nothing did not run on the kernel's PI futex".to_string(),
        ),
        _ => {}
    }
    match paths {
        Paths::Default => {
            seen.kernel_pi += res.kernel_pi as usize;
            seen.fast_default += res.fast_grants;
        }
        Paths::Recorded => seen.fast_recorded += res.fast_grants,
    }
    let grants: Vec<String> = res
        .log
        .iter()
        .filter_map(|(_, r)| match r {
            Record::Granted { task, resource } => Some(format!("{task} {resource}")),
            _ => None,
        })
        .collect();
    let want: Vec<String> = sc.grants.iter().map(|s| at(s).0).collect();
    if grants != want {
        bad.push(format!("grants: got {grants:?}, expected {want:?}"));
    }
    let helping: Vec<String> = res
        .log
        .iter()
        .filter_map(|(_, r)| match r {
            Record::Helping { task, cpu } => Some(format!("{task} {cpu}")),
            _ => None,
        })
        .collect();
    let want: Vec<String> = sc.helping.iter().map(|s| at(s).0).collect();
    if paths == Paths::Recorded && helping != want {
        bad.push(format!("helping: got {helping:?}, expected {want:?}"));
    }
    let done: Vec<String> = res
        .first_completions
        .iter()
        .map(|(t, _)| t.clone())
        .collect();
    let want: Vec<String> = sc.completions.iter().map(|s| at(s).0).collect();
    if done != want {
        bad.push(format!("completions: got {done:?}, expected {want:?}"));
    }
    // Priority changes per instant, as the simulator reports them: the
    // net change of each task over the instant (a raise and a return at
    // one instant, as a woken PCP request refused again, cancel out), and
    // none for a job that ends at that instant. An instant on real
    // threads: records less than `INSTANT` apart.
    let got = net_changes(&res.log);
    let mut want: Vec<(Time, String)> = sc
        .priorities
        .iter()
        .map(|s| {
            let (w, t) = at(s);
            (t, w)
        })
        .collect();
    want.sort();
    let mut want_groups: Vec<Vec<String>> = Vec::new();
    let mut last = None;
    for (t, w) in want {
        if last != Some(t) {
            want_groups.push(Vec::new());
            last = Some(t);
        }
        want_groups.last_mut().unwrap().push(w);
    }
    for g in &mut want_groups {
        g.sort();
    }
    // Component scenarios: the requests run on component threads, so
    // which thread served which request, in order, is compared; their
    // priorities are not (a requester's own thread keeps its priority
    // while a component thread serves it, at a priority the kernel's
    // inheritance gives: `tests/components.rs` checks those).
    let components = sys.components.is_some();
    if components {
        let got: Vec<String> = res
            .served
            .iter()
            .map(|s| format!("{} {}", s.lane, s.task))
            .collect();
        let mut want: Vec<(Time, String)> = sc
            .serves
            .iter()
            .map(|s| {
                let (w, from, _) =
                    rtsync_model::scenario::during(s).unwrap_or_else(|e| panic!("{e}"));
                (from, w)
            })
            .collect();
        want.sort_by_key(|w| w.0);
        let want: Vec<String> = want.into_iter().map(|w| w.1).collect();
        if got != want {
            bad.push(format!("serves: got {got:?}, expected {want:?}"));
        }
        if res.pool_overflows > 0 {
            bad.push(format!(
                "{} request(s) found their pool busy",
                res.pool_overflows
            ));
        }
    }
    if paths == Paths::Recorded && !components && got != want_groups {
        bad.push(format!("priorities: got {got:?}, expected {want_groups:?}"));
    }
    Some(
        bad.into_iter()
            .map(|b| format!("{name} ({paths:?}): {b}"))
            .collect(),
    )
}

/// Records closer than this are one instant (the scenarios' times are
/// whole milliseconds; zero-time operations on real threads take some
/// microseconds).
const INSTANT: Duration = Duration::from_micros(300);

/// Net priority changes per instant, each instant's sorted.
fn net_changes(log: &[(Duration, Record)]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    // The label shown per task (None: no job, or never changed).
    let mut shown: BTreeMap<String, String> = BTreeMap::new();
    let mut i = 0;
    while i < log.len() {
        let mut j = i + 1;
        while j < log.len() && log[j].0 - log[j - 1].0 < INSTANT {
            j += 1;
        }
        let mut now = shown.clone();
        let mut ended = Vec::new();
        for (_, r) in &log[i..j] {
            match r {
                Record::Priority { task, label } => {
                    now.insert(task.clone(), label.clone());
                }
                Record::Completed { task } => ended.push(task.clone()),
                _ => {}
            }
        }
        let mut changes = Vec::new();
        for (task, label) in &now {
            let was = shown.get(task).map_or("base", String::as_str);
            if label != was && !ended.contains(task) {
                changes.push(format!("{task} {label}"));
            }
        }
        for task in ended {
            now.remove(&task);
        }
        shown = now;
        if !changes.is_empty() {
            changes.sort();
            out.push(changes);
        }
        i = j;
    }
    out
}

/// A scenario passes when one of three runs conforms; differing attempts
/// are printed. The decisions are deterministic given the timing, but a
/// shared VM's timing is not: under load a vCPU can stall for longer than
/// a scenario step, and one such stall was seen to reorder two
/// completions on different CPUs 1 ms apart (before the scale was 4).
#[test]
fn scenarios_on_real_threads() {
    let Some(_rt) = realtime("scenarios_on_real_threads") else {
        return;
    };
    let files = files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios"));
    let mut ran = 0;
    let mut bad = Vec::new();
    let mut seen = Exercised::default();
    // `RTSYNC_SCENARIO=comp-` runs only the scenarios whose file name
    // holds it (a developer's loop; the count check is then skipped).
    let only = std::env::var("RTSYNC_SCENARIO").ok();
    for f in &files {
        if let Some(o) = &only
            && !f.to_string_lossy().contains(o.as_str())
        {
            continue;
        }
        for paths in [Paths::Recorded, Paths::Default] {
            if let Some(b) = check(f, paths, &mut seen) {
                ran += 1;
                bad.extend(b);
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    if only.is_some() {
        return;
    }
    assert!(ran >= 20, "only {ran} scenario runs");
    // The default runs did take the paths that recording turns off.
    assert!(
        seen.kernel_pi >= 5,
        "PIP scenarios on the kernel's PI futex: {}",
        seen.kernel_pi
    );
    assert!(
        seen.fast_default > seen.fast_recorded,
        "no raising fast grant in the default runs ({} fast grants, {} recorded)",
        seen.fast_default,
        seen.fast_recorded
    );
    eprintln!(
        "default paths: {} scenario(s) on the kernel's PI futex, {} fast-path grant(s) ({} when recorded)",
        seen.kernel_pi, seen.fast_default, seen.fast_recorded
    );
}
