//! The memory a channel lives in: a fixed array of 64-bit atomic words,
//! either on the heap (between threads) or in a sealed shared-memory
//! segment (between processes), with one layout for both.
//!
//! Layout, in words: an optional header line (shared memory only, see
//! [`crate::shm`]), two control lines (the writer's counters in line 0,
//! the reader's in line 1, so the two sides never write the same cache
//! line), the non-real-time side's record for a successor (see
//! [`crate::resume`]; the real-time side never touches it), then the
//! slots, `slot_words` words each. Latest-value channels with elements of
//! at most 16 bytes keep their slots beside their single control word
//! instead (see [`Layout::new`]).
//!
//! Every index a channel computes comes from this layout, which each side
//! computes from its own type parameters and capacity, never from anything
//! stored in the segment: a peer that scribbles over the segment can change
//! values, not where a side reads or writes.

use std::ptr::NonNull;

use crate::cursor::Cursor;
use crate::element::words_for;
use crate::sync::AtomicU64;

/// Words per cache line (128 bytes, the prefetch pair on x86). Under loom
/// each atomic is a modelled object, so lines shrink to the two words the
/// control lines need.
pub(crate) const LINE_WORDS: usize = if cfg!(loom) { 2 } else { 16 };

/// Which of the five protocols a segment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Latest value, non-real-time writer, real-time reader.
    SdrtR = 1,
    /// Latest value, real-time writer, non-real-time readers (seqlock).
    SdrtW = 2,
    /// Queue, real-time writer overwriting the oldest element when full.
    QrtWo = 3,
    /// Queue, real-time writer clearing the contents when full.
    QrtWc = 4,
    /// Queue, non-real-time writer refused when full, real-time reader.
    QrtR = 5,
}

impl Kind {
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn from_u64(v: u64) -> Option<Kind> {
        Some(match v {
            1 => Kind::SdrtR,
            2 => Kind::SdrtW,
            3 => Kind::QrtWo,
            4 => Kind::QrtWc,
            5 => Kind::QrtR,
            _ => return None,
        })
    }

    /// The paper's name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::SdrtR => "SDrtR",
            Kind::SdrtW => "SDrtW",
            Kind::QrtWo => "QrtWo",
            Kind::QrtWc => "QrtWc",
            Kind::QrtR => "QrtR",
        }
    }

    /// Whether the kind is a queue (with a capacity) rather than a latest
    /// value.
    pub fn is_queue(self) -> bool {
        matches!(self, Kind::QrtWo | Kind::QrtWc | Kind::QrtR)
    }

    /// Slots needed for `capacity` elements: the triple buffer needs three,
    /// the seqlock one, the queues one per element (64-bit counters tell
    /// full from empty, so no slot is sacrificed).
    fn slots(self, capacity: u64) -> u64 {
        match self {
            Kind::SdrtR => 3,
            Kind::SdrtW => 1,
            _ => capacity,
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where everything is, in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub kind: Kind,
    /// Elements a queue holds (1 for latest-value channels).
    pub capacity: u64,
    pub elem_size: usize,
    pub elem_align: usize,
    pub slot_words: usize,
    pub slots: usize,
    pub ctrl_start: usize,
    pub record_start: usize,
    pub slots_start: usize,
    pub total_words: usize,
}

/// Words of the non-real-time side's record ([`crate::resume`]).
pub(crate) const RECORD_WORDS: usize = 16;

/// Largest queue capacity accepted: keeps every size computation far from
/// overflow and a segment below a few GiB.
pub const MAX_CAPACITY: u64 = 1 << 26;

impl Layout {
    pub(crate) fn new<T>(kind: Kind, capacity: u64, header_words: usize) -> Layout {
        let capacity = if kind.is_queue() { capacity } else { 1 };
        assert!(
            (1..=MAX_CAPACITY).contains(&capacity),
            "queue capacity must be between 1 and {MAX_CAPACITY} elements, got {capacity}"
        );
        let slot_words = words_for::<T>();
        let slots = kind.slots(capacity) as usize;
        let ctrl_start = header_words;
        // Latest-value channels with small elements keep their slots in the
        // same 64-byte line as their control word (words 1..8 of control
        // line 0, which nothing else uses): a reader that finds a new value
        // then takes one cache miss, not two. Queues keep slots apart from
        // the counters, as rings do.
        // (Only where they end before control line 1, which the SDrtR
        // reader writes: always with 16-word lines, never under loom's
        // two-word lines.)
        let compact = !kind.is_queue() && slots * slot_words < 8.min(LINE_WORDS);
        let record_start = ctrl_start + 2 * LINE_WORDS;
        let record_end = record_start + RECORD_WORDS.div_ceil(LINE_WORDS) * LINE_WORDS;
        let slots_start = if compact { ctrl_start + 1 } else { record_end };
        let total_words = (slots_start + slots * slot_words).max(record_end);
        Layout {
            kind,
            capacity,
            elem_size: std::mem::size_of::<T>(),
            elem_align: std::mem::align_of::<T>(),
            slot_words,
            slots,
            ctrl_start,
            record_start,
            slots_start,
            total_words,
        }
    }

    /// A fingerprint of everything both sides must agree on (FNV-1a).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn hash(&self, version: u64) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for v in [
            version,
            self.kind as u64,
            self.capacity,
            self.elem_size as u64,
            self.elem_align as u64,
            self.slot_words as u64,
        ] {
            for b in v.to_le_bytes() {
                h ^= b as u64;
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        h
    }
}

/// One cache line of words, so heap regions start line-aligned.
#[cfg(not(loom))]
#[repr(C, align(128))]
struct Line([AtomicU64; LINE_WORDS]);

enum Backing {
    #[cfg(not(loom))]
    Heap(#[allow(dead_code)] Box<[Line]>),
    #[cfg(loom)]
    Heap(#[allow(dead_code)] Box<[AtomicU64]>),
    #[cfg(not(loom))]
    Shm(#[allow(dead_code)] crate::mapping::Mapping),
}

/// The words of one channel and its layout. Aligned to a cache-line pair
/// so that no other heap object (a reader's batch buffer allocated just
/// after it, say) shares the lines both sides read on every operation.
#[repr(align(128))]
pub(crate) struct Region {
    base: *const AtomicU64,
    len: usize,
    pub layout: Layout,
    _backing: Backing,
}

// SAFETY: the region is an array of atomics (shared-memory words are only
// ever accessed through `AtomicU64`); the backing is owned and freed once.
unsafe impl Send for Region {}
// SAFETY: as above; every access is atomic.
unsafe impl Sync for Region {}

impl Region {
    /// A zeroed heap region for `layout` (between threads; no header).
    pub(crate) fn heap(layout: Layout) -> Region {
        #[cfg(not(loom))]
        {
            let lines = layout.total_words.div_ceil(LINE_WORDS);
            let backing: Box<[Line]> = (0..lines)
                .map(|_| Line(std::array::from_fn(|_| AtomicU64::new(0))))
                .collect();
            let base = backing.as_ptr() as *const AtomicU64;
            Region {
                base,
                len: lines * LINE_WORDS,
                layout,
                _backing: Backing::Heap(backing),
            }
        }
        #[cfg(loom)]
        {
            let backing: Box<[AtomicU64]> =
                (0..layout.total_words).map(|_| AtomicU64::new(0)).collect();
            Region {
                base: backing.as_ptr(),
                len: backing.len(),
                layout,
                _backing: Backing::Heap(backing),
            }
        }
    }

    /// A region over a mapped segment whose size was checked against
    /// `layout` by the caller.
    #[cfg(not(loom))]
    pub(crate) fn shm(layout: Layout, mapping: crate::mapping::Mapping) -> Region {
        let base = mapping.as_ptr() as *const AtomicU64;
        let len = mapping.len() / 8;
        assert!(len >= layout.total_words, "mapping smaller than its layout");
        Region {
            base,
            len,
            layout,
            _backing: Backing::Shm(mapping),
        }
    }

    /// All words of the region.
    #[inline]
    pub(crate) fn words(&self) -> &[AtomicU64] {
        // SAFETY: `base` points to `len` initialized, suitably aligned
        // atomics owned by `_backing`, which lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }

    /// Control word `word` of control line `line` (0: writer's, 1: reader's).
    ///
    /// No bounds check on the region: every operation on both sides goes
    /// through here, and the layout already guarantees the index (below).
    /// The check on the arguments costs nothing, as every caller passes
    /// constants.
    #[inline]
    pub(crate) fn ctrl(&self, line: usize, word: usize) -> &AtomicU64 {
        assert!(line < 2 && word < LINE_WORDS, "control word out of range");
        let i = self.layout.ctrl_start + line * LINE_WORDS + word;
        debug_assert!(i < self.len);
        // SAFETY: `Layout::new` makes `total_words >= ctrl_start + 2 *
        // LINE_WORDS`, and both constructors give the region at least
        // `total_words` words, so `i < len`; see `words` for the rest.
        unsafe { &*self.base.add(i) }
    }

    /// Word `i` of the non-real-time side's record ([`crate::resume`]).
    #[inline]
    pub(crate) fn record(&self, i: usize) -> &AtomicU64 {
        assert!(i < RECORD_WORDS, "record word out of range");
        &self.words()[self.layout.record_start + i]
    }

    /// The address of control word `word` of line `line`, for a handle to
    /// keep ([`Addr`]).
    pub(crate) fn ctrl_addr(&self, line: usize, word: usize) -> Addr {
        Addr(NonNull::from(self.ctrl(line, word)))
    }

    /// The address of slot 0 of a queue of `T`, for a handle to keep and
    /// index with its cursor ([`Addr::slot`]).
    pub(crate) fn slots<T>(&self) -> Addr {
        assert!(
            self.layout.kind.is_queue() && self.layout.slot_words == words_for::<T>(),
            "not a queue of this element type"
        );
        debug_assert!(self.layout.slots_start < self.len);
        // SAFETY: `Layout::new` puts the slots inside `total_words`, which
        // `len` covers (both constructors).
        Addr(unsafe { NonNull::new_unchecked(self.base.add(self.layout.slots_start).cast_mut()) })
    }

    /// Slot `i` (the caller reduces `i` modulo the slot count it computed).
    #[inline]
    pub(crate) fn slot(&self, i: usize) -> &[AtomicU64] {
        let start = self.layout.slots_start + i * self.layout.slot_words;
        &self.words()[start..start + self.layout.slot_words]
    }
}

/// The address of a word of a region, resolved once. Each queue handle
/// keeps the addresses its every operation uses, so that an operation does
/// not first load the region's base and layout through the `Arc`: that
/// dependent load cost QrtR's real-time read about a nanosecond against
/// rtrb's pop, and the bounds checks the writers another
/// (docs/PERFORMANCE.md). Valid while the region lives: a handle keeps it
/// beside the `Arc<Region>` it came from.
#[derive(Clone, Copy)]
pub(crate) struct Addr(NonNull<AtomicU64>);

// SAFETY: an `Addr` points into a `Region`, which is `Send` and `Sync` (it
// holds only atomics); the handle that keeps it keeps the region alive.
unsafe impl Send for Addr {}
// SAFETY: as for `Send`.
unsafe impl Sync for Addr {}

impl Addr {
    /// The word.
    ///
    /// # Safety
    /// The region this came from is alive for `'a`.
    #[inline]
    pub(crate) unsafe fn word<'a>(self) -> &'a AtomicU64 {
        // SAFETY: the caller's promise; the address is of an initialized,
        // aligned atomic of that region.
        unsafe { self.0.as_ref() }
    }

    /// The slot `at` points to, this being the address of slot 0 of a queue
    /// of `T` ([`Region::slots`]). No bounds check: the cursor's invariant
    /// (`slot < capacity`) is the bound.
    ///
    /// # Safety
    /// The region this came from is alive for `'a`, and `at` was made with
    /// that region's capacity ([`Cursor::new`]).
    #[inline]
    pub(crate) unsafe fn slot<'a, T>(self, at: &Cursor) -> &'a [AtomicU64] {
        // SAFETY: `at.slot() < capacity` (the cursor's invariant), and the
        // caller's promise covers the rest.
        unsafe { self.slot_at::<T>(at.slot()) }
    }

    /// Slot `i`, this being the address of slot 0 of a queue of `T`.
    ///
    /// # Safety
    /// The region this came from is alive for `'a`, and `i` is below its
    /// capacity.
    #[inline]
    pub(crate) unsafe fn slot_at<'a, T>(self, i: usize) -> &'a [AtomicU64] {
        let words = words_for::<T>();
        // SAFETY: `i < capacity`, the region's slot count, and the layout
        // holds `capacity * words` words from slot 0 on, all inside the
        // region, alive for `'a` by the caller's promise.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().add(i * words), words) }
    }
}
