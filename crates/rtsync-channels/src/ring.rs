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

use crate::cursor::Cursor;
use crate::element::{self, Element};
use crate::region::Region;
use crate::resume::{Journal, Saved};
use crate::stats::ReaderStats;
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

/// What a lossy queue's reader has received and lost, the losses not yet
/// reported with an element, and the record a successor resumes from
/// ([`crate::resume`]).
#[derive(Debug)]
pub(crate) struct Losses {
    pending: u64,
    pub stats: ReaderStats,
    start: u64,
    journal: Journal,
}

impl Losses {
    /// Takes over the record a predecessor left in `region` (a reader
    /// process that was killed and started again), or starts afresh at
    /// element `first`. A record whose position is beyond `limit` (the
    /// furthest a reader can have got) or that cannot hold is counted as
    /// a corruption and ignored. Returns the counters and the first
    /// element not yet received or counted lost.
    pub(crate) fn attach(region: &Region, first: u64, limit: u64) -> (Losses, u64) {
        let (journal, saved) = Journal::load(region);
        let taken_over = match saved {
            Ok(Some(s)) => s
                .resume(Journal::delivered(region))
                .filter(|r| r.next <= limit),
            Ok(None) | Err(()) => None,
        };
        let fresh = taken_over.is_none();
        let resumed = taken_over.unwrap_or_else(|| {
            let corrupt = u64::from(saved != Ok(None));
            let s = Saved::fresh(first, corrupt);
            s.resume(first)
                .expect("a fresh record resumes at its start")
        });
        let mut losses = Losses {
            pending: 0,
            stats: resumed.stats,
            start: resumed.start,
            journal,
        };
        // A first reader, or one after an impossible record, writes its
        // record now; a successor's record stands until its first refill.
        if fresh {
            losses.refilled(region, resumed.next, resumed.next);
            Journal::mark(region, resumed.next);
        }
        (losses, resumed.next)
    }

    /// A refill took the intact elements `base..end` out of the ring:
    /// records them with the counters for a successor.
    pub(crate) fn refilled(&mut self, region: &Region, base: u64, end: u64) {
        let saved = Saved {
            start: self.start,
            base,
            end,
            received: self.stats.received,
            retries: self.stats.retries,
            corruptions: self.stats.corruptions,
        };
        self.journal.save(region, &saved);
    }

    /// `n` elements went by unread.
    pub(crate) fn lose(&mut self, n: u64) {
        self.pending += n;
        self.stats.lost += n;
    }

    /// A refill lost everything it copied: count it, and pause before the
    /// next one.
    pub(crate) fn retry(&mut self) {
        self.stats.retries += 1;
        std::hint::spin_loop();
        #[cfg(loom)]
        loom::thread::yield_now();
    }

    /// Hands element number `number`, `value`, out with the losses since
    /// the last element, recording first that it was received: a reader
    /// killed after this hands its successor the element after it, so no
    /// element reaches two incarnations (one killed before it used the
    /// element has lost it, and the count says received).
    pub(crate) fn deliver<T>(&mut self, region: &Region, number: u64, value: T) -> Received<T> {
        self.stats.received += 1;
        Journal::mark(region, number + 1);
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
    /// The element.
    pub value: T,
    /// Elements lost between the previous one handed out and this one.
    pub lost_before: u64,
}

/// What a lossy queue's reader keeps (QrtWo, QrtWc): its region, where
/// it reads next, what it lost, and its batch.
pub(crate) struct Lossy<T> {
    pub region: std::sync::Arc<Region>,
    pub next: Cursor,
    pub capacity: u64,
    pub losses: Losses,
    pub batch: Batch<T>,
}

/// Bytes a lossy queue's reader copies out of the ring per refill, unless
/// told otherwise ([`crate::qrtwo::Reader::set_batch`]).
const BATCH_BYTES: usize = 1024;

/// Elements a lossy queue's non-real-time reader has copied out of the ring
/// and found intact, not yet handed out.
///
/// Why a reader batches: each refill loads the writer's progress word
/// twice, before and after the copy, and every such load takes that line
/// away from the real-time writer, whose next store must fetch it back.
/// One element per refill makes a reader that polls flat out steal the
/// line every few writes; under a saturated writer that showed as a
/// real-time p99 more than ten times rtrb's (docs/PERFORMANCE.md). Copying
/// up to a batch per refill divides those steals by the batch size and
/// checks the whole batch with one load: element `e` of the batch is
/// intact if the writer had not started element `e + capacity` when the
/// copy was done ([`overwritten`]), and since the elements are consecutive
/// the intact ones are a suffix of the batch.
///
/// What it changes for the user: elements in the batch have left the ring,
/// so the writer can no longer overwrite or clear them; a reader that
/// wants only the freshest elements after a pause sets the batch to 1.
pub(crate) struct Batch<T> {
    items: Vec<T>,
    /// The element number of `items[0]`.
    first: u64,
    taken: usize,
    limit: usize,
}

impl<T: Element> Batch<T> {
    pub(crate) fn new(capacity: u64) -> Batch<T> {
        let per = (BATCH_BYTES / std::mem::size_of::<T>().max(1)).max(1);
        let mut b = Batch {
            items: Vec::new(),
            first: 0,
            taken: 0,
            limit: 1,
        };
        b.set_limit(per, capacity);
        b
    }

    /// At most `n` elements per refill, and never more than the ring holds.
    pub(crate) fn set_limit(&mut self, n: usize, capacity: u64) {
        let ring = usize::try_from(capacity).unwrap_or(usize::MAX);
        self.limit = n.clamp(1, ring.max(1));
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The intact elements the last refill took: `(first, end)`.
    pub(crate) fn span(&self) -> (u64, u64) {
        (
            self.first + self.taken as u64,
            self.first + self.items.len() as u64,
        )
    }

    /// The next batched element with the losses just before it.
    #[inline]
    pub(crate) fn deliver(&mut self, losses: &mut Losses, region: &Region) -> Option<Received<T>> {
        let number = self.first + self.taken as u64;
        self.next().map(|v| losses.deliver(region, number, v))
    }

    /// After a refill: records it for a successor ([`Losses::refilled`]),
    /// then hands out its first element, or counts a retry when the
    /// writer overwrote every element copied.
    pub(crate) fn hand_out(&mut self, losses: &mut Losses, region: &Region) -> Option<Received<T>> {
        let (base, end) = self.span();
        losses.refilled(region, base, end);
        let first = self.deliver(losses, region);
        if first.is_none() {
            losses.retry();
        }
        first
    }

    /// The next element copied and not yet handed out.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<T> {
        let v = self.items.get(self.taken).copied();
        if v.is_some() {
            self.taken += 1;
        }
        v
    }

    /// Copies up to the limit of the `available` published elements that
    /// start at `from` (none of them handed out yet), then checks them all
    /// with one load of the writer's `progress`. Returns the position after
    /// what this refill consumed and how many elements it found lost: the
    /// copied ones the writer overwrote, and any beyond the batch that the
    /// writer has already overwritten too. What is intact is left for
    /// [`Batch::next`].
    pub(crate) fn fill(
        &mut self,
        region: &Region,
        progress: &AtomicU64,
        from: Cursor,
        available: u64,
        capacity: u64,
    ) -> (Cursor, u64) {
        self.items.clear();
        self.first = from.count();
        self.taken = 0;
        let k = available.min(self.limit as u64);
        // Grows to what refills actually take (the reader is the
        // non-real-time side), not to a limit a caller may set far larger.
        self.items.reserve(k as usize);
        let mut at = from;
        for _ in 0..k {
            self.items.push(element::load(region.slot(at.slot())));
            at.step();
        }
        let Some(oldest) = overwritten(progress, from.count(), capacity) else {
            return (at, 0);
        };
        // `oldest > from.count()` here: the first `oldest - from.count()`
        // elements from `from` on are gone, copied or not.
        let end = from.count() + k;
        self.taken = (oldest.min(end) - from.count()) as usize;
        if oldest > end {
            at.jump(oldest);
        }
        (
            at,
            at.count() - from.count() - (self.items.len() - self.taken) as u64,
        )
    }
}

/// `Batch::fill`'s accounting, with the writer's progress set by hand as it
/// would stand after the copy. Element `k` holds the value `100 + k`.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::region::{Kind, Layout};

    const CAP: u64 = 4;

    /// A ring holding elements `first..first + CAP` and a progress word
    /// saying the writer has started `started` elements.
    fn ring(first: u64, started: u64) -> Region {
        let region = Region::heap(Layout::new::<u64>(Kind::QrtWo, CAP, 0));
        for k in first..first + CAP {
            element::store(region.slot((k % CAP) as usize), &(100 + k));
        }
        // Odd: element `started - 1` is being written.
        region.ctrl(0, 0).store(2 * started - 1, Ordering::Relaxed);
        region
    }

    fn drain(batch: &mut Batch<u64>) -> Vec<u64> {
        std::iter::from_fn(|| batch.next()).collect()
    }

    #[test]
    fn an_undisturbed_copy_keeps_the_whole_batch() {
        let region = ring(0, 5);
        let mut batch = Batch::<u64>::new(CAP);
        // The writer is on element 4, which overwrites element 0: but the
        // reader copied 1..4 only.
        let (at, lost) = batch.fill(&region, region.ctrl(0, 0), Cursor::new(1, CAP), 3, CAP);
        assert_eq!((at.count(), at.slot(), lost), (4, 0, 0));
        assert_eq!(drain(&mut batch), vec![101, 102, 103]);
    }

    #[test]
    fn overwritten_copies_are_a_prefix_and_counted_lost() {
        // Copied 0..4 while the writer started elements 4, 5 and 6: 0, 1
        // and 2 may be torn, 3 is intact.
        let region = ring(0, 7);
        let mut batch = Batch::<u64>::new(CAP);
        let (at, lost) = batch.fill(&region, region.ctrl(0, 0), Cursor::new(0, CAP), 4, CAP);
        assert_eq!((at.count(), lost), (4, 3));
        assert_eq!(drain(&mut batch), vec![103]);
    }

    #[test]
    fn a_writer_past_the_whole_batch_skips_beyond_it() {
        // Copied 0..2 (batch of 2) while the writer started element 9: all
        // of 0..6 is gone, 6 and later may still be read.
        let region = ring(0, 10);
        let mut batch = Batch::<u64>::new(CAP);
        batch.set_limit(2, CAP);
        let (at, lost) = batch.fill(&region, region.ctrl(0, 0), Cursor::new(0, CAP), 4, CAP);
        assert_eq!((at.count(), at.slot(), lost), (6, 2, 6));
        assert_eq!(drain(&mut batch), Vec::<u64>::new());
    }

    #[test]
    fn the_limit_bounds_a_refill_and_stays_within_the_ring() {
        let region = ring(0, 4);
        let mut batch = Batch::<u64>::new(CAP);
        batch.set_limit(3, CAP);
        let (at, lost) = batch.fill(&region, region.ctrl(0, 0), Cursor::new(0, CAP), 4, CAP);
        assert_eq!((at.count(), lost), (3, 0));
        assert_eq!(drain(&mut batch), vec![100, 101, 102]);
        batch.set_limit(0, CAP);
        assert_eq!(batch.limit(), 1);
        batch.set_limit(1000, CAP);
        assert_eq!(batch.limit(), CAP as usize);
        // Large elements: one per refill by default.
        assert_eq!(Batch::<[u64; 512]>::new(CAP).limit(), 1);
    }
}
