//! An append-only log that a real-time path writes under a lock: the
//! domain's log (`Options::record`, under the bookkeeping lock every
//! thread of the domain takes) and each thread's trace (`Options::trace`).
//!
//! A `Vec` that doubles moves every entry it holds at each doubling, with
//! the lock held: on a long recorded run, milliseconds in which no thread
//! of the domain can lock anything. And space reserved ahead but not
//! touched faults its pages in one by one as the entries reach them, a
//! minor fault under the lock every hundred entries or so. A journal
//! instead keeps its entries in chunks of a fixed size, and the next chunk
//! ready: allocated, and its pages touched, outside any lock. An append
//! that fills a chunk takes the spare (moving one pointer) and says so
//! ([`Journal::wants_spare`]); its owner makes the next spare outside the
//! lock ([`fresh`]) and hands it over ([`Journal::give_spare`]) the next
//! time it takes the lock. Nothing is dropped: an append that finds no
//! spare (a whole chunk written before its owner could make one) makes it
//! there and then, and counts it ([`Journal::made_late`]).
//!
//! Resident memory: two chunks per journal, touched when made.

/// Entries per chunk: 4096 entries of the log (32 bytes each) are 128 KiB,
/// a new chunk made every thousand lock operations or so.
pub(crate) const CHUNK: usize = 4096;

/// Room for this many chunks in the list of chunks before the list itself
/// must grow (under the lock, moving one pointer per chunk): 4 M entries
/// at [`CHUNK`].
const CHUNKS: usize = 1024;

/// Spare chunks a journal holds at most: one is all its owner makes, but
/// two threads may each make one where an append had to make one late.
const SPARES: usize = 4;

/// An append-only sequence in chunks (see the module's documentation).
pub(crate) struct Journal<T> {
    /// Full chunks, then the one being written.
    chunks: Vec<Vec<T>>,
    /// Chunks made ahead, each empty with its pages touched.
    spares: Vec<Vec<T>>,
    /// Entries per chunk.
    chunk: usize,
    /// Appends that found no spare and made a chunk, or grew the list of
    /// chunks, with the lock held.
    late: u64,
}

/// A chunk of `chunk` entries, made now and its pages touched (each entry
/// written with `filler`), empty: appends up to `chunk` need neither an
/// allocation nor a page fault.
pub(crate) fn fresh<T: Copy>(chunk: usize, filler: T) -> Vec<T> {
    let mut v = Vec::with_capacity(chunk);
    v.resize(chunk, filler);
    v.clear();
    v
}

impl<T: Copy> Journal<T> {
    /// A journal of `chunk` entries per chunk, its first chunk and a
    /// spare made now (`filler` touches their pages).
    pub(crate) fn new(chunk: usize, filler: T) -> Journal<T> {
        let chunk = chunk.max(1);
        let mut chunks = Vec::with_capacity(CHUNKS);
        chunks.push(fresh(chunk, filler));
        let mut spares = Vec::with_capacity(SPARES);
        spares.push(fresh(chunk, filler));
        Journal {
            chunks,
            spares,
            chunk,
            late: 0,
        }
    }

    /// A journal that holds nothing and makes nothing until written (for
    /// a domain that keeps no log: it is never written).
    pub(crate) fn off() -> Journal<T> {
        Journal {
            chunks: Vec::new(),
            spares: Vec::new(),
            chunk: CHUNK,
            late: 0,
        }
    }

    /// Appends `x`: within the chunk being written, or at the start of a
    /// spare, moved to the list; made here only where no spare is left.
    pub(crate) fn push(&mut self, x: T) {
        let full = self.chunks.last().is_none_or(|c| c.len() == c.capacity());
        if full {
            let next = self.spares.pop().unwrap_or_else(|| {
                self.late += 1;
                Vec::with_capacity(self.chunk)
            });
            if self.chunks.len() == self.chunks.capacity() {
                self.late += 1;
            }
            self.chunks.push(next);
        }
        if let Some(c) = self.chunks.last_mut() {
            c.push(x);
        }
    }

    /// Whether the journal, once written, has no spare left: its owner
    /// should make one ([`fresh`]) outside the lock and hand it over.
    pub(crate) fn wants_spare(&self) -> bool {
        !self.chunks.is_empty() && self.spares.is_empty()
    }

    /// Keeps `spare` (made by [`fresh`] with this journal's chunk size) for
    /// a later append; gives it back where the journal holds enough
    /// already, for the caller to drop once it lets the lock go.
    pub(crate) fn give_spare(&mut self, spare: Vec<T>) -> Option<Vec<T>> {
        // Within the room reserved: keeping it allocates nothing.
        if self.spares.len() < self.spares.capacity() && spare.capacity() >= self.chunk {
            self.spares.push(spare);
            None
        } else {
            Some(spare)
        }
    }

    /// Entries per chunk, for the owner's [`fresh`].
    pub(crate) fn chunk(&self) -> usize {
        self.chunk
    }

    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// The entries in order, chunk by chunk.
    pub(crate) fn parts(&self) -> impl Iterator<Item = &[T]> {
        self.chunks.iter().map(Vec::as_slice)
    }

    /// Appends that had to allocate with the lock held (no spare left, or
    /// the list of chunks full): zero where the owner hands a spare over
    /// after each one taken.
    pub(crate) fn made_late(&self) -> u64 {
        self.late
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries come back in order across chunks, none lost, and an owner
    /// that hands a spare over whenever one is wanted makes none late.
    #[test]
    fn entries_come_back_in_order_and_a_refilled_journal_makes_none_late() {
        let mut j = Journal::new(7, 0u32);
        for x in 0..1000 {
            j.push(x);
            if j.wants_spare() {
                assert_eq!(j.give_spare(fresh(j.chunk(), 0)), None);
            }
        }
        assert_eq!(j.len(), 1000);
        let all: Vec<u32> = j.parts().flatten().copied().collect();
        assert_eq!(all, (0..1000).collect::<Vec<_>>());
        assert!(j.parts().all(|p| p.len() <= 7));
        assert_eq!(j.made_late(), 0);
        // Every chunk kept the capacity it was made with: no chunk grew.
        assert!(j.chunks.iter().all(|c| c.capacity() == 7));
    }

    /// Without refills the journal still keeps every entry, and counts
    /// each chunk it had to make itself.
    #[test]
    fn an_unrefilled_journal_loses_nothing_and_counts_what_it_made() {
        let mut j = Journal::new(5, 0u8);
        for x in 0..23u8 {
            j.push(x);
        }
        assert_eq!(
            j.parts().flatten().copied().collect::<Vec<_>>(),
            (0..23).collect::<Vec<_>>()
        );
        // Five chunks: the first, the spare, three made late.
        assert_eq!(j.made_late(), 3);
    }

    /// A spare beyond what the journal keeps, or one too small, is given
    /// back; an unwritten journal holds nothing.
    #[test]
    fn spares_beyond_the_room_or_too_small_are_given_back() {
        let mut j = Journal::new(4, 0u8);
        for _ in 1..SPARES {
            assert_eq!(j.give_spare(fresh(4, 0)), None);
        }
        assert!(j.give_spare(fresh(4, 0)).is_some());
        let mut k = Journal::new(4, 0u8);
        k.push(1);
        assert!(k.give_spare(fresh(2, 0)).is_some());
        let mut off = Journal::<u8>::off();
        assert_eq!(off.len(), 0);
        assert_eq!(off.parts().count(), 0);
        assert!(!off.wants_spare());
        assert!(off.give_spare(fresh(CHUNK, 0)).is_some());
    }
}
