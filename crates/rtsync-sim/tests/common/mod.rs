//! What the simulator's test files share: loading a spec, its analytic
//! bounds, and a run under a plan.

#![allow(dead_code)] // each test file uses its own part

use rtsync_analysis::{Options as AOpts, Response, analyze};
use rtsync_model::{System, Time, load_str};
use rtsync_sim::{Options, Plan, SimResult, simulate};
use std::sync::Arc;

/// A validated system from spec text.
pub fn sys(src: &str) -> System {
    load_str(src, None).unwrap_or_else(|d| panic!("{d}")).0
}

/// Each task's analytic response-time bound (all must be bounded).
pub fn bounds(s: &System) -> Vec<Time> {
    analyze(s, &AOpts::default())
        .unwrap()
        .result
        .tasks
        .iter()
        .map(|t| match t.response {
            Response::Bounded(r) => r,
            r => panic!("not bounded: {r}"),
        })
        .collect()
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
