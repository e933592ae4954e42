//! QrtR: a bounded queue from a non-real-time writer to a real-time reader
//! (paper 002, Sec. IV-D). The writer is refused with [`Full`] when the
//! queue is full; the reader never blocks or retries.
//!
//! A single-producer single-consumer ring over 64-bit counters (`tail`
//! written by the writer, `head` by the reader), so all `capacity` slots are
//! usable, unlike the paper's ring that keeps one empty. Each side caches
//! the other's counter and reloads it only when the cache says full (writer)
//! or empty (reader), the technique that makes rtrb fast.
//!
//! Both sides keep the addresses they use (`Addr`) and index slots by
//! their cursor, with no bounds check, so an operation is a handful of
//! instructions. That alone made the ring move fewer elements per second
//! between two cores, not more: a faster reader trails the writer more
//! closely and takes each slot line from it sooner. The writer therefore
//! asks for each slot line eight lines before it writes there
//! (`crate::prefetch`), once the reader is done with it; with that, the
//! fast operations are also the fast ring (docs/PERFORMANCE.md, "Why
//! QrtR's writer claims lines ahead").
//!
//! The reader, being the real-time side, never trusts `tail`: a value
//! behind its own position or more than `capacity` ahead (only a foreign
//! write produces either) is reported as [`Corrupt`] and nothing is read.
//!
//! Shared state: line 0 word 0 = tail (writer's), line 1 word 0 = head
//! (reader's).
//!
//! ## Use
//!
//! Between threads:
//!
//! ```
//! use rtsync_channels::qrtr;
//!
//! // The non-real-time side is refused when the queue is full; the
//! // real-time side reads without waiting.
//! let (mut tx, mut rx) = qrtr::channel::<u64>(2);
//! std::thread::spawn(move || {
//!     tx.write(1).unwrap();
//!     tx.write(2).unwrap();
//!     assert!(tx.write(3).is_err()); // full: handed back
//! })
//! .join()
//! .unwrap();
//! assert_eq!((rx.read()?, rx.read()?, rx.read()?), (Some(1), Some(2), None));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Between processes: the real-time process makes a sealed segment and
//! serves it by name; the other opens it by that name (here in the same
//! process, as another process would).
//!
//! ```
//! use rtsync_channels::shm::Segment;
//! use rtsync_channels::{Kind, qrtr};
//!
//! let name = format!("doc-qrtr-{}", std::process::id());
//! let mut seg = Segment::<u64>::create(Kind::QrtR, 4)?;
//! seg.publish(&name)?;
//! let mut rt = qrtr::Reader::attach(&seg)?;
//! let theirs = Segment::<u64>::open(&name, Kind::QrtR, 4)?;
//! let mut w = qrtr::Writer::attach(&theirs)?;
//! w.write(7).unwrap();
//! assert_eq!(rt.read()?, Some(7));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::marker::PhantomData;
use std::sync::Arc;

use crate::cursor::Cursor;
use crate::element::{self, Element};
use crate::error::{Corrupt, Full};
use crate::prefetch;
use crate::region::{Addr, Kind, Layout, Region};
use crate::sync::Ordering;

/// A new in-process QrtR queue holding up to `capacity` elements.
pub fn channel<T: Element>(capacity: u64) -> (Writer<T>, Reader<T>) {
    let region = Arc::new(Region::heap(Layout::new::<T>(Kind::QrtR, capacity, 0)));
    (Writer::new(region.clone()), Reader::new(region))
}

/// The non-real-time side.
pub struct Writer<T> {
    /// Keeps the words alive; the write path uses only the addresses below.
    _region: Arc<Region>,
    /// This side's counter (control line 0) and the reader's (line 1).
    tail_word: Addr,
    head_word: Addr,
    slots: Addr,
    tail: Cursor,
    head_seen: u64,
    capacity: u64,
    /// Whether this CPU can ask for a line ahead ([`prefetch`]).
    prefetch: bool,
    _t: PhantomData<fn(T)>,
}

impl<T: Element> Writer<T> {
    attach_to_segment!(Kind::QrtR, "non-real-time writer");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        let tail = region.ctrl(0, 0).load(Ordering::Relaxed);
        let head_seen = region.ctrl(1, 0).load(Ordering::Acquire).min(tail);
        let capacity = region.layout.capacity;
        Writer {
            tail_word: region.ctrl_addr(0, 0),
            head_word: region.ctrl_addr(1, 0),
            slots: region.slots::<T>(),
            _region: region,
            tail: Cursor::new(tail, capacity),
            head_seen,
            capacity,
            prefetch: prefetch::available(),
            _t: PhantomData,
        }
    }

    /// Enqueues `value`, or hands it back in `Full` if the reader has not
    /// freed a slot.
    #[inline]
    pub fn write(&mut self, value: T) -> Result<(), Full<T>> {
        // SAFETY: `_region` keeps the words alive; `tail` was made with its
        // capacity (`new`).
        let (tail_word, head_word, slot) = unsafe {
            (
                self.tail_word.word(),
                self.head_word.word(),
                self.slots.slot::<T>(&self.tail),
            )
        };
        if self.tail.count() - self.head_seen >= self.capacity {
            let head = head_word.load(Ordering::Acquire);
            // A head beyond the tail is impossible; keep the old view.
            if head <= self.tail.count() {
                self.head_seen = head;
            }
            if self.tail.count() - self.head_seen >= self.capacity {
                return Err(Full(value));
            }
        }
        self.claim_ahead();
        element::store(slot, &value);
        self.tail.step();
        tail_word.store(self.tail.count(), Ordering::Release);
        Ok(())
    }

    /// Once per line, asks for the slot line [`prefetch::ahead`] slots on
    /// ([`line_to_claim`]).
    #[inline]
    fn claim_ahead(&self) {
        if !self.prefetch {
            return;
        }
        if let Some(at) = line_to_claim::<T>(&self.tail, self.head_seen, self.capacity) {
            // SAFETY: `_region` keeps the slots alive, and `at < capacity`.
            prefetch::for_write(&unsafe { self.slots.slot_at::<T>(at) }[0]);
        }
    }

    /// Elements enqueued over the segment's life, by this writer and every
    /// writer before it: a writer process started again after a kill
    /// resumes here (an element its predecessor was killed while writing
    /// was never enqueued, and is written again by whoever writes next).
    pub fn written(&self) -> u64 {
        self.tail.count()
    }

    /// Elements the queue can take now without refusing (a lower bound).
    pub fn free(&self) -> u64 {
        self.capacity - (self.tail.count() - self.head_seen)
    }
}

/// The slot whose line a writer at `tail` asks for: the one
/// [`prefetch::ahead`] slots on, if that slot starts a line and the reader
/// is known (from `head_seen`, a lower bound on its position) to be done
/// with the element it held. Asking for a line the reader has yet to read
/// would make the reader fetch it back; a stale `head_seen` only makes the
/// writer skip a line.
#[inline]
fn line_to_claim<T>(tail: &Cursor, head_seen: u64, capacity: u64) -> Option<usize> {
    let ahead = prefetch::ahead::<T>();
    // Element `tail + ahead` goes where element `tail + ahead - capacity`
    // was: free once the reader is past it, that is when
    // `tail - head_seen + ahead < capacity` (`head_seen <= tail` always;
    // saturating, as counters found in a segment may be anything).
    if !prefetch::starts_line::<T>(tail.slot())
        || (tail.count() - head_seen).saturating_add(ahead as u64) >= capacity
    {
        return None;
    }
    // `ahead < capacity` here (as `tail >= head_seen`): one wrap suffices.
    let mut at = tail.slot() + ahead;
    if at as u64 >= capacity {
        at -= capacity as usize;
    }
    Some(at)
}

/// The real-time side.
pub struct Reader<T> {
    /// Keeps the words alive; the read path uses only the addresses below.
    _region: Arc<Region>,
    /// The writer's counter (control line 0) and this side's (line 1).
    tail_word: Addr,
    head_word: Addr,
    slots: Addr,
    head: Cursor,
    tail_seen: u64,
    capacity: u64,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element> Reader<T> {
    attach_to_segment!(Kind::QrtR, "real-time reader");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        let head = region.ctrl(1, 0).load(Ordering::Relaxed);
        let capacity = region.layout.capacity;
        Reader {
            tail_word: region.ctrl_addr(0, 0),
            head_word: region.ctrl_addr(1, 0),
            slots: region.slots::<T>(),
            _region: region,
            head: Cursor::new(head, capacity),
            tail_seen: head,
            capacity,
            _t: PhantomData,
        }
    }

    /// The oldest element, `None` if the queue is empty. At most one load
    /// of the writer's counter, one slot copy and one store; no loop.
    #[inline]
    pub fn read(&mut self) -> Result<Option<T>, Corrupt> {
        // SAFETY: `_region` keeps the words alive; `head` was made with its
        // capacity (`new`).
        let (tail_word, head_word, slot) = unsafe {
            (
                self.tail_word.word(),
                self.head_word.word(),
                self.slots.slot::<T>(&self.head),
            )
        };
        if self.head.count() == self.tail_seen {
            let tail = tail_word.load(Ordering::Acquire);
            if tail < self.head.count() || tail - self.head.count() > self.capacity {
                return Err(Corrupt);
            }
            self.tail_seen = tail;
            if self.head.count() == tail {
                return Ok(None);
            }
        }
        let value = element::load(slot);
        self.head.step();
        // Release: the copy above happens before the writer, which loads
        // this with acquire, reuses the slot. Without it the copy could
        // read the writer's next element (load buffering). loom does not
        // model load buffering, so its model passes with this store
        // relaxed: the ordering rests on this argument (docs/CHANNELS.md).
        head_word.store(self.head.count(), Ordering::Release);
        Ok(Some(value))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// Every slot the writer asks for, against a model of the queue: it is
    /// the slot of element `tail + ahead`, it starts a line, and the reader
    /// has consumed what it held; and where all three hold, it is asked.
    fn claims_match_the_model<T>() {
        let ahead = prefetch::ahead::<T>() as u64;
        for capacity in [1, 2, ahead - 1, ahead, ahead + 1, 100, 1000] {
            for tail in 0..3 * capacity + 20 {
                let cursor = Cursor::new(tail, capacity);
                for used in 0..=capacity.min(tail) {
                    let head_seen = tail - used;
                    let got = line_to_claim::<T>(&cursor, head_seen, capacity);
                    let target = tail + ahead;
                    let free = target < head_seen + capacity;
                    let starts = prefetch::starts_line::<T>((tail % capacity) as usize);
                    let want = (free && starts).then_some((target % capacity) as usize);
                    assert_eq!(
                        got, want,
                        "capacity {capacity}, tail {tail}, head {head_seen}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_writer_asks_only_for_lines_the_reader_is_done_with() {
        claims_match_the_model::<u64>();
        claims_match_the_model::<[u64; 3]>();
        claims_match_the_model::<[u64; 9]>();
    }

    /// The same through the queue: many laps of a ring larger than the
    /// distance ahead, at several fill levels, stay a FIFO.
    #[test]
    fn a_queue_that_claims_lines_ahead_stays_a_fifo() {
        for capacity in [65u64, 100, 1024] {
            let (mut tx, mut rx) = channel::<[u64; 3]>(capacity);
            let (mut next_in, mut next_out) = (0u64, 0u64);
            for lap in 0..12 {
                // Fill to a level that moves with the lap, then drain some.
                let fill = (lap * capacity / 5) % capacity + 1;
                while next_in - next_out < fill {
                    tx.write([next_in, !next_in, next_in * 3]).unwrap();
                    next_in += 1;
                }
                for _ in 0..fill / 2 + 1 {
                    let v = rx.read().unwrap().unwrap();
                    assert_eq!(v, [next_out, !next_out, next_out * 3]);
                    next_out += 1;
                }
            }
        }
    }
}
