//! QrtWo: a queue from a real-time writer to a non-real-time reader; when
//! the queue is full the writer overwrites the oldest element (paper 002,
//! Sec. IV-C).
//!
//! The paper packs the head index with "overwrite" and "changing" bits and
//! has the writer move the head with compare-and-swap; the reader retries
//! while those bits change. We derive a simpler protocol from 64-bit
//! counters (see [`crate::ring`]): the writer always writes element `tail`
//! into slot `tail % capacity`, bracketed by its progress word. Writing over
//! element `tail - capacity` is exactly "overwrite the oldest" when the
//! queue is full, and harmless when the reader has consumed it. The writer
//! therefore reads nothing shared and has no branch on the reader's state:
//! a store, a release fence, the slot's words, a release store. The reader keeps
//! its own position: if the writer is more than `capacity` ahead it skips
//! (and counts) what was overwritten, and it discards a copy that the
//! writer overlapped ([`crate::ring::copy_intact`]) and starts over.
//!
//! Shared state: control line 0 word 0 = the writer's progress (twice the
//! elements published, plus one while writing).

use std::marker::PhantomData;
use std::sync::Arc;

use crate::element::{self, Element};
use crate::region::{Kind, Layout, Region};
use crate::ring::{Cursor, Losses, Progress, ReaderStats, Received, overwritten, published};
use crate::sync::Ordering;

/// A new in-process QrtWo queue holding up to `capacity` elements.
pub fn channel<T: Element>(capacity: u64) -> (Writer<T>, Reader<T>) {
    let region = Arc::new(Region::heap(Layout::new::<T>(Kind::QrtWo, capacity, 0)));
    (Writer::new(region.clone()), Reader::new(region))
}

/// The real-time side.
pub struct Writer<T> {
    region: Arc<Region>,
    tail: Progress,
    slot: Cursor,
    _t: PhantomData<fn(T)>,
}

impl<T: Element> Writer<T> {
    attach_to_segment!(Kind::QrtWo, "real-time writer");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        let tail = Progress::resume(region.ctrl(0, 0));
        let slot = Cursor::new(tail.published(), region.layout.capacity);
        Writer {
            region,
            tail,
            slot,
            _t: PhantomData,
        }
    }

    /// Enqueues `value`, overwriting the oldest element if the queue is
    /// full. Constant time: no loop, no load of shared memory.
    #[inline]
    pub fn write(&mut self, value: T) {
        let word = self.region.ctrl(0, 0);
        self.tail.begin(word);
        element::store(self.region.slot(self.slot.slot), &value);
        self.tail.end(word);
        self.slot.step();
    }

    /// Elements written so far.
    pub fn written(&self) -> u64 {
        self.tail.published()
    }
}

/// The non-real-time side.
pub struct Reader<T> {
    region: Arc<Region>,
    next: Cursor,
    capacity: u64,
    losses: Losses,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element> Reader<T> {
    attach_to_segment!(Kind::QrtWo, "non-real-time reader");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        let capacity = region.layout.capacity;
        let tail = published(region.ctrl(0, 0).load(Ordering::Acquire));
        Reader {
            region,
            // Attaching late starts at the oldest element still held; the
            // ones before it were never this reader's to lose.
            next: Cursor::new(tail.saturating_sub(capacity), capacity),
            capacity,
            losses: Losses::default(),
            _t: PhantomData,
        }
    }

    /// The oldest element not yet read, or `None` if the queue is empty.
    /// Retries (counted) while the writer overwrites the element being
    /// copied (the overwritten element counts as lost).
    pub fn read(&mut self) -> Option<Received<T>> {
        let tail = self.region.ctrl(0, 0);
        loop {
            let published = published(tail.load(Ordering::Acquire));
            if published < self.next.count {
                // Impossible unless a foreign write rewound the counter.
                self.losses.stats.corruptions += 1;
                self.next.jump(published);
                return None;
            }
            if published == self.next.count {
                return None;
            }
            if published - self.next.count > self.capacity {
                let skipped = published - self.capacity - self.next.count;
                self.losses.lose(skipped);
                self.next.jump(published - self.capacity);
            }
            let value: T = element::load(self.region.slot(self.next.slot));
            match overwritten(tail, self.next.count, self.capacity) {
                None => {
                    self.next.step();
                    return Some(self.losses.deliver(value));
                }
                Some(oldest) => {
                    // The copied element is gone; so is everything before
                    // `oldest`.
                    let skipped = oldest.max(self.next.count + 1) - self.next.count;
                    self.losses.lose(skipped);
                    self.next.jump(self.next.count + skipped);
                }
            }
            self.losses.stats.retries += 1;
            std::hint::spin_loop();
            #[cfg(loom)]
            loom::thread::yield_now();
        }
    }

    /// Counters since this reader was made.
    pub fn stats(&self) -> ReaderStats {
        self.losses.stats
    }
}
