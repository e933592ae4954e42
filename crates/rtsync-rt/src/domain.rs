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
//! **PIP on the kernel's PI futex.** A domain whose resources are all PIP,
//! applying priorities and keeping no log, does not consult the machine:
//! each resource is a PI futex word and the kernel queues, inherits and
//! hands over (`kernel_pi`), one system call per contended hand-off
//! where the machine's path makes two.
//!
//! DPCP and DFLP sections run on their synchronization CPU by migrating
//! the requesting thread (`sched_setaffinity` at the grant, back at the
//! release) rather than by handing the section to an agent thread. An
//! agent is the cheaper mechanism (`rtsync bench locks`: about 0.63x the
//! round trip on the development VM), but migration keeps the section in
//! the caller's own code under the `Mutex<T>` guard, with the caller's
//! thread identity, and needs no agent pool (docs/RUNTIME.md).

mod kernel_pi;

use crate::error::RtError;
use crate::gate::{self, Epoch, Gate};
use crate::helping::{self, Lent};
use crate::pi::{PiGuard, PiLock, RawMutex};
use crate::prio::PrioMap;
use crate::sys;
use rtsync_model::{Scheduler, System};
use rtsync_protocols::{Arbitration, Config, Eff, Locks, Outcome, Tid};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
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
    /// Take the fast path (module documentation) where the protocol
    /// allows it. Off: every operation goes through the machine.
    pub fast_path: bool,
    /// Where every resource is PIP, priorities are applied and no log is
    /// kept, let the kernel's PI futex do PIP (`domain::kernel_pi`): one
    /// word per resource, inheritance and hand-over in the kernel. Off:
    /// PIP goes through the machine like every other protocol.
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
    /// With [`Options::trace`]: this thread's events (only it writes).
    trace: std::sync::Mutex<Vec<(Instant, Traced)>>,
}

/// One traced event of a slot's thread (resources by index).
#[derive(Clone, Copy, Debug)]
enum Traced {
    Granted(usize),
    Released(usize),
    Completed,
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
    /// The last effective priority logged per task.
    shown: Vec<Eff>,
    /// Threads waiting in [`Binding::job_begin`] for SRP's start test.
    starting: Vec<bool>,
    /// Threads with a job in progress ([`Binding::job_begin`] to
    /// [`Binding::job_end`]): what the runtime knows of who competes for
    /// a CPU, for MrsP's helping.
    active: Vec<bool>,
    /// Per thread: the spinner's CPU it runs on in the spinner's place
    /// (MrsP's helping), as last carried out.
    lent: Vec<Option<Lent>>,
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
    /// Ceiling waiters the machine woke that were woken here and have not
    /// retried yet, with their scope (see [`Shared::wake_next`]).
    signaled: Vec<(Tid, usize)>,
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
    pub(crate) tasks: Vec<String>,
    pub(crate) resources: Vec<String>,
    units: Vec<u32>,
    base: Vec<u64>,
    /// Per resource: an owner died or panicked inside it (written under
    /// the bookkeeping lock, read by fast grants).
    inconsistent: Vec<AtomicBool>,
    /// The gates of the fast path: one per system CPU, then one per
    /// resource (used by global resources with fast grants; the others
    /// stay closed).
    gate: Vec<Gate>,
    /// Per resource: the gate its fast grants take.
    fast_gate: Vec<usize>,
    /// `[t * resources + r]`: whether `t` may take `r` on the fast path.
    fast: Vec<bool>,
    /// `[t * resources + r]`: on the fast path, the SCHED_FIFO priority
    /// `t` raises itself to before taking `r` (IPCP's ceiling, a
    /// non-preemptive section), or 0 for none.
    fast_raise: Vec<i32>,
    /// Per task: its SCHED_FIFO priority holding nothing, which a raising
    /// fast section returns to.
    base_fifo: Vec<i32>,
    /// Per task: its CPU; per CPU: its tasks.
    home: Vec<usize>,
    homed: Vec<Vec<Tid>>,
    /// Per resource: the CPU whose gate it closes while the machine holds
    /// it or a request waits for it: the CPU it is local to, or the one
    /// whose system ceiling it counts towards (DPCP's and DFLP's
    /// synchronization CPU, where local sections share the ceiling).
    gate_of: Vec<Option<usize>>,
    /// Per CPU: the resources whose gate it is.
    gated: Vec<Vec<usize>>,
    /// Some resource's protocol helps (MrsP): placements are remade at
    /// every event ([`crate::helping`]).
    helping: bool,
    /// PIP on the kernel's PI futex ([`kernel_pi`]), where it fits: then
    /// locks and releases do not go through the machine.
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

/// Whether `t`'s outermost request of one unit of `r`, with nothing else
/// of its CPU (or, for a global resource, nothing of `r`) known to the
/// machine, would be granted with no change but the holder and perhaps
/// `t`'s own priority: the resource is local to `t`'s CPU or global,
/// locked by itself (no group), its sections run where the caller is, and
/// a scratch machine grants it without moving `t`. `Some(None)`: the priority stays; `Some(Some(e))`: the grant
/// raises `t` to `e`. `probe` is a machine with nothing held; the request
/// is released again.
fn fast_eligible(probe: &mut Locks, t: Tid, r: usize) -> Option<Option<Eff>> {
    let rule = &probe.config().rules[r];
    if rule.unit != r || rule.domain.is_some() || rule.global && gate_of(rule).is_some() {
        return None;
    }
    if !rule.global && rule.scope != probe.config().home[t] {
        return None;
    }
    let (eff, loc) = (probe.eff(t), probe.location(t));
    if !matches!(probe.lock(t, r, 1), Ok(Outcome::Granted)) {
        return None;
    }
    let (held_eff, held_loc) = (probe.eff(t), probe.location(t));
    let _ = probe.unlock(t, r);
    (held_loc == loc).then_some((held_eff != eff).then_some(held_eff))
}

/// The CPU whose gate a resource closes while the machine holds it or a
/// request waits for it: the CPU it is local to, or the one whose system
/// ceiling it counts towards (DPCP's and DFLP's synchronization CPU,
/// where local sections share the ceiling). `None`: a global resource
/// arbitrated by its own queue, which has a gate of its own instead.
fn gate_of(rule: &rtsync_protocols::Rule) -> Option<usize> {
    let ceiling = matches!(rule.arbitration, Arbitration::Ceiling | Arbitration::Stack);
    (!rule.global || ceiling).then_some(rule.scope)
}

/// A priority-inheritance mutex the C library could not make.
fn mutex_init(error: std::io::Error) -> RtError {
    RtError::Os {
        what: "pthread_mutex_init(PTHREAD_PRIO_INHERIT)".into(),
        error,
    }
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
        let nr = sys.resources.len();
        let base: Vec<u64> = cfg.level.iter().map(|&l| l as u64).collect();
        let home: Vec<usize> = cfg.home.clone();
        let mut homed = vec![Vec::new(); cpus];
        for (t, &c) in home.iter().enumerate() {
            homed[c].push(t);
        }
        let mut locks = Locks::new(cfg);
        for (t, &b) in base.iter().enumerate() {
            locks
                .set_base(t, b, t as u64)
                .map_err(|error| RtError::Refused {
                    task: sys.tasks[t].name.clone(),
                    resource: None,
                    error,
                })?;
        }
        let gate_of: Vec<Option<usize>> = locks.config().rules.iter().map(gate_of).collect();
        let mut gated = vec![Vec::new(); cpus];
        for (r, g) in gate_of.iter().enumerate() {
            if let Some(c) = *g {
                gated[c].push(r);
            }
        }
        let helping = locks.config().rules.iter().any(|r| r.helping);
        let mut probe = locks.clone();
        // A raising fast section changes the thread's priority by itself,
        // unseen by the machine: only where priorities are applied and
        // not logged (a log must show every change where it happened).
        let raising = opts.realtime && !opts.record;
        let (mut fast, mut fast_raise) = (vec![false; n * nr], vec![0; n * nr]);
        if opts.fast_path && n < gate::FIELD && nr <= gate::FIELD {
            for i in 0..n * nr {
                match fast_eligible(&mut probe, i / nr, i % nr) {
                    Some(None) => fast[i] = true,
                    Some(Some(e)) if raising => {
                        fast[i] = true;
                        fast_raise[i] = map.fifo(e);
                    }
                    _ => {}
                }
            }
        }
        let base_fifo = (0..n).map(|t| map.fifo(locks.eff(t))).collect();
        // The gate each resource's fast grants take: its CPU's, or its own
        // (after the CPUs' in `gate`), open while anyone may take it fast.
        // A resource of a nesting group (FMLP) takes its group's gate: the
        // group is what is locked, and only its representative resource
        // (the unit) may be taken fast. With a gate of its own, a slow
        // request for another member did not settle the unit's gate, and
        // the machine granted the group to it beside a fast holder (found
        // by tests/stress.rs under FMLP-S).
        let unit_of: Vec<usize> = locks.config().rules.iter().map(|r| r.unit).collect();
        let fast_gate: Vec<usize> = (0..nr)
            .map(|r| gate_of[unit_of[r]].unwrap_or(cpus + unit_of[r]))
            .collect();
        let own_gate_used = |r: usize| (0..n).any(|t| fast[t * nr + r]);
        let gate = (0..cpus + nr)
            .map(|g| {
                let open = g < cpus || gate_of[g - cpus].is_none() && own_gate_used(g - cpus);
                Gate::new(open)
            })
            .collect();
        let kernel =
            kernel_pi::fits(locks.config(), &opts).then(|| kernel_pi::KernelPi::new(n, nr));
        let shown = (0..n).map(|t| locks.eff(t)).collect();
        let state = State {
            locks,
            tid: vec![None; n],
            prio: vec![None; n],
            cpu: vec![None; n],
            shown,
            starting: vec![false; n],
            active: vec![false; n],
            lent: vec![None; n],
            own: None,
            pending: Vec::new(),
            pending_on: vec![false; n],
            changed: Vec::new(),
            signaled: Vec::new(),
            seq: n as u64,
            log: Vec::new(),
            made: Instant::now(),
        };
        Ok(Domain {
            sh: Arc::new(Shared {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                state: PiLock::new(state).map_err(mutex_init)?,
                slots: (0..n)
                    .map(|_| {
                        Ok(Slot {
                            wake: AtomicU32::new(0),
                            depth: AtomicU32::new(0),
                            fast: AtomicU64::new(0),
                            fast_gate: AtomicUsize::new(0),
                            epoch: Epoch::default(),
                            cpu_epoch: Epoch::default(),
                            prio_lock: RawMutex::new(libc::PTHREAD_PRIO_INHERIT, 0)
                                .map_err(mutex_init)?,
                            trace: std::sync::Mutex::new(Vec::new()),
                        })
                    })
                    .collect::<Result<_, RtError>>()?,
                map,
                cpu_map,
                opts,
                tasks: sys.tasks.iter().map(|t| t.name.clone()).collect(),
                resources: sys.resources.iter().map(|r| r.name.clone()).collect(),
                units: sys.resources.iter().map(|r| r.units.max(1)).collect(),
                base,
                inconsistent: (0..nr).map(|_| AtomicBool::new(false)).collect(),
                gate,
                fast_gate,
                fast,
                fast_raise,
                base_fifo,
                home,
                homed,
                gate_of,
                gated,
                helping,
                kernel,
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
        self.sh.state.lock().locks.eff(task)
    }

    /// The resource the task waits for now, if any.
    pub fn waiting(&self, task: Tid) -> Option<usize> {
        match &self.sh.kernel {
            Some(k) => k.waiting(task),
            None => self.sh.state.lock().locks.waiting(task),
        }
    }

    /// Whether PIP runs on the kernel's PI futex here
    /// ([`Options::kernel_pi`]): then the kernel, not the machine, knows
    /// who holds, waits and inherits ([`Domain::eff`] shows base
    /// priorities).
    pub fn kernel_pi(&self) -> bool {
        self.sh.kernel.is_some()
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

    /// The log (with `Options::record`) and the trace (with
    /// `Options::trace`), merged in time order, each entry with its time
    /// since the domain was made.
    pub fn timed_log(&self) -> Vec<(Duration, Record)> {
        let (mut out, made) = {
            let st = self.sh.state.lock();
            (st.log.clone(), st.made)
        };
        if self.sh.opts.trace {
            for (t, slot) in self.sh.slots.iter().enumerate() {
                let task = &self.sh.tasks[t];
                let evs = slot.trace.lock().unwrap_or_else(|e| e.into_inner());
                out.extend(evs.iter().map(|&(at, ev)| {
                    let r = match ev {
                        Traced::Granted(r) => Record::Granted {
                            task: task.clone(),
                            resource: self.sh.resources[r].clone(),
                        },
                        Traced::Released(r) => Record::Released {
                            task: task.clone(),
                            resource: self.sh.resources[r].clone(),
                        },
                        Traced::Completed => Record::Completed { task: task.clone() },
                    };
                    (at.saturating_duration_since(made), r)
                }));
            }
            out.sort_by_key(|e| e.0);
        }
        out
    }

    /// The machine CPU of system CPU `cpu`.
    pub fn machine_cpu(&self, cpu: usize) -> usize {
        self.sh.cpu_map[cpu % self.sh.cpu_map.len().max(1)]
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
        self.sh.fast[self.sh.pair(task, r)]
    }

    /// The SCHED_FIFO priority `task` raises itself to on the fast path
    /// for `r` (IPCP's ceiling, a non-preemptive section), if it does.
    pub fn fast_raise(&self, task: Tid, r: usize) -> Option<i32> {
        let p = self.sh.fast_raise[self.sh.pair(task, r)];
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

impl State {
    fn record(&mut self, r: Record) {
        self.log.push((self.made.elapsed(), r));
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
    fn refused(&self, t: Tid, r: Option<usize>, e: rtsync_protocols::LockError) -> RtError {
        RtError::Refused {
            task: self.tasks[t].clone(),
            resource: r.map(|r| self.resources[r].clone()),
            error: e,
        }
    }

    /// Carries out the machine's priorities and locations for every bound
    /// thread, in `phase` (raises and migrations, or lowerings). `me`'s
    /// own moves (and, in `LowerDeferOwn`, its lowering) wait in
    /// `st.own` until it lets the lock go ([`Decision`]). Logs changes of
    /// effective priority.
    fn apply(&self, st: &mut State, me: Tid, phase: Phase) -> Result<(), RtError> {
        let n = st.tid.len();
        let mut changed = std::mem::take(&mut st.changed);
        st.locks.take_changed(&mut changed);
        changed.iter().for_each(|&t| st.mark(t));
        // Any change of priority may change which woken ceiling waiter
        // runs first, or make a futile retry useful (see `wake_next`).
        if phase == Phase::Raise && !changed.is_empty() {
            self.wake_all_next(st);
        }
        st.changed = changed;
        let lend = if phase == Phase::Raise && self.helping {
            // A lent holder's priority follows its spinner's as well.
            (0..n).for_each(|t| st.mark(t));
            self.replan(st)
        } else {
            Vec::new()
        };
        if phase == Phase::Raise && self.opts.record {
            for i in 0..st.pending.len() {
                let t = st.pending[i];
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
        let mut pending = std::mem::take(&mut st.pending);
        // In thread order, as the kernel sees the changes.
        pending.sort_unstable();
        let out = self.carry_out_pending(st, &pending, me, phase);
        let on = &st.pending_on;
        pending.retain(|&t| on[t]);
        st.pending = pending;
        out?;
        // The holders are in the spinners' places (or back home): a
        // spinner that lends now stops spinning, one lent back resumes.
        lend.iter().for_each(|&s| self.wake(s));
        Ok(())
    }

    /// [`Shared::apply`]'s decisions for the threads of `pending`.
    fn carry_out_pending(
        &self,
        st: &mut State,
        pending: &[Tid],
        me: Tid,
        phase: Phase,
    ) -> Result<(), RtError> {
        for &t in pending {
            let Some(tid) = st.tid[t].filter(|_| self.opts.realtime) else {
                // Unbound, or nothing to carry out (not real-time).
                st.pending_on[t] = false;
                continue;
            };
            // A helping holder runs where the spinner is, at the higher
            // of the two priorities (the spinner's CPU is its now).
            let (eff, loc) = match st.lent[t] {
                Some(l) => (st.locks.eff(t).max(st.locks.eff(l.spinner)), l.cpu),
                None => (st.locks.eff(t), st.locks.location(t)),
            };
            let want = self.map.fifo(eff);
            let cpu = self.cpu_map[loc % self.cpu_map.len()];
            let slot = &self.slots[t];
            let change = match (phase, st.prio[t]) {
                (_, None) => phase == Phase::Raise,
                (Phase::Raise, Some(p)) => want > p,
                (Phase::Lower | Phase::LowerDeferOwn, Some(p)) => want < p,
            };
            let prio = change.then(|| {
                st.prio[t] = Some(want);
                (want, slot.epoch.next())
            });
            let moves = phase == Phase::Raise && st.cpu[t] != Some(cpu);
            let cpu_to = moves.then(|| {
                st.cpu[t] = Some(cpu);
                (cpu, slot.cpu_epoch.next())
            });
            // Reconciled (or about to be, by its own decision): off the
            // list until something changes it again.
            if st.prio[t] == Some(want) && st.cpu[t] == Some(cpu) {
                st.pending_on[t] = false;
            }
            let d = Decision {
                t,
                tid,
                prio,
                cpu: cpu_to,
                lower: phase != Phase::Raise,
            };
            if t != me {
                self.carry_out(d)?;
                continue;
            }
            // Raising itself never stalls the caller (it runs);
            // moving itself or lowering itself at a release waits.
            let (now, later) = match phase {
                Phase::Raise => (Decision { cpu: None, ..d }, Decision { prio: None, ..d }),
                Phase::LowerDeferOwn => (Decision { prio: None, ..d }, d),
                Phase::Lower => (d, Decision { prio: None, ..d }),
            };
            self.carry_out(now)?;
            if later.prio.is_some() || later.cpu.is_some() {
                st.own = Some(match st.own {
                    Some(o) => o.then(later),
                    None => later,
                });
            }
        }
        Ok(())
    }

    /// Carries out a decision's parts that are still the newest, in the
    /// order that never leaves the thread waiting on the way.
    fn carry_out(&self, d: Decision) -> Result<(), RtError> {
        if d.prio.is_none() && d.cpu.is_none() {
            return Ok(());
        }
        let slot = &self.slots[d.t];
        slot.prio_lock.lock();
        let prio = || match d.prio {
            Some((want, e)) if slot.epoch.is_newest(e) => sys::set_priority(d.tid, Some(want))
                .map_err(|error| RtError::Os {
                    what: format!(
                        "setting task `{}` to SCHED_FIFO priority {want}",
                        self.tasks[d.t]
                    ),
                    error,
                }),
            _ => Ok(()),
        };
        let cpu = || match d.cpu {
            Some((cpu, e)) if slot.cpu_epoch.is_newest(e) => {
                sys::set_cpu(d.tid, cpu).map_err(|error| RtError::Os {
                    what: format!("pinning task `{}` to CPU {cpu}", self.tasks[d.t]),
                    error,
                })
            }
            _ => Ok(()),
        };
        let out = if d.lower {
            cpu().and_then(|_| prio())
        } else {
            prio().and_then(|_| cpu())
        };
        // SAFETY: locked above by this thread.
        unsafe { slot.prio_lock.unlock() };
        out
    }

    /// Lets the bookkeeping lock go, then carries out the caller's own
    /// decision that waited for it.
    fn unlock(&self, mut st: PiGuard<'_, State>) -> Result<(), RtError> {
        let own = st.own.take();
        drop(st);
        own.map_or(Ok(()), |d| self.carry_out(d))
    }

    /// Runs `f` with the bookkeeping lock let go, the caller's own
    /// decision carried out first.
    fn unlocked<R>(
        &self,
        st: &mut PiGuard<'_, State>,
        f: impl FnOnce() -> R,
    ) -> Result<R, RtError> {
        let own = st.own.take();
        st.unlocked(|| {
            own.map_or(Ok(()), |d| self.carry_out(d))?;
            Ok(f())
        })
    }

    /// Remakes MrsP's helping placements ([`crate::helping::plan`]) from
    /// what the runtime knows now; returns the spinners whose lending
    /// changed, to be woken once the holders have moved.
    fn replan(&self, st: &mut State) -> Vec<Tid> {
        let n = st.tid.len();
        // Nobody spins and nobody is lent: nothing to place (the common
        // case, kept free of allocations on the uncontended path).
        if st.lent.iter().all(Option::is_none) && !(0..n).any(|t| st.locks.spinning(t)) {
            return Vec::new();
        }
        let runnable: Vec<bool> = (0..n)
            .map(|t| {
                st.tid[t].is_some()
                    && !st.starting[t]
                    && match st.locks.waiting(t) {
                        Some(_) => st.locks.spinning(t),
                        None => st.active[t] || st.locks.holds_any(t),
                    }
            })
            .collect();
        let mut places = vec![None; n];
        helping::plan(&st.locks, &runnable, self.homed.len(), &mut places);
        if places == st.lent {
            return Vec::new();
        }
        let changed = (0..n)
            .filter(|&s| helping::lending(&places, s) != helping::lending(&st.lent, s))
            .collect();
        for (t, p) in places.iter().enumerate() {
            if let Some(l) = p
                && self.opts.record
                && st.lent[t] != *p
            {
                st.record(Record::Helping {
                    task: self.tasks[t].clone(),
                    cpu: l.cpu,
                });
            }
        }
        st.lent = places;
        changed
    }

    /// The index of the pair (`t`, `r`) in the per-pair tables.
    #[inline]
    fn pair(&self, t: Tid, r: usize) -> usize {
        t * self.resources.len() + r
    }

    /// The calling thread, task `t`, sets its own SCHED_FIFO priority on
    /// the fast path (one system call, like PRIO_PROTECT's).
    fn set_own_priority(&self, t: Tid, p: i32) -> Result<(), RtError> {
        sys::set_priority(0, Some(p)).map_err(|error| RtError::Os {
            what: format!(
                "setting task `{}` to SCHED_FIFO priority {p}",
                self.tasks[t]
            ),
            error,
        })
    }

    /// Ceiling-refused waiters woken by one release (PCP, DPCP) compete
    /// again in priority order: on their CPU the highest runs first and
    /// retries, and a lower one could not run before it. So they are
    /// woken one at a time, the highest first, each when the one before
    /// it has retried, instead of all at once by the releaser: the
    /// release wakes one thread however many wait. The machine keeps them
    /// in that order ([`Locks::ceiling_woken`]).
    ///
    /// One whose retry is futile now ([`Locks::retry_is_futile`]: it
    /// would be refused and lend nothing) is left asleep: it stays so
    /// until a release in its scope or a change of priority, and both
    /// call here again. Below a futile one the others are futile too
    /// where they are alike ([`Locks::ceiling_woken_alike`]: the common
    /// case, and what makes a hand-off cost the same with 1 or 64
    /// waiters); otherwise the next one is looked at.
    fn wake_next(&self, st: &mut State, scope: usize) {
        let alike = st.locks.ceiling_woken_alike(scope);
        let mut next = None;
        for x in st.locks.ceiling_woken(scope) {
            if st.signaled.iter().any(|&(y, _)| y == x) {
                // It outranks every one below, and runs first.
                return;
            }
            if !st.locks.retry_is_futile(x) {
                next = Some(x);
                break;
            }
            if alike {
                return;
            }
        }
        if let Some(x) = next {
            st.signaled.push((x, scope));
            self.wake(x);
        }
    }

    /// [`Shared::wake_next`] for every scope with woken ceiling waiters.
    fn wake_all_next(&self, st: &mut State) {
        for scope in 0..st.locks.scopes() {
            if st.locks.ceiling_woken(scope).next().is_some() {
                self.wake_next(st, scope);
            }
        }
    }

    /// `t`, a woken waiter, leaves the woken ones (it retried, gave up or
    /// died): the next one's turn.
    fn forget_woken(&self, st: &mut State, t: Tid, scope: Option<usize>) {
        if let Some(i) = st.signaled.iter().position(|d| d.0 == t) {
            st.signaled.swap_remove(i);
        }
        if let Some(scope) = scope {
            self.wake_next(st, scope);
        }
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

    /// The gates a slow operation of `t` on `r` must settle: its CPU's
    /// (SRP's start test reads its system ceiling), the one of the fast
    /// section `t` holds (known before it nests or waits), and `r`'s.
    fn cpus(&self, t: Tid, r: Option<usize>) -> [usize; 3] {
        let own = self.home[t];
        let held = self.slots[t].fast_gate.load(Ordering::Relaxed);
        let held = held.checked_sub(1).unwrap_or(own);
        [own, held, r.map_or(own, |r| self.fast_gate[r])]
    }

    /// Closes the gates `cpus`; a fast holder found in one is entered
    /// into the machine as holding its resource.
    fn settle(&self, st: &mut State, cpus: [usize; 3]) {
        for c in cpus {
            if let Some(w) = self.gate[c].close() {
                let (x, r) = gate::holder(w);
                // Nothing of this gate was in the machine when `x` took
                // `r`, and nothing has been since: the machine grants.
                let out = st.locks.lock(x, r, 1);
                debug_assert_eq!(out, Ok(Outcome::Granted), "settling {x} on {r}");
                // A raising fast holder raised itself before taking the
                // gate: that is its priority now.
                let raised = self.fast_raise[self.pair(x, r)];
                if raised != 0 {
                    st.prio[x] = Some(raised);
                    st.mark(x);
                }
            }
        }
    }

    /// Opens the gates of `cpus` where the machine has nothing of the CPU
    /// any more: none of its gated resources is held or waited for, and
    /// no job there waits for SRP's start test. Then the machine would
    /// grant any of them to a thread that holds nothing, changing nothing
    /// else where [`fast_eligible`] said so.
    /// A resource's own gate opens when nobody holds or waits for it.
    fn reopen(&self, st: &State, cpus: [usize; 3]) {
        if !self.opts.fast_path {
            return;
        }
        for (i, &c) in cpus.iter().enumerate() {
            if cpus[..i].contains(&c) {
                continue;
            }
            if let Some(r) = c.checked_sub(self.homed.len()) {
                // Only a gate some grant takes is opened (as at the start).
                // `r` is a unit: every resource of its group counts.
                let rules = &st.locks.config().rules;
                let in_unit = |x: usize| rules[x].unit == r;
                let used = (0..self.tasks.len()).any(|t| self.fast[self.pair(t, r)]);
                let held =
                    || (0..rules.len()).any(|x| in_unit(x) && st.locks.holders(x).next().is_some());
                let waited = || (0..st.tid.len()).any(|x| st.locks.waiting(x).is_some_and(in_unit));
                if used && !held() && !waited() {
                    self.gate[c].open();
                }
                continue;
            }
            let held = self.gated[c]
                .iter()
                .any(|&r| st.locks.holders(r).next().is_some());
            let waited = || {
                (0..st.tid.len()).any(|x| {
                    st.locks
                        .waiting(x)
                        .is_some_and(|r| self.gate_of[r] == Some(c))
                })
            };
            let starting = || self.homed[c].iter().any(|&x| st.starting[x]);
            if !held && !waited() && !starting() {
                self.gate[c].open();
            }
        }
    }

    /// Requests `units` of `r` for `t` and waits until granted. Returns
    /// whether the resource was marked inconsistent.
    pub(crate) fn acquire(&self, t: Tid, r: usize, units: u32) -> Result<bool, RtError> {
        let out = self.acquire_any(t, r, units);
        if out.is_ok() {
            self.trace(t, Traced::Granted(r));
        }
        out
    }

    /// With [`Options::trace`], appends `ev` to `t`'s own trace, now.
    #[inline]
    fn trace(&self, t: Tid, ev: Traced) {
        if self.opts.trace {
            let mut v = self.slots[t]
                .trace
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            v.push((Instant::now(), ev));
        }
    }

    /// [`Shared::acquire`] on whichever path fits: the kernel's PI futex,
    /// the fast path, or the machine.
    fn acquire_any(&self, t: Tid, r: usize, units: u32) -> Result<bool, RtError> {
        if let Some(k) = &self.kernel {
            return self.kernel_acquire(k, t, r, units);
        }
        let slot = &self.slots[t];
        // The priority this thread raised itself to for a fast attempt.
        let mut raise = 0;
        if units == 1 && self.fast[self.pair(t, r)] && slot.depth.load(Ordering::Relaxed) == 0 {
            let g = self.fast_gate[r];
            let gate = &self.gate[g];
            let me = gate::word(t, r);
            // IPCP's immediate ceiling: raised before the section is
            // entered, so it never runs below it. Nobody else decides
            // this thread's priority meanwhile: it holds and waits for
            // nothing the machine knows.
            raise = self.fast_raise[self.pair(t, r)];
            if raise != 0 {
                self.set_own_priority(t, raise)?;
            }
            // Recording: the log must show the grant where it happened.
            let mut st = self.opts.record.then(|| self.state.lock());
            if gate.take(me) {
                slot.depth.store(1, Ordering::Relaxed);
                slot.fast_gate.store(g + 1, Ordering::Relaxed);
                let n = slot.fast.load(Ordering::Relaxed);
                slot.fast.store(n + 1, Ordering::Relaxed);
                return Ok(match st.as_mut() {
                    Some(st) => self.granted(st, t, r),
                    None => self.inconsistent[r].load(Ordering::Relaxed),
                });
            }
        }
        let cpus = self.cpus(t, Some(r));
        let mut st = self.state.lock();
        if raise != 0 {
            // Raised for a fast grant the gate then refused.
            st.prio[t] = Some(raise);
            st.mark(t);
        }
        self.settle(&mut st, cpus);
        let out = self.acquire_locked(&mut st, t, r, units);
        self.reopen(&st, cpus);
        let done = self.unlock(st);
        let out = out.and_then(|inconsistent| done.map(|()| inconsistent));
        if out.is_ok() {
            let d = slot.depth.load(Ordering::Relaxed);
            slot.depth.store(d + 1, Ordering::Relaxed);
        }
        out
    }

    /// The machine's part of [`Shared::acquire`], with the CPUs concerned
    /// settled; the bookkeeping lock is let go only while waiting.
    fn acquire_locked(
        &self,
        st: &mut PiGuard<'_, State>,
        t: Tid,
        r: usize,
        units: u32,
    ) -> Result<bool, RtError> {
        let out = st
            .locks
            .lock(t, r, units)
            .map_err(|e| self.refused(t, Some(r), e))?;
        let spin = match out {
            Outcome::Granted => {
                self.apply(st, t, Phase::Raise)?;
                return Ok(self.granted(st, t, r));
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
        // non-preemptive to spin) before the waiter sleeps; a waiter that
        // raised itself for a fast grant the gate refused comes down
        // (itself, once it lets the lock go: a releaser must not lower
        // every such waiter while its successor waits for the lock).
        self.apply(st, t, Phase::Raise)?;
        self.apply(st, t, Phase::LowerDeferOwn)?;
        let start = Instant::now();
        let deadline = start + self.opts.wait_limit;
        loop {
            let seen = self.slots[t].wake.load(Ordering::Acquire);
            // A spinner whose CPU runs the holder sleeps until lent back.
            let spin = spin && !helping::lending(&st.lent, t);
            self.unlocked(st, || self.sleep(t, seen, spin, deadline))?;
            if st.locks.waiting(t).is_none() {
                // Handed over by the release that woke us.
                return Ok(self.granted(st, t, r));
            }
            if st.locks.woken(t) {
                // Woken to compete again (PIP, PCP, SRP: no hand-over);
                // the next ceiling-woken waiter follows once this one
                // has had its turn.
                let scope = st.locks.ceiling_scope(t);
                let out = st.locks.retry(t).map_err(|e| self.refused(t, Some(r), e));
                self.forget_woken(st, t, scope);
                let out = out?;
                self.apply(st, t, Phase::Raise)?;
                if out == Outcome::Granted {
                    return Ok(self.granted(st, t, r));
                }
                continue;
            }
            if Instant::now() >= deadline {
                let _ = st.locks.cancel(t);
                self.apply(st, t, Phase::Raise)?;
                self.apply(st, t, Phase::Lower)?;
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
        self.inconsistent[r].load(Ordering::Relaxed)
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
        // Before the release: whoever is granted next traces after it.
        self.trace(t, Traced::Released(r));
        if let Some(k) = &self.kernel {
            return self.kernel_release(k, t, r, inconsistent);
        }
        let slot = &self.slots[t];
        if inconsistent.is_none() && self.fast[self.pair(t, r)] {
            let gate = &self.gate[self.fast_gate[r]];
            let mut st = self.opts.record.then(|| self.state.lock());
            if gate.give_back(gate::word(t, r)) {
                slot.depth.store(0, Ordering::Relaxed);
                slot.fast_gate.store(0, Ordering::Relaxed);
                if self.fast_raise[self.pair(t, r)] != 0 {
                    // Lowered last, the section closed: as a releaser.
                    self.set_own_priority(t, self.base_fifo[t])?;
                }
                if let Some(st) = st.as_mut() {
                    st.record(Record::Released {
                        task: self.tasks[t].clone(),
                        resource: self.resources[r].clone(),
                    });
                }
                return Ok(());
            }
        }
        let cpus = self.cpus(t, Some(r));
        let mut st = self.state.lock();
        self.settle(&mut st, cpus);
        let out = self.release_locked(&mut st, t, r, inconsistent);
        self.reopen(&st, cpus);
        let done = self.unlock(st);
        out?;
        let d = slot.depth.load(Ordering::Relaxed).saturating_sub(1);
        slot.depth.store(d, Ordering::Relaxed);
        if d == 0 {
            // The outermost section, the only one that can be fast.
            slot.fast_gate.store(0, Ordering::Relaxed);
        }
        done
    }

    /// The machine's part of [`Shared::release`].
    fn release_locked(
        &self,
        st: &mut PiGuard<'_, State>,
        t: Tid,
        r: usize,
        inconsistent: Option<bool>,
    ) -> Result<(), RtError> {
        let (handed, _) = st
            .locks
            .unlock_scoped(t, r)
            .map_err(|e| self.refused(t, Some(r), e))?;
        if let Some(m) = inconsistent {
            self.inconsistent[r].store(m, Ordering::Relaxed);
        }
        if self.opts.record {
            st.record(Record::Released {
                task: self.tasks[t].clone(),
                resource: self.resources[r].clone(),
            });
        }
        self.apply(st, t, Phase::Raise)?;
        for g in &handed {
            self.wake(g.thread);
        }
        // The release may let a woken ceiling waiter of its scope through,
        // those it woke now or earlier ones left asleep.
        let scope = st.locks.config().rules[r].scope;
        self.wake_next(st, scope);
        for x in 0..st.starting.len() {
            if st.starting[x] {
                self.wake(x);
            }
        }
        self.apply(st, t, Phase::LowerDeferOwn)
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
    /// The task this thread is bound to (its index in the system).
    pub fn task(&self) -> Tid {
        self.t
    }

    /// Starts a job: the task's next job gets its place among equal
    /// priorities, and under SRP it waits until its preemption level
    /// passes the system ceiling (Baker 1991: a job that starts never
    /// blocks afterwards).
    pub fn job_begin(&self) -> Result<(), RtError> {
        let cpus = self.sh.cpus(self.t, None);
        let mut st = self.sh.state.lock();
        self.sh.settle(&mut st, cpus);
        let out = self.start(&mut st);
        self.sh.reopen(&st, cpus);
        let done = self.sh.unlock(st);
        out.and(done)
    }

    fn start(&self, st: &mut PiGuard<'_, State>) -> Result<(), RtError> {
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
            self.sh
                .unlocked(st, || self.sh.sleep(self.t, seen, false, deadline))?;
        }
        st.starting[self.t] = false;
        st.active[self.t] = true;
        // The new job may preempt a holder that a spinner elsewhere can
        // run (MrsP's helping).
        self.rehelp(st)
    }

    /// Carries out MrsP's helping after a job began or ended, or a
    /// thread left the domain.
    fn rehelp(&self, st: &mut PiGuard<'_, State>) -> Result<(), RtError> {
        if !self.sh.helping {
            return Ok(());
        }
        self.sh.apply(st, self.t, Phase::Raise)?;
        self.sh.apply(st, self.t, Phase::Lower)
    }

    /// Ends a job: it must hold nothing.
    pub fn job_end(&self) -> Result<(), RtError> {
        self.sh.trace(self.t, Traced::Completed);
        if let Some(k) = &self.sh.kernel {
            self.sh.kernel_job_end(k, self.t)?;
        }
        let cpus = self.sh.cpus(self.t, None);
        let mut st = self.sh.state.lock();
        self.sh.settle(&mut st, cpus);
        let done = st.locks.job_done(self.t);
        self.sh.reopen(&st, cpus);
        done.map_err(|e| self.sh.refused(self.t, None, e))?;
        st.active[self.t] = false;
        if self.sh.opts.record {
            st.record(Record::Completed {
                task: self.sh.tasks[self.t].clone(),
            });
        }
        // The holder this job preempted may be running in a spinner's
        // place: it comes home (MrsP's helping).
        let out = self.rehelp(&mut st);
        let done = self.sh.unlock(st);
        out.and(done)
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
        if let Some(k) = &self.sh.kernel {
            let depth = self.sh.slots[self.t].depth.load(Ordering::Relaxed) as usize;
            let held: Vec<usize> = k.held(self.t, depth).collect();
            for &r in held.iter().rev() {
                let _ = self.sh.kernel_release(k, self.t, r, Some(true));
            }
            k.bound(self.t, 0);
        }
        let cpus = self.sh.cpus(self.t, None);
        let held: Vec<usize> = {
            let mut st = self.sh.state.lock();
            self.sh.settle(&mut st, cpus);
            let scope = st.locks.ceiling_scope(self.t);
            let _ = st.locks.cancel(self.t);
            self.sh.forget_woken(&mut st, self.t, scope);
            st.starting[self.t] = false;
            st.active[self.t] = false;
            st.locks.held(self.t).collect()
        };
        for &r in held.iter().rev() {
            let _ = self.sh.release(self.t, r, Some(true));
        }
        let mut st = self.sh.state.lock();
        let slot = &self.sh.slots[self.t];
        // Decisions still on their way for this thread are stale now.
        slot.epoch.next();
        slot.cpu_epoch.next();
        if let Some(tid) = st.tid[self.t].take()
            && self.sh.opts.realtime
        {
            slot.prio_lock.lock();
            let _ = sys::set_priority(tid, None);
            // SAFETY: locked just above by this thread.
            unsafe { slot.prio_lock.unlock() };
        }
        st.prio[self.t] = None;
        st.cpu[self.t] = None;
        // A holder this thread lent its CPU to goes back.
        let _ = self.rehelp(&mut st);
        self.sh.reopen(&st, cpus);
        let _ = self.sh.unlock(st);
        self.sh.slots[self.t].depth.store(0, Ordering::Relaxed);
        self.sh.slots[self.t].fast_gate.store(0, Ordering::Relaxed);
        let id = self.sh.id;
        BOUND.with(|b| b.borrow_mut().retain(|&(d, _)| d != id));
    }
}
