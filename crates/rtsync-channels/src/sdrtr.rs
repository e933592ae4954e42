//! SDrtR: the latest value, from a non-real-time writer to a real-time
//! reader (paper 002, Sec. IV-A).
//!
//! The paper uses a double buffer and makes the writer busy-wait with a
//! compare-and-swap while the reader holds the buffer it wants to publish.
//! We use three slots instead (a triple buffer) and drop that wait: at every
//! moment the writer owns one slot, the reader owns one, and the third sits
//! in the shared `back` word together with a FRESH bit. Publishing is one
//! swap of `back`; the reader takes the back slot with one swap only when
//! FRESH is set. Neither side ever loops, so both are wait-free, and the
//! reader finishes in at most one load, one swap and one slot copy. One
//! more slot of memory buys a writer that cannot be starved by a reader
//! that reads in a tight loop (the double buffer's CAS can fail forever).
//!
//! Shared state (control line 0, word 0): `back = slot | FRESH`. A fresh
//! segment is all zeros: slot 0 in the back, not fresh; the writer starts
//! owning slot 1 and the reader slot 2.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::element::{self, Element};
use crate::error::Corrupt;
use crate::region::{Kind, Layout, Region};
use crate::sync::{AtomicU64, Ordering};

const FRESH: u64 = 4;
const INDEX: u64 = 3;

/// A new in-process SDrtR channel.
pub fn channel<T: Element>() -> (Writer<T>, Reader<T>) {
    let region = Arc::new(Region::heap(Layout::new::<T>(Kind::SdrtR, 1, 0)));
    (Writer::new(region.clone()), Reader::new(region))
}

fn back(region: &Region) -> &AtomicU64 {
    region.ctrl(0, 0)
}

/// The non-real-time side: publishes values.
pub struct Writer<T> {
    region: Arc<Region>,
    owned: usize,
    corrupt: u64,
    _t: PhantomData<fn(T)>,
}

impl<T: Element> Writer<T> {
    attach_to_segment!(Kind::SdrtR, "non-real-time writer");

    pub(crate) fn new(region: Arc<Region>) -> Self {
        Writer {
            region,
            owned: 1,
            corrupt: 0,
            _t: PhantomData,
        }
    }

    /// Publishes `value` as the latest. Wait-free: one slot copy and one
    /// swap.
    pub fn write(&mut self, value: T) {
        element::store(self.region.slot(self.owned), &value);
        let old = back(&self.region).swap(self.owned as u64 | FRESH, Ordering::AcqRel);
        let index = old & INDEX;
        if old & !(FRESH | INDEX) != 0 || index == INDEX || index as usize == self.owned {
            // Only a foreign write into the segment produces this. Take the
            // slot that is neither ours nor the one just published.
            self.corrupt += 1;
            self.owned = (self.owned + 1) % 3;
        } else {
            self.owned = index as usize;
        }
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
            if old & !(FRESH | INDEX) != 0 || index == INDEX || index as usize == self.owned {
                return Err(Corrupt);
            }
            self.owned = index as usize;
            self.has_data = true;
        }
        if !self.has_data {
            return Ok(None);
        }
        Ok(Some(element::load(self.region.slot(self.owned))))
    }
}
