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

impl Ranked {
    fn insert(&mut self, x: Rank, ask: Ask, holds: bool) {
        let at = self.list.partition_point(|y| *y < x);
        self.list.insert(at, x);
        match self.asks.iter_mut().find(|a| a.0 == ask) {
            Some(a) => a.1 += 1,
            None => self.asks.push((ask, 1)),
        }
        self.holding += u32::from(holds);
    }

    /// Removes `t` (searched from the top, where retries come from).
    fn remove(&mut self, t: Tid, ask: Ask, holds: bool) -> bool {
        let Some(i) = self.list.iter().rposition(|x| x.1.0 == t) else {
            return false;
        };
        self.list.remove(i);
        if let Some(a) = self.asks.iter().position(|a| a.0 == ask) {
            self.asks[a].1 -= 1;
            if self.asks[a].1 == 0 {
                self.asks.swap_remove(a);
            }
        }
        self.holding -= u32::from(holds);
        true
    }

    /// Moves every entry of `other` here.
    fn absorb(&mut self, other: &mut Ranked) {
        if self.list.is_empty() {
            std::mem::swap(self, other);
            return;
        }
        // Two sorted runs: the stable sort merges them in one pass.
        self.list.append(&mut other.list);
        self.list.sort();
        for (ask, n) in other.asks.drain(..) {
            match self.asks.iter_mut().find(|a| a.0 == ask) {
                Some(a) => a.1 += n,
                None => self.asks.push((ask, n)),
            }
        }
        self.holding += std::mem::take(&mut other.holding);
    }
}

/// The ceiling waiters of one scope (PCP's CPU, DPCP's synchronization
/// CPU).
#[derive(Clone, Debug, Default)]
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

impl Marks {
    fn new(n: usize) -> Marks {
        Marks {
            list: Vec::new(),
            on: vec![false; n],
        }
    }

    #[inline]
    fn insert(&mut self, t: Tid) {
        if !self.on[t] {
            self.on[t] = true;
            self.list.push(t);
        }
    }

    fn clear(&mut self) {
        for &t in &self.list {
            self.on[t] = false;
        }
        self.list.clear();
    }
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
    /// Where each thread must run, recomputed with the priorities.
    loc: Vec<Cpu>,
    /// Whether any resource uses stack arbitration (SRP's start test).
    stack: bool,
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

    /// A machine with nothing held or requested; every thread's base
    /// priority is 0 until [`Locks::set_base`].
    pub fn new(cfg: Config) -> Locks {
        let threads = (0..cfg.threads())
            .map(|t| Thread {
                base: 0,
                seq: t as u64,
                held: Vec::new(),
                waiting: None,
                eff: Eff::normal(0, t as u64),
            })
            .collect();
        let units = (0..cfg.resources())
            .map(|r| Unit {
                free: cfg.units[r],
                ..Unit::default()
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
            ceiling: vec![CeilingWaiters::default(); scopes],
            ceiling_units,
            dirty: Marks::new(n),
            affected: Marks::new(n),
            before: Vec::new(),
            unsorted: Vec::new(),
            changed: Marks::new(n),
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

    fn compute_location(&self, t: Tid) -> Cpu {
        let th = &self.threads[t];
        th.waiting
            .as_ref()
            .map(|w| w.resource)
            .into_iter()
            .chain(th.held.iter().rev().map(|h| h.resource))
            .find_map(|r| self.cfg.rules[r].domain)
            .unwrap_or(self.cfg.home[t])
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

    /// SRP's start test (Baker 1991, Theorem 3's premise): a job of `t`
    /// may start (or, after a self-suspension, resume) only when its
    /// preemption level is strictly above the ceiling of every resource on
    /// its CPU that another thread holds. Always true for protocols without
    /// stack arbitration.
    #[inline]
    pub fn may_start(&self, t: Tid) -> bool {
        if !self.stack {
            return true;
        }
        if self.threads[t].held.is_empty() {
            let level = self.cfg.level[t];
            return self.system_ceiling[self.cfg.home[t]].is_none_or(|c| c < level);
        }
        self.stack_admits(t)
    }

    /// The start test in full, for a job that itself holds units (it
    /// resumes from a self-suspension inside a section): its own units
    /// count as free.
    fn stack_admits(&self, t: Tid) -> bool {
        let cpu = self.cfg.home[t];
        let level = self.cfg.level[t];
        for (r, rule) in self.cfg.rules.iter().enumerate() {
            if rule.arbitration != Arbitration::Stack || rule.scope != cpu || rule.unit != r {
                continue;
            }
            let u = &self.units[r];
            if u.holders.is_empty() {
                continue;
            }
            let mut free = u.free;
            let mut others = false;
            for &(h, n) in &u.holders {
                if h == t {
                    free += n;
                } else {
                    others = true;
                }
            }
            if others && self.cfg.stack_ceiling(r, free) >= level {
                return false;
            }
        }
        true
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
            if (rule.no_global_nesting && rule.global) || (hr.no_global_nesting && hr.global) {
                return Err(LockError::ForbiddenNesting {
                    thread: t,
                    resource: r,
                    held: h.resource,
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
        // An inner request of a group the thread already holds.
        if unit != r
            && th
                .held
                .iter()
                .any(|h| self.cfg.rules[h.resource].unit == unit)
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

    /// Whether a new request of `t` for `units` of `unit`, a queue without
    /// hand-off (PIP), is granted at once: the units are free and no
    /// waiter still queued outranks `t`.
    ///
    /// Without hand-off a release wakes the top waiter and takes it out of
    /// the queue; the units stay free until it runs and retries. Meanwhile
    /// the waiters still queued are lower than the woken one, and the
    /// running requester is at least as high as every ready job of its CPU,
    /// so it takes the free units, as Sha, Rajkumar and Lehoczky's PIP
    /// gives a free semaphore to the job that asks (Linux rt-mutexes reach
    /// the same by lock stealing). Refusing it because the queue is not
    /// empty made it wait for units nobody holds: no holder inherits, and
    /// any middle-priority job runs ahead of it (unbounded inversion, found
    /// by the soundness search at 2.5 times PIP's bound).
    fn free_for(&self, t: Tid, unit: usize, units: u32) -> bool {
        let u = &self.units[unit];
        if u.free < units {
            return false;
        }
        let mine = (self.threads[t].eff.tier, self.threads[t].eff.key);
        u.queue.iter().all(|&w| {
            let e = self.threads[w].eff;
            (e.tier, e.key) <= mine
        })
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

    fn mark_unsorted(&mut self, unit: usize) {
        if !self.unsorted.contains(&unit) {
            self.unsorted.push(unit);
        }
    }

    /// Whether `unit`'s queue is kept in priority order (its head is the
    /// next waiter served and the highest one).
    fn priority_ordered(&self, unit: usize) -> bool {
        matches!(
            self.cfg.rules[unit].arbitration,
            Arbitration::Queue(Order::Priority) | Arbitration::Stack
        )
    }

    /// Marks the threads that block ceiling-refused waiters of `scope`
    /// (every holder of a ceiling-arbitrated unit there) for
    /// recomputation: a grant or release there can move the system
    /// ceiling, and with it whom those waiters lend their priority to.
    fn touch_ceiling_holders(&mut self, scope: Cpu) {
        if self.ceiling[scope].refused.list.is_empty() {
            return;
        }
        for &u in &self.ceiling_units[scope] {
            for &(h, _) in &self.units[u].holders {
                self.dirty.insert(h);
            }
        }
    }

    /// Whether `t` has a woken request to retry.
    #[inline]
    pub fn woken(&self, t: Tid) -> bool {
        self.threads[t]
            .waiting
            .as_ref()
            .is_some_and(|w| self.is_woken(w))
    }

    /// Whether a request is woken: chosen from its queue without
    /// hand-off, or refused by a ceiling before the last release of its
    /// scope.
    #[inline]
    fn is_woken(&self, w: &Waiting) -> bool {
        w.woken || {
            let rule = &self.cfg.rules[w.resource];
            rule.arbitration == Arbitration::Ceiling && w.batch != self.ceiling[rule.scope].wakes
        }
    }

    /// The woken ceiling waiters of `scope` that have not retried yet,
    /// highest effective priority first (the lower thread first among
    /// equals).
    pub fn ceiling_woken(&self, scope: Cpu) -> impl Iterator<Item = Tid> + '_ {
        self.ceiling
            .get(scope)
            .into_iter()
            .flat_map(|c| c.woken.list.iter().rev().map(|x| x.1.0))
    }

    /// Whether the woken ceiling waiters of `scope` all ask for the same
    /// resource and units and hold nothing. Then, if the highest one's
    /// retry is futile ([`Locks::retry_is_futile`]), so is every other's:
    /// the resource is held (by one of the others, whom they all wait
    /// for), or it is free and the highest is refused by a system ceiling
    /// that none of them holds, which refuses the lower ones as well and
    /// makes them wait for the same holder.
    pub fn ceiling_woken_alike(&self, scope: Cpu) -> bool {
        self.ceiling
            .get(scope)
            .is_none_or(|c| c.woken.asks.len() <= 1 && c.woken.holding == 0)
    }

    /// The number of ceiling scopes (CPUs, and synchronization CPUs).
    pub fn scopes(&self) -> usize {
        self.ceiling.len()
    }

    /// The scope of `t`'s woken ceiling request, if it has one.
    pub fn ceiling_scope(&self, t: Tid) -> Option<Cpu> {
        let w = self.threads[t].waiting.as_ref()?;
        let rule = &self.cfg.rules[w.resource];
        (rule.arbitration == Arbitration::Ceiling && self.is_woken(w)).then_some(rule.scope)
    }

    /// Whether retrying `t`'s woken ceiling request now would change
    /// nothing but the request's own list: it would be refused again and
    /// wait suspended, and whom it would wait for already runs at or above
    /// its priority (or its rule does not inherit), so nobody's priority
    /// would move. Until a release in its scope or a change of priority,
    /// such a retry stays futile, so a kernel may leave the thread asleep
    /// instead of waking it to find that out.
    pub fn retry_is_futile(&self, t: Tid) -> bool {
        let Some(w) = self.threads[t].waiting.as_ref() else {
            return false;
        };
        let rule = &self.cfg.rules[w.resource];
        if rule.arbitration != Arbitration::Ceiling || rule.wait != Wait::Suspend {
            return false;
        }
        if self.ceiling_admits(t, w.resource, w.units) {
            return false;
        }
        let e = self.threads[t].eff;
        if !rule.inherit {
            return true;
        }
        self.blocking(t, w).is_some_and(|b| {
            let be = self.threads[b].eff;
            (be.tier, be.key) >= (e.tier, e.key)
        })
    }

    /// Releases `r`, which must be `t`'s innermost section. Returns the
    /// threads granted a resource as a consequence, in grant order, then
    /// the ceiling-refused ones woken (in thread order).
    pub fn unlock(&mut self, t: Tid, r: ResourceId) -> Result<Vec<Granted>, LockError> {
        self.release(t, r, true).map(|(g, _)| g)
    }

    /// Like [`Locks::unlock`], but the ceiling-refused waiters woken are
    /// not named one by one: the second value is the scope whose waiters
    /// were woken, and [`Locks::ceiling_woken`] lists them. A release then
    /// costs the same however many wait.
    pub fn unlock_scoped(
        &mut self,
        t: Tid,
        r: ResourceId,
    ) -> Result<(Vec<Granted>, Option<Cpu>), LockError> {
        self.release(t, r, false)
    }

    fn release(
        &mut self,
        t: Tid,
        r: ResourceId,
        named: bool,
    ) -> Result<(Vec<Granted>, Option<Cpu>), LockError> {
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
        let mut granted = Vec::new();
        let mut woke = None;
        if h.owns {
            let rule = &self.cfg.rules[r];
            let (unit, scope, arb) = (rule.unit, rule.scope, rule.arbitration);
            let u = &mut self.units[unit];
            u.free += h.units;
            u.holders.retain(|&(x, _)| x != t);
            // The queue's waiters now lend to the next holder, if any (a
            // multi-unit resource whose waiters inherit: no protocol
            // combines the two today).
            if let Some(&(x, _)) = u.holders.first() {
                self.dirty.insert(x);
            }
            let handoff = rule.handoff;
            match arb {
                Arbitration::Queue(order) => self.serve_queue(unit, order, handoff, &mut granted),
                Arbitration::Stack => {
                    self.serve_queue(unit, Order::Priority, handoff, &mut granted)
                }
                Arbitration::Ceiling => {}
            }
            if self.wake_ceiling(scope, named.then_some(&mut granted)) {
                woke = Some(scope);
            }
        }
        self.refresh();
        Ok((granted, woke))
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

    /// Grants queued requests of `unit` while they fit: FIFO takes the
    /// head, priority order the highest effective priority (earliest
    /// request among equals). A waiter that does not fit stops the scan, so
    /// a large request is not overtaken forever.
    /// Without hand-off, the chosen waiter leaves the queue woken (see
    /// [`crate::Rule::handoff`]) and the scan stops.
    fn serve_queue(
        &mut self,
        unit: usize,
        order: Order,
        handoff: bool,
        granted: &mut Vec<Granted>,
    ) {
        loop {
            let q = &self.units[unit].queue;
            if q.is_empty() {
                return;
            }
            // A priority-ordered queue is kept sorted (see `refresh`),
            // unless an append or a priority change since is pending.
            let pick = match order {
                Order::Priority if self.unsorted.contains(&unit) => {
                    let mut best = 0;
                    for i in 1..q.len() {
                        if self.queue_key(q[i]) > self.queue_key(q[best]) {
                            best = i;
                        }
                    }
                    best
                }
                Order::Fifo | Order::Priority => 0,
            };
            let w = q[pick];
            // Every queued thread waits (it is queued only by `enqueue`
            // and leaves the queue before its request ends); one that
            // did not would only be dropped from the queue.
            let Some(wt) = self.threads[w].waiting.clone() else {
                self.units[unit].queue.remove(pick);
                continue;
            };
            if self.units[unit].free < wt.units {
                return;
            }
            self.units[unit].queue.remove(pick);
            if !handoff {
                if let Some(x) = self.threads[w].waiting.as_mut() {
                    x.woken = true;
                }
                granted.push(Granted {
                    thread: w,
                    resource: wt.resource,
                    granted: false,
                });
                return;
            }
            self.take(w, wt.resource, wt.units, wt.issued);
            granted.push(Granted {
                thread: w,
                resource: wt.resource,
                granted: true,
            });
        }
    }

    fn queue_key(&self, t: Tid) -> (Tier, u64, Reverse<u64>) {
        let th = &self.threads[t];
        let issued = th.waiting.as_ref().map_or(u64::MAX, |w| w.issued);
        (th.eff.tier, th.eff.key, Reverse(issued))
    }

    /// Wakes the ceiling-refused requests of `scope`: any release there
    /// may lower the system ceiling, and the woken threads compete again
    /// by priority when they run. One more wake counted marks them all
    /// woken, and their list joins the woken list; where `named`, they
    /// are also named in thread order, as the kernel's dispatcher would
    /// find them. Returns whether any was woken.
    fn wake_ceiling(&mut self, scope: Cpu, named: Option<&mut Vec<Granted>>) -> bool {
        if self.ceiling[scope].refused.list.is_empty() {
            return false;
        }
        // The holders they lent to lose it.
        self.touch_ceiling_holders(scope);
        let c = &mut self.ceiling[scope];
        c.wakes += 1;
        if let Some(granted) = named {
            let start = granted.len();
            for &(_, Reverse(x)) in &c.refused.list {
                // Every refused thread waits (see `enqueue`).
                let Some(w) = self.threads[x].waiting.as_ref() else {
                    continue;
                };
                granted.push(Granted {
                    thread: x,
                    resource: w.resource,
                    granted: false,
                });
            }
            granted[start..].sort_unstable_by_key(|g| g.thread);
        }
        let CeilingWaiters { refused, woken, .. } = c;
        woken.absorb(refused);
        true
    }

    /// The list that ranks ceiling waiter `t` (refused or woken), with
    /// its request and whether it holds something; `None` when `t` does
    /// not wait under a ceiling rule.
    fn ranked_of(&mut self, t: Tid) -> Option<(&mut Ranked, Ask, bool)> {
        let th = &self.threads[t];
        let w = th.waiting.as_ref()?;
        let rule = &self.cfg.rules[w.resource];
        if rule.arbitration != Arbitration::Ceiling {
            return None;
        }
        let woken = self.is_woken(w);
        let (ask, holds) = ((w.resource, w.units), !th.held.is_empty());
        let c = &mut self.ceiling[rule.scope];
        Some((
            if woken { &mut c.woken } else { &mut c.refused },
            ask,
            holds,
        ))
    }

    /// Ceiling waiter `t` let its last section go (the machine allows a
    /// waiter to release; a kernel's waiter is asleep): its list no longer
    /// counts it among those holding something.
    fn recount_holding(&mut self, t: Tid) {
        if let Some((list, _, _)) = self.ranked_of(t) {
            list.holding -= 1;
        }
    }

    /// Moves ceiling waiter `t`, whose priority changed, to its new place
    /// in its list.
    fn rerank(&mut self, t: Tid) {
        let rank = (self.threads[t].eff, Reverse(t));
        if let Some((list, ask, holds)) = self.ranked_of(t)
            && list.remove(t, ask, holds)
        {
            list.insert(rank, ask, holds);
        }
    }

    /// The highest ceiling among ceiling-arbitrated resources of `scope`
    /// held by threads other than `t`, with the thread holding it.
    fn ceiling_holder(&self, scope: Cpu, t: Tid) -> Option<(u64, Tid)> {
        let mut best: Option<(u64, Tid)> = None;
        for &r in &self.ceiling_units[scope] {
            let rule = &self.cfg.rules[r];
            for &(h, _) in &self.units[r].holders {
                if h != t && best.is_none_or(|(c, _)| rule.ceiling > c) {
                    best = Some((rule.ceiling, h));
                }
            }
        }
        best
    }

    /// PCP's test for `t` asking `units` of ceiling-arbitrated `r`: they
    /// are free, and `t`'s priority is above the system ceiling of the
    /// sections others hold in `r`'s scope.
    fn ceiling_admits(&self, t: Tid, r: ResourceId, units: u32) -> bool {
        let rule = &self.cfg.rules[r];
        self.units[rule.unit].free >= units
            && self.threads[t].eff.key > self.system_ceiling(rule.scope, t)
    }

    fn system_ceiling(&self, scope: Cpu, t: Tid) -> u64 {
        self.ceiling_holder(scope, t).map_or(0, |(c, _)| c)
    }

    /// The thread that keeps waiting thread `t` waiting: the holder of the
    /// resource (the longest-waiting holder of a multi-unit one), or, for
    /// a ceiling refusal, the holder of the system ceiling.
    fn blocker(&self, t: Tid) -> Option<Tid> {
        let w = self.threads[t]
            .waiting
            .as_ref()
            .filter(|w| !self.is_woken(w))?;
        self.blocking(t, w)
    }

    /// Whom `t`'s request `w` waits for, were it refused now.
    fn blocking(&self, t: Tid, w: &Waiting) -> Option<Tid> {
        let rule = &self.cfg.rules[w.resource];
        if let Some(&(h, _)) = self.units[rule.unit].holders.first() {
            return Some(h);
        }
        if rule.arbitration == Arbitration::Ceiling {
            return self.ceiling_holder(rule.scope, t).map(|(_, h)| h);
        }
        None
    }

    /// The priority a rule's `Hold` gives thread `t`.
    /// `issued` orders FIFO boosting; `granted` orders sections boosted to
    /// one key.
    fn hold_eff(&self, t: Tid, hold: Hold, r: ResourceId, issued: u64, granted: u64) -> Eff {
        let th = &self.threads[t];
        let normal = Eff::normal(th.base, th.seq);
        match hold {
            Hold::Base => normal,
            Hold::Ceiling(c) => Eff::normal(th.base.max(c), th.seq),
            Hold::LocalCeiling => {
                let c = self.cfg.local_ceiling[r][self.cfg.home[t]];
                Eff::normal(th.base.max(c), th.seq)
            }
            Hold::Boost(k) => Eff {
                tier: Tier::Boosted,
                key: k,
                seq: Reverse(granted),
            },
            Hold::BoostBase => Eff {
                tier: Tier::Boosted,
                key: th.base,
                seq: Reverse(th.seq),
            },
            Hold::BoostFifo => Eff {
                tier: Tier::Boosted,
                key: 0,
                seq: Reverse(issued),
            },
            Hold::NonPreemptive => Eff {
                tier: Tier::NonPreemptive,
                key: th.base,
                seq: Reverse(th.seq),
            },
        }
    }

    /// Checks the incrementally kept state against a recomputation from
    /// scratch: every effective priority and location (own priority, then
    /// inheritance along the blocking relation over all threads until
    /// nothing changes), priority-ordered queues sorted, and the lists of
    /// ceiling-refused waiters. For tests; quadratic in the threads.
    pub fn verify(&self) -> Result<(), String> {
        let n = self.threads.len();
        let mut eff: Vec<Eff> = (0..n).map(|t| self.own_eff(t)).collect();
        for _ in 0..=n {
            let mut changed = false;
            for w in 0..n {
                let inherits = self.lends(w);
                let Some(b) = self.blocker(w).filter(|&b| inherits && b != w) else {
                    continue;
                };
                let we = eff[w];
                if (we.tier, we.key) > (eff[b].tier, eff[b].key) {
                    eff[b].tier = we.tier;
                    eff[b].key = we.key;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (t, &e) in eff.iter().enumerate() {
            if self.threads[t].eff != e {
                return Err(format!(
                    "thread {t}: effective priority {:?}, from scratch {e:?}",
                    self.threads[t].eff
                ));
            }
            let loc = self.compute_location(t);
            if self.loc[t] != loc {
                return Err(format!(
                    "thread {t}: on CPU {}, from scratch {loc}",
                    self.loc[t]
                ));
            }
        }
        for (u, unit) in self.units.iter().enumerate() {
            if self.priority_ordered(u) && !self.unsorted.contains(&u) {
                let keys: Vec<_> = unit.queue.iter().map(|&w| self.queue_key(w)).collect();
                if keys.windows(2).any(|k| k[0] < k[1]) {
                    return Err(format!(
                        "unit {u}: queue {:?} out of priority order",
                        unit.queue
                    ));
                }
            }
        }
        for t in 0..n {
            let Some(w) = &self.threads[t].waiting else {
                continue;
            };
            let rule = &self.cfg.rules[w.resource];
            let ceiling = rule.arbitration == Arbitration::Ceiling;
            let woken = self.is_woken(w);
            let c = &self.ceiling[rule.scope];
            let rank = (self.threads[t].eff, Reverse(t));
            for (name, list, on) in [
                ("refused", &c.refused.list, ceiling && !woken),
                ("woken", &c.woken.list, ceiling && woken),
            ] {
                let listed = list.iter().find(|x| x.1.0 == t);
                if listed.is_some() != on {
                    return Err(format!(
                        "thread {t}: ceiling-{name} {on}, listed {}",
                        listed.is_some()
                    ));
                }
                if listed.is_some_and(|x| *x != rank) {
                    return Err(format!(
                        "thread {t}: listed as {listed:?} among the ceiling-{name}, ranks {rank:?}"
                    ));
                }
            }
        }
        for (scope, c) in self.ceiling.iter().enumerate() {
            for (name, ranked) in [("refused", &c.refused), ("woken", &c.woken)] {
                let list = &ranked.list;
                let mut asks: Vec<(Ask, u32)> = Vec::new();
                let mut holding = 0;
                for &(_, Reverse(t)) in list {
                    if let Some(w) = &self.threads[t].waiting {
                        match asks.iter_mut().find(|a| a.0 == (w.resource, w.units)) {
                            Some(a) => a.1 += 1,
                            None => asks.push(((w.resource, w.units), 1)),
                        }
                    }
                    holding += u32::from(!self.threads[t].held.is_empty());
                }
                let mut kept = ranked.asks.clone();
                kept.sort_unstable();
                asks.sort_unstable();
                if (kept, ranked.holding) != (asks.clone(), holding) {
                    return Err(format!(
                        "scope {scope}: ceiling-{name} summary {:?} holding {}, from scratch {asks:?} holding {holding}",
                        ranked.asks, ranked.holding
                    ));
                }
                if list.windows(2).any(|x| x[0] >= x[1]) {
                    return Err(format!(
                        "scope {scope}: ceiling-{name} {list:?} out of order"
                    ));
                }
                let wrong = list.iter().find(|x| {
                    let t = x.1.0;
                    self.threads[t].waiting.as_ref().is_none_or(|w| {
                        self.cfg.rules[w.resource].scope != scope
                            || self.is_woken(w) != (name == "woken")
                    })
                });
                if let Some(x) = wrong {
                    return Err(format!(
                        "scope {scope}: {x:?} listed among the ceiling-{name}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The priority `t` has of its own: its base, raised by the rules of
    /// what it holds and of what it waits for.
    fn own_eff(&self, t: Tid) -> Eff {
        let th = &self.threads[t];
        let mut e = Eff::normal(th.base, th.seq);
        for h in &th.held {
            let rule: &Rule = &self.cfg.rules[h.resource];
            e = e.max(self.hold_eff(t, rule.holding, h.resource, h.issued, h.granted));
        }
        if let Some(w) = &th.waiting {
            let rule = &self.cfg.rules[w.resource];
            e = e.max(self.hold_eff(t, rule.waiting, w.resource, w.issued, w.issued));
        }
        e
    }

    /// Whether `w` lends its priority to whoever blocks it: it waits (not
    /// woken to retry) under a rule that inherits.
    #[inline]
    fn lends(&self, w: Tid) -> bool {
        self.threads[w]
            .waiting
            .as_ref()
            .is_some_and(|x| !self.is_woken(x) && self.cfg.rules[x.resource].inherit)
    }

    /// The highest `(tier, key)` lent to `x` by the threads it blocks
    /// whose rule inherits: the waiters queued on a unit it is the first
    /// holder of (the head, where the queue is in priority order), and
    /// the ceiling-refused waiters of a scope where it holds the system
    /// ceiling (or their own resource).
    fn lent_to(&self, x: Tid) -> Option<(Tier, u64)> {
        let mut best: Option<(Tier, u64)> = None;
        let mut lend = |w: Tid| {
            let e = self.threads[w].eff;
            if best.is_none_or(|b| (e.tier, e.key) > b) {
                best = Some((e.tier, e.key));
            }
        };
        let held = &self.threads[x].held;
        for (i, h) in held.iter().enumerate() {
            if !h.owns {
                continue;
            }
            let rule = &self.cfg.rules[h.resource];
            let u = &self.units[rule.unit];
            if u.holders.first().is_some_and(|&(f, _)| f == x) {
                let sorted =
                    self.priority_ordered(rule.unit) && !self.unsorted.contains(&rule.unit);
                for &w in &u.queue {
                    let inherits = self.lends(w);
                    if inherits && w != x {
                        lend(w);
                        if sorted {
                            break; // the highest inheriting waiter
                        }
                    }
                }
            }
            let scope = rule.scope;
            let seen = held[..i].iter().any(|p| {
                p.owns
                    && self.cfg.rules[p.resource].arbitration == Arbitration::Ceiling
                    && self.cfg.rules[p.resource].scope == scope
            });
            if rule.arbitration != Arbitration::Ceiling || seen {
                continue;
            }
            for &(_, Reverse(w)) in &self.ceiling[scope].refused.list {
                let inherits = self.lends(w);
                if inherits && self.blocker(w) == Some(x) {
                    lend(w);
                }
            }
        }
        best
    }

    /// Brings effective priorities and locations up to date after a
    /// change. Only the dirty threads (whose own state, or whose set of
    /// blocked waiters, changed) and the holders they lend to, along
    /// blocking chains, can change; every other thread's priority depends
    /// on unchanged threads alone and stays. The affected ones are reset
    /// to their own priority, then inheritance is passed along until
    /// nothing changes (at most one pass per link: the least fixed point,
    /// as from scratch, even around a deadlock cycle). Queues in priority
    /// order are re-sorted where an affected waiter sits. The result is
    /// the same as recomputing everything ([`Locks::verify`] checks it).
    fn refresh(&mut self) {
        // The affected set: dirty threads and the chains above them.
        let mut affected = std::mem::replace(&mut self.affected, Marks::new(0));
        for i in 0..self.dirty.list.len() {
            let mut cur = self.dirty.list[i];
            for _ in 0..=self.threads.len() {
                if affected.on[cur] {
                    break;
                }
                affected.on[cur] = true;
                affected.list.push(cur);
                let inherits = self.lends(cur);
                if !inherits {
                    break;
                }
                match self.blocker(cur) {
                    Some(b) if b != cur => cur = b,
                    _ => break,
                }
            }
        }
        self.dirty.clear();
        let mut before = std::mem::take(&mut self.before);
        before.clear();
        let mut inherit = false;
        for &t in &affected.list {
            before.push((self.threads[t].eff, self.loc[t]));
            self.threads[t].eff = self.own_eff(t);
            self.loc[t] = self.compute_location(t);
            let th = &self.threads[t];
            inherit |= !th.held.is_empty();
            // A queued waiter's priority orders its queue.
            if let Some(w) = th.waiting.as_ref().filter(|w| !self.is_woken(w)) {
                let unit = self.cfg.rules[w.resource].unit;
                if self.priority_ordered(unit) {
                    self.mark_unsorted(unit);
                }
            }
        }
        if inherit {
            // Inheritance is transitive; at most one pass per link of the
            // longest chain, and one more to see nothing change.
            for _ in 0..=affected.list.len() {
                let mut changed = false;
                for &b in &affected.list {
                    let Some((tier, key)) = self.lent_to(b) else {
                        continue;
                    };
                    let be = &mut self.threads[b].eff;
                    if (tier, key) > (be.tier, be.key) {
                        // The holder runs at the waiter's priority, in its
                        // own place among equals.
                        be.tier = tier;
                        be.key = key;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        let mut unsorted = std::mem::take(&mut self.unsorted);
        for &u in &unsorted {
            let mut q = std::mem::take(&mut self.units[u].queue);
            // Stable: equal keys keep arrival order (keys are unique
            // anyway: they end with the request's issue number).
            q.sort_by_key(|&w| Reverse(self.queue_key(w)));
            self.units[u].queue = q;
        }
        unsorted.clear();
        self.unsorted = unsorted;
        for (i, &t) in affected.list.iter().enumerate() {
            if before[i] != (self.threads[t].eff, self.loc[t]) {
                self.changed.insert(t);
                if before[i].0 != self.threads[t].eff {
                    self.rerank(t);
                }
            }
        }
        affected.clear();
        self.affected = affected;
        self.before = before;
        if self.stack {
            self.system_ceiling.fill(None);
            for (r, rule) in self.cfg.rules.iter().enumerate() {
                if rule.arbitration != Arbitration::Stack
                    || rule.unit != r
                    || self.units[r].holders.is_empty()
                {
                    continue;
                }
                let c = self.cfg.stack_ceiling(r, self.units[r].free);
                let s = &mut self.system_ceiling[rule.scope];
                *s = Some(s.map_or(c, |x| x.max(c)));
            }
        }
    }
}
