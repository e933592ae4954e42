//! Partitioning tasks onto CPUs.
//!
//! * worst-, first- and best-fit decreasing by utilization (the classic bin
//!   packing heuristics; paper 004 uses worst-fit decreasing);
//! * a synchronization-aware heuristic after Lakshmanan, de Niz and Rajkumar
//!   (RTSS 2009): tasks that share resources are bundled (connected
//!   components of the "shares a resource" relation) and each bundle is
//!   placed whole on the least-loaded CPU where it fits, so that its
//!   resources stay local; bundles that fit nowhere are split task by task
//!   (worst fit). Uniprocessor protocols need it: their resources must stay
//!   on one CPU.
//!
//! Tasks that already have a CPU keep it. A DPCP or DFLP synchronization
//! CPU starts loaded with the sections its agents run there (each
//! outermost section's length over its task's period): the heuristics
//! fill it as they fill any CPU, less by that much. (Until 2026-11-27 it
//! received tasks only once no other CPU had room, which packed the other
//! CPUs to utilization 1 first: on 2 CPUs every generated DPCP system of
//! utilization 1 put all its tasks on CPU 0 and failed, and the sweep's
//! DPCP and DFLP curves fell to zero there while the synchronization CPU
//! idled.) A task's own utilization counts its sections too, wherever
//! they run: a little more load than its CPU carries, the simple and
//! cautious side. A task that fits on no CPU (capacity 1) goes to the
//! least-loaded one and the analysis will report the overload;
//! partitioning never fails silently.

use rtsync_model::{Facts, System, Task};
use serde::Serialize;
use std::str::FromStr;

/// How tasks without a CPU are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Heuristic {
    /// The least loaded CPU first.
    WorstFit,
    /// The first CPU where it fits.
    FirstFit,
    /// The most loaded CPU where it fits.
    BestFit,
    /// Bundles resource-sharing tasks (the default).
    #[default]
    SyncAware,
}

impl FromStr for Heuristic {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "wfd" | "worst-fit" => Ok(Heuristic::WorstFit),
            "ffd" | "first-fit" => Ok(Heuristic::FirstFit),
            "bfd" | "best-fit" => Ok(Heuristic::BestFit),
            "sync" | "sync-aware" => Ok(Heuristic::SyncAware),
            _ => Err(format!(
                "unknown partitioning heuristic `{s}`; expected wfd, ffd, bfd or sync"
            )),
        }
    }
}

impl std::fmt::Display for Heuristic {
    /// The short name `--partition` takes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Heuristic::WorstFit => "wfd",
            Heuristic::FirstFit => "ffd",
            Heuristic::BestFit => "bfd",
            Heuristic::SyncAware => "sync",
        })
    }
}

/// Returns a copy of `sys` in which every task has a CPU.
pub fn partition(sys: &System, h: Heuristic) -> System {
    let mut out = sys.clone();
    let m = sys.platform.cpus;
    let util: Vec<f64> = sys.tasks.iter().map(Task::utilization).collect();
    let mut load = vec![0.0f64; m];
    for (i, t) in sys.tasks.iter().enumerate() {
        if let Some(c) = t.cpu {
            load[c] += util[i];
        }
    }
    // The facts, where agents load a CPU or bundles are drawn: built once.
    let agents = sys.resources.iter().any(|r| r.protocol.needs_sync_cpu());
    let facts = (agents || h == Heuristic::SyncAware).then(|| Facts::new(sys));
    if let Some(f) = facts.as_ref().filter(|_| agents) {
        for (x, t) in sys.tasks.iter().enumerate() {
            for (c, rq) in f.agent_sections(sys, x) {
                load[c] += rq.length.ratio(t.period);
            }
        }
    }
    let cpus: Vec<usize> = (0..m).collect();

    let mut free: Vec<usize> = (0..sys.tasks.len())
        .filter(|&i| sys.tasks[i].cpu.is_none())
        .collect();
    if free.is_empty() {
        return out;
    }
    let place = |load: &mut Vec<f64>, u: f64, h: Heuristic| -> usize {
        let fits = |c: &usize| load[*c] + u <= 1.0 + 1e-9;
        let choice = match h {
            Heuristic::FirstFit => cpus.iter().copied().find(|c| fits(c)),
            Heuristic::BestFit => cpus
                .iter()
                .copied()
                .filter(|c| fits(c))
                .max_by(|a, b| load[*a].total_cmp(&load[*b]).then(b.cmp(a))),
            Heuristic::WorstFit | Heuristic::SyncAware => cpus
                .iter()
                .copied()
                .filter(|c| fits(c))
                .min_by(|a, b| load[*a].total_cmp(&load[*b]).then(a.cmp(b))),
        };
        let c = choice.unwrap_or_else(|| {
            (0..load.len())
                .min_by(|a, b| load[*a].total_cmp(&load[*b]).then(a.cmp(b)))
                .unwrap()
        });
        load[c] += u;
        c
    };
    if let Some(facts) = facts.as_ref().filter(|_| h == Heuristic::SyncAware) {
        // Bundles: union-find over shared resources, among unplaced tasks.
        let n = sys.tasks.len();
        let mut bundle = rtsync_model::disjoint::Disjoint::new(n);
        for r in 0..facts.n_resources {
            let us: Vec<usize> = facts
                .users(r)
                .iter()
                .copied()
                .filter(|u| sys.tasks[*u].cpu.is_none())
                .collect();
            for w in us.windows(2) {
                bundle.join(w[0], w[1]);
            }
        }
        let mut bundles: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for &i in &free {
            let r = bundle.root(i);
            bundles.entry(r).or_default().push(i);
        }
        let mut bundles: Vec<Vec<usize>> = bundles.into_values().collect();
        let bu = |b: &Vec<usize>| b.iter().map(|&i| util[i]).sum::<f64>();
        bundles.sort_by(|a, b| bu(b).total_cmp(&bu(a)));
        for b in bundles {
            let u = bu(&b);
            let target = cpus
                .iter()
                .copied()
                .filter(|&c| load[c] + u <= 1.0 + 1e-9)
                .min_by(|x, y| load[*x].total_cmp(&load[*y]).then(x.cmp(y)));
            match target {
                Some(c) => {
                    load[c] += u;
                    for i in b {
                        out.tasks[i].cpu = Some(c);
                    }
                }
                None => {
                    let mut b = b;
                    b.sort_by(|x, y| util[*y].total_cmp(&util[*x]));
                    for i in b {
                        out.tasks[i].cpu = Some(place(&mut load, util[i], Heuristic::WorstFit));
                    }
                }
            }
        }
        return out;
    }
    free.sort_by(|a, b| util[*b].total_cmp(&util[*a]).then(a.cmp(b)));
    for i in free {
        out.tasks[i].cpu = Some(place(&mut load, util[i], h));
    }
    out
}
