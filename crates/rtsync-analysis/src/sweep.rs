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
//! stops at the first miss.

use crate::analyze::{Options, verdict};
use crate::generate::{GenConfig, check_config, generate};
use crate::result::Verdict;
use rtsync_model::{Diagnostics, Protocol, System};

/// What to sweep.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The shape of the systems; its `protocol` and `utilization` are
    /// replaced per cell.
    pub base: GenConfig,
    /// The protocols compared.
    pub protocols: Vec<Protocol>,
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
    /// The protocol.
    pub protocol: Protocol,
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
        if self.protocols.is_empty() {
            return Err("no protocol to sweep".into());
        }
        if self.utilizations.is_empty() {
            return Err("no utilization point to sweep".into());
        }
        if self.sets == 0 {
            return Err("at least one system per point is needed".into());
        }
        for &p in &self.protocols {
            if self.base.cpus > 1 && p.is_uniprocessor() {
                return Err(format!(
                    "{p} is a uniprocessor protocol; on {} CPUs sweep the multiprocessor ones, or use --cpus 1",
                    self.base.cpus
                ));
            }
            for &u in &self.utilizations {
                check_config(&self.config(p, u)).map_err(|e| format!("{p} at U = {u}: {e}"))?;
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

    /// System `k` of point `point` under `protocol`: the same draws for
    /// every protocol.
    pub fn system(&self, point: usize, protocol: Protocol, k: u64) -> System {
        let c = self.config(protocol, self.utilizations[point]);
        generate(&c, self.seed, point as u64 * self.sets + k)
    }

    /// Whether system `k` of `point` is schedulable under each protocol,
    /// in the order of [`Sweep::protocols`]. Fails when the analysis
    /// rejects a system (a protocol that forbids what the shape generates),
    /// naming the protocol.
    pub fn decide(&self, point: usize, k: u64) -> Result<Vec<bool>, (Protocol, Diagnostics)> {
        self.protocols
            .iter()
            .map(|&p| {
                verdict(&self.system(point, p, k), &self.options)
                    .map(|v| v == Verdict::Schedulable)
                    .map_err(|d| (p, d))
            })
            .collect()
    }

    /// The cells from per-system outcomes: `outcomes[point][k]` as
    /// [`Sweep::decide`] returns them. Cells are point-major, protocols
    /// in their order within a point.
    pub fn tally(&self, outcomes: &[Vec<Vec<bool>>]) -> Vec<Cell> {
        let mut cells = Vec::new();
        for (point, per_set) in outcomes.iter().enumerate() {
            for (j, &protocol) in self.protocols.iter().enumerate() {
                cells.push(Cell {
                    utilization: self.utilizations[point],
                    protocol,
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
pub fn weighted(cells: &[Cell], protocol: Protocol) -> f64 {
    let (num, den) = cells
        .iter()
        .filter(|c| c.protocol == protocol)
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
            protocols,
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
                    verdict(&s.system(pt, c.protocol, k), &s.options).unwrap()
                        == Verdict::Schedulable
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
                .find(|c| c.protocol == p && c.utilization == u)
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
            protocol: Protocol::Mpcp,
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
}
