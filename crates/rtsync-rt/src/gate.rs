//! The runtime's lock-free words, apart from the bookkeeping so that loom
//! can check them (`tests/loom.rs`, under `--cfg loom`, which switches the
//! atomics below to loom's).
//!
//! * [`Gate`]: the fast path's gate word (a CPU's, or a global resource's):
//!   open (a fast lock may take it), closed (the machine knows everything of
//!   its scope), or the word of the one fast holder. A fast lock is one
//!   compare-and-swap from open to its word, a fast unlock one back; the
//!   slow path, under the bookkeeping lock, *closes* the gates it reads and
//!   enters a fast holder found there into the machine; the last slow
//!   operation that leaves a gate's scope quiet opens it. A fast holder
//!   whose gate was closed meanwhile finds its unlock refused and releases
//!   through the machine, which knows it as the holder.
//! * [`Epoch`]: a thread's decision generation. Decisions about a thread's
//!   priority or CPU are numbered under the bookkeeping lock and carried
//!   out after it, under the thread's own lock; a part whose number is no
//!   longer the newest is skipped, so a late lowering never undoes a newer
//!   raise.

#[cfg(loom)]
use loom::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::atomic::Ordering;
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU32, AtomicU64};

/// A gate word's value when a fast lock may take it.
pub const OPEN: u32 = 0;
/// A gate word's value when the machine knows everything of its scope.
pub const CLOSED: u32 = 1;
/// Task indices below this and resource indices up to it fit a gate word.
pub const FIELD: usize = 0xffff;

/// The gate word of task `t` holding resource `r` on the fast path: task
/// + 1 and resource, 16 bits each (never [`OPEN`] or [`CLOSED`]).
#[inline]
pub fn word(t: usize, r: usize) -> u32 {
    debug_assert!(t < FIELD && r <= FIELD);
    ((t as u32 + 1) << 16) | r as u32
}

/// The `(task, resource)` of a fast holder's gate word.
#[inline]
pub fn holder(w: u32) -> (usize, usize) {
    ((w >> 16) as usize - 1, (w & 0xffff) as usize)
}

/// One gate word.
#[derive(Debug)]
pub struct Gate(AtomicU32);

impl Gate {
    /// A gate, open (uncontended requests may take their fast path) or
    /// closed.
    pub fn new(open: bool) -> Gate {
        Gate(AtomicU32::new(if open { OPEN } else { CLOSED }))
    }

    /// A fast lock: takes the open gate for the holder word `me`.
    #[inline]
    pub fn take(&self, me: u32) -> bool {
        self.0
            .compare_exchange(OPEN, me, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// A fast unlock by the holder word `me`: refused when the slow path
    /// closed the gate meanwhile (the machine then knows `me` as holding).
    #[inline]
    pub fn give_back(&self, me: u32) -> bool {
        self.0
            .compare_exchange(me, OPEN, Ordering::Release, Ordering::Relaxed)
            .is_ok()
    }

    /// Closes the gate (under the bookkeeping lock) and returns the word of
    /// the fast holder found there, which the caller enters into the
    /// machine. Retries while a fast lock or unlock races with it.
    pub fn close(&self) -> Option<u32> {
        loop {
            let w = self.0.load(Ordering::Acquire);
            if w == CLOSED {
                return None;
            }
            if self
                .0
                .compare_exchange(w, CLOSED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return (w != OPEN).then_some(w);
            }
        }
    }

    /// The fast holder's word, if one holds the gate now (for naming it:
    /// only the holder itself may rely on the answer staying true).
    pub fn holder_word(&self) -> Option<u32> {
        let w = self.0.load(Ordering::Acquire);
        (w != OPEN && w != CLOSED).then_some(w)
    }

    /// Opens the gate (under the bookkeeping lock, its scope quiet).
    pub fn open(&self) {
        self.0.store(OPEN, Ordering::Release);
    }
}

/// A thread's decision generation (one for its priority, one for its CPU).
#[derive(Debug, Default)]
pub struct Epoch(AtomicU64);

impl Epoch {
    /// Numbers a new decision (under the bookkeeping lock): every earlier
    /// one not yet carried out is now stale.
    pub fn next(&self) -> u64 {
        self.0.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// Whether decision `e` is still the newest (checked, with the
    /// decision carried out, under the thread's own lock).
    pub fn is_newest(&self, e: u64) -> bool {
        self.0.load(Ordering::Acquire) == e
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn holder_words_are_neither_open_nor_closed_and_round_trip() {
        for (t, r) in [(0, 0), (0, 1), (5, 9), (FIELD - 1, FIELD)] {
            let w = word(t, r);
            assert!(w != OPEN && w != CLOSED);
            assert_eq!(holder(w), (t, r));
        }
    }

    #[test]
    fn a_closed_gate_refuses_fast_locks_and_unlocks() {
        let g = Gate::new(true);
        let me = word(2, 3);
        assert!(g.take(me));
        assert!(!g.take(word(1, 3)), "held");
        assert_eq!(g.close(), Some(me), "the holder is found");
        assert!(!g.give_back(me), "closed: release through the machine");
        assert_eq!(g.close(), None);
        g.open();
        assert!(g.take(me) && g.give_back(me));
        let e = Epoch::default();
        let a = e.next();
        assert!(e.is_newest(a));
        let b = e.next();
        assert!(!e.is_newest(a) && e.is_newest(b));
    }
}
