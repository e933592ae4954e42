//! `rtsync experiment`: experiments over many random systems.
//!
//! `soundness` checks the promise of the design: on systems the analysis
//! calls schedulable, the simulated worst response time of every task never
//! exceeds its analytic bound, no deadline is missed, mutual exclusion and
//! the priority rule hold, and no deadlock occurs.

use super::{BAD_INPUT, OK};
use rayon::prelude::*;
use rtsync_analysis::generate::{GenConfig, Periods, Utilizations, generate};
use rtsync_analysis::{Heuristic, Options as AnalysisOptions, Response, analyze};
use rtsync_model::{Protocol, Scheduler, System, Time};
use rtsync_sim::{Arrivals, Exec, Options, simulate};

#[derive(clap::Subcommand)]
pub enum Experiment {
    /// Simulated worst response <= analytic bound, on random systems, for
    /// every protocol (or one). Exit code 1 when any violation is found.
    Soundness(SoundnessArgs),
    /// Schedulability ratios: the share of random systems each protocol's
    /// analysis accepts, over a range of total utilizations, on the same
    /// systems for every protocol. Prints the table and writes a CSV and
    /// an SVG plot.
    Schedulability(Box<super::sweep::Args>),
}

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub experiment: Experiment,
}

#[derive(clap::Args)]
pub struct SoundnessArgs {
    /// Random systems per protocol (the design asks for 10000).
    #[arg(long, default_value_t = 10_000)]
    pub systems: u64,
    /// Only this protocol (default: all twelve).
    #[arg(long, value_parser = super::check::parse_protocol)]
    pub protocol: Option<Protocol>,
    /// Seed of the system stream.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also run the protocols that support it under EDF.
    #[arg(long)]
    pub edf: bool,
    /// Print every violation (by default the first five per protocol).
    #[arg(long)]
    pub verbose: bool,
    /// Write each system with a violation here as a spec file
    /// (`<protocol>-<index>.toml`, partitioned as simulated), to replay it
    /// with `rtsync simulate`.
    #[arg(long, value_name = "DIR")]
    pub save: Option<std::path::PathBuf>,
}

pub fn run(a: Args) -> u8 {
    match a.experiment {
        Experiment::Soundness(s) => soundness(s),
        Experiment::Schedulability(s) => super::sweep::run(*s),
    }
}

/// The outcome for one protocol.
#[derive(Default)]
struct Tally {
    systems: u64,
    schedulable: u64,
    simulations: u64,
    events: u64,
    violations: Vec<String>,
    tightness_max: f64,
    tightness_sum: f64,
}

/// The random-system shape for `p`: small harmonic periods (short
/// hyperperiods), long sections relative to periods (blocking matters),
/// nesting where the protocol allows it.
pub fn config(p: Protocol, sched: Scheduler, i: u64) -> GenConfig {
    let uni = p.is_uniprocessor();
    let cpus = if uni { 1 } else { 2 + (i % 3) as usize };
    let tasks = if uni {
        4 + (i % 4) as usize
    } else {
        3 * cpus + (i % 3) as usize
    };
    GenConfig {
        cpus,
        scheduler: sched,
        protocol: p,
        tasks,
        utilization: if uni {
            0.4 + 0.1 * (i % 6) as f64
        } else {
            cpus as f64 * (0.15 + 0.1 * (i % 5) as f64)
        },
        utilizations: Utilizations::UUniFast,
        periods: Periods::Harmonic {
            min: Time::from_ms(10),
            max: Time::from_ms(80),
        },
        deadline_min: if i.is_multiple_of(2) { 1.0 } else { 0.7 },
        resources: if uni { 3 } else { 2 + (i % 3) as usize },
        access_prob: 0.5,
        cs_min: Time::from_us(50),
        cs_max: Time::from_us(1500),
        requests_max: 2,
        nest_prob: if uni || p.allows_nested_global() {
            0.3
        } else {
            0.0
        },
        partition: (!uni).then_some(Heuristic::WorstFit),
    }
}

/// What checking one system found.
pub struct Checked {
    /// The analysis called it schedulable (only those are simulated).
    pub schedulable: bool,
    pub simulations: u64,
    pub events: u64,
    pub violations: Vec<String>,
    /// The largest simulated-worst / bound ratio over the tasks whose bound
    /// exceeds their own WCET (how close simulation came to the bound;
    /// above 1 is a violation).
    pub tightness: f64,
}

/// Analyses `sys`; when schedulable, simulates it four ways (WCET and
/// random execution, periodic and sporadic arrivals) and compares. With
/// `save`, a system with a violation is written there as a spec.
pub fn check_system(sys: &System, seed: u64, save: Option<&std::path::Path>) -> Checked {
    let mut c = Checked {
        schedulable: false,
        simulations: 0,
        events: 0,
        violations: Vec::new(),
        tightness: 0.0,
    };
    let Ok(an) = analyze(sys, &AnalysisOptions::default()) else {
        return c;
    };
    let bounds: Vec<Option<Time>> = an
        .result
        .tasks
        .iter()
        .map(|t| match t.response {
            Response::Bounded(r) if r <= t.deadline => Some(r),
            _ => None,
        })
        .collect();
    if bounds.iter().any(Option::is_none) {
        return c;
    }
    c.schedulable = true;
    let wcets: Vec<Time> = an.result.tasks.iter().map(|t| t.wcet).collect();
    simulate_against(&an.system, &bounds, &wcets, seed, &mut c);
    if !c.violations.is_empty()
        && let Some(dir) = save
    {
        let name = an.system.name.clone().unwrap_or_default().replace(' ', "-");
        let p = an.system.protocol().map_or("none", |p| p.name());
        let path = dir.join(format!("{p}-{name}.toml"));
        if let Err(e) = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&path, rtsync_model::to_toml(&an.system)))
        {
            c.violations
                .push(format!("could not save {}: {e}", path.display()));
        }
    }
    c
}

fn simulate_against(
    placed: &System,
    bounds: &[Option<Time>],
    wcets: &[Time],
    seed: u64,
    c: &mut Checked,
) {
    let hyper = placed
        .tasks
        .iter()
        .map(|t| t.period)
        .max()
        .unwrap_or(Time::from_ms(10));
    let runs = [
        (Exec::Wcet, Arrivals::Periodic, 2),
        (Exec::Random, Arrivals::Periodic, 4),
        (Exec::Wcet, Arrivals::Sporadic { spread: 0.5 }, 6),
        (Exec::Random, Arrivals::Sporadic { spread: 0.5 }, 6),
    ];
    for (k, &(exec, arrivals, hypers)) in runs.iter().enumerate() {
        let opts = Options {
            horizon: hyper.checked_mul(hypers).unwrap_or(Time::MAX),
            seed: seed.wrapping_mul(31).wrapping_add(k as u64),
            exec,
            arrivals,
            ..Options::default()
        };
        let res = match simulate(placed, &opts) {
            Ok((r, _)) => r,
            Err(e) => {
                c.violations.push(format!("cannot simulate: {e}"));
                return;
            }
        };
        c.simulations += 1;
        c.events += res.events;
        let what = format!(
            "--exec {} --arrivals {} --seed {}",
            match exec {
                Exec::Wcet => "wcet",
                Exec::Random => "random",
            },
            match arrivals {
                Arrivals::Periodic => "periodic",
                Arrivals::Sporadic { .. } => "sporadic",
            },
            opts.seed
        );
        if let Some(d) = &res.deadlock {
            c.violations.push(format!("{what}: {d}"));
        }
        for v in &res.violations {
            c.violations
                .push(format!("{what}: invariant broken at {}: {}", v.at, v.what));
        }
        for (t, st) in res.tasks.iter().enumerate() {
            let bound = bounds[t].expect("only schedulable systems are simulated");
            // Tightness only where the bound says more than "runs alone".
            if let Some(r) = st.max_response
                && bound > wcets[t]
            {
                c.tightness = c.tightness.max(r.ratio(bound));
            }
            if let Some(r) = st.max_response
                && r > bound
            {
                c.violations.push(format!(
                    "{what}: task {} responded in {r}, above its bound {bound}",
                    st.name
                ));
            }
            if st.misses > 0 {
                c.violations.push(format!(
                    "{what}: task {} missed {} deadline(s)",
                    st.name, st.misses
                ));
            }
        }
        if !c.violations.is_empty() {
            return;
        }
    }
}

fn soundness(a: SoundnessArgs) -> u8 {
    if a.systems == 0 {
        eprintln!("error: --systems must be at least 1");
        return BAD_INPUT;
    }
    let mut cases: Vec<(Protocol, Scheduler)> = Protocol::ALL
        .iter()
        .filter(|&&p| a.protocol.is_none_or(|q| q == p))
        .map(|&p| (p, Scheduler::Fp))
        .collect();
    if a.edf {
        cases.extend(
            Protocol::ALL
                .iter()
                .filter(|&&p| a.protocol.is_none_or(|q| q == p) && p.supports(Scheduler::Edf))
                .map(|&p| (p, Scheduler::Edf)),
        );
    }
    let bar = indicatif::ProgressBar::new(a.systems * cases.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} systems  {elapsed} (eta {eta})",
        )
        .expect("valid template"),
    );
    let started = std::time::Instant::now();
    let mut failed = false;
    println!(
        "{:<8} {:<4} {:>8} {:>12} {:>12} {:>12} {:>10} {:>9} {:>9}",
        "protocol",
        "sch",
        "systems",
        "schedulable",
        "simulations",
        "events",
        "violations",
        "max s/b",
        "mean s/b"
    );
    for (p, sched) in cases {
        let tallies: Vec<Tally> = (0..a.systems)
            .into_par_iter()
            .map(|i| {
                let cfg = config(p, sched, i);
                let sys = generate(&cfg, a.seed, i);
                let c = check_system(&sys, a.seed ^ i, a.save.as_deref());
                bar.inc(1);
                Tally {
                    systems: 1,
                    schedulable: c.schedulable as u64,
                    tightness_max: c.tightness,
                    tightness_sum: c.tightness,
                    simulations: c.simulations,
                    events: c.events,
                    violations: c
                        .violations
                        .into_iter()
                        .map(|s| format!("system {i} (seed {}): {s}", a.seed))
                        .collect(),
                }
            })
            .collect();
        let mut t = Tally::default();
        for x in tallies {
            t.systems += x.systems;
            t.schedulable += x.schedulable;
            t.simulations += x.simulations;
            t.events += x.events;
            t.tightness_max = t.tightness_max.max(x.tightness_max);
            t.tightness_sum += x.tightness_sum;
            t.violations.extend(x.violations);
        }
        bar.suspend(|| {
            println!(
                "{:<8} {:<4} {:>8} {:>12} {:>12} {:>12} {:>10} {:>9.3} {:>9.3}",
                p.name(),
                sched.to_string(),
                t.systems,
                t.schedulable,
                t.simulations,
                t.events,
                t.violations.len(),
                t.tightness_max,
                t.tightness_sum / t.schedulable.max(1) as f64
            );
            let shown = if a.verbose { usize::MAX } else { 5 };
            for v in t.violations.iter().take(shown) {
                println!("    {v}");
            }
        });
        failed |= !t.violations.is_empty();
    }
    bar.finish_and_clear();
    println!(
        "s/b: per system, the largest ratio of simulated worst response to analytic bound\n     among tasks whose bound exceeds their WCET\n{} in {:.1} s",
        if failed {
            "VIOLATIONS FOUND"
        } else {
            "no violations"
        },
        started.elapsed().as_secs_f64()
    );
    if failed { super::NOT_SCHEDULABLE } else { OK }
}
