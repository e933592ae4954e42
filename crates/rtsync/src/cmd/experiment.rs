//! `rtsync experiment`: experiments over many random systems.
//!
//! `soundness` checks the promise of the design: on systems the analysis
//! calls schedulable, the simulated worst response time of every task never
//! exceeds its analytic bound, no deadline is missed, mutual exclusion and
//! the priority rule hold, and no deadlock occurs.

use super::{BAD_INPUT, OK};
use rtsync_analysis::generate::Mixing;
use rtsync_analysis::sweep::Curve;
use rtsync_experiment::Shape;
use rtsync_experiment::soundness::{self, Config, Drawn};
use rtsync_model::{Protocol, Scheduler};
use rtsync_report::Table;
use rtsync_sim::search::SearchOptions;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Experiment {
    /// Simulated worst response <= analytic bound, on random systems, for
    /// every protocol (or one), searching each schedulable system for its
    /// worst schedule (offsets, arrival delays, jitter, execution times).
    /// Prints the violations and how tight the bounds are; exit code 1
    /// when any violation is found.
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
    /// Only this protocol (default: all twelve, then the three mixes).
    #[arg(long, value_parser = super::check::parse_protocol)]
    pub protocol: Option<Protocol>,
    /// Only systems with a protocol per resource by this rule: by-length
    /// (FMLP short and long resources by section length) | by-scope (MPCP
    /// global, PCP local) | uniprocessor (NPCS, PIP, PCP, IPCP and SRP
    /// drawn per resource on one CPU).
    #[arg(long, value_parser = |s: &str| s.parse::<Mixing>())]
    pub mix: Option<Mixing>,
    /// Seed of the system stream (and of the search).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also run the protocols that support it under EDF.
    #[arg(long)]
    pub edf: bool,
    /// Only component topologies (paper 001): random DAGs of propagated,
    /// inherited, fixed and fixed-npcs interfaces with nested requests, on
    /// one CPU, checked against rtsync's bound and paper 001's, with the
    /// analyzer's pool sizes checked too (a request finding its pool full
    /// is a violation). Part of the default run.
    #[arg(long, conflicts_with_all = ["protocol", "mix"])]
    pub components: bool,
    /// The systems drawn: classic | local-global (local and global
    /// resources on one CPU) | suspending (self-suspensions) | nested |
    /// dense (several requests per job) | all (each in turn).
    #[arg(long, default_value = "all", value_parser = |s: &str| s.parse::<Shape>())]
    pub shape: Shape,
    /// Simulated events the worst-case search may spend per schedulable
    /// system (0: no search, the four sampled runs only).
    #[arg(long, default_value_t = 60_000)]
    pub search_budget: u64,
    /// Print every violation (by default the first five per protocol).
    #[arg(long)]
    pub verbose: bool,
    /// Write each system with a violation here: the spec
    /// (`<protocol>-<scheduler>-<shape>-<index>.toml`, partitioned as
    /// simulated) and the plan that reproduces it (`.plan.toml`, replay
    /// with `rtsync simulate SPEC --plan PLAN`).
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Where to write the tightness histogram (`tightness.svg`) and the
    /// per-protocol figures (`soundness.csv`).
    #[arg(long, value_name = "DIR", default_value = "soundness")]
    pub out: PathBuf,
}

pub fn run(a: Args) -> u8 {
    match a.experiment {
        Experiment::Soundness(s) => soundness(s),
        Experiment::Schedulability(s) => super::sweep::run(*s),
    }
}

fn soundness(a: SoundnessArgs) -> u8 {
    if a.systems == 0 {
        eprintln!("error: --systems must be at least 1");
        return BAD_INPUT;
    }
    let all = a.protocol.is_none() && a.mix.is_none() && !a.components;
    // (drawn, scheduler); `None`: component topologies.
    let mut cases: Vec<(Option<Curve>, Scheduler)> = Vec::new();
    for sched in [Scheduler::Fp, Scheduler::Edf] {
        if sched == Scheduler::Edf && !a.edf || a.components {
            continue;
        }
        cases.extend(
            Protocol::ALL
                .into_iter()
                .filter(|&p| (all || a.protocol == Some(p)) && p.supports(sched))
                .map(|p| (Some(Curve::One(p)), sched)),
        );
        cases.extend(
            Mixing::ALL
                .into_iter()
                .filter(|&m| (all || a.mix == Some(m)) && m.supports(sched))
                .map(|m| (Some(Curve::Mix(m)), sched)),
        );
    }
    if all || a.components {
        cases.push((None, Scheduler::Fp));
    }
    if cases.is_empty() {
        eprintln!(
            "error: nothing to draw: the protocol or mix given is not analysed under fp\n  hint: add --edf, or name another"
        );
        return BAD_INPUT;
    }
    let search = (a.search_budget > 0).then(|| SearchOptions {
        budget: a.search_budget,
        seed: a.seed,
        ..SearchOptions::default()
    });
    let bar = indicatif::ProgressBar::new(a.systems * cases.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} systems  {elapsed} (eta {eta})",
        )
        .expect("valid template"),
    );
    let started = std::time::Instant::now();
    let mut failed = false;
    let mut table = Table::new(&[
        "protocol",
        "sched",
        "systems",
        "schedulable",
        "simulations",
        "events",
        "violations",
        "tasks",
        "p50",
        "p90",
        "p99",
        "max",
        "systems/s",
        "sims/s",
    ])
    .left(0)
    .left(1);
    let mut series = Vec::new();
    let mut csv = String::from(
        "protocol,scheduler,shape,systems,schedulable,simulations,events,violations,tasks,p50,p90,p99,max,seconds,search_budget\n",
    );
    for (drawn, sched) in cases {
        let drawn = drawn.map_or(Drawn::Components, Drawn::Systems);
        let name = drawn.to_string();
        let cfg = Config {
            drawn,
            scheduler: sched,
            shape: a.shape,
            systems: a.systems,
            seed: a.seed,
            search: search.clone(),
            save: a.save.clone(),
        };
        let t0 = std::time::Instant::now();
        let t = soundness::run(&cfg, &|| bar.inc(1));
        let secs = t0.elapsed().as_secs_f64();
        let q = |x: f64| t.quantile(x).map_or("-".to_string(), |v| format!("{v:.3}"));
        let row = vec![
            name.clone(),
            sched.to_string(),
            t.systems.to_string(),
            t.schedulable.to_string(),
            t.simulations.to_string(),
            t.events.to_string(),
            t.violations.len().to_string(),
            t.tightness.len().to_string(),
            q(0.5),
            q(0.9),
            q(0.99),
            q(1.0),
            format!("{:.0}", t.systems as f64 / secs.max(1e-9)),
            format!("{:.0}", t.simulations as f64 / secs.max(1e-9)),
        ];
        let shape = match drawn {
            Drawn::Systems(_) => a.shape.to_string(),
            Drawn::Components => "topology".to_string(),
        };
        let mut line = vec![row[0].clone(), row[1].clone(), shape];
        line.extend(row[2..12].iter().cloned());
        line.push(format!("{secs:.3}"));
        line.push(a.search_budget.to_string());
        csv.push_str(&line.join(","));
        csv.push('\n');
        bar.suspend(|| {
            println!(
                "{:<6} {:<3} {} systems, {} schedulable, {} violation(s), tightness max {} ({secs:.1} s)",
                row[0], row[1], row[2], row[3], row[6], row[11]
            );
            let shown = if a.verbose { usize::MAX } else { 5 };
            for v in t.violations.iter().take(shown) {
                println!("    {v}");
            }
            if t.violations.len() > shown {
                println!("    ... {} more (--verbose)", t.violations.len() - shown);
            }
        });
        table.row(row);
        failed |= !t.violations.is_empty();
        series.push((format!("{name} ({sched})"), t.tightness));
    }
    bar.finish_and_clear();
    print!("\n{}", table.render());
    println!(
        "tightness: per task whose bound exceeds its WCET, the worst simulated response over the\n\
         analytic bound (1.000: the bound was reached; above 1: a violation); p50/p90/p99/max over those tasks;\n\
         sims/s: schedules simulated per second (sampled runs and the search's), on all cores.\n\
         {} in {:.1} s, {}",
        if failed {
            "VIOLATIONS FOUND"
        } else {
            "no violations"
        },
        started.elapsed().as_secs_f64(),
        match &search {
            Some(s) => format!("search budget {} events per schedulable system", s.budget),
            None => "sampled runs only (no search)".to_string(),
        }
    );
    let svg = rtsync_report::plot::histogram(
        &series,
        &format!(
            "Tightness of the bounds: worst simulated response / bound per task (shape {})",
            a.shape
        ),
    );
    match std::fs::create_dir_all(&a.out)
        .and_then(|_| std::fs::write(a.out.join("tightness.svg"), svg))
        .and_then(|_| std::fs::write(a.out.join("soundness.csv"), csv))
    {
        Ok(()) => println!(
            "wrote {} and {}",
            a.out.join("tightness.svg").display(),
            a.out.join("soundness.csv").display()
        ),
        Err(e) => {
            eprintln!("error: cannot write into {}: {e}", a.out.display());
            return BAD_INPUT;
        }
    }
    if failed { super::NOT_SCHEDULABLE } else { OK }
}
