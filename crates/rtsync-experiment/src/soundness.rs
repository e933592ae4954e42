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
use rtsync_analysis::generate::Mixing;
use rtsync_analysis::generate::components::component_system;
use rtsync_analysis::overheads::Profile;
use rtsync_analysis::sweep::{Curve, Forms};
use rtsync_analysis::{BoundForm, Options as AnalysisOptions, Response, analyze};
use rtsync_model::{Scheduler, System, Time};
use rtsync_sim::search::{SearchOptions, search};
use rtsync_sim::{Arrivals, Exec, Options, Plan, simulate};
use serde::{Deserialize, Serialize};
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
    /// An overhead profile charged to every bound; the charged system
    /// (`Profile::inflate`: what `rtsync run`, `demo` and `simulate
    /// --overheads` run) is what is simulated and searched.
    pub overheads: Option<Profile>,
}

/// The experiment as a person describes it, on the command line
/// (`rtsync experiment soundness`), from Python or in a shard file: every
/// field has the command line's default. [`SoundnessSpec::cases`] turns it
/// into one [`Config`] per protocol (or mix) and scheduler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SoundnessSpec {
    /// Random systems per case.
    pub systems: u64,
    /// Only this protocol.
    pub protocol: Option<String>,
    /// Only systems with a protocol per resource by this rule.
    pub mix: Option<String>,
    /// Only component topologies (paper 001).
    pub components: bool,
    /// Seed of the system stream and of the search.
    pub seed: u64,
    /// Also the protocols that support EDF, under EDF.
    pub edf: bool,
    /// The systems drawn: classic | local-global | suspending | nested |
    /// dense | jitter | crowded | all.
    pub shape: String,
    /// Simulated events the search may spend per schedulable system (0:
    /// the four sampled runs only).
    pub search_budget: u64,
    /// Which bounds to check.
    pub analysis: Forms,
    /// Where to write each system with a violation.
    pub save: Option<PathBuf>,
    /// An overhead profile (`rtsync bench locks` writes one) charged to
    /// every bound, the charged systems searched against them.
    pub overheads: Option<PathBuf>,
}

impl Default for SoundnessSpec {
    fn default() -> SoundnessSpec {
        SoundnessSpec {
            systems: 10_000,
            protocol: None,
            mix: None,
            components: false,
            seed: 1,
            edf: false,
            shape: "all".into(),
            search_budget: 60_000,
            analysis: Forms::Classic,
            save: None,
            overheads: None,
        }
    }
}

impl SoundnessSpec {
    /// One configuration per case, in the order the experiment reports
    /// them: every protocol (or only the one named) under fixed
    /// priorities, then the mixes, then (with `edf`) the same under EDF,
    /// then the component topologies; or what is wrong.
    pub fn cases(&self) -> Result<Vec<Config>, String> {
        if self.systems == 0 {
            return Err("systems must be at least 1".into());
        }
        let protocol = self
            .protocol
            .as_deref()
            .map(str::parse::<rtsync_model::Protocol>)
            .transpose()?;
        let mix = self.mix.as_deref().map(str::parse::<Mixing>).transpose()?;
        if self.components && (protocol.is_some() || mix.is_some()) {
            return Err("components draws topologies: it takes no protocol or mix".into());
        }
        let shape: Shape = self.shape.parse()?;
        let all = protocol.is_none() && mix.is_none() && !self.components;
        let mut drawn: Vec<(Drawn, Scheduler)> = Vec::new();
        for sched in [Scheduler::Fp, Scheduler::Edf] {
            if sched == Scheduler::Edf && !self.edf || self.components {
                continue;
            }
            drawn.extend(
                rtsync_model::Protocol::ALL
                    .into_iter()
                    .filter(|&p| (all || protocol == Some(p)) && p.supports(sched))
                    .flat_map(|p| self.analysis.curves(p))
                    // An LP or fixed-form curve where neither LP bounds nor
                    // job windows are charged (EDF) would repeat the
                    // classic one under another name.
                    .filter(|c| {
                        c.form() == BoundForm::Classic
                            || rtsync_analysis::blocking::lp_applies(sched)
                    })
                    .map(|c| (Drawn::Systems(c), sched)),
            );
            drawn.extend(
                Mixing::ALL
                    .into_iter()
                    .filter(|&m| (all || mix == Some(m)) && m.supports(sched))
                    // The mixes have no LP bound.
                    .filter(|_| self.analysis != Forms::Lp)
                    .map(|m| (Drawn::Systems(Curve::Mix(m)), sched)),
            );
        }
        if (all || self.components) && self.analysis != Forms::Lp {
            drawn.push((Drawn::Components, Scheduler::Fp));
        }
        if drawn.is_empty() {
            return Err(if self.analysis == Forms::Lp {
                format!(
                    "nothing to draw: {} has no LP bound\n  hint: --analysis lp covers {}",
                    self.protocol.as_deref().unwrap_or("the protocol given"),
                    rtsync_analysis::blocking::lp_protocols()
                )
            } else {
                "nothing to draw: the protocol or mix given is not analysed under fp\n  hint: add --edf, or name another"
                    .to_string()
            });
        }
        let overheads = match &self.overheads {
            None => None,
            Some(path) => {
                Some(Profile::load(path).map_err(|d| {
                    // The caller words it as an error of its own.
                    let text = d.to_string();
                    text.trim_end().trim_start_matches("error: ").to_string()
                })?)
            }
        };
        let search = (self.search_budget > 0).then(|| SearchOptions {
            budget: self.search_budget,
            seed: self.seed,
            ..SearchOptions::default()
        });
        Ok(drawn
            .into_iter()
            .map(|(drawn, scheduler)| Config {
                drawn,
                scheduler,
                shape,
                systems: self.systems,
                seed: self.seed,
                search: search.clone(),
                save: self.save.clone(),
                overheads: overheads.clone(),
            })
            .collect())
    }
}

/// The per-case figures as `soundness.csv` holds them: counts and the
/// tightness quantiles, nothing that depends on the machine or the time
/// taken, so that a run split into shards gives the same file.
pub fn to_csv(cases: &[Config], tallies: &[Tally], search_budget: u64) -> String {
    let mut csv = String::from(
        "protocol,scheduler,shape,systems,schedulable,simulations,events,violations,tasks,p50,p90,p99,max,search_budget\n",
    );
    for (c, t) in cases.iter().zip(tallies) {
        let shape = match c.drawn {
            Drawn::Systems(_) => c.shape.to_string(),
            Drawn::Components => "topology".to_string(),
        };
        let mut line = vec![c.drawn.to_string(), c.scheduler.to_string(), shape];
        line.extend(t.figures());
        line.push(search_budget.to_string());
        csv.push_str(&line.join(","));
        csv.push('\n');
    }
    csv
}

/// The tightness histogram (`tightness.svg`), one series per case.
pub fn tightness_svg(cases: &[Config], tallies: &[Tally], shape: &str) -> String {
    let series: Vec<(String, Vec<f64>)> = cases
        .iter()
        .zip(tallies)
        .map(|(c, t)| {
            (
                format!("{} ({})", c.drawn, c.scheduler),
                t.tightness.clone(),
            )
        })
        .collect();
    rtsync_report::plot::histogram(
        &series,
        &format!(
            "Tightness of the bounds: worst simulated response / bound per task (shape {shape})"
        ),
    )
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

/// What the analysis promises for one system.
pub enum Promise {
    /// The model refuses the system: a generator that writes one is a bug
    /// to see, not a system to analyse (the bounds assume the protocols'
    /// rules). The diagnostics.
    Invalid(String),
    /// The analysis does not call it schedulable: nothing is promised.
    None,
    /// Schedulable: the system as analysed (partitioned), and each task's
    /// bound, at most its deadline.
    Bounds(Box<rtsync_analysis::Analysis>, Vec<Time>),
}

/// Analyses `sys` under `form` (and `overheads`): the bounds a
/// simulation of the placed system must keep. A component spec on one
/// CPU whose resources are all interfaces is held to paper 001's bound
/// too (no overheads), the lower of the two per task. Not with a profile:
/// paper 001 charges a request's call and reply, not the profile's
/// context switches and releases, which the charged system runs.
pub fn promise(sys: &System, form: BoundForm, overheads: Option<&Profile>) -> Promise {
    let d = rtsync_model::validate(sys);
    if d.has_errors() {
        return Promise::Invalid(d.to_string());
    }
    let opts = AnalysisOptions {
        form,
        overheads: overheads.cloned(),
        ..AnalysisOptions::default()
    };
    let Ok(an) = analyze(sys, &opts) else {
        return Promise::None;
    };
    let mut bounds = Vec::with_capacity(an.result.tasks.len());
    for t in &an.result.tasks {
        match t.response {
            Response::Bounded(r) if r <= t.deadline => bounds.push(r),
            _ => return Promise::None,
        }
    }
    if overheads.is_none()
        && let Some(comps) = an.system.components.as_deref()
        && an.system.platform.cpus == 1
        && components::outside_the_model(&an.system, comps).is_empty()
    {
        let p = components::analyse(&an.system, comps, &components::Overheads::default());
        for (b, r) in bounds.iter_mut().zip(&p.response) {
            if let Some(r) = r {
                *b = (*b).min(*r);
            }
        }
    }
    Promise::Bounds(Box::new(an), bounds)
}

/// Analyses `sys`; when schedulable, samples four runs and (with
/// `search`) searches for each task's worst case.
pub fn check_system(
    sys: &System,
    form: BoundForm,
    overheads: Option<&Profile>,
    seed: u64,
    search_opts: Option<&SearchOptions>,
) -> Checked {
    let mut c = Checked::default();
    let (an, bounds) = match promise(sys, form, overheads) {
        Promise::Invalid(d) => {
            c.violations.push(Violation {
                what: format!("the stream drew an invalid system:\n{d}"),
                how: "generation".into(),
                plan: None,
            });
            c.placed = Some(sys.clone());
            return c;
        }
        Promise::None => return c,
        Promise::Bounds(an, bounds) => (an, bounds),
    };
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
                how: format!("search; its plan: {}", f.choices),
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// This tally followed by `o`'s (systems drawn after these).
    pub fn then(mut self, o: Tally) -> Tally {
        self.systems += o.systems;
        self.schedulable += o.schedulable;
        self.simulations += o.simulations;
        self.events += o.events;
        self.violations.extend(o.violations);
        self.tightness.extend(o.tightness);
        self
    }

    /// The figures a report shows, in its column order: systems,
    /// schedulable, simulations, events, violations, tasks measured, and
    /// the tightness's p50, p90, p99 and max (`-` where none).
    pub fn figures(&self) -> Vec<String> {
        let q = |x: f64| {
            self.quantile(x)
                .map_or("-".to_string(), |v| format!("{v:.3}"))
        };
        vec![
            self.systems.to_string(),
            self.schedulable.to_string(),
            self.simulations.to_string(),
            self.events.to_string(),
            self.violations.len().to_string(),
            self.tightness.len().to_string(),
            q(0.5),
            q(0.9),
            q(0.99),
            q(1.0),
        ]
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
    run_range(cfg, 0..cfg.systems, progress)
}

/// Runs the experiment on systems `range` of the stream (a shard of it).
/// Each system depends on its index alone, so the tallies of consecutive
/// ranges, added in order, are the whole run's.
pub fn run_range(cfg: &Config, range: std::ops::Range<u64>, progress: &(dyn Fn() + Sync)) -> Tally {
    range
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
                    let mut sys =
                        cfg.shape
                            .system(curve.base(cfg.scheduler), cfg.scheduler, cfg.seed, i);
                    if let Curve::Mix(m) = curve {
                        m.apply(&mut sys, cfg.seed, i);
                    }
                    sys
                }
            };
            let form = match cfg.drawn {
                Drawn::Systems(c) => c.form(),
                Drawn::Components => BoundForm::Classic,
            };
            let c = check_system(
                &sys,
                form,
                cfg.overheads.as_ref(),
                cfg.seed ^ i,
                cfg.search.as_ref(),
            );
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
                        let shape = cfg.shape.of(i);
                        (
                            format!("{}-{}-{shape}-{i}", curve_name(curve), cfg.scheduler),
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
        .reduce(Tally::default, Tally::then)
}

/// A curve as the files of a run name it: the protocol, `-lp` or
/// `-fixed` for those bounds, or the mix.
pub(crate) fn curve_name(curve: Curve) -> String {
    match curve {
        Curve::One(p) => p.name().to_string(),
        Curve::Lp(p) => format!("{}-lp", p.name()),
        Curve::Fixed(p) => format!("{}-fixed", p.name()),
        Curve::Mix(m) => m.name().to_string(),
    }
}

/// Writes `placed` as `<id>.toml` and the first searched violation's plan
/// as `<id>.plan.toml` beside it; returns how to replay, or the error.
fn save(dir: &Path, id: &str, placed: &System, vs: &[Violation]) -> String {
    let plan = vs.iter().find_map(|v| v.plan.as_ref());
    save_case(dir, id, placed, &vs[0].what, plan, None, "soundness")
}

/// Writes `placed` as `<id>.toml` (headed by `what`, what `experiment`
/// found) and `plan`, where given, as `<id>.plan.toml` beside it; returns
/// how to replay, or the error.
pub(crate) fn save_case(
    dir: &Path,
    id: &str,
    placed: &System,
    what: &str,
    plan: Option<&Plan>,
    horizon: Option<Time>,
    experiment: &str,
) -> String {
    let spec = dir.join(format!("{id}.toml"));
    let plan_path = dir.join(format!("{id}.plan.toml"));
    // A plan replays its planned jobs by default; where the finding came
    // from a run as long as `horizon` (the grid's, whose worst can be a
    // later job's), the replay runs as long.
    let longer = horizon.map_or(String::new(), |h| format!(" --horizon {h}"));
    let replay = match plan {
        Some(_) => format!(
            "rtsync simulate {} --plan {}{longer}",
            spec.display(),
            plan_path.display()
        ),
        None => format!(
            "rtsync simulate {} with the options in brackets",
            spec.display()
        ),
    };
    let header = format!("# Found by rtsync experiment {experiment}: {what}\n# Replay: {replay}\n");
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

    /// With a profile, the bounds checked are the charged ones and the
    /// system simulated is the charged one (`--overheads`): a context
    /// switch of a millisecond lengthens every job of the checked system
    /// and makes a system schedulable without it miss; the spec's profile
    /// reaches every case, and a profile that cannot be read is an error.
    #[test]
    fn a_profile_is_charged_to_what_is_checked() {
        let sys = Shape::Classic.system(rtsync_model::Protocol::Pip, Scheduler::Fp, 1, 0);
        let plain = check_system(&sys, BoundForm::Classic, None, 1, None);
        assert!(plain.schedulable && plain.violations.is_empty());
        let exec = |s: &System| -> Vec<Time> {
            s.tasks
                .iter()
                .map(|t| rtsync_model::system::body_execution(&t.body).unwrap())
                .collect()
        };
        let light = Profile::from_toml("context_switch = \"1us\"\n", None).unwrap();
        let charged = check_system(&sys, BoundForm::Classic, Some(&light), 1, None);
        assert!(charged.schedulable && charged.violations.is_empty());
        let (before, after) = (
            exec(plain.placed.as_ref().unwrap()),
            exec(charged.placed.as_ref().unwrap()),
        );
        assert!(
            before.iter().zip(&after).all(|(b, a)| a > b),
            "every job charged: {before:?} -> {after:?}"
        );
        let heavy = Profile::from_toml("context_switch = \"50ms\"\n", None).unwrap();
        assert!(!check_system(&sys, BoundForm::Classic, Some(&heavy), 1, None).schedulable);

        let dir = std::env::temp_dir().join(format!("rtsync-soundness-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("profile.toml");
        std::fs::write(&path, "context_switch = \"1us\"\n").unwrap();
        let spec = SoundnessSpec {
            protocol: Some("pip".into()),
            overheads: Some(path.clone()),
            ..SoundnessSpec::default()
        };
        assert!(
            spec.cases()
                .unwrap()
                .iter()
                .all(|c| c.overheads == Some(light.clone()))
        );
        let missing = SoundnessSpec {
            overheads: Some(dir.join("none.toml")),
            ..spec
        };
        assert!(missing.cases().unwrap_err().contains("none.toml"));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A system the model refuses is reported, not analysed: the stream
    /// once drew multi-unit resources that a mix had handed to NPCS, and
    /// release builds analysed them as though single-unit.
    #[test]
    fn an_invalid_system_drawn_is_a_violation() {
        let text = r#"
            [platform]
            cpus = 1
            protocol = "npcs"
            [[resource]]
            name = "r"
            [[task]]
            name = "a"
            period = "10ms"
            body = [ { lock = "r", hold = "1ms" } ]
        "#;
        let (mut sys, _) = rtsync_model::load_str(text, None).unwrap();
        assert!(
            check_system(&sys, BoundForm::Classic, None, 1, None)
                .violations
                .is_empty()
        );
        sys.resources[0].units = 2;
        let c = check_system(&sys, BoundForm::Classic, None, 1, None);
        assert_eq!(c.violations.len(), 1);
        assert!(
            c.violations[0].what.contains("invalid system"),
            "{}",
            c.violations[0].what
        );
        assert!(c.violations[0].what.contains("single-unit"));
        assert!(c.placed.is_some(), "kept for --save");
    }

    /// Under EDF the LP bounds are not charged, so `--analysis both
    /// --edf` checks MSRP's LP curve under fixed priorities only: an LP
    /// case under EDF would repeat the classic one under another name.
    #[test]
    fn lp_cases_are_drawn_where_lp_bounds_are_charged() {
        let spec = SoundnessSpec {
            protocol: Some("msrp".into()),
            edf: true,
            analysis: Forms::Both,
            ..SoundnessSpec::default()
        };
        let cases: Vec<(bool, Scheduler)> = spec
            .cases()
            .unwrap()
            .iter()
            .map(|c| (matches!(c.drawn, Drawn::Systems(Curve::Lp(_))), c.scheduler))
            .collect();
        assert_eq!(
            cases,
            [
                (false, Scheduler::Fp),
                (true, Scheduler::Fp),
                (false, Scheduler::Edf)
            ]
        );
    }

    /// `--analysis all` draws a case for each form a protocol has: DPCP's
    /// fixed forms, classic and LP bounds, each case's form the one its
    /// systems are checked with.
    #[test]
    fn every_form_is_checked_with_its_own_bounds() {
        let spec = SoundnessSpec {
            protocol: Some("dpcp".into()),
            analysis: Forms::All,
            ..SoundnessSpec::default()
        };
        let forms: Vec<BoundForm> = spec
            .cases()
            .unwrap()
            .iter()
            .map(|c| match c.drawn {
                Drawn::Systems(c) => c.form(),
                Drawn::Components => BoundForm::Classic,
            })
            .collect();
        assert_eq!(forms, [BoundForm::Fixed, BoundForm::Classic, BoundForm::Lp]);
    }
}
