//! Loom model checks of the runtime's lock-free words (`rtsync_rt::gate`),
//! over every interleaving (bounded preemptions):
//!
//!     LOOM_MAX_PREEMPTIONS=3 RUSTFLAGS="--cfg loom" \
//!       cargo test -p rtsync-rt --test loom --release
//!
//! The bookkeeping lock and the machine are modelled by a mutex around the
//! one fact the gate protocol relies on: who the machine knows as the
//! resource's holder. The gate and epoch code is the runtime's own; the
//! bookkeeping level's rule (`domain::books`: a decision for a thread at
//! that level is recorded, applied when it comes down) is modelled beside
//! the epochs.
#![cfg(loom)]

use loom::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;
use rtsync_rt::gate::{self, Epoch, Gate};

/// One resource with its own gate, the machine's view of its holder, and
/// a count of threads inside the section (the property checked).
struct World {
    gate: Gate,
    machine: Mutex<Option<usize>>,
    inside: AtomicUsize,
}

impl World {
    fn new() -> World {
        World {
            gate: Gate::new(true),
            machine: Mutex::new(None),
            inside: AtomicUsize::new(0),
        }
    }

    fn enter(&self) {
        let was = self.inside.fetch_add(1, Ordering::SeqCst);
        assert_eq!(was, 0, "two threads inside the section");
    }

    fn leave(&self) {
        self.inside.fetch_sub(1, Ordering::SeqCst);
    }

    /// The slow path's prologue under the bookkeeping lock: close the gate
    /// and enter a fast holder found there into the machine.
    fn settle(&self, m: &mut Option<usize>) {
        if let Some(w) = self.gate.close() {
            let (t, _) = gate::holder(w);
            assert!(m.is_none(), "a fast holder while the machine had one");
            *m = Some(t);
        }
    }

    /// The epilogue: open the gate where the machine has nothing.
    fn reopen(&self, m: &Option<usize>) {
        if m.is_none() {
            self.gate.open();
        }
    }

    /// A lock as the runtime takes it: the fast path, else the machine
    /// (which here refuses a held resource instead of queueing).
    fn lock(&self, t: usize) -> bool {
        if self.gate.take(gate::word(t, 0)) {
            return true;
        }
        let mut m = self.machine.lock().unwrap();
        self.settle(&mut m);
        let granted = m.is_none();
        if granted {
            *m = Some(t);
        }
        self.reopen(&m);
        granted
    }

    /// An unlock: the fast path, else through the machine, which must know
    /// `t` as the holder (entered by whoever closed the gate).
    fn unlock(&self, t: usize) {
        if self.gate.give_back(gate::word(t, 0)) {
            return;
        }
        let mut m = self.machine.lock().unwrap();
        self.settle(&mut m);
        assert_eq!(*m, Some(t), "the machine lost the fast holder");
        *m = None;
        self.reopen(&m);
    }

    fn section(&self, t: usize) {
        if self.lock(t) {
            self.enter();
            self.leave();
            self.unlock(t);
        }
    }

    /// After every thread is done: nobody holds, the gate is open.
    fn quiet(&self) {
        assert_eq!(*self.machine.lock().unwrap(), None);
        assert!(self.gate.take(gate::word(0, 0)), "the gate stayed closed");
    }
}

/// A fast locker against a thread that only takes the slow path (a
/// request the machine must see: a nested lock, a waiter, SRP's test).
#[test]
fn a_fast_holder_and_the_slow_path_exclude_each_other() {
    loom::model(|| {
        let w = Arc::new(World::new());
        let w2 = w.clone();
        let slow = thread::spawn(move || {
            let mut m = w2.machine.lock().unwrap();
            w2.settle(&mut m);
            let mine = m.is_none();
            if mine {
                *m = Some(1);
            }
            drop(m);
            if mine {
                w2.enter();
                w2.leave();
                w2.unlock(1);
            }
        });
        w.section(0);
        slow.join().unwrap();
        w.quiet();
    });
}

/// Two fast lockers and one slow-path user.
#[test]
fn three_threads_on_one_gate() {
    loom::model(|| {
        let w = Arc::new(World::new());
        let handles: Vec<_> = (1..3)
            .map(|t| {
                let w = w.clone();
                thread::spawn(move || w.section(t))
            })
            .collect();
        {
            let mut m = w.machine.lock().unwrap();
            w.settle(&mut m);
            w.reopen(&m);
        }
        w.section(0);
        for h in handles {
            h.join().unwrap();
        }
        w.quiet();
    });
}

/// A thread's priority decisions: numbered under the bookkeeping lock
/// (here `book`, which also keeps the value decided last), carried out
/// after it under the thread's own lock (here `own`), skipped when stale.
/// Whatever the interleaving, the priority applied in the end is the one
/// decided last: a late lowering never undoes a newer raise.
fn decide_and_carry_out(
    book: &Mutex<u32>,
    epoch: &Epoch,
    own: &Mutex<()>,
    applied: &AtomicU32,
    value: u32,
) {
    let e = {
        let mut last = book.lock().unwrap();
        *last = value;
        epoch.next()
    };
    let _g = own.lock().unwrap();
    if epoch.is_newest(e) {
        applied.store(value, Ordering::Relaxed);
    }
}

fn epochs(deciders: u32) {
    loom::model(move || {
        let book = Arc::new(Mutex::new(0u32));
        let epoch = Arc::new(Epoch::default());
        let own = Arc::new(Mutex::new(()));
        let applied = Arc::new(AtomicU32::new(0));
        let handles: Vec<_> = (1..deciders)
            .map(|v| {
                let (b, e, o, a) = (book.clone(), epoch.clone(), own.clone(), applied.clone());
                thread::spawn(move || decide_and_carry_out(&b, &e, &o, &a, 10 + v))
            })
            .collect();
        decide_and_carry_out(&book, &epoch, &own, &applied, 10);
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(applied.load(Ordering::Relaxed), *book.lock().unwrap());
    });
}

#[test]
fn the_newest_decision_wins_two_threads() {
    epochs(2);
}

#[test]
fn the_newest_decision_wins_three_threads() {
    epochs(3);
}

/// A task's thread as the bookkeeping level sees it (`domain::books`):
/// its own lock, decision epoch, the priority decided for it last, whether
/// it is at the bookkeeping level, and the priority the kernel runs it at.
#[derive(Default)]
struct Thread {
    own: Mutex<()>,
    epoch: Epoch,
    applied: AtomicU32,
    in_books: loom::sync::atomic::AtomicBool,
    kernel: AtomicU32,
}

const BOOKS: u32 = 99;

impl Thread {
    /// A decision carried out (under the thread's own lock): recorded,
    /// and applied unless the thread is at the bookkeeping level.
    fn carry_out(&self, e: u64, v: u32) {
        let _g = self.own.lock().unwrap();
        if self.epoch.is_newest(e) {
            self.applied.store(v, Ordering::Relaxed);
            if !self.in_books.load(Ordering::Relaxed) {
                self.kernel.store(v, Ordering::Relaxed);
            }
        }
    }

    fn enter(&self) {
        let _g = self.own.lock().unwrap();
        self.in_books.store(true, Ordering::Relaxed);
        self.kernel.store(BOOKS, Ordering::Relaxed);
    }

    fn leave(&self) {
        let _g = self.own.lock().unwrap();
        self.in_books.store(false, Ordering::Relaxed);
        self.kernel
            .store(self.applied.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

/// The holder raises itself, takes the bookkeeping lock (here `book`,
/// which keeps the value decided last), decides for itself, lets the lock
/// go, carries its own decision out and comes down; other threads decide
/// for it under the lock and carry their decisions out there. Whatever
/// the interleaving, the holder runs at the bookkeeping level all the
/// while it holds the lock, and ends at the decision made last.
fn books(deciders: u32) {
    loom::model(move || {
        let book = Arc::new(Mutex::new(0u32));
        let th = Arc::new(Thread::default());
        let handles: Vec<_> = (0..deciders)
            .map(|v| {
                let (b, t) = (book.clone(), th.clone());
                thread::spawn(move || {
                    let mut last = b.lock().unwrap();
                    *last = 20 + v;
                    let e = t.epoch.next();
                    t.carry_out(e, 20 + v);
                })
            })
            .collect();
        th.enter();
        let e = {
            let mut last = book.lock().unwrap();
            assert_eq!(
                th.kernel.load(Ordering::Relaxed),
                BOOKS,
                "lowered while holding"
            );
            *last = 10;
            let e = th.epoch.next();
            assert_eq!(
                th.kernel.load(Ordering::Relaxed),
                BOOKS,
                "lowered while holding"
            );
            e
        };
        th.carry_out(e, 10);
        th.leave();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(th.kernel.load(Ordering::Relaxed), *book.lock().unwrap());
    });
}

#[test]
fn a_holder_stays_at_the_bookkeeping_level_one_decider() {
    books(1);
}

#[test]
fn a_holder_stays_at_the_bookkeeping_level_two_deciders() {
    books(2);
}

// Component threads' words (`rtsync_rt::component::words`).

use rtsync_rt::component::words::{Claim, Doorbell, FreeLanes, Inbox};

/// No lost wake-up: a thread that decides to sleep on the doorbell
/// (its last look saw no new request) is woken by the poster, whatever
/// the interleaving; and one that did not announce is not woken for
/// nothing when it saw the post itself.
#[test]
fn a_request_never_finds_its_thread_asleep_unwoken() {
    loom::model(|| {
        let bell = Arc::new(Doorbell::default());
        let seen = bell.count();
        let b = bell.clone();
        let poster = thread::spawn(move || b.ring());
        let sleeps = bell.announce(seen);
        let woke = poster.join().unwrap();
        bell.up();
        // Sleeping with the post unseen requires the poster's wake.
        assert!(!sleeps || woke, "the thread sleeps and nobody wakes it");
        assert_eq!(bell.count(), seen + 1);
    });
}

/// Two requesters and a pool of one: never both hold the lane; the one
/// that found it busy is woken, or sees it free, once it is released.
#[test]
fn a_lane_is_claimed_once_and_a_waiting_claimer_learns_of_its_release() {
    loom::model(|| {
        let lanes = Arc::new(FreeLanes::new(1));
        let holders = Arc::new(AtomicUsize::new(0));
        let claimer = |l: Arc<FreeLanes>, h: Arc<AtomicUsize>| {
            move || match l.claim() {
                Claim::Lane(k) => {
                    assert_eq!(k, 0);
                    assert_eq!(
                        h.fetch_add(1, Ordering::SeqCst),
                        0,
                        "two holders of one lane"
                    );
                    h.fetch_sub(1, Ordering::SeqCst);
                    l.release(k);
                    true
                }
                Claim::Busy(_) => false,
            }
        };
        let a = thread::spawn(claimer(lanes.clone(), holders.clone()));
        let got_b = claimer(lanes.clone(), holders.clone())();
        let got_a = a.join().unwrap();
        assert!(got_a || got_b, "someone got the free lane");
        // Whatever happened, the lane is free at the end.
        assert_eq!(lanes.claim(), Claim::Lane(0));
    });
}

/// A claimer that found the pool busy and waits is told of the release:
/// either the releaser sees it waiting and wakes it, or its own look sees
/// the release (no lost wake-up).
#[test]
fn a_claimer_waiting_for_a_lane_learns_of_its_release() {
    loom::model(|| {
        let lanes = Arc::new(FreeLanes::new(1));
        assert_eq!(lanes.claim(), Claim::Lane(0));
        let Claim::Busy(seen) = lanes.claim() else {
            panic!("the only lane is held")
        };
        let l = lanes.clone();
        let releaser = thread::spawn(move || l.release(0));
        // As `FreeLanes::wait` decides, without sleeping: whether its
        // look still sees the generation it found busy.
        let sleeps = lanes.announce_wait(seen);
        let woke = releaser.join().unwrap();
        lanes.done_waiting();
        assert!(!sleeps || woke, "the claimer sleeps and nobody wakes it");
        assert_eq!(lanes.claim(), Claim::Lane(0));
    });
}

/// Two requesters post two requests each while the single thread takes:
/// every request is taken exactly once, and each requester's in the order
/// it posted them (the notification queue's FIFO among equals rests on it).
#[test]
fn every_posted_request_is_taken_once_in_posting_order() {
    loom::model(|| {
        let inbox = Arc::new(Inbox::default());
        let posters: Vec<_> = (0..2u32)
            .map(|p| {
                let i = inbox.clone();
                thread::spawn(move || {
                    i.post((p, 0u32));
                    i.post((p, 1u32));
                })
            })
            .collect();
        let mut got = Vec::new();
        inbox.take(|x| got.push(x));
        for h in posters {
            h.join().unwrap();
        }
        inbox.take(|x| got.push(x));
        let mut all = got.clone();
        all.sort_unstable();
        assert_eq!(all, [(0, 0), (0, 1), (1, 0), (1, 1)]);
        for p in 0..2 {
            let order: Vec<u32> = got.iter().filter(|x| x.0 == p).map(|x| x.1).collect();
            assert_eq!(order, [0, 1], "{got:?}");
        }
    });
}
