//! Fuzzing the segment opener and the real-time side over hostile shared
//! memory, proptest-driven so that CI runs it for a bounded time
//! (`RTSYNC_FUZZ_CASES` raises the count; docs/CHANNELS.md gives figures).
//!
//! Two targets: (1) arbitrary bytes, sealed in a memfd, opened as every
//! kind: `from_fd` returns an error or a segment, never panics; (2) a valid
//! segment whose header and body words a hostile peer overwrote at random:
//! where it still opens, the real-time side of each channel runs a bounded
//! number of operations and every one returns (no panic, no hang, no
//! out-of-bounds access), whatever the words say.
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
}

/// Cases per target: `RTSYNC_FUZZ_CASES` for a long run, else `default`
/// (the CI's bounded run).
fn cases(default: u32) -> u32 {
    std::env::var("RTSYNC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
