//! Where a ring's element goes: an element counter and its slot. Below
//! the layout ([`crate::region`] addresses slots with it) and the queues.

/// An element counter with its slot index kept beside it, so the hot path
/// steps with a compare instead of a 64-bit division (`%` by a capacity
/// known only at run time costs tens of cycles, more than the rest of an
/// operation).
///
/// Invariant: `slot == count % capacity`, so `slot < capacity`; the fields
/// are private so that only [`Cursor::new`], [`Cursor::step`] and
/// [`Cursor::jump`] move them. [`crate::region::Addr::slot`] relies on it
/// to skip the bounds check on the real-time paths.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor {
    count: u64,
    slot: usize,
    capacity: u64,
}

impl Cursor {
    /// A cursor at element `count` of a ring of `capacity` slots (at least
    /// 1). Give it the capacity of the region it will address: that is what
    /// [`crate::region::Addr::slot`] requires.
    pub(crate) fn new(count: u64, capacity: u64) -> Cursor {
        Cursor {
            count,
            slot: (count % capacity) as usize,
            capacity,
        }
    }

    #[inline]
    pub(crate) fn step(&mut self) {
        self.count += 1;
        self.slot += 1;
        if self.slot as u64 == self.capacity {
            self.slot = 0;
        }
    }

    pub(crate) fn jump(&mut self, to: u64) {
        *self = Cursor::new(to, self.capacity);
    }

    /// The element counter.
    #[inline]
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// The slot of element `count`: below the capacity.
    #[inline]
    pub(crate) fn slot(&self) -> usize {
        self.slot
    }
}
