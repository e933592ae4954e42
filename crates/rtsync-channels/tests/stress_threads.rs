//! Stress between threads: a writer and a reader on two threads, checksummed
//! payloads. No torn value, no duplicate, no reordering, and for the lossy
//! queues `received + lost == written` exactly. Each test is bounded by an
//! element count and a wall-clock limit, whichever comes first.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use common::{Payload, Tally, follow, number, payload};
use rtsync_channels::{qrtr, qrtwc, qrtwo, sdrtr, sdrtw};

const ELEMENTS: u64 = 300_000;
const LIMIT: Duration = Duration::from_secs(3);

/// Runs `write(k)` for k = 0.. on a second thread until ELEMENTS or LIMIT;
/// returns the number written once the writer is done, with `done` set.
fn writer_thread(
    done: Arc<AtomicBool>,
    mut write: impl FnMut(u64) + Send + 'static,
) -> thread::JoinHandle<u64> {
    thread::spawn(move || {
        let start = Instant::now();
        let mut k = 0;
        while k < ELEMENTS && (k % 1024 != 0 || start.elapsed() < LIMIT) {
            write(k);
            k += 1;
        }
        done.store(true, Ordering::Release);
        k
    })
}

/// Batch sizes the lossy readers are stressed with: one element per look at
/// the writer, a few, and the default (the whole ring, for these sizes).
const BATCHES: [Option<usize>; 3] = [Some(1), Some(3), None];

#[test]
fn qrtwo_under_contention() {
    for batch in BATCHES {
        let (mut tx, mut rx) = qrtwo::channel::<Payload>(16);
        if let Some(b) = batch {
            rx.set_batch(b);
        }
        let done = Arc::new(AtomicBool::new(false));
        let w = writer_thread(done.clone(), move |k| tx.write(payload(k)));
        let t = follow(|| done.load(Ordering::Acquire), || rx.read());
        let written = w.join().unwrap();
        check_losses(&t, written);
        assert_eq!(rx.stats().lost, t.lost, "batch {batch:?}");
    }
}

#[test]
fn qrtwc_under_contention() {
    for batch in BATCHES {
        let (mut tx, mut rx) = qrtwc::channel::<Payload>(16);
        if let Some(b) = batch {
            rx.set_batch(b);
        }
        let done = Arc::new(AtomicBool::new(false));
        let w = writer_thread(done.clone(), move |k| {
            tx.write(payload(k));
        });
        let t = follow(|| done.load(Ordering::Acquire), || rx.read());
        check_losses(&t, w.join().unwrap());
        assert_eq!(rx.stats().lost, t.lost, "batch {batch:?}");
    }
}

fn check_losses(t: &Tally, written: u64) {
    assert_eq!(
        t.received + t.lost,
        written,
        "every element received or counted lost"
    );
    assert_eq!(t.next, written, "the newest element is delivered");
    assert!(t.received > 0);
}

#[test]
fn qrtr_under_contention_delivers_everything_in_order() {
    let (mut tx, mut rx) = qrtr::channel::<Payload>(16);
    let done = Arc::new(AtomicBool::new(false));
    let w = writer_thread(done.clone(), move |k| {
        let mut v = payload(k);
        while let Err(full) = tx.write(v) {
            v = full.0;
            thread::yield_now();
        }
    });
    let mut next = 0;
    loop {
        let finished = done.load(Ordering::Acquire);
        match rx.read().expect("no corruption between threads") {
            Some(v) => {
                assert_eq!(number(&v), next, "duplicate or reordered element");
                next += 1;
            }
            None if finished => break,
            None => thread::yield_now(),
        }
    }
    assert_eq!(
        next,
        w.join().unwrap(),
        "every accepted element delivered once"
    );
}

#[test]
fn latest_value_channels_under_contention() {
    let (mut tr, mut rr) = sdrtr::channel::<Payload>();
    let (mut tw, rw) = sdrtw::channel::<Payload>();
    let done = Arc::new(AtomicBool::new(false));
    let w = writer_thread(done.clone(), move |k| {
        tr.write(payload(k));
        tw.write(payload(k));
    });
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let rw = rw.clone();
            let done = done.clone();
            thread::spawn(move || {
                let mut last = 0;
                let mut retried = 0u64;
                while !done.load(Ordering::Acquire) {
                    if let Some(s) = rw.read().expect("a live writer never stalls for a second") {
                        let k = number(&s.value);
                        assert!(k >= last, "SDrtW went back from {last} to {k}");
                        last = k;
                        retried += s.retries as u64;
                    }
                }
                retried
            })
        })
        .collect();
    let mut last = 0;
    while !done.load(Ordering::Acquire) {
        if let Some(v) = rr.read().expect("no corruption between threads") {
            let k = number(&v);
            assert!(k >= last, "SDrtR went back from {last} to {k}");
            last = k;
        }
    }
    let written = w.join().unwrap();
    assert_eq!(rr.read().unwrap().map(|v| number(&v)), Some(written - 1));
    assert_eq!(
        rw.read().unwrap().map(|s| number(&s.value)),
        Some(written - 1)
    );
    for r in readers {
        r.join().unwrap();
    }
}
