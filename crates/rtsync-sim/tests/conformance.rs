//! Conformance: every scenario in `scenarios/` (hand-derived grant order,
//! completions, priority changes, spinning, helping, deadlock) reproduced
//! exactly by the simulator.

use rtsync_model::Time;
use rtsync_model::scenario::{Scenario, files};
use rtsync_sim::{Event, Options, simulate};
use std::path::{Path, PathBuf};

fn time(s: &str) -> Time {
    Time::parse(s.trim()).unwrap_or_else(|e| panic!("bad time `{s}`: {e}"))
}

fn at(s: &str) -> (String, Time) {
    rtsync_model::scenario::at(s).unwrap_or_else(|e| panic!("{e}"))
}

fn scenarios() -> Vec<PathBuf> {
    files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios"))
}

/// Runs one scenario; returns the mismatches.
fn run(path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let sc = Scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
    let sys = sc.system(&name).unwrap_or_else(|e| panic!("{e}"));
    let offsets = sc.offsets(&sys).unwrap_or_else(|e| panic!("{name}: {e}"));
    let opts = Options {
        horizon: time(&sc.horizon),
        record: true,
        offsets,
        ..Options::default()
    };
    let (res, rec) = simulate(&sys, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    let rec = rec.unwrap();
    let mut bad = Vec::new();
    for v in &res.violations {
        bad.push(format!("invariant broken at {}: {}", v.at, v.what));
    }
    // Grants, in order.
    let grants: Vec<(String, Time)> = rec
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Granted { t, task, resource } => Some((format!("{task} {resource}"), *t)),
            _ => None,
        })
        .collect();
    let want: Vec<(String, Time)> = sc.grants.iter().map(|s| at(s)).collect();
    if grants != want {
        bad.push(format!("grants: got {grants:?}, expected {want:?}"));
    }
    // First completion of each task, in order.
    let mut seen = Vec::new();
    let completions: Vec<(String, Time)> = rec
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Complete { t, task, .. } if !seen.contains(task) => {
                seen.push(task.clone());
                Some((task.clone(), *t))
            }
            _ => None,
        })
        .collect();
    let want: Vec<(String, Time)> = sc.completions.iter().map(|s| at(s)).collect();
    if completions != want {
        bad.push(format!(
            "completions: got {completions:?}, expected {want:?}"
        ));
    }
    // Priority changes, as a set per instant.
    let mut prios: Vec<(Time, String)> = rec
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Priority { t, task, priority } => Some((*t, format!("{task} {priority}"))),
            _ => None,
        })
        .collect();
    let mut want: Vec<(Time, String)> = sc
        .priorities
        .iter()
        .map(|s| {
            let (w, t) = at(s);
            (t, w)
        })
        .collect();
    prios.sort();
    want.sort();
    if prios != want {
        bad.push(format!("priorities: got {prios:?}, expected {want:?}"));
    }
    for s in &sc.spin {
        let (task, t) = s.rsplit_once(' ').expect("TASK TIME");
        let i = sys.task_by_name(task).expect("spin of a known task");
        let got = res.tasks[i].max_blocking.spin;
        if got != time(t) {
            bad.push(format!("spin of {task}: got {got}, expected {t}"));
        }
    }
    let helping: Vec<(String, Time)> = rec
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Dispatch {
                t,
                cpu,
                task: Some(task),
                helping: true,
            } => Some((format!("{task} {cpu}"), *t)),
            _ => None,
        })
        .collect();
    let want: Vec<(String, Time)> = sc.helping.iter().map(|s| at(s)).collect();
    if helping != want {
        bad.push(format!("helping: got {helping:?}, expected {want:?}"));
    }
    // Requests served by component threads, as a set.
    let mut serves: Vec<(Time, Time, String)> = rec
        .serves
        .iter()
        .map(|s| {
            (
                s.start,
                s.end,
                format!("{} {}", s.lane, sys.tasks[s.task].name),
            )
        })
        .collect();
    let mut want: Vec<(Time, Time, String)> = sc
        .serves
        .iter()
        .map(|s| {
            let (w, a, b) = rtsync_model::scenario::during(s).unwrap_or_else(|e| panic!("{e}"));
            (a, b, w)
        })
        .collect();
    serves.sort();
    want.sort();
    if serves != want {
        bad.push(format!("serves: got {serves:?}, expected {want:?}"));
    }
    match (&res.deadlock, sc.deadlock.is_empty()) {
        (None, true) => {}
        (None, false) => bad.push("expected a deadlock, none happened".into()),
        (Some(d), true) => bad.push(format!("unexpected {d}")),
        (Some(d), false) => {
            let got: Vec<String> = d
                .cycle
                .iter()
                .map(|(t, r)| format!("{t} waits {r}"))
                .collect();
            if got != sc.deadlock {
                bad.push(format!(
                    "deadlock cycle: got {got:?}, expected {:?}",
                    sc.deadlock
                ));
            }
            if let Some(t) = &sc.deadlock_at
                && d.at != time(t)
            {
                bad.push(format!("deadlock at {}, expected {t}", d.at));
            }
        }
    }
    bad.into_iter().map(|b| format!("{name}: {b}")).collect()
}

#[test]
fn every_scenario_is_reproduced_exactly() {
    let all = scenarios();
    assert!(
        all.len() >= 12,
        "expected the scenario files, found {}",
        all.len()
    );
    let bad: Vec<String> = all.iter().flat_map(|p| run(p)).collect();
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}
