//! The soundness experiment: on random systems the analysis calls
//! schedulable, no schedule may take a task past its bound.
//!
//! Each schedulable system is simulated four ways from the first wave
//! (WCET and random execution, periodic and randomly sporadic arrivals),
//! then searched ([`rtsync_sim::search`]) for the offsets, arrival delays,
//! jitter and execution times that bring each task closest to its bound.
//! A response above a bound, a missed deadline, a deadlock or a broken
//! invariant is a violation, reported with the plan that reproduces it.
//! Besides the verdict, the experiment measures how tight each bound is:
//! the worst simulated response over the bound, per task.

use rayon::prelude::*;
use rtsync_analysis::components;
use rtsync_analysis::generate::components::component_system;
use rtsync_analysis::generate::generate;
use rtsync_analysis::sweep::Curve;
use rtsync_analysis::{BoundForm, Options as AnalysisOptions, Response, analyze};
use rtsync_model::{Scheduler, System, Time};
use rtsync_sim::search::{SearchOptions, search};
use rtsync_sim::{Arrivals, Exec, Options, Plan, simulate};
use std::path::{Path, PathBuf};

use crate::Shape;

/// What the experiment draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// Task systems of a shape, every resource under one protocol or a
    /// protocol per resource by a mixing rule.
    Systems(Curve),
    /// Component topologies (paper 001) on one CPU; the shape is unused.
    Components,
}

impl std::fmt::Display for Drawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Drawn::Systems(c) => write!(f, "{c}"),
            Drawn::Components => f.write_str("components"),
        }
    }
}

/// One run of the experiment for one kind of system and scheduler.
#[derive(Clone, Debug)]
pub struct Config {
    /// What is drawn.
    pub drawn: Drawn,
    /// Fixed priorities or EDF.
    pub scheduler: Scheduler,
    /// The shape the systems are drawn from.
    pub shape: Shape,
    /// How many systems to draw.
    pub systems: u64,
    /// The seed of the first system (system `i` uses `seed + i`).
    pub seed: u64,
    /// The search per schedulable system; `None` samples only.
    pub search: Option<SearchOptions>,
    /// Where to write each system with a violation (spec and plan).
    pub save: Option<PathBuf>,
}

/// A broken promise, with what reproduces it.
#[derive(Clone, Debug)]
pub struct Violation {
    /// What was exceeded, by how much, for which task.
    pub what: String,
    /// How the schedule was produced: a sampled run's simulate options, or
    /// the search's plan.
    pub how: String,
    /// The search's plan, replayable with `rtsync simulate --plan`.
    pub plan: Option<Plan>,
}

/// What checking one system found.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// The analysis called it schedulable (only those are simulated).
    pub schedulable: bool,
    /// Simulations run (samples and the search's trials).
    pub simulations: u64,
    /// Scheduling events simulated.
    pub events: u64,
    /// Every bound found broken.
    pub violations: Vec<Violation>,
    /// Worst simulated response over the bound, for each task whose bound
    /// exceeds its WCET (a bound equal to the WCET says nothing about
    /// blocking).
    pub tightness: Vec<f64>,
    /// The system as analysed and simulated (partitioned), when schedulable.
    pub placed: Option<System>,
}

/// Analyses `sys`; when schedulable, samples four runs and (with
/// `search`) searches for each task's worst case.
pub fn check_system(
    sys: &System,
    form: BoundForm,
    seed: u64,
    search_opts: Option<&SearchOptions>,
) -> Checked {
    let mut c = Checked::default();
    let opts = AnalysisOptions {
        form,
        ..AnalysisOptions::default()
    };
    let Ok(an) = analyze(sys, &opts) else {
        return c;
    };
    let mut bounds = Vec::with_capacity(an.result.tasks.len());
    for t in &an.result.tasks {
        match t.response {
            Response::Bounded(r) if r <= t.deadline => bounds.push(r),
            _ => return c,
        }
    }
    // A component spec on one CPU: paper 001's bound (no overheads) is
    // searched too, the lower of the two per task.
    if let Some(comps) = an.system.components.as_deref()
        && an.system.platform.cpus == 1
    {
        let p = components::analyse(&an.system, comps, &components::Overheads::default());
        for (b, r) in bounds.iter_mut().zip(&p.response) {
            if let Some(r) = r {
                *b = (*b).min(*r);
            }
        }
    }
    c.schedulable = true;
    let wcets: Vec<Time> = an.result.tasks.iter().map(|t| t.wcet).collect();
    let mut worst: Vec<Option<Time>> = vec![None; bounds.len()];
    sample(&an.system, &bounds, seed, &mut c, &mut worst);
    if let Some(o) = search_opts {
        let found = search(
            &an.system,
            &bounds,
            &SearchOptions {
                seed: o.seed ^ seed,
                ..o.clone()
            },
        );
        c.simulations += found.simulations;
        c.events += found.events;
        for (t, w) in found.worst.iter().enumerate() {
            if let Some((r, _)) = w {
                worst[t] = Some(worst[t].map_or(*r, |m| m.max(*r)));
            }
        }
        for f in found.findings {
            c.violations.push(Violation {
                what: f.what,
                how: "search".into(),
                plan: Some(f.plan),
            });
        }
    }
    c.tightness = worst
        .iter()
        .enumerate()
        .filter(|&(t, _)| bounds[t] > wcets[t])
        .filter_map(|(t, w)| w.map(|r| r.ratio(bounds[t])))
        .collect();
    c.placed = Some(an.system);
    c
}

/// The first wave's four runs: WCET and random execution, periodic and
/// randomly sporadic arrivals, over a few of the longest periods.
fn sample(
    placed: &System,
    bounds: &[Time],
    seed: u64,
    c: &mut Checked,
    worst: &mut [Option<Time>],
) {
    let longest = placed
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
    for (k, &(exec, arrivals, periods)) in runs.iter().enumerate() {
        let opts = Options {
            horizon: longest.checked_mul(periods).unwrap_or(Time::MAX),
            seed: seed.wrapping_mul(31).wrapping_add(k as u64),
            exec,
            arrivals,
            ..Options::default()
        };
        let how = format!(
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
        let mut broke = |what: String| {
            c.violations.push(Violation {
                what,
                how: how.clone(),
                plan: None,
            })
        };
        let res = match simulate(placed, &opts) {
            Ok((r, _)) => r,
            Err(e) => {
                broke(format!("cannot simulate: {e}"));
                return;
            }
        };
        c.simulations += 1;
        c.events += res.events;
        for b in res.broken(bounds) {
            broke(b.what);
        }
        for (t, st) in res.tasks.iter().enumerate() {
            if let Some(r) = st.max_response {
                worst[t] = Some(worst[t].map_or(r, |m| m.max(r)));
            }
        }
    }
}

/// The outcome for one protocol and scheduler.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Systems drawn.
    pub systems: u64,
    /// Of those, the ones the analysis called schedulable.
    pub schedulable: u64,
    /// Simulations run.
    pub simulations: u64,
    /// Scheduling events simulated.
    pub events: u64,
    /// Each violation, prefixed with the system that showed it.
    pub violations: Vec<String>,
    /// Every task's tightness (worst simulated / bound), over all
    /// schedulable systems.
    pub tightness: Vec<f64>,
}

impl Tally {
    fn add(mut self, o: Tally) -> Tally {
        self.systems += o.systems;
        self.schedulable += o.schedulable;
        self.simulations += o.simulations;
        self.events += o.events;
        self.violations.extend(o.violations);
        self.tightness.extend(o.tightness);
        self
    }

    /// The `q`-quantile of the tightness (nearest rank), `None` when no
    /// task was measured.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        quantile(&self.tightness, q)
    }
}

/// The `q`-quantile of `v` by nearest rank (`q` in `[0, 1]`).
pub fn quantile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let rank = ((q.clamp(0.0, 1.0) * s.len() as f64).ceil() as usize).clamp(1, s.len());
    Some(s[rank - 1])
}

/// Runs the experiment on all cores, calling `progress` after each system.
pub fn run(cfg: &Config, progress: &(dyn Fn() + Sync)) -> Tally {
    (0..cfg.systems)
        .into_par_iter()
        .map(|i| {
            let sys = match cfg.drawn {
                Drawn::Components => match component_system(cfg.seed, i) {
                    Some((sys, _)) => sys,
                    None => {
                        progress();
                        return Tally {
                            systems: 1,
                            ..Tally::default()
                        };
                    }
                },
                Drawn::Systems(curve) => {
                    let g = cfg
                        .shape
                        .config(curve.base(cfg.scheduler), cfg.scheduler, i);
                    let mut sys = generate(&g, cfg.seed, i);
                    if let Curve::Mix(m) = curve {
                        m.apply(&mut sys, cfg.seed, i);
                    }
                    sys
                }
            };
            let form = match cfg.drawn {
                Drawn::Systems(Curve::Lp(_)) => BoundForm::Lp,
                _ => BoundForm::Classic,
            };
            let c = check_system(&sys, form, cfg.seed ^ i, cfg.search.as_ref());
            let mut t = Tally {
                systems: 1,
                schedulable: c.schedulable as u64,
                simulations: c.simulations,
                events: c.events,
                violations: Vec::new(),
                tightness: c.tightness,
            };
            if !c.violations.is_empty() {
                let (id, drawn) = match cfg.drawn {
                    Drawn::Components => {
                        (format!("components-{i}"), "component topology".to_string())
                    }
                    Drawn::Systems(curve) => {
                        let name = match curve {
                            Curve::One(p) => p.name().to_string(),
                            Curve::Lp(p) => format!("{}-lp", p.name()),
                            Curve::Mix(m) => m.name().to_string(),
                        };
                        let shape = cfg.shape.of(i);
                        (
                            format!("{name}-{}-{shape}-{i}", cfg.scheduler),
                            format!("shape {shape}"),
                        )
                    }
                };
                let saved = match (&cfg.save, &c.placed) {
                    (Some(dir), Some(placed)) => Some(save(dir, &id, placed, &c.violations)),
                    _ => None,
                };
                for v in &c.violations {
                    let mut line = format!(
                        "system {i} (seed {}, {drawn}): {} [{}]",
                        cfg.seed, v.what, v.how
                    );
                    if let Some(s) = &saved {
                        line.push_str(&format!("; saved as {s}"));
                    }
                    t.violations.push(line);
                }
            }
            progress();
            t
        })
        .reduce(Tally::default, Tally::add)
}

/// Writes `placed` as `<id>.toml` and the first searched violation's plan
/// as `<id>.plan.toml` beside it; returns how to replay, or the error.
fn save(dir: &Path, id: &str, placed: &System, vs: &[Violation]) -> String {
    let spec = dir.join(format!("{id}.toml"));
    let plan = vs.iter().find_map(|v| v.plan.as_ref());
    let plan_path = dir.join(format!("{id}.plan.toml"));
    let replay = match plan {
        Some(_) => format!(
            "rtsync simulate {} --plan {}",
            spec.display(),
            plan_path.display()
        ),
        None => format!(
            "rtsync simulate {} with the options in brackets",
            spec.display()
        ),
    };
    let header = format!(
        "# Found by rtsync experiment soundness: {}\n# Replay: {replay}\n",
        vs[0].what
    );
    let written = std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::write(&spec, header + &rtsync_model::to_toml(placed)))
        .and_then(|_| match plan {
            Some(p) => std::fs::write(&plan_path, p.to_toml(placed)),
            None => Ok(()),
        });
    match written {
        Ok(()) => replay,
        Err(e) => format!("(could not save to {}: {e})", dir.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let v = [0.5, 0.1, 0.9, 0.3];
        assert_eq!(quantile(&v, 0.0), Some(0.1));
        assert_eq!(quantile(&v, 0.5), Some(0.3));
        assert_eq!(quantile(&v, 0.75), Some(0.5));
        assert_eq!(quantile(&v, 1.0), Some(0.9));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
