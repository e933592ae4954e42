//! `rtsync bench analysis`: task sets analysed per second; `rtsync bench
//! channels` is in [`super::bench_channels`].
//!
//! The sets are generated before the clock starts; each measurement runs
//! the full analysis (blocking bounds and the partitioned-FP response-time
//! fixed point) single-threaded, then the same sets across all cores with
//! rayon. The shapes are those of DESIGN.md and issue 2, so the figures can
//! be set beside SchedCAT's (see docs/PERFORMANCE.md).

use super::{BAD_INPUT, OK};
use rayon::prelude::*;
use rtsync_analysis::generate::{GenConfig, generate};
use rtsync_analysis::{Heuristic, Options, TestSelection, Verdict, verdict};
use rtsync_model::{Protocol, System};
use std::time::Instant;

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum What {
    /// Schedulability analysis throughput (MPCP and DPCP with P-FP RTA).
    Analysis,
    /// Simulator speed: scheduling events per second on one core, per
    /// protocol (16 tasks, 4 CPUs, 4 resources).
    Sim,
    /// Wait-free channels beside rtrb, triple_buffer and seqlock: latency
    /// per side (paced, pressed, saturated), retries, ring throughput.
    Channels,
    /// Locking protocols on real SCHED_FIFO threads beside glibc's
    /// mutexes (none, PRIO_INHERIT, PRIO_PROTECT): uncontended
    /// lock+unlock, hand-off latency with 1..64 waiters, context switch,
    /// release and migration costs, lock state size; writes the overhead
    /// profile (--profile).
    Locks,
    /// Spec loading against its size (1,000 to --tasks tasks) beside the
    /// toml crate alone on the same text: linear, 100,000 tasks under 1 s.
    Parse,
}

#[derive(clap::Args)]
pub struct Args {
    #[arg(value_enum)]
    pub what: What,
    /// Task sets per shape and protocol (analysis).
    #[arg(long, default_value_t = 2000)]
    pub sets: u64,
    /// Timed operations per side and case (channels); for locks, one
    /// batch of 64 lock+unlock is timed per 100.
    #[arg(long, default_value_t = 200_000)]
    pub ops: usize,
    /// Elements moved per ring and round in the throughput runs (channels; 5 rounds under each of two consumers).
    #[arg(long, default_value_t = 10_000_000)]
    pub elements: u64,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Systems per protocol (sim).
    #[arg(long, default_value_t = 4)]
    pub systems: u64,
    /// Simulated time per system (sim).
    #[arg(long, default_value = "20s", value_parser = |s: &str| rtsync_model::Time::parse(s).map_err(|e| e.to_string()))]
    pub horizon: rtsync_model::Time,
    /// Skip the multi-threaded (rayon) measurement.
    #[arg(long)]
    pub single_only: bool,
    /// Hand-off rounds per lock and waiter count (locks).
    #[arg(long, default_value_t = 200)]
    pub rounds: usize,
    /// Largest number of queued waiters, powers of two up to it (locks).
    #[arg(long, default_value_t = 64)]
    pub max_waiters: usize,
    /// Analysis: only this shape (`a` or `b`; both when absent).
    #[arg(long, value_parser = ["a", "b"])]
    pub shape: Option<String>,
    /// Analysis: only this protocol (`mpcp` or `dpcp`; both when absent).
    #[arg(long, value_parser = ["mpcp", "dpcp"])]
    pub protocol: Option<String>,
    /// Largest spec, in tasks (parse).
    #[arg(long, default_value_t = 100_000)]
    pub tasks: usize,
    /// Where the locks bench writes the overhead profile that `analyze
    /// --overheads` and `simulate --overheads` read.
    #[arg(long, default_value = "overheads.toml")]
    pub profile: std::path::PathBuf,
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

pub fn run(a: Args) -> u8 {
    if a.sets == 0 {
        eprintln!("error: --sets must be at least 1");
        return BAD_INPUT;
    }
    if a.what == What::Parse {
        return super::bench_parse::run(a.tasks);
    }
    if a.what == What::Sim {
        return super::bench_sim::run(super::bench_sim::Config {
            systems: a.systems,
            horizon: a.horizon,
            seed: a.seed,
        });
    }
    if a.what == What::Locks {
        // --ops counts operations; a sample is a batch of 64 of them.
        return super::bench_locks::run(super::bench_locks::Config {
            samples: a.ops / 100,
            rounds: a.rounds,
            max_waiters: a.max_waiters,
            profile: a.profile,
        });
    }
    if a.what == What::Channels {
        if a.ops < 100 || a.elements == 0 {
            eprintln!("error: --ops must be at least 100 and --elements at least 1");
            return BAD_INPUT;
        }
        return super::bench_channels::run(super::bench_channels::Config {
            ops: a.ops,
            elements: a.elements,
        });
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
    let mut tb = crate::table::Table::new(&[
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
    OK
}
