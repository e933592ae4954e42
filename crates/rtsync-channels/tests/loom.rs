//! loom model checks: every interleaving (and every weak-memory outcome loom
//! models) of one writer and one reader on small channels.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p rtsync-channels --test loom --release`
//! (CI does). Elements are pairs `[k, k]`: a torn copy shows as a pair whose
//! halves differ.
#![cfg(loom)]

use loom::thread;
use rtsync_channels::{ReaderStats, Received, qrtr, qrtwc, qrtwo, sdrtr, sdrtw};

fn pair(k: u64) -> [u64; 2] {
    [k, k.wrapping_mul(0x9e37_79b9_7f4a_7c15)]
}

/// `loom::model` without a preemption bound, whatever
/// `LOOM_MAX_PREEMPTIONS` says.
fn unbounded(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = None;
    builder.check(f);
}

fn whole(v: [u64; 2]) -> u64 {
    assert_eq!(v, pair(v[0]), "torn element {v:?}");
    v[0]
}

/// Two SDrtR reads while the writer runs: whole values, never going back.
fn read_twice_in_order(rx: &mut sdrtr::Reader<[u64; 2]>) {
    let mut last = 0;
    for _ in 0..2 {
        if let Some(v) = rx.read().expect("no corruption between threads") {
            let k = whole(v);
            assert!(k >= last, "went back from {last} to {k}");
            last = k;
        }
    }
}

/// Unbounded, as the next model (the reader's load before its swap hides
/// interleavings from a bounded search).
#[test]
fn sdrtr_reader_sees_whole_values_in_order() {
    unbounded(|| {
        let (mut tx, mut rx) = sdrtr::channel::<[u64; 2]>();
        let w = thread::spawn(move || {
            tx.write(pair(1));
            tx.write(pair(2));
        });
        read_twice_in_order(&mut rx);
        w.join().unwrap();
        // After the writer is done, the reader sees the last value.
        assert_eq!(rx.read().unwrap().map(whole), Some(2));
    });
}

/// The SDrtR writer killed after each of the four steps of a publish
/// (copy, journal, compare-and-swap, journal) and taken over by a
/// successor while the reader reads: the successor never writes into the
/// slot the reader copies (a torn pair), the reader never goes back, and
/// the successor's value arrives.
///
/// Without a preemption bound, whatever `LOOM_MAX_PREEMPTIONS` says: under
/// the bound of 3 loom never reached the state where the reader took the
/// killed writer's value before the successor looked (a successor that
/// mishandles it passed), as loom's search skips interleavings around the
/// reader's load before its swap (tokio-rs/loom#166). Unbounded, this
/// model takes well under a second.
#[test]
fn sdrtr_writer_killed_at_any_step_is_taken_over() {
    for steps in 1..=4u8 {
        unbounded(move || {
            let (mut tx, mut rx) = sdrtr::channel::<[u64; 2]>();
            let w = thread::spawn(move || {
                tx.write(pair(1));
                tx.write_killed_after(pair(2), steps);
                let mut next = tx.successor().expect("the reader is not stopped");
                drop(tx);
                next.write(pair(3));
                assert_eq!(next.corruptions(), 0);
            });
            read_twice_in_order(&mut rx);
            w.join().unwrap();
            assert_eq!(
                rx.read().unwrap().map(whole),
                Some(3),
                "killed after {steps}"
            );
        });
    }
}

#[test]
fn sdrtw_readers_see_whole_values() {
    loom::model(|| {
        let (mut tx, rx) = sdrtw::channel::<[u64; 2]>();
        let w = thread::spawn(move || {
            tx.write(pair(1));
            tx.write(pair(2));
        });
        let mut last = 0;
        for _ in 0..2 {
            if let Some(s) = rx.read().unwrap() {
                let k = whole(s.value);
                assert!(k >= last);
                last = k;
            }
        }
        w.join().unwrap();
        assert_eq!(rx.read().unwrap().map(|s| whole(s.value)), Some(2));
    });
}

/// Checks a queue reader's output: whole elements, increasing, and the loss
/// count accounting for every gap.
struct Tally {
    next: u64,
    lost: u64,
}

impl Tally {
    fn take(&mut self, k: u64, lost_before: u64) {
        assert_eq!(
            k,
            self.next + lost_before,
            "element {k} after {} with {lost_before} reported lost",
            self.next
        );
        self.lost += lost_before;
        self.next = k + 1;
    }
}

/// One writer of three elements against a reader that reads twice while
/// it runs and drains after: every element whole, in order, and either
/// received or counted lost, and the newest always arrives.
fn lossy_queue_model<W, R>(capacity: u64, make: fn(u64) -> (W, R))
where
    W: FnMut(u64) + Send + 'static,
    R: FnMut() -> Option<(Received<[u64; 2]>, ReaderStats)> + 'static,
{
    loom::model(move || {
        let (mut write, mut read) = make(capacity);
        let w = thread::spawn(move || (0..3).for_each(&mut write));
        let mut t = Tally { next: 0, lost: 0 };
        let mut stats = ReaderStats::default();
        for _ in 0..2 {
            if let Some((r, s)) = read() {
                t.take(whole(r.value), r.lost_before);
                stats = s;
            }
        }
        w.join().unwrap();
        while let Some((r, s)) = read() {
            t.take(whole(r.value), r.lost_before);
            stats = s;
        }
        assert_eq!(t.next, 3, "the newest element is always delivered");
        assert_eq!(stats.lost, t.lost, "reported losses match the gaps");
        assert_eq!(
            stats.received + stats.lost,
            3,
            "every element received or counted lost"
        );
    });
}

#[test]
fn qrtwo_overwrites_oldest_and_counts_losses() {
    for capacity in [1, 2] {
        lossy_queue_model(capacity, |c| {
            let (mut tx, mut rx) = qrtwo::channel::<[u64; 2]>(c);
            (
                move |k| tx.write(pair(k)),
                move || rx.read().map(|r| (r, rx.stats())),
            )
        });
    }
}

#[test]
fn qrtwc_clears_when_full_and_counts_losses() {
    for capacity in [1, 2] {
        lossy_queue_model(capacity, |c| {
            let (mut tx, mut rx) = qrtwc::channel::<[u64; 2]>(c);
            (
                move |k| {
                    tx.write(pair(k));
                },
                move || rx.read().map(|r| (r, rx.stats())),
            )
        });
    }
}

#[test]
fn qrtr_delivers_each_accepted_element_once_in_order() {
    loom::model(|| {
        let (mut tx, mut rx) = qrtr::channel::<[u64; 2]>(1);
        let w = thread::spawn(move || {
            let mut accepted = 0u64;
            for k in 0..3 {
                if tx.write(pair(k)).is_ok() {
                    accepted += 1;
                } else {
                    break;
                }
            }
            accepted
        });
        let mut next = 0;
        for _ in 0..2 {
            if let Some(v) = rx.read().expect("no corruption between threads") {
                assert_eq!(whole(v), next);
                next += 1;
            }
        }
        let accepted = w.join().unwrap();
        while let Some(v) = rx.read().unwrap() {
            assert_eq!(whole(v), next);
            next += 1;
        }
        assert_eq!(next, accepted);
    });
}
