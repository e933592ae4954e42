//! The conformance scenario files of `scenarios/` (format in
//! `scenarios/README.md`): a spec, staged first releases and the outcome
//! derived by hand. The simulator reproduces them exactly; the Linux
//! runtime reproduces their order of decisions. One parser for both.

use crate::time::TimeError;
use crate::{System, Time, load_str, parse_str};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A conformance scenario: a spec, a horizon, and the outcome derived by
/// hand (grant order, completions, priority changes) that the simulator
/// and the runtime must reproduce.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// What the scenario shows, and where its outcome comes from.
    pub description: String,
    /// How long to simulate or run (`"20ms"`).
    pub horizon: String,
    /// False: the spec is one validation rejects (a lock-order cycle the
    /// scenario is about); it is parsed without cross-element checks.
    #[serde(default = "yes")]
    pub validate: bool,
    /// First release of named tasks (`t = "2ms"`); others at 0.
    #[serde(default)]
    pub offsets: BTreeMap<String, String>,
    /// Grants in order, `"time task resource"`.
    pub grants: Vec<String>,
    /// Completions of each task's first job, `"time task"`.
    pub completions: Vec<String>,
    /// Effective priority changes, `"time task label"`.
    pub priorities: Vec<String>,
    /// Spinning intervals, `"from to task"`.
    #[serde(default)]
    pub spin: Vec<String>,
    /// MrsP helping placements, `"time task cpu"`.
    #[serde(default)]
    pub helping: Vec<String>,
    /// The cycle of a deadlock the scenario ends in, `"task resource"`.
    #[serde(default)]
    pub deadlock: Vec<String>,
    /// When that deadlock is detected.
    pub deadlock_at: Option<String>,
    /// Requests served by component threads (component specs), each
    /// `"THREAD TASK@FROM..TO"`: the thread (`C.i`, `C.i#k`) serving the
    /// task's request from when it took it to its reply; compared as a
    /// set.
    #[serde(default)]
    pub serves: Vec<String>,
    /// The system, as spec text.
    pub spec: String,
}

fn yes() -> bool {
    true
}

/// `"WHAT@FROM..TO"` -> `(WHAT, from, to)`.
pub fn during(s: &str) -> Result<(String, Time, Time), String> {
    let (what, span) = at_text(s)?;
    let (a, b) = span
        .split_once("..")
        .ok_or_else(|| format!("`{s}` lacks FROM..TO after @"))?;
    let t = |x: &str| Time::parse(x.trim()).map_err(|e: TimeError| format!("`{s}`: {e}"));
    Ok((what, t(a)?, t(b)?))
}

fn at_text(s: &str) -> Result<(String, &str), String> {
    let (what, t) = s
        .rsplit_once('@')
        .ok_or_else(|| format!("`{s}` lacks @TIME"))?;
    Ok((what.trim().to_string(), t))
}

/// `"WHAT@TIME"` -> `(WHAT, time)`.
pub fn at(s: &str) -> Result<(String, Time), String> {
    let (what, t) = at_text(s)?;
    let t = Time::parse(t.trim()).map_err(|e: TimeError| format!("`{s}`: {e}"))?;
    Ok((what, t))
}

impl Scenario {
    /// Reads a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The system, validated unless the scenario says otherwise (then
    /// validation must reject it).
    pub fn system(&self, name: &str) -> Result<System, String> {
        if self.validate {
            return load_str(&self.spec, Some(name))
                .map(|(s, _)| s)
                .map_err(|d| format!("{name}: spec rejected:\n{d}"));
        }
        if load_str(&self.spec, Some(name)).is_ok() {
            return Err(format!(
                "{name}: says validate = false but the spec is valid"
            ));
        }
        parse_str(&self.spec, Some(name)).map_err(|d| format!("{name}: {d}"))
    }

    /// The horizon as a time.
    pub fn horizon(&self) -> Result<Time, String> {
        Time::parse(self.horizon.trim()).map_err(|e| format!("horizon: {e}"))
    }

    /// First release per task of `sys`.
    pub fn offsets(&self, sys: &System) -> Result<Vec<Time>, String> {
        let mut v = vec![Time::ZERO; sys.tasks.len()];
        for (task, t) in &self.offsets {
            let i = sys
                .task_by_name(task)
                .ok_or_else(|| format!("offset for unknown task {task}"))?;
            v[i] = Time::parse(t.trim()).map_err(|e| format!("offset of {task}: {e}"))?;
        }
        Ok(v)
    }
}

/// The scenario files of `dir`, sorted by name.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
