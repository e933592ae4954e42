//! The process's allocator: mimalloc, asked through its plain entry points
//! wherever the alignment wanted is one its blocks have anyway.
//!
//! Why not `mimalloc::MiMalloc` itself: it sends every request to
//! `mi_malloc_aligned` and `mi_zalloc_aligned`, whose fast path covers
//! small blocks only; a zeroed table or a block past 1 KiB (a system's
//! per-task and per-resource tables are both) takes the aligned generic
//! path. An analysis sweep builds and drops such tables for every system
//! it looks at (`rtsync bench analysis`, docs/PERFORMANCE.md).
//!
//! The rule is the one Rust's own `System` allocator keeps: the plain
//! entry points where the alignment is at most mimalloc's guaranteed one
//! and at most the size (a block of at least 16 bytes starts on a 16-byte
//! boundary; a smaller one on a multiple of its size class, which is at
//! least the size rounded up to 8), the aligned ones otherwise.

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// mimalloc's alignment of every block of at least this many bytes
/// (`MI_MAX_ALIGN_SIZE`, `sizeof(max_align_t)` on the targets we build).
const GUARANTEED: usize = 16;

/// mimalloc behind the alignment rule above.
pub struct Mimalloc;

/// Whether a plain (unaligned) request of `size` bytes meets `align`.
fn plain(size: usize, align: usize) -> bool {
    align <= GUARANTEED && align <= size
}

// SAFETY: every path hands the layout's size to mimalloc, and where the
// plain entry points could return a block aligned below `layout.align()`
// the aligned ones are called instead; `mi_free` frees blocks of either.
unsafe impl GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's C entry points accept any size.
        unsafe {
            if plain(layout.size(), layout.align()) {
                mi::mi_malloc(layout.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if plain(layout.size(), layout.align()) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the trait's contract).
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`; the block keeps `layout.align()`.
        unsafe {
            if plain(new_size, layout.align()) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size and alignment a program asks for comes back aligned,
    /// fresh, zeroed where asked, and keeps its bytes through a
    /// reallocation that grows and one that shrinks. Sixty-four blocks of
    /// each layout at once, so that one block landing on a lucky address
    /// cannot pass for the rule (a 24-byte block asked 16-aligned, say).
    #[test]
    fn blocks_meet_their_alignment_on_both_paths() {
        let a = Mimalloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1usize, 3, 8, 12, 16, 24, 40, 1000, 1025, 5000, 70_000] {
                let l = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero sizes; every block is freed once, with
                // the layout it has then.
                unsafe {
                    let mut live = Vec::new();
                    for round in 0..64 {
                        let p = a.alloc(l);
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "size {size} align {align}");
                        for k in 0..size {
                            *p.add(k) = ((k + round) % 251) as u8;
                        }
                        live.push((p, round));
                    }
                    for (p, round) in live {
                        let (mut q, mut old) = (p, l);
                        for new in [size * 3, size / 2 + 1] {
                            q = a.realloc(q, old, new);
                            assert_eq!(
                                q as usize % align,
                                0,
                                "realloc {size}->{new} align {align}"
                            );
                            for k in 0..size.min(new) {
                                assert_eq!(*q.add(k), ((k + round) % 251) as u8);
                            }
                            old = Layout::from_size_align(new, align).unwrap();
                        }
                        a.dealloc(q, old);
                    }
                    let z = a.alloc_zeroed(l);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|k| *z.add(k) == 0));
                    a.dealloc(z, l);
                }
            }
        }
    }

    /// The rule itself: plain only where mimalloc's own alignment covers
    /// the request.
    #[test]
    fn the_plain_path_is_taken_only_where_it_aligns_enough() {
        assert!(plain(8, 8) && plain(24, 16) && plain(16, 16) && plain(3, 1));
        assert!(!plain(8, 16), "a block below 16 bytes is only 8-aligned");
        assert!(!plain(64, 32) && !plain(4096, 4096));
    }
}
