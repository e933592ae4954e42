//! The system description: platform, resources, tasks and their bodies.
//!
//! A [`System`] is plain data. It is built by the spec loader (which
//! validates it) or by the generators; the derived facts are computed from it
//! once by [`crate::Facts::new`].

use crate::diag::Pos;
use crate::protocol::{Protocol, Scheduler};
use crate::time::Time;
use std::collections::HashMap;

pub type TaskId = usize;
pub type ResourceId = usize;
pub type Cpu = usize;

/// Priorities: a larger number is a higher priority, as with SCHED_FIFO.
pub type Priority = u32;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    pub cpus: usize,
    pub scheduler: Scheduler,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    pub name: String,
    pub protocol: Protocol,
    /// Number of identical units (more than one only under SRP / MSRP).
    pub units: u32,
    /// The CPU on which its critical sections run (DPCP, DFLP).
    pub sync_cpu: Option<Cpu>,
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
        resource: ResourceId,
        units: u32,
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

/// Worst-case execution of a body, `None` on overflow.
pub fn body_execution(body: &[Segment]) -> Option<Time> {
    body.iter()
        .try_fold(Time::ZERO, |acc, s| acc.checked_add(s.execution()?))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    pub name: String,
    /// Period, or minimum inter-arrival time of a sporadic task.
    pub period: Time,
    /// Relative deadline, at most the period.
    pub deadline: Time,
    /// Release jitter.
    pub jitter: Time,
    pub priority: Priority,
    /// The CPU, or `None` until partitioning assigns one.
    pub cpu: Option<Cpu>,
    pub body: Vec<Segment>,
}

/// Where each element of a system was written, for diagnostics. Keys are
/// the same strings that diagnostics print (`task "t1".period`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    pub file: Option<String>,
    positions: HashMap<String, Pos>,
}

impl SourceMap {
    pub fn for_file(file: Option<&str>) -> SourceMap {
        SourceMap {
            file: file.map(str::to_string),
            positions: HashMap::new(),
        }
    }
    pub fn insert(&mut self, key: String, pos: Pos) {
        self.positions.insert(key, pos);
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct System {
    pub name: Option<String>,
    pub platform: Platform,
    pub resources: Vec<Resource>,
    pub tasks: Vec<Task>,
    pub source: SourceMap,
}

impl System {
    pub fn resource_by_name(&self, name: &str) -> Option<ResourceId> {
        self.resources.iter().position(|r| r.name == name)
    }
    pub fn task_by_name(&self, name: &str) -> Option<TaskId> {
        self.tasks.iter().position(|t| t.name == name)
    }
    /// Whether every task has a CPU.
    pub fn is_partitioned(&self) -> bool {
        self.tasks.iter().all(|t| t.cpu.is_some())
    }
    /// The protocol shared by all resources (validation guarantees there is
    /// one when resources exist).
    pub fn protocol(&self) -> Option<Protocol> {
        self.resources.first().map(|r| r.protocol)
    }
    /// A copy with every resource switched to `protocol`; used to compare
    /// protocols on one system. Synchronization CPUs default to the last CPU
    /// when the new protocol needs one and none was given.
    pub fn with_protocol(&self, protocol: Protocol) -> System {
        let mut s = self.clone();
        let last = s.platform.cpus.saturating_sub(1);
        for r in &mut s.resources {
            r.protocol = protocol;
            if !protocol.allows_multi_unit() {
                r.units = 1;
            }
            if protocol.needs_sync_cpu() && r.sync_cpu.is_none() {
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
    /// Total utilization of the tasks on `cpu`.
    pub fn cpu_utilization(&self, cpu: Cpu) -> f64 {
        self.tasks
            .iter()
            .filter(|t| t.cpu == Some(cpu))
            .map(|t| body_execution(&t.body).unwrap_or(Time::MAX).ratio(t.period))
            .sum()
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
    pub fn task(name: &str) -> String {
        format!("task \"{name}\"")
    }
    pub fn task_field(name: &str, field: &str) -> String {
        format!("task \"{name}\".{field}")
    }
    pub fn resource(name: &str) -> String {
        format!("resource \"{name}\"")
    }
    pub fn resource_field(name: &str, field: &str) -> String {
        format!("resource \"{name}\".{field}")
    }
    /// A segment, by its index path in the body: `task "t".body[1][0]`.
    pub fn segment(task: &str, path: &[usize]) -> String {
        let mut s = task_field(task, "body");
        for i in path {
            s.push_str(&format!("[{i}]"));
        }
        s
    }
}
