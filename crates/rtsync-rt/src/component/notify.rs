//! The notification manager's queue (paper 001, Sect. 5.2 and Fig. 6):
//! requests waiting for a component's thread, served highest priority
//! first and, among equal priorities, first come first served.
//!
//! A binary max-heap keyed by `(priority, Reverse(arrival))`: the arrival
//! number makes every key distinct, so the heap's order is total and FIFO
//! among equals needs no stable heap. Push and pop are `O(log n)`
//! (paper 001 bounds them by 468 cycles at 100 waiters; `rtsync bench
//! components` measures ours against the queue's size). The heap is
//! written here rather than taken from `std::collections::BinaryHeap`
//! only to keep the arrival counter and the entries in one structure; its
//! sift operations are the textbook ones (Williams 1964).

use std::cmp::Reverse;

/// Waiting requests, the highest priority first, FIFO among equals.
#[derive(Debug)]
pub struct NotifyQueue<T> {
    heap: Vec<(u64, Reverse<u64>, T)>,
    arrivals: u64,
}

impl<T> Default for NotifyQueue<T> {
    fn default() -> Self {
        NotifyQueue {
            heap: Vec::new(),
            arrivals: 0,
        }
    }
}

impl<T> NotifyQueue<T> {
    /// An empty queue with room for `n` waiters (no allocation while it
    /// holds at most `n`).
    pub fn with_capacity(n: usize) -> Self {
        NotifyQueue {
            heap: Vec::with_capacity(n),
            arrivals: 0,
        }
    }

    /// Waiting requests.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nobody waits.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The priority of the request served next.
    pub fn top(&self) -> Option<u64> {
        self.heap.first().map(|e| e.0)
    }

    /// Enters a request of priority `prio` (larger first).
    pub fn push(&mut self, prio: u64, item: T) {
        let key = Reverse(self.arrivals);
        self.arrivals += 1;
        self.heap.push((prio, key, item));
        self.sift_up(self.heap.len() - 1);
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let up = (i - 1) / 2;
            if Self::before(&self.heap[i], &self.heap[up]) {
                self.heap.swap(i, up);
                i = up;
            } else {
                break;
            }
        }
    }

    /// Takes the request served next: the highest priority, the earliest
    /// among equals.
    pub fn pop(&mut self) -> Option<T> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        self.heap.swap(0, n - 1);
        let out = self.heap.pop().map(|e| e.2);
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut best = i;
            if l < n && Self::before(&self.heap[l], &self.heap[best]) {
                best = l;
            }
            if r < n && Self::before(&self.heap[r], &self.heap[best]) {
                best = r;
            }
            if best == i {
                break;
            }
            self.heap.swap(i, best);
            i = best;
        }
        out
    }

    /// Takes out every request `gone` names (requesters that gave up), in
    /// no particular order.
    pub fn remove_if(&mut self, mut gone: impl FnMut(&T) -> bool) -> Vec<T> {
        let mut out = Vec::new();
        let mut kept = Vec::with_capacity(self.heap.len());
        for e in self.heap.drain(..) {
            if gone(&e.2) {
                out.push(e.2);
            } else {
                kept.push(e);
            }
        }
        // Re-heapify what is left (rare: only after a requester gave up).
        for e in kept {
            self.heap.push(e);
            self.sift_up(self.heap.len() - 1);
        }
        out
    }

    fn before(a: &(u64, Reverse<u64>, T), b: &(u64, Reverse<u64>, T)) -> bool {
        (a.0, a.1) > (b.0, b.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn paper_order_priority_then_arrival() {
        // comp-queue's order: M1 and M2 (2) wait, then H (3) arrives.
        let mut q = NotifyQueue::default();
        q.push(2, "M2");
        q.push(2, "M1");
        q.push(3, "H");
        assert_eq!(q.top(), Some(3));
        assert_eq!(q.pop(), Some("H"));
        assert_eq!(q.pop(), Some("M2"));
        assert_eq!(q.pop(), Some("M1"));
        assert_eq!(q.pop(), None);
    }

    proptest! {
        /// Against a stable sort: priority descending, arrival ascending,
        /// with pushes and pops interleaved.
        #[test]
        fn pops_in_priority_then_fifo_order(ops in proptest::collection::vec((0u64..4, any::<bool>()), 0..200)) {
            let mut q = NotifyQueue::default();
            let mut model: Vec<(u64, usize)> = Vec::new();
            for (i, (p, pop)) in ops.into_iter().enumerate() {
                if pop {
                    let want = model
                        .iter()
                        .enumerate()
                        .max_by_key(|(_, (p, a))| (*p, Reverse(*a)))
                        .map(|(k, _)| k);
                    let want = want.map(|k| model.remove(k).1);
                    prop_assert_eq!(q.pop(), want);
                } else {
                    q.push(p, i);
                    model.push((p, i));
                }
                prop_assert_eq!(q.len(), model.len());
            }
        }

        #[test]
        fn removal_keeps_the_order_of_the_rest(ps in proptest::collection::vec(0u64..4, 0..60)) {
            let mut q = NotifyQueue::default();
            for (i, &p) in ps.iter().enumerate() {
                q.push(p, i);
            }
            let gone = q.remove_if(|&i| i % 3 == 0);
            prop_assert!(gone.iter().all(|i| i % 3 == 0));
            let mut rest: Vec<(u64, usize)> = ps.iter().copied().enumerate().filter(|(i, _)| i % 3 != 0).map(|(i, p)| (p, i)).collect();
            rest.sort_by_key(|&(p, i)| (Reverse(p), i));
            let got: Vec<usize> = std::iter::from_fn(|| q.pop()).collect();
            prop_assert_eq!(got, rest.into_iter().map(|x| x.1).collect::<Vec<_>>());
        }
    }
}
