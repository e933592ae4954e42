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
//! ([`crate::pi::PiLock`]), which a task's thread holds above every
//! task's priority where the system spans CPUs (`books`): inheritance
//! alone let a holder preempted on one CPU stall the others. Changes are
//! applied in an order that never lets a thread run below the priority
//! the protocol gives it: raises and migrations
//! first, then the wake-ups, then the lowering (the releasing thread's own
//! last: once lowered it may be preempted at once, and by then everyone
//! it had to wake is awake and raised). The releaser's own lowering is
//! carried out just after it lets the bookkeeping lock go, so that the
//! waiter it woke, preempting it, finds that lock free; per-thread
//! decision epochs keep a late lowering from undoing a newer raise.
//!
//! **The fast path.** Where the machine's grant of a free resource would
//! change nothing but who holds it and perhaps the holder's own priority
//! (never its CPU; found by asking a scratch machine, not by protocol
//! name), an outermost uncontended lock is one compare-and-swap on a gate
//! word and its unlock another, with no bookkeeping lock, as a futex is
//! to a mutex: no system call where the priority stays (PIP, PCP, SRP,
//! IPCP's top user), one `sched_setscheduler` each way where the grant
//! raises (IPCP's ceiling, MPCP's boost, a non-preemptive spin section),
//! as PRIO_PROTECT makes; the thread raises itself before taking the gate
//! and lowers itself after letting it go. A resource local to a CPU uses
//! that CPU's gate, open only while the machine has nothing of the CPU
//! (no resource local to it, or counting towards its system ceiling, is
//! held or waited for; no job there waits in SRP's start test); a global
//! resource arbitrated by its own queue has a gate of its own, open while
//! the machine has nothing of it. Then the machine would grant too.
//! Everything else takes the slow path, under the bookkeeping lock, which
//! first *settles* the gates it reads (its CPU's, the one of a fast
//! section its thread holds, the requested resource's): it closes them,
//! and a fast holder found there is entered into the machine as holding
//! (it holds nothing else: a fast lock is an outermost one), at the
//! priority it gave itself, so the machine decides with the whole truth;
//! the last slow operation that leaves a gate's scope quiet opens it.
//! A raising fast section is kept for domains that apply priorities and
//! keep no log (the log must show each change where it happens).
//!
//! **PIP on the kernel's PI futex.** A PIP resource, where priorities
//! are applied and no log is kept, does not consult the machine: it is a
//! PI futex word and the kernel queues, inherits and hands over
//! (`kernel_pi`), one system call per contended hand-off where the
//! machine's path makes two. In a system that mixes protocols, a PIP
//! resource the spec nests with another protocol's stays in the machine,
//! which must see the whole chain of inheritance.
//!
//! DPCP and DFLP sections run on their synchronization CPU by migrating
//! the requesting thread (`sched_setaffinity` at the grant, back at the
//! release) rather than by handing the section to an agent thread. An
//! agent is the cheaper mechanism (`rtsync bench locks`: about 0.63x the
//! round trip on the development VM), but migration keeps the section in
//! the caller's own code under the `Mutex<T>` guard, with the caller's
//! thread identity, and needs no agent pool (docs/RUNTIME.md).

mod acquire;
mod binding;
mod books;
use books::Books;
mod decide;
mod deputy;
pub(crate) use deputy::answering;
pub use deputy::{Acting, Deputy};
mod gates;
use gates::FastPaths;
mod kernel_pi;
mod setup;
mod wake;

use crate::error::RtError;
use crate::gate::{self, Epoch, Gate};
use crate::helping::{self, Lent, Plan};
use crate::journal::{self, Journal};
use crate::pi::{PiGuard, PiLock, RawMutex};
use crate::prio::PrioMap;
use crate::sys;
use rtsync_model::{Scheduler, System};
use rtsync_protocols::{Arbitration, Config, Eff, Label, Locks, Outcome, Tid};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};
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
    /// Keep a log of grants and priority changes ([`Domain::log`]). The
    /// log is kept under the bookkeeping lock, so recording turns off the
    /// paths that bypass it (the fast path's raising grants, the kernel's
    /// PI futex): use `trace` to see the default paths.
    pub record: bool,
    /// Trace grants, releases and job ends on whatever path each takes,
    /// the default ones included: every thread appends to a buffer of its
    /// own, timestamped after it acquires and before it releases, so the
    /// merged trace ([`Domain::timed_log`]) orders causally related
    /// events correctly. Changes no path (priority changes made inside the
    /// kernel or by a fast raise are not in it; `record` has them).
    pub trace: bool,
    /// Entries per chunk of the log (`record`) and of each thread's trace
    /// (`trace`). Each keeps its entries in chunks of this size and the
    /// next chunk made ahead, its pages touched, so that an append under
    /// the bookkeeping lock (or in a job) neither allocates nor faults a
    /// page in: the thread whose append took the spare makes the next one
    /// after it lets the lock go. Two chunks per log are resident.
    pub log_chunk: usize,
    /// Take the fast path (module documentation) where the protocol
    /// allows it. Off: every operation goes through the machine.
    pub fast_path: bool,
    /// Where priorities are applied and no log is kept, let the kernel's
    /// PI futex do PIP (`domain::kernel_pi`) for every PIP resource not
    /// nested with another protocol's: one word per resource, inheritance
    /// and hand-over in the kernel. Off: PIP goes through the machine like
    /// every other protocol.
    pub kernel_pi: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            realtime: true,
            cpu_map: None,
            wait_limit: Duration::from_secs(10),
            spin_limit: Duration::from_millis(50),
            record: false,
            trace: false,
            log_chunk: crate::journal::CHUNK,
            fast_path: true,
            kernel_pi: true,
        }
    }
}

/// One entry of a domain's log, for conformance checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// `task` was granted `resource`.
    Granted {
        /// The task.
        task: String,
        /// The resource.
        resource: String,
    },
    /// `task`'s effective priority changed to `label` (as the simulator's
    /// traces name it).
    Priority {
        /// The task.
        task: String,
        /// The new priority (`base`, `5`, `boosted 3`, `non-preemptive`).
        label: String,
    },
    /// `task` released `resource`.
    Released {
        /// The task.
        task: String,
        /// The resource.
        resource: String,
    },
    /// `task`'s job ended.
    Completed {
        /// The task.
        task: String,
    },
    /// `task`, a preempted holder, runs on system CPU `cpu` in the place
    /// of a waiter spinning there (MrsP's helping).
    Helping {
        /// The task.
        task: String,
        /// The system CPU it runs on.
        cpu: usize,
    },
}

struct Slot {
    /// Bumped at every wake-up; the thread sleeps on it.
    wake: AtomicU32,
    /// Sections the task holds now (written only by its own thread): a
    /// fast lock must be an outermost one.
    depth: AtomicU32,
    /// Grants taken on the fast path (written only by its own thread).
    fast: AtomicU64,
    /// The gate of the section the task holds on the fast path, plus one
    /// (0: none; written only by its own thread): its own later slow
    /// operations settle it first.
    fast_gate: AtomicUsize,
    /// Generation of the task's priority decisions (bumped under the
    /// bookkeeping lock), and the lock that orders the system calls
    /// carrying them out: a decision carried out late (a releaser's own
    /// lowering, after it lets the bookkeeping lock go) is skipped if a
    /// newer one exists, so the thread always ends at the newest.
    epoch: Epoch,
    /// The same for the task's CPU.
    cpu_epoch: Epoch,
    prio_lock: RawMutex,
    /// The SCHED_FIFO priority last decided for the thread (0:
    /// SCHED_OTHER), what it runs at outside the bookkeeping lock
    /// (`books`); written with `prio_lock` held.
    applied: AtomicI32,
    /// The lowest SCHED_FIFO priority the task's thread is set to (0:
    /// none): the own priority of a component thread acting for the task
    /// ([`deputy`]), which the task's decisions do not take it below.
    floor: AtomicI32,
    /// The thread is at the bookkeeping level, taking, holding or just
    /// letting go the bookkeeping lock: a decision for it is recorded in
    /// `applied`, not applied (`books`); written with `prio_lock` held.
    in_books: AtomicBool,
    /// With [`Options::trace`]: this thread's events (only it writes; its
    /// first chunk and a spare made when the domain is made).
    trace: std::sync::Mutex<Journal<(Instant, Traced)>>,
}

/// One traced event of a slot's thread (resources by index).
#[derive(Clone, Copy, Debug)]
enum Traced {
    Granted(usize),
    Released(usize),
    Completed,
}

/// One entry of the log as it is kept under the bookkeeping lock: indices
/// and a priority's [`Label`], nothing that allocates. Names and labels
/// are made when the log is read ([`Shared::named`]).
#[derive(Clone, Copy, Debug)]
enum Entry {
    Granted(Tid, usize),
    Released(Tid, usize),
    Completed(Tid),
    Priority(Tid, Label),
    Helping(Tid, usize),
}

impl Traced {
    /// The log's entry for this event of task `t`.
    fn entry(self, t: Tid) -> Entry {
        match self {
            Traced::Granted(r) => Entry::Granted(t, r),
            Traced::Released(r) => Entry::Released(t, r),
            Traced::Completed => Entry::Completed(t),
        }
    }
}

/// A copy of the entries of the journal `read` shows under a lock, into
/// space allocated outside it: a reader of the log or a trace allocates
/// nothing while it holds a lock a real-time thread may be waiting for.
/// Should the entries outgrow the space between a look and the copy, it
/// looks again.
fn copy_out<T: Copy>(mut read: impl FnMut(&mut dyn FnMut(&Journal<T>))) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    loop {
        let mut short = None;
        read(&mut |src: &Journal<T>| {
            let n = src.len();
            if n <= out.capacity() {
                out.clear();
                for part in src.parts() {
                    out.extend_from_slice(part);
                }
            } else {
                short = Some(n);
            }
        });
        match short {
            None => return out,
            // Room for what arrives before the next look.
            Some(n) => out.reserve(n + n / 4 + 16),
        }
    }
}

/// A decision about one thread's SCHED_FIFO priority and CPU, each part
/// with the epoch it was decided in (a part whose epoch is no longer the
/// newest is skipped when carried out: a newer decision was, or will be).
///
/// A thread's own moves, and a releaser's own lowering, are carried out
/// after it lets the bookkeeping lock go: a thread that moves itself to a
/// CPU where something of higher priority runs would otherwise sit there
/// holding the lock, stalling every lock operation of the domain (seen:
/// an MrsP holder going home at its release, behind the job that had
/// preempted it); and the waiter a releaser woke, preempting it, finds
/// the lock free.
#[derive(Clone, Copy, Debug)]
struct Decision {
    t: Tid,
    tid: i32,
    prio: Option<(i32, u64)>,
    cpu: Option<(usize, u64)>,
    /// The priority part lowers: move first (arriving at the higher
    /// priority, so the move itself never waits), then lower. Otherwise
    /// raise first, then move.
    lower: bool,
}

impl Decision {
    /// `self` followed by the newer `next` for the same thread.
    fn then(self, next: Decision) -> Decision {
        debug_assert_eq!(self.t, next.t);
        Decision {
            prio: next.prio.or(self.prio),
            cpu: next.cpu.or(self.cpu),
            lower: if next.prio.is_some() {
                next.lower
            } else {
                self.lower
            },
            ..next
        }
    }
}

/// The size of a gate word ([`Gate`]): one per CPU and one per resource.
/// 32 bits (task + 1 and resource, 16 bits each; systems beyond that take
/// no fast path), so that a resource's own gate keeps its state within 64
/// bytes.
pub const GATE_BYTES: usize = std::mem::size_of::<Gate>();

struct State {
    locks: Locks,
    /// Kernel thread id per bound task.
    tid: Vec<Option<i32>>,
    /// Applied SCHED_FIFO priority and machine CPU per bound task.
    prio: Vec<Option<i32>>,
    cpu: Vec<Option<usize>>,
    /// The label of the last effective priority logged per task.
    shown: Vec<Label>,
    /// Threads waiting in [`Binding::job_begin`] for SRP's start test.
    starting: Vec<bool>,
    /// Threads with a job in progress ([`Binding::job_begin`] to
    /// [`Binding::job_end`]): what the runtime knows of who competes for
    /// a CPU, for MrsP's helping.
    active: Vec<bool>,
    /// Per thread: the spinner's CPU it runs on in the spinner's place
    /// (MrsP's helping), as last carried out.
    lent: Vec<Option<Lent>>,
    /// The helping decision's storage ([`Shared::replan`]).
    plan: Plan,
    /// The lock holder's own decision, carried out once it lets the lock
    /// go ([`Decision`]).
    own: Option<Decision>,
    /// Threads whose applied priority or CPU may differ from what the
    /// machine (or helping) says: the only ones [`Shared::apply`] visits,
    /// so that an operation costs the same with 1 or 64 waiters.
    pending: Vec<Tid>,
    pending_on: Vec<bool>,
    /// Scratch for the machine's changed threads.
    changed: Vec<Tid>,
    /// Scratch for the waiters the machine woke by a priority rise
    /// ([`rtsync_protocols::Locks::take_rewoken`]), sized for every thread.
    rewoken: Vec<Tid>,
    /// Scratch for the threads a release grants ([`Locks::unlock_into`]).
    granted: Vec<rtsync_protocols::Granted>,
    /// Ceiling waiters the machine woke that were woken here and have not
    /// retried yet, with their scope (see [`Shared::wake_next`]).
    signaled: Vec<(Tid, usize)>,
    seq: u64,
    /// Entries with their time since the domain was made.
    log: Journal<(Duration, Entry)>,
    made: Instant,
}

pub(crate) struct Shared {
    id: u64,
    state: PiLock<State>,
    slots: Vec<Slot>,
    map: PrioMap,
    cpu_map: Vec<usize>,
    /// The SCHED_FIFO priority a task's thread holds the bookkeeping lock
    /// at, where priorities are applied and the system's CPUs are more
    /// than one machine CPU (`books`).
    books_level: Option<i32>,
    opts: Options,
    pub(crate) tasks: Vec<String>,
    pub(crate) resources: Vec<String>,
    units: Vec<u32>,
    base: Vec<u64>,
    /// Per resource: an owner died or panicked inside it (written under
    /// the bookkeeping lock, read by fast grants).
    inconsistent: Vec<AtomicBool>,
    /// Which operations may take the fast path, and its gates.
    paths: FastPaths,
    /// Per task: its CPU; per CPU: its tasks.
    home: Vec<usize>,
    homed: Vec<Vec<Tid>>,
    /// Some resource's protocol helps (MrsP): placements are remade at
    /// every event ([`crate::helping`]).
    helping: bool,
    /// PIP on the kernel's PI futex ([`kernel_pi`]) for the resources it
    /// fits: their locks and releases do not go through the machine.
    kernel: Option<kernel_pi::KernelPi>,
}

/// A system's resources shared by real threads. Cheap to clone.
#[derive(Clone)]
pub struct Domain {
    pub(crate) sh: Arc<Shared>,
}

impl std::fmt::Debug for Domain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Domain")
            .field("tasks", &self.sh.tasks)
            .field("resources", &self.sh.resources)
            .field("kernel_pi", &self.kernel_pi())
            .finish_non_exhaustive()
    }
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

/// Whether the calling thread is bound to a task of any domain.
fn bound_anywhere() -> bool {
    BOUND.with(|b| !b.borrow().is_empty())
}

impl Domain {
    /// Binds the calling thread to `task`: it takes the task's base
    /// priority and CPU (when real-time) and may then use the domain's
    /// resources. Dropping the binding releases whatever the task still
    /// holds (marking it inconsistent) and returns the thread to
    /// SCHED_OTHER.
    pub fn bind(&self, task: &str) -> Result<Binding, RtError> {
        self.bind_index(self.task(task)?)
    }

    /// [`Domain::bind`] for the task of index `t` (in range).
    pub(crate) fn bind_index(&self, t: Tid) -> Result<Binding, RtError> {
        let task = self.sh.tasks[t].as_str();
        if bound_task(self.sh.id).is_some() {
            return Err(RtError::AlreadyBound { task: task.into() });
        }
        let tid = sys::gettid();
        {
            let mut st = self.sh.books(t)?;
            if st.tid[t].is_some() {
                return Err(RtError::AlreadyBound { task: task.into() });
            }
            st.tid[t] = Some(tid);
            if let Some(k) = &self.sh.kernel {
                k.bound(t, tid);
            }
            st.mark(t);
            self.sh.apply(&mut st, t, Phase::Raise)?;
            self.sh.unlock(st)?;
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
        self.sh.observe(|st| st.locks.eff(task))
    }

    /// The resource the task waits for now, if any.
    pub fn waiting(&self, task: Tid) -> Option<usize> {
        (self.sh.kernel.as_ref())
            .and_then(|k| k.waiting(task))
            .or_else(|| self.sh.observe(|st| st.locks.waiting(task)))
    }

    /// Whether PIP runs on the kernel's PI futex here for some resource
    /// ([`Options::kernel_pi`]): then the kernel, not the machine, knows
    /// who holds, waits for and inherits through it ([`Domain::eff`] does
    /// not show its boosts).
    pub fn kernel_pi(&self) -> bool {
        self.sh.kernel.as_ref().is_some_and(|k| k.any())
    }

    /// Whether resource `r` runs on the kernel's PI futex.
    pub fn on_kernel(&self, r: usize) -> bool {
        self.sh.kernel.as_ref().is_some_and(|k| k.runs(r))
    }

    /// The log of grants, releases, priority changes and job ends (with
    /// `Options::record`).
    pub fn log(&self) -> Vec<Record> {
        let entries = copy_out(|f| self.sh.observe(|st| f(&st.log)));
        entries.into_iter().map(|(_, e)| self.sh.named(e)).collect()
    }

    /// The log (with `Options::record`) and the trace (with
    /// `Options::trace`), merged in time order, each entry with its time
    /// since the domain was made.
    pub fn timed_log(&self) -> Vec<(Duration, Record)> {
        let mut all = copy_out(|f| self.sh.observe(|st| f(&st.log)));
        if self.sh.opts.trace {
            let made = self.made();
            for (t, slot) in self.sh.slots.iter().enumerate() {
                let evs = copy_out(|f| f(&slot.trace.lock().unwrap_or_else(|e| e.into_inner())));
                all.extend(
                    evs.iter()
                        .map(|&(at, ev)| (at.saturating_duration_since(made), ev.entry(t))),
                );
            }
            all.sort_by_key(|e| e.0);
        }
        all.into_iter()
            .map(|(at, e)| (at, self.sh.named(e)))
            .collect()
    }

    /// How many times recording or tracing had to allocate where it must
    /// not (a chunk of the log made under the bookkeeping lock, or of a
    /// thread's trace within its append): a whole chunk
    /// (`Options::log_chunk`) filled between the append that took the
    /// spare and its thread handing the next one over, microseconds
    /// later, once it let the lock go. Zero unless chunks are tiny.
    pub fn late_chunks(&self) -> u64 {
        let log = self.sh.observe(|st| st.log.made_late());
        self.sh.slots.iter().fold(log, |n, slot| {
            n + slot
                .trace
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .made_late()
        })
    }

    /// When the domain was made: the zero of its log's times.
    pub fn made(&self) -> Instant {
        self.sh.observe(|st| st.made)
    }

    /// The machine CPU of system CPU `cpu`.
    pub fn machine_cpu(&self, cpu: usize) -> usize {
        crate::placement::machine_cpu(&self.sh.cpu_map, cpu)
    }

    /// The options the domain was built with.
    pub fn options(&self) -> &Options {
        &self.sh.opts
    }

    /// How many of the task's grants took the fast path (module
    /// documentation).
    pub fn fast_grants(&self, task: Tid) -> u64 {
        self.sh.slots[task].fast.load(Ordering::Relaxed)
    }

    /// Whether `task` may take resource `r` on the fast path.
    pub fn fast_path(&self, task: Tid, r: usize) -> bool {
        self.sh.paths.fast[self.sh.pair(task, r)]
    }

    /// The SCHED_FIFO priority `task` raises itself to on the fast path
    /// for `r` (IPCP's ceiling, a non-preemptive section), if it does.
    pub fn fast_raise(&self, task: Tid, r: usize) -> Option<i32> {
        let p = self.sh.paths.fast_raise[self.sh.pair(task, r)];
        (p != 0).then_some(p)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Raise,
    Lower,
    /// Lower the others now, and the caller once it lets the lock go.
    LowerDeferOwn,
}

impl Shared {
    /// The log's record of entry `e`, with the names of its task and
    /// resource: made outside the bookkeeping lock.
    fn named(&self, e: Entry) -> Record {
        let task = |t: Tid| self.tasks[t].clone();
        let resource = |r: usize| self.resources[r].clone();
        match e {
            Entry::Granted(t, r) => Record::Granted {
                task: task(t),
                resource: resource(r),
            },
            Entry::Released(t, r) => Record::Released {
                task: task(t),
                resource: resource(r),
            },
            Entry::Completed(t) => Record::Completed { task: task(t) },
            Entry::Priority(t, label) => Record::Priority {
                task: task(t),
                label: label.to_string(),
            },
            Entry::Helping(t, cpu) => Record::Helping { task: task(t), cpu },
        }
    }
}

impl State {
    fn record(&mut self, e: Entry) {
        self.log.push((self.made.elapsed(), e));
    }

    /// Where the log took its spare chunk: its chunk size, for the holder
    /// to make the next one once it lets the lock go
    /// ([`Shared::refill_log`]).
    fn log_wants_spare(&self) -> Option<usize> {
        self.log.wants_spare().then(|| self.log.chunk())
    }

    /// Marks `t` for [`Shared::apply`] to reconcile.
    #[inline]
    fn mark(&mut self, t: Tid) {
        if !self.pending_on[t] {
            self.pending_on[t] = true;
            self.pending.push(t);
        }
    }
}

impl Shared {
    /// Hands the log a spare chunk of `chunk` entries, made here, outside
    /// the bookkeeping lock, by the thread whose append took the last one
    /// ([`State::log_wants_spare`]); at the bookkeeping level still, where
    /// the domain has one, so the short hold that installs it is one like
    /// any other.
    fn refill_log(&self, chunk: usize) {
        let spare = journal::fresh(chunk, (Duration::ZERO, Entry::Completed(0)));
        let unused = self.state.lock().log.give_spare(spare);
        // Dropped once the lock is let go.
        drop(unused);
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

#[cfg(test)]
mod tests {
    use super::copy_out;
    use crate::journal::Journal;

    /// A log that grows between the reader's looks (a task still
    /// recording) is copied whole as it stood at the last look, chunk
    /// after chunk, the space for it reserved between looks, outside the
    /// lock.
    #[test]
    fn a_growing_log_is_copied_whole_at_the_last_look() {
        let mut log = Journal::new(7, 0u32);
        let mut n = 0u32;
        for _ in 0..10 {
            log.push(n);
            n += 1;
        }
        let mut looks = 0;
        let out = copy_out(|f| {
            looks += 1;
            if looks <= 3 {
                // Outgrows whatever the reader reserved after the last look.
                for _ in 0..2 * n + 100 {
                    log.push(n);
                    n += 1;
                }
            }
            f(&log);
        });
        assert_eq!(out, (0..n).collect::<Vec<_>>());
        assert!(
            looks >= 4,
            "every look but the last found the log grown: {looks}"
        );
        assert_eq!(copy_out(|f| f(&Journal::<u32>::off())), Vec::<u32>::new());
    }
}
