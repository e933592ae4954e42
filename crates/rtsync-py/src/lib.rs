//! rtsync's Python extension module, `rtsync._rtsync`.
//!
//! The compute stays in the Rust crates; this module only moves words in
//! and results out. Every result leaves as JSON text that the Python
//! package (`python/rtsync`) turns into typed objects, so the two sides
//! share one schema, the one `rtsync analyze --format json` documents
//! (docs/analysis-json.md), and no Python object is built while the
//! interpreter lock is released. Analysis, simulation, generation and the
//! experiments all run with the lock released ([`Python::detach`]): Python
//! threads sweeping in parallel use every core.
//!
//! Errors: a system description rtsync refuses raises `SpecError` (a
//! `ValueError`) whose `line`, `column`, `key` and `hint` name the first
//! error and whose `diagnostics` list them all; any other bad argument
//! raises `ValueError` with what was wrong and what to write instead.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rtsync_analysis::generate::{ShapeSpec, generate as draw};
use rtsync_analysis::{BoundForm, Heuristic, Options, Profile, TestSelection};
use rtsync_experiment::shard::{self, Experiment, Part, Shard};
use rtsync_model::{Diagnostics, Protocol, Severity, Time};
use serde_json::json;

pyo3::create_exception!(
    _rtsync,
    SpecError,
    PyValueError,
    "A system description rtsync refuses: `line`, `column`, `key` and `hint` name the first error, `diagnostics` lists every finding."
);

/// The `SpecError` for `d`, its attributes set from the first error;
/// `diagnostics` is every finding as [`diagnostics_json`] writes it.
fn spec_error(py: Python<'_>, d: &Diagnostics) -> PyErr {
    let err = SpecError::new_err(d.to_string().trim_end().to_string());
    let value = err.value(py);
    let first = d.0.iter().find(|x| x.is_error()).or(d.0.first());
    let set = || -> PyResult<()> {
        let list = py
            .import("json")?
            .call_method1("loads", (diagnostics_json(d),))?;
        value.setattr("diagnostics", list)?;
        value.setattr("line", first.and_then(|x| x.pos).map(|p| p.line))?;
        value.setattr("column", first.and_then(|x| x.pos).map(|p| p.col))?;
        value.setattr("key", first.map(|x| x.key.clone()))?;
        value.setattr("file", first.and_then(|x| x.file.clone()))?;
        value.setattr("hint", first.and_then(|x| x.hint.clone()))?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

fn bad(msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(msg.to_string())
}

/// A validated system: tasks, resources and their protocols, platform.
/// Immutable; build a new one to change it.
#[pyclass(frozen, module = "rtsync._rtsync")]
pub struct System {
    sys: rtsync_model::System,
    /// Where it came from, as error messages and reports name it.
    label: String,
    /// The loader's warnings and notes, as JSON.
    warnings: String,
}

/// Every finding of `d` as JSON: what `SpecError.diagnostics` and
/// `System.warnings_json` hold.
fn diagnostics_json(d: &Diagnostics) -> String {
    let v: Vec<serde_json::Value> =
        d.0.iter()
            .map(|x| {
                json!({
                    "severity": match x.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                        Severity::Note => "note",
                    },
                    "file": x.file,
                    "line": x.pos.map(|p| p.line),
                    "column": x.pos.map(|p| p.col),
                    "key": x.key,
                    "message": x.message,
                    "hint": x.hint,
                })
            })
            .collect();
    serde_json::Value::Array(v).to_string()
}

impl System {
    fn of(sys: rtsync_model::System, label: String, d: &Diagnostics) -> System {
        System {
            sys,
            label,
            warnings: diagnostics_json(d),
        }
    }
}

#[pymethods]
impl System {
    /// The system's name.
    #[getter]
    fn name(&self) -> Option<String> {
        self.sys.name.clone()
    }

    /// Where the system came from (a file, "<string>", a generator draw).
    #[getter]
    fn label(&self) -> String {
        self.label.clone()
    }

    /// CPUs of the platform.
    #[getter]
    fn cpus(&self) -> usize {
        self.sys.platform.cpus
    }

    /// `fp` or `edf`.
    #[getter]
    fn scheduler(&self) -> String {
        self.sys.platform.scheduler.to_string()
    }

    /// Task names, in the system's order.
    #[getter]
    fn task_names(&self) -> Vec<String> {
        self.sys.tasks.iter().map(|t| t.name.clone()).collect()
    }

    /// Resource names and their protocols, in the system's order.
    #[getter]
    fn resources(&self) -> Vec<(String, String)> {
        self.sys
            .resources
            .iter()
            .map(|r| (r.name.clone(), r.protocol.to_string()))
            .collect()
    }

    /// Each task's CPU (`None` where the spec leaves it to partitioning).
    #[getter]
    fn task_cpus(&self) -> Vec<Option<usize>> {
        self.sys.tasks.iter().map(|t| t.cpu).collect()
    }

    /// The loader's warnings and notes, as JSON.
    #[getter]
    fn warnings_json(&self) -> String {
        self.warnings.clone()
    }

    /// The system as a spec file (TOML) that loads back to it.
    fn to_toml(&self) -> String {
        rtsync_model::to_toml(&self.sys)
    }

    /// The same system with every resource under `protocol`, validated.
    fn with_protocol(&self, py: Python<'_>, protocol: &str) -> PyResult<System> {
        let p: Protocol = protocol.parse().map_err(bad)?;
        let switched = self.sys.with_protocol(p);
        let d = rtsync_model::validate(&switched);
        if d.has_errors() {
            return Err(spec_error(py, &d));
        }
        Ok(System::of(
            switched,
            format!("{}, all resources under {p}", self.label),
            &d,
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<rtsync.System {:?}: {} CPU(s), {}, {} task(s), {} resource(s)>",
            self.sys.name.as_deref().unwrap_or(&self.label),
            self.sys.platform.cpus,
            self.sys.platform.scheduler,
            self.sys.tasks.len(),
            self.sys.resources.len()
        )
    }
}

/// Parses and validates a spec's TOML text; `file` names it in errors.
#[pyfunction]
#[pyo3(signature = (text, file = None))]
fn loads(py: Python<'_>, text: &str, file: Option<&str>) -> PyResult<System> {
    let r = py.detach(|| rtsync_model::load_str(text, file));
    match r {
        Ok((sys, d)) => Ok(System::of(sys, file.unwrap_or("<string>").to_string(), &d)),
        Err(d) => Err(spec_error(py, &d)),
    }
}

/// Loads a spec file (includes resolved), validated.
#[pyfunction]
fn load(py: Python<'_>, path: std::path::PathBuf) -> PyResult<System> {
    let r = py.detach(|| rtsync_model::load_file(&path));
    match r {
        Ok((sys, d)) => Ok(System::of(sys, path.display().to_string(), &d)),
        Err(d) => Err(spec_error(py, &d)),
    }
}

/// A system from the JSON text of a dictionary with the spec's keys (as
/// the TOML file has them): it is written as TOML and loaded, so it is
/// checked exactly as a file is; errors name the key.
#[pyfunction]
fn from_json(py: Python<'_>, text: &str) -> PyResult<System> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(bad)?;
    let t: toml::Value = serde_json::from_value(v).map_err(|e| {
        bad(format!(
            "not a spec (TOML has no null; leave the key out): {e}"
        ))
    })?;
    let src = toml::to_string(&t).map_err(|e| bad(format!("not a spec: {e}")))?;
    loads(py, &src, Some("<dict>"))
}

/// What `rtsync check` prints for the system, placed by `partition`
/// (`wfd`, `ffd`, `bfd`, `sync`) where the spec leaves tasks without a
/// CPU.
#[pyfunction]
#[pyo3(signature = (system, partition = "wfd"))]
fn check(py: Python<'_>, system: &System, partition: &str) -> PyResult<String> {
    let h: Heuristic = partition.parse().map_err(bad)?;
    let placed = py.detach(|| rtsync_analysis::place(&system.sys, h).map(|c| c.into_owned()));
    match placed {
        Ok(p) => Ok(rtsync_report::analysis::facts(&p, &system.label)),
        Err(d) => Err(spec_error(py, &d)),
    }
}

/// The system placed on its CPUs by `heuristic`.
#[pyfunction]
#[pyo3(signature = (system, heuristic = "wfd"))]
fn partition(py: Python<'_>, system: &System, heuristic: &str) -> PyResult<System> {
    let h: Heuristic = heuristic.parse().map_err(bad)?;
    let placed = py.detach(|| rtsync_analysis::place(&system.sys, h).map(|c| c.into_owned()));
    match placed {
        Ok(p) => Ok(System::of(
            p,
            format!("{}, placed by {heuristic}", system.label),
            &Diagnostics::default(),
        )),
        Err(d) => Err(spec_error(py, &d)),
    }
}

/// The analysis, as `rtsync analyze --format json` prints it.
#[pyfunction]
#[pyo3(signature = (system, test = "all", overheads = None, analysis = "classic", partition = "wfd", first_miss = false))]
fn analyze(
    py: Python<'_>,
    system: &System,
    test: &str,
    overheads: Option<&str>,
    analysis: &str,
    partition: &str,
    first_miss: bool,
) -> PyResult<String> {
    let tests: TestSelection = test.parse().map_err(bad)?;
    if let Some(why) = tests.inapplicable(system.sys.platform.scheduler) {
        // As `rtsync analyze` refuses it: such a test says nothing of the
        // system.
        return Err(bad(format!(
            "test `{test}` does not apply to {}: {why}; the tests that do: {}",
            system.label,
            TestSelection::fitting(system.sys.platform.scheduler)
                .map(|t| format!("test=\"{}\"", t.name()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let form: BoundForm = analysis.parse().map_err(bad)?;
    let heuristic: Heuristic = partition.parse().map_err(bad)?;
    let overheads = match overheads {
        Some(t) => Some(Profile::from_toml(t, Some("overheads")).map_err(|d| spec_error(py, &d))?),
        None => None,
    };
    let opts = Options {
        tests,
        overheads,
        heuristic,
        first_miss,
        form,
    };
    let label = system.label.clone();
    let r = py.detach(|| {
        rtsync_analysis::analyze(&system.sys, &opts)
            .map(|a| rtsync_report::analysis::json(&a, &label).to_string())
    });
    r.map_err(|d| spec_error(py, &d))
}

/// A simulation: per-task results and, with `trace`, every event.
#[pyfunction]
#[pyo3(signature = (system, horizon = "1s", seed = 0, exec = "wcet", arrivals = "periodic", trace = false, partition = "wfd"))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
fn simulate(
    py: Python<'_>,
    system: &System,
    horizon: &str,
    seed: u64,
    exec: &str,
    arrivals: &str,
    trace: bool,
    partition: &str,
) -> PyResult<String> {
    let horizon = Time::parse(horizon).map_err(|e| bad(format!("horizon: {e}")))?;
    let opts = rtsync_sim::Options {
        horizon,
        seed,
        exec: exec.parse().map_err(|e| bad(format!("exec: {e}")))?,
        arrivals: arrivals
            .parse()
            .map_err(|e| bad(format!("arrivals: {e}")))?,
        record: trace,
        ..rtsync_sim::Options::default()
    };
    let h: Heuristic = partition.parse().map_err(bad)?;
    let placed = py
        .detach(|| rtsync_analysis::place(&system.sys, h).map(|c| c.into_owned()))
        .map_err(|d| spec_error(py, &d))?;
    let r = py.detach(|| {
        rtsync_sim::simulate(&placed, &opts).map(|(res, rec)| {
            json!({
                "result": res,
                "trace": rec.map(|r| r.events),
            })
            .to_string()
        })
    });
    r.map_err(|e| bad(e.to_string()))
}

/// `count` random systems of a shape (the JSON of its keywords), from
/// `seed`: system `i` is the same for the same seed and shape wherever it
/// is drawn.
#[pyfunction]
#[pyo3(signature = (shape_json, protocol, utilization, count, seed, first = 0))]
fn generate(
    py: Python<'_>,
    shape_json: &str,
    protocol: &str,
    utilization: f64,
    count: u64,
    seed: u64,
    first: u64,
) -> PyResult<Vec<System>> {
    let shape: ShapeSpec =
        serde_json::from_str(shape_json).map_err(|e| bad(format!("shape: {e}")))?;
    let p: Protocol = protocol.parse().map_err(bad)?;
    let c = shape.config(p, utilization).map_err(bad)?;
    let systems = py.detach(|| {
        (first..first + count)
            .map(|i| draw(&c, seed, i))
            .collect::<Vec<_>>()
    });
    Ok(systems
        .into_iter()
        .zip(first..)
        .map(|(s, i)| {
            System::of(
                s,
                format!("generated (seed {seed}, system {i})"),
                &Diagnostics::default(),
            )
        })
        .collect())
}

fn experiment(kind: &str, spec_json: &str) -> PyResult<Experiment> {
    let e = match kind {
        "schedulability" => Experiment::Schedulability(
            serde_json::from_str(spec_json).map_err(|e| bad(format!("schedulability: {e}")))?,
        ),
        "soundness" => Experiment::Soundness(
            serde_json::from_str(spec_json).map_err(|e| bad(format!("soundness: {e}")))?,
        ),
        o => {
            return Err(bad(format!(
                "unknown experiment `{o}`; expected schedulability or soundness"
            )));
        }
    };
    Ok(e)
}

/// How many jobs (systems) the experiment has; raises on a bad spec.
#[pyfunction]
fn experiment_jobs(kind: &str, spec_json: &str) -> PyResult<u64> {
    let p = experiment(kind, spec_json)?.prepare().map_err(bad)?;
    Ok(p.jobs())
}

/// Runs shard `index` of `count` of the experiment (on all cores, the
/// interpreter lock released); returns its part file's text.
#[pyfunction]
fn run_shard(
    py: Python<'_>,
    kind: &str,
    spec_json: &str,
    index: u64,
    count: u64,
) -> PyResult<String> {
    let e = experiment(kind, spec_json)?;
    let shard: Shard = format!("{index}/{count}").parse().map_err(bad)?;
    py.detach(|| {
        e.prepare()
            .and_then(|p| p.run(shard, &|| {}))
            .map(|part| part.to_json())
    })
    .map_err(bad)
}

/// Adds part files' texts up; returns the outcome's files (name to
/// content) and figures as JSON.
#[pyfunction]
fn merge(py: Python<'_>, parts: Vec<String>) -> PyResult<String> {
    py.detach(|| {
        let parts: Vec<(String, Part)> = parts
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let name = format!("part {k}");
                Part::from_json(t, &name).map(|p| (name, p))
            })
            .collect::<Result<_, _>>()?;
        let outcome = shard::merge(&parts)?;
        let files: serde_json::Map<String, serde_json::Value> = outcome
            .files()
            .into_iter()
            .map(|(n, c)| (n.to_string(), serde_json::Value::String(c)))
            .collect();
        let figures = match &outcome {
            shard::Outcome::Schedulability { cells, .. } => json!({
                "experiment": "schedulability",
                "cells": cells.iter().map(|c| json!({
                    "utilization": c.utilization,
                    "curve": c.curve.to_string(),
                    "systems": c.sets,
                    "schedulable": c.schedulable,
                })).collect::<Vec<_>>(),
            }),
            shard::Outcome::Soundness { cases, tallies, .. } => json!({
                "experiment": "soundness",
                "cases": cases.iter().zip(tallies).map(|(c, t)| json!({
                    "drawn": c.drawn.to_string(),
                    "scheduler": c.scheduler.to_string(),
                    "systems": t.systems,
                    "schedulable": t.schedulable,
                    "simulations": t.simulations,
                    "events": t.events,
                    "violations": t.violations,
                    "tightness_max": t.quantile(1.0),
                    "tightness_p99": t.quantile(0.99),
                })).collect::<Vec<_>>(),
            }),
        };
        let shards = parts.first().map_or(0, |(_, p)| p.shard.count);
        Ok::<_, String>(json!({"files": files, "figures": figures, "shards": shards}).to_string())
    })
    .map_err(bad)
}

/// The protocols rtsync knows, by name.
#[pyfunction]
fn protocols() -> Vec<&'static str> {
    Protocol::ALL.map(Protocol::name).to_vec()
}

/// The rtsync version the module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _rtsync(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SpecError", m.py().get_type::<SpecError>())?;
    m.add_class::<System>()?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(from_json, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(partition, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(run_shard, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(protocols, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
