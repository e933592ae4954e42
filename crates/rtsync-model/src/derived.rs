//! Facts derived from a system, computed once and read by every engine:
//! WCETs, critical sections per task and resource, ceilings, preemption
//! levels, which resources are global under the partition, and the nesting
//! relation between resources.
//!
//! Dense tables indexed `[task * n_resources + resource]` keep the analysis
//! inner loops free of hashing.

use crate::protocol::Scheduler;
use crate::system::{Cpu, Priority, ResourceId, Segment, System, TaskId};
use crate::time::Time;

/// One critical section of a task's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub resource: ResourceId,
    pub units: u32,
    /// Execution inside the section, nested sections included.
    pub length: Time,
    /// Resources held when this one is requested, outermost first.
    pub held: Vec<ResourceId>,
}

impl Request {
    pub fn is_outermost(&self) -> bool {
        self.held.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskFacts {
    /// Worst-case execution time (suspensions excluded).
    pub wcet: Time,
    /// Total self-suspension.
    pub suspension: Time,
    /// Number of self-suspension segments.
    pub suspensions: u32,
    /// Every critical section, in body order (outer before inner).
    pub requests: Vec<Request>,
}

/// What one task does with one resource, kept together so that a bound
/// reading a pair touches one cache line.
#[derive(Clone, Copy, Debug, Default)]
struct Pair {
    /// Longest section at any nesting level.
    cs: Time,
    /// Longest outermost section.
    outer_cs: Time,
    /// Sections per job.
    count: u32,
    /// Most units held at once.
    units: u32,
}

#[derive(Clone, Debug)]
pub struct Facts {
    pub n_tasks: usize,
    pub n_resources: usize,
    pub cpus: usize,
    pub tasks: Vec<TaskFacts>,
    /// `[task * n_resources + resource]`: what a task does with a resource.
    pairs: Vec<Pair>,
    /// Tasks that lock each resource (at any nesting level).
    pub users: Vec<Vec<TaskId>>,
    /// Highest priority among a resource's users (the PCP/IPCP ceiling).
    pub ceiling: Vec<Priority>,
    /// `[resource][cpu]`: highest priority among the users on that CPU, 0 if none.
    pub local_ceiling: Vec<Vec<Priority>>,
    /// A resource is global when its users sit on more than one CPU (or on a
    /// CPU other than its synchronization CPU is irrelevant: only users count).
    pub global: Vec<bool>,
    /// Preemption level of each task (Baker): larger for shorter relative
    /// deadlines; equal deadlines share a level.
    pub level: Vec<u32>,
    /// Per resource: the highest preemption level of a user (the SRP
    /// ceiling when no unit is free).
    pub level_ceiling: Vec<u32>,
    /// Nesting edges `(outer, inner, task)`: `task` requests `inner` while
    /// holding `outer` (directly or further out).
    pub nesting: Vec<(ResourceId, ResourceId, TaskId)>,
    /// Group of each resource: resources connected by nesting share a group
    /// (FMLP group locks).
    pub group: Vec<usize>,
    /// Tasks on each CPU, highest priority first (unassigned tasks omitted).
    pub on_cpu: Vec<Vec<TaskId>>,
    /// Every task, highest priority first, equal priorities in index
    /// order: sorted once here, so that the tables an analysis builds per
    /// priority come out sorted by walking it.
    pub by_priority: Vec<TaskId>,
    pub cpu_of: Vec<Option<Cpu>>,
    pub priority: Vec<Priority>,
    pub scheduler: Scheduler,
}

impl Facts {
    /// Derives the facts. Arithmetic overflow in a body saturates at
    /// [`Time::MAX`]; validation reports such bodies as errors first.
    pub fn new(sys: &System) -> Facts {
        let nt = sys.tasks.len();
        let nr = sys.resources.len();
        let cpus = sys.platform.cpus;
        let mut tasks = Vec::with_capacity(nt);
        let mut pairs = vec![Pair::default(); nt * nr];
        let mut users = vec![Vec::new(); nr];
        let mut nesting = Vec::new();
        let mut held = Vec::new();
        for (ti, t) in sys.tasks.iter().enumerate() {
            let mut tf = TaskFacts {
                wcet: Time::ZERO,
                suspension: Time::ZERO,
                suspensions: 0,
                requests: Vec::new(),
            };
            tf.wcet = walk(&t.body, &mut held, &mut tf);
            for rq in &tf.requests {
                let p = &mut pairs[ti * nr + rq.resource];
                p.cs = p.cs.max(rq.length);
                if rq.is_outermost() {
                    p.outer_cs = p.outer_cs.max(rq.length);
                }
                p.count += 1;
                p.units = p.units.max(rq.units);
                // Tasks are visited in order, so a task already listed is
                // the last one.
                if users[rq.resource].last() != Some(&ti) {
                    users[rq.resource].push(ti);
                }
                for &h in &rq.held {
                    if !nesting.contains(&(h, rq.resource, ti)) {
                        nesting.push((h, rq.resource, ti));
                    }
                }
            }
            tasks.push(tf);
        }
        let priority: Vec<Priority> = sys.tasks.iter().map(|t| t.priority).collect();
        // On one CPU every task is on CPU 0, placed or not.
        let cpu_of: Vec<Option<Cpu>> = sys
            .tasks
            .iter()
            .map(|t| t.cpu.or((cpus == 1).then_some(0)))
            .collect();
        let ceiling = users
            .iter()
            .map(|u| u.iter().map(|&t| priority[t]).max().unwrap_or(0))
            .collect();
        let mut local_ceiling = vec![vec![0; cpus]; nr];
        let mut global = vec![false; nr];
        for r in 0..nr {
            let mut seen: Option<Option<Cpu>> = None;
            for &t in &users[r] {
                if let Some(c) = cpu_of[t]
                    && c < cpus
                {
                    local_ceiling[r][c] = local_ceiling[r][c].max(priority[t]);
                }
                match seen {
                    None => seen = Some(cpu_of[t]),
                    Some(s) if s != cpu_of[t] || s.is_none() => global[r] = true,
                    _ => {}
                }
            }
        }
        // Preemption levels: rank of distinct deadlines, longest deadline = 1.
        let mut deadlines: Vec<Time> = sys.tasks.iter().map(|t| t.deadline).collect();
        deadlines.sort_unstable_by(|a, b| b.cmp(a));
        deadlines.dedup();
        let level: Vec<u32> = sys
            .tasks
            .iter()
            .map(|t| deadlines.partition_point(|&d| d > t.deadline) as u32 + 1)
            .collect();
        let level_ceiling = users
            .iter()
            .map(|u| u.iter().map(|&t| level[t]).max().unwrap_or(0))
            .collect();
        // Nesting groups by union-find.
        let mut group: Vec<usize> = (0..nr).collect();
        fn find(g: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while g[r] != r {
                r = g[r];
            }
            let mut y = x;
            while g[y] != r {
                let n = g[y];
                g[y] = r;
                y = n;
            }
            r
        }
        for &(a, b, _) in &nesting {
            let (ra, rb) = (find(&mut group, a), find(&mut group, b));
            if ra != rb {
                group[ra.max(rb)] = ra.min(rb);
            }
        }
        for r in 0..nr {
            group[r] = find(&mut group, r);
        }
        // Priority and index in one key: distinct keys, so the unstable
        // sort (no scratch buffer) gives the one order.
        let mut by_priority: Vec<TaskId> = (0..nt).collect();
        by_priority.sort_unstable_by_key(|&t| (std::cmp::Reverse(priority[t]), t));
        let mut on_cpu: Vec<Vec<TaskId>> = vec![Vec::new(); cpus];
        let mut per_cpu = vec![0usize; cpus];
        for c in cpu_of.iter().flatten().filter(|&&c| c < cpus) {
            per_cpu[*c] += 1;
        }
        for (list, &k) in on_cpu.iter_mut().zip(&per_cpu) {
            list.reserve_exact(k);
        }
        for &t in &by_priority {
            if let Some(c) = cpu_of[t]
                && c < cpus
            {
                on_cpu[c].push(t);
            }
        }
        Facts {
            n_tasks: nt,
            n_resources: nr,
            cpus,
            tasks,
            pairs,
            users,
            ceiling,
            local_ceiling,
            global,
            level,
            level_ceiling,
            nesting,
            group,
            on_cpu,
            by_priority,
            cpu_of,
            priority,
            scheduler: sys.platform.scheduler,
        }
    }

    /// Longest section of `task` on `res` at any nesting level (zero if none).
    #[inline]
    pub fn cs(&self, task: TaskId, res: ResourceId) -> Time {
        self.pairs[task * self.n_resources + res].cs
    }
    /// Longest outermost section of `task` on `res`.
    #[inline]
    pub fn outer_cs(&self, task: TaskId, res: ResourceId) -> Time {
        self.pairs[task * self.n_resources + res].outer_cs
    }
    /// Number of sections of `task` on `res` per job.
    #[inline]
    pub fn requests(&self, task: TaskId, res: ResourceId) -> u32 {
        self.pairs[task * self.n_resources + res].count
    }
    /// Largest number of units of `res` that `task` holds at once.
    #[inline]
    pub fn units(&self, task: TaskId, res: ResourceId) -> u32 {
        self.pairs[task * self.n_resources + res].units
    }
    /// Longest outermost section of `task` (any resource).
    pub fn longest_outer_cs(&self, task: TaskId) -> Time {
        (0..self.n_resources)
            .map(|r| self.outer_cs(task, r))
            .max()
            .unwrap_or(Time::ZERO)
    }
}

/// Records the sections of `body` in body order (outer before inner) and
/// returns the body's execution, saturating at [`Time::MAX`] (as
/// [`crate::system::body_execution`] reports overflow).
fn walk(body: &[Segment], held: &mut Vec<ResourceId>, tf: &mut TaskFacts) -> Time {
    let mut exec = Time::ZERO;
    for s in body {
        match s {
            Segment::Compute(c) => exec = exec.saturating_add(*c),
            Segment::Suspend(d) => {
                tf.suspension = tf.suspension.saturating_add(*d);
                tf.suspensions += 1;
            }
            Segment::Lock {
                resource,
                units,
                body,
            } => {
                let k = tf.requests.len();
                tf.requests.push(Request {
                    resource: *resource,
                    units: *units,
                    length: Time::ZERO,
                    held: held.clone(),
                });
                held.push(*resource);
                let length = walk(body, held, tf);
                held.pop();
                tf.requests[k].length = length;
                exec = exec.saturating_add(length);
            }
        }
    }
    exec
}
