//! Fuzzing the segment opener and the real-time side over hostile shared
//! memory, proptest-driven so that CI runs it for a bounded time
//! (`RTSYNC_FUZZ_CASES` raises the count; docs/CHANNELS.md gives figures).
//!
//! Two targets: (1) arbitrary bytes, sealed in a memfd, opened as every
//! kind: `from_fd` returns an error or a segment, never panics; (2) a valid
//! segment whose header and body words a hostile peer overwrote at random:
//! where it still opens, the real-time side of each channel runs a bounded
//! number of operations and every one returns (no panic, no hang, no
//! out-of-bounds access), whatever the words say; (3) the same, and then
//! the non-real-time side attaches as a peer restarted after a kill would
//! (reading the record its predecessor left, [`rtsync_channels`]'s
//! `resume`): it too returns from every operation.
#![cfg(not(loom))]

use proptest::prelude::*;
use rtsync_channels::shm::Segment;
use rtsync_channels::{Kind, qrtr, qrtwc, qrtwo, sdrtr, sdrtw};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const KINDS: [Kind; 5] = [
    Kind::SdrtR,
    Kind::SdrtW,
    Kind::QrtWo,
    Kind::QrtWc,
    Kind::QrtR,
];

/// A sealed memfd holding `bytes`.
fn sealed(bytes: &[u8]) -> OwnedFd {
    // SAFETY: plain system calls on a descriptor this function owns.
    unsafe {
        let fd = libc::memfd_create(
            c"rtsync-fuzz".as_ptr(),
            libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
        );
        assert!(fd >= 0);
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        assert_eq!(n, bytes.len() as isize);
        libc::fcntl(
            fd,
            libc::F_ADD_SEALS,
            libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL,
        );
        OwnedFd::from_raw_fd(fd)
    }
}

/// Overwrites the 8-byte word `index` of the segment's file.
fn poke(seg: &Segment<u64>, index: usize, word: u64) {
    let bytes = word.to_le_bytes();
    let len = seg.bytes();
    let at = (index % (len / 8)) * 8;
    // SAFETY: a write of 8 bytes inside the file, through its descriptor.
    let n = unsafe {
        libc::pwrite(
            seg.fd().as_raw_fd(),
            bytes.as_ptr().cast(),
            8,
            at as libc::off_t,
        )
    };
    assert_eq!(n, 8);
}

/// The real-time side of `kind` runs `ops` operations over `seg`.
fn drive_rt_side(seg: &Segment<u64>, kind: Kind, ops: usize) {
    match kind {
        Kind::SdrtR => {
            let mut rx = sdrtr::Reader::attach(seg).unwrap();
            for _ in 0..ops {
                let _ = rx.read();
            }
        }
        Kind::SdrtW => {
            let mut tx = sdrtw::Writer::attach(seg).unwrap();
            for i in 0..ops {
                tx.write(i as u64);
            }
        }
        Kind::QrtWo => {
            let mut tx = qrtwo::Writer::attach(seg).unwrap();
            for i in 0..ops {
                tx.write(i as u64);
            }
        }
        Kind::QrtWc => {
            let mut tx = qrtwc::Writer::attach(seg).unwrap();
            for i in 0..ops {
                let _ = tx.write(i as u64);
            }
        }
        Kind::QrtR => {
            let mut rx = qrtr::Reader::attach(seg).unwrap();
            for _ in 0..ops {
                let _ = rx.read();
            }
        }
    }
}

/// The non-real-time side of `kind` attaches to `seg` (taking over
/// whatever record is there) and runs `ops` operations. The SDrtW reader
/// uses `try_read`: `read` retries while the sequence is odd, which a
/// hostile word can make forever (the non-real-time side may wait; only
/// the real-time side must not).
fn drive_peer_side(seg: &Segment<u64>, kind: Kind, ops: usize) {
    match kind {
        Kind::SdrtR => {
            // A record that looks like a reader stopped mid-take makes the
            // writer wait, then refuse with a reason.
            if let Ok(mut tx) = sdrtr::Writer::attach(seg) {
                for i in 0..ops {
                    tx.write(i as u64);
                }
            }
        }
        Kind::SdrtW => {
            let rx = sdrtw::Reader::attach(seg).unwrap();
            for _ in 0..ops {
                let _ = rx.try_read();
            }
        }
        Kind::QrtWo => {
            let mut rx = qrtwo::Reader::attach(seg).unwrap();
            for _ in 0..ops {
                let _ = rx.read();
            }
        }
        Kind::QrtWc => {
            let mut rx = qrtwc::Reader::attach(seg).unwrap();
            for _ in 0..ops {
                let _ = rx.read();
            }
        }
        Kind::QrtR => {
            let mut tx = qrtr::Writer::attach(seg).unwrap();
            for i in 0..ops {
                let _ = tx.write(i as u64);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_the_opener(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
        kind in 0usize..5,
        capacity in 1u64..64,
        magic in any::<bool>(),
    ) {
        let mut bytes = bytes;
        if magic && bytes.len() >= 16 {
            // Often a plausible header, so the checks past the magic run.
            bytes[..8].copy_from_slice(b"RTSYNCCH");
            bytes[8..16].copy_from_slice(&rtsync_channels::shm::VERSION.to_le_bytes());
        }
        let r = Segment::<u64>::from_fd(sealed(&bytes), KINDS[kind], capacity);
        // Whatever it says, a segment it accepts is one it can use.
        if let Ok(seg) = r {
            drive_rt_side(&seg, KINDS[kind], 32);
        }
    }

    #[test]
    fn a_hostile_peer_cannot_stop_the_real_time_side(
        kind in 0usize..5,
        capacity in 1u64..32,
        pokes in proptest::collection::vec((any::<usize>(), any::<u64>()), 1..24),
        header_too in any::<bool>(),
    ) {
        let kind = KINDS[kind];
        let seg = Segment::<u64>::create(kind, capacity).unwrap();
        for (i, w) in pokes {
            // Body words by default; with header_too, any word at all.
            let i = if header_too { i } else { 8 + i % (seg.bytes() / 8 - 8) };
            poke(&seg, i, w);
        }
        let dup = seg.fd().try_clone().unwrap();
        match Segment::<u64>::from_fd(dup, kind, capacity) {
            Ok(opened) => drive_rt_side(&opened, kind, 200),
            // A scribbled header is refused with a reason.
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn a_restarted_peer_survives_a_scribbled_record(
        kind in 0usize..5,
        capacity in 1u64..32,
        pokes in proptest::collection::vec(
            // Small words half the time: they pass the first checks of the
            // record, the journal and the counters, so the later ones run.
            (any::<usize>(), prop_oneof![0u64..48, any::<u64>()]),
            1..24,
        ),
    ) {
        let kind = KINDS[kind];
        let seg = Segment::<u64>::create(kind, capacity).unwrap();
        // Some honest traffic first, so the record holds something.
        drive_peer_side(&seg, kind, 5);
        drive_rt_side(&seg, kind, 7);
        for (i, w) in pokes {
            poke(&seg, 8 + i % (seg.bytes() / 8 - 8), w);
        }
        drive_peer_side(&seg, kind, 200);
        drive_rt_side(&seg, kind, 200);
        drive_peer_side(&seg, kind, 200);
    }
}

/// Cases per target: `RTSYNC_FUZZ_CASES` for a long run, else `default`
/// (the CI's bounded run).
fn cases(default: u32) -> u32 {
    std::env::var("RTSYNC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
