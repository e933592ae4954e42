//! Helpers shared by the analysis tests.
#![allow(dead_code)]

use rtsync_analysis::{Options, Response, SystemResult, TaskResult, analyze};
use rtsync_model::{System, Time, load_str};

pub fn sys(src: &str) -> System {
    load_str(src, None).unwrap_or_else(|d| panic!("{d}")).0
}

pub fn run(s: &System) -> SystemResult {
    analyze(s, &Options::default())
        .unwrap_or_else(|d| panic!("{d}"))
        .result
}

pub fn task<'a>(r: &'a SystemResult, name: &str) -> &'a TaskResult {
    r.tasks.iter().find(|t| t.name == name).unwrap()
}

pub fn us(x: u64) -> Time {
    Time::from_us(x)
}

pub fn bounded(r: Response) -> Time {
    r.bounded().unwrap_or_else(|| panic!("not bounded: {r}"))
}

pub fn example(name: &str) -> System {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let src = std::fs::read_to_string(&p).unwrap();
    load_str(&src, None).unwrap().0
}
