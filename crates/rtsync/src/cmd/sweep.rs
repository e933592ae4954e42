//! `rtsync experiment schedulability`: schedulability ratios per protocol
//! over a range of total utilizations (see [`rtsync_analysis::sweep`]).

use super::BAD_INPUT;
use super::generate::Shape;
use rtsync_analysis::generate::Mixing;
use rtsync_analysis::sweep::{Cell, Sweep, SweepSpec, weighted};
use rtsync_experiment::shard::{Experiment, Prepared, Shard};
use rtsync_model::Protocol;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  rtsync experiment schedulability --cpus 4 --tasks 16 --sets 1000
  rtsync experiment schedulability --protocols mpcp,dpcp,fmlp-s,msrp --overheads overheads.toml
  rtsync experiment schedulability --cpus 1 --tasks 8 --cs 300us,3ms --access-prob 0.5
  rtsync experiment schedulability --protocols fmlp-s,fmlp-l --mixes by-length --nest-prob 0.3
  rtsync experiment schedulability --protocols dpcp,fmlp-l --analysis both --requests 3")]
pub struct Args {
    /// Protocols to compare, comma-separated. Default: the multiprocessor
    /// protocols (those that support the scheduler) on several CPUs, the
    /// uniprocessor ones on one.
    #[arg(long, value_delimiter = ',', value_parser = super::check::parse_protocol)]
    pub protocols: Vec<Protocol>,
    /// Mixes to compare beside them, comma-separated: by-length (FMLP
    /// short and long resources by section length) | by-scope (MPCP
    /// global, PCP local) | uniprocessor (NPCS, PIP, PCP, IPCP, SRP drawn
    /// per resource). Each mix sees the same systems as the protocols.
    #[arg(long, value_delimiter = ',', value_parser = |s: &str| s.parse::<Mixing>())]
    pub mixes: Vec<Mixing>,
    /// First total utilization (default: a tenth of the CPUs).
    #[arg(long)]
    pub from: Option<f64>,
    /// Last total utilization (default: the number of CPUs, at most the
    /// number of tasks).
    #[arg(long)]
    pub to: Option<f64>,
    /// Step between points (default: a twentieth of the CPUs).
    #[arg(long)]
    pub step: Option<f64>,
    /// Random systems per point; every protocol analyses the same ones.
    #[arg(long, default_value_t = 200)]
    pub sets: u64,
    /// Seed: the same seed and options give the same systems and figures.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Overhead profile charged by the analysis (as written by `rtsync
    /// bench locks --profile`).
    #[arg(long, value_name = "FILE")]
    pub overheads: Option<PathBuf>,
    /// Folder for `schedulability.csv` and `schedulability.svg` (created
    /// if missing); with --shard, for the shard's part file.
    #[arg(long, default_value = "sweep")]
    pub out: PathBuf,
    /// Run only shard I of N (0 <= I < N) and write its part file,
    /// `part-I-of-N.json`, into --out; `rtsync merge` adds the parts up to
    /// the very files one run writes. For batch schedulers (a Slurm job
    /// array: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) and
    /// docs/SWEEPS.md.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Which bounds: classic (closed forms), lp (the LP bounds, where the
    /// protocol has one), both (side by side), fixed (no job windows:
    /// faster, looser) or all (fixed, classic and lp side by side).
    #[arg(long, value_enum, default_value = "classic", long_help = super::forms_help(
        "Which bounds: classic (closed forms, lowered by job windows), lp (the \
         linear-programming bounds of Brandenburg 2013 and Wieder and Brandenburg 2013, where \
         the protocol has one), both (each protocol's classic curve with its LP curve beside, \
         `lp:<protocol>`, on the same systems), fixed (each request's bound on its own, no job \
         windows: `fixed:<protocol>` where that differs from classic; on large systems several \
         times faster) or all (the three side by side)."))]
    pub analysis: super::Forms,
    #[command(flatten)]
    pub shape: Shape,
}

pub fn run(a: Args) -> u8 {
    // The description carries the profile's text, so that a shard
    // elsewhere reads the same; it is checked here first, for diagnostics
    // that name the file (line, column).
    let overheads = match &a.overheads {
        Some(path) => {
            let name = path.display().to_string();
            match std::fs::read_to_string(path) {
                Ok(t) => match rtsync_analysis::Profile::from_toml(&t, Some(&name)) {
                    Ok(_) => Some(t),
                    Err(d) => return super::bad_input(&d),
                },
                Err(e) => {
                    eprintln!("error: cannot read the overhead profile {name}: {e}");
                    return BAD_INPUT;
                }
            }
        }
        None => None,
    };
    let spec = SweepSpec {
        protocols: a.protocols.iter().map(|p| p.name().to_string()).collect(),
        mixes: a.mixes.iter().map(|m| m.to_string()).collect(),
        from: a.from,
        to: a.to,
        step: a.step,
        sets: a.sets,
        seed: a.seed,
        analysis: a.analysis,
        overheads,
        shape: a.shape.clone(),
    };
    let experiment = Experiment::Schedulability(spec.clone());
    let prepared = match experiment.prepare() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}\n  hint: see `rtsync experiment schedulability --help`");
            return BAD_INPUT;
        }
    };
    let Prepared::Schedulability(_, sweep) = &prepared else {
        unreachable!("a sweep prepares as a sweep")
    };
    let shard = a.shard.unwrap_or(Shard::WHOLE);
    let n_points = sweep.utilizations.len();
    println!(
        "rtsync experiment schedulability: {} curves, {} points from U = {} to {}, {} systems each, seed {}{}{}",
        sweep.curves.len(),
        n_points,
        sweep.utilizations[0],
        sweep.utilizations[n_points - 1],
        sweep.sets,
        sweep.seed,
        if sweep.options.overheads.is_some() {
            ", overheads charged"
        } else {
            ""
        },
        match a.shard {
            Some(s) => format!(", shard {s}"),
            None => String::new(),
        }
    );
    let bar = super::progress(shard.range(prepared.jobs()).count() as u64, "systems");
    let part = prepared.run(shard, &|| bar.inc(1));
    bar.finish_and_clear();
    let part = match part {
        Ok(p) => p,
        Err(e) => {
            eprintln!(
                "error: {e}\n  hint: leave that protocol out (--protocols, --mixes), or change the shape (e.g. --nest-prob 0)"
            );
            return BAD_INPUT;
        }
    };
    super::merge::finish(vec![("this run".into(), part)], &a.out, a.shard.is_some())
}

pub(super) fn print_table(sweep: &Sweep, cells: &[Cell]) {
    let mut head = vec!["U".to_string()];
    head.extend(sweep.curves.iter().map(|c| c.to_string()));
    let head_refs: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut tb = rtsync_report::table::Table::new(&head_refs);
    for (pt, &u) in sweep.utilizations.iter().enumerate() {
        let mut row = vec![format!("{u}")];
        let per = &cells[pt * sweep.curves.len()..(pt + 1) * sweep.curves.len()];
        row.extend(per.iter().map(|c| format!("{:.1}%", 100.0 * c.ratio())));
        tb.row(row);
    }
    let mut row = vec!["weighted".to_string()];
    row.extend(
        sweep
            .curves
            .iter()
            .map(|&c| format!("{:.3}", weighted(cells, c))),
    );
    tb.row(row);
    print!("{}", tb.render());
    println!("(share of systems found schedulable; weighted: Σ U·share / Σ U)");
    // The curves' prefixes name the form of their bounds (`Curve`'s
    // Display); each drawn form is said once.
    let mut forms: Vec<rtsync_analysis::BoundForm> = Vec::new();
    for c in &sweep.curves {
        let f = c.form();
        if f != rtsync_analysis::BoundForm::Classic && !forms.contains(&f) {
            forms.push(f);
        }
    }
    for f in forms {
        println!("({f}:<protocol>: {})", f.describe());
    }
}
