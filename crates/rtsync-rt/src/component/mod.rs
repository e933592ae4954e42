//! Components on real threads (paper 001: Sudvarg, Sun, Li, Gill, Zhang,
//! "Priority-based concurrency and shared resource access mechanisms for
//! nested intercomponent requests in CAmkES", 2024).
//!
//! An [`Assembly`] runs the passive components of a system as thread
//! pools in this process: each interface gets the threads the analyzer
//! sized (`rtsync_model::Components::pool`), pinned to the CPU of its
//! callers. A request is a call of a closure on one of those threads; the
//! requester's priority and identity travel with it without appearing in
//! any signature (paper 001 left hiding them as future work): the
//! priority through the kernel's priority inheritance on the request's
//! reply word, the identity in a thread-local context
//! ([`requester`]). `server` says how, and why it needs no protocol of
//! its own.
//!
//! | interface | threads | served |
//! | --- | --- | --- |
//! | propagated | a pool | at the requester's priority, concurrently, preempted by higher requests |
//! | inherited | a pool | one at a time under PIP (the interface's PI futex), nested inheritance down request chains |
//! | fixed | one | at the interface's ceiling or given priority (IPCP), requests in the notification manager's order |
//! | fixed-npcs | one | above every task (NPCS) |
//!
//! Which row applies is read from the rule of the resource the interface
//! lowers to (`rtsync_protocols::Rule`): an inheritance mutex, a ceiling
//! held, or a non-preemptive section. The same lowering drives the
//! analysis and the simulator, so the three engines agree by construction
//! on what each interface means.
//!
//! Two ways in: [`Assembly::new`] from a system loaded from a spec (what
//! `rtsync run` does with a component spec: task bodies request methods,
//! and each method's segments run on the component's threads), or
//! [`Builder`] with Rust types, a trait per interface ([`crate::interface!`]),
//! the spec derived from the declarations and checked by the same
//! analyzer.

mod builder;
mod call;
mod notify;
mod server;
mod trace;
pub mod words;

pub use builder::{Builder, Kind, Remote};
pub use notify::NotifyQueue;
pub use trace::{Event, Served};

use crate::error::RtError;
use crate::prio::PrioMap;
use crate::sys;
use call::Call;
use rtsync_model::System;
use rtsync_model::component::Components;
use rtsync_protocols::{Config, Eff, Hold, Tier};
use server::{Mode, Server};
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Who a request is for, and the priority it carries (the notification
/// manager's key for a single-thread interface; the kernel carries the
/// effective priority itself).
#[derive(Clone, Debug)]
pub struct Origin {
    /// The task whose control flow it is.
    pub task: Arc<str>,
    /// The priority it carries (the task's, or a fixed interface's it
    /// passed through; larger first).
    pub carried: u32,
    /// The task's index in the assembly (the connection check's key).
    pub(crate) index: usize,
}

thread_local! {
    static CONTEXT: RefCell<Option<Origin>> = const { RefCell::new(None) };
}

/// The task whose request the calling thread serves, or the calling task
/// itself: what a handler would otherwise need a parameter for.
pub fn requester() -> Option<Origin> {
    CONTEXT.with(|c| c.borrow().clone())
}

/// Why a request got no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// The handler panicked; the thread that ran it serves on.
    Panicked {
        /// The panic's message.
        message: String,
    },
    /// No answer within the assembly's wait limit (the request is
    /// withdrawn; the thread serving it, if any, finishes and is free).
    Timeout {
        /// The interface.
        interface: String,
        /// How long the requester waited.
        waited: Duration,
    },
    /// The calling thread is neither a bound task nor a component thread.
    NotBound {
        /// The interface.
        interface: String,
    },
    /// The caller has no connection to the interface (the spec's `uses`,
    /// or the requests its methods declare).
    NotConnected {
        /// Who called.
        from: String,
        /// The interface.
        interface: String,
    },
    /// The interface's assembly is not built yet, or is gone.
    NotStarted {
        /// The interface.
        interface: String,
    },
    /// The thread serving it answered nothing (a bug of the runtime).
    NoAnswer {
        /// The interface.
        interface: String,
    },
    /// A system call failed.
    Os {
        /// What was being done.
        what: String,
        /// Its errno.
        errno: i32,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Panicked { message } => write!(
                f,
                "the handler panicked: {message} (its thread serves on; the request had no effect beyond what the handler did before the panic)"
            ),
            CallError::Timeout { interface, waited } => write!(
                f,
                "no reply from `{interface}` within {waited:?} (the assembly's wait limit); the request was withdrawn"
            ),
            CallError::NotBound { interface } => write!(
                f,
                "a request to `{interface}` from a thread that is no task: call `Assembly::bind(task)` on the thread first"
            ),
            CallError::NotConnected { from, interface } => write!(
                f,
                "`{from}` requests `{interface}` without a connection: add it to `{from}`'s `uses`"
            ),
            CallError::NotStarted { interface } => write!(
                f,
                "`{interface}` has no running assembly: build it first (`Builder::build`)"
            ),
            CallError::NoAnswer { interface } => {
                write!(
                    f,
                    "`{interface}` replied without an answer (a bug: please report it)"
                )
            }
            CallError::Os { what, errno } => write!(
                f,
                "{what} failed: {}",
                std::io::Error::from_raw_os_error(*errno)
            ),
        }
    }
}

impl std::error::Error for CallError {}

/// How an assembly runs.
#[derive(Clone, Debug)]
pub struct AssemblyOptions {
    /// Apply priorities and CPUs (SCHED_FIFO, affinity). Without it
    /// requests are still served and answered, in the same order where
    /// the load leaves the order to the protocol.
    pub realtime: bool,
    /// Machine CPU for each system CPU; `None`: the process's allowed
    /// CPUs, in order.
    pub cpu_map: Option<Vec<usize>>,
    /// A request unanswered this long is withdrawn ([`CallError::Timeout`]).
    pub wait_limit: Duration,
    /// Keep a log of calls, grants and replies ([`Assembly::events`]).
    pub log: bool,
    /// When the log's times begin (default: when the assembly is made).
    pub start: Option<Instant>,
}

impl Default for AssemblyOptions {
    fn default() -> Self {
        AssemblyOptions {
            realtime: true,
            cpu_map: None,
            wait_limit: Duration::from_secs(10),
            log: false,
            start: None,
        }
    }
}

/// A system's components running as thread pools (module documentation).
pub struct Assembly {
    servers: Vec<Arc<Server>>,
    comps: Arc<Components>,
    tasks: Vec<String>,
    /// Per task: the interfaces its body requests.
    task_uses: Vec<Vec<usize>>,
    /// Per interface: the interfaces its methods request.
    iface_uses: Vec<Vec<usize>>,
    /// Per task: its priority (larger first) and SCHED_FIFO priority.
    prio: Vec<(u32, i32)>,
    /// Per task: its machine CPU.
    cpu: Vec<Option<usize>>,
    realtime: bool,
    log: Option<Arc<trace::Log>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Assembly {
    /// Starts the components of `sys` (a system loaded from a component
    /// spec: `sys.components` set).
    pub fn new(sys: &System, opts: &AssemblyOptions) -> Result<Assembly, RtError> {
        let Some(comps) = sys.components.clone() else {
            return Err(RtError::Component(
                "the system has no components (no `[[component]]` and no requests): run it with `rtsync_rt::run`".into(),
            ));
        };
        if opts.realtime {
            sys::probe_realtime().map_err(RtError::NotRealTime)?;
        }
        let encloses_plain = plain_locks(sys, &comps)?;
        let cfg = Config::new(sys);
        let map = PrioMap::new(&cfg).map_err(RtError::Levels)?;
        let allowed = sys::allowed_cpus();
        let machine = |c: usize| -> Option<usize> {
            match &opts.cpu_map {
                Some(m) => m.get(c).copied(),
                None => allowed.get(c).copied(),
            }
        };
        let log = if opts.log {
            let start = opts.start.unwrap_or_else(Instant::now);
            Some(Arc::new(trace::Log::new(start).map_err(|e| {
                RtError::Os {
                    what: "making the component log's lock".into(),
                    error: e,
                }
            })?))
        } else {
            None
        };
        // Validation refuses an interface whose callers are apart; a
        // system changed since (a task moved in code) must not reach the
        // pool threads, which are pinned to one caller's CPU. The tasks'
        // CPUs as validation reads them (`Facts::cpu_of`: on one CPU,
        // placed or not, CPU 0).
        let facts = rtsync_model::Facts::new(sys);
        for (i, f) in comps.interfaces.iter().enumerate() {
            if !comps.callers[i].is_empty() && comps.serving_cpu(i, |t| facts.cpu_of[t]).is_none() {
                return Err(RtError::Component(format!(
                    "interface `{}` is requested by tasks on different CPUs (or unplaced): its pool threads serve one CPU; place its callers on one CPU and validate the system again",
                    f.name
                )));
            }
        }
        let n = sys.tasks.len();
        let prio = (0..n)
            .map(|t| {
                let p = cfg.level[t];
                (p, map.fifo(Eff::normal(p as u64, 0)))
            })
            .collect();
        let cpu: Vec<Option<usize>> = (0..n).map(|t| sys.tasks[t].cpu.and_then(machine)).collect();
        let mut task_uses = vec![Vec::new(); n];
        let mut iface_uses = vec![Vec::new(); comps.interfaces.len()];
        for (t, rs) in comps.requests.iter().enumerate() {
            for r in rs {
                task_uses[t].push(r.interface);
                note_inner(r, &mut iface_uses);
            }
        }
        for u in task_uses.iter_mut().chain(iface_uses.iter_mut()) {
            u.sort_unstable();
            u.dedup();
        }
        let mut servers = Vec::new();
        for (i, f) in comps.interfaces.iter().enumerate() {
            let mode = match f.resource {
                None => Mode::Reentrant,
                Some(r) => {
                    let rule = &cfg.rules[r];
                    if rule.is_inheritance_mutex(r) {
                        // Where a request encloses a plain resource, the
                        // machine must see its waits (`waits_in_domain`).
                        if encloses_plain[i] {
                            Mode::Domain
                        } else {
                            Mode::Exclusive(AtomicU32::new(0))
                        }
                    } else {
                        let (eff, carries) = match rule.holding {
                            Hold::Ceiling(c) => (Eff::normal(c, 0), c as u32),
                            Hold::NonPreemptive => (
                                Eff {
                                    tier: Tier::NonPreemptive,
                                    ..Eff::normal(0, 0)
                                },
                                rtsync_model::component::TOP,
                            ),
                            _ => {
                                return Err(RtError::Component(format!(
                                    "interface `{}`: its protocol's rule has no component thread form (an inheritance mutex, a ceiling or a non-preemptive section)",
                                    f.name
                                )));
                            }
                        };
                        Mode::Single {
                            fifo: opts.realtime.then(|| map.fifo(eff)),
                            carries,
                            inbox: Default::default(),
                            waiting: Default::default(),
                            room: n,
                        }
                    }
                }
            };
            let threads = match mode {
                Mode::Single { .. } => 1,
                _ => (comps.pool[i].max(f.threads.unwrap_or(0)) as usize).max(1),
            };
            if threads > server::MAX_POOL {
                return Err(RtError::Component(format!(
                    "interface `{}` needs {threads} threads; a pool holds at most {}",
                    f.name,
                    server::MAX_POOL
                )));
            }
            servers.push(Arc::new(Server::new(
                f.name.clone(),
                i,
                mode,
                threads,
                opts.wait_limit,
                log.clone(),
            )));
        }
        let mut asm = Assembly {
            servers,
            comps: comps.clone(),
            tasks: sys.tasks.iter().map(|t| t.name.clone()).collect(),
            task_uses,
            iface_uses,
            prio,
            cpu,
            realtime: opts.realtime,
            log,
            threads: Vec::new(),
        };
        asm.start(&comps, opts)?;
        Ok(asm)
    }

    fn start(&mut self, comps: &Components, opts: &AssemblyOptions) -> Result<(), RtError> {
        let ready = Arc::new(AtomicU32::new(0));
        let mut total = 0u32;
        for (i, s) in self.servers.iter().enumerate() {
            // An interface serves one CPU, its callers' (`new` refused
            // callers apart).
            let cpu = comps.callers[i].first().and_then(|&t| self.cpu[t]);
            for k in 0..s.threads() {
                let (s, ready) = (s.clone(), ready.clone());
                let realtime = opts.realtime;
                let h = std::thread::Builder::new()
                    .name(s.lane_label(k))
                    .spawn(move || s.serve(k, cpu, realtime, &ready))
                    .map_err(|e| RtError::Os {
                        what: "starting a component thread".into(),
                        error: e,
                    })?;
                self.threads.push(h);
                total += 1;
            }
        }
        let until = Instant::now() + Duration::from_secs(5);
        loop {
            let seen = ready.load(Ordering::Acquire);
            if seen >= total && self.servers.iter().all(|s| s.started()) {
                return Ok(());
            }
            let now = Instant::now();
            if now >= until {
                return Err(RtError::Os {
                    what: "starting the component threads".into(),
                    error: std::io::Error::other("they did not start within 5 s"),
                });
            }
            sys::futex_wait(&ready, seen, Some(until - now));
        }
    }

    /// Makes the calling thread task `task`'s: its SCHED_FIFO priority
    /// and CPU (where the assembly applies them) and its identity for the
    /// requests it makes. Ends when the guard is dropped.
    pub fn bind(&self, task: &str) -> Result<TaskGuard, RtError> {
        let t = self.task_index(task)?;
        if self.realtime {
            let tid = sys::gettid();
            if let Some(c) = self.cpu[t] {
                sys::set_cpu(tid, c).map_err(|e| RtError::Os {
                    what: format!("pinning task `{task}`"),
                    error: e,
                })?;
            }
            sys::set_priority(tid, Some(self.prio[t].1)).map_err(|e| RtError::Os {
                what: format!("giving task `{task}` its priority"),
                error: e,
            })?;
        }
        self.enter(t);
        Ok(TaskGuard {
            realtime: self.realtime,
        })
    }

    /// Makes the calling thread's requests task `t`'s, leaving its
    /// priority and CPU as they are (a thread a domain already bound).
    pub(crate) fn enter(&self, t: usize) {
        CONTEXT.with(|c| {
            *c.borrow_mut() = Some(Origin {
                task: Arc::from(self.tasks[t].as_str()),
                carried: self.prio[t].0,
                index: t,
            })
        });
    }

    fn task_index(&self, task: &str) -> Result<usize, RtError> {
        self.tasks
            .iter()
            .position(|t| t == task)
            .ok_or_else(|| RtError::Unknown {
                what: "task",
                name: task.into(),
            })
    }

    /// The index of interface `name` (`Component.interface`).
    pub fn interface(&self, name: &str) -> Option<usize> {
        self.comps.interface(name)
    }

    /// Threads of interface `i`'s pool.
    pub fn threads(&self, i: usize) -> usize {
        self.servers[i].threads()
    }

    /// Whether interface `i` is served by one thread of its own priority
    /// (fixed, fixed-npcs): its requesters wait on a plain futex, so
    /// nothing the kernel does carries their priority to the thread.
    pub(crate) fn single(&self, i: usize) -> bool {
        matches!(self.servers[i].mode, server::Mode::Single { .. })
    }

    /// Whether interface `i` is a resource of the lock domain, taken
    /// there for the requesting task by the thread acting for it around
    /// the method (the runner does), rather than under the interface's PI
    /// futex: an inherited interface some request to which encloses a
    /// plain resource. Its waits are then the machine's too, so a task
    /// waiting for the interface passes its priority on through the
    /// holder's request to a plain resource's holder (scenario
    /// `comp-plain-inherited`), as the lowering's PIP section does.
    pub(crate) fn waits_in_domain(&self, i: usize) -> bool {
        matches!(self.servers[i].mode, server::Mode::Domain)
    }

    /// Requests to interface `i` that found its pool busy (the analyzer
    /// sizes pools so that none does).
    pub fn overflows(&self, i: usize) -> u64 {
        self.servers[i].overflows.load(Ordering::Relaxed)
    }

    /// Requests waiting in fixed interface `i`'s notification manager.
    pub fn waiting(&self, i: usize) -> usize {
        self.servers[i].waiting()
    }

    /// Runs `work` on one of interface `i`'s threads as the calling
    /// thread's request and returns its answer.
    pub fn call<R: Send + 'static>(
        &self,
        i: usize,
        work: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, CallError> {
        let s = &self.servers[i];
        let origin = self.check(i)?;
        let call = Arc::new(Call::new(origin, work));
        s.call(call.clone())?;
        call.answer(&s.name)
    }

    /// The caller's origin, where it may request interface `i`.
    fn check(&self, i: usize) -> Result<Origin, CallError> {
        let s = &self.servers[i];
        let Some(origin) = requester() else {
            return Err(CallError::NotBound {
                interface: s.name.clone(),
            });
        };
        // Who calls: a component thread (its interface's connections) or
        // a task's own thread; named only when refused (no allocation on
        // the request's path).
        let serving = server::serving();
        let ok = match serving {
            Some((j, _)) => self.iface_uses[j].binary_search(&i).is_ok(),
            None => (self.task_uses.get(origin.index)).is_some_and(|u| u.binary_search(&i).is_ok()),
        };
        if !ok {
            return Err(CallError::NotConnected {
                from: match serving {
                    Some((j, _)) => self.servers[j].name.clone(),
                    None => origin.task.to_string(),
                },
                interface: s.name.clone(),
            });
        }
        Ok(origin)
    }

    /// The log's events (empty without `log`).
    pub fn events(&self) -> Vec<(Duration, Event)> {
        self.log.as_ref().map(|l| l.events()).unwrap_or_default()
    }

    /// Each service of a request by a component thread, from the log.
    pub fn served(&self) -> Vec<Served> {
        let single: Vec<bool> = (self.servers.iter())
            .map(|s| matches!(s.mode, Mode::Single { .. }))
            .collect();
        trace::served(&self.events(), &single, |i, k| {
            self.servers[i].lane_label(k)
        })
    }

    /// The components' data (interfaces, requests, pools).
    pub fn components(&self) -> &Components {
        &self.comps
    }
}

/// Per interface, whether some request to it encloses a plain resource's
/// section (in its method, or in a method it requests in turn). Such a
/// resource is locked by the component thread acting for the requesting
/// task ([`crate::domain::Deputy`]), on the thread's own CPU. A protocol
/// that moves the holder's thread (a synchronization CPU's sections,
/// MrsP's helping: read from its facts) would move the component thread
/// off its interface's CPU, so such a resource inside a method is refused
/// before anything starts, naming what to change.
fn plain_locks(sys: &System, comps: &Components) -> Result<Vec<bool>, RtError> {
    let interface_resource: Vec<usize> =
        comps.interfaces.iter().filter_map(|f| f.resource).collect();
    let mut encloses = vec![false; comps.interfaces.len()];
    for (t, task) in sys.tasks.iter().enumerate() {
        let pre = rtsync_model::system::preorder(&task.body);
        for chain in comps.chains(t) {
            let r = chain[chain.len() - 1];
            for n in r.segments.clone() {
                if let Some(rtsync_model::Segment::Lock { resource, .. }) = pre.get(n)
                    && !interface_resource.contains(resource)
                {
                    chain.iter().for_each(|q| encloses[q.interface] = true);
                    let res = &sys.resources[*resource];
                    if res.protocol.migrations() == 0 {
                        continue;
                    }
                    return Err(RtError::Component(format!(
                        "request {} of task `{}` locks resource `{}` ({}) inside the component; on real threads the method's thread locks it for the task, on its interface's CPU, and {} moves the holder's thread (lock `{}` around the request in the task's own code, or give it a protocol that keeps the holder where it runs)",
                        comps.label(r),
                        task.name,
                        res.name,
                        res.protocol.name(),
                        res.protocol.name(),
                        res.name
                    )));
                }
            }
        }
    }
    Ok(encloses)
}

fn note_inner(r: &rtsync_model::component::Request, uses: &mut [Vec<usize>]) {
    for x in &r.inner {
        uses[r.interface].push(x.interface);
        note_inner(x, uses);
    }
}

impl Drop for Assembly {
    fn drop(&mut self) {
        for s in &self.servers {
            s.shut();
        }
        let me = std::thread::current().id();
        for h in self.threads.drain(..) {
            // The last handle may go with a request's work on one of the
            // assembly's own threads: that one is not waited for.
            if h.thread().id() != me {
                let _ = h.join();
            }
        }
    }
}

/// A thread bound to a task of an assembly ([`Assembly::bind`]): dropping
/// it forgets the task and puts the thread back under SCHED_OTHER.
pub struct TaskGuard {
    realtime: bool,
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        CONTEXT.with(|c| *c.borrow_mut() = None);
        if self.realtime {
            let _ = sys::set_priority(sys::gettid(), None);
        }
    }
}
