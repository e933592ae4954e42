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
//! So where every resource of a domain is PIP (or has a rule that asks for
//! no more) and priorities are applied
//! (and no log is kept, which would need the machine to see each
//! inheritance), each resource is one PI futex word and the machine is
//! not consulted: an uncontended lock or unlock is one compare-and-swap;
//! a contended hand-off is the releaser's one system call, where driving
//! the machine costs two (wake the successor, lower the releaser). The
//! runtime keeps what the kernel does not: the misuse checks (a second
//! request of a held resource, a release out of order or of something
//! not held, a job ending while holding), the inconsistency mark a dead
//! owner leaves, the wait limit, and the names of a refused deadlock's
//! cycle.
//!
//! A word is free (0) or names its holder's thread id, with
//! `FUTEX_WAITERS` while the kernel queues waiters; only the kernel
//! changes a word that has waiters.

use super::Shared;
use crate::error::RtError;
use crate::sys;
use rtsync_protocols::{Config, LockError, Tid};
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};
use std::time::Instant;

/// The per-resource words and what the runtime keeps beside them.
pub(super) struct KernelPi {
    /// Per resource: the PI futex word.
    words: Vec<AtomicU32>,
    /// Per task: the bound thread's id (0: unbound).
    tid: Vec<AtomicI32>,
    /// Per task: the resource it waits for, plus one (0: none).
    waits: Vec<AtomicUsize>,
    /// `[t * resources + k]`: the `k`-th section `t` holds, outermost
    /// first; `t`'s slot depth counts them. Written by `t`'s own thread.
    held: Vec<AtomicU32>,
    resources: usize,
}

/// Whether a domain with these rules and options takes this path: every
/// resource's rule one the kernel implements (a one-unit
/// priority-inheritance mutex: [`rtsync_protocols::Rule::is_inheritance_mutex`],
/// which PIP's is), priorities applied, no log, and the path not turned
/// off.
pub(super) fn fits(cfg: &Config, opts: &super::Options) -> bool {
    opts.kernel_pi
        && opts.realtime
        && !opts.record
        && !cfg.rules.is_empty()
        && cfg
            .rules
            .iter()
            .enumerate()
            .all(|(r, rule)| rule.is_inheritance_mutex(r) && cfg.units[r] == 1)
}

impl KernelPi {
    pub(super) fn new(tasks: usize, resources: usize) -> KernelPi {
        KernelPi {
            words: (0..resources).map(|_| AtomicU32::new(0)).collect(),
            tid: (0..tasks).map(|_| AtomicI32::new(0)).collect(),
            waits: (0..tasks).map(|_| AtomicUsize::new(0)).collect(),
            held: (0..tasks * resources).map(|_| AtomicU32::new(0)).collect(),
            resources,
        }
    }

    pub(super) fn bound(&self, t: Tid, tid: i32) {
        self.tid[t].store(tid, Ordering::Relaxed);
    }

    /// The resource `t` waits for now, if any.
    pub(super) fn waiting(&self, t: Tid) -> Option<usize> {
        self.waits[t].load(Ordering::Relaxed).checked_sub(1)
    }

    /// The task whose thread id `tid` is, if bound.
    fn task_of(&self, tid: u32) -> Option<Tid> {
        self.tid
            .iter()
            .position(|x| x.load(Ordering::Relaxed) as u32 == tid)
    }

    /// The sections `t` holds (its slot's depth of them), outermost
    /// first.
    pub(super) fn held(&self, t: Tid, depth: usize) -> impl DoubleEndedIterator<Item = usize> + '_ {
        self.held[t * self.resources..][..depth]
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
    /// [`Shared::acquire`] on the kernel's PI futex.
    pub(super) fn kernel_acquire(
        &self,
        k: &KernelPi,
        t: Tid,
        r: usize,
        units: u32,
    ) -> Result<bool, RtError> {
        let slot = &self.slots[t];
        let depth = slot.depth.load(Ordering::Relaxed) as usize;
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
        if k.held(t, depth).any(|h| h == r) {
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
        let mut inconsistent = false;
        let uncontended = word
            .compare_exchange(0, tid, Ordering::Acquire, Ordering::Relaxed)
            .is_ok();
        if !uncontended {
            let start = Instant::now();
            let deadline = sys::realtime_after(self.opts.wait_limit);
            let timeout = || RtError::Timeout {
                task: self.tasks[t].clone(),
                resource: self.resources[r].clone(),
                waited: start.elapsed(),
            };
            k.waits[t].store(r + 1, Ordering::Relaxed);
            let out = loop {
                // A call refused at once (below) is retried only within
                // the wait limit: nothing here loops unbounded.
                if start.elapsed() >= self.opts.wait_limit {
                    break Err(timeout());
                }
                match sys::futex_lock_pi(word, &deadline) {
                    Ok(()) => break Ok(()),
                    Err(libc::EINTR) | Err(libc::EAGAIN) => continue,
                    Err(libc::ESRCH) => {
                        // The word names a thread that is gone without
                        // releasing (a binding leaked past its thread's
                        // end): take it over, marked inconsistent.
                        let seen = word.load(Ordering::Relaxed);
                        if seen != 0
                            && seen & libc::FUTEX_WAITERS == 0
                            && word
                                .compare_exchange(seen, tid, Ordering::Acquire, Ordering::Relaxed)
                                .is_ok()
                        {
                            inconsistent = true;
                            break Ok(());
                        }
                        if word
                            .compare_exchange(0, tid, Ordering::Acquire, Ordering::Relaxed)
                            .is_ok()
                        {
                            break Ok(());
                        }
                    }
                    Err(libc::EDEADLK) => {
                        let cycle = k
                            .cycle(t, r)
                            .into_iter()
                            .map(|(x, r)| (self.tasks[x].clone(), self.resources[r].clone()))
                            .collect();
                        break Err(RtError::Deadlock { cycle });
                    }
                    Err(libc::ETIMEDOUT) => break Err(timeout()),
                    Err(e) => {
                        break Err(RtError::Os {
                            what: "futex(FUTEX_LOCK_PI)".into(),
                            error: std::io::Error::from_raw_os_error(e),
                        });
                    }
                }
            };
            k.waits[t].store(0, Ordering::Relaxed);
            out?;
        }
        k.held[t * k.resources + depth].store(r as u32, Ordering::Relaxed);
        slot.depth.store(depth as u32 + 1, Ordering::Relaxed);
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
        let slot = &self.slots[t];
        let depth = slot.depth.load(Ordering::Relaxed) as usize;
        match k.held(t, depth).next_back() {
            Some(top) if top == r => {}
            Some(top) if k.held(t, depth).any(|h| h == r) => {
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
        slot.depth.store(depth as u32 - 1, Ordering::Relaxed);
        let tid = k.tid[t].load(Ordering::Relaxed) as u32;
        let word = &k.words[r];
        if word
            .compare_exchange(tid, 0, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            sys::futex_unlock_pi(word).map_err(|e| RtError::Os {
                what: "futex(FUTEX_UNLOCK_PI)".into(),
                error: std::io::Error::from_raw_os_error(e),
            })?;
        }
        Ok(())
    }

    /// A job's end under the kernel's PI futex: it must hold nothing.
    pub(super) fn kernel_job_end(&self, k: &KernelPi, t: Tid) -> Result<(), RtError> {
        let depth = self.slots[t].depth.load(Ordering::Relaxed) as usize;
        match k.held(t, depth).next_back() {
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
