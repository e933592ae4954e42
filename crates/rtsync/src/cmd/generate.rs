//! `rtsync generate`: random systems written as spec files.

use super::{BAD_INPUT, OK};
use rtsync_analysis::Heuristic;
use rtsync_analysis::generate::{
    Dist, GenConfig, Periods, Positions, Utilizations, check_config, generate,
};
use rtsync_model::{Protocol, Scheduler, Time, to_toml};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Folder to write `sys-0000.toml`, ... into (created if missing).
    #[arg(long, default_value = "generated")]
    pub out: PathBuf,
    /// Number of systems.
    #[arg(long, default_value_t = 10)]
    pub count: u64,
    /// Seed: the same seed and options give the same systems.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Total utilization.
    #[arg(long, default_value_t = 2.0)]
    pub utilization: f64,
    #[arg(long, default_value = "mpcp", value_parser = super::check::parse_protocol)]
    pub protocol: Protocol,
    #[command(flatten)]
    pub shape: Shape,
}

/// The shape of random systems, shared by `generate` and the
/// schedulability sweep.
#[derive(clap::Args, Clone)]
pub struct Shape {
    #[arg(long, default_value_t = 4)]
    pub cpus: usize,
    /// Number of tasks (for uunifast, uunisort, randfixedsum).
    #[arg(long, default_value_t = 16)]
    pub tasks: usize,
    /// randfixedsum | uunifast | uunisort | uniform:MIN,MAX | exp:MEAN |
    /// bimodal:LMIN,LMAX,HMIN,HMAX,P_HEAVY.
    #[arg(long, default_value = "randfixedsum")]
    pub utilizations: String,
    /// log-uniform:MIN,MAX | uniform:MIN,MAX | harmonic:MIN,MAX (times with units).
    #[arg(long, default_value = "log-uniform:10ms,1s")]
    pub periods: String,
    /// Smallest deadline as a fraction of the period (1 = implicit deadlines).
    #[arg(long, default_value_t = 1.0)]
    pub deadline_min: f64,
    #[arg(long, default_value_t = 4)]
    pub resources: usize,
    /// Probability that a task uses a given resource.
    #[arg(long, default_value_t = 0.3)]
    pub access_prob: f64,
    /// Critical-section length range, MIN,MAX.
    #[arg(long, default_value = "10us,100us")]
    pub cs: String,
    /// Sections per used resource per job: 1..=N.
    #[arg(long, default_value_t = 1)]
    pub requests: u32,
    /// Probability that a section nests inside the previous one.
    #[arg(long, default_value_t = 0.0)]
    pub nest_prob: f64,
    /// Resources private to each CPU, besides the shared ones: tasks are
    /// placed first (worst fit) and use their own CPU's. Local resources
    /// beside global ones are where MPCP's and FMLP's local terms matter.
    #[arg(long, default_value_t = 0)]
    pub local_resources: usize,
    /// Probability of a self-suspension between two top-level segments.
    #[arg(long, default_value_t = 0.0)]
    pub suspend_prob: f64,
    /// Longest self-suspension.
    #[arg(long, default_value = "1ms", value_parser = |s: &str| Time::parse(s).map_err(|e| e.to_string()))]
    pub suspend_max: Time,
    /// even (equal computation around the sections) | random (sections at
    /// the start, middle or end of the body).
    #[arg(long, default_value = "even", value_parser = parse_positions)]
    pub positions: Positions,
    #[arg(long, default_value = "fp", value_parser = |s: &str| s.parse::<Scheduler>())]
    pub scheduler: Scheduler,
    /// auto | wfd | ffd | bfd | sync | none (leave tasks without a CPU).
    /// auto keeps resource sharers together (sync) under uniprocessor
    /// protocols, whose resources must stay on one CPU, and uses wfd
    /// otherwise.
    #[arg(long, default_value = "auto")]
    pub partition: String,
}

fn parse_positions(s: &str) -> Result<Positions, String> {
    match s {
        "even" => Ok(Positions::Even),
        "random" => Ok(Positions::Random),
        _ => Err(format!("unknown placement `{s}`; expected even or random")),
    }
}

fn pair(s: &str, what: &str) -> Result<(Time, Time), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("{what}: expected MIN,MAX, got `{s}`"))?;
    let a = Time::parse(a).map_err(|e| format!("{what}: {e}"))?;
    let b = Time::parse(b).map_err(|e| format!("{what}: {e}"))?;
    if a.is_zero() || a > b {
        return Err(format!("{what}: need 0 < MIN <= MAX, got {a},{b}"));
    }
    Ok((a, b))
}

fn floats(s: &str, n: usize, what: &str) -> Result<Vec<f64>, String> {
    let v: Result<Vec<f64>, _> = s.split(',').map(|x| x.trim().parse::<f64>()).collect();
    match v {
        Ok(v) if v.len() == n => Ok(v),
        _ => Err(format!(
            "{what}: expected {n} comma-separated numbers, got `{s}`"
        )),
    }
}

/// The generator configuration for `protocol` at total `utilization`.
pub fn config(a: &Shape, protocol: Protocol, utilization: f64) -> Result<GenConfig, String> {
    let utilizations = match a.utilizations.split_once(':') {
        None => match a.utilizations.as_str() {
            "randfixedsum" => Utilizations::RandFixedSum,
            "uunifast" => Utilizations::UUniFast,
            "uunisort" => Utilizations::UUniSort,
            o => return Err(format!("--utilizations: unknown method `{o}`")),
        },
        Some(("uniform", r)) => {
            let v = floats(r, 2, "--utilizations uniform")?;
            Utilizations::Draw(Dist::Uniform {
                min: v[0],
                max: v[1],
            })
        }
        Some(("exp", r)) => Utilizations::Draw(Dist::Exponential {
            mean: floats(r, 1, "--utilizations exp")?[0],
        }),
        Some(("bimodal", r)) => {
            let v = floats(r, 5, "--utilizations bimodal")?;
            Utilizations::Draw(Dist::Bimodal {
                light: (v[0], v[1]),
                heavy: (v[2], v[3]),
                p_heavy: v[4],
            })
        }
        Some((o, _)) => return Err(format!("--utilizations: unknown method `{o}`")),
    };
    let periods = match a.periods.split_once(':') {
        Some(("log-uniform", r)) => {
            let (min, max) = pair(r, "--periods")?;
            Periods::LogUniform { min, max }
        }
        Some(("uniform", r)) => {
            let (min, max) = pair(r, "--periods")?;
            Periods::Uniform { min, max }
        }
        Some(("harmonic", r)) => {
            let (min, max) = pair(r, "--periods")?;
            Periods::Harmonic { min, max }
        }
        _ => {
            return Err(format!(
                "--periods: expected log-uniform:MIN,MAX, uniform:MIN,MAX or harmonic:MIN,MAX, got `{}`",
                a.periods
            ));
        }
    };
    let (cs_min, cs_max) = pair(&a.cs, "--cs")?;
    let partition = match a.partition.as_str() {
        "none" => None,
        "auto" if protocol.is_uniprocessor() => Some(Heuristic::SyncAware),
        "auto" => Some(Heuristic::WorstFit),
        h => Some(h.parse::<Heuristic>()?),
    };
    let c = GenConfig {
        cpus: a.cpus,
        scheduler: a.scheduler,
        protocol,
        tasks: a.tasks,
        utilization,
        utilizations,
        periods,
        deadline_min: a.deadline_min,
        resources: a.resources,
        access_prob: a.access_prob,
        cs_min,
        cs_max,
        requests_max: a.requests,
        nest_prob: a.nest_prob,
        partition,
        local_resources: a.local_resources,
        local_cs_max: None,
        suspend_prob: a.suspend_prob,
        suspend_max: a.suspend_max,
        positions: a.positions,
    };
    check_config(&c)?;
    Ok(c)
}

pub fn run(a: Args) -> u8 {
    let c = match config(&a.shape, a.protocol, a.utilization) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}\n  hint: see `rtsync generate --help`");
            return BAD_INPUT;
        }
    };
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("error: cannot create {}: {e}", a.out.display());
        return BAD_INPUT;
    }
    let bar = indicatif::ProgressBar::new(a.count);
    for i in 0..a.count {
        let sys = generate(&c, a.seed, i);
        let path = a.out.join(format!("sys-{i:04}.toml"));
        let text = format!(
            "# rtsync generate --seed {} (system {i}); regenerate with the same options\n{}",
            a.seed,
            to_toml(&sys)
        );
        if let Err(e) = std::fs::write(&path, text) {
            bar.abandon();
            eprintln!("error: cannot write {}: {e}", path.display());
            return BAD_INPUT;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!("wrote {} system(s) to {}", a.count, a.out.display());
    OK
}
