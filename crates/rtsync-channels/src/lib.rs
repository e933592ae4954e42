//! Wait-free channels between one real-time thread and non-real-time
//! threads or processes (paper 002: Fernández et al., "Wait-free data
//! sharing between real-time and non-real-time threads"), in process memory
//! or in sealed shared memory.
//!
//! | channel | shape | real-time side | other side |
//! | --- | --- | --- | --- |
//! | [`sdrtr`] | latest value | reader: one load, at most one swap and one store | writer: one compare-and-swap (at most three tries) |
//! | [`sdrtw`] | latest value | writer: stores only | readers retry (seqlock) |
//! | [`qrtwo`] | queue, overwrite oldest when full | writer: stores only | reader copies in batches, counts what was overwritten |
//! | [`qrtwc`] | queue, clear when full | writer: one load when its cache says full, stores | reader copies in batches, counts what was cleared or overwritten |
//! | [`qrtr`] | queue, writer refused when full | reader: one load, one store | writer gets [`Full`] |
//!
//! The real-time side of every channel runs a fixed sequence of steps with
//! no loop that depends on the other side. Counters are 64-bit. The
//! algorithms are derived here, not transcribed (the paper's listings have
//! errors): each module says how and why it departs from the paper. All
//! five are model-checked with loom (`tests/loom.rs`).
//!
//! Between processes, [`shm::Segment`] creates a channel in a sealed memfd
//! and serves it by name over a Unix socket (mode 0600); the real-time side
//! never trusts what it reads there (see [`shm`]). A non-real-time peer
//! killed at any instruction and started again attaches to the same
//! segment and goes on, with what went by counted (see `resume` in the
//! sources and docs/CHANNELS.md).
//!
//! ```
//! let (mut tx, mut rx) = rtsync_channels::qrtr::channel::<u64>(16);
//! tx.write(7).unwrap();
//! assert_eq!(rx.read(), Ok(Some(7)));
//! assert_eq!(rx.read(), Ok(None));
//! ```

#![warn(missing_docs)]

#[cfg(not(target_os = "linux"))]
compile_error!(
    "rtsync-channels shares memory through sealed Linux memfds: it builds for Linux only"
);
/// The batch setting and the counters of a lossy queue's reader (QrtWo,
/// QrtWc), for a reader struct whose `q` is a `ring::Lossy`.
macro_rules! batch_and_stats {
    () => {
        /// Copies at most `n` elements out of the ring per refill (at least
        /// 1, at most the capacity; the default is 1 KiB's worth). Elements
        /// in a batch have left the ring: after a pause the reader first
        /// gets the rest of its batch, then the oldest survivors (and under
        /// QrtWc a clear no longer discards them). Takes effect at the next
        /// refill. 1 gives the freshest elements; larger batches look at the
        /// writer's counter less often, which spares the real-time writer
        /// cache misses when this reader polls without pause.
        pub fn set_batch(&mut self, n: usize) {
            self.q.batch.set_limit(n, self.q.capacity);
        }

        /// Elements copied per refill at most.
        pub fn batch(&self) -> usize {
            self.q.batch.limit()
        }

        /// Counters since the segment was made, summed over every reader
        /// that attached to it in turn (a reader process that was killed
        /// and started again continues its predecessor's counts).
        pub fn stats(&self) -> $crate::ReaderStats {
            self.q.losses.stats
        }
    };
}

/// `attach`: the constructor of a channel side over a shared segment.
macro_rules! attach_to_segment {
    ($kind:expr, $side:literal) => {
        #[doc = concat!("Attaches the ", $side, " to a shared segment made by [`crate::shm::Segment::create`] or opened with [`crate::shm::Segment::open`]. Attach each side once per segment.")]
        #[cfg(not(loom))]
        pub fn attach(segment: &crate::shm::Segment<T>) -> Result<Self, crate::shm::OpenError> {
            Ok(Self::new(segment.region_for($kind)?))
        }
    };
}

mod cursor;
mod element;
mod error;
#[cfg(not(loom))]
mod mapping;
mod prefetch;
mod region;
mod resume;
mod ring;
mod stats;
mod sync;

pub mod qrtr;
pub mod qrtwc;
pub mod qrtwo;
pub mod sdrtr;
pub mod sdrtw;
#[cfg(not(loom))]
pub mod shm;

pub use element::Element;
pub use error::{Corrupt, Full, Stalled};
pub use region::{Kind, MAX_CAPACITY};
pub use ring::Received;
pub use stats::ReaderStats;
