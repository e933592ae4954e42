//! Experiments split into shards that run anywhere, and merged.
//!
//! An experiment's work is a numbered list of jobs (a sweep's systems,
//! point by point; the soundness experiment's systems, case by case), and
//! every job depends on its number and the experiment's description alone.
//! Shard `i` of `n` is the `i`-th of `n` consecutive, nearly equal ranges
//! of that list ([`Shard::range`]). It writes a [`Part`]: the description,
//! which shard, and what its jobs found. [`merge`] checks that the parts
//! describe the same experiment and cover every shard, then adds them in
//! shard order, which gives the single-machine run's [`Outcome`], and so
//! its files, byte for byte, whatever the shard count. A shard run twice
//! writes the same bytes, so a retried shard is harmless; two parts of the
//! same shard that differ are refused.
//!
//! The ranges are consecutive rather than interleaved so that the order in
//! which the findings are added (a soundness run lists its violations in
//! system order) is the single run's.

use crate::soundness::{self, Config, SoundnessSpec, Tally};
use rtsync_analysis::sweep::{Cell, Counts, Sweep, SweepSpec};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// The format tag of a part file; a file with another is refused.
pub const FORMAT: &str = "rtsync-part-1";

/// One shard of `count`: `index` in `0..count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 0.
    pub index: u64,
    /// How many shards in all.
    pub count: u64,
}

impl Shard {
    /// The whole experiment as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// This shard's jobs out of `total`: the `index`-th of `count`
    /// consecutive ranges whose sizes differ by at most one.
    pub fn range(self, total: u64) -> Range<u64> {
        let at = |k: u64| ((total as u128 * k as u128) / self.count as u128) as u64;
        at(self.index)..at(self.index + 1)
    }

    /// The file a shard's part is written to.
    pub fn file_name(self) -> String {
        format!("part-{}-of-{}.json", self.index, self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;
    /// `i/n` with `0 <= i < n`, as a Slurm job array's task id and size
    /// give it.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad =
            || format!("expected a shard as I/N with 0 <= I < N (for example 0/4), got `{s}`");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The experiment a part belongs to, as described.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "experiment", content = "spec")]
#[allow(clippy::large_enum_variant)] // one per run: boxing buys nothing
pub enum Experiment {
    /// `rtsync experiment schedulability`.
    Schedulability(SweepSpec),
    /// `rtsync experiment soundness`.
    Soundness(SoundnessSpec),
}

/// What a shard's jobs found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Found {
    /// Systems decided and found schedulable, per cell.
    Schedulability(Counts),
    /// Per case, the tally of the shard's systems.
    Soundness(Vec<Tally>),
}

/// A shard's findings, as its part file holds them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// [`FORMAT`].
    pub format: String,
    /// Which shard.
    pub shard: Shard,
    /// The experiment.
    #[serde(flatten)]
    pub experiment: Experiment,
    /// What its jobs found.
    pub found: Found,
}

impl Part {
    /// The part as written to its file: JSON, one line per field, the
    /// same bytes for the same shard.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a part is plain data") + "\n"
    }

    /// Reads a part from its file's text; `name` names it in errors.
    pub fn from_json(text: &str, name: &str) -> Result<Part, String> {
        let p: Part = serde_json::from_str(text)
            .map_err(|e| format!("{name}: not an rtsync part file ({e})"))?;
        if p.format != FORMAT {
            return Err(format!(
                "{name}: part format `{}`, this rtsync reads `{FORMAT}`; rerun the shard with this version",
                p.format
            ));
        }
        Ok(p)
    }
}

/// An experiment resolved and ready to run: its description, and what the
/// description resolves to.
#[allow(clippy::large_enum_variant)] // one per run: boxing buys nothing
pub enum Prepared {
    /// A schedulability sweep.
    Schedulability(SweepSpec, Sweep),
    /// The soundness experiment's cases.
    Soundness(SoundnessSpec, Vec<Config>),
}

impl Experiment {
    /// Resolves the description, or says what is wrong with it.
    pub fn prepare(&self) -> Result<Prepared, String> {
        match self {
            Experiment::Schedulability(s) => Ok(Prepared::Schedulability(s.clone(), s.build()?)),
            Experiment::Soundness(s) => Ok(Prepared::Soundness(s.clone(), s.cases()?)),
        }
    }
}

impl Prepared {
    /// The number of jobs the experiment has.
    pub fn jobs(&self) -> u64 {
        match self {
            Prepared::Schedulability(_, sw) => sw.jobs(),
            Prepared::Soundness(s, cases) => s.systems * cases.len() as u64,
        }
    }

    /// Runs `shard`'s jobs on all cores, calling `progress` after each.
    pub fn run(&self, shard: Shard, progress: &(dyn Fn() + Sync)) -> Result<Part, String> {
        let range = shard.range(self.jobs());
        let (experiment, found) = match self {
            Prepared::Schedulability(spec, sw) => {
                let counts = sw.count(range, progress).map_err(|(curve, d)| {
                    format!("the analysis under {curve} rejects a generated system: {d}")
                })?;
                (
                    Experiment::Schedulability(spec.clone()),
                    Found::Schedulability(counts),
                )
            }
            Prepared::Soundness(spec, cases) => {
                // Job `k` is system `k % systems` of case `k / systems`.
                let n = spec.systems;
                let tallies = cases
                    .iter()
                    .enumerate()
                    .map(|(c, cfg)| {
                        let lo = range.start.clamp(c as u64 * n, (c as u64 + 1) * n) - c as u64 * n;
                        let hi = range.end.clamp(c as u64 * n, (c as u64 + 1) * n) - c as u64 * n;
                        soundness::run_range(cfg, lo..hi, progress)
                    })
                    .collect();
                (
                    Experiment::Soundness(spec.clone()),
                    Found::Soundness(tallies),
                )
            }
        };
        Ok(Part {
            format: FORMAT.into(),
            shard,
            experiment,
            found,
        })
    }
}

/// What a whole experiment found.
#[allow(clippy::large_enum_variant)] // one per run: boxing buys nothing
pub enum Outcome {
    /// A sweep's cells.
    Schedulability {
        /// Its description.
        spec: SweepSpec,
        /// What it resolves to.
        sweep: Sweep,
        /// One cell per point and curve.
        cells: Vec<Cell>,
    },
    /// The soundness experiment's tallies.
    Soundness {
        /// Its description.
        spec: SoundnessSpec,
        /// Its cases.
        cases: Vec<Config>,
        /// One tally per case.
        tallies: Vec<Tally>,
    },
}

impl Outcome {
    /// The files a run writes, name and content: the same for a single
    /// run and for merged shards.
    pub fn files(&self) -> Vec<(&'static str, String)> {
        match self {
            Outcome::Schedulability { spec, sweep, cells } => vec![
                ("schedulability.csv", rtsync_analysis::sweep::to_csv(cells)),
                (
                    "schedulability.svg",
                    rtsync_report::plot::schedulability(cells, &sweep.curves, &spec.title()),
                ),
            ],
            Outcome::Soundness {
                spec,
                cases,
                tallies,
            } => vec![
                (
                    "soundness.csv",
                    soundness::to_csv(cases, tallies, spec.search_budget),
                ),
                (
                    "tightness.svg",
                    soundness::tightness_svg(cases, tallies, &spec.shape),
                ),
            ],
        }
    }
}

/// Checks that `parts` are the shards of one experiment, every shard
/// there, and adds them up; or says what is missing or inconsistent.
/// Duplicates of a shard (a retried job) must be identical.
pub fn merge(parts: &[(String, Part)]) -> Result<Outcome, String> {
    let Some((first_name, first)) = parts.first() else {
        return Err("no part files to merge".into());
    };
    let count = first.shard.count;
    let mut by_index: Vec<Option<(&str, &Part)>> = vec![None; count as usize];
    for (name, p) in parts {
        if p.experiment != first.experiment {
            return Err(format!(
                "{name} is a shard of another experiment than {first_name} (the descriptions differ); merge the parts of one run"
            ));
        }
        if p.shard.count != count {
            return Err(format!(
                "{name} is shard {} but {first_name} is shard {}: merge parts split the same way",
                p.shard, first.shard
            ));
        }
        let slot = &mut by_index[p.shard.index as usize];
        match slot {
            Some((other, q)) if q.found != p.found => {
                return Err(format!(
                    "{name} and {other} are both shard {} but found different things; rerun that shard",
                    p.shard
                ));
            }
            Some(_) => {}
            None => *slot = Some((name, p)),
        }
    }
    let missing: Vec<String> = by_index
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "missing shard(s) {}: run them (--shard I/N) and merge again",
            missing.join(", ")
        ));
    }
    let prepared = first.experiment.prepare()?;
    let mut found = by_index.iter().map(|s| &s.expect("all present").1.found);
    match prepared {
        Prepared::Schedulability(spec, sweep) => {
            let mut total: Option<Counts> = None;
            for f in found.by_ref() {
                let Found::Schedulability(c) = f else {
                    return Err("a schedulability part holds soundness findings".into());
                };
                if c.0.len() != sweep.utilizations.len() * sweep.curves.len() {
                    return Err("a part's cells do not match its sweep".into());
                }
                match &mut total {
                    Some(t) => t.add(c),
                    None => total = Some(c.clone()),
                }
            }
            let cells = sweep.cells(&total.expect("at least one part"));
            Ok(Outcome::Schedulability { spec, sweep, cells })
        }
        Prepared::Soundness(spec, cases) => {
            let mut tallies: Vec<Tally> = vec![Tally::default(); cases.len()];
            for f in found {
                let Found::Soundness(ts) = f else {
                    return Err("a soundness part holds schedulability findings".into());
                };
                if ts.len() != cases.len() {
                    return Err("a part's cases do not match its experiment".into());
                }
                for (t, x) in tallies.iter_mut().zip(ts) {
                    *t = std::mem::take(t).then(x.clone());
                }
            }
            Ok(Outcome::Soundness {
                spec,
                cases,
                tallies,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_jobs_into_consecutive_ranges() {
        for total in [0u64, 1, 7, 60, 1001] {
            for count in [1u64, 2, 3, 7, 64] {
                let mut next = 0;
                for index in 0..count {
                    let r = Shard { index, count }.range(total);
                    assert_eq!(r.start, next, "{index}/{count} of {total}");
                    assert!(r.end - r.start <= total / count + 1);
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn shard_names_are_checked() {
        assert_eq!("3/8".parse::<Shard>(), Ok(Shard { index: 3, count: 8 }));
        for bad in ["8/8", "1/0", "x/2", "2", "-1/4"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("I/N"), "{bad}: {e}");
        }
    }
}
