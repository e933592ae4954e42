//! Declaring a system in code: the resources, the tasks and what each task
//! locks, then a [`Domain`] to run it, with typed handles instead of names.
//!
//! The protocols need to know ahead of time who uses what (ceilings,
//! global or local resources, nesting groups: computed once, as RTIC does
//! for SRP), so a task declares the resources it locks. Periods and
//! execution times matter to the analysis, not to the runtime: a built
//! system has placeholders for them (use a spec, [`Domain::from_spec`], to
//! analyse and run the same description). The system is validated as a
//! spec would be, and a refusal says what is wrong.
//!
//! One CPU, PCP (the uniprocessor protocols: NPCS, PIP, PCP, IPCP, SRP):
//!
//! ```
//! use rtsync_rt::{Builder, Options, Protocol};
//!
//! let mut b = Builder::new(1);
//! let bus = b.resource("bus", Protocol::Pcp);
//! let control = b.task("control", 2, 0, &[bus]);
//! let logger = b.task("logger", 1, 0, &[bus]);
//! // `realtime: false` carries out every decision without SCHED_FIFO.
//! let domain = b.build(Options { realtime: false, ..Options::default() })?;
//! let readings = domain.mutex(bus, Vec::<u32>::new())?;
//! std::thread::scope(|s| {
//!     for (task, value) in [(control, 1), (logger, 2)] {
//!         let (domain, readings) = (&domain, &readings);
//!         s.spawn(move || {
//!             let _me = domain.bind_to(task).unwrap();
//!             readings.lock().unwrap().push(value);
//!         });
//!     }
//! });
//! assert_eq!(readings.into_inner().len(), 2);
//! # Ok::<(), rtsync_rt::RtError>(())
//! ```
//!
//! Two CPUs, a global resource under MPCP (waiters suspend; likewise
//! DPCP and DFLP, whose sections run on a synchronization CPU:
//! [`Builder::sync_cpu`], and FMLP-L):
//!
//! ```
//! use rtsync_rt::{Builder, Options, Protocol};
//!
//! let mut b = Builder::new(2);
//! let table = b.resource("table", Protocol::Mpcp);
//! let a = b.task("a", 2, 0, &[table]);
//! let c = b.task("c", 1, 1, &[table]);
//! let domain = b.build(Options { realtime: false, ..Options::default() })?;
//! let count = domain.mutex(table, 0u64)?;
//! std::thread::scope(|s| {
//!     for task in [a, c] {
//!         let (domain, count) = (&domain, &count);
//!         s.spawn(move || {
//!             let _me = domain.bind_to(task).unwrap();
//!             for _ in 0..100 {
//!                 *count.lock().unwrap() += 1;
//!             }
//!         });
//!     }
//! });
//! assert_eq!(count.into_inner(), 200);
//! # Ok::<(), rtsync_rt::RtError>(())
//! ```
//!
//! Spinning waiters, MrsP (likewise MSRP and FMLP-S), with a section
//! nested in another where the protocol allows it (FMLP's group locks):
//!
//! ```
//! use rtsync_rt::{Builder, Options, Protocol};
//!
//! let mut b = Builder::new(2);
//! let queue = b.resource("queue", Protocol::Mrsp);
//! let a = b.task("a", 2, 0, &[queue]);
//! let c = b.task("c", 2, 1, &[queue]);
//! let domain = b.build(Options { realtime: false, ..Options::default() })?;
//! let q = domain.mutex(queue, std::collections::VecDeque::new())?;
//! std::thread::scope(|s| {
//!     for task in [a, c] {
//!         let (domain, q) = (&domain, &q);
//!         s.spawn(move || {
//!             let _me = domain.bind_to(task).unwrap();
//!             q.lock().unwrap().push_back(task);
//!         });
//!     }
//! });
//! assert_eq!(q.into_inner().len(), 2);
//!
//! let mut b = Builder::new(2);
//! let (x, y) = (b.resource("x", Protocol::FmlpL), b.resource("y", Protocol::FmlpL));
//! let t = b.task("t", 1, 0, &[]);
//! b.nested(t, &[x, y]);
//! b.task("u", 1, 1, &[y]);
//! let domain = b.build(Options { realtime: false, ..Options::default() })?;
//! let (mx, my) = (domain.mutex(x, ())?, domain.mutex(y, 0)?);
//! let _me = domain.bind_to(t)?;
//! let _outer = mx.lock().unwrap();
//! *my.lock().unwrap() += 1;
//! # Ok::<(), rtsync_rt::RtError>(())
//! ```

use crate::domain::{Binding, Domain, Options};
use crate::error::RtError;
use crate::mutex::Mutex;
use rtsync_model::{
    Cpu, Platform, Priority, Protocol, Resource, Scheduler, Segment, SourceMap, System, Task, Time,
};

/// A task of a [`Builder`]'s system, or of a domain
/// ([`Domain::task_ref`]): what [`Domain::bind_to`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskRef(pub(crate) usize);

/// A resource of a [`Builder`]'s system, or of a domain
/// ([`Domain::resource_ref`]): what [`Domain::mutex`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResourceRef(pub(crate) usize);

/// A system declared in code (module documentation).
#[derive(Clone, Debug)]
pub struct Builder {
    cpus: usize,
    resources: Vec<Resource>,
    tasks: Vec<Task>,
}

/// What stands for a section's length and a task's period: the runtime
/// does not use them, and validation needs them positive.
const PLACEHOLDER_SECTION: Time = Time::from_ns(1_000);
const PLACEHOLDER_PERIOD: Time = Time::from_ns(1_000_000_000);

impl Builder {
    /// A system on `cpus` CPUs (at least one), fixed priorities.
    pub fn new(cpus: usize) -> Builder {
        Builder {
            cpus: cpus.max(1),
            resources: Vec::new(),
            tasks: Vec::new(),
        }
    }

    /// A single-unit resource under `protocol`.
    pub fn resource(&mut self, name: &str, protocol: Protocol) -> ResourceRef {
        self.resources.push(Resource {
            name: name.into(),
            protocol,
            units: 1,
            sync_cpu: None,
            ceiling: None,
        });
        ResourceRef(self.resources.len() - 1)
    }

    /// The CPU where `r`'s sections run (DPCP, DFLP; by default the
    /// last CPU).
    pub fn sync_cpu(&mut self, r: ResourceRef, cpu: Cpu) -> &mut Builder {
        if let Some(res) = self.resources.get_mut(r.0) {
            res.sync_cpu = Some(cpu);
        }
        self
    }

    /// A task at fixed `priority` (larger runs first) on `cpu`, locking
    /// each of `uses` (one at a time; [`Builder::nested`] declares a
    /// section inside another).
    pub fn task(
        &mut self,
        name: &str,
        priority: Priority,
        cpu: Cpu,
        uses: &[ResourceRef],
    ) -> TaskRef {
        let mut body: Vec<Segment> = uses.iter().map(|&r| section(&[r])).collect();
        if body.is_empty() {
            body.push(Segment::Compute(PLACEHOLDER_SECTION));
        }
        self.tasks.push(Task {
            name: name.into(),
            period: PLACEHOLDER_PERIOD,
            deadline: PLACEHOLDER_PERIOD,
            jitter: Time::ZERO,
            offset: Time::ZERO,
            priority,
            cpu: Some(cpu),
            body,
        });
        TaskRef(self.tasks.len() - 1)
    }

    /// Declares that `task` locks `path[1]` while holding `path[0]`, and
    /// so on inwards (the protocols that allow nesting need to know).
    pub fn nested(&mut self, task: TaskRef, path: &[ResourceRef]) -> &mut Builder {
        if let Some(t) = self.tasks.get_mut(task.0)
            && !path.is_empty()
        {
            t.body.push(section(path));
        }
        self
    }

    /// The system as declared, validated as a spec is (the analysis can
    /// take it too, though its times are placeholders).
    pub fn system(&self) -> Result<System, RtError> {
        let sys = System {
            name: None,
            platform: Platform {
                cpus: self.cpus,
                scheduler: Scheduler::Fp,
            },
            resources: self
                .resources
                .iter()
                .map(|r| Resource {
                    sync_cpu: r
                        .sync_cpu
                        .or((r.protocol.needs_sync_cpu()).then_some(self.cpus - 1)),
                    ..r.clone()
                })
                .collect(),
            tasks: self.tasks.clone(),
            source: SourceMap::default(),
            components: None,
        };
        let diags = rtsync_model::validate(&sys);
        if diags.has_errors() {
            return Err(RtError::Invalid(diags));
        }
        Ok(sys)
    }

    /// A domain running the system.
    pub fn build(&self, opts: Options) -> Result<Domain, RtError> {
        Domain::new(&self.system()?, opts)
    }
}

/// Domains by handle: what a built system, or one loaded from a spec,
/// gives a Rust user instead of names.
impl Domain {
    /// A domain for the system of the spec file at `path` (loaded and
    /// validated; a refusal carries the spec's diagnostics).
    pub fn from_spec(path: &std::path::Path, opts: Options) -> Result<Domain, RtError> {
        let (sys, _) = rtsync_model::load_file(path).map_err(RtError::Invalid)?;
        Domain::new(&sys, opts)
    }

    /// Binds the calling thread to `task` ([`Domain::bind`], by handle).
    pub fn bind_to(&self, task: TaskRef) -> Result<Binding, RtError> {
        if task.0 >= self.sh.tasks.len() {
            return Err(unknown("task", task.0));
        }
        self.bind_index(task.0)
    }

    /// `value`, guarded by resource `r` ([`Mutex::new`], by handle).
    pub fn mutex<T>(&self, r: ResourceRef, value: T) -> Result<Mutex<T>, RtError> {
        if r.0 >= self.sh.resources.len() {
            return Err(unknown("resource", r.0));
        }
        Mutex::at(self, r.0, value)
    }

    /// The handle of the task named `name`.
    pub fn task_ref(&self, name: &str) -> Result<TaskRef, RtError> {
        self.task(name).map(TaskRef)
    }

    /// The handle of the resource named `name`.
    pub fn resource_ref(&self, name: &str) -> Result<ResourceRef, RtError> {
        self.resource(name).map(ResourceRef)
    }
}

/// A handle outside the domain's system.
fn unknown(what: &'static str, index: usize) -> RtError {
    RtError::Unknown {
        what,
        name: format!("#{index} (a handle from another system)"),
    }
}

/// A section on `path[0]` with the rest nested inside.
fn section(path: &[ResourceRef]) -> Segment {
    let inner = match path.get(1..) {
        Some(rest) if !rest.is_empty() => section(rest),
        _ => Segment::Compute(PLACEHOLDER_SECTION),
    };
    Segment::Lock {
        resource: path[0].0,
        units: 1,
        body: vec![inner],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn off() -> Options {
        Options {
            realtime: false,
            ..Options::default()
        }
    }

    #[test]
    fn a_declared_system_gets_the_ceilings_its_uses_imply() {
        let mut b = Builder::new(1);
        let bus = b.resource("bus", Protocol::Ipcp);
        let lo = b.task("lo", 1, 0, &[bus]);
        let hi = b.task("hi", 5, 0, &[bus]);
        b.task("other", 9, 0, &[]);
        // Through the machine, so that its priorities are the ones read.
        let d = b
            .build(Options {
                fast_path: false,
                ..off()
            })
            .unwrap();
        let m = d.mutex(bus, 0).unwrap();
        let _me = d.bind_to(lo).unwrap();
        let before = d.eff(lo.0);
        let g = m.lock().unwrap();
        // IPCP: the holder runs at the ceiling, the highest priority among
        // the bus's users (hi's), not above it (other does not use it).
        assert_eq!(d.eff(lo.0).key, d.eff(hi.0).key);
        assert!(d.eff(lo.0) > before);
        drop(g);
        assert_eq!(d.eff(lo.0), before);
    }

    #[test]
    fn an_invalid_declaration_is_refused_with_the_reason() {
        let mut b = Builder::new(2);
        let r = b.resource("r", Protocol::Pip);
        b.task("a", 1, 0, &[r]);
        b.task("b", 2, 1, &[r]);
        let e = b.build(off()).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, RtError::Invalid(_)), "{text}");
        assert!(text.contains("uniprocessor"), "{text}");
        // A CPU the platform does not have.
        let mut b = Builder::new(1);
        b.task("a", 1, 3, &[]);
        assert!(matches!(b.build(off()), Err(RtError::Invalid(_))));
    }

    #[test]
    fn handles_name_what_names_did() {
        let mut b = Builder::new(1);
        let r = b.resource("r", Protocol::Pcp);
        let t = b.task("t", 1, 0, &[r]);
        let d = b.build(off()).unwrap();
        assert_eq!(d.task_ref("t").unwrap(), t);
        assert_eq!(d.resource_ref("r").unwrap(), r);
        assert!(matches!(d.task_ref("x"), Err(RtError::Unknown { .. })));
        // A handle from a larger system is refused, not trusted.
        assert!(matches!(
            d.mutex(ResourceRef(7), ()),
            Err(RtError::Unknown { .. })
        ));
        assert!(matches!(
            d.bind_to(TaskRef(7)),
            Err(RtError::Unknown { .. })
        ));
    }
}
