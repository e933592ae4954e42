//! `rtsync bench sim`: scheduling events per second of the simulator on
//! one core, for the 16-task, 4-CPU, 4-resource shape under each protocol.
//!
//! The systems are generated and partitioned before the clock starts; each
//! is simulated once to warm up, then timed. Two columns: with the
//! per-instant invariant checks the soundness experiment uses, and without
//! (what a long trace-free run costs).

use crate::Error;
use rtsync_analysis::generate::{GenConfig, Periods, generate};
use rtsync_analysis::partition::{Heuristic, partition};
use rtsync_model::{Protocol, Scheduler, System, Time};
use rtsync_sim::{Options, simulate};
use std::time::Instant;

pub struct Config {
    pub systems: u64,
    pub horizon: Time,
    pub seed: u64,
}

/// The benchmark shape: m=4, n=16, U=2.0, 4 resources, harmonic periods
/// 5..80 ms (releases every few ms, like a control system), sections
/// 10..100 us, access probability 0.3.
fn systems(p: Protocol, c: &Config) -> Vec<System> {
    let g = GenConfig {
        cpus: 4,
        tasks: 16,
        utilization: 2.0,
        resources: 4,
        protocol: p,
        scheduler: Scheduler::Fp,
        periods: Periods::Harmonic {
            min: Time::from_ms(5),
            max: Time::from_ms(80),
        },
        partition: None,
        ..GenConfig::default()
    };
    (0..c.systems)
        .map(|i| {
            let s = generate(&g, c.seed, i);
            if s.is_partitioned() {
                s
            } else {
                partition(&s, Heuristic::WorstFit)
            }
        })
        .collect()
}

/// Timed rounds; each protocol's fastest round is reported. This machine
/// is a shared VM whose speed changes by a factor of two for seconds at a
/// time, so the rounds go over all protocols in turn (a slow spell costs
/// each protocol one round, not all of one protocol's). The simulation is
/// deterministic: every round does identical work.
const ROUNDS: usize = 5;

/// Events and seconds to simulate `sys` once.
fn time(sys: &[System], horizon: Time, check: bool) -> (u64, f64) {
    let opts = Options {
        horizon,
        check,
        ..Options::default()
    };
    let mut events = 0;
    let t0 = Instant::now();
    for s in sys {
        let (r, _) = simulate(s, &opts).expect("generated systems simulate");
        events += r.events;
    }
    (events, t0.elapsed().as_secs_f64())
}

pub fn run(c: Config) -> Result<(), Error> {
    if c.systems == 0 || c.horizon.is_zero() {
        return Err(Error::BadInput(
            "--systems and --horizon must be positive".into(),
        ));
    }
    println!(
        "rtsync bench sim: {} systems per protocol, m=4 n=16 U=2.0 4 resources, harmonic periods 5..80ms, {} simulated each, one thread, seed {}; fastest of {ROUNDS} rounds\n",
        c.systems, c.horizon, c.seed
    );
    println!(
        "{:<8} {:>12} {:>16} {:>16}",
        "protocol", "events", "Mevents/s", "Mevents/s"
    );
    println!(
        "{:<8} {:>12} {:>16} {:>16}",
        "", "", "(checked)", "(unchecked)"
    );
    let sets: Vec<Vec<System>> = Protocol::ALL.iter().map(|&p| systems(p, &c)).collect();
    let n = sets.len();
    let bar = indicatif::ProgressBar::new((ROUNDS * n * 2) as u64);
    let mut events = vec![0u64; n];
    // Fastest rate per protocol: [checked, unchecked].
    let mut best = vec![[0f64; 2]; n];
    for (i, sys) in sets.iter().enumerate() {
        events[i] = time(&sys[..1], c.horizon, true).0; // warm-up
    }
    for _ in 0..ROUNDS {
        for (i, sys) in sets.iter().enumerate() {
            for (k, check) in [true, false].into_iter().enumerate() {
                let (e, secs) = time(sys, c.horizon, check);
                events[i] = e;
                best[i][k] = best[i][k].max(e as f64 / secs);
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    let mut worst = f64::MAX;
    for (i, p) in Protocol::ALL.iter().enumerate() {
        worst = worst.min(best[i][1]);
        println!(
            "{:<8} {:>12} {:>16.2} {:>16.2}",
            p.name(),
            events[i],
            best[i][0] / 1e6,
            best[i][1] / 1e6
        );
    }
    println!(
        "\ntarget (DESIGN.md): at least 10 Mevents/s on one core; slowest protocol here: {:.2} Mevents/s (unchecked)",
        worst / 1e6
    );
    Ok(())
}
