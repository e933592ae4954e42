//! Conformance: every scenario in `scenarios/` (hand-derived grant order,
//! completions, priority changes, spinning, helping, deadlock) reproduced
//! exactly by the simulator.

use rtsync_model::{Time, load_str, parse_str};
use rtsync_sim::{Event, Options, simulate};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    #[allow(dead_code)]
    description: String,
    horizon: String,
    #[serde(default = "yes")]
    validate: bool,
    #[serde(default)]
    offsets: BTreeMap<String, String>,
    grants: Vec<String>,
    completions: Vec<String>,
    priorities: Vec<String>,
    #[serde(default)]
    spin: Vec<String>,
    #[serde(default)]
    helping: Vec<String>,
    #[serde(default)]
    deadlock: Vec<String>,
    deadlock_at: Option<String>,
    spec: String,
}

fn yes() -> bool {
    true
}

fn time(s: &str) -> Time {
    Time::parse(s.trim()).unwrap_or_else(|e| panic!("bad time `{s}`: {e}"))
}

/// `"WHAT@TIME"` -> `(WHAT, time)`.
fn at(s: &str) -> (String, Time) {
    let (what, t) = s
        .rsplit_once('@')
        .unwrap_or_else(|| panic!("`{s}` lacks @TIME"));
    (what.trim().to_string(), time(t))
}

fn scenarios() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scenarios folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

/// Runs one scenario; returns the mismatches.
fn run(path: &PathBuf) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let sc: Scenario = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let sys = if sc.validate {
        load_str(&sc.spec, Some(&name))
            .unwrap_or_else(|d| panic!("{name}: spec rejected:\n{d}"))
            .0
    } else {
        // The scenario runs what validation rejects; check that it does.
        assert!(
            load_str(&sc.spec, Some(&name)).is_err(),
            "{name}: says validate = false but the spec is valid"
        );
        parse_str(&sc.spec, Some(&name)).unwrap_or_else(|d| panic!("{name}: {d}"))
    };
    let mut offsets = vec![Time::ZERO; sys.tasks.len()];
    for (task, t) in &sc.offsets {
        let i = sys
            .task_by_name(task)
            .unwrap_or_else(|| panic!("{name}: offset for unknown task {task}"));
        offsets[i] = time(t);
    }
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
    let bad: Vec<String> = all.iter().flat_map(run).collect();
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}
