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
}

impl Curve {
    /// The protocol the systems are generated under.
    pub fn base(self, scheduler: rtsync_model::Scheduler) -> Protocol {
        match self {
            Curve::One(p) | Curve::Lp(p) => p,
            Curve::Mix(m) => m.base(scheduler),
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
            Curve::Lp(p) => write!(f, "lp:{p}"),
        }
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
        let lp = self
            .curves
            .iter()
            .any(|c| matches!(c, Curve::Lp(_)))
            .then(|| Options {
                form: BoundForm::Lp,
                ..self.options.clone()
            });
        self.curves
            .iter()
            .map(|&c| {
                let opts = match (&lp, c) {
                    (Some(o), Curve::Lp(_)) => o,
                    _ => &self.options,
                };
                verdict(&self.system(point, c, k), opts)
                    .map(|v| v == Verdict::Schedulable)
                    .map_err(|d| (c, d))
            })
            .collect()
    }

    /// The cells from per-system outcomes: `outcomes[point][k]` as
    /// [`Sweep::decide`] returns them. Cells are point-major, curves in
    /// their order within a point.
    pub fn tally(&self, outcomes: &[Vec<Vec<bool>>]) -> Vec<Cell> {
        let mut cells = Vec::new();
        for (point, per_set) in outcomes.iter().enumerate() {
            for (j, &curve) in self.curves.iter().enumerate() {
                cells.push(Cell {
                    utilization: self.utilizations[point],
                    curve,
                    sets: per_set.len() as u64,
                    schedulable: per_set.iter().filter(|o| o[j]).count() as u64,
                });
            }
        }
        cells
    }
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
                    // The partition keeps the synchronization CPU free of
                    // tasks; the tasks are otherwise the same.
                    assert!(b.tasks.iter().all(|t| t.cpu != Some(s.base.cpus - 1)));
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

    /// The tally counts what `verdict` says of each system, cell by cell.
    #[test]
    fn cells_count_the_verdicts() {
        let s = sweep(vec![Protocol::Mpcp, Protocol::Msrp], vec![1.0, 3.8]);
        let outcomes: Vec<Vec<Vec<bool>>> = (0..2)
            .map(|pt| (0..s.sets).map(|k| s.decide(pt, k).unwrap()).collect())
            .collect();
        let cells = s.tally(&outcomes);
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
}
