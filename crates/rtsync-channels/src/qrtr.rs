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
//! The reader, being the real-time side, never trusts `tail`: a value
//! behind its own position or more than `capacity` ahead (only a foreign
//! write produces either) is reported as [`Corrupt`] and nothing is read.
//!
//! Shared state: line 0 word 0 = tail (writer's), line 1 word 0 = head
//! (reader's).

use std::marker::PhantomData;
use std::sync::Arc;

use crate::element::{self, Element};
use crate::error::{Corrupt, Full};
use crate::region::{Kind, Layout, Region};
use crate::ring::Cursor;
use crate::sync::Ordering;

/// A new in-process QrtR queue holding up to `capacity` elements.
pub fn channel<T: Element>(capacity: u64) -> (Writer<T>, Reader<T>) {
    let region = Arc::new(Region::heap(Layout::new::<T>(Kind::QrtR, capacity, 0)));
    (Writer::new(region.clone()), Reader::new(region))
}

/// The non-real-time side.
pub struct Writer<T> {
    region: Arc<Region>,
    tail: Cursor,
    head_seen: u64,
    capacity: u64,
    _t: PhantomData<fn(T)>,
}

impl<T: Element> Writer<T> {
    attach_to_segment!(Kind::QrtR, "non-real-time writer");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        let tail = region.ctrl(0, 0).load(Ordering::Relaxed);
        let head_seen = region.ctrl(1, 0).load(Ordering::Acquire).min(tail);
        let capacity = region.layout.capacity;
        Writer {
            region,
            tail: Cursor::new(tail, capacity),
            head_seen,
            capacity,
            _t: PhantomData,
        }
    }

    /// Enqueues `value`, or hands it back in `Full` if the reader has not
    /// freed a slot.
    #[inline]
    pub fn write(&mut self, value: T) -> Result<(), Full<T>> {
        if self.tail.count() - self.head_seen >= self.capacity {
            let head = self.region.ctrl(1, 0).load(Ordering::Acquire);
            // A head beyond the tail is impossible; keep the old view.
            if head <= self.tail.count() {
                self.head_seen = head;
            }
            if self.tail.count() - self.head_seen >= self.capacity {
                return Err(Full(value));
            }
        }
        element::store(self.region.slot(self.tail.slot()), &value);
        self.tail.step();
        self.region
            .ctrl(0, 0)
            .store(self.tail.count(), Ordering::Release);
        Ok(())
    }

    /// Elements the queue can take now without refusing (a lower bound).
    pub fn free(&self) -> u64 {
        self.capacity - (self.tail.count() - self.head_seen)
    }
}

/// The real-time side.
pub struct Reader<T> {
    region: Arc<Region>,
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
            region,
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
        if self.head.count() == self.tail_seen {
            let tail = self.region.ctrl(0, 0).load(Ordering::Acquire);
            if tail < self.head.count() || tail - self.head.count() > self.capacity {
                return Err(Corrupt);
            }
            self.tail_seen = tail;
            if self.head.count() == tail {
                return Ok(None);
            }
        }
        let value = element::load(self.region.slot(self.head.slot()));
        self.head.step();
        self.region
            .ctrl(1, 0)
            .store(self.head.count(), Ordering::Release);
        Ok(Some(value))
    }
}
