//! A domain: one system's resources shared by real threads, each bound to
//! one of its tasks, under the protocol machine of `rtsync-protocols`.
//!
//! The machine decides (who gets a resource, who waits, who inherits which
//! priority, where a section runs); the domain carries its decisions out on
//! Linux: a waiter sleeps on its own futex word (or spins, where the
//! protocol spins), a release wakes the threads the machine names, and
//! every change of effective priority or location becomes one
//! `sched_setscheduler` or `sched_setaffinity` on the thread concerned.
//!
//! The machine's state sits behind a priority-inheritance mutex
//! ([`crate::pi::PiLock`]), so the bookkeeping cannot itself invert
//! priorities. Changes are applied in an order that never lets a thread
//! run below the priority the protocol gives it: raises and migrations
//! first, then the wake-ups, then the lowering (the releasing thread's own
//! last: once lowered it may be preempted at once, and by then everyone
//! it had to wake is awake and raised).
//!
//! DPCP and DFLP sections run on their synchronization CPU by migrating
//! the requesting thread (`sched_setaffinity` at the grant, back at the
//! release) rather than by handing the section to an agent thread: the
//! section's code and data stay the caller's, and a migration is two
//! system calls where an agent costs two context switches and a hand-over
//! of the work.

use crate::error::RtError;
use crate::pi::{PiGuard, PiLock};
use crate::prio::PrioMap;
use crate::sys;
use rtsync_model::{Scheduler, System};
use rtsync_protocols::{Config, Eff, Locks, Outcome, Tid};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How a domain runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Apply priorities and CPUs (SCHED_FIFO, affinity). Without it the
    /// protocol's decisions (who waits, who is granted, in which order)
    /// are still carried out, and priorities are only recorded: useful
    /// where SCHED_FIFO is not permitted.
    pub realtime: bool,
    /// Machine CPU for each system CPU; `None`: the process's allowed
    /// CPUs, in order.
    pub cpu_map: Option<Vec<usize>>,
    /// A request waiting longer than this is withdrawn with
    /// [`RtError::Timeout`]: nothing in the runtime waits forever.
    pub wait_limit: Duration,
    /// A spinning waiter (MSRP, FMLP-S, MrsP) spins at most this long at a
    /// time, then sleeps until woken: a bug elsewhere cannot make it burn
    /// a CPU at real-time priority.
    pub spin_limit: Duration,
    /// Keep a log of grants and priority changes ([`Domain::log`]).
    pub record: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            realtime: true,
            cpu_map: None,
            wait_limit: Duration::from_secs(10),
            spin_limit: Duration::from_millis(50),
            record: false,
        }
    }
}

/// One entry of a domain's log, for conformance checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// `task` was granted `resource`.
    Granted { task: String, resource: String },
    /// `task`'s effective priority changed to `label` (as the simulator's
    /// traces name it).
    Priority { task: String, label: String },
    /// `task` released `resource`.
    Released { task: String, resource: String },
    /// `task`'s job ended.
    Completed { task: String },
}

struct Slot {
    /// Bumped at every wake-up; the thread sleeps on it.
    wake: AtomicU32,
}

struct State {
    locks: Locks,
    /// Kernel thread id per bound task.
    tid: Vec<Option<i32>>,
    /// Applied SCHED_FIFO priority and machine CPU per bound task.
    prio: Vec<Option<i32>>,
    cpu: Vec<Option<usize>>,
    /// The last effective priority logged per task.
    shown: Vec<Eff>,
    /// Per resource: an owner died or panicked inside it.
    inconsistent: Vec<bool>,
    /// Threads waiting in [`Binding::job_begin`] for SRP's start test.
    starting: Vec<bool>,
    seq: u64,
    /// Records with their time since the domain was made.
    log: Vec<(Duration, Record)>,
    made: Instant,
}

pub(crate) struct Shared {
    id: u64,
    state: PiLock<State>,
    slots: Vec<Slot>,
    map: PrioMap,
    cpu_map: Vec<usize>,
    opts: Options,
    tasks: Vec<String>,
    resources: Vec<String>,
    units: Vec<u32>,
    base: Vec<u64>,
}

/// A system's resources shared by real threads. Cheap to clone.
#[derive(Clone)]
pub struct Domain {
    pub(crate) sh: Arc<Shared>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The tasks this thread is bound to, per domain id.
    static BOUND: RefCell<Vec<(u64, Tid)>> = const { RefCell::new(Vec::new()) };
}

/// The task the calling thread is bound to in domain `id`.
pub(crate) fn bound_task(id: u64) -> Option<Tid> {
    BOUND.with(|b| b.borrow().iter().find(|&&(d, _)| d == id).map(|&(_, t)| t))
}

impl Domain {
    /// A domain for `sys` (validated and partitioned, fixed priorities).
    pub fn new(sys: &System, opts: Options) -> Result<Domain, RtError> {
        if sys.platform.scheduler != Scheduler::Fp {
            return Err(RtError::NotFixedPriority);
        }
        if opts.realtime {
            sys::probe_realtime().map_err(RtError::NotRealTime)?;
        }
        let cfg = Config::new(sys);
        let map = PrioMap::new(&cfg).map_err(RtError::Levels)?;
        let cpus = sys.platform.cpus.max(1);
        let cpu_map = match &opts.cpu_map {
            Some(m) => m.clone(),
            None => sys::allowed_cpus(),
        };
        if opts.realtime && cpu_map.len() < cpus {
            return Err(RtError::Cpus {
                needed: cpus,
                available: cpu_map,
            });
        }
        let n = sys.tasks.len();
        let base: Vec<u64> = cfg.level.iter().map(|&l| l as u64).collect();
        let mut locks = Locks::new(cfg);
        for (t, &b) in base.iter().enumerate() {
            locks
                .set_base(t, b, t as u64)
                .expect("thread index in range");
        }
        let shown = (0..n).map(|t| locks.eff(t)).collect();
        let state = State {
            locks,
            tid: vec![None; n],
            prio: vec![None; n],
            cpu: vec![None; n],
            shown,
            inconsistent: vec![false; sys.resources.len()],
            starting: vec![false; n],
            seq: n as u64,
            log: Vec::new(),
            made: Instant::now(),
        };
        Ok(Domain {
            sh: Arc::new(Shared {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                state: PiLock::new(state),
                slots: (0..n)
                    .map(|_| Slot {
                        wake: AtomicU32::new(0),
                    })
                    .collect(),
                map,
                cpu_map,
                opts,
                tasks: sys.tasks.iter().map(|t| t.name.clone()).collect(),
                resources: sys.resources.iter().map(|r| r.name.clone()).collect(),
                units: sys.resources.iter().map(|r| r.units.max(1)).collect(),
                base,
            }),
        })
    }

    /// Binds the calling thread to `task`: it takes the task's base
    /// priority and CPU (when real-time) and may then use the domain's
    /// resources. Dropping the binding releases whatever the task still
    /// holds (marking it inconsistent) and returns the thread to
    /// SCHED_OTHER.
    pub fn bind(&self, task: &str) -> Result<Binding, RtError> {
        let t = self.task(task)?;
        if bound_task(self.sh.id).is_some() {
            return Err(RtError::AlreadyBound { task: task.into() });
        }
        let tid = sys::gettid();
        {
            let mut st = self.sh.state.lock();
            if st.tid[t].is_some() {
                return Err(RtError::AlreadyBound { task: task.into() });
            }
            st.tid[t] = Some(tid);
            self.sh.apply(&mut st, t, Phase::Raise)?;
        }
        BOUND.with(|b| b.borrow_mut().push((self.sh.id, t)));
        Ok(Binding {
            sh: self.sh.clone(),
            t,
            _not_send: std::marker::PhantomData,
        })
    }

    /// The index of the task named `name`.
    pub fn task(&self, name: &str) -> Result<Tid, RtError> {
        self.sh
            .tasks
            .iter()
            .position(|t| t == name)
            .ok_or_else(|| RtError::Unknown {
                what: "task",
                name: name.into(),
            })
    }

    /// The index of the resource named `name`.
    pub fn resource(&self, name: &str) -> Result<usize, RtError> {
        self.sh
            .resources
            .iter()
            .position(|r| r == name)
            .ok_or_else(|| RtError::Unknown {
                what: "resource",
                name: name.into(),
            })
    }

    /// The SCHED_FIFO priority a task runs at with effective priority `e`.
    pub fn fifo_priority(&self, e: Eff) -> i32 {
        self.sh.map.fifo(e)
    }

    /// The task's effective priority now, as the machine computes it.
    pub fn eff(&self, task: Tid) -> Eff {
        self.sh.state.lock().locks.eff(task)
    }

    /// The resource the task waits for now, if any.
    pub fn waiting(&self, task: Tid) -> Option<usize> {
        self.sh.state.lock().locks.waiting(task)
    }

    /// The log of grants, releases, priority changes and job ends (with
    /// `Options::record`).
    pub fn log(&self) -> Vec<Record> {
        self.sh
            .state
            .lock()
            .log
            .iter()
            .map(|(_, r)| r.clone())
            .collect()
    }

    /// The log with the time of each record since the domain was made.
    pub fn timed_log(&self) -> Vec<(Duration, Record)> {
        self.sh.state.lock().log.clone()
    }

    /// The machine CPU of system CPU `cpu`.
    pub fn machine_cpu(&self, cpu: usize) -> usize {
        self.sh.cpu_map[cpu % self.sh.cpu_map.len().max(1)]
    }

    pub fn options(&self) -> &Options {
        &self.sh.opts
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Raise,
    Lower,
}

impl State {
    fn record(&mut self, r: Record) {
        self.log.push((self.made.elapsed(), r));
    }
}

impl Shared {
    fn refused(&self, t: Tid, r: Option<usize>, e: rtsync_protocols::LockError) -> RtError {
        RtError::Refused {
            task: self.tasks[t].clone(),
            resource: r.map(|r| self.resources[r].clone()),
            error: e,
        }
    }

    /// Carries out the machine's priorities and locations for every bound
    /// thread, in `phase` (raises and migrations, or lowerings), `me`'s
    /// own lowering last. Logs changes of effective priority.
    fn apply(&self, st: &mut State, me: Tid, phase: Phase) -> Result<(), RtError> {
        let n = st.tid.len();
        if phase == Phase::Raise && self.opts.record {
            for t in 0..n {
                let e = st.locks.eff(t);
                if e != st.shown[t] {
                    let was = st.shown[t].label(self.base[t], false);
                    let now = e.label(self.base[t], false);
                    st.shown[t] = e;
                    if was != now {
                        st.record(Record::Priority {
                            task: self.tasks[t].clone(),
                            label: now,
                        });
                    }
                }
            }
        }
        if !self.opts.realtime {
            return Ok(());
        }
        let order = (0..n).filter(|&t| t != me).chain(std::iter::once(me));
        for t in order {
            let Some(tid) = st.tid[t] else { continue };
            let want = self.map.fifo(st.locks.eff(t));
            let cpu = self.cpu_map[st.locks.location(t) % self.cpu_map.len()];
            if phase == Phase::Raise && st.cpu[t] != Some(cpu) {
                sys::set_cpu(tid, cpu).map_err(|e| RtError::Os {
                    what: format!("pinning task `{}` to CPU {cpu}", self.tasks[t]),
                    error: e,
                })?;
                st.cpu[t] = Some(cpu);
            }
            let change = match (phase, st.prio[t]) {
                (_, None) => phase == Phase::Raise,
                (Phase::Raise, Some(p)) => want > p,
                (Phase::Lower, Some(p)) => want < p,
            };
            if change {
                sys::set_priority(tid, Some(want)).map_err(|e| RtError::Os {
                    what: format!(
                        "setting task `{}` to SCHED_FIFO priority {want}",
                        self.tasks[t]
                    ),
                    error: e,
                })?;
                st.prio[t] = Some(want);
            }
        }
        Ok(())
    }

    fn wake(&self, t: Tid) {
        let w = &self.slots[t].wake;
        w.fetch_add(1, Ordering::Release);
        sys::futex_wake(w, 1);
    }

    /// Sleeps (or spins) until `t`'s wake word moves past `seen`, or until
    /// `deadline`.
    fn sleep(&self, t: Tid, seen: u32, spin: bool, deadline: Instant) {
        let w = &self.slots[t].wake;
        if spin {
            let until = Instant::now() + self.opts.spin_limit;
            // Bounded in time (spin_limit) and iterations.
            for i in 0u64.. {
                if w.load(Ordering::Acquire) != seen {
                    return;
                }
                std::hint::spin_loop();
                if i % 256 == 255 && Instant::now() >= until.min(deadline) {
                    break;
                }
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if !left.is_zero() {
            sys::futex_wait(w, seen, Some(left));
        }
    }

    /// Requests `units` of `r` for `t` and waits until granted. Returns
    /// whether the resource was marked inconsistent.
    pub(crate) fn acquire(&self, t: Tid, r: usize, units: u32) -> Result<bool, RtError> {
        let mut st = self.state.lock();
        let out = st
            .locks
            .lock(t, r, units)
            .map_err(|e| self.refused(t, Some(r), e))?;
        let spin = match out {
            Outcome::Granted => {
                self.apply(&mut st, t, Phase::Raise)?;
                return Ok(self.granted(&mut st, t, r));
            }
            Outcome::Wait { spin } => spin,
        };
        if let Some(cycle) = st.locks.wait_cycle(t) {
            let _ = st.locks.cancel(t);
            let cycle = cycle
                .iter()
                .map(|&(x, r)| (self.tasks[x].clone(), self.resources[r].clone()))
                .collect();
            return Err(RtError::Deadlock { cycle });
        }
        // The holder inherits (or the waiter moves, or is made
        // non-preemptive to spin) before the waiter sleeps.
        self.apply(&mut st, t, Phase::Raise)?;
        let start = Instant::now();
        let deadline = start + self.opts.wait_limit;
        loop {
            let seen = self.slots[t].wake.load(Ordering::Acquire);
            drop(st);
            self.sleep(t, seen, spin, deadline);
            st = self.state.lock();
            if st.locks.waiting(t).is_none() {
                // Handed over by the release that woke us.
                return Ok(self.granted(&mut st, t, r));
            }
            if st.locks.woken(t) {
                // Woken to compete again (PIP, PCP, SRP: no hand-over).
                let out = st.locks.retry(t).map_err(|e| self.refused(t, Some(r), e))?;
                self.apply(&mut st, t, Phase::Raise)?;
                if out == Outcome::Granted {
                    return Ok(self.granted(&mut st, t, r));
                }
                continue;
            }
            if Instant::now() >= deadline {
                let _ = st.locks.cancel(t);
                self.apply(&mut st, t, Phase::Raise)?;
                self.apply(&mut st, t, Phase::Lower)?;
                return Err(RtError::Timeout {
                    task: self.tasks[t].clone(),
                    resource: self.resources[r].clone(),
                    waited: start.elapsed(),
                });
            }
        }
    }

    fn granted(&self, st: &mut PiGuard<'_, State>, t: Tid, r: usize) -> bool {
        if self.opts.record {
            st.record(Record::Granted {
                task: self.tasks[t].clone(),
                resource: self.resources[r].clone(),
            });
        }
        st.inconsistent[r]
    }

    /// Releases `r`, `t`'s innermost section; `inconsistent` marks its
    /// data as possibly broken (the owner panicked or died inside), and
    /// `Some(false)` clears the mark (the owner restored it).
    pub(crate) fn release(
        &self,
        t: Tid,
        r: usize,
        inconsistent: Option<bool>,
    ) -> Result<(), RtError> {
        let mut st = self.state.lock();
        let woken = st
            .locks
            .unlock(t, r)
            .map_err(|e| self.refused(t, Some(r), e))?;
        if let Some(m) = inconsistent {
            st.inconsistent[r] = m;
        }
        if self.opts.record {
            st.record(Record::Released {
                task: self.tasks[t].clone(),
                resource: self.resources[r].clone(),
            });
        }
        self.apply(&mut st, t, Phase::Raise)?;
        for g in &woken {
            self.wake(g.thread);
        }
        for x in 0..st.starting.len() {
            if st.starting[x] {
                self.wake(x);
            }
        }
        self.apply(&mut st, t, Phase::Lower)
    }

    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    pub(crate) fn resource_name(&self, r: usize) -> &str {
        &self.resources[r]
    }

    pub(crate) fn resource_units(&self, r: usize) -> u32 {
        self.units[r]
    }
}

/// The calling thread's membership of a domain as one task. Not `Send`:
/// priorities and locks belong to the thread that bound.
pub struct Binding {
    sh: Arc<Shared>,
    t: Tid,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Binding {
    pub fn task(&self) -> Tid {
        self.t
    }

    /// Starts a job: the task's next job gets its place among equal
    /// priorities, and under SRP it waits until its preemption level
    /// passes the system ceiling (Baker 1991: a job that starts never
    /// blocks afterwards).
    pub fn job_begin(&self) -> Result<(), RtError> {
        let mut st = self.sh.state.lock();
        st.seq += 1;
        let seq = st.seq;
        let base = self.sh.base[self.t];
        st.locks
            .set_base(self.t, base, seq)
            .map_err(|e| self.sh.refused(self.t, None, e))?;
        let deadline = Instant::now() + self.sh.opts.wait_limit;
        while !st.locks.may_start(self.t) {
            if Instant::now() >= deadline {
                st.starting[self.t] = false;
                return Err(RtError::Timeout {
                    task: self.sh.tasks[self.t].clone(),
                    resource: "(SRP start test)".into(),
                    waited: self.sh.opts.wait_limit,
                });
            }
            st.starting[self.t] = true;
            let seen = self.sh.slots[self.t].wake.load(Ordering::Acquire);
            drop(st);
            self.sh.sleep(self.t, seen, false, deadline);
            st = self.sh.state.lock();
        }
        st.starting[self.t] = false;
        Ok(())
    }

    /// Ends a job: it must hold nothing.
    pub fn job_end(&self) -> Result<(), RtError> {
        let mut st = self.sh.state.lock();
        st.locks
            .job_done(self.t)
            .map_err(|e| self.sh.refused(self.t, None, e))?;
        if self.sh.opts.record {
            st.record(Record::Completed {
                task: self.sh.tasks[self.t].clone(),
            });
        }
        Ok(())
    }

    /// Requests `units` of resource `r` (by index) and waits for them.
    /// Returns whether a previous owner left the resource inconsistent.
    pub fn lock(&self, r: usize, units: u32) -> Result<bool, RtError> {
        self.sh.acquire(self.t, r, units)
    }

    /// Releases resource `r`, which must be the innermost section held.
    pub fn unlock(&self, r: usize) -> Result<(), RtError> {
        self.sh.release(self.t, r, None)
    }
}

impl Drop for Binding {
    fn drop(&mut self) {
        // Robustness: whatever the task still holds is released, innermost
        // first, and marked inconsistent for the next owner; a pending
        // request is withdrawn. Nobody waits forever on a dead owner.
        let held: Vec<usize> = {
            let mut st = self.sh.state.lock();
            let _ = st.locks.cancel(self.t);
            st.starting[self.t] = false;
            st.locks.held(self.t).collect()
        };
        for &r in held.iter().rev() {
            let _ = self.sh.release(self.t, r, Some(true));
        }
        let mut st = self.sh.state.lock();
        if let Some(tid) = st.tid[self.t].take()
            && self.sh.opts.realtime
        {
            let _ = sys::set_priority(tid, None);
        }
        st.prio[self.t] = None;
        st.cpu[self.t] = None;
        drop(st);
        let id = self.sh.id;
        BOUND.with(|b| b.borrow_mut().retain(|&(d, _)| d != id));
    }
}
