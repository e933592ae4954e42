//! Asking for a slot's cache line, in the state a write needs, before the
//! writer gets there.
//!
//! Why a queue's writer wants this: every slot line it writes was last
//! read by the other core, so each one must first be taken back from that
//! core's cache. Left to the store itself, that request waits in the store
//! buffer behind the element's other stores, and the core can have only a
//! few lines in flight before it stalls. Asking for the line several lines
//! ahead (`PREFETCHW` on x86-64) overlaps those transfers with the writes
//! before it. Measured between two cores (docs/PERFORMANCE.md, "Why QrtR's
//! writer claims lines ahead"), the same QrtR code moved 0.6x rtrb's
//! elements per second without it and 1.9x (a consumer that drains in
//! bursts) to 5x (one that reads flat out) with it. A read prefetch
//! (`PREFETCHT0`, what `_mm_prefetch` gives without the `prfchw` target
//! feature) made it worse: the line then arrives shared and the store must
//! still ask for it again.
//!
//! A prefetch is a hint: it never faults, changes no value, and is one
//! instruction, so it keeps a side's step count bounded. Only lines the
//! caller knows are free are asked for: taking a line the reader has not
//! read yet would make the reader fetch it back.

use crate::element::words_for;
use crate::sync::AtomicU64;

/// How far ahead of the slot being written to ask: eight 64-byte lines.
/// Four lines ahead gained less, sixteen less again under a flat-out
/// reader (the measurements above).
const AHEAD_BYTES: usize = 512;

/// Slots ahead of the one being written whose line a writer of `T` asks
/// for: at least one.
pub(crate) const fn ahead<T>() -> usize {
    let slot_bytes = 8 * words_for::<T>();
    if AHEAD_BYTES / slot_bytes == 0 {
        1
    } else {
        AHEAD_BYTES / slot_bytes
    }
}

/// Whether slot `slot` of a queue of `T` is the first to start in its
/// 64-byte line (lines counted from slot 0, which the layout aligns to a
/// line): a writer asks once per line, not once per element.
#[inline]
pub(crate) fn starts_line<T>(slot: usize) -> bool {
    let words = words_for::<T>();
    (slot * words) % 8 < words
}

/// Whether this CPU has a write prefetch. Checked once per handle: on
/// x86-64, CPUID leaf 0x8000_0001, ECX bit 8 (PRFCHW; Linux shows it as
/// `3dnowprefetch`).
pub(crate) fn available() -> bool {
    #[cfg(all(target_arch = "x86_64", not(loom)))]
    {
        use std::arch::x86_64::__cpuid;
        // Both leaves exist on every x86-64 CPU; bit 8 says PREFETCHW.
        let max_extended = __cpuid(0x8000_0000).eax;
        max_extended >= 0x8000_0001 && __cpuid(0x8000_0001).ecx & (1 << 8) != 0
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom))))]
    {
        false
    }
}

/// Asks for the line holding `word` in the state a write needs. Call only
/// where [`available`] said yes.
#[inline]
pub(crate) fn for_write(word: &AtomicU64) {
    #[cfg(all(target_arch = "x86_64", not(loom)))]
    // SAFETY: PREFETCHW (present: the caller checked `available`) reads
    // and writes no memory, architecturally: it cannot fault, and `word`
    // is a live reference anyway. It touches no flags and no stack.
    unsafe {
        std::arch::asm!(
            "prefetchw [{}]",
            in(reg) word as *const AtomicU64,
            options(nostack, preserves_flags, readonly)
        );
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom))))]
    let _ = word;
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_writer_asks_about_eight_lines_ahead_whatever_the_element() {
        assert_eq!(ahead::<u64>(), 64);
        assert_eq!(ahead::<[u64; 3]>(), 21);
        assert_eq!(ahead::<[u64; 64]>(), 1);
        assert_eq!(ahead::<[u64; 100]>(), 1);
    }

    #[test]
    fn one_slot_per_line_asks() {
        let firsts: Vec<usize> = (0..24).filter(|&s| starts_line::<u64>(s)).collect();
        assert_eq!(firsts, vec![0, 8, 16]);
        // Three-word slots start at words 0, 3, 6, 9, 12, 15, 18, 21, 24:
        // slots 3, 6 and 8 (words 9, 18 and 24) are the first to start in
        // lines 1, 2 and 3.
        let firsts: Vec<usize> = (0..9).filter(|&s| starts_line::<[u64; 3]>(s)).collect();
        assert_eq!(firsts, vec![0, 3, 6, 8]);
        // Slots of a line or more: every one.
        assert!((0..5).all(starts_line::<[u64; 8]>));
        assert!((0..5).all(starts_line::<[u64; 9]>));
    }

    #[test]
    fn a_prefetch_changes_nothing() {
        let w = AtomicU64::new(41);
        if available() {
            for_write(&w);
        }
        assert_eq!(w.load(std::sync::atomic::Ordering::Relaxed), 41);
    }
}
