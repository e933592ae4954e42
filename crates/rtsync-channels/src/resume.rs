//! What the non-real-time side leaves in the segment for a successor: a
//! peer process may be killed at any instruction (SIGKILL, the OOM killer)
//! and started again, and the channel must go on with nothing lost that it
//! cannot count.
//!
//! The record lives in its own lines after the control lines
//! ([`crate::region::Layout`]). The real-time side never reads it, with one
//! exception that costs it a single store to a line only it writes: the
//! SDrtR reader's slot ([`crate::sdrtr`]).
//!
//! Word use, by channel (a segment holds one kind):
//! - queue readers (QrtWo, QrtWc): words 0..13, a [`Saved`] batch and
//!   counters written at each refill, double-buffered so that a kill
//!   between two stores leaves the previous consistent copy, and word
//!   [`DELIVERED`], the position after the last element handed out, one
//!   store per element (six stores per element made a reader that keeps
//!   up with a flat-out writer keep a tenth of what it kept before);
//! - SDrtR writer: word [`SDRTR_WRITER`], its slot journal;
//! - SDrtW readers: word [`SDRTW_LAST`], the newest version any reader of
//!   the segment returned.
//!
//! A hostile peer can write here as anywhere else: every value loaded is
//! checked, and an impossible record is counted as a corruption and
//! ignored (the successor starts as a first reader would).

use crate::region::Region;
use crate::stats::ReaderStats;
use crate::sync::Ordering;

/// Words per copy of a queue reader's [`Saved`].
const COPY_WORDS: usize = 6;
/// Record word: the position after the last element a queue reader
/// handed out.
pub(crate) const DELIVERED: usize = 1 + 2 * COPY_WORDS;
/// Record word of the SDrtR writer's journal.
pub(crate) const SDRTR_WRITER: usize = DELIVERED + 1;
/// Record word holding the newest SDrtW version a reader returned.
pub(crate) const SDRTW_LAST: usize = SDRTR_WRITER + 1;

/// A queue reader's counters and batch as of its last refill: the intact
/// elements `base..end` were copied out of the ring, and `received`
/// counts what was handed out before them.
///
/// Every element before `base` was either received or lost, counted from
/// `start`, the first element the segment's readers were responsible for
/// (a reader that attaches late is not charged for what went before):
/// `lost = base - start - received`, so the loss count needs no word of
/// its own and cannot disagree with the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Saved {
    pub start: u64,
    pub base: u64,
    pub end: u64,
    pub received: u64,
    pub retries: u64,
    pub corruptions: u64,
}

/// Where a successor resumes: everything before `next` was received or
/// lost, as `stats` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resumed {
    pub start: u64,
    pub next: u64,
    pub stats: ReaderStats,
}

impl Saved {
    /// A first reader's record: nothing received or lost before `start`.
    pub(crate) fn fresh(start: u64, corruptions: u64) -> Saved {
        Saved {
            start,
            base: start,
            end: start,
            corruptions,
            ..Saved::default()
        }
    }

    /// Where to resume, given the position after the last element handed
    /// out (`delivered`): within the batch, the elements before it were
    /// received; before the batch, none of it was (the previous batch was
    /// done before this one was taken); beyond it is impossible.
    pub(crate) fn resume(&self, delivered: u64) -> Option<Resumed> {
        let handed = match delivered {
            d if d < self.base => 0,
            d if d <= self.end => d - self.base,
            _ => return None,
        };
        let received = self.received + handed;
        Some(Resumed {
            start: self.start,
            next: self.base + handed,
            stats: ReaderStats {
                received,
                lost: self.base - self.start - self.received,
                retries: self.retries,
                corruptions: self.corruptions,
            },
        })
    }

    fn possible(&self) -> bool {
        self.start <= self.base && self.base <= self.end && self.received <= self.base - self.start
    }
}

/// The queue reader's side of the record: which copy is current, so the
/// next save writes the other one.
#[derive(Debug)]
pub(crate) struct Journal {
    current: u64,
}

impl Journal {
    /// Loads the record a predecessor left: `Ok(None)` if there is none,
    /// `Err(())` if it is impossible (a foreign write).
    pub(crate) fn load(region: &Region) -> (Journal, Result<Option<Saved>, ()>) {
        let current = region.record(0).load(Ordering::Acquire);
        let journal = Journal {
            current: if current == 1 { 1 } else { 2 },
        };
        let saved = match current {
            0 => Ok(None),
            1 | 2 => {
                let base = 1 + (current as usize - 1) * COPY_WORDS;
                let w = |i: usize| region.record(base + i).load(Ordering::Relaxed);
                let s = Saved {
                    start: w(0),
                    base: w(1),
                    end: w(2),
                    received: w(3),
                    retries: w(4),
                    corruptions: w(5),
                };
                if s.possible() { Ok(Some(s)) } else { Err(()) }
            }
            _ => Err(()),
        };
        (journal, saved)
    }

    /// Writes `s` into the copy not in use, then makes it current with one
    /// store: a process killed anywhere in here leaves one whole copy.
    pub(crate) fn save(&mut self, region: &Region, s: &Saved) {
        let other = 3 - self.current;
        let base = 1 + (other as usize - 1) * COPY_WORDS;
        for (i, v) in [s.start, s.base, s.end, s.received, s.retries, s.corruptions]
            .into_iter()
            .enumerate()
        {
            region.record(base + i).store(v, Ordering::Relaxed);
        }
        // Release: the copy's words are in place before the switch, for a
        // successor that loads the switch with acquire.
        region.record(0).store(other, Ordering::Release);
        self.current = other;
    }

    /// The position after the last element handed out, as a successor
    /// reads it.
    pub(crate) fn delivered(region: &Region) -> u64 {
        region.record(DELIVERED).load(Ordering::Acquire)
    }

    /// Every element before `position` was handed out or lost. Release:
    /// a successor that sees this position also sees the refill's record
    /// it belongs to.
    #[inline]
    pub(crate) fn mark(region: &Region, position: u64) {
        region.record(DELIVERED).store(position, Ordering::Release);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::region::{Kind, Layout};

    fn region() -> Region {
        Region::heap(Layout::new::<u64>(Kind::QrtWo, 8, 0))
    }

    #[test]
    fn a_saved_record_comes_back_and_alternates_copies() {
        let r = region();
        let (mut j, none) = Journal::load(&r);
        assert_eq!(none, Ok(None));
        let a = Saved {
            start: 3,
            base: 10,
            end: 14,
            received: 5,
            retries: 1,
            corruptions: 0,
        };
        j.save(&r, &a);
        assert_eq!(r.record(0).load(Ordering::Relaxed), 1);
        let b = Saved {
            base: 16,
            end: 20,
            received: 9,
            ..a
        };
        j.save(&r, &b);
        assert_eq!(r.record(0).load(Ordering::Relaxed), 2);
        assert_eq!(Journal::load(&r).1, Ok(Some(b)));
    }

    /// Hand-worked: elements 3..16 passed before the batch 16..20, 9 of
    /// them received (so 4 lost).
    #[test]
    fn a_successor_resumes_inside_the_batch() {
        let b = Saved {
            start: 3,
            base: 16,
            end: 20,
            received: 9,
            retries: 2,
            corruptions: 0,
        };
        // Two of the batch handed out (16 and 17): resume at 18.
        let r = b.resume(18).unwrap();
        assert_eq!((r.next, r.stats.received, r.stats.lost), (18, 11, 4));
        // The position left by the previous batch: none of this one.
        let r = b.resume(14).unwrap();
        assert_eq!((r.next, r.stats.received, r.stats.lost), (16, 9, 4));
        // All of it.
        assert_eq!(b.resume(20).unwrap().next, 20);
        // Beyond the batch: impossible.
        assert_eq!(b.resume(21), None);
    }

    #[test]
    fn a_save_cut_short_leaves_the_previous_copy() {
        let r = region();
        let (mut j, _) = Journal::load(&r);
        let a = Saved::fresh(4, 0);
        j.save(&r, &a);
        // A successor's view if the process died after writing the other
        // copy's words but before switching: the old copy stands.
        for i in 0..COPY_WORDS {
            r.record(1 + COPY_WORDS + i).store(99, Ordering::Relaxed);
        }
        assert_eq!(Journal::load(&r).1, Ok(Some(a)));
    }

    #[test]
    fn impossible_records_are_refused() {
        let r = region();
        r.record(0).store(7, Ordering::Relaxed);
        assert_eq!(Journal::load(&r).1, Err(()));
        r.record(0).store(1, Ordering::Relaxed);
        // start 5, base 3: base before start.
        r.record(1).store(5, Ordering::Relaxed);
        r.record(2).store(3, Ordering::Relaxed);
        r.record(3).store(3, Ordering::Relaxed);
        assert_eq!(Journal::load(&r).1, Err(()));
        // More received than elements passed.
        r.record(1).store(0, Ordering::Relaxed);
        r.record(4).store(4, Ordering::Relaxed);
        assert_eq!(Journal::load(&r).1, Err(()));
        // A batch that ends before it begins.
        r.record(4).store(0, Ordering::Relaxed);
        r.record(3).store(2, Ordering::Relaxed);
        assert_eq!(Journal::load(&r).1, Err(()));
    }
}
