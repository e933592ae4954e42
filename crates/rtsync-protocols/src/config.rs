//! Everything the machine needs from the system, computed once before the
//! first request: one [`Rule`] per resource, each thread's home CPU and
//! preemption level, and SRP's per-need ceilings.

use crate::protocols;
use crate::rule::Rule;
use rtsync_model::{Cpu, Facts, Scheduler, System};

/// The system as the machine sees it, fixed before the first request.
#[derive(Clone, Debug)]
pub struct Config {
    /// Fixed priorities or EDF.
    pub scheduler: Scheduler,
    /// CPUs of the platform.
    pub cpus: usize,
    /// Per resource.
    pub rules: Vec<Rule>,
    /// Units of each resource.
    pub units: Vec<u32>,
    /// Per thread: the CPU it is placed on.
    pub home: Vec<Cpu>,
    /// Per thread: SRP preemption level (the priority under FP, Baker's
    /// deadline rank under EDF), the scale of [`Config::need`].
    pub level: Vec<u32>,
    /// Per resource: `(units, level)` for each user, its largest request;
    /// the SRP ceiling with `n` units free is the highest level of a user
    /// needing more than `n` (Baker 1991, Def. 4).
    pub need: Vec<Vec<(u32, u32)>>,
    /// `[resource][cpu]`: the highest priority among the resource's users
    /// on that CPU (MrsP's local ceiling).
    pub local_ceiling: Vec<Vec<u64>>,
    /// `[resource][cpu]`: the highest priority among the resource's users
    /// on the other CPUs (MPCP's boosting key for a section on that CPU).
    pub remote_ceiling: Vec<Vec<u64>>,
    /// Per thread: the most resources its sections hold at once (its
    /// deepest nesting plus one; zero without sections), so that the
    /// machine sizes its lists once and a grant allocates nothing.
    pub held_at_once: Vec<usize>,
    /// Per resource: how many threads use it (its queue is never longer).
    pub users: Vec<usize>,
}

impl Config {
    /// The configuration of a partitioned system (unplaced tasks are put on
    /// CPU 0). Under EDF the ceiling protocols' priorities have no meaning;
    /// kernels refuse those combinations before building a machine.
    pub fn new(sys: &System) -> Config {
        let f = Facts::new(sys);
        let home: Vec<Cpu> = f.cpu_of.iter().map(|c| c.unwrap_or(0)).collect();
        let level: Vec<u32> = match sys.platform.scheduler {
            Scheduler::Fp => f.priority.clone(),
            Scheduler::Edf => f.levels_of_tasks().to_vec(),
        };
        let mut need = vec![Vec::new(); f.n_resources];
        for (t, &lt) in level.iter().enumerate() {
            for rq in f.sections(t) {
                let list: &mut Vec<(u32, u32)> = &mut need[rq.resource];
                match list.iter_mut().find(|e| e.1 == lt) {
                    Some(e) => e.0 = e.0.max(rq.units),
                    None => list.push((rq.units, lt)),
                }
            }
        }
        let rules = (0..f.n_resources)
            .map(|r| protocols::rule(sys, &f, &home, r))
            .collect();
        Config {
            scheduler: sys.platform.scheduler,
            cpus: sys.platform.cpus,
            rules,
            units: sys.resources.iter().map(|r| r.units.max(1)).collect(),
            home,
            level,
            need,
            local_ceiling: (0..f.n_resources)
                .map(|r| (0..f.cpus).map(|c| f.local_ceiling(r, c) as u64).collect())
                .collect(),
            remote_ceiling: (0..f.n_resources)
                .map(|r| (0..f.cpus).map(|c| f.remote_ceiling(r, c) as u64).collect())
                .collect(),
            users: (0..f.n_resources).map(|r| f.users(r).len()).collect(),
            held_at_once: (0..f.n_tasks)
                .map(|t| {
                    f.sections(t)
                        .iter()
                        .map(|rq| f.held(rq).len() + 1)
                        .max()
                        .unwrap_or(0)
                })
                .collect(),
        }
    }

    /// Threads (one per task).
    pub fn threads(&self) -> usize {
        self.home.len()
    }

    /// Resources.
    pub fn resources(&self) -> usize {
        self.rules.len()
    }

    /// SRP ceiling of `r` when `free` units are available.
    pub fn stack_ceiling(&self, r: usize, free: u32) -> u32 {
        self.need[r]
            .iter()
            .filter(|&&(u, _)| u > free)
            .map(|&(_, l)| l)
            .max()
            .unwrap_or(0)
    }
}
