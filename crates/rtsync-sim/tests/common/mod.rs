//! What the simulator's test files share: loading a spec, its analytic
//! bounds, and a run under a plan.

#![allow(dead_code)] // each test file uses its own part

use rtsync_analysis::{Analysis, BoundForm, Options as AOpts, Response, analyze};
use rtsync_model::{System, Time, load_str};
use rtsync_sim::{Options, Plan, SimResult, simulate};
use std::sync::Arc;

/// A validated system from spec text.
pub fn sys(src: &str) -> System {
    load_str(src, None).unwrap_or_else(|d| panic!("{d}")).0
}

/// Each task's analytic response-time bound (all must be bounded).
pub fn bounds(s: &System) -> Vec<Time> {
    bounds_in(s, BoundForm::Classic).1
}

/// `s` analysed with the bounds of `form`, and each task's response-time
/// bound (all must be bounded).
pub fn bounds_in(s: &System, form: BoundForm) -> (Analysis, Vec<Time>) {
    let an = analyze(
        s,
        &AOpts {
            form,
            ..AOpts::default()
        },
    )
    .unwrap();
    let b = an
        .result
        .tasks
        .iter()
        .map(|t| match t.response {
            Response::Bounded(r) => r,
            r => panic!("{} not bounded: {r}", t.name),
        })
        .collect();
    (an, b)
}

/// Simulates `s` under `plan`, long enough for every planned job.
pub fn run_plan(s: &System, plan: Plan) -> SimResult {
    let opts = Options {
        horizon: plan.horizon(s),
        plan: Some(Arc::new(plan)),
        ..Options::default()
    };
    simulate(s, &opts).unwrap().0
}

/// A system of rtsync-analysis's hand-worked examples (`tests/data`).
pub fn data(name: &str) -> System {
    sys(&data_text(name))
}

/// The text of [`data`]'s file `name`.
pub fn data_text(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rtsync-analysis/tests/data")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}
