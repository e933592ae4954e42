//! Sleeping and waking: a waiter sleeps on its own futex word until a
//! release wakes it (or its wait limit passes); a spinner spins a bounded
//! time, then sleeps.

use super::*;

impl Shared {
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
    pub(super) fn wake_next(&self, st: &mut State, scope: usize) {
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
    pub(super) fn wake_all_next(&self, st: &mut State) {
        for scope in 0..st.locks.scopes() {
            if st.locks.ceiling_woken(scope).next().is_some() {
                self.wake_next(st, scope);
            }
        }
    }

    /// `t`, a woken waiter, leaves the woken ones (it retried, gave up or
    /// died): the next one's turn.
    pub(super) fn forget_woken(&self, st: &mut State, t: Tid, scope: Option<usize>) {
        if let Some(i) = st.signaled.iter().position(|d| d.0 == t) {
            st.signaled.swap_remove(i);
        }
        if let Some(scope) = scope {
            self.wake_next(st, scope);
        }
    }

    pub(super) fn wake(&self, t: Tid) {
        let w = &self.slots[t].wake;
        w.fetch_add(1, Ordering::Release);
        sys::futex_wake(w, 1);
    }

    /// Sleeps (or spins) until `t`'s wake word moves past `seen`, or until
    /// `deadline`.
    pub(super) fn sleep(&self, t: Tid, seen: u32, spin: bool, deadline: Instant) {
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
}
