//! Errors the channels report.

use std::fmt;

/// The real-time side found the shared state impossible under the protocol
/// (an index out of range, a counter that went backwards or ran past the
/// capacity). Only a crashed or hostile peer writing into a shared segment
/// can cause it; the operation was abandoned without touching any memory
/// outside the segment, and the channel keeps working if the peer recovers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corrupt;

impl fmt::Display for Corrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "channel state is corrupt: the peer wrote values the protocol cannot produce \
             (a crashed or hostile process shares this segment); the operation was abandoned",
        )
    }
}

impl std::error::Error for Corrupt {}

/// An SDrtW read found the writer in the middle of one write for longer
/// than [`crate::sdrtw::STALL`]: a writer takes nanoseconds, so it died
/// or was stopped mid-write (or a foreign write left the sequence odd).
/// Nothing whole can be read until it writes again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stalled;

impl fmt::Display for Stalled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "the real-time writer stopped in the middle of a write (it died, or is stopped); \
             nothing whole can be read until it writes again",
        )
    }
}

impl std::error::Error for Stalled {}

/// A bounded queue refused an element because it is full; the element is
/// handed back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full<T>(pub T);

impl<T> fmt::Display for Full<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("queue is full: the real-time reader has not freed a slot yet; retry later")
    }
}

impl<T: fmt::Debug> std::error::Error for Full<T> {}
