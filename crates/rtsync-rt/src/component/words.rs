//! The component threads' lock-free words, apart from the rest so that
//! loom can check them (`tests/loom.rs`, under `--cfg loom`, which
//! switches the atomics to loom's and the futex calls to no-ops).
//!
//! * [`Doorbell`]: how a request reaches a thread that may be asleep. The
//!   poster bumps `work` and wakes the thread only if it announced that it
//!   sleeps; the thread announces before its last look at `work`. Both
//!   sides are SeqCst (Dekker's pattern): either the poster sees the
//!   announcement and wakes, or the thread's last look sees the bump and
//!   it does not sleep. On one CPU a thread that replies is usually
//!   preempted by its requester before it announces, so the next request
//!   finds it awake and costs no wake-up call.
//!
//!   Each side is a store, a SeqCst fence, then a load of the other side's
//!   word: the fences are ordered, so the later of the two loads sees the
//!   earlier side's store (SeqCst *accesses* alone give the same on x86,
//!   but loom does not model them, tokio-rs/loom#180, and the fence form
//!   is the one the C++ model guarantees in general).
//! * [`FreeLanes`]: which threads of a pool are free, one bit each; a
//!   requester claims the lowest free one with a compare-and-swap; one
//!   that finds none sleeps on `freed` after announcing itself in
//!   `claiming`, and a thread that frees itself wakes only announced
//!   sleepers (the same pattern).
//! * [`Inbox`]: how requests reach a single thread at a fixed priority
//!   (paper 001's notification manager). Requesters push onto a stack
//!   with a compare-and-swap (Treiber 1986); the thread takes the whole
//!   stack with one swap and sorts the requests into a heap only it
//!   touches. No requester ever waits for another: a lock around a shared
//!   heap, even for the nanoseconds of a push, let a requester preempted
//!   on its CPU while holding it stall the server and the requesters of
//!   every other CPU for that CPU's busy period (priority inheritance
//!   cannot help across CPUs; `domain::books` says the same of the
//!   runtime's own lock). The taker alone swaps the head out, so no node
//!   is read after another thread freed it and no ABA arises.

#[cfg(loom)]
use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, fence};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, fence};
use std::time::Duration;

#[cfg(not(loom))]
fn wait(word: &AtomicU32, seen: u32, timeout: Duration) {
    crate::sys::futex_wait(word, seen, Some(timeout));
}

#[cfg(loom)]
fn wait(_: &AtomicU32, _: u32, _: Duration) {
    loom::thread::yield_now();
}

#[cfg(not(loom))]
fn wake(word: &AtomicU32, n: i32) {
    crate::sys::futex_wake(word, n);
}

#[cfg(loom)]
fn wake(_: &AtomicU32, _: i32) {}

/// A thread's request counter and whether it sleeps (module
/// documentation).
#[derive(Debug, Default)]
pub struct Doorbell {
    work: AtomicU32,
    asleep: AtomicBool,
}

impl Doorbell {
    /// Posts: bumps the counter, and wakes the thread if it announced
    /// sleep. Returns whether it woke it.
    pub fn ring(&self) -> bool {
        // Release: the request posted before the ring is seen by the
        // thread that sees the count move.
        self.work.fetch_add(1, Release);
        fence(SeqCst);
        let asleep = self.asleep.load(Relaxed);
        if asleep {
            wake(&self.work, 1);
        }
        asleep
    }

    /// The counter now.
    pub fn count(&self) -> u32 {
        self.work.load(Acquire)
    }

    /// The thread announces that it will sleep unless the counter moved
    /// from `seen`; returns whether it should sleep (then [`Doorbell::nap`],
    /// and [`Doorbell::up`] after, whichever it was).
    pub fn announce(&self, seen: u32) -> bool {
        self.asleep.store(true, Relaxed);
        fence(SeqCst);
        self.work.load(Acquire) == seen
    }

    /// Sleeps while the counter is `seen`, at most `timeout`.
    pub fn nap(&self, seen: u32, timeout: Duration) {
        wait(&self.work, seen, timeout);
    }

    /// The thread is awake again.
    pub fn up(&self) {
        self.asleep.store(false, Relaxed);
    }

    /// Wakes the thread whatever it announced (to stop it).
    pub fn shake(&self) {
        self.work.fetch_add(1, Release);
        wake(&self.work, 1);
    }
}

/// A pool's free threads, one bit each (module documentation).
#[derive(Debug)]
pub struct FreeLanes {
    free: AtomicU64,
    freed: AtomicU32,
    claiming: AtomicU32,
}

/// What [`FreeLanes::claim`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// This lane is the caller's.
    Lane(usize),
    /// None is free; wait with [`FreeLanes::wait`] on this generation.
    Busy(u32),
}

impl FreeLanes {
    /// `n` lanes (at most 64), all free.
    pub fn new(n: usize) -> FreeLanes {
        FreeLanes {
            free: AtomicU64::new(if n >= 64 { u64::MAX } else { (1 << n) - 1 }),
            freed: AtomicU32::new(0),
            claiming: AtomicU32::new(0),
        }
    }

    /// Claims the lowest free lane.
    pub fn claim(&self) -> Claim {
        loop {
            let generation = self.freed.load(Acquire);
            let f = self.free.load(Acquire);
            if f == 0 {
                return Claim::Busy(generation);
            }
            let k = f.trailing_zeros() as usize;
            if self
                .free
                .compare_exchange(f, f & !(1 << k), AcqRel, Acquire)
                .is_ok()
            {
                return Claim::Lane(k);
            }
        }
    }

    /// Waits (at most `timeout`) for a lane to be freed after generation
    /// `seen` (from [`Claim::Busy`]).
    pub fn wait(&self, seen: u32, timeout: Duration) {
        if self.announce_wait(seen) {
            wait(&self.freed, seen, timeout);
        }
        self.done_waiting();
    }

    /// The waiting claimer announces itself; returns whether it should
    /// sleep (no lane freed since generation `seen`). [`FreeLanes::wait`]
    /// is this, the sleep, and [`FreeLanes::done_waiting`].
    pub fn announce_wait(&self, seen: u32) -> bool {
        self.claiming.fetch_add(1, Relaxed);
        fence(SeqCst);
        self.freed.load(Acquire) == seen
    }

    /// The claimer no longer waits.
    pub fn done_waiting(&self) {
        self.claiming.fetch_sub(1, Relaxed);
    }

    /// Lane `k` is free again; wakes announced waiters. Returns whether it
    /// woke any.
    pub fn release(&self, k: usize) -> bool {
        self.free.fetch_or(1 << k, Release);
        self.freed.fetch_add(1, Release);
        fence(SeqCst);
        let waiting = self.claiming.load(Relaxed) > 0;
        if waiting {
            wake(&self.freed, i32::MAX);
        }
        waiting
    }
}

/// Requests posted to one thread: many posters, one taker (module
/// documentation).
#[derive(Debug)]
pub struct Inbox<T> {
    head: AtomicPtr<Node<T>>,
}

/// A posted item and the one posted before it. The fields are loom's
/// cells under `--cfg loom`, so that the model checks that the taker's
/// reads happen after the poster's writes (the exchange's release, the
/// swap's acquire).
struct Node<T> {
    item: Slot<Option<T>>,
    next: Slot<*mut Node<T>>,
}

#[cfg(loom)]
use loom::cell::UnsafeCell as Slot;

/// `std`'s cell with loom's interface.
#[cfg(not(loom))]
struct Slot<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> Slot<T> {
    fn new(v: T) -> Slot<T> {
        Slot(std::cell::UnsafeCell::new(v))
    }
    fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

// SAFETY: the items move from the posting threads to the taker; the
// nodes are reached only through the atomic head (module documentation).
unsafe impl<T: Send> Send for Inbox<T> {}
unsafe impl<T: Send> Sync for Inbox<T> {}

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Inbox {
            head: AtomicPtr::new(std::ptr::null_mut()),
        }
    }
}

impl<T> Inbox<T> {
    /// Posts `item`: lock-free, a failed compare-and-swap only means that
    /// another post went first.
    pub fn post(&self, item: T) {
        let node = Box::into_raw(Box::new(Node {
            item: Slot::new(Some(item)),
            next: Slot::new(std::ptr::null_mut()),
        }));
        let mut head = self.head.load(Relaxed);
        loop {
            // SAFETY: `node` is ours until the exchange publishes it.
            unsafe { (*node).next.with_mut(|p| *p = head) };
            match self
                .head
                .compare_exchange_weak(head, node, Release, Relaxed)
            {
                Ok(_) => return,
                Err(now) => head = now,
            }
        }
    }

    /// Takes every item posted since the last take, handing them to `each`
    /// in the order they were posted (the order of their successful
    /// exchanges). Takes from several threads would be safe too (each swap
    /// hands its taker those nodes alone); the runtime has one taker, the
    /// inbox's thread, so that posting order holds across takes.
    pub fn take(&self, mut each: impl FnMut(T)) {
        let mut node = self.head.swap(std::ptr::null_mut(), Acquire);
        // The stack holds the newest first: turn it around.
        let mut oldest: *mut Node<T> = std::ptr::null_mut();
        while !node.is_null() {
            // SAFETY: swapped out above, these nodes are the taker's alone.
            let next = unsafe {
                (*node)
                    .next
                    .with_mut(|p| std::mem::replace(&mut *p, oldest))
            };
            oldest = node;
            node = next;
        }
        while !oldest.is_null() {
            // SAFETY: each node was made by `Box::into_raw` in `post` and
            // is freed here once.
            let n = unsafe { Box::from_raw(oldest) };
            oldest = n.next.with_mut(|p| unsafe { *p });
            if let Some(item) = n.item.with_mut(|p| unsafe { (*p).take() }) {
                each(item);
            }
        }
    }
}

impl<T> Drop for Inbox<T> {
    fn drop(&mut self) {
        self.take(drop);
    }
}
