//! PIP on the kernel's PI futex, for domains where it fits.
//!
//! Under PIP a holder runs at the highest priority of the jobs it blocks,
//! transitively through nested sections (Sha, Rajkumar, Lehoczky 1990),
//! and a release wakes the highest-priority waiter, while a higher job
//! that asks before it runs takes the free resource first. That is what
//! Linux's PI futexes do (rt_mutex under `FUTEX_LOCK_PI`): a waiter
//! sleeps in a priority-ordered queue and lends its priority to the
//! owner, the kernel walks the chain of owners for transitive inheritance
//! and refuses a wait that would close a cycle (`EDEADLK`), and one
//! `FUTEX_UNLOCK_PI` names the top waiter as the word's owner, wakes it
//! and ends the releaser's boost; a higher-priority locker that comes
//! before the woken waiter runs steals the rt_mutex from it (the word is
//! then fixed to name the thief). `scenarios/pip-release-wakes.toml`,
//! run on this path by `tests/conformance.rs`, shows the release order.
//!
//! So each resource whose rule is one the kernel implements, nested (by
//! the spec) only with such resources, runs on one PI futex word where
//! priorities are applied and no log is kept (which would need the
//! machine to see each inheritance), and the machine is not consulted
//! for it: an uncontended lock or unlock is one compare-and-swap; a
//! contended hand-off is the releaser's one system call, where driving
//! the machine costs two (wake the successor, lower the releaser). In a
//! system that mixes protocols the other resources stay with the
//! machine; the two never meet, because no declared nesting joins them
//! and an undeclared one is refused ([`RtError::UndeclaredNesting`]):
//! a machine resource requested inside a kernel section would wait at a
//! priority the machine computes without the kernel's boost (inheritance
//! would stop at the boundary), and a kernel resource requested inside a
//! machine section would escape the machine's nesting rules (PCP's, a
//! non-preemptive section's). Priorities still combine: the machine's
//! raises are `sched_setscheduler` calls on a thread's normal priority,
//! which the kernel's boost sits above. The runtime keeps what the
//! kernel does not: the misuse checks (a second request of a held
//! resource, a release out of order or of something not held, a job
//! ending while holding), the inconsistency mark a dead owner leaves,
//! the wait limit, and the names of a refused deadlock's cycle.
//!
//! A word is free (0) or names its holder's thread id, with
//! `FUTEX_WAITERS` while the kernel queues waiters; only the kernel
//! changes a word that has waiters.

use super::Shared;
use crate::error::RtError;
use crate::sys;
use rtsync_protocols::{Config, LockError, Tid};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};
use std::time::Instant;

/// The per-resource words and what the runtime keeps beside them.
pub(super) struct KernelPi {
    /// Per resource: whether it runs here ([`resources`]).
    on: Vec<bool>,
    /// Per resource: the PI futex word.
    words: Vec<AtomicU32>,
    /// Per task: the bound thread's id (0: unbound).
    tid: Vec<AtomicI32>,
    /// The threads whose task's place is lent to another thread (a
    /// component thread acting for it, [`super::deputy`]), each with that
    /// task: a word one of them took before lending still names it, and
    /// the walk that names a refused deadlock's cycle must map it to the
    /// task (until 2026-12-03 it stopped there, and a cycle through a
    /// request, which the kernel refuses as any other since the reply is
    /// a PI futex its server owns, was named by its last wait alone).
    /// Only acts and a refused wait touch it; room for one lender per
    /// task is made up front.
    lenders: Mutex<Vec<(u32, Tid)>>,
    /// Per task: the resource it waits for, plus one (0: none).
    waits: Vec<AtomicUsize>,
    /// `[t * resources + k]`: the `k`-th section `t` holds here,
    /// outermost first. Written by `t`'s own thread.
    held: Vec<AtomicU32>,
    /// Per task: how many sections it holds here (its slot's depth counts
    /// those it holds of the machine's). Written by `t`'s own thread.
    depth: Vec<AtomicU32>,
    resources: usize,
}

/// Which resources a domain with these rules, nestings and options runs
/// on the kernel's PI futex: those whose rule is one the kernel
/// implements (a one-unit priority-inheritance mutex:
/// [`rtsync_protocols::Rule::is_inheritance_mutex`], which PIP's is) and
/// that no declared nesting joins, directly or through others, to a
/// resource whose rule is not; none unless priorities are applied, no log
/// is kept and the path is not turned off. `None`: no resource.
pub(super) fn resources(
    cfg: &Config,
    nesting: &[(usize, usize, Tid)],
    opts: &super::Options,
) -> Option<Vec<bool>> {
    if !(opts.kernel_pi && opts.realtime && !opts.record) {
        return None;
    }
    let mut on: Vec<bool> = (cfg.rules.iter().enumerate())
        .map(|(r, rule)| rule.is_inheritance_mutex(r) && cfg.units[r] == 1)
        .collect();
    // One pass per resource at most: each pass that changes anything
    // takes one resource off.
    while let Some(&(a, b, _)) = nesting.iter().find(|&&(a, b, _)| on[a] != on[b]) {
        on[a] = false;
        on[b] = false;
    }
    on.contains(&true).then_some(on)
}

impl KernelPi {
    pub(super) fn new(tasks: usize, on: Vec<bool>) -> KernelPi {
        let resources = on.len();
        KernelPi {
            on,
            depth: (0..tasks).map(|_| AtomicU32::new(0)).collect(),
            words: (0..resources).map(|_| AtomicU32::new(0)).collect(),
            tid: (0..tasks).map(|_| AtomicI32::new(0)).collect(),
            lenders: Mutex::new(Vec::with_capacity(tasks)),
            waits: (0..tasks).map(|_| AtomicUsize::new(0)).collect(),
            held: (0..tasks * resources).map(|_| AtomicU32::new(0)).collect(),
            resources,
        }
    }

    pub(super) fn bound(&self, t: Tid, tid: i32) {
        self.tid[t].store(tid, Ordering::Relaxed);
    }

    /// Thread `tid` lends task `t`'s place to another thread.
    pub(super) fn lent(&self, t: Tid, tid: i32) {
        if tid != 0 {
            self.lenders_mut().push((tid as u32, t));
        }
    }

    /// Thread `tid` has task `t`'s place back.
    pub(super) fn returned(&self, t: Tid, tid: i32) {
        let mut lenders = self.lenders_mut();
        if let Some(k) = lenders.iter().rposition(|&e| e == (tid as u32, t)) {
            lenders.remove(k);
        }
    }

    fn lenders_mut(&self) -> std::sync::MutexGuard<'_, Vec<(u32, Tid)>> {
        // A list of plain pairs: a panic elsewhere leaves it whole.
        self.lenders.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The thread id `t`'s sections are taken with (0: unbound).
    pub(super) fn tid(&self, t: Tid) -> i32 {
        self.tid[t].load(Ordering::Relaxed)
    }

    /// The resource `t` waits for now, if any.
    pub(super) fn waiting(&self, t: Tid) -> Option<usize> {
        self.waits[t].load(Ordering::Relaxed).checked_sub(1)
    }

    /// The task whose thread id `tid` is, if bound, or whose place it
    /// lent.
    fn task_of(&self, tid: u32) -> Option<Tid> {
        self.tid
            .iter()
            .position(|x| x.load(Ordering::Relaxed) as u32 == tid)
            .or_else(|| {
                let lenders = self.lenders_mut();
                lenders.iter().find(|&&(x, _)| x == tid).map(|&(_, t)| t)
            })
    }

    /// Whether resource `r` runs here.
    #[inline]
    pub(super) fn runs(&self, r: usize) -> bool {
        self.on[r]
    }

    /// Whether any resource runs here.
    pub(super) fn any(&self) -> bool {
        self.on.contains(&true)
    }

    /// How many sections `t` holds here.
    #[inline]
    pub(super) fn depth(&self, t: Tid) -> usize {
        self.depth[t].load(Ordering::Relaxed) as usize
    }

    /// The sections `t` holds here, outermost first.
    pub(super) fn held(&self, t: Tid) -> impl DoubleEndedIterator<Item = usize> + '_ {
        self.held[t * self.resources..][..self.depth(t)]
            .iter()
            .map(|r| r.load(Ordering::Relaxed) as usize)
    }

    /// The cycle a refused wait of `t` for `r` would have closed: each
    /// owner along the chain and what it waits for, back to `t`.
    fn cycle(&self, t: Tid, r: usize) -> Vec<(Tid, usize)> {
        let mut out = vec![(t, r)];
        let mut r = r;
        for _ in 0..self.tid.len() {
            let owner = self.words[r].load(Ordering::Relaxed) & libc::FUTEX_TID_MASK;
            let Some(o) = self.task_of(owner) else { break };
            if o == t {
                return out;
            }
            let Some(next) = self.waiting(o) else { break };
            out.push((o, next));
            r = next;
        }
        // The chain moved on while it was read: name the request alone.
        out.truncate(1);
        out
    }
}

impl Shared {
    /// The innermost section `t` holds of the machine's, if any (its
    /// slot's depth counts them): a fast one is named by its gate, unless
    /// the slow path closed the gate and entered it into the machine,
    /// which then knows it like the others.
    fn machine_held(&self, t: Tid) -> Option<usize> {
        let slot = &self.slots[t];
        if slot.depth.load(Ordering::Relaxed) == 0 {
            return None;
        }
        if let Some(g) = slot.fast_gate.load(Ordering::Relaxed).checked_sub(1)
            && let Some(w) = self.paths.gate[g].holder_word()
            && let (holder, r) = crate::gate::holder(w)
            && holder == t
        {
            return Some(r);
        }
        self.books_anyway(t).locks.held(t).last()
    }

    /// `t` asked for `r` while holding `held`, one of them the kernel's
    /// and the other the machine's: a nesting the spec does not declare
    /// ([`resources`] keeps declared ones in the machine).
    pub(super) fn undeclared(&self, t: Tid, r: usize, held: usize) -> RtError {
        RtError::UndeclaredNesting {
            task: self.tasks[t].clone(),
            resource: self.resources[r].clone(),
            held: self.resources[held].clone(),
        }
    }

    /// [`Shared::acquire`] on the kernel's PI futex.
    pub(super) fn kernel_acquire(
        &self,
        k: &KernelPi,
        t: Tid,
        r: usize,
        units: u32,
    ) -> Result<bool, RtError> {
        let slot = &self.slots[t];
        let depth = k.depth(t);
        if units != 1 {
            return Err(self.refused(
                t,
                Some(r),
                LockError::Units {
                    thread: t,
                    resource: r,
                    asked: units,
                    total: 1,
                },
            ));
        }
        if let Some(held) = self.machine_held(t) {
            return Err(self.undeclared(t, r, held));
        }
        if k.held(t).any(|h| h == r) {
            return Err(self.refused(
                t,
                Some(r),
                LockError::Recursive {
                    thread: t,
                    resource: r,
                },
            ));
        }
        let tid = k.tid[t].load(Ordering::Relaxed) as u32;
        let word = &k.words[r];
        let start = Instant::now();
        k.waits[t].store(r + 1, Ordering::Relaxed);
        let taken = sys::pi_lock(word, tid, self.opts.wait_limit);
        k.waits[t].store(0, Ordering::Relaxed);
        let taken = taken.map_err(|e| match e {
            libc::ETIMEDOUT => RtError::Timeout {
                task: self.tasks[t].clone(),
                resource: self.resources[r].clone(),
                waited: start.elapsed(),
            },
            libc::EDEADLK => RtError::Deadlock {
                cycle: k
                    .cycle(t, r)
                    .into_iter()
                    .map(|(x, r)| (self.tasks[x].clone(), self.resources[r].clone()))
                    .collect(),
            },
            e => RtError::Os {
                what: "futex(FUTEX_LOCK_PI)".into(),
                error: std::io::Error::from_raw_os_error(e),
            },
        })?;
        let (uncontended, inconsistent) = (
            taken == sys::PiTaken::Free,
            taken == sys::PiTaken::OwnerDied,
        );
        k.held[t * k.resources + depth].store(r as u32, Ordering::Relaxed);
        k.depth[t].store(depth as u32 + 1, Ordering::Relaxed);
        if uncontended {
            // Counted as `Domain::fast_grants`: no system call.
            let n = slot.fast.load(Ordering::Relaxed);
            slot.fast.store(n + 1, Ordering::Relaxed);
        }
        if inconsistent {
            self.inconsistent[r].store(true, Ordering::Relaxed);
        }
        Ok(self.inconsistent[r].load(Ordering::Relaxed))
    }

    /// [`Shared::release`] on the kernel's PI futex.
    pub(super) fn kernel_release(
        &self,
        k: &KernelPi,
        t: Tid,
        r: usize,
        inconsistent: Option<bool>,
    ) -> Result<(), RtError> {
        let depth = k.depth(t);
        match k.held(t).next_back() {
            Some(top) if top == r => {}
            Some(top) if k.held(t).any(|h| h == r) => {
                return Err(self.refused(
                    t,
                    Some(r),
                    LockError::NotInnermost {
                        thread: t,
                        resource: r,
                        innermost: top,
                    },
                ));
            }
            _ => {
                return Err(self.refused(
                    t,
                    Some(r),
                    LockError::NotOwner {
                        thread: t,
                        resource: r,
                    },
                ));
            }
        }
        if let Some(m) = inconsistent {
            self.inconsistent[r].store(m, Ordering::Relaxed);
        }
        k.depth[t].store(depth as u32 - 1, Ordering::Relaxed);
        let tid = k.tid[t].load(Ordering::Relaxed) as u32;
        let word = &k.words[r];
        sys::pi_unlock(word, tid).map_err(|e| RtError::Os {
            what: "futex(FUTEX_UNLOCK_PI)".into(),
            error: std::io::Error::from_raw_os_error(e),
        })
    }

    /// A job's end under the kernel's PI futex: it must hold nothing
    /// there.
    pub(super) fn kernel_job_end(&self, k: &KernelPi, t: Tid) -> Result<(), RtError> {
        match k.held(t).next_back() {
            Some(r) => Err(self.refused(
                t,
                None,
                LockError::NotOwner {
                    thread: t,
                    resource: r,
                },
            )),
            None => Ok(()),
        }
    }
}
