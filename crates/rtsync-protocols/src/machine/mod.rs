//! The lock machine: who holds what, who waits in which order, and at which
//! effective priority and on which CPU every thread runs.
//!
//! The machine is deterministic and knows no time: the kernel calls
//! [`Locks::lock`] and [`Locks::unlock`] in the order its events happen, and
//! reads the consequences. Effective priorities are brought up to date
//! after every change (inheritance is a fixed point over the blocking
//! relation), so reading them is free; only the threads a change can reach
//! are recomputed, so an operation costs the same with 1 or 64 waiters
//! queued ([`Locks::verify`] checks the result against a recomputation
//! from scratch).

use crate::config::Config;
use crate::eff::{Eff, Tier};
use crate::error::LockError;
use crate::rule::{Arbitration, Hold, Order, Rule, Wait};
use rtsync_model::{Cpu, ResourceId};
use std::cmp::Reverse;

mod ceiling;
mod priority;
mod queue;
mod stack;
#[cfg(test)]
mod testing;
mod verify;

/// A thread, by index (the simulator runs one thread per task).
pub type Tid = usize;

/// The answer to a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The thread holds the resource and continues.
    Granted,
    /// The thread waits; it spins on its CPU or suspends, as the rule says.
    /// A later [`Locks::unlock`] by another thread grants it.
    Wait {
        /// Whether it busy-waits on its CPU (else it suspends).
        spin: bool,
    },
}

/// A waiter affected by someone else's release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Granted {
    /// The waiter.
    pub thread: Tid,
    /// The resource it asked for.
    pub resource: ResourceId,
    /// True: the thread now holds the resource (queue hand-off). False: a
    /// ceiling-refused request was woken and must be retried with
    /// [`Locks::retry`] when the thread next runs — under PCP a release
    /// does not hand anything over; the woken jobs compete again, and a
    /// higher-priority job that runs first may take the resource.
    pub granted: bool,
}

#[derive(Clone, Debug)]
struct Held {
    resource: ResourceId,
    units: u32,
    /// False for an inner request of a group already held (FMLP): nothing
    /// is locked, and nothing is released.
    owns: bool,
    /// Request order, for FIFO boosting.
    issued: u64,
    /// Grant order: among sections boosted to the same key, the one
    /// granted first runs first (a later one never preempts it, as with
    /// SCHED_FIFO at equal priority, and as MPCP's analysis assumes).
    granted: u64,
}

#[derive(Clone, Debug)]
struct Waiting {
    resource: ResourceId,
    units: u32,
    issued: u64,
    /// A queued request chosen by a release without hand-off: runnable,
    /// not blocked, to be retried.
    woken: bool,
    /// A ceiling-refused request: its scope's wake count when it was
    /// refused. Every release there wakes all of them at once by counting
    /// one more wake, so a request whose count is behind is woken
    /// ([`Locks::is_woken`]) without anyone writing to it.
    batch: u64,
}

/// A ceiling waiter's place in its scope's lists: effective priority,
/// then the lower thread first (as the runtime wakes them), ascending, so
/// that the highest is last.
type Rank = (Eff, Reverse<Tid>);

/// What a ceiling waiter asks for: the resource and its units.
type Ask = (ResourceId, u32);

/// Ceiling waiters in [`Rank`] order, with a summary of what they ask
/// for: which requests occur, and how many waiters hold something.
#[derive(Clone, Debug, Default)]
struct Ranked {
    list: Vec<Rank>,
    /// Distinct requests with their counts (few: the resources of one
    /// scope).
    asks: Vec<(Ask, u32)>,
    /// Waiters holding some resource.
    holding: u32,
}

/// The ceiling waiters of one scope (PCP's CPU, DPCP's synchronization
/// CPU).
#[derive(Clone, Debug)]
struct CeilingWaiters {
    /// Refused and blocked: they lend their priority to the system
    /// ceiling's holder.
    refused: Ranked,
    /// Woken by a release and not yet retried (or cancelled).
    woken: Ranked,
    /// Releases that woke the refused so far.
    wakes: u64,
}

#[derive(Clone, Debug)]
struct Thread {
    base: u64,
    seq: u64,
    held: Vec<Held>,
    waiting: Option<Waiting>,
    eff: Eff,
}

#[derive(Clone, Debug, Default)]
struct Unit {
    free: u32,
    holders: Vec<(Tid, u32)>,
    /// Waiters of a queue-arbitrated unit, in arrival order; priority
    /// order is applied when a waiter is chosen.
    queue: Vec<Tid>,
}

/// A set of threads in insertion order, with membership in one read.
#[derive(Clone, Debug)]
struct Marks {
    list: Vec<Tid>,
    on: Vec<bool>,
}

/// The state machine of one system's locks.
#[derive(Clone, Debug)]
pub struct Locks {
    cfg: Config,
    threads: Vec<Thread>,
    units: Vec<Unit>,
    issued: u64,
    /// Grants so far (the grant order of [`Held`]).
    grants: u64,
    /// Threads whose own state (what they hold or wait for, their base)
    /// or whose set of blocked waiters changed since the last refresh:
    /// refresh recomputes these and the chains of holders above them, and
    /// nobody else (see [`Locks::refresh`]).
    dirty: Marks,
    /// Scratch for refresh: the dirty threads and every thread whose
    /// priority can depend on theirs, with their previous priority and
    /// place.
    affected: Marks,
    before: Vec<(Eff, Cpu)>,
    /// Priority-ordered queues that may be out of order: a waiter was
    /// appended, or a queued waiter's priority changed.
    unsorted: Vec<usize>,
    /// Ceiling waiters per scope, refused and woken.
    ceiling: Vec<CeilingWaiters>,
    /// Ceiling-arbitrated units per scope.
    ceiling_units: Vec<Vec<usize>>,
    /// Threads whose effective priority or place changed since the kernel
    /// last asked ([`Locks::take_changed`]).
    changed: Marks,
    /// Waiters woken since the kernel last asked ([`Locks::take_rewoken`])
    /// by their own priority rising, not by a release.
    rewoken: Vec<Tid>,
    /// Where each thread must run, recomputed with the priorities.
    loc: Vec<Cpu>,
    /// Whether any resource uses stack arbitration (SRP's start test).
    pub(crate) stack: bool,
    /// Whether any resource lets a spinner run its holder (MrsP): the
    /// dispatcher skips helping otherwise.
    pub(crate) helping: bool,
    /// SRP's system ceiling per CPU, `None` when no stack resource there is
    /// held, recomputed with the priorities: the start test of a job that
    /// holds nothing (nearly every test) is one comparison.
    system_ceiling: Vec<Option<u32>>,
}

impl Locks {
    /// The bytes of one resource's own mutable state (free units, holder
    /// and queue lists, without their heap entries: 16 bytes per holder
    /// and 8 per queued waiter while contended). Its rule is immutable
    /// configuration; a waiter's request lives with the waiting thread.
    pub const RESOURCE_STATE_BYTES: usize = std::mem::size_of::<Unit>();

    /// The bytes of one thread's own mutable state in the machine (what
    /// it holds and waits for, its base and effective priority, its
    /// place), without the heap entries of what it holds.
    pub const THREAD_STATE_BYTES: usize = std::mem::size_of::<Thread>();

    /// A machine with nothing held or requested; every thread's base
    /// priority is 0 until [`Locks::set_base`].
    pub fn new(cfg: Config) -> Locks {
        let threads = (0..cfg.threads())
            .map(|t| Thread {
                base: 0,
                seq: t as u64,
                held: Vec::with_capacity(cfg.held_at_once[t]),
                waiting: None,
                eff: Eff::normal(0, t as u64),
            })
            .collect();
        let units = (0..cfg.resources())
            .map(|r| Unit {
                free: cfg.units[r],
                // One holder per unit at most, one per thread at most;
                // every other user may wait.
                holders: Vec::with_capacity(cfg.units[r].min(cfg.threads() as u32) as usize),
                queue: Vec::with_capacity(cfg.users[r]),
            })
            .collect();
        let scopes = cfg
            .home
            .iter()
            .chain(cfg.rules.iter().map(|r| &r.scope))
            .map(|&c| c + 1)
            .fold(cfg.cpus.max(1), usize::max);
        let mut ceiling_units = vec![Vec::new(); scopes];
        for (r, rule) in cfg.rules.iter().enumerate() {
            if rule.arbitration == Arbitration::Ceiling && rule.unit == r {
                ceiling_units[rule.scope].push(r);
            }
        }
        let n = cfg.threads();
        Locks {
            system_ceiling: vec![None; scopes],
            ceiling: ceiling_units
                .iter()
                .map(|units| CeilingWaiters::sized(units, &cfg))
                .collect(),
            ceiling_units,
            dirty: Marks::new(n),
            affected: Marks::new(n),
            before: Vec::with_capacity(n),
            unsorted: Vec::with_capacity(cfg.resources()),
            changed: Marks::new(n),
            rewoken: Vec::with_capacity(n),
            loc: cfg.home.clone(),
            helping: cfg.rules.iter().any(|r| r.helping),
            stack: cfg
                .rules
                .iter()
                .any(|r| r.arbitration == Arbitration::Stack),
            cfg,
            threads,
            units,
            issued: 0,
            grants: 0,
        }
    }

    /// The configuration it interprets (the rules, homes, levels).
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Sets a thread's base priority (`key`, larger first) and its place
    /// among equals (`seq`, smaller first) for the job it starts. Under
    /// EDF the kernel passes `u64::MAX - absolute deadline`.
    pub fn set_base(&mut self, t: Tid, key: u64, seq: u64) -> Result<(), LockError> {
        self.thread(t)?;
        let th = &mut self.threads[t];
        th.base = key;
        th.seq = seq;
        if th.held.is_empty() && th.waiting.is_none() {
            // A job start: nothing held, nobody blocked on it.
            let e = Eff::normal(key, seq);
            if th.eff != e {
                th.eff = e;
                self.changed.insert(t);
            }
        } else {
            self.dirty.insert(t);
            self.refresh();
        }
        Ok(())
    }

    /// Moves the threads whose effective priority or location changed
    /// since the last call into `out` (cleared first), so that a kernel
    /// that mirrors them (the Linux runtime) visits only those.
    pub fn take_changed(&mut self, out: &mut Vec<Tid>) {
        out.clear();
        out.extend_from_slice(&self.changed.list);
        self.changed.clear();
    }

    /// Moves into `out` (cleared first) the waiters woken since the last
    /// call because their priority rose while the units they wait for
    /// were free: a kernel makes them ready to retry, as it does the
    /// waiters a release wakes ([`Granted::granted`] false). Without
    /// hand-off (PIP) a release wakes the top waiter and leaves the units
    /// free until it retries; a waiter still queued that inherits more
    /// than that one meanwhile lends its priority to nobody, and every
    /// job below it but above the woken one runs ahead (unbounded
    /// inversion). Linux's rt-mutexes wake the new top waiter of an
    /// ownerless lock in the same case (`rt_mutex_adjust_prio_chain`).
    pub fn take_rewoken(&mut self, out: &mut Vec<Tid>) {
        out.clear();
        out.append(&mut self.rewoken);
    }

    /// The effective priority of `t`.
    #[inline]
    pub fn eff(&self, t: Tid) -> Eff {
        self.threads[t].eff
    }

    /// The base priority key of `t`.
    #[inline]
    pub fn base(&self, t: Tid) -> u64 {
        self.threads[t].base
    }

    /// The CPU `t` must run on now: the domain of its innermost section (or
    /// pending request) that has one, else its home CPU.
    #[inline]
    pub fn location(&self, t: Tid) -> Cpu {
        self.loc[t]
    }

    /// The resource `t` waits for, if any.
    #[inline]
    pub fn waiting(&self, t: Tid) -> Option<ResourceId> {
        self.threads[t].waiting.as_ref().map(|w| w.resource)
    }

    /// Whether `t` busy-waits.
    pub fn spinning(&self, t: Tid) -> bool {
        self.waiting(t)
            .is_some_and(|r| self.cfg.rules[r].wait == Wait::Spin)
    }

    /// Resources `t` holds, outermost first.
    pub fn held(&self, t: Tid) -> impl Iterator<Item = ResourceId> + '_ {
        self.threads[t].held.iter().map(|h| h.resource)
    }

    /// Whether `t` holds any resource.
    #[inline]
    pub fn holds_any(&self, t: Tid) -> bool {
        !self.threads[t].held.is_empty()
    }

    /// Threads holding units of `r`'s lock.
    pub fn holders(&self, r: ResourceId) -> impl Iterator<Item = Tid> + '_ {
        let u = self.cfg.rules[r].unit;
        self.units[u].holders.iter().map(|&(t, _)| t)
    }

    /// Under MrsP, the holder that the spinning waiter `t` may run in its
    /// place (it migrates to `t`'s CPU while preempted on its own).
    pub fn helpee(&self, t: Tid) -> Option<Tid> {
        let r = self.waiting(t)?;
        let rule = &self.cfg.rules[r];
        if !rule.helping || rule.wait != Wait::Spin {
            return None;
        }
        self.units[rule.unit].holders.first().map(|&(h, _)| h)
    }

    /// Requests `units` of `r` for `t`.
    pub fn lock(&mut self, t: Tid, r: ResourceId, units: u32) -> Result<Outcome, LockError> {
        self.thread(t)?;
        if r >= self.cfg.resources() {
            return Err(LockError::Unknown {
                what: "resource",
                index: r,
            });
        }
        let total = self.cfg.units[r];
        if units == 0 || units > total {
            return Err(LockError::Units {
                thread: t,
                resource: r,
                asked: units,
                total,
            });
        }
        let th = &self.threads[t];
        if th.waiting.is_some() {
            return Err(LockError::AlreadyWaiting {
                thread: t,
                resource: r,
            });
        }
        if th.held.iter().any(|h| h.resource == r) {
            return Err(LockError::Recursive {
                thread: t,
                resource: r,
            });
        }
        let rule = &self.cfg.rules[r];
        for h in &th.held {
            let hr = &self.cfg.rules[h.resource];
            if let Some(broken) = rtsync_model::nesting::conflict(hr.nesting, rule.nesting) {
                return Err(LockError::ForbiddenNesting {
                    thread: t,
                    resource: r,
                    held: h.resource,
                    rule: broken,
                });
            }
        }
        let ceiling_checked =
            rule.arbitration == Arbitration::Ceiling || matches!(rule.holding, Hold::Ceiling(_));
        if ceiling_checked && self.cfg.scheduler == rtsync_model::Scheduler::Fp {
            let c = match rule.holding {
                Hold::Ceiling(c) => c,
                _ => rule.ceiling,
            };
            if th.base > c {
                return Err(LockError::AboveCeiling {
                    thread: t,
                    resource: r,
                });
            }
        }
        self.issued += 1;
        let issued = self.issued;
        let unit = rule.unit;
        self.dirty.insert(t);
        // An inner request of a group the thread already holds, through
        // another of its resources. The group's representative can be the
        // inner one (its lowest index: `r2` holding `r1`); until
        // 2026-12-03 only the others were granted here, and a job nesting
        // the representative inside another of its group waited for
        // itself (found once the soundness search's `nested` shape drew
        // nestings in either order).
        if th
            .held
            .iter()
            .any(|h| h.resource != r && self.cfg.rules[h.resource].unit == unit)
        {
            self.grants += 1;
            let granted = self.grants;
            self.threads[t].held.push(Held {
                resource: r,
                units,
                owns: false,
                issued,
                granted,
            });
            return Ok(Outcome::Granted);
        }
        let grant = match rule.arbitration {
            Arbitration::Queue(_) if !rule.handoff => self.free_for(t, unit, units),
            Arbitration::Queue(_) | Arbitration::Stack => {
                self.units[unit].free >= units && self.units[unit].queue.is_empty()
            }
            Arbitration::Ceiling => self.ceiling_admits(t, r, units),
        };
        if grant {
            self.take(t, r, units, issued);
            self.refresh();
            return Ok(Outcome::Granted);
        }
        let spin = rule.wait == Wait::Spin;
        self.threads[t].waiting = Some(Waiting {
            resource: r,
            units,
            issued,
            woken: false,
            batch: 0,
        });
        self.enqueue(t, r);
        self.refresh();
        Ok(Outcome::Wait { spin })
    }

    /// Retries `t`'s woken request (see [`Granted`]).
    pub fn retry(&mut self, t: Tid) -> Result<Outcome, LockError> {
        self.thread(t)?;
        let Some(w) = self.threads[t].waiting.clone().filter(|w| self.is_woken(w)) else {
            return Err(LockError::NothingToRetry { thread: t });
        };
        if let Some((woken, ask, holds)) = self.ranked_of(t) {
            woken.remove(t, ask, holds);
        }
        let rule = &self.cfg.rules[w.resource];
        let grant = match rule.arbitration {
            Arbitration::Ceiling => self.ceiling_admits(t, w.resource, w.units),
            Arbitration::Queue(_) | Arbitration::Stack => self.units[rule.unit].free >= w.units,
        };
        self.dirty.insert(t);
        if grant {
            self.take(t, w.resource, w.units, w.issued);
            self.refresh();
            return Ok(Outcome::Granted);
        }
        let spin = rule.wait == Wait::Spin;
        if let Some(x) = self.threads[t].waiting.as_mut() {
            x.woken = false;
        }
        self.enqueue(t, w.resource);
        self.refresh();
        Ok(Outcome::Wait { spin })
    }

    /// Enters `t`'s refused request for `r` where its release will find
    /// it: the resource's queue, or its scope's ceiling-refused waiters.
    /// (Its blocker, now lending to it, is recomputed with it.)
    fn enqueue(&mut self, t: Tid, r: ResourceId) {
        let rule = &self.cfg.rules[r];
        match rule.arbitration {
            Arbitration::Ceiling => {
                let c = &mut self.ceiling[rule.scope];
                let th = &mut self.threads[t];
                // Only a waiting thread is enqueued (its callers set it).
                let Some(w) = th.waiting.as_mut() else {
                    return;
                };
                w.batch = c.wakes;
                let ask = (w.resource, w.units);
                c.refused
                    .insert((th.eff, Reverse(t)), ask, !th.held.is_empty());
            }
            Arbitration::Queue(order) => {
                self.units[rule.unit].queue.push(t);
                if order == Order::Priority {
                    self.mark_unsorted(rule.unit);
                }
            }
            Arbitration::Stack => {
                self.units[rule.unit].queue.push(t);
                self.mark_unsorted(rule.unit);
            }
        }
    }

    /// Releases `r`, which must be `t`'s innermost section. Returns the
    /// threads granted a resource as a consequence, in grant order, then
    /// the ceiling-refused ones woken (in thread order).
    pub fn unlock(&mut self, t: Tid, r: ResourceId) -> Result<Vec<Granted>, LockError> {
        let mut granted = Vec::new();
        self.release(t, r, true, &mut granted).map(|_| granted)
    }

    /// Like [`Locks::unlock`], but the ceiling-refused waiters woken are
    /// not named one by one: the answer is the scope whose waiters were
    /// woken, and [`Locks::ceiling_woken`] lists them, so a release costs
    /// the same however many wait. The grants go into the caller's
    /// `granted` (cleared first): a runtime that keeps the vector, sized
    /// for every thread, releases under its bookkeeping lock without
    /// allocating.
    pub fn unlock_into(
        &mut self,
        t: Tid,
        r: ResourceId,
        granted: &mut Vec<Granted>,
    ) -> Result<Option<Cpu>, LockError> {
        granted.clear();
        self.release(t, r, false, granted)
    }

    fn release(
        &mut self,
        t: Tid,
        r: ResourceId,
        named: bool,
        granted: &mut Vec<Granted>,
    ) -> Result<Option<Cpu>, LockError> {
        self.thread(t)?;
        let held = &mut self.threads[t].held;
        let h = match held.last() {
            Some(last) if last.resource == r => held.pop(),
            Some(last) if held.iter().any(|h| h.resource == r) => {
                return Err(LockError::NotInnermost {
                    thread: t,
                    resource: r,
                    innermost: last.resource,
                });
            }
            _ => None,
        };
        let Some(h) = h else {
            return Err(LockError::NotOwner {
                thread: t,
                resource: r,
            });
        };
        if self.threads[t].held.is_empty() {
            // A ceiling waiter's list counts the waiters holding something.
            self.recount_holding(t);
        }
        self.dirty.insert(t);
        let mut woke = None;
        if h.owns {
            let rule = &self.cfg.rules[r];
            let (unit, scope, arb) = (rule.unit, rule.scope, rule.arbitration);
            let u = &mut self.units[unit];
            u.free += h.units;
            u.holders.retain(|&(x, _)| x != t);
            // The queue's waiters now lend to the next holder, if any (a
            // multi-unit resource whose waiters inherit: SRP's, whose
            // waiters exist only where a raised holder of another
            // protocol's resource asks for it).
            if let Some(&(x, _)) = u.holders.first() {
                self.dirty.insert(x);
            }
            let handoff = rule.handoff;
            match arb {
                Arbitration::Queue(order) => self.serve_queue(unit, order, handoff, granted),
                Arbitration::Stack => self.serve_queue(unit, Order::Priority, handoff, granted),
                Arbitration::Ceiling => {}
            }
            if self.wake_ceiling(scope, named.then_some(granted)) {
                woke = Some(scope);
            }
        }
        self.refresh();
        Ok(woke)
    }

    /// Withdraws `t`'s pending request (a kernel gives up waiting: a
    /// timeout, or a request that would close a deadlock cycle). Returns
    /// the resource it waited for. Nothing else changes except the
    /// priorities `t`'s wait lent through inheritance.
    pub fn cancel(&mut self, t: Tid) -> Result<ResourceId, LockError> {
        self.thread(t)?;
        let Some(w) = self.threads[t].waiting.take() else {
            return Err(LockError::NothingToRetry { thread: t });
        };
        let rule = &self.cfg.rules[w.resource];
        let (unit, scope, arb) = (rule.unit, rule.scope, rule.arbitration);
        // Whoever it lent to is recomputed without it.
        self.dirty.insert(t);
        let (ask, holds) = ((w.resource, w.units), !self.threads[t].held.is_empty());
        if !self.is_woken(&w) {
            if let Some(&(x, _)) = self.units[unit].holders.first() {
                self.dirty.insert(x);
            }
            if arb == Arbitration::Ceiling {
                self.touch_ceiling_holders(scope);
                self.ceiling[scope].refused.remove(t, ask, holds);
            }
        } else if arb == Arbitration::Ceiling {
            self.ceiling[scope].woken.remove(t, ask, holds);
        }
        self.units[unit].queue.retain(|&x| x != t);
        self.refresh();
        Ok(w.resource)
    }

    /// The cycle of waits `t` is part of, as `(thread, resource it waits
    /// for)` pairs starting at `t`, or `None`. Only protocols that allow
    /// deadlock (PIP with opposite lock orders) can produce one.
    pub fn wait_cycle(&self, t: Tid) -> Option<Vec<(Tid, ResourceId)>> {
        if !self.in_wait_cycle(t) {
            // The common answer, found without building a path: a
            // runtime asks at every wait, under its bookkeeping lock.
            return None;
        }
        let mut path: Vec<(Tid, ResourceId)> = Vec::new();
        let mut cur = t;
        for _ in 0..=self.threads.len() {
            let r = self.waiting(cur)?;
            path.push((cur, r));
            let next = self.blocker(cur)?;
            if next == t {
                return Some(path);
            }
            if path.iter().any(|&(x, _)| x == next) {
                return None; // a cycle not through t
            }
            cur = next;
        }
        None
    }

    /// Whether the waits from `t` lead back to `t`: a walk of at most one
    /// step per thread (a cycle that does not pass `t` never ends it).
    fn in_wait_cycle(&self, t: Tid) -> bool {
        let mut cur = t;
        for _ in 0..=self.threads.len() {
            if self.waiting(cur).is_none() {
                return false;
            }
            match self.blocker(cur) {
                Some(next) if next == t => return true,
                Some(next) => cur = next,
                None => return false,
            }
        }
        false
    }

    /// Checks that `t` holds nothing and waits for nothing (a job ends).
    pub fn job_done(&self, t: Tid) -> Result<(), LockError> {
        self.thread(t)?;
        let th = &self.threads[t];
        if let Some(h) = th.held.last() {
            return Err(LockError::NotOwner {
                thread: t,
                resource: h.resource,
            });
        }
        Ok(())
    }

    fn thread(&self, t: Tid) -> Result<(), LockError> {
        if t < self.threads.len() {
            Ok(())
        } else {
            Err(LockError::Unknown {
                what: "thread",
                index: t,
            })
        }
    }

    fn take(&mut self, t: Tid, r: ResourceId, units: u32, issued: u64) {
        let rule = &self.cfg.rules[r];
        let unit = rule.unit;
        self.dirty.insert(t);
        if rule.arbitration == Arbitration::Ceiling {
            // It may become the system ceiling's holder.
            self.touch_ceiling_holders(rule.scope);
        }
        let u = &mut self.units[unit];
        u.free -= units;
        u.holders.push((t, units));
        self.grants += 1;
        let granted = self.grants;
        let th = &mut self.threads[t];
        th.waiting = None;
        th.held.push(Held {
            resource: r,
            units,
            owns: true,
            issued,
            granted,
        });
    }
}
