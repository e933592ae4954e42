//! The system description: platform, resources, tasks and their bodies.
//!
//! A [`System`] is plain data. It is built by the spec loader (which
//! validates it) or by the generators; the derived facts are computed from it
//! once by [`crate::Facts::new`].

use crate::diag::Pos;
use crate::protocol::{Protocol, Scheduler};
use crate::time::Time;
use compact_str::CompactString;
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

/// A task, by its index in the system.
pub type TaskId = usize;
/// A resource, by its index in the system.
pub type ResourceId = usize;
/// A CPU, by index.
pub type Cpu = usize;

/// Priorities: a larger number is a higher priority, as with SCHED_FIFO.
pub type Priority = u32;

/// The processors and how they schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    /// Number of CPUs.
    pub cpus: usize,
    /// Fixed priorities or EDF (partitioned: one scheduler per CPU).
    pub scheduler: Scheduler,
}

/// A shared resource and its locking protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// Its name, unique in the system.
    pub name: String,
    /// The protocol that arbitrates it.
    pub protocol: Protocol,
    /// Number of identical units (more than one only under SRP / MSRP).
    pub units: u32,
    /// The CPU on which its critical sections run (DPCP, DFLP).
    pub sync_cpu: Option<Cpu>,
    /// A priority ceiling given rather than derived from the users (a
    /// component's `fixed` interface at a given priority, paper 001
    /// Sect. 4.1); the ceiling is the higher of the two.
    pub ceiling: Option<Priority>,
}

/// One step of a job's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// Execute on the CPU for this long (worst case).
    Compute(Time),
    /// Self-suspend (I/O, a timer) for at most this long.
    Suspend(Time),
    /// Hold `units` of `resource` while running `body`; sections may nest.
    Lock {
        /// The resource.
        resource: ResourceId,
        /// Units requested.
        units: u32,
        /// What runs while it is held.
        body: Vec<Segment>,
    },
}

impl Segment {
    /// Worst-case execution inside this segment (suspension excluded),
    /// `None` on overflow.
    pub fn execution(&self) -> Option<Time> {
        match self {
            Segment::Compute(t) => Some(*t),
            Segment::Suspend(_) => Some(Time::ZERO),
            Segment::Lock { body, .. } => body_execution(body),
        }
    }
}

/// The segments of `body` in preorder, each section before its body: the
/// numbering by which a [`crate::interface::Request`] says where it runs,
/// and by which an engine tells which segment a job is in.
pub fn preorder(body: &[Segment]) -> Vec<&Segment> {
    fn walk<'a>(body: &'a [Segment], out: &mut Vec<&'a Segment>) {
        for s in body {
            out.push(s);
            if let Segment::Lock { body, .. } = s {
                walk(body, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// Worst-case execution of a body, `None` on overflow.
pub fn body_execution(body: &[Segment]) -> Option<Time> {
    body.iter()
        .try_fold(Time::ZERO, |acc, s| acc.checked_add(s.execution()?))
}

/// A sporadic task: its timing, priority, CPU and the body each job runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// Its name, unique in the system.
    pub name: String,
    /// Period, or minimum inter-arrival time of a sporadic task.
    pub period: Time,
    /// Relative deadline, at most the period.
    pub deadline: Time,
    /// Release jitter.
    pub jitter: Time,
    /// First release, from the start (default 0). It stages a scenario in
    /// the simulator and on real threads; the analysis bounds every
    /// offset, so it ignores it.
    pub offset: Time,
    /// Fixed priority (larger runs first); under EDF, the order of equal
    /// deadlines.
    pub priority: Priority,
    /// The CPU, or `None` until partitioning assigns one.
    pub cpu: Option<Cpu>,
    /// What each job does, in order.
    pub body: Vec<Segment>,
}

impl Task {
    /// Its worst-case execution over its period (the execution saturates
    /// at [`Time::MAX`]). For reports, warnings and placement heuristics;
    /// schedulability decisions are made in integer time.
    pub fn utilization(&self) -> f64 {
        body_execution(&self.body)
            .unwrap_or(Time::MAX)
            .ratio(self.period)
    }
}

/// Where each element of a system was written, for diagnostics. Keys are
/// the same strings that diagnostics print (`task "t1".period`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// The spec file, when the system came from one.
    pub file: Option<String>,
    /// Keys are short (`task "t1".body[0]`) and made by the loader, not
    /// taken from the file's keys: inline strings and the Fx hash spare a
    /// 100,000-task spec a million allocations and SipHash rounds (about a
    /// sixth of `rtsync check` on it, docs/PERFORMANCE.md).
    positions: HashMap<CompactString, Pos, FxBuildHasher>,
}

impl SourceMap {
    /// An empty map for `file`.
    pub fn for_file(file: Option<&str>) -> SourceMap {
        SourceMap {
            file: file.map(str::to_string),
            positions: HashMap::default(),
        }
    }
    /// Records where `key` was written.
    pub fn insert(&mut self, key: &str, pos: Pos) {
        self.positions.insert(CompactString::new(key), pos);
    }
    /// Room for `n` more keys without rehashing.
    pub fn reserve(&mut self, n: usize) {
        self.positions.reserve(n);
    }
    /// The position of `key`, or of its closest parent that has one.
    pub fn get(&self, key: &str) -> Option<Pos> {
        let mut k = key;
        loop {
            if let Some(p) = self.positions.get(k) {
                return Some(*p);
            }
            k = &k[..k.rfind(['.', '['])?];
        }
    }
}

/// A system: platform, resources and tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct System {
    /// Its name, if the spec gives one.
    pub name: Option<String>,
    /// The processors.
    pub platform: Platform,
    /// Resources, indexed by `ResourceId`.
    pub resources: Vec<Resource>,
    /// Tasks, indexed by `TaskId`.
    pub tasks: Vec<Task>,
    /// Where each element was written (empty for generated systems).
    pub source: SourceMap,
    /// The components the spec described, if any: their requests are
    /// already lowered into the tasks' bodies and resources
    /// (`crate::component`); this keeps what the lowering knew.
    pub components: Option<std::sync::Arc<crate::interface::Components>>,
}

impl System {
    /// The resource named `name`.
    pub fn resource_by_name(&self, name: &str) -> Option<ResourceId> {
        self.resources.iter().position(|r| r.name == name)
    }
    /// The task named `name`.
    pub fn task_by_name(&self, name: &str) -> Option<TaskId> {
        self.tasks.iter().position(|t| t.name == name)
    }
    /// The CPU whose agents run `r`'s sections: its synchronization CPU
    /// where its protocol runs sections there (DPCP, DFLP) and the CPU
    /// exists; `None` where sections run on the job's own CPU. The one
    /// answer the analysis, the partitioner and the bounds read.
    pub fn serving_cpu(&self, r: ResourceId) -> Option<Cpu> {
        let res = &self.resources[r];
        res.sync_cpu
            .filter(|&c| c < self.platform.cpus && res.protocol.needs_sync_cpu())
    }
    /// Whether every task has a CPU.
    pub fn is_partitioned(&self) -> bool {
        self.tasks.iter().all(|t| t.cpu.is_some())
    }
    /// A copy with every resource switched to `protocol`; used to compare
    /// protocols on one system. Synchronization CPUs default to the last CPU
    /// when the new protocol needs one and none was given, and are dropped
    /// when it has none: the spec named them for its own protocol, and
    /// validation would warn the user to remove a line that is right for
    /// the spec as written (`rtsync analyze examples/rtems-table1.toml
    /// --protocol mpcp` printed three such warnings).
    pub fn with_protocol(&self, protocol: Protocol) -> System {
        let mut s = self.clone();
        let last = s.platform.cpus.saturating_sub(1);
        for r in &mut s.resources {
            r.protocol = protocol;
            if !protocol.allows_multi_unit() {
                r.units = 1;
            }
            if !protocol.needs_sync_cpu() {
                r.sync_cpu = None;
            } else if r.sync_cpu.is_none() {
                r.sync_cpu = Some(last);
            }
        }
        if !protocol.allows_multi_unit() {
            for t in &mut s.tasks {
                clamp_units(&mut t.body);
            }
        }
        s
    }
    /// The system as it runs when each of its CPUs `c` is placed on
    /// machine CPU `map[c]`, and the machine CPU of each of the result's
    /// CPUs. CPUs that share a machine CPU become one CPU (tasks and
    /// synchronization CPUs renumbered onto it), so that an analysis of
    /// the result bounds what really runs: a four-CPU example folded onto
    /// a two-CPU machine is a two-CPU system, with twice the load per CPU.
    /// `map` must name a machine CPU for every CPU of the system.
    pub fn fold(&self, map: &[usize]) -> (System, Vec<usize>) {
        assert!(
            map.len() >= self.platform.cpus,
            "fold: {} CPUs, a map of {}",
            self.platform.cpus,
            map.len()
        );
        let mut machine: Vec<usize> = Vec::new();
        let mut onto = vec![0; self.platform.cpus];
        for (c, &m) in map.iter().take(self.platform.cpus).enumerate() {
            onto[c] = match machine.iter().position(|&x| x == m) {
                Some(i) => i,
                None => {
                    machine.push(m);
                    machine.len() - 1
                }
            };
        }
        let mut s = self.clone();
        s.platform.cpus = machine.len().max(1);
        for t in &mut s.tasks {
            t.cpu = t.cpu.map(|c| onto[c]);
        }
        for r in &mut s.resources {
            r.sync_cpu = r.sync_cpu.map(|c| onto[c]);
        }
        (s, machine)
    }
    /// Total utilization of the tasks on `cpu`.
    pub fn cpu_utilization(&self, cpu: Cpu) -> f64 {
        self.tasks
            .iter()
            .filter(|t| t.cpu == Some(cpu))
            .map(Task::utilization)
            .sum()
    }

    /// The least common multiple of the periods ([`Time::hyperperiod`]).
    pub fn hyperperiod(&self) -> Option<Time> {
        Time::hyperperiod(self.tasks.iter().map(|t| t.period))
    }
}

fn clamp_units(body: &mut [Segment]) {
    for s in body {
        if let Segment::Lock { units, body, .. } = s {
            *units = 1;
            clamp_units(body);
        }
    }
}

/// Key helpers, so that the loader and the validator name places alike.
pub mod keys {
    /// `task "name"`.
    pub fn task(name: &str) -> String {
        format!("task \"{name}\"")
    }
    /// `task "name".field`.
    pub fn task_field(name: &str, field: &str) -> String {
        // Built by hand: `format!` cost more than the rest of a key.
        let mut s = String::with_capacity(name.len() + field.len() + 8);
        s.push_str("task \"");
        s.push_str(name);
        s.push_str("\".");
        s.push_str(field);
        s
    }
    /// `resource "name"`.
    pub fn resource(name: &str) -> String {
        format!("resource \"{name}\"")
    }
    /// `resource "name".field`.
    pub fn resource_field(name: &str, field: &str) -> String {
        format!("resource \"{name}\".{field}")
    }
    /// A segment, by its index path in the body: `task "t".body[1][0]`.
    pub fn segment(task: &str, path: &[usize]) -> String {
        use std::fmt::Write;
        let mut s = task_field(task, "body");
        for i in path {
            let _ = write!(s, "[{i}]");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::load_str;

    const FOUR: &str = "[platform]\ncpus = 4\nprotocol = \"dpcp\"\n\
[[resource]]\nname = \"A\"\nsync_cpu = 3\n\
[[task]]\nname = \"a\"\nperiod = \"10ms\"\ncpu = 0\nbody = [ { lock = \"A\", hold = \"1ms\" } ]\n\
[[task]]\nname = \"b\"\nperiod = \"10ms\"\ncpu = 1\nbody = [ { lock = \"A\", hold = \"1ms\" } ]\n\
[[task]]\nname = \"c\"\nperiod = \"10ms\"\ncpu = 2\nwcet = \"1ms\"\n";

    #[test]
    fn folding_merges_the_cpus_that_share_a_machine_cpu() {
        let (s, _) = load_str(FOUR, None).unwrap();
        // Four CPUs onto machine CPUs 5 and 7, round robin.
        let (f, machine) = s.fold(&[5, 7, 5, 7]);
        assert_eq!(machine, vec![5, 7]);
        assert_eq!(f.platform.cpus, 2);
        let cpus: Vec<_> = f.tasks.iter().map(|t| t.cpu).collect();
        assert_eq!(cpus, vec![Some(0), Some(1), Some(0)]);
        assert_eq!(f.resources[0].sync_cpu, Some(1));
        assert!(!crate::validate(&f).has_errors());
        // A one-to-one map renumbers nothing.
        let (same, machine) = s.fold(&[3, 2, 1, 0]);
        assert_eq!(machine, vec![3, 2, 1, 0]);
        assert_eq!(same.tasks, s.tasks);
        assert_eq!(same.resources, s.resources);
    }

    /// Agents serve a section where the protocol runs sections on a
    /// synchronization CPU that exists; the analysis, the partitioner and
    /// the lower-agent counts all read this one answer.
    #[test]
    fn agents_serve_a_section_only_on_an_existing_sync_cpu_of_a_protocol_that_has_one() {
        let (s, _) = load_str(FOUR, None).unwrap();
        assert_eq!(s.serving_cpu(0), Some(3));
        let f = crate::Facts::new(&s);
        let served: Vec<_> = (0..3)
            .map(|t| {
                f.agent_sections(&s, t)
                    .map(|(c, rq)| (c, rq.length.ns()))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(
            served,
            vec![vec![(3, 1_000_000)], vec![(3, 1_000_000)], vec![]]
        );
        // MPCP runs sections on the job's own CPU: a stray sync_cpu is
        // not a serving CPU.
        let mut m = s.clone();
        m.resources[0].protocol = crate::Protocol::Mpcp;
        assert_eq!(m.serving_cpu(0), None);
        assert_eq!(crate::Facts::new(&m).agent_sections(&m, 0).count(), 0);
        // Nor is a CPU the platform lacks.
        let mut d = s.clone();
        d.resources[0].sync_cpu = Some(4);
        assert_eq!(d.serving_cpu(0), None);
    }
}
