//! What a queue's non-real-time reader counted: public, kept in the
//! reader's record for a successor ([`crate::resume`]), and reported by
//! the queues ([`crate::qrtwo`], [`crate::qrtwc`]).

/// Lost elements and retries seen by a queue's non-real-time reader.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReaderStats {
    /// Elements read.
    pub received: u64,
    /// Elements the writer overwrote or discarded before they were read.
    pub lost: u64,
    /// Refills started over because the writer overwrote every element
    /// copied while they were being copied.
    pub retries: u64,
    /// Times the shared state was found impossible (a foreign write).
    pub corruptions: u64,
}
