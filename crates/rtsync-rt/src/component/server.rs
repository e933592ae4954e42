//! One interface's threads and how a request reaches one of them and its
//! reply comes back, with the requester's priority travelling along
//! without a word about it in any signature.
//!
//! **The reply is a PI futex the server owns.** A requester writes its
//! request where the chosen thread finds it, writes that thread's id into
//! the request's reply word (a PI futex word naming its owner: the thread
//! *holds the reply* until it answers), wakes the thread and waits for
//! the reply with `FUTEX_LOCK_PI`. The kernel then does what paper 001
//! builds a notification manager and scheduling-context donation for: the
//! serving thread, idle under SCHED_OTHER, inherits the requester's
//! effective priority for as long as the requester waits (a propagated
//! handler runs at its requester's priority, preempted by higher
//! requests served by other threads of the pool); the inheritance is
//! transitive through every chain of PI futexes, so a thread that waits
//! for a nested request passes whatever it inherits to the thread serving
//! that request (paper 001's `nest`, with no protocol of our own); and one
//! `FUTEX_UNLOCK_PI` hands the reply over, wakes the requester and ends
//! the inheritance. A requester that gives up (its wait limit passes)
//! leaves the kernel's queue, which ends the inheritance at once; the
//! thread finishes, finds nobody to answer and is free again: nothing
//! leaks, neither the thread nor a priority.
//!
//! A single thread at a fixed priority needs none of this: it runs at its
//! interface's ceiling, and the analyzer's ceiling is the highest priority
//! any request reaching it can carry, inheritance included. Its requesters
//! wait for the reply on a plain futex (about 2 us less per request than a
//! PI futex's wait on the development VM).
//!
//! Where an interface is exclusive under PIP (`inherited`), the serving
//! thread also takes the interface's own PI futex word for the method:
//! requests then wait in the kernel's priority-ordered queue of that word
//! (priority, then arrival: the notification manager's order) lending
//! their priorities to the holder. Where it has one thread at a fixed
//! priority (`fixed`: the ceiling; `fixed-npcs`: above every task), that
//! thread runs at it, and waiting requests queue in a [`NotifyQueue`]
//! keyed by the priority each request carries.
//!
//! Which of the three an interface is comes from the rule of the resource
//! it lowers to ([`super::Assembly`]), never from its name: the protocol
//! core decides.

use super::notify::NotifyQueue;
use super::trace::{Event, Log};
use super::words::{Claim, Doorbell, FreeLanes, Inbox};
use super::{CallError, Origin};
use crate::sys;
use std::cell::{Cell, UnsafeCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A request in flight, as a serving thread sees it.
pub(crate) trait Run: Send + Sync {
    /// The reply word (a PI futex the serving thread owns until it
    /// answers).
    fn reply(&self) -> &AtomicU32;
    /// Who made the request, and the priority it carries.
    fn origin(&self) -> &Origin;
    /// Runs the request's work; a panic becomes an error reply.
    fn run(&self);
    /// Answers with an error instead of running.
    fn fail(&self, e: CallError);
}

/// How an interface serves its requests (module documentation).
pub(crate) enum Mode {
    /// A pool; requests run concurrently (propagated).
    Reentrant,
    /// A pool; one request at a time, under the interface's PI futex
    /// word (inherited).
    Exclusive(AtomicU32),
    /// A pool whose interface is a resource of the lock domain, which the
    /// runner's thread acting for the requesting task takes around the
    /// method (inherited, where a request to it encloses a plain
    /// resource: [`super::Assembly::waits_in_domain`]).
    Domain,
    /// One thread at this SCHED_FIFO priority (or none where priorities
    /// are not applied), requests queued by the priority they carry;
    /// nested requests carry `carries` (fixed, fixed-npcs). Requests are
    /// posted to `inbox` and sorted by the thread into a notification
    /// queue of its own, room for `room` (no lock any requester could be
    /// preempted holding: [`Inbox`]); `waiting` counts those not yet
    /// taken or withdrawn.
    Single {
        fifo: Option<i32>,
        carries: u32,
        inbox: Inbox<Arc<dyn Run>>,
        waiting: AtomicUsize,
        room: usize,
    },
}

/// One thread of an interface.
struct Lane {
    /// Its kernel thread id, once started.
    tid: AtomicI32,
    /// Rung when a request is posted to it; it sleeps on it.
    bell: Doorbell,
    /// The request posted (pools: written by the requester that claimed
    /// the lane, read by the lane after its bell rings).
    mail: UnsafeCell<Option<Arc<dyn Run>>>,
}

/// An interface's threads and its waiting requests.
pub(crate) struct Server {
    /// `Component.interface`.
    pub(crate) name: String,
    /// Its index among the assembly's interfaces.
    pub(crate) index: usize,
    pub(crate) mode: Mode,
    lanes: Box<[Lane]>,
    /// Which lanes are free.
    free: FreeLanes,
    /// Requests that found every thread of the pool busy (the analyzer's
    /// pool size was too small for what ran).
    pub(crate) overflows: AtomicU64,
    stop: AtomicBool,
    limit: Duration,
    log: Option<Arc<Log>>,
}

// SAFETY: `mail` is written only by the requester that claimed the lane
// (cleared its free bit) and read by the lane after the ring that
// publishes it; the lane clears it before setting its bit again.
unsafe impl Sync for Server {}

thread_local! {
    /// What the current thread serves: (interface, lane), for requests
    /// it makes and for the log.
    static SERVING: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// The interface and lane the calling thread serves, if it is a
/// component thread.
pub(crate) fn serving() -> Option<(usize, usize)> {
    SERVING.with(|s| s.get())
}

/// A single thread's reply word: posted, not yet taken (the requester
/// may withdraw it)...
const PENDING: u32 = 0;
/// ...answered...
const ANSWERED: u32 = 1;
/// ...taken by the thread, which runs it...
const TAKEN: u32 = 2;
/// ...or withdrawn by a requester that stopped waiting: never run.
const WITHDRAWN: u32 = 3;

/// Waits (up to `left`) for a single thread's answer on a plain futex.
fn answered(reply: &AtomicU32, left: Duration) -> Result<(), i32> {
    let until = Instant::now() + left;
    loop {
        let seen = reply.load(Ordering::Acquire);
        if seen == ANSWERED {
            return Ok(());
        }
        let now = Instant::now();
        if now >= until {
            return Err(libc::ETIMEDOUT);
        }
        sys::futex_wait(reply, seen, Some(until - now));
    }
}

/// The most threads one pool holds (one bit each in a word).
pub(crate) const MAX_POOL: usize = 64;

impl Server {
    pub(crate) fn new(
        name: String,
        index: usize,
        mode: Mode,
        threads: usize,
        limit: Duration,
        log: Option<Arc<Log>>,
    ) -> Server {
        let n = threads.clamp(1, MAX_POOL);
        Server {
            name,
            index,
            mode,
            lanes: (0..n)
                .map(|_| Lane {
                    tid: AtomicI32::new(0),
                    bell: Doorbell::default(),
                    mail: UnsafeCell::new(None),
                })
                .collect(),
            free: FreeLanes::new(n),
            overflows: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            limit,
            log,
        }
    }

    /// Threads in the pool.
    pub(crate) fn threads(&self) -> usize {
        self.lanes.len()
    }

    /// The label of lane `k`, as the simulator and the scenarios name
    /// component threads: `C.i` for a fixed interface's one thread,
    /// `C.i#k` for the `k`-th thread of a pool, a pool of one included.
    pub(crate) fn lane_label(&self, k: usize) -> String {
        if matches!(self.mode, Mode::Single { .. }) {
            self.name.clone()
        } else {
            format!("{}#{k}", self.name)
        }
    }

    /// Sends `job` and waits for its reply (module documentation).
    pub(crate) fn call(&self, job: Arc<dyn Run>) -> Result<(), CallError> {
        let start = Instant::now();
        let lane = match &self.mode {
            Mode::Single { inbox, waiting, .. } => {
                // The reply word stays PENDING until the thread takes the
                // request, then ANSWERED (a plain futex: module
                // documentation).
                self.note(Event::Call {
                    task: job.origin().task.clone(),
                    interface: self.index,
                    lane: 0,
                });
                waiting.fetch_add(1, Ordering::Relaxed);
                inbox.post(job.clone());
                0
            }
            _ => {
                let k = self.claim(start)?;
                let l = &self.lanes[k];
                job.reply()
                    .store(l.tid.load(Ordering::Relaxed) as u32, Ordering::Relaxed);
                self.note(Event::Call {
                    task: job.origin().task.clone(),
                    interface: self.index,
                    lane: k,
                });
                // SAFETY: this requester claimed lane k (module
                // documentation of `Lane::mail`).
                unsafe { *l.mail.get() = Some(job.clone()) };
                k
            }
        };
        let l = &self.lanes[lane];
        // A wake only for a thread that sleeps (one system call less per
        // request where it is still finishing its last one).
        l.bell.ring();
        let left = self.limit.saturating_sub(start.elapsed());
        let waited = match &self.mode {
            Mode::Single { .. } => answered(job.reply(), left),
            _ => {
                let me = sys::gettid() as u32;
                sys::pi_lock(job.reply(), me, left).map(|_| {
                    // The reply is ours now; let the word go for good
                    // (nobody else waits on it).
                    let _ = sys::pi_unlock(job.reply(), me);
                })
            }
        };
        match waited {
            Ok(()) => Ok(()),
            Err(e) => {
                if let Mode::Single { waiting, .. } = &self.mode
                    && job
                        .reply()
                        .compare_exchange(PENDING, WITHDRAWN, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                {
                    // Not yet taken: withdrawn, never served.
                    waiting.fetch_sub(1, Ordering::Relaxed);
                }
                Err(if e == libc::ETIMEDOUT {
                    CallError::Timeout {
                        interface: self.name.clone(),
                        waited: start.elapsed(),
                    }
                } else {
                    CallError::Os {
                        what: "futex(FUTEX_LOCK_PI) on a reply".into(),
                        errno: e,
                    }
                })
            }
        }
    }

    /// Claims the lowest free lane, waiting (bounded) if none is.
    fn claim(&self, start: Instant) -> Result<usize, CallError> {
        let mut counted = false;
        loop {
            let seen = match self.free.claim() {
                Claim::Lane(k) => return Ok(k),
                Claim::Busy(seen) => seen,
            };
            if !counted {
                self.overflows.fetch_add(1, Ordering::Relaxed);
                counted = true;
            }
            let waited = start.elapsed();
            if waited >= self.limit {
                return Err(CallError::Timeout {
                    interface: self.name.clone(),
                    waited,
                });
            }
            self.free.wait(seen, self.limit - waited);
        }
    }

    fn note(&self, e: Event) {
        if let Some(log) = &self.log {
            log.note(e);
        }
    }

    /// The body of lane `k`'s thread: pinned to `cpu`, serving until the
    /// server stops. `ready` is bumped once its id is known.
    pub(crate) fn serve(&self, k: usize, cpu: Option<usize>, realtime: bool, ready: &AtomicU32) {
        let lane = &self.lanes[k];
        let tid = sys::gettid();
        if let Some(c) = cpu {
            let _ = sys::set_cpu(tid, c);
        }
        if realtime {
            match &self.mode {
                Mode::Single { fifo: Some(p), .. } => {
                    let _ = sys::set_priority(tid, Some(*p));
                }
                // Idle, a pool's threads wait at a real-time priority
                // below every task's rather than under SCHED_OTHER:
                // inheriting a requester's priority is then a move within
                // the real-time class, not a change of class (about
                // 0.85 us less per request on the development VM).
                _ => {
                    let _ = sys::set_priority(tid, Some(crate::prio::IDLE));
                }
            }
        }
        lane.tid.store(tid, Ordering::Release);
        SERVING.with(|s| s.set(Some((self.index, k))));
        ready.fetch_add(1, Ordering::Release);
        sys::futex_wake(ready, i32::MAX);
        let mut seen = lane.bell.count();
        // A single thread's notification queue: its own, filled from the
        // inbox before each choice.
        let mut queue = match &self.mode {
            Mode::Single { room, .. } => NotifyQueue::with_capacity(*room),
            _ => NotifyQueue::default(),
        };
        while !self.stop.load(Ordering::Acquire) {
            match &self.mode {
                Mode::Single { inbox, waiting, .. } => loop {
                    inbox.take(|job: Arc<dyn Run>| queue.push(job.origin().carried as u64, job));
                    let Some(job) = queue.pop() else {
                        break;
                    };
                    if job
                        .reply()
                        .compare_exchange(PENDING, TAKEN, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        waiting.fetch_sub(1, Ordering::Relaxed);
                        crate::domain::answering(|| self.answer(k, tid as u32, &*job));
                    }
                },
                _ => {
                    // SAFETY: the lane reads its mail after the ring that
                    // published it (or finds none).
                    if let Some(job) = unsafe { (*lane.mail.get()).take() } {
                        crate::domain::answering(|| self.answer(k, tid as u32, &*job));
                    }
                }
            }
            // More work posted while serving: no sleep. On one CPU that
            // is the usual case: a thread that replies loses its
            // inherited priority and is preempted by its requester before
            // it gets here, and the next request finds it awake.
            let now = lane.bell.count();
            if now != seen {
                seen = now;
                continue;
            }
            if lane.bell.announce(seen) {
                // A bounded sleep: the stop flag is seen within it.
                lane.bell.nap(seen, Duration::from_millis(200));
            }
            lane.bell.up();
            seen = lane.bell.count();
        }
    }

    /// Serves one request on lane `k` (thread id `tid`) and replies.
    fn answer(&self, k: usize, tid: u32, job: &dyn Run) {
        let task = job.origin().task.clone();
        let carried = match &self.mode {
            Mode::Single { carries, .. } => *carries,
            _ => job.origin().carried,
        };
        let prev = super::CONTEXT.with(|c| {
            c.replace(Some(Origin {
                task: task.clone(),
                carried,
                index: job.origin().index,
            }))
        });
        let grant = || {
            self.note(Event::Grant {
                task: task.clone(),
                interface: self.index,
                lane: k,
            })
        };
        // The interface's word, once taken (exclusive interfaces).
        let mut held = None;
        match &self.mode {
            Mode::Exclusive(word) => match sys::pi_lock(word, tid, self.limit) {
                Ok(_) => {
                    grant();
                    held = Some(word);
                    job.run();
                }
                Err(e) => job.fail(if e == libc::ETIMEDOUT {
                    CallError::Timeout {
                        interface: self.name.clone(),
                        waited: self.limit,
                    }
                } else {
                    CallError::Os {
                        what: "futex(FUTEX_LOCK_PI) on an interface".into(),
                        errno: e,
                    }
                }),
            },
            Mode::Single { .. } => {
                grant();
                job.run();
            }
            Mode::Reentrant | Mode::Domain => job.run(),
        }
        super::CONTEXT.with(|c| c.replace(prev));
        self.note(Event::Reply {
            task,
            interface: self.index,
            lane: k,
        });
        // The request is over: in the model the thread is free, the
        // interface released and the reply out at one instant. Here they
        // are done in an order that keeps this thread running through all
        // of them: free first (its mail is taken, and a new request has a
        // reply word of its own: whoever claims it now lends it priority
        // until it is done here), then the interface (one system call to
        // hand it to its top waiter, which may preempt this thread: the
        // hand-off costs what a PI futex's does), then the reply (the
        // requester still lends this thread its priority until then, so a
        // waiter below the requester does not delay it).
        if !matches!(self.mode, Mode::Single { .. }) {
            self.free.release(k);
        }
        if let Some(word) = held {
            let _ = sys::pi_unlock(word, tid);
        }
        if let Mode::Single { .. } = self.mode {
            job.reply().store(ANSWERED, Ordering::Release);
            sys::futex_wake(job.reply(), 1);
        } else {
            let _ = sys::pi_unlock(job.reply(), tid);
        }
    }

    /// Requests waiting in a single thread's queue (0 for a pool, whose
    /// waiting requests are the kernel's).
    pub(crate) fn waiting(&self) -> usize {
        match &self.mode {
            Mode::Single { waiting, .. } => waiting.load(Ordering::Relaxed),
            _ => 0,
        }
    }

    /// Whether every lane knows its thread id.
    pub(crate) fn started(&self) -> bool {
        self.lanes
            .iter()
            .all(|l| l.tid.load(Ordering::Acquire) != 0)
    }

    /// Asks every lane to stop and wakes them.
    pub(crate) fn shut(&self) {
        self.stop.store(true, Ordering::Release);
        for l in self.lanes.iter() {
            l.bell.shake();
        }
    }
}
