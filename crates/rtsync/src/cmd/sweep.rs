//! `rtsync experiment schedulability`: schedulability ratios per protocol
//! over a range of total utilizations (see [`rtsync_analysis::sweep`]).

use super::generate::{Shape, config};
use super::{BAD_INPUT, OK, load_overheads};
use rayon::prelude::*;
use rtsync_analysis::generate::Mixing;
use rtsync_analysis::sweep::{Cell, Curve, Sweep, weighted};
use rtsync_analysis::{Options, TestSelection};
use rtsync_model::{Protocol, Scheduler};
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
    /// if missing).
    #[arg(long, default_value = "sweep")]
    pub out: PathBuf,
    /// Which bounds: classic (closed forms), lp (the LP bounds, where the
    /// protocol has one), or both (side by side).
    #[arg(long, value_enum, default_value = "classic", long_help = super::lp_help(
        "Which bounds: classic (closed forms), lp (the linear-programming bounds of \
         Brandenburg 2013 and Wieder and Brandenburg 2013, where the protocol has one), \
         or both (each protocol's classic curve with its LP curve beside, `lp:<protocol>`, \
         on the same systems)."))]
    pub analysis: super::Forms,
    #[command(flatten)]
    pub shape: Shape,
}

/// The utilization points from `from` to `to` (inclusive, within a
/// rounding slack) in steps of `step`.
pub(super) fn points(from: f64, to: f64, step: f64) -> Result<Vec<f64>, String> {
    if !(from > 0.0 && to >= from && step > 0.0) {
        return Err(format!(
            "need 0 < --from <= --to and --step > 0, got {from}, {to}, {step}"
        ));
    }
    let n = ((to - from) / step + 1e-9).floor() as usize + 1;
    if n > 1000 {
        return Err(format!("{n} utilization points; use a larger --step"));
    }
    // Rounded to 1e-9 so that 0.1 + 0.2 prints as 0.3.
    Ok((0..n)
        .map(|k| ((from + step * k as f64) * 1e9).round() / 1e9)
        .collect())
}

fn default_protocols(cpus: usize, sched: Scheduler) -> Vec<Protocol> {
    Protocol::ALL
        .into_iter()
        .filter(|p| p.is_uniprocessor() == (cpus == 1) && p.supports(sched))
        .collect()
}

pub fn run(a: Args) -> u8 {
    let cpus = a.shape.cpus.max(1) as f64;
    let protocols = if a.protocols.is_empty() {
        default_protocols(a.shape.cpus, a.shape.scheduler)
    } else {
        a.protocols.clone()
    };
    let curves: Vec<Curve> = protocols
        .iter()
        .flat_map(|&p| a.analysis.curves(p))
        .chain(a.mixes.iter().map(|&m| Curve::Mix(m)))
        .collect();
    if curves.is_empty() {
        eprintln!(
            "error: none of these protocols has an LP bound\n  hint: --analysis lp covers {}; use --analysis both to see the others beside them",
            super::lp_protocols()
        );
        return BAD_INPUT;
    }
    let to = a.to.unwrap_or(cpus.min(a.shape.tasks as f64));
    let utilizations = match points(
        a.from.unwrap_or(cpus / 10.0),
        to,
        a.step.unwrap_or(cpus / 20.0),
    ) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}\n  hint: see `rtsync experiment schedulability --help`");
            return BAD_INPUT;
        }
    };
    let base = match config(
        &a.shape,
        protocols.first().copied().unwrap_or(Protocol::Mpcp),
        utilizations[0],
    ) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}\n  hint: see `rtsync experiment schedulability --help`");
            return BAD_INPUT;
        }
    };
    let overheads = match load_overheads(a.overheads.as_deref()) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let sweep = Sweep {
        base,
        curves,
        utilizations,
        sets: a.sets,
        seed: a.seed,
        options: Options {
            tests: TestSelection::Rta,
            first_miss: true,
            overheads,
            ..Options::default()
        },
    };
    if let Err(e) = sweep.check() {
        eprintln!("error: {e}\n  hint: see `rtsync experiment schedulability --help`");
        return BAD_INPUT;
    }
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("error: cannot create {}: {e}", a.out.display());
        return BAD_INPUT;
    }
    let n_points = sweep.utilizations.len();
    let total = n_points as u64 * sweep.sets;
    println!(
        "rtsync experiment schedulability: {} curves, {} points from U = {} to {}, {} systems each, seed {}{}",
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
        }
    );
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} systems  {elapsed} (eta {eta})",
        )
        .expect("valid template"),
    );
    let jobs: Vec<(usize, u64)> = (0..n_points)
        .flat_map(|pt| (0..sweep.sets).map(move |k| (pt, k)))
        .collect();
    let decided: Result<Vec<Vec<bool>>, _> = jobs
        .par_iter()
        .map(|&(pt, k)| {
            let r = sweep.decide(pt, k);
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    let decided = match decided {
        Ok(d) => d,
        Err((p, d)) => {
            eprint!("{d}");
            eprintln!(
                "error: the analysis under {p} rejects the generated systems\n  hint: leave {p} out (--protocols, --mixes), or change the shape (e.g. --nest-prob 0)"
            );
            return BAD_INPUT;
        }
    };
    let outcomes: Vec<Vec<Vec<bool>>> = decided
        .chunks(sweep.sets as usize)
        .map(|c| c.to_vec())
        .collect();
    let cells = sweep.tally(&outcomes);
    print_table(&sweep, &cells);
    let csv = a.out.join("schedulability.csv");
    let svg = a.out.join("schedulability.svg");
    let title = format!(
        "{} CPUs, {} tasks, {} resources, sections {}: {} systems per point",
        a.shape.cpus,
        a.shape.tasks,
        a.shape.resources,
        a.shape.cs.replace(',', ".."),
        sweep.sets
    );
    let written = std::fs::write(&csv, to_csv(&cells)).and_then(|_| {
        std::fs::write(
            &svg,
            rtsync_report::plot::schedulability(&cells, &sweep.curves, &title),
        )
    });
    if let Err(e) = written {
        eprintln!("error: cannot write into {}: {e}", a.out.display());
        return BAD_INPUT;
    }
    println!("\nwrote {} and {}", csv.display(), svg.display());
    OK
}

fn print_table(sweep: &Sweep, cells: &[Cell]) {
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
}

fn to_csv(cells: &[Cell]) -> String {
    let mut s = String::from("utilization,protocol,systems,schedulable,ratio\n");
    for c in cells {
        s.push_str(&format!(
            "{},{},{},{},{:.6}\n",
            c.utilization,
            c.curve,
            c.sets,
            c.schedulable,
            c.ratio()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_cover_the_range_without_float_drift() {
        assert_eq!(
            points(0.1, 0.5, 0.1).unwrap(),
            vec![0.1, 0.2, 0.3, 0.4, 0.5]
        );
        assert_eq!(points(1.0, 1.0, 0.5).unwrap(), vec![1.0]);
        assert_eq!(points(0.4, 4.0, 0.2).unwrap().len(), 19);
        assert!(points(0.0, 1.0, 0.1).is_err());
        assert!(points(2.0, 1.0, 0.1).is_err());
        assert!(points(0.1, 1.0, 0.0).is_err());
        assert!(points(0.001, 100.0, 0.001).is_err(), "too many points");
    }

    #[test]
    fn defaults_follow_the_cpu_count_and_the_scheduler() {
        let multi = default_protocols(4, Scheduler::Fp);
        assert!(multi.contains(&Protocol::Mpcp) && multi.contains(&Protocol::Mrsp));
        assert!(multi.iter().all(|p| !p.is_uniprocessor()));
        let uni = default_protocols(1, Scheduler::Fp);
        assert!(uni.contains(&Protocol::Pip) && uni.iter().all(|p| p.is_uniprocessor()));
        assert!(
            default_protocols(4, Scheduler::Edf)
                .iter()
                .all(|p| p.supports(Scheduler::Edf))
        );
    }
}
