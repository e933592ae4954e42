//! Moving plain data through shared words without data races.
//!
//! A channel slot is a run of `AtomicU64` words. Values go in and out with
//! relaxed atomic word accesses, never with `memcpy`: a reader that overlaps
//! a writer (the seqlock-style channels, or any channel whose peer is a
//! crashed or hostile process) then reads a possibly torn value, which the
//! protocol detects and discards, but never commits a data race, which Rust
//! would treat as undefined behaviour.
//!
//! That is why elements are [`bytemuck::Pod`]: no padding (every byte is
//! initialized, so it can be carried in a `u64`) and every bit pattern is a
//! valid value (so what a hostile peer wrote is a wrong value, never an
//! invalid one). Use integer fields where you would use `bool` or an enum.

use crate::sync::{AtomicU64, Ordering};
use bytemuck::Pod;

/// The element types a channel carries: plain data, `Copy`, no padding,
/// valid for every bit pattern. Derive it with
/// `#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)] #[repr(C)]`.
pub trait Element: Pod + Send {}
impl<T: Pod + Send> Element for T {}

/// Number of 64-bit words one element occupies (at least one, so that
/// zero-sized elements still have a slot to publish through).
pub(crate) const fn words_for<T>() -> usize {
    let n = std::mem::size_of::<T>().div_ceil(8);
    if n == 0 { 1 } else { n }
}

/// Writes `value` into `slot` word by word (relaxed; ordering is the
/// caller's fences and counters).
#[inline]
pub(crate) fn store<T: Element>(slot: &[AtomicU64], value: &T) {
    let bytes = bytemuck::bytes_of(value);
    let mut chunks = bytes.chunks_exact(8);
    // Chunks first: `zip` pulls from its first iterator first, so the word
    // for the remainder is not consumed when the chunks run out.
    let mut words = slot.iter();
    for (chunk, word) in (&mut chunks).zip(&mut words) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        word.store(u64::from_ne_bytes(b), Ordering::Relaxed);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 8];
        b[..rest.len()].copy_from_slice(rest);
        if let Some(word) = words.next() {
            word.store(u64::from_ne_bytes(b), Ordering::Relaxed);
        }
    }
}

/// Reads an element out of `slot` word by word (relaxed). The result may be
/// torn if a writer overlapped; the caller validates before trusting it.
#[inline]
pub(crate) fn load<T: Element>(slot: &[AtomicU64]) -> T {
    let mut value = T::zeroed();
    let bytes = bytemuck::bytes_of_mut(&mut value);
    let mut chunks = bytes.chunks_exact_mut(8);
    // Chunks first: `zip` pulls from its first iterator first, so the word
    // for the remainder is not consumed when the chunks run out.
    let mut words = slot.iter();
    for (chunk, word) in (&mut chunks).zip(&mut words) {
        chunk.copy_from_slice(&word.load(Ordering::Relaxed).to_ne_bytes());
    }
    let rest = chunks.into_remainder();
    if let (false, Some(word)) = (rest.is_empty(), words.next()) {
        let b = word.load(Ordering::Relaxed).to_ne_bytes();
        let n = rest.len();
        rest.copy_from_slice(&b[..n]);
    }
    value
}
