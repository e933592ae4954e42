//! Schedulability sweeps: the share of random systems that each protocol's
//! analysis accepts, over a range of total utilizations. This is the
//! figure by which locking protocols are compared (for example the
//! schedulability plots of Block et al. 2007 and Brandenburg 2011, Ch. 6),
//! and with an overhead profile the comparison includes each protocol's
//! measured cost.
//!
//! The comparison is paired: system `k` of a utilization point is drawn
//! from the same random stream for every protocol, so all protocols see the
//! same utilizations, periods, sections and partition, and differ only in
//! the protocol field (and the synchronization CPU where one is needed).
//! Each system is decided by [`verdict`], the response-time analysis that
//! stops at the first miss. A curve may also be a mix ([`Curve::Mix`]):
//! the same draws under the mix's base protocol, then a protocol per
//! resource by its rule ([`Mixing`]).

use crate::analyze::{Options, verdict};
use crate::context::BoundForm;
use crate::generate::{GenConfig, Mixing, check_config, generate};
use crate::result::Verdict;
use rtsync_model::{Diagnostics, Protocol, System};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One curve of a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    /// Every resource under this protocol.
    One(Protocol),
    /// A protocol per resource by this rule.
    Mix(Mixing),
    /// Every resource under this protocol, analysed with its LP bounds
    /// ([`BoundForm::Lp`]); the same systems as [`Curve::One`].
    Lp(Protocol),
    /// Every resource under this protocol, analysed without its job
    /// windows ([`BoundForm::Fixed`]); the same systems as [`Curve::One`].
    Fixed(Protocol),
}

impl Curve {
    /// The protocol the systems are generated under.
    pub fn base(self, scheduler: rtsync_model::Scheduler) -> Protocol {
        match self {
            Curve::One(p) | Curve::Lp(p) | Curve::Fixed(p) => p,
            Curve::Mix(m) => m.base(scheduler),
        }
    }

    /// The form of the bounds the curve's systems are decided with.
    pub fn form(self) -> BoundForm {
        match self {
            Curve::Lp(_) => BoundForm::Lp,
            Curve::Fixed(_) => BoundForm::Fixed,
            Curve::One(_) | Curve::Mix(_) => BoundForm::Classic,
        }
    }
}

impl From<Protocol> for Curve {
    fn from(p: Protocol) -> Curve {
        Curve::One(p)
    }
}

impl fmt::Display for Curve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Curve::One(p) => write!(f, "{p}"),
            Curve::Mix(m) => write!(f, "mix:{m}"),
            // Prefixed with the form's own name, which `--analysis` takes.
            Curve::Lp(p) | Curve::Fixed(p) => write!(f, "{}:{p}", self.form()),
        }
    }
}

/// Which bounds an experiment compares: the classic ones, the LP ones
/// (for the protocols that have them), both side by side, the fixed forms
/// (without job windows), or all three ([`BoundForm`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Forms {
    /// The closed-form bounds.
    #[default]
    Classic,
    /// The LP bounds, for the protocols that have one
    /// ([`crate::blocking::has_lp_form`]); others are left out.
    Lp,
    /// Each protocol with its classic bounds and, where it has them, its
    /// LP bounds beside.
    Both,
    /// The fixed forms, without job windows: `fixed:<protocol>` for the
    /// protocols that have job windows
    /// ([`crate::blocking::has_job_window`]), the classic curve for the
    /// others (whose fixed forms are their classic bounds).
    Fixed,
    /// Each protocol's fixed forms where they differ, its classic bounds,
    /// and its LP bounds where it has them, side by side.
    All,
}

impl Forms {
    /// The curves of `p` under this choice, from the loosest form to the
    /// tightest (fixed, classic, LP).
    pub fn curves(self, p: Protocol) -> Vec<Curve> {
        let lp = crate::blocking::has_lp_form(p);
        let windows = crate::blocking::has_job_window(p);
        match self {
            Forms::Classic => vec![Curve::One(p)],
            Forms::Lp if lp => vec![Curve::Lp(p)],
            Forms::Lp => vec![],
            Forms::Both if lp => vec![Curve::One(p), Curve::Lp(p)],
            Forms::Both => vec![Curve::One(p)],
            Forms::Fixed if windows => vec![Curve::Fixed(p)],
            Forms::Fixed => vec![Curve::One(p)],
            Forms::All => [
                windows.then_some(Curve::Fixed(p)),
                Some(Curve::One(p)),
                lp.then_some(Curve::Lp(p)),
            ]
            .into_iter()
            .flatten()
            .collect(),
        }
    }
}

/// A sweep as a person describes it, on the command line
/// (`rtsync experiment schedulability`), from Python, or in a shard file:
/// words and numbers, every one with a default. [`SweepSpec::build`]
/// resolves it into a [`Sweep`]; the same description always resolves to
/// the same systems, which is what lets a sweep be split into shards on
/// several machines and merged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SweepSpec {
    /// Protocols compared (names as `rtsync check` prints them); empty:
    /// the multiprocessor protocols that support the scheduler on several
    /// CPUs, the uniprocessor ones on one.
    pub protocols: Vec<String>,
    /// Mixes compared beside them: by-length | by-scope | uniprocessor.
    pub mixes: Vec<String>,
    /// First total utilization; `None`: a tenth of the CPUs.
    pub from: Option<f64>,
    /// Last total utilization; `None`: the number of CPUs, at most the
    /// number of tasks.
    pub to: Option<f64>,
    /// Step between points; `None`: a twentieth of the CPUs.
    pub step: Option<f64>,
    /// Random systems per point (every curve analyses the same ones).
    pub sets: u64,
    /// The generator's seed.
    pub seed: u64,
    /// Which bounds.
    pub analysis: Forms,
    /// An overhead profile's TOML text (as `rtsync bench locks --profile`
    /// writes it), charged by the analysis. The text, not a path, so that
    /// a shard runs the same on a machine without the file.
    pub overheads: Option<String>,
    /// The systems' shape.
    pub shape: crate::generate::ShapeSpec,
}

impl Default for SweepSpec {
    fn default() -> SweepSpec {
        SweepSpec {
            protocols: Vec::new(),
            mixes: Vec::new(),
            from: None,
            to: None,
            step: None,
            sets: 200,
            seed: 1,
            analysis: Forms::Classic,
            overheads: None,
            shape: crate::generate::ShapeSpec::default(),
        }
    }
}

/// The utilization points from `from` to `to` (inclusive, within a
/// rounding slack) in steps of `step`.
pub fn points(from: f64, to: f64, step: f64) -> Result<Vec<f64>, String> {
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

/// The protocols swept when none is named: the multiprocessor ones on
/// several CPUs, the uniprocessor ones on one, those that support the
/// scheduler.
pub fn default_protocols(cpus: usize, sched: rtsync_model::Scheduler) -> Vec<Protocol> {
    Protocol::ALL
        .into_iter()
        .filter(|p| p.is_uniprocessor() == (cpus == 1) && p.supports(sched))
        .collect()
}

impl SweepSpec {
    /// The sweep this description names, checked ([`Sweep::check`]), or
    /// what is wrong with it.
    pub fn build(&self) -> Result<Sweep, String> {
        let sched = self.shape.scheduler()?;
        let protocols: Vec<Protocol> = if self.protocols.is_empty() {
            default_protocols(self.shape.cpus, sched)
        } else {
            self.protocols
                .iter()
                .map(|p| p.parse::<Protocol>().map_err(|e| format!("protocols: {e}")))
                .collect::<Result<_, _>>()?
        };
        let mixes: Vec<Mixing> = self
            .mixes
            .iter()
            .map(|m| m.parse::<Mixing>().map_err(|e| format!("mixes: {e}")))
            .collect::<Result<_, _>>()?;
        let curves: Vec<Curve> = protocols
            .iter()
            .flat_map(|&p| self.analysis.curves(p))
            .chain(mixes.iter().map(|&m| Curve::Mix(m)))
            .collect();
        if curves.is_empty() {
            return Err(format!(
                "none of these protocols has an LP bound; --analysis lp covers {}; use --analysis both to see the others beside them",
                crate::blocking::lp_protocols()
            ));
        }
        let cpus = self.shape.cpus.max(1) as f64;
        let to = self.to.unwrap_or(cpus.min(self.shape.tasks as f64));
        let utilizations = points(
            self.from.unwrap_or(cpus / 10.0),
            to,
            self.step.unwrap_or(cpus / 20.0),
        )?;
        let base = self.shape.config(
            protocols.first().copied().unwrap_or(Protocol::Mpcp),
            utilizations[0],
        )?;
        let overheads = match &self.overheads {
            Some(text) => Some(
                crate::Profile::from_toml(text, Some("overheads"))
                    .map_err(|d| format!("overheads: {d}"))?,
            ),
            None => None,
        };
        let sweep = Sweep {
            base,
            curves,
            utilizations,
            sets: self.sets,
            seed: self.seed,
            options: Options {
                tests: crate::TestSelection::Rta,
                first_miss: true,
                overheads,
                ..Options::default()
            },
        };
        sweep.check()?;
        Ok(sweep)
    }

    /// The figure's title: the shape and the systems per point.
    pub fn title(&self) -> String {
        format!(
            "{} CPUs, {} tasks, {} resources, sections {}: {} systems per point",
            self.shape.cpus,
            self.shape.tasks,
            self.shape.resources,
            self.shape.cs.replace(',', ".."),
            self.sets
        )
    }
}

/// What to sweep.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The shape of the systems; its `protocol` and `utilization` are
    /// replaced per cell.
    pub base: GenConfig,
    /// The curves compared: protocols, and mixes.
    pub curves: Vec<Curve>,
    /// Total utilizations, one point each.
    pub utilizations: Vec<f64>,
    /// Systems per point (and protocol).
    pub sets: u64,
    /// The generator's seed.
    pub seed: u64,
    /// Analysis options (tests, overheads, partitioning heuristic).
    pub options: Options,
}

/// One point of one protocol's curve.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The total utilization.
    pub utilization: f64,
    /// The curve.
    pub curve: Curve,
    /// Systems generated.
    pub sets: u64,
    /// Of those, schedulable.
    pub schedulable: u64,
}

impl Cell {
    /// Share of the systems found schedulable, in `[0, 1]`.
    pub fn ratio(&self) -> f64 {
        if self.sets == 0 {
            0.0
        } else {
            self.schedulable as f64 / self.sets as f64
        }
    }
}

impl Sweep {
    /// Checks every point's generator configuration for every protocol,
    /// before any work is done, so that a bad range fails at once with the
    /// point and protocol named.
    pub fn check(&self) -> Result<(), String> {
        if self.curves.is_empty() {
            return Err("no protocol to sweep".into());
        }
        if self.utilizations.is_empty() {
            return Err("no utilization point to sweep".into());
        }
        if self.sets == 0 {
            return Err("at least one system per point is needed".into());
        }
        for &c in &self.curves {
            let sched = self.base.scheduler;
            if let Curve::Mix(m) = c
                && !m.supports(sched)
            {
                return Err(format!("the mix {m} is not analysed under {sched}"));
            }
            let p = c.base(sched);
            if self.base.cpus > 1 && matches!(c, Curve::One(p) if p.is_uniprocessor()) {
                return Err(format!(
                    "{p} is a uniprocessor protocol; on {} CPUs sweep the multiprocessor ones, or use --cpus 1",
                    self.base.cpus
                ));
            }
            for &u in &self.utilizations {
                check_config(&self.config(p, u)).map_err(|e| format!("{c} at U = {u}: {e}"))?;
            }
        }
        Ok(())
    }

    fn config(&self, protocol: Protocol, utilization: f64) -> GenConfig {
        GenConfig {
            protocol,
            utilization,
            ..self.base.clone()
        }
    }

    /// System `k` of point `point` for `curve`: the same draws for every
    /// protocol (and a mix's base protocol).
    pub fn system(&self, point: usize, curve: impl Into<Curve>, k: u64) -> System {
        let curve = curve.into();
        let c = self.config(curve.base(self.base.scheduler), self.utilizations[point]);
        let index = point as u64 * self.sets + k;
        let mut sys = generate(&c, self.seed, index);
        if let Curve::Mix(m) = curve {
            m.apply(&mut sys, self.seed, index);
        }
        sys
    }

    /// Whether system `k` of `point` is schedulable for each curve, in
    /// the order of [`Sweep::curves`]. Fails when the analysis rejects a
    /// system (a protocol that forbids what the shape generates), naming
    /// the curve.
    pub fn decide(&self, point: usize, k: u64) -> Result<Vec<bool>, (Curve, Diagnostics)> {
        // The options of each form the curves use besides the sweep's own.
        let mut forms: Vec<Options> = Vec::new();
        for c in &self.curves {
            let f = c.form();
            if f != self.options.form && !forms.iter().any(|o| o.form == f) {
                forms.push(Options {
                    form: f,
                    ..self.options.clone()
                });
            }
        }
        self.curves
            .iter()
            .map(|&c| {
                let opts = forms
                    .iter()
                    .find(|o| o.form == c.form())
                    .unwrap_or(&self.options);
                verdict(&self.system(point, c, k), opts)
                    .map(|v| v == Verdict::Schedulable)
                    .map_err(|d| (c, d))
            })
            .collect()
    }
}

/// A sweep's tallies over some of its systems: per cell (point-major, as
/// [`Sweep::cells`] orders them), the systems decided and those found
/// schedulable. Tallies of disjoint parts add up to the whole sweep's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts(pub Vec<(u64, u64)>);

impl Counts {
    /// Adds `o`'s tallies (of the same sweep) to these.
    pub fn add(&mut self, o: &Counts) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            a.0 += b.0;
            a.1 += b.1;
        }
    }
}

impl Sweep {
    /// How many systems the sweep decides: points times sets; system `k`
    /// is the `k % sets`-th of point `k / sets`.
    pub fn jobs(&self) -> u64 {
        self.utilizations.len() as u64 * self.sets
    }

    /// Decides the systems `range` of [`Sweep::jobs`] on all cores,
    /// calling `progress` after each; the first that an analysis refuses
    /// stops it with that curve and the diagnostics.
    pub fn count(
        &self,
        range: std::ops::Range<u64>,
        progress: &(dyn Fn() + Sync),
    ) -> Result<Counts, (Curve, Diagnostics)> {
        use rayon::prelude::*;
        let nc = self.curves.len();
        let decided: Vec<(usize, Vec<bool>)> = range
            .into_par_iter()
            .map(|job| {
                let (point, k) = ((job / self.sets) as usize, job % self.sets);
                let r = self.decide(point, k).map(|v| (point, v));
                progress();
                r
            })
            .collect::<Result<_, _>>()?;
        let mut counts = Counts(vec![(0, 0); self.utilizations.len() * nc]);
        for (point, v) in decided {
            for (j, ok) in v.into_iter().enumerate() {
                let c = &mut counts.0[point * nc + j];
                c.0 += 1;
                c.1 += ok as u64;
            }
        }
        Ok(counts)
    }

    /// The cells of the whole sweep from its tallies.
    pub fn cells(&self, counts: &Counts) -> Vec<Cell> {
        let nc = self.curves.len();
        counts
            .0
            .iter()
            .enumerate()
            .map(|(x, &(sets, schedulable))| Cell {
                utilization: self.utilizations[x / nc],
                curve: self.curves[x % nc],
                sets,
                schedulable,
            })
            .collect()
    }
}

/// The cells as `schedulability.csv` holds them.
pub fn to_csv(cells: &[Cell]) -> String {
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

/// Weighted schedulability of one protocol's curve: `Σ U · ratio(U) / Σ U`
/// (Bastoni, Brandenburg and Anderson 2010), one number that weighs the
/// heavily loaded points, where protocols differ, more than the light ones.
pub fn weighted(cells: &[Cell], curve: impl Into<Curve>) -> f64 {
    let curve = curve.into();
    let (num, den) = cells
        .iter()
        .filter(|c| c.curve == curve)
        .fold((0.0, 0.0), |(n, d), c| {
            (n + c.utilization * c.ratio(), d + c.utilization)
        });
    if den > 0.0 { num / den } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::TestSelection;
    use crate::partition::Heuristic;

    fn sweep(protocols: Vec<Protocol>, utilizations: Vec<f64>) -> Sweep {
        Sweep {
            base: GenConfig {
                partition: Some(Heuristic::WorstFit),
                ..GenConfig::default()
            },
            curves: protocols.into_iter().map(Curve::One).collect(),
            utilizations,
            sets: 20,
            seed: 7,
            options: Options {
                tests: TestSelection::Rta,
                first_miss: true,
                ..Options::default()
            },
        }
    }

    /// Every protocol sees the same tasks: same periods, deadlines,
    /// execution times and CPUs; only the resources' protocol differs.
    #[test]
    fn protocols_are_compared_on_the_same_systems() {
        let s = sweep(
            vec![Protocol::Mpcp, Protocol::Dpcp, Protocol::FmlpS],
            vec![1.5],
        );
        for k in 0..s.sets {
            let a = s.system(0, Protocol::Mpcp, k);
            for p in [Protocol::Dpcp, Protocol::FmlpS] {
                let mut b = s.system(0, p, k);
                if p.needs_sync_cpu() {
                    // The partition counts the agents' work on the
                    // synchronization CPU, so it may place the tasks
                    // otherwise (and uses that CPU too: at U = 1.5 on
                    // four CPUs the others have room); the tasks are
                    // otherwise the same.
                    assert!(b.tasks.iter().any(|t| t.cpu == Some(s.base.cpus - 1)));
                    for (x, y) in b.tasks.iter_mut().zip(&a.tasks) {
                        x.cpu = y.cpu;
                    }
                }
                assert_eq!(a.tasks, b.tasks, "system {k} under {p}");
                assert!(b.resources.iter().all(|r| r.protocol == p));
            }
        }
        // Different systems within a point.
        assert_ne!(
            s.system(0, Protocol::Mpcp, 0).tasks,
            s.system(0, Protocol::Mpcp, 1).tasks
        );
    }

    /// Tallies of disjoint ranges add up to the whole sweep's, whatever
    /// the split: what lets a sweep run as shards.
    #[test]
    fn parts_add_up_to_the_whole() {
        let s = sweep(vec![Protocol::Mpcp, Protocol::Dpcp], vec![1.0, 2.5, 3.8]);
        let whole = s.count(0..s.jobs(), &|| {}).unwrap();
        for cuts in [vec![0, 60], vec![0, 1, 59, 60], vec![0, 7, 20, 21, 44, 60]] {
            let mut sum = Counts(vec![(0, 0); whole.0.len()]);
            for w in cuts.windows(2) {
                sum.add(&s.count(w[0]..w[1], &|| {}).unwrap());
            }
            assert_eq!(sum, whole, "cuts {cuts:?}");
        }
        assert!(whole.0.iter().any(|c| c.1 > 0) && whole.0.iter().any(|c| c.1 < c.0));
    }

    /// The tally counts what `verdict` says of each system, cell by cell.
    #[test]
    fn cells_count_the_verdicts() {
        let s = sweep(vec![Protocol::Mpcp, Protocol::Msrp], vec![1.0, 3.8]);
        let cells = s.cells(&s.count(0..s.jobs(), &|| {}).unwrap());
        assert_eq!(cells.len(), 4);
        for c in &cells {
            let pt = s
                .utilizations
                .iter()
                .position(|&u| u == c.utilization)
                .unwrap();
            let direct = (0..s.sets)
                .filter(|&k| {
                    verdict(&s.system(pt, c.curve, k), &s.options).unwrap() == Verdict::Schedulable
                })
                .count() as u64;
            assert_eq!(c.schedulable, direct, "{c:?}");
            assert_eq!(c.sets, s.sets);
        }
        // Light load: everything fits; U = 3.8 of 4 CPUs with 16 tasks
        // sharing resources: fewer do.
        let at = |p: Protocol, u: f64| {
            cells
                .iter()
                .find(|c| c.curve == Curve::One(p) && c.utilization == u)
                .unwrap()
                .ratio()
        };
        assert!(at(Protocol::Mpcp, 1.0) > at(Protocol::Mpcp, 3.8));
    }

    /// Hand-worked: ratios 1.0 at U = 1 and 0.5 at U = 3 weigh
    /// (1·1 + 3·0.5) / (1 + 3) = 0.625.
    #[test]
    fn weighted_schedulability_weighs_by_utilization() {
        let cell = |u: f64, ok: u64| Cell {
            utilization: u,
            curve: Curve::One(Protocol::Mpcp),
            sets: 10,
            schedulable: ok,
        };
        let cells = vec![cell(1.0, 10), cell(3.0, 5)];
        assert!((weighted(&cells, Protocol::Mpcp) - 0.625).abs() < 1e-12);
        assert_eq!(weighted(&cells, Protocol::Dpcp), 0.0);
    }

    #[test]
    fn bad_sweeps_are_refused_with_the_reason() {
        let e = sweep(vec![Protocol::Pcp], vec![1.0]).check().unwrap_err();
        assert!(e.contains("pcp") && e.contains("uniprocessor"), "{e}");
        let e = sweep(vec![Protocol::Mpcp], vec![20.0]).check().unwrap_err();
        assert!(
            e.contains("U = 20") && e.contains("more than 16 tasks"),
            "{e}"
        );
        assert!(sweep(vec![], vec![1.0]).check().is_err());
        assert!(sweep(vec![Protocol::Mpcp], vec![]).check().is_err());
        assert!(sweep(vec![Protocol::Mpcp], vec![1.0, 2.0]).check().is_ok());
    }

    /// A mix's curve sees the same tasks as the protocols' curves, with a
    /// protocol per resource by its rule.
    #[test]
    fn a_mix_is_compared_on_the_same_systems() {
        let mut s = sweep(vec![Protocol::FmlpS, Protocol::FmlpL], vec![1.5]);
        s.curves.push(Curve::Mix(Mixing::ByLength));
        assert!(s.check().is_ok());
        let mut mixed = 0;
        for k in 0..s.sets {
            let a = s.system(0, Protocol::FmlpL, k);
            let m = s.system(0, Curve::Mix(Mixing::ByLength), k);
            assert_eq!(a.tasks, m.tasks, "system {k}");
            let ps = rtsync_model::mix::protocols(&m);
            assert!(
                ps.iter()
                    .all(|p| matches!(p, Protocol::FmlpS | Protocol::FmlpL))
            );
            mixed += usize::from(ps.len() == 2);
            assert!(s.decide(0, k).is_ok());
        }
        assert!(mixed > 10, "only {mixed} of {} systems mixed", s.sets);
    }

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
        let multi = default_protocols(4, rtsync_model::Scheduler::Fp);
        assert!(multi.contains(&Protocol::Mpcp) && multi.contains(&Protocol::Mrsp));
        assert!(multi.iter().all(|p| !p.is_uniprocessor()));
        let uni = default_protocols(1, rtsync_model::Scheduler::Fp);
        assert!(uni.contains(&Protocol::Pip) && uni.iter().all(|p| p.is_uniprocessor()));
        assert!(
            default_protocols(4, rtsync_model::Scheduler::Edf)
                .iter()
                .all(|p| p.supports(rtsync_model::Scheduler::Edf))
        );
    }
}
