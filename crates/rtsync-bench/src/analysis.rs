//! `rtsync bench analysis`: task sets analysed per second.
//!
//! The sets are generated before the clock starts; each measurement runs
//! the full analysis (blocking bounds and the partitioned-FP response-time
//! fixed point) single-threaded, then the same sets across all cores with
//! rayon. The shapes are those of DESIGN.md and issue 2, so the figures can
//! be set beside SchedCAT's (see docs/PERFORMANCE.md).

use crate::Error;
use rayon::prelude::*;
use rtsync_analysis::generate::{GenConfig, generate};
use rtsync_analysis::{Heuristic, Options, TestSelection, Verdict, verdict};
use rtsync_model::{Protocol, System};
use std::time::Instant;

/// What `rtsync bench analysis` measures.
#[derive(Clone, Debug)]
pub struct Config {
    /// Task sets per shape and protocol.
    pub sets: u64,
    /// The generator's seed.
    pub seed: u64,
    /// Skip the multi-threaded (rayon) measurement.
    pub single_only: bool,
    /// Only this shape (`a` or `b`).
    pub shape: Option<String>,
    /// Only this protocol (`mpcp` or `dpcp`).
    pub protocol: Option<String>,
}

struct Shape {
    key: &'static str,
    name: &'static str,
    cpus: usize,
    tasks: usize,
    util: f64,
    resources: usize,
}

const SHAPES: [Shape; 2] = [
    Shape {
        key: "a",
        name: "(a) m=4 n=16 U=2.0 4 res",
        cpus: 4,
        tasks: 16,
        util: 2.0,
        resources: 4,
    },
    Shape {
        key: "b",
        name: "(b) m=8 n=80 U=5.6 8 res",
        cpus: 8,
        tasks: 80,
        util: 5.6,
        resources: 8,
    },
];

fn sets(shape: &Shape, p: Protocol, n: u64, seed: u64) -> Vec<System> {
    let c = GenConfig {
        cpus: shape.cpus,
        tasks: shape.tasks,
        utilization: shape.util,
        resources: shape.resources,
        protocol: p,
        partition: Some(Heuristic::WorstFit),
        ..GenConfig::default()
    };
    (0..n).map(|i| generate(&c, seed, i)).collect()
}

/// One set's verdict, as a sweep asks for it: the response-time analysis
/// stops at the first miss and builds no per-task rows
/// ([`rtsync_analysis::verdict`]; SchedCAT's `is_schedulable` likewise
/// returns a verdict alone).
fn once(s: &System) -> bool {
    let o = Options {
        tests: TestSelection::Rta,
        first_miss: true,
        ..Options::default()
    };
    matches!(verdict(s, &o), Ok(Verdict::Schedulable))
}

/// Measures and prints the table.
pub fn run(a: Config) -> Result<(), Error> {
    if a.sets == 0 {
        return Err(Error::BadInput("--sets must be at least 1".into()));
    }
    println!(
        "rtsync bench analysis: {} task sets per shape and protocol, seed {}",
        a.sets, a.seed
    );
    println!(
        "RandFixedSum utilizations, log-uniform periods 10ms..1s, access probability 0.3, sections 10..100us, WFD partitioning"
    );
    println!(
        "threads for the parallel column: {}\n",
        rayon::current_num_threads()
    );
    let shapes: Vec<&Shape> = SHAPES
        .iter()
        .filter(|s| a.shape.as_deref().is_none_or(|k| k == s.key))
        .collect();
    let protocols: Vec<Protocol> = [Protocol::Mpcp, Protocol::Dpcp]
        .into_iter()
        .filter(|p| a.protocol.as_deref().is_none_or(|k| k == p.to_string()))
        .collect();
    let bar = indicatif::ProgressBar::new((shapes.len() * protocols.len()) as u64);
    let mut rows = Vec::new();
    for shape in shapes {
        for &p in &protocols {
            let sets = sets(shape, p, a.sets, a.seed);
            // Warm-up pass (also the verdict count).
            let ok = sets.iter().filter(|s| once(s)).count();
            let t0 = Instant::now();
            let mut acc = 0usize;
            for s in &sets {
                acc += once(s) as usize;
            }
            let single = t0.elapsed();
            assert_eq!(acc, ok, "analysis must be deterministic");
            let par = if a.single_only {
                None
            } else {
                let t1 = Instant::now();
                let n: usize = sets.par_iter().map(|s| once(s) as usize).sum();
                assert_eq!(n, ok);
                Some(t1.elapsed())
            };
            rows.push((shape.name, p, ok, single, par));
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let mut tb = rtsync_report::table::Table::new(&[
        "shape",
        "protocol",
        "schedulable",
        "sets/s (1 thread)",
        "us/set",
        "sets/s (all threads)",
    ])
    .left(0)
    .left(1);
    for (name, p, ok, single, par) in rows {
        let sps = a.sets as f64 / single.as_secs_f64();
        tb.row(vec![
            name.into(),
            format!("{p} + P-FP RTA"),
            format!("{ok}/{}", a.sets),
            format!("{sps:.0}"),
            format!("{:.1}", 1e6 / sps),
            par.map_or("-".into(), |d| {
                format!("{:.0}", a.sets as f64 / d.as_secs_f64())
            }),
        ]);
    }
    print!("{}", tb.render());
    println!("\nCompare with SchedCAT on the same shapes: see docs/PERFORMANCE.md.");
    Ok(())
}
