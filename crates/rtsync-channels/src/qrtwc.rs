//! QrtWc: a queue from a real-time writer to a non-real-time reader; when
//! the queue is full the writer discards its whole contents and starts over
//! with the new element (paper 002, Sec. IV-C).
//!
//! The paper's listing guards the slots with one 32-bit change counter and
//! lets the writer run over the reader's head; it can wrap (the paper says
//! so) and it cannot tell the reader how much was lost. We derive it from
//! 64-bit counters instead (see `crate::ring`): the writer owns `tail`
//! and a `floor` (the first element not discarded), the reader owns `head`
//! (the next element it will read). To write, the writer checks
//! `tail - max(head, floor)` against the capacity, with a cached `head`
//! that it reloads only when the cache says full; if the queue is full it
//! moves `floor` to `tail`, discarding everything unread, then writes the
//! slot and publishes `tail + 1`. The reader skips to `floor` when it is
//! behind it and counts the skip as lost, and, as in QrtWo, copies up to a
//! batch per look at the writer's progress and discards (and counts) the
//! copies the writer overlapped. `head` moves past a batch once it is
//! checked, so the writer sees those slots free.
//! The count is exact: every element written is either received, lost, or
//! still queued.
//!
//! The writer never trusts `head`: a value beyond `tail` (which only a
//! foreign write produces) is counted as corruption and treated as "the
//! reader has read everything".
//!
//! Shared state: control line 0 = [progress (twice the elements published,
//! plus one while writing), floor] (writer's), line 1 word 0
//! = head (reader's).
//!
//! ## Use
//!
//! Between threads:
//!
//! ```
//! use rtsync_channels::qrtwc;
//!
//! // The real-time side never waits: when the queue is full it clears it
//! // and starts again, and the reader is told how many it lost.
//! let (mut tx, mut rx) = qrtwc::channel::<u64>(4);
//! for i in 0..6 {
//!     tx.write(i);
//! }
//! let mut got = Vec::new();
//! while let Some(r) = rx.read() {
//!     got.push(r.value);
//! }
//! assert!(got.ends_with(&[5]) && rx.stats().lost > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Between processes: the real-time process makes a sealed segment and
//! serves it by name; the other opens it by that name (here in the same
//! process, as another process would).
//!
//! ```
//! use rtsync_channels::shm::Segment;
//! use rtsync_channels::{Kind, qrtwc};
//!
//! let name = format!("doc-qrtwc-{}", std::process::id());
//! let mut seg = Segment::<u64>::create(Kind::QrtWc, 4)?;
//! seg.publish(&name)?;
//! let mut rt = qrtwc::Writer::attach(&seg)?;
//! let theirs = Segment::<u64>::open(&name, Kind::QrtWc, 4)?;
//! let mut rx = qrtwc::Reader::attach(&theirs)?;
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

/// A new in-process QrtWc queue holding up to `capacity` elements.
pub fn channel<T: Element>(capacity: u64) -> (Writer<T>, Reader<T>) {
    let region = Arc::new(Region::heap(Layout::new::<T>(Kind::QrtWc, capacity, 0)));
    (Writer::new(region.clone()), Reader::new(region))
}

/// What one write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrote {
    /// The element was appended.
    Appended,
    /// The queue was full: this many unread elements were discarded first.
    Cleared(u64),
}

/// The real-time side.
pub struct Writer<T> {
    region: Arc<Region>,
    progress: Addr,
    slots: Addr,
    tail: Progress,
    floor: u64,
    head_seen: u64,
    /// `max(head_seen, floor) + capacity`: the tail at which the cached
    /// view says full, kept so the common write compares one word.
    room: u64,
    slot: Cursor,
    capacity: u64,
    discarded: u64,
    corrupt: u64,
    _t: PhantomData<fn(T)>,
}

impl<T: Element> Writer<T> {
    attach_to_segment!(Kind::QrtWc, "real-time writer");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        let tail = Progress::resume(region.ctrl(0, 0));
        let floor = region
            .ctrl(0, 1)
            .load(Ordering::Relaxed)
            .min(tail.published());
        let capacity = region.layout.capacity;
        Writer {
            progress: region.ctrl_addr(0, 0),
            slots: region.slots::<T>(),
            slot: Cursor::new(tail.published(), capacity),
            region,
            head_seen: floor,
            room: floor.saturating_add(capacity),
            tail,
            floor,
            capacity,
            discarded: 0,
            corrupt: 0,
            _t: PhantomData,
        }
    }

    /// Enqueues `value`, first discarding the unread contents if the queue
    /// is full. Constant time, no loop; the reader's counter is loaded only
    /// when the writer's cached copy of it says full.
    ///
    /// Always inlined: compiled as a function of its own, this write
    /// measured about 100 ns median (12 ns at best) against a reader that
    /// polls without pause, where the same instructions inlined into the
    /// caller take 8 (docs/PERFORMANCE.md). QrtWo's write, out of line,
    /// does not show it; no hardware counters were at hand to say why.
    #[inline(always)]
    pub fn write(&mut self, value: T) -> Wrote {
        let mut wrote = Wrote::Appended;
        if self.tail.published() >= self.room {
            wrote = self.make_room();
        }
        // SAFETY: `self.region` keeps the word and the slots alive; `slot`
        // was made with its capacity (`new`).
        let (word, slot) = unsafe { (self.progress.word(), self.slots.slot::<T>(&self.slot)) };
        self.tail.begin(word);
        element::store(slot, &value);
        self.tail.end(word);
        self.slot.step();
        wrote
    }

    /// The cached view says full: reloads the reader's counter, and clears
    /// the queue if it is full indeed. Runs about once per `capacity`
    /// writes while the reader keeps up; inlined all the same, since
    /// `#[cold] #[inline(never)]` measured 1-2 ns slower on every write.
    #[inline]
    fn make_room(&mut self) -> Wrote {
        let tail = self.tail.published();
        // The cached head can only be behind the real one, so it can only
        // overstate the occupancy.
        let head = self.region.ctrl(1, 0).load(Ordering::Acquire);
        if head > tail {
            self.corrupt += 1;
        } else {
            self.head_seen = self.head_seen.max(head);
        }
        let oldest = self.head_seen.max(self.floor);
        let mut wrote = Wrote::Appended;
        if tail - oldest >= self.capacity {
            wrote = Wrote::Cleared(tail - oldest);
            self.discarded += tail - oldest;
            self.floor = tail;
            // Release: a reader that sees this floor sees a tail at least
            // as large.
            self.region.ctrl(0, 1).store(self.floor, Ordering::Release);
        }
        // Saturating: counters near 2^64 come only from a scribbled segment.
        self.room = self.head_seen.max(self.floor).saturating_add(self.capacity);
        wrote
    }

    /// Elements written so far.
    pub fn written(&self) -> u64 {
        self.tail.published()
    }

    /// Unread elements discarded so far, as the writer saw them (the
    /// reader's count is exact; this one can exceed it by what the reader
    /// took while a clear was being decided).
    pub fn discarded(&self) -> u64 {
        self.discarded
    }

    /// How many times the reader's counter was found impossible.
    pub fn corruptions(&self) -> u64 {
        self.corrupt
    }
}

/// The non-real-time side.
pub struct Reader<T> {
    q: Lossy<T>,
}

impl<T: Element> Reader<T> {
    attach_to_segment!(Kind::QrtWc, "non-real-time reader");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        let capacity = region.layout.capacity;
        let head = region.ctrl(1, 0).load(Ordering::Relaxed);
        // The writer reuses the slots before `head`, so a successor of a
        // reader that was killed resumes there: the elements its
        // predecessor had copied out of the ring and not handed out are
        // counted lost (a head beyond the tail, or a record beyond the
        // head, comes only from a foreign write and is not trusted).
        let tail = published(region.ctrl(0, 0).load(Ordering::Acquire));
        let head = if head > tail { tail } else { head };
        let (mut losses, handed_out) = Losses::attach(&region, head, head);
        losses.lose(head - handed_out);
        Reader {
            q: Lossy {
                region,
                next: Cursor::new(head, capacity),
                capacity,
                losses,
                batch: Batch::new(capacity),
            },
        }
    }

    fn skip_to(&mut self, to: u64) {
        let skipped = to - self.q.next.count();
        self.q.losses.lose(skipped);
        self.q.next.jump(to);
        self.q.region.ctrl(1, 0).store(to, Ordering::Release);
    }

    /// The oldest element not yet read or discarded, or `None` if the queue
    /// is empty. Elements come from the reader's batch while it lasts; a
    /// refill works as in [`crate::qrtwo::Reader::read`].
    pub fn read(&mut self) -> Option<Received<T>> {
        if let Some(r) = self.q.batch.deliver(&mut self.q.losses, &self.q.region) {
            return Some(r);
        }
        loop {
            // Floor first: the tail loaded after it is at least the floor.
            let floor = self.q.region.ctrl(0, 1).load(Ordering::Acquire);
            let published = published(self.q.region.ctrl(0, 0).load(Ordering::Acquire));
            if published < self.q.next.count() || floor > published {
                self.q.losses.stats.corruptions += 1;
                return None;
            }
            if floor > self.q.next.count() {
                self.skip_to(floor);
            }
            if published == self.q.next.count() {
                return None;
            }
            if published - self.q.next.count() > self.q.capacity {
                // The writer cleared and refilled since the floor we
                // loaded: what lies before the last `capacity` elements is
                // gone.
                self.skip_to(published - self.q.capacity);
            }
            let available = published - self.q.next.count();
            let (next, lost) = self.q.batch.fill(
                &self.q.region,
                self.q.region.ctrl(0, 0),
                self.q.next,
                available,
                self.q.capacity,
            );
            self.q.next = next;
            self.q.losses.lose(lost);
            // Release: the copies are done before the writer may reuse
            // their slots.
            self.q
                .region
                .ctrl(1, 0)
                .store(self.q.next.count(), Ordering::Release);
            // After the head: a successor resumes at most at the head.
            if let Some(r) = self.q.batch.hand_out(&mut self.q.losses, &self.q.region) {
                return Some(r);
            }
        }
    }

    batch_and_stats!();
}
