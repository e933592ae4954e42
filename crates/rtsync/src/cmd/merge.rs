//! `rtsync merge`: the part files of a sharded experiment added up to the
//! files one run writes (see [`rtsync_experiment::shard`]).

use super::{BAD_INPUT, NOT_SCHEDULABLE, OK};
use rtsync_experiment::shard::{self, Outcome, Part};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  for i in 0 1 2 3; do rtsync experiment schedulability --sets 1000 --shard $i/4 --out parts; done
  rtsync merge parts --out sweep
  rtsync merge parts/part-0-of-2.json parts/part-1-of-2.json --out soundness

The parts must come from the same command split the same way; a shard run
twice gives the same file, so a retried one is harmless. docs/SWEEPS.md
shows a Slurm job array and a Ray cluster doing the shards.")]
pub struct Args {
    /// Part files (`part-I-of-N.json`), or folders holding them.
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// Folder for the experiment's files (default: `sweep` for a
    /// schedulability sweep, `soundness` for the soundness experiment, as
    /// a single run writes them).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    let mut files = Vec::new();
    for p in &a.parts {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = match std::fs::read_dir(p) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|f| {
                        f.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("part-") && n.ends_with(".json"))
                    })
                    .collect(),
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", p.display());
                    return BAD_INPUT;
                }
            };
            if found.is_empty() {
                eprintln!(
                    "error: no part-*.json in {}\n  hint: run the experiment with --shard I/N --out {} first",
                    p.display(),
                    p.display()
                );
                return BAD_INPUT;
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    let mut parts = Vec::with_capacity(files.len());
    for f in &files {
        let name = f.display().to_string();
        let part = std::fs::read_to_string(f)
            .map_err(|e| format!("cannot read {name}: {e}"))
            .and_then(|t| Part::from_json(&t, &name));
        match part {
            Ok(p) => parts.push((name, p)),
            Err(e) => {
                eprintln!("error: {e}");
                return BAD_INPUT;
            }
        }
    }
    let out = a.out.unwrap_or_else(|| match parts[0].1.experiment {
        shard::Experiment::Schedulability(_) => PathBuf::from("sweep"),
        shard::Experiment::Soundness(_) => PathBuf::from("soundness"),
    });
    println!("rtsync merge: {} part file(s)", parts.len());
    finish(parts, &out, false)
}

/// Ends a run: with `shard_only`, writes the one part into `out`;
/// otherwise merges the parts, prints the experiment's table and writes
/// its files into `out`.
pub(super) fn finish(parts: Vec<(String, Part)>, out: &Path, shard_only: bool) -> u8 {
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("error: cannot create {}: {e}", out.display());
        return BAD_INPUT;
    }
    if shard_only {
        let part = &parts[0].1;
        let name = part.shard.file_name();
        let path = out.join(&name);
        if let Err(e) = rtsync_report::files::write_whole(out, &name, &part.to_json()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return BAD_INPUT;
        }
        println!(
            "wrote {} (shard {}); when all {} are there: rtsync merge {} --out DIR",
            path.display(),
            part.shard,
            part.shard.count,
            out.display()
        );
        return OK;
    }
    let outcome = match shard::merge(&parts) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let code = match &outcome {
        Outcome::Schedulability { sweep, cells, .. } => {
            super::sweep::print_table(sweep, cells);
            OK
        }
        Outcome::Soundness { cases, tallies, .. } => {
            super::experiment::print_soundness(cases, tallies, None);
            if tallies.iter().any(|t| !t.violations.is_empty()) {
                NOT_SCHEDULABLE
            } else {
                OK
            }
        }
    };
    if let Err(bad) = write_files(out, &outcome) {
        return bad;
    }
    code
}

/// Writes the outcome's files into `out` (created) and says where; on
/// failure, says what and returns the bad-input code.
pub(super) fn write_files(out: &Path, outcome: &Outcome) -> Result<(), u8> {
    let mut written = Vec::new();
    for (name, content) in outcome.files() {
        let path = out.join(name);
        if let Err(e) = std::fs::create_dir_all(out)
            .and_then(|_| rtsync_report::files::write_whole(out, name, &content))
        {
            eprintln!("error: cannot write {}: {e}", path.display());
            return Err(BAD_INPUT);
        }
        written.push(path.display().to_string());
    }
    println!("\nwrote {}", written.join(" and "));
    Ok(())
}
