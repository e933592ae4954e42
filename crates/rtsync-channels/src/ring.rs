//! What the three queues share: 64-bit element counters and the check that
//! tells a reader whether the slot it just copied was overwritten.
//!
//! Element `n` (counting from 0 over the channel's life) lives in slot
//! `n % capacity`. The writer's progress word counts twice per element:
//! odd while it writes element `m` (`2m + 1`), even once `m` is published
//! (`2m + 2`). Element `e` is overwritten only by element `e + capacity`,
//! so a copy of element `e` is intact if, after the copy (behind an acquire
//! fence that pairs with the writer's release fence between the odd store
//! and the slot's stores), the writer has not started element
//! `e + capacity`. Without the odd state a reader could not tell "the
//! writer finished `e + capacity - 1`" from "the writer is overwriting
//! `e`", and a one-slot queue could never be read. 64-bit counters cannot
//! wrap in the life of a system (paper 002 notes the 32-bit one in QrtWc
//! can).

use crate::sync::{AtomicU64, Ordering, fence};

/// Elements published, given the progress word.
#[inline]
pub(crate) fn published(progress: u64) -> u64 {
    progress / 2
}

/// The writer's side of the progress word: how it brackets each slot write.
pub(crate) struct Progress(u64);

impl Progress {
    pub(crate) fn resume(word: &AtomicU64) -> Progress {
        let p = word.load(Ordering::Relaxed);
        // A writer that died mid-write left it odd: that element is lost.
        Progress(p + (p & 1))
    }

    /// Elements published so far.
    pub(crate) fn published(&self) -> u64 {
        self.0 / 2
    }

    /// Marks the next element as being written. The release fence orders
    /// this store before the slot's stores. The store itself is a release
    /// too: a reader that loads this odd value must also see the element
    /// published just before it, and since C++20 (whose model Rust and loom
    /// follow) a later relaxed store by the same thread no longer carries
    /// the earlier release (loom found this). Both are free on x86.
    #[inline]
    pub(crate) fn begin(&mut self, word: &AtomicU64) {
        self.0 += 1;
        word.store(self.0, Ordering::Release);
        fence(Ordering::Release);
    }

    /// Publishes the element begun.
    #[inline]
    pub(crate) fn end(&mut self, word: &AtomicU64) {
        self.0 += 1;
        word.store(self.0, Ordering::Release);
    }
}

/// Checks a copy of element `element` taken before this call: `None` if it
/// is intact, otherwise the oldest element that may still be intact
/// (everything before it has been, or is being, overwritten).
#[inline]
pub(crate) fn overwritten(progress: &AtomicU64, element: u64, capacity: u64) -> Option<u64> {
    fence(Ordering::Acquire);
    let started = progress.load(Ordering::Relaxed).div_ceil(2);
    if started <= element.saturating_add(capacity) {
        None
    } else {
        // Element `started - 1` overwrites element `started - 1 - capacity`.
        Some(started - capacity)
    }
}

/// Lost elements and retries seen by a queue's non-real-time reader.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReaderStats {
    /// Elements read.
    pub received: u64,
    /// Elements the writer overwrote or discarded before they were read.
    pub lost: u64,
    /// Copies started over because the writer overlapped them.
    pub retries: u64,
    /// Times the shared state was found impossible (a foreign write).
    pub corruptions: u64,
}

/// What a lossy queue's reader has received and lost, and the losses not
/// yet reported with an element.
#[derive(Debug, Default)]
pub(crate) struct Losses {
    pending: u64,
    pub stats: ReaderStats,
}

impl Losses {
    /// `n` elements went by unread.
    pub(crate) fn lose(&mut self, n: u64) {
        self.pending += n;
        self.stats.lost += n;
    }

    /// Hands `value` out with the losses since the last element.
    pub(crate) fn deliver<T>(&mut self, value: T) -> Received<T> {
        self.stats.received += 1;
        Received {
            value,
            lost_before: std::mem::take(&mut self.pending),
        }
    }
}

/// One element handed to a queue's non-real-time reader, with the number of
/// elements lost just before it (overwritten or discarded unread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Received<T> {
    pub value: T,
    pub lost_before: u64,
}

/// An element counter with its slot index kept beside it, so the hot path
/// steps with a compare instead of a 64-bit division (`%` by a capacity
/// known only at run time costs tens of cycles, more than the rest of an
/// operation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor {
    pub count: u64,
    pub slot: usize,
    capacity: u64,
}

impl Cursor {
    pub(crate) fn new(count: u64, capacity: u64) -> Cursor {
        Cursor {
            count,
            slot: (count % capacity) as usize,
            capacity,
        }
    }

    #[inline]
    pub(crate) fn step(&mut self) {
        self.count += 1;
        self.slot += 1;
        if self.slot as u64 == self.capacity {
            self.slot = 0;
        }
    }

    pub(crate) fn jump(&mut self, to: u64) {
        *self = Cursor::new(to, self.capacity);
    }
}
