//! SDrtW: the latest value, from a real-time writer to any number of
//! non-real-time readers (paper 002, Sec. IV-B; Kopetz and Reisinger's
//! non-blocking write protocol, today called a seqlock).
//!
//! The writer makes the sequence word odd, writes the slot, makes it even
//! again. A reader copies the slot between two reads of the sequence word
//! and keeps the copy only if both reads agree and are even. Beyond the
//! paper's listing: the sequence is 64-bit (it cannot wrap in the life of a
//! system), the slot is copied with atomic word accesses and ordered with
//! fences (Boehm, "Can seqlocks get along with programming language memory
//! models?", 2012), so the overlapping read is not a data race, and the
//! writer keeps its own copy of the sequence: it never reads shared memory,
//! so nothing a reader (or a hostile process) writes can slow or mislead it.
//!
//! Shared state: control line 0 word 0 = sequence (0 = never written).
//!
//! ## Use
//!
//! Between threads:
//!
//! ```
//! use rtsync_channels::sdrtw;
//!
//! // The real-time side writes; any number of readers see the latest.
//! let (mut tx, rx) = sdrtw::channel::<[f32; 2]>();
//! tx.write([1.0, 0.5]);
//! tx.write([2.0, 0.75]);
//! let snap = std::thread::spawn(move || rx.read()).join().unwrap()?.unwrap();
//! assert_eq!(snap.value, [2.0, 0.75]);
//! assert_eq!(snap.version, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Between processes: the real-time process makes a sealed segment and
//! serves it by name; the other opens it by that name (here in the same
//! process, as another process would).
//!
//! ```
//! use rtsync_channels::shm::Segment;
//! use rtsync_channels::{Kind, sdrtw};
//!
//! let name = format!("doc-sdrtw-{}", std::process::id());
//! let mut seg = Segment::<u64>::create(Kind::SdrtW, 1)?;
//! seg.publish(&name)?;
//! let mut rt = sdrtw::Writer::attach(&seg)?;
//! let theirs = Segment::<u64>::open(&name, Kind::SdrtW, 1)?;
//! let rx = sdrtw::Reader::attach(&theirs)?;
//! rt.write(7);
//! assert_eq!(rx.read()?.map(|s| s.value), Some(7));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::marker::PhantomData;
use std::sync::Arc;

use crate::element::{self, Element};
use crate::error::Stalled;
use crate::region::{Kind, Layout, Region};
use crate::resume;
use crate::sync::{Ordering, fence};

/// How long a read waits for a writer that stays in the middle of one
/// write before it reports [`Stalled`] (later reads that find the same
/// write still unfinished report it at once). A real-time write takes tens
/// of nanoseconds; a writer in the middle of one for a second is stopped
/// or dead.
pub const STALL: std::time::Duration = std::time::Duration::from_secs(1);

/// A new in-process SDrtW channel.
pub fn channel<T: Element>() -> (Writer<T>, Reader<T>) {
    let region = Arc::new(Region::heap(Layout::new::<T>(Kind::SdrtW, 1, 0)));
    (Writer::new(region.clone()), Reader::new(region))
}

/// The real-time side: publishes values in a fixed number of steps.
pub struct Writer<T> {
    region: Arc<Region>,
    seq: u64,
    _t: PhantomData<fn(T)>,
}

impl<T: Element> Writer<T> {
    attach_to_segment!(Kind::SdrtW, "real-time writer");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        // Attaching to a segment that was written before continues its
        // sequence (rounded up to even), so readers never see it go back.
        let seq = region.ctrl(0, 0).load(Ordering::Relaxed);
        Writer {
            region,
            seq: seq.wrapping_add(seq & 1),
            _t: PhantomData,
        }
    }

    /// Publishes `value`. Two stores of the sequence word, one fence and the
    /// slot's words; no load of shared memory, no loop.
    #[inline]
    pub fn write(&mut self, value: T) {
        let seq = self.region.ctrl(0, 0);
        self.seq = self.seq.wrapping_add(1);
        seq.store(self.seq, Ordering::Relaxed);
        // Orders the odd sequence before the data stores: a reader that
        // sees any new word then sees the sequence change.
        fence(Ordering::Release);
        element::store(self.region.slot(0), &value);
        self.seq = self.seq.wrapping_add(1);
        seq.store(self.seq, Ordering::Release);
    }
}

/// A successful read: the value, how many times the reader had to start
/// over because the writer overlapped it, which write the value came from,
/// and how many writes no reader of this channel returned before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot<T> {
    /// The value read.
    pub value: T,
    /// Times the read started over because the writer overlapped it.
    pub retries: u32,
    /// The value is the one the `version`-th write published (from 1).
    pub version: u64,
    /// Writes between the newest version any reader of this channel had
    /// returned before and this one: values nobody saw. A reader process
    /// killed and started again continues from its predecessor's newest,
    /// so its first read counts what went by while no reader ran.
    pub missed: u64,
}

/// A non-real-time side; clone it for more readers.
pub struct Reader<T> {
    region: Arc<Region>,
    /// The sequence (plus one) this reader last found stalled: a read that
    /// finds it still there reports [`Stalled`] at once instead of waiting
    /// [`STALL`] again. Zero: none. This reader's own, not shared memory.
    #[cfg_attr(loom, allow(dead_code))]
    stalled: std::sync::atomic::AtomicU64,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Reader<T> {
    fn clone(&self) -> Self {
        Reader {
            region: self.region.clone(),
            stalled: std::sync::atomic::AtomicU64::new(0),
            _t: PhantomData,
        }
    }
}

impl<T: Element> Reader<T> {
    attach_to_segment!(Kind::SdrtW, "non-real-time reader");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        Reader {
            region,
            stalled: std::sync::atomic::AtomicU64::new(0),
            _t: PhantomData,
        }
    }

    /// One attempt: `Ok(Some)` with a consistent value, `Ok(None)` before
    /// the first write, `Err(())` when the writer overlapped. Not counted
    /// in [`Snapshot::missed`].
    #[inline]
    #[allow(clippy::result_unit_err)]
    pub fn try_read(&self) -> Result<Option<T>, ()> {
        self.attempt().map(|v| v.map(|(value, _)| value))
    }

    /// One attempt, with the (even) sequence number of the value.
    #[inline]
    fn attempt(&self) -> Result<Option<(T, u64)>, ()> {
        let seq = self.region.ctrl(0, 0);
        let before = seq.load(Ordering::Acquire);
        if before == 0 {
            return Ok(None);
        }
        if before & 1 == 1 {
            return Err(());
        }
        let value = element::load(self.region.slot(0));
        // Orders the data loads before the second sequence load: if any of
        // them saw a newer write, this load sees a newer sequence.
        fence(Ordering::Acquire);
        if seq.load(Ordering::Relaxed) == before {
            Ok(Some((value, before)))
        } else {
            Err(())
        }
    }

    /// Reads a consistent value, retrying while the writer overlaps
    /// (the non-real-time side may retry; the writer never waits), and
    /// records its version for [`Snapshot::missed`] in the segment's
    /// record, which the writer never reads. `Ok(None)` before the first
    /// write; `Err(Stalled)` when the writer stays in the middle of one
    /// write for [`STALL`] (it died or is stopped mid-write): a read never
    /// waits forever.
    pub fn read(&self) -> Result<Option<Snapshot<T>>, Stalled> {
        let mut retries = 0u32;
        #[cfg(not(loom))]
        let mut since: Option<(u64, std::time::Instant)> = None;
        loop {
            match self.attempt() {
                Ok(v) => {
                    return Ok(v.map(|(value, seq)| {
                        let version = seq / 2;
                        let newest = self
                            .region
                            .record(resume::SDRTW_LAST)
                            .fetch_max(version, Ordering::Relaxed);
                        Snapshot {
                            value,
                            retries,
                            version,
                            missed: version.saturating_sub(newest.saturating_add(1)),
                        }
                    }));
                }
                Err(()) => {
                    retries = retries.saturating_add(1);
                    std::hint::spin_loop();
                    #[cfg(loom)]
                    loom::thread::yield_now();
                    // Every 1,024 retries (and at the first), whether the
                    // writer has moved: the same odd sequence for STALL
                    // means it will not.
                    #[cfg(not(loom))]
                    if retries % 1024 == 1 {
                        use std::sync::atomic::Ordering::Relaxed as Mine;
                        let now = self.region.ctrl(0, 0).load(Ordering::Relaxed);
                        if self.stalled.load(Mine) == now.wrapping_add(1) {
                            return Err(Stalled);
                        }
                        match since {
                            Some((seq, at)) if seq == now => {
                                if at.elapsed() >= STALL {
                                    self.stalled.store(now.wrapping_add(1), Mine);
                                    return Err(Stalled);
                                }
                            }
                            _ => since = Some((now, std::time::Instant::now())),
                        }
                    }
                }
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_writer_dead_mid_write_stalls_a_read_for_stall_then_at_once_and_a_new_write_ends_it() {
        let (mut tx, rx) = channel::<u64>();
        tx.write(5);
        assert_eq!(rx.read().unwrap().map(|s| s.value), Some(5));
        // The writer dies between its two sequence stores: odd for good.
        let seq = rx.region.ctrl(0, 0);
        seq.store(seq.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        let t = Instant::now();
        assert_eq!(rx.read(), Err(Stalled));
        let first = t.elapsed();
        assert!(first >= STALL && first < STALL * 3, "{first:?}");
        // The same unfinished write again: at once; another reader waits
        // on its own.
        let t = Instant::now();
        assert_eq!(rx.read(), Err(Stalled));
        assert!(t.elapsed() < STALL / 10, "{:?}", t.elapsed());
        // A successor writer (its first store ends the odd run) is read.
        seq.store(seq.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        tx.write(7);
        assert_eq!(rx.read().unwrap().map(|s| s.value), Some(7));
    }
}
