//! Sequential semantics of each channel against a reference model, on
//! random operation sequences (proptest) and at every wrap-around position:
//! what each queue does when full, when empty, and what it reports lost.

use std::collections::VecDeque;

use proptest::prelude::*;
use rtsync_channels::{Full, qrtr, qrtwc, qrtwo, sdrtr, sdrtw};

#[derive(Debug, Clone, Copy)]
enum Op {
    Write(u64),
    Read,
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![any::<u64>().prop_map(Op::Write), Just(Op::Read)],
        0..300,
    )
}

/// What a lossy queue's reader should return: the writer's ring (what the
/// writer can still overwrite or clear), the losses at its front, and the
/// batch the reader has copied out of it. A read takes from the batch; an
/// empty batch is refilled with up to `limit` of the oldest elements, the
/// first of which carries the losses before it.
struct LossyReader {
    ring: VecDeque<u64>,
    lost: u64,
    batch: VecDeque<(u64, u64)>,
    limit: usize,
}

impl LossyReader {
    fn new(limit: usize) -> LossyReader {
        LossyReader {
            ring: VecDeque::new(),
            lost: 0,
            batch: VecDeque::new(),
            limit,
        }
    }

    fn read(&mut self) -> Option<(u64, u64)> {
        if self.batch.is_empty() {
            let n = self.ring.len().min(self.limit);
            for (i, v) in self.ring.drain(..n).enumerate() {
                let lost = if i == 0 {
                    std::mem::take(&mut self.lost)
                } else {
                    0
                };
                self.batch.push_back((v, lost));
            }
        }
        self.batch.pop_front()
    }
}

proptest! {
    #[test]
    fn qrtr_is_a_bounded_fifo(cap in 1u64..9, ops in ops()) {
        let (mut tx, mut rx) = qrtr::channel::<u64>(cap);
        let mut model = VecDeque::new();
        for op in ops {
            match op {
                Op::Write(v) => {
                    let got = tx.write(v);
                    if model.len() as u64 == cap {
                        prop_assert_eq!(got, Err(Full(v)));
                    } else {
                        prop_assert_eq!(got, Ok(()));
                        model.push_back(v);
                    }
                }
                Op::Read => prop_assert_eq!(rx.read(), Ok(model.pop_front())),
            }
        }
    }

    #[test]
    fn qrtwo_drops_the_oldest_and_says_how_many(
        cap in 1u64..9,
        batch in 1usize..12,
        ops in ops(),
    ) {
        let (mut tx, mut rx) = qrtwo::channel::<u64>(cap);
        rx.set_batch(batch);
        prop_assert_eq!(rx.batch() as u64, (batch as u64).min(cap));
        let mut model = LossyReader::new(rx.batch());
        for op in ops {
            match op {
                Op::Write(v) => {
                    if model.ring.len() as u64 == cap {
                        model.ring.pop_front();
                        model.lost += 1;
                    }
                    model.ring.push_back(v);
                    tx.write(v);
                }
                Op::Read => {
                    let got = rx.read().map(|r| (r.value, r.lost_before));
                    prop_assert_eq!(got, model.read());
                }
            }
        }
    }

    #[test]
    fn qrtwc_clears_when_full_and_says_how_many(
        cap in 1u64..9,
        batch in 1usize..12,
        ops in ops(),
    ) {
        let (mut tx, mut rx) = qrtwc::channel::<u64>(cap);
        rx.set_batch(batch);
        prop_assert_eq!(rx.batch() as u64, (batch as u64).min(cap));
        let mut model = LossyReader::new(rx.batch());
        for op in ops {
            match op {
                Op::Write(v) => {
                    let want = if model.ring.len() as u64 == cap {
                        model.lost += cap;
                        model.ring.clear();
                        qrtwc::Wrote::Cleared(cap)
                    } else {
                        qrtwc::Wrote::Appended
                    };
                    model.ring.push_back(v);
                    prop_assert_eq!(tx.write(v), want);
                }
                Op::Read => {
                    let got = rx.read().map(|r| (r.value, r.lost_before));
                    prop_assert_eq!(got, model.read());
                }
            }
        }
    }

    #[test]
    fn latest_value_channels_return_the_last_write(ops in ops()) {
        let (mut tx_r, mut rx_r) = sdrtr::channel::<u64>();
        let (mut tx_w, rx_w) = sdrtw::channel::<u64>();
        let mut last = None;
        for op in ops {
            match op {
                Op::Write(v) => {
                    tx_r.write(v);
                    tx_w.write(v);
                    last = Some(v);
                }
                Op::Read => {
                    prop_assert_eq!(rx_r.read(), Ok(last));
                    let snap = rx_w.read().unwrap();
                    prop_assert_eq!(snap.map(|s| s.value), last);
                    prop_assert_eq!(snap.map_or(0, |s| s.retries), 0);
                }
            }
        }
    }
}

#[test]
fn reads_before_any_write_find_nothing() {
    assert_eq!(sdrtr::channel::<u64>().1.read(), Ok(None));
    assert_eq!(sdrtw::channel::<u64>().1.read(), Ok(None));
    assert_eq!(qrtwo::channel::<u64>(4).1.read(), None);
    assert_eq!(qrtwc::channel::<u64>(4).1.read(), None);
    assert_eq!(qrtr::channel::<u64>(4).1.read(), Ok(None));
}

#[test]
fn many_writes_before_a_read_keep_the_last_value() {
    let (mut tx, mut rx) = sdrtr::channel::<[u32; 3]>();
    let (mut tw, rw) = sdrtw::channel::<[u32; 3]>();
    for k in 0..1000u32 {
        tx.write([k, k + 1, k + 2]);
        tw.write([k, k + 1, k + 2]);
    }
    assert_eq!(rx.read(), Ok(Some([999, 1000, 1001])));
    assert_eq!(
        rx.read(),
        Ok(Some([999, 1000, 1001])),
        "a second read sees it again"
    );
    assert_eq!(rw.read().unwrap().map(|s| s.value), Some([999, 1000, 1001]));
    tx.write([1, 2, 3]);
    assert_eq!(rx.read(), Ok(Some([1, 2, 3])));
}

/// Brings a queue to position `offset` (that many elements written and
/// read), then fills it, writes past full, and drains it: the behaviour at
/// full and at empty must not depend on where in the ring the counters are.
#[test]
fn full_and_empty_at_every_wrap_position() {
    for cap in 1..=5u64 {
        for offset in 0..3 * cap {
            let (mut tx, mut rx) = qrtr::channel::<u64>(cap);
            let (mut ow, mut or) = qrtwo::channel::<u64>(cap);
            let (mut cw, mut cr) = qrtwc::channel::<u64>(cap);
            for k in 0..offset {
                tx.write(k).unwrap();
                assert_eq!(rx.read(), Ok(Some(k)));
                ow.write(k);
                assert_eq!(or.read().map(|r| r.value), Some(k));
                cw.write(k);
                assert_eq!(cr.read().map(|r| r.value), Some(k));
            }
            let at = format!("capacity {cap}, offset {offset}");
            for k in 0..cap {
                tx.write(100 + k).unwrap();
                ow.write(100 + k);
                assert_eq!(cw.write(100 + k), qrtwc::Wrote::Appended, "{at}");
            }
            // Full: QrtR refuses, QrtWo overwrites the oldest, QrtWc clears.
            assert_eq!(tx.write(999), Err(Full(999)), "{at}");
            ow.write(100 + cap);
            assert_eq!(cw.write(100 + cap), qrtwc::Wrote::Cleared(cap), "{at}");
            for k in 0..cap {
                assert_eq!(rx.read(), Ok(Some(100 + k)), "{at}");
                let r = or.read().unwrap();
                assert_eq!(
                    (r.value, r.lost_before),
                    (101 + k, u64::from(k == 0)),
                    "{at}"
                );
            }
            let r = cr.read().unwrap();
            assert_eq!((r.value, r.lost_before), (100 + cap, cap), "{at}");
            assert_eq!(rx.read(), Ok(None), "{at}: empty after draining");
            assert_eq!(or.read(), None, "{at}");
            assert_eq!(cr.read(), None, "{at}");
            assert_eq!(or.stats().lost, 1);
            assert_eq!(cr.stats().lost, cap);
        }
    }
}

#[test]
fn odd_sized_elements_round_trip() {
    #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Odd {
        a: [u8; 13],
    }
    let (mut tx, mut rx) = qrtr::channel::<Odd>(3);
    let (mut ztx, mut zrx) = qrtr::channel::<()>(2);
    for k in 0..10u8 {
        let v = Odd { a: [k; 13] };
        tx.write(v).unwrap();
        assert_eq!(rx.read(), Ok(Some(v)));
        ztx.write(()).unwrap();
        assert_eq!(zrx.read(), Ok(Some(())));
    }
}
