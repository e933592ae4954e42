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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The resource locked.
    pub resource: ResourceId,
    /// Units requested.
    pub units: u32,
    /// Resources held when this one is requested (its nesting depth).
    depth: u32,
    /// Execution inside the section, nested sections included.
    pub length: Time,
    /// Where the held resources start in [`Facts::held`]'s pool.
    held_at: u32,
}

impl Request {
    /// Whether no other section of the task is held when it begins.
    pub fn is_outermost(&self) -> bool {
        self.depth == 0
    }
}

/// What one task's body adds up to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskFacts {
    /// Worst-case execution time (suspensions excluded).
    pub wcet: Time,
    /// Total self-suspension.
    pub suspension: Time,
    /// Number of self-suspension segments.
    pub suspensions: u32,
    /// The task's sections in [`Facts::sections`]' pool.
    sections: (u32, u32),
}

/// What one task does with one resource, kept together so that a bound
/// reading a pair touches one cache line.
#[derive(Clone, Copy, Debug, Default)]
struct Pair {
    /// Longest section at any nesting level.
    cs: Time,
    /// Longest outermost section.
    outer_cs: Time,
    /// The sections' lengths summed, each at its own.
    total: Time,
    /// Sections per job.
    count: u32,
    /// Most units held at once.
    units: u32,
}

/// Lists of lists (per resource, per CPU) in one allocation: list `k` is
/// `items[at[k]..at[k + 1]]`. A system's facts are derived once per
/// analysis, and in sweeps of many systems the allocator's time for dozens
/// of small vectors per system showed in profiles.
#[derive(Clone, Debug, Default)]
struct Lists {
    at: Vec<u32>,
    items: Vec<usize>,
}

impl Lists {
    fn get(&self, k: usize) -> &[usize] {
        &self.items[self.at[k] as usize..self.at[k + 1] as usize]
    }
    /// `n` lists holding each `(list, item)` of `entries`, in entry order
    /// within a list (a counting sort by list).
    fn gather(n: usize, entries: impl Iterator<Item = (usize, usize)> + Clone) -> Lists {
        let mut at = vec![0u32; n + 1];
        for (k, _) in entries.clone() {
            at[k + 1] += 1;
        }
        for k in 1..=n {
            at[k] += at[k - 1];
        }
        let mut items = vec![0; at[n] as usize];
        let mut next: Vec<u32> = at[..n].to_vec();
        for (k, x) in entries {
            items[next[k] as usize] = x;
            next[k] += 1;
        }
        Lists { at, items }
    }
}

/// Preemption levels, derived when first asked for: only EDF analysis,
/// SRP-style ceilings under EDF and reports read them.
#[derive(Clone, Debug)]
struct Levels {
    level: Vec<u32>,
    ceiling: Vec<u32>,
}

/// What every engine needs to know about a system, derived once from it
/// (`Facts::new`): execution times, sections, users and ceilings of each
/// resource, nesting, priorities and preemption levels.
#[derive(Clone, Debug)]
pub struct Facts {
    /// Tasks in the system.
    pub n_tasks: usize,
    /// Resources in the system.
    pub n_resources: usize,
    /// CPUs of the platform.
    pub cpus: usize,
    /// Per task.
    pub tasks: Vec<TaskFacts>,
    /// Every task's sections, task after task, each in body order (outer
    /// before inner).
    sections: Vec<Request>,
    /// The resources held at each nested request, outermost first.
    held: Vec<ResourceId>,
    /// `[task * n_resources + resource]`: what a task does with a resource.
    pairs: Vec<Pair>,
    /// Tasks that lock each resource (at any nesting level), in index order.
    users: Lists,
    /// Highest priority among a resource's users (the PCP/IPCP ceiling).
    pub ceiling: Vec<Priority>,
    /// `[resource * cpus + cpu]`: highest priority among the users on that
    /// CPU, 0 if none.
    local_ceiling: Vec<Priority>,
    /// `[resource * cpus + cpu]`: highest priority among the users *not*
    /// on that CPU (unplaced users count as elsewhere), 0 if none.
    remote_ceiling: Vec<Priority>,
    /// A resource is global when its users sit on more than one CPU (or on a
    /// CPU other than its synchronization CPU is irrelevant: only users count).
    pub global: Vec<bool>,
    /// Deadlines of the tasks, for the preemption levels.
    deadline: Vec<Time>,
    levels: std::sync::OnceLock<Levels>,
    /// Nesting edges `(outer, inner, task)`: `task` requests `inner` while
    /// holding `outer` (directly or further out).
    pub nesting: Vec<(ResourceId, ResourceId, TaskId)>,
    /// Group of each resource: resources of one protocol connected by
    /// nesting share a group (FMLP group locks).
    pub group: Vec<usize>,
    /// Tasks on each CPU, highest priority first (unassigned tasks omitted).
    on_cpu: Lists,
    /// Every task, highest priority first, equal priorities in index
    /// order: sorted once here, so that the tables an analysis builds per
    /// priority come out sorted by walking it.
    pub by_priority: Vec<TaskId>,
    /// Each task's CPU, `None` until partitioning assigns one (on a
    /// platform of one CPU, that CPU).
    pub cpu_of: Vec<Option<Cpu>>,
    /// Whether every task has its CPU in `cpu_of`: until then any
    /// resource used by more than one task may end up global.
    pub partitioned: bool,
    /// Each task's priority (larger runs first).
    pub priority: Vec<Priority>,
    /// Fixed priorities or EDF.
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
        let mut walker = Walker {
            sections: Vec::with_capacity(4 * nt),
            held: Vec::new(),
            stack: Vec::new(),
            suspension: Time::ZERO,
            suspensions: 0,
        };
        let mut nesting = Vec::new();
        // `(resource, task)` at a task's first section on the resource.
        let mut uses: Vec<(u32, u32)> = Vec::with_capacity(2 * nt);
        let mut priority = Vec::with_capacity(nt);
        let mut cpu_of = Vec::with_capacity(nt);
        let mut deadline = Vec::with_capacity(nt);
        for (ti, t) in sys.tasks.iter().enumerate() {
            let first = walker.sections.len();
            walker.suspension = Time::ZERO;
            walker.suspensions = 0;
            let wcet = walker.walk(&t.body);
            for rq in &walker.sections[first..] {
                let p = &mut pairs[ti * nr + rq.resource];
                p.cs = p.cs.max(rq.length);
                p.total = p.total.saturating_add(rq.length);
                if rq.is_outermost() {
                    p.outer_cs = p.outer_cs.max(rq.length);
                }
                if p.count == 0 {
                    uses.push((rq.resource as u32, ti as u32));
                }
                p.count += 1;
                p.units = p.units.max(rq.units);
                let at = rq.held_at as usize;
                for &h in &walker.held[at..at + rq.depth as usize] {
                    if !nesting.contains(&(h, rq.resource, ti)) {
                        nesting.push((h, rq.resource, ti));
                    }
                }
            }
            tasks.push(TaskFacts {
                wcet,
                suspension: walker.suspension,
                suspensions: walker.suspensions,
                sections: (first as u32, walker.sections.len() as u32),
            });
            priority.push(t.priority);
            // On one CPU every task is on CPU 0, placed or not.
            cpu_of.push(t.cpu.or((cpus == 1).then_some(0)));
            deadline.push(t.deadline);
        }
        // Users per resource, in task order.
        let users = Lists::gather(nr, uses.iter().map(|&(r, t)| (r as usize, t as usize)));
        let mut ceiling = vec![0; nr];
        let mut local_ceiling = vec![0; nr * cpus];
        let mut remote_ceiling = vec![0; nr * cpus];
        let mut global = vec![false; nr];
        for r in 0..nr {
            let mut seen: Option<Option<Cpu>> = None;
            // The highest unplaced user: elsewhere from every CPU.
            let mut unplaced = 0;
            for &t in users.get(r) {
                ceiling[r] = ceiling[r].max(priority[t]);
                if let Some(c) = cpu_of[t]
                    && c < cpus
                {
                    let lc = &mut local_ceiling[r * cpus + c];
                    *lc = (*lc).max(priority[t]);
                } else {
                    unplaced = unplaced.max(priority[t]);
                }
                match seen {
                    None => seen = Some(cpu_of[t]),
                    Some(s) if s != cpu_of[t] || s.is_none() => global[r] = true,
                    _ => {}
                }
            }
            if let Some(given) = sys.resources[r].ceiling {
                ceiling[r] = ceiling[r].max(given);
                for lc in &mut local_ceiling[r * cpus..(r + 1) * cpus] {
                    if *lc > 0 {
                        *lc = (*lc).max(given);
                    }
                }
                if unplaced > 0 {
                    unplaced = unplaced.max(given);
                }
            }
            // The remote ceilings, from the local ones (raised as above):
            // the highest of the other CPUs' and of the unplaced users.
            let local = &local_ceiling[r * cpus..(r + 1) * cpus];
            let (mut first, mut second) = ((0, usize::MAX), 0);
            for (c, &lc) in local.iter().enumerate() {
                if lc > first.0 {
                    second = first.0;
                    first = (lc, c);
                } else {
                    second = second.max(lc);
                }
            }
            for c in 0..cpus {
                let elsewhere = if c == first.1 { second } else { first.0 };
                remote_ceiling[r * cpus + c] = elsewhere.max(unplaced);
            }
        }
        // Nesting groups. Only resources of one protocol share a group:
        // FMLP groups its short resources and its long ones apart (Block
        // et al. 2007), a long section nesting a short one locks both
        // groups in turn.
        let mut groups = crate::disjoint::Disjoint::new(nr);
        for &(a, b, _) in &nesting {
            if sys.resources[a].protocol == sys.resources[b].protocol {
                groups.join(a, b);
            }
        }
        let group = groups.roots();
        let by_priority = priority_order(&priority);
        let on_cpu = Lists::gather(
            cpus,
            by_priority.iter().filter_map(|&t| match cpu_of[t] {
                Some(c) if c < cpus => Some((c, t)),
                _ => None,
            }),
        );
        Facts {
            n_tasks: nt,
            n_resources: nr,
            cpus,
            tasks,
            sections: walker.sections,
            held: walker.held,
            pairs,
            users,
            ceiling,
            local_ceiling,
            remote_ceiling,
            global,
            deadline,
            levels: std::sync::OnceLock::new(),
            nesting,
            group,
            on_cpu,
            by_priority,
            partitioned: cpu_of.iter().all(Option::is_some),
            cpu_of,
            priority,
            scheduler: sys.platform.scheduler,
        }
    }

    /// The sections of `task`, in body order (outer before inner).
    #[inline]
    pub fn sections(&self, task: TaskId) -> &[Request] {
        let (a, b) = self.tasks[task].sections;
        &self.sections[a as usize..b as usize]
    }
    /// The outermost sections of `task` that agents run, each with the
    /// CPU that runs it ([`System::serving_cpu`]); `sys` is the system
    /// these facts were derived from. Nested sections run inside their
    /// outermost one's agent.
    pub fn agent_sections<'a>(
        &'a self,
        sys: &'a System,
        task: TaskId,
    ) -> impl Iterator<Item = (Cpu, &'a Request)> + 'a {
        self.sections(task)
            .iter()
            .filter(|rq| rq.is_outermost())
            .filter_map(|rq| sys.serving_cpu(rq.resource).map(|c| (c, rq)))
    }
    /// The resources held when `rq` (a section of this system) is
    /// requested, outermost first; empty for an outermost section.
    pub fn held(&self, rq: &Request) -> &[ResourceId] {
        let at = rq.held_at as usize;
        &self.held[at..at + rq.depth as usize]
    }
    /// Tasks that lock `res` (at any nesting level), in index order.
    #[inline]
    pub fn users(&self, res: ResourceId) -> &[TaskId] {
        self.users.get(res)
    }
    /// Highest priority among the users of `res` on `cpu`, 0 if none.
    #[inline]
    pub fn local_ceiling(&self, res: ResourceId, cpu: Cpu) -> Priority {
        self.local_ceiling[res * self.cpus + cpu]
    }
    /// Highest priority among the users of `res` not on `cpu` (raised to a
    /// given ceiling), 0 if none: the ceiling that MPCP boosts a section of
    /// `res` on `cpu` to, counting only the tasks that can wait for it from
    /// elsewhere (Lakshmanan, de Niz and Rajkumar, RTSS 2009).
    #[inline]
    pub fn remote_ceiling(&self, res: ResourceId, cpu: Cpu) -> Priority {
        self.remote_ceiling[res * self.cpus + cpu]
    }
    /// Tasks on `cpu`, highest priority first.
    #[inline]
    pub fn on_cpu(&self, cpu: Cpu) -> &[TaskId] {
        self.on_cpu.get(cpu)
    }
    fn levels(&self) -> &Levels {
        self.levels.get_or_init(|| {
            // Rank of distinct deadlines, longest deadline = 1.
            let mut d = self.deadline.clone();
            d.sort_unstable_by(|a, b| b.cmp(a));
            d.dedup();
            let level: Vec<u32> = self
                .deadline
                .iter()
                .map(|&x| d.partition_point(|&y| y > x) as u32 + 1)
                .collect();
            let ceiling = (0..self.n_resources)
                .map(|r| self.users(r).iter().map(|&t| level[t]).max().unwrap_or(0))
                .collect();
            Levels { level, ceiling }
        })
    }
    /// Preemption level of each task (Baker): larger for shorter relative
    /// deadlines; equal deadlines share a level.
    pub fn levels_of_tasks(&self) -> &[u32] {
        &self.levels().level
    }
    /// Preemption level of `task`.
    #[inline]
    pub fn level(&self, task: TaskId) -> u32 {
        self.levels().level[task]
    }
    /// The highest preemption level among the users of `res` (the SRP
    /// ceiling when no unit is free).
    pub fn level_ceiling(&self, res: ResourceId) -> u32 {
        self.levels().ceiling[res]
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
    /// The lengths of `task`'s sections on `res` in one job, summed, each
    /// at its own: at most [`Facts::cs`] times [`Facts::requests`], equal
    /// where they are one length.
    #[inline]
    pub fn cs_total(&self, task: TaskId, res: ResourceId) -> Time {
        self.pairs[task * self.n_resources + res].total
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

/// Highest priority first, equal priorities in index order.
///
/// When the priorities span a range not much wider than the task count
/// (rate- or deadline-monotonic ranks, SCHED_FIFO's 1..99), a counting
/// sort places each task with no comparison; otherwise one unstable sort of
/// distinct `(priority, index)` keys.
fn priority_order(priority: &[Priority]) -> Vec<TaskId> {
    let n = priority.len();
    let (Some(&lo), Some(&hi)) = (priority.iter().min(), priority.iter().max()) else {
        return Vec::new();
    };
    let span = (hi - lo) as usize + 1;
    if span <= 4 * n + 128 {
        // Bucket k holds priority hi - k; buckets in order, tasks within a
        // bucket in index order.
        let mut start = vec![0u32; span + 1];
        for &p in priority {
            start[(hi - p) as usize + 1] += 1;
        }
        for k in 1..=span {
            start[k] += start[k - 1];
        }
        let mut out = vec![0; n];
        for (t, &p) in priority.iter().enumerate() {
            let b = &mut start[(hi - p) as usize];
            out[*b as usize] = t;
            *b += 1;
        }
        out
    } else {
        let mut keys: Vec<u64> = priority
            .iter()
            .enumerate()
            .map(|(t, &p)| (u64::from(u32::MAX - p) << 32) | t as u64)
            .collect();
        keys.sort_unstable();
        keys.into_iter()
            .map(|k| (k & u64::from(u32::MAX)) as TaskId)
            .collect()
    }
}

/// Walks bodies, recording sections into one pool.
struct Walker {
    sections: Vec<Request>,
    held: Vec<ResourceId>,
    /// The resources held at the current point of the walk.
    stack: Vec<ResourceId>,
    suspension: Time,
    suspensions: u32,
}

impl Walker {
    /// Records the sections of `body` in body order (outer before inner)
    /// and returns the body's execution, saturating at [`Time::MAX`] (as
    /// [`crate::system::body_execution`] reports overflow).
    fn walk(&mut self, body: &[Segment]) -> Time {
        let mut exec = Time::ZERO;
        for s in body {
            match s {
                Segment::Compute(c) => exec = exec.saturating_add(*c),
                Segment::Suspend(d) => {
                    self.suspension = self.suspension.saturating_add(*d);
                    self.suspensions += 1;
                }
                Segment::Lock {
                    resource,
                    units,
                    body,
                } => {
                    let depth = self.stack.len() as u32;
                    let held_at = self.held.len() as u32;
                    if depth > 0 {
                        self.held.extend_from_slice(&self.stack);
                    }
                    let k = self.sections.len();
                    self.sections.push(Request {
                        resource: *resource,
                        units: *units,
                        depth,
                        length: Time::ZERO,
                        held_at,
                    });
                    // Most sections hold one stretch of execution: their
                    // length is read off without descending.
                    let length = match body.as_slice() {
                        [Segment::Compute(c)] => *c,
                        _ => {
                            self.stack.push(*resource);
                            let length = self.walk(body);
                            self.stack.pop();
                            length
                        }
                    };
                    self.sections[k].length = length;
                    exec = exec.saturating_add(length);
                }
            }
        }
        exec
    }
}
