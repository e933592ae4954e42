//! QrtWo: a queue from a real-time writer to a non-real-time reader; when
//! the queue is full the writer overwrites the oldest element (paper 002,
//! Sec. IV-C).
//!
//! The paper packs the head index with "overwrite" and "changing" bits and
//! has the writer move the head with compare-and-swap; the reader retries
//! while those bits change. We derive a simpler protocol from 64-bit
//! counters (see `crate::ring`): the writer always writes element `tail`
//! into slot `tail % capacity`, bracketed by its progress word. Writing over
//! element `tail - capacity` is exactly "overwrite the oldest" when the
//! queue is full, and harmless when the reader has consumed it. The writer
//! therefore reads nothing shared and has no branch on the reader's state:
//! a store, a release fence, the slot's words, a release store. The reader keeps
//! its own position: if the writer is more than `capacity` ahead it skips
//! (and counts) what was overwritten, and it discards (and counts) copies
//! that the writer overlapped (`crate::ring::overwritten`). It copies up
//! to a batch of elements per look at the writer's progress, which keeps
//! it off the writer's cache line ([`Reader::set_batch`]).
//!
//! Shared state: control line 0 word 0 = the writer's progress (twice the
//! elements published, plus one while writing).
//!
//! ## Use
//!
//! Between threads:
//!
//! ```
//! use rtsync_channels::qrtwo;
//!
//! // The real-time side never waits: past the capacity it overwrites the
//! // oldest element, and the reader is told how many it lost.
//! let (mut tx, mut rx) = qrtwo::channel::<u64>(4);
//! for i in 0..6 {
//!     tx.write(i);
//! }
//! let first = std::thread::spawn(move || rx.read()).join().unwrap().unwrap();
//! assert_eq!((first.value, first.lost_before), (2, 2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Between processes: the real-time process makes a sealed segment and
//! serves it by name; the other opens it by that name (here in the same
//! process, as another process would).
//!
//! ```
//! use rtsync_channels::shm::Segment;
//! use rtsync_channels::{Kind, qrtwo};
//!
//! let name = format!("doc-qrtwo-{}", std::process::id());
//! let mut seg = Segment::<u64>::create(Kind::QrtWo, 4)?;
//! seg.publish(&name)?;
//! let mut rt = qrtwo::Writer::attach(&seg)?;
//! let theirs = Segment::<u64>::open(&name, Kind::QrtWo, 4)?;
//! let mut rx = qrtwo::Reader::attach(&theirs)?;
//! rt.write(7);
//! assert_eq!(rx.read().map(|r| r.value), Some(7));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::marker::PhantomData;
use std::sync::Arc;

use crate::cursor::Cursor;
use crate::element::{self, Element};
use crate::region::{Addr, Kind, Layout, Region};
use crate::ring::{Batch, Losses, Lossy, Progress, Received, published};
use crate::sync::Ordering;

/// A new in-process QrtWo queue holding up to `capacity` elements.
pub fn channel<T: Element>(capacity: u64) -> (Writer<T>, Reader<T>) {
    let region = Arc::new(Region::heap(Layout::new::<T>(Kind::QrtWo, capacity, 0)));
    (Writer::new(region.clone()), Reader::new(region))
}

/// The real-time side.
pub struct Writer<T> {
    /// Keeps the words alive; the write path uses only the addresses below.
    _region: Arc<Region>,
    progress: Addr,
    slots: Addr,
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
            progress: region.ctrl_addr(0, 0),
            slots: region.slots::<T>(),
            _region: region,
            tail,
            slot,
            _t: PhantomData,
        }
    }

    /// Enqueues `value`, overwriting the oldest element if the queue is
    /// full. Constant time: no loop, no load of shared memory.
    #[inline]
    pub fn write(&mut self, value: T) {
        // SAFETY: `_region` keeps the word and the slots alive; `slot`
        // was made with its capacity (`new`).
        let (word, slot) = unsafe { (self.progress.word(), self.slots.slot::<T>(&self.slot)) };
        self.tail.begin(word);
        element::store(slot, &value);
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
    q: Lossy<T>,
}

impl<T: Element> Reader<T> {
    attach_to_segment!(Kind::QrtWo, "non-real-time reader");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        let capacity = region.layout.capacity;
        let tail = published(region.ctrl(0, 0).load(Ordering::Acquire));
        // A first reader starts at the oldest element still held (the ones
        // before it were never its to lose); a successor of a reader that
        // was killed resumes after the last element handed out, and what
        // was overwritten meanwhile is counted lost by the first read.
        let (losses, next) = Losses::attach(&region, tail.saturating_sub(capacity), tail);
        Reader {
            q: Lossy {
                region,
                next: Cursor::new(next, capacity),
                capacity,
                losses,
                batch: Batch::new(capacity),
            },
        }
    }

    /// The oldest element not yet read, or `None` if the queue is empty.
    /// Elements come from the reader's batch while it lasts; a refill
    /// copies up to a batch of the oldest elements still in the ring,
    /// counts as lost those the writer overwrote before or during the copy,
    /// and starts over (a retry) only if it lost every element it copied.
    pub fn read(&mut self) -> Option<Received<T>> {
        if let Some(r) = self.q.batch.deliver(&mut self.q.losses, &self.q.region) {
            return Some(r);
        }
        let tail = self.q.region.ctrl(0, 0);
        loop {
            let published = published(tail.load(Ordering::Acquire));
            if published < self.q.next.count() {
                // Impossible unless a foreign write rewound the counter.
                self.q.losses.stats.corruptions += 1;
                self.q.next.jump(published);
                return None;
            }
            if published == self.q.next.count() {
                return None;
            }
            if published - self.q.next.count() > self.q.capacity {
                let skipped = published - self.q.capacity - self.q.next.count();
                self.q.losses.lose(skipped);
                self.q.next.jump(published - self.q.capacity);
            }
            let available = published - self.q.next.count();
            let (next, lost) = self.q.batch.fill(
                &self.q.region,
                tail,
                self.q.next,
                available,
                self.q.capacity,
            );
            self.q.next = next;
            self.q.losses.lose(lost);
            if let Some(r) = self.q.batch.hand_out(&mut self.q.losses, &self.q.region) {
                return Some(r);
            }
        }
    }

    batch_and_stats!();
}
