//! SDrtR: the latest value, from a non-real-time writer to a real-time
//! reader (paper 002, Sec. IV-A).
//!
//! The paper uses a double buffer and makes the writer busy-wait with a
//! compare-and-swap while the reader holds the buffer it wants to publish.
//! We use three slots instead (a triple buffer) and drop that wait: at every
//! moment the writer owns one slot, the reader owns one, and the third sits
//! in the shared `back` word together with a FRESH bit. Publishing
//! exchanges the writer's slot with the back one; the reader takes the
//! back slot with one swap only when FRESH is set. Neither side loops on
//! the other, so both are wait-free, and the reader finishes in at most
//! one load, one swap, one store and one slot copy. One more slot of
//! memory buys a writer that cannot be starved by a reader that reads in a
//! tight loop (the double buffer's CAS can fail forever).
//!
//! Shared state (control line 0, word 0): `back = slot | FRESH | holds`,
//! where `holds` (two bits, zero for "not said") is the slot the writer
//! took when it published. A fresh segment is all zeros: slot 0 in the
//! back, not fresh; the writer starts owning slot 1 and the reader slot 2.
//!
//! ## A writer that is killed and started again
//!
//! A plain triple buffer keeps each side's slot in that side's memory: a
//! writer process started again cannot tell which of the two slots
//! outside the back word is free and which the reader is copying, and a
//! wrong guess tears the reader's value. Three additions make the writer's
//! slot recoverable from the segment at any instant it may die:
//! - the writer publishes with a compare-and-swap that also writes
//!   `holds`, so a back word the reader has not yet taken names the
//!   writer's slot. The CAS fails only if the reader took the back slot
//!   since the writer loaded it, and then the reader cannot take again
//!   before the next publish: at most two attempts, still wait-free;
//! - the writer keeps a journal in the segment's record
//!   (`crate::resume`): "publishing slot w" before the CAS, "owns slot
//!   m" after it;
//! - the reader stores its slot (plus one; zero means slot 2) in its own
//!   control line after each take: one store, to a line nothing else
//!   writes, only when a new value arrives.
//!
//! [`Writer::attach`] then decides (`writer_slot`): "owns m" is
//! exact; after "publishing w", a fresh back word names the slot in
//! `holds` (set by this publish if it happened, by the previous one, whose
//! taken slot is w, if not); a taken back word with the reader on `w` means
//! the publish happened and the writer's slot is the third one, and with
//! the reader elsewhere that it did not. The one undecidable moment is a
//! reader between its swap and its store (its recorded slot is then the
//! back slot): the writer waits for that store, up to a second.
//!
//! ## Use
//!
//! Between threads:
//!
//! ```
//! use rtsync_channels::sdrtr;
//!
//! // The non-real-time side publishes; the real-time side takes the latest.
//! let (mut tx, mut rx) = sdrtr::channel::<[f64; 3]>();
//! assert_eq!(rx.read()?, None);
//! std::thread::spawn(move || tx.write([1.0, 0.5, 0.25])).join().unwrap();
//! assert_eq!(rx.read()?, Some([1.0, 0.5, 0.25]));
//! assert_eq!(rx.read()?, Some([1.0, 0.5, 0.25])); // still the latest
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Between processes: the real-time process makes a sealed segment and
//! serves it by name; the other opens it by that name (here in the same
//! process, as another process would).
//!
//! ```
//! use rtsync_channels::shm::Segment;
//! use rtsync_channels::{Kind, sdrtr};
//!
//! let name = format!("doc-sdrtr-{}", std::process::id());
//! let mut seg = Segment::<u64>::create(Kind::SdrtR, 1)?;
//! seg.publish(&name)?;
//! let mut rt = sdrtr::Reader::attach(&seg)?;
//! let theirs = Segment::<u64>::open(&name, Kind::SdrtR, 1)?;
//! let mut w = sdrtr::Writer::attach(&theirs)?;
//! w.write(7);
//! assert_eq!(rt.read()?, Some(7));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::marker::PhantomData;
use std::sync::Arc;

use crate::element::{self, Element};
use crate::error::Corrupt;
use crate::region::{Kind, Layout, Region};
use crate::resume;
use crate::sync::{AtomicU64, Ordering};

const FRESH: u64 = 4;
const INDEX: u64 = 3;
/// The `holds` field: the writer's slot plus one, zero when not said.
const HOLDS: u64 = 3 << 3;
const HOLDS_SHIFT: u32 = 3;
/// Journal entries (record word [`resume::SDRTR_WRITER`]); zero means the
/// writer never published and owns slot 1.
const PUBLISHING: u64 = 1 << 4;
const OWNS: u64 = 1 << 5;

/// A new in-process SDrtR channel.
pub fn channel<T: Element>() -> (Writer<T>, Reader<T>) {
    let region = Arc::new(Region::heap(Layout::new::<T>(Kind::SdrtR, 1, 0)));
    (Writer::new(region.clone()), Reader::new(region))
}

fn back(region: &Region) -> &AtomicU64 {
    region.ctrl(0, 0)
}

/// The reader's recorded slot (control line 1, word 0).
fn reader_word(region: &Region) -> &AtomicU64 {
    region.ctrl(1, 0)
}

fn journal(region: &Region) -> &AtomicU64 {
    region.record(resume::SDRTR_WRITER)
}

/// Whether a back word is one the protocol can produce (every `holds`
/// value can: zero, or a slot plus one).
fn possible(back: u64) -> bool {
    back & !(FRESH | INDEX | HOLDS) == 0 && back & INDEX != INDEX
}

/// What [`writer_slot`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// The writer owns this slot.
    Slot(usize),
    /// The reader is between its swap and its store: ask again.
    ReaderMidTake,
    /// The segment holds what the protocol cannot produce.
    Corrupt,
}

/// The slot a writer that died left as its own, from the journal, the back
/// word and the reader's recorded slot (module docs). Loads the back word
/// before the reader's word: a reader that takes in between leaves a back
/// word that is not fresh, which the decision handles as the later state.
pub(crate) fn writer_slot(region: &Region) -> Found {
    let entry = journal(region).load(Ordering::Acquire);
    let slot = (entry & INDEX) as usize;
    if entry == 0 {
        return Found::Slot(1);
    }
    if slot == 3 || (entry & !INDEX != OWNS && entry & !INDEX != PUBLISHING) {
        return Found::Corrupt;
    }
    if entry & OWNS != 0 {
        return Found::Slot(slot);
    }
    let b = back(region).load(Ordering::Acquire);
    if !possible(b) {
        return Found::Corrupt;
    }
    if b & FRESH != 0 {
        let holds = (b & HOLDS) >> HOLDS_SHIFT;
        return if holds == 0 {
            Found::Corrupt
        } else {
            Found::Slot(holds as usize - 1)
        };
    }
    let r = match reader_word(region).load(Ordering::Acquire) {
        0 => 2,
        v @ 1..=3 => v as usize - 1,
        _ => return Found::Corrupt,
    };
    let in_back = (b & INDEX) as usize;
    if r == in_back {
        Found::ReaderMidTake
    } else if r == slot {
        // The publish happened and the reader took it.
        Found::Slot(3 - slot - in_back)
    } else {
        Found::Slot(slot)
    }
}

/// The non-real-time side: publishes values.
pub struct Writer<T> {
    region: Arc<Region>,
    owned: usize,
    /// The back word as this writer last stored it.
    left: u64,
    corrupt: u64,
    _t: PhantomData<fn(T)>,
}

impl<T: Element> Writer<T> {
    /// Attaches the non-real-time writer to a shared segment made by
    /// [`crate::shm::Segment::create`] or opened with
    /// [`crate::shm::Segment::open`]. A writer started again after its
    /// predecessor was killed takes over the predecessor's slot (module
    /// docs); the reader goes on returning the last value published
    /// meanwhile. Fails with [`crate::shm::OpenError::Stalled`] only if the
    /// reader stays for a second between two of its instructions (a
    /// stopped reader process).
    #[cfg(not(loom))]
    pub fn attach(segment: &crate::shm::Segment<T>) -> Result<Self, crate::shm::OpenError> {
        let region = segment.region_for(Kind::SdrtR)?;
        Self::resume(region).ok_or(crate::shm::OpenError::Stalled(
            "the SDrtR reader stayed over a second between taking a value and recording it",
        ))
    }

    pub(crate) fn new(region: Arc<Region>) -> Self {
        Self::resume(region).expect("a fresh region has no reader mid-take")
    }

    /// A writer on `region`, in the slot its predecessor left; `None` if
    /// the reader stays mid-take.
    pub(crate) fn resume(region: Arc<Region>) -> Option<Self> {
        let mut corrupt = 0;
        #[cfg(not(loom))]
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        #[cfg(loom)]
        let mut spins = 0u32;
        let owned = loop {
            match writer_slot(&region) {
                Found::Slot(s) => break s,
                Found::Corrupt => {
                    // Only a foreign write gets here; any slot is as good.
                    corrupt += 1;
                    break 1;
                }
                Found::ReaderMidTake => {
                    #[cfg(not(loom))]
                    {
                        if std::time::Instant::now() > deadline {
                            return None;
                        }
                        std::thread::yield_now();
                    }
                    #[cfg(loom)]
                    {
                        spins += 1;
                        if spins > 100 {
                            return None;
                        }
                        loom::thread::yield_now();
                    }
                }
            }
        };
        Some(Writer {
            region,
            owned,
            left: 0,
            corrupt,
            _t: PhantomData,
        })
    }

    /// Publishes `value` as the latest. Wait-free: one slot copy, a
    /// compare-and-swap tried at most three times (a retry follows a take
    /// by the reader, who cannot take again before this publish, or the
    /// first publish after a takeover) and two journal stores that only a
    /// successor reads.
    pub fn write(&mut self, value: T) {
        self.publish(value, u8::MAX);
    }

    /// [`Writer::write`], stopping after `steps` of its four steps (copy,
    /// journal, compare-and-swap, journal): how the loom model kills a
    /// writer at each point.
    #[cfg(loom)]
    #[doc(hidden)]
    pub fn write_killed_after(&mut self, value: T, steps: u8) {
        self.publish(value, steps);
    }

    /// A writer started in this one's place, as [`Writer::attach`] makes
    /// it after a kill (for the loom model).
    #[cfg(loom)]
    #[doc(hidden)]
    pub fn successor(&self) -> Option<Writer<T>> {
        Self::resume(self.region.clone())
    }

    #[inline]
    fn publish(&mut self, value: T, steps: u8) {
        element::store(self.region.slot(self.owned), &value);
        if steps == 1 {
            return;
        }
        let journal = journal(&self.region);
        journal.store(PUBLISHING | self.owned as u64, Ordering::Release);
        if steps == 2 {
            return;
        }
        let word = back(&self.region);
        // The first try expects the back word as this writer left it; it
        // fails if the reader took since (or, once, after a takeover) and
        // returns the word to try with next. No separate load: besides
        // sparing one, it keeps loom exploring (a load ahead of the
        // exchange hid every other interleaving from it, tokio-rs/loom#166
        // and #392).
        let mut seen = self.left;
        let mut tries = 0;
        let old = loop {
            let holds = ((seen & INDEX) + 1) << HOLDS_SHIFT;
            let new = self.owned as u64 | FRESH | (holds & HOLDS);
            match word.compare_exchange(seen, new, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(old) => {
                    self.left = new;
                    break old;
                }
                Err(now) if tries < 2 => {
                    tries += 1;
                    seen = now;
                }
                // A fourth state in one publish: a foreign write.
                Err(_) => {
                    self.corrupt += 1;
                    self.left = self.owned as u64 | FRESH;
                    break word.swap(self.left, Ordering::AcqRel);
                }
            }
        };
        let index = old & INDEX;
        if !possible(old) || index as usize == self.owned {
            // Only a foreign write into the segment produces this. Take the
            // slot that is neither ours nor the one just published.
            self.corrupt += 1;
            self.owned = (self.owned + 1) % 3;
        } else {
            self.owned = index as usize;
        }
        if steps == 3 {
            return;
        }
        journal.store(OWNS | self.owned as u64, Ordering::Release);
    }

    /// How many times the shared state was found corrupt.
    pub fn corruptions(&self) -> u64 {
        self.corrupt
    }
}

/// The real-time side: reads the latest value without blocking or retrying.
pub struct Reader<T> {
    region: Arc<Region>,
    owned: usize,
    has_data: bool,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element> Reader<T> {
    attach_to_segment!(Kind::SdrtR, "real-time reader");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        Reader {
            region,
            owned: 2,
            has_data: false,
            _t: PhantomData,
        }
    }

    /// The latest value written, `None` before the first write. At most one
    /// load, one swap and one slot copy; no loop depends on the writer.
    ///
    /// `Err(Corrupt)` when the shared word holds a value the protocol
    /// cannot produce (only a foreign write into a shared segment does
    /// that); the reader keeps its slot and its last value.
    #[inline]
    pub fn read(&mut self) -> Result<Option<T>, Corrupt> {
        let word = back(&self.region);
        if word.load(Ordering::Relaxed) & FRESH != 0 {
            let old = word.swap(self.owned as u64, Ordering::AcqRel);
            let index = old & INDEX;
            if !possible(old) || index as usize == self.owned {
                return Err(Corrupt);
            }
            self.owned = index as usize;
            self.has_data = true;
            // For a writer started again (module docs). Relaxed: the
            // writer that reads it orders by the back word it loaded
            // first, and a stale value only makes it ask again.
            reader_word(&self.region).store(index + 1, Ordering::Relaxed);
        }
        if !self.has_data {
            return Ok(None);
        }
        Ok(Some(element::load(self.region.slot(self.owned))))
    }
}
