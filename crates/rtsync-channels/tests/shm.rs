//! Channels over sealed shared memory: naming, header checks, clear errors,
//! cross-process stress with checksummed payloads, and a hostile peer that
//! scribbles over a live segment.
//!
//! Child processes are this test binary run again with `--ignored --exact
//! child` and the role in the environment.
//!
//! Not built under `--cfg loom`: shared memory is outside loom's model
//! (the `shm` module and every `attach` are left out there).
#![cfg(not(loom))]

mod common;

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::process::Child;
use std::time::{Duration, Instant};

use common::{Payload, follow, number, payload};
use rtsync_channels::shm::{OpenError, Segment, socket_path};
use rtsync_channels::{Kind, qrtr, qrtwc, qrtwo, sdrtr, sdrtw};

const CAPACITY: u64 = 64;
const COUNT: u64 = 200_000;

fn unique(tag: &str) -> String {
    format!("test-{}-{tag}", std::process::id())
}

fn spawn_child(role: &str, name: &str) -> Child {
    common::rerun_as("child")
        .env("RTSYNC_TEST_ROLE", role)
        .env("RTSYNC_TEST_NAME", name)
        // The child's own test summary would be counted as ours.
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("re-running the test binary as a child")
}

fn exited_ok(child: &mut Child) -> Option<bool> {
    child.try_wait().unwrap().map(|s| s.success())
}

/// The child side: opens the named segment and plays its role.
#[test]
#[ignore = "child-process role of the cross-process tests (set RTSYNC_TEST_ROLE)"]
fn child() {
    let (Ok(role), Ok(name)) = (
        std::env::var("RTSYNC_TEST_ROLE"),
        std::env::var("RTSYNC_TEST_NAME"),
    ) else {
        return;
    };
    match role.as_str() {
        "qrtwo" => {
            let seg = Segment::<Payload>::open(&name, Kind::QrtWo, CAPACITY).unwrap();
            let mut tx = qrtwo::Writer::attach(&seg).unwrap();
            (0..COUNT).for_each(|k| tx.write(payload(k)));
        }
        "qrtwc" => {
            let seg = Segment::<Payload>::open(&name, Kind::QrtWc, CAPACITY).unwrap();
            let mut tx = qrtwc::Writer::attach(&seg).unwrap();
            (0..COUNT).for_each(|k| {
                tx.write(payload(k));
            });
        }
        "qrtr" => {
            let seg = Segment::<Payload>::open(&name, Kind::QrtR, CAPACITY).unwrap();
            let mut tx = qrtr::Writer::attach(&seg).unwrap();
            for k in 0..COUNT {
                let mut v = payload(k);
                while let Err(full) = tx.write(v) {
                    v = full.0;
                    std::thread::yield_now();
                }
            }
        }
        "sdrtr" => {
            let seg = Segment::<Payload>::open(&name, Kind::SdrtR, 1).unwrap();
            let mut tx = sdrtr::Writer::attach(&seg).unwrap();
            (0..COUNT).for_each(|k| tx.write(payload(k)));
        }
        "sdrtw" => {
            let seg = Segment::<Payload>::open(&name, Kind::SdrtW, 1).unwrap();
            let mut tx = sdrtw::Writer::attach(&seg).unwrap();
            (0..COUNT).for_each(|k| tx.write(payload(k)));
        }
        scribble if scribble.starts_with("scribble:") => {
            let kind = match &scribble[9..] {
                "qrtr" => Kind::QrtR,
                "sdrtr" => Kind::SdrtR,
                "qrtwo" => Kind::QrtWo,
                "qrtwc" => Kind::QrtWc,
                _ => Kind::SdrtW,
            };
            let seg = Segment::<Payload>::open(&name, kind, CAPACITY).unwrap();
            scribble_over(&seg, Duration::from_millis(400));
        }
        other => panic!("unknown role {other}"),
    }
}

/// A hostile peer: maps the segment itself and writes random words
/// anywhere in it (a quarter of them into the header and control lines).
fn scribble_over(seg: &Segment<Payload>, how_long: Duration) {
    use rand::{Rng, SeedableRng};
    let len = seg.bytes();
    // SAFETY: maps the received memfd; this process writes through raw
    // pointers only and the parent reads through atomics, in another
    // process.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            seg.fd().as_raw_fd(),
            0,
        )
    } as *mut u64;
    assert_ne!(base as *mut libc::c_void, libc::MAP_FAILED);
    let words = len / 8;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let start = Instant::now();
    while start.elapsed() < how_long {
        for _ in 0..1000 {
            let at = if rng.random_bool(0.25) {
                rng.random_range(0..48.min(words))
            } else {
                rng.random_range(0..words)
            };
            let v: u64 = match rng.random_range(0..4) {
                0 => rng.random(),
                1 => rng.random_range(0..8),
                2 => u64::MAX - rng.random_range(0..8),
                _ => rng.random_range(0..1 << 20),
            };
            // SAFETY: `at` is within the mapping.
            unsafe { std::ptr::write_volatile(base.add(at), v) };
        }
    }
}

fn create(kind: Kind, tag: &str) -> (Segment<Payload>, String) {
    let name = unique(tag);
    let mut seg = Segment::<Payload>::create(kind, CAPACITY).unwrap();
    seg.publish(&name).unwrap();
    (seg, name)
}

/// Reads from the parent side until the child exits, then drains; checks
/// the tally against everything the child wrote.
fn follow_queue(
    role: &str,
    mut child: Child,
    read: impl FnMut() -> Option<rtsync_channels::Received<Payload>>,
) {
    let mut status = None;
    let t = follow(
        || {
            status = exited_ok(&mut child);
            status.is_some()
        },
        read,
    );
    assert_eq!(status, Some(true), "{role} child failed");
    assert_eq!(
        t.received + t.lost,
        COUNT,
        "{role}: every element received or counted lost"
    );
    assert_eq!(t.next, COUNT, "{role}: the newest element arrives");
}

#[test]
fn qrtwo_across_processes() {
    let (seg, name) = create(Kind::QrtWo, "qrtwo");
    let mut rx = qrtwo::Reader::attach(&seg).unwrap();
    follow_queue("qrtwo", spawn_child("qrtwo", &name), || rx.read());
}

#[test]
fn qrtwc_across_processes() {
    let (seg, name) = create(Kind::QrtWc, "qrtwc");
    let mut rx = qrtwc::Reader::attach(&seg).unwrap();
    follow_queue("qrtwc", spawn_child("qrtwc", &name), || rx.read());
}

#[test]
fn qrtr_across_processes_delivers_everything_in_order() {
    let (seg, name) = create(Kind::QrtR, "qrtr");
    let mut rx = qrtr::Reader::attach(&seg).unwrap();
    let mut child = spawn_child("qrtr", &name);
    let mut next = 0;
    loop {
        let exited = exited_ok(&mut child);
        match rx.read().expect("an honest peer never corrupts") {
            Some(v) => {
                assert_eq!(number(&v), next, "duplicate or reordered element");
                next += 1;
            }
            None if exited.is_some() => {
                assert_eq!(exited, Some(true), "qrtr child failed");
                break;
            }
            None => std::thread::yield_now(),
        }
    }
    assert_eq!(next, COUNT);
}

#[test]
fn latest_values_across_processes() {
    let (seg_r, name_r) = create(Kind::SdrtR, "sdrtr");
    let (seg_w, name_w) = create(Kind::SdrtW, "sdrtw");
    let mut rr = sdrtr::Reader::attach(&seg_r).unwrap();
    let rw = sdrtw::Reader::attach(&seg_w).unwrap();
    let mut children = [spawn_child("sdrtr", &name_r), spawn_child("sdrtw", &name_w)];
    let (mut last_r, mut last_w) = (0, 0);
    while children.iter_mut().any(|c| exited_ok(c).is_none()) {
        if let Some(v) = rr.read().unwrap() {
            let k = number(&v);
            assert!(k >= last_r, "SDrtR went back from {last_r} to {k}");
            last_r = k;
        }
        if let Some(s) = rw.read().expect("an honest writer never stalls") {
            let k = number(&s.value);
            assert!(k >= last_w, "SDrtW went back from {last_w} to {k}");
            last_w = k;
        }
    }
    for c in &mut children {
        assert_eq!(exited_ok(c), Some(true));
    }
    assert_eq!(rr.read().unwrap().map(|v| number(&v)), Some(COUNT - 1));
    assert_eq!(
        rw.read().unwrap().map(|s| number(&s.value)),
        Some(COUNT - 1)
    );
}

/// The real-time side of every channel keeps running while another process
/// writes random words over the whole live segment: no crash, no hang, no
/// access outside the segment (every index is computed locally; a stray
/// one would panic on the slice bound), and corruption is reported where the
/// protocol can see it.
#[test]
fn hostile_peer_cannot_stop_the_real_time_side() {
    let ops = 2_000_000u64;
    for tag in ["qrtr", "sdrtr", "sdrtw", "qrtwo", "qrtwc"] {
        let kind = match tag {
            "qrtr" => Kind::QrtR,
            "sdrtr" => Kind::SdrtR,
            "sdrtw" => Kind::SdrtW,
            "qrtwo" => Kind::QrtWo,
            _ => Kind::QrtWc,
        };
        let (seg, name) = create(kind, &format!("hostile-{tag}"));
        let mut child = spawn_child(&format!("scribble:{tag}"), &name);
        let mut corrupt = 0u64;
        let mut done = 0u64;
        // Run until the scribbler has finished, and at least `ops` times.
        match kind {
            Kind::QrtR => {
                let mut rx = qrtr::Reader::attach(&seg).unwrap();
                while done < ops || exited_ok(&mut child).is_none() {
                    corrupt += u64::from(rx.read().is_err());
                    done += 1;
                }
            }
            Kind::SdrtR => {
                let mut rx = sdrtr::Reader::attach(&seg).unwrap();
                while done < ops || exited_ok(&mut child).is_none() {
                    corrupt += u64::from(rx.read().is_err());
                    done += 1;
                }
            }
            Kind::SdrtW => {
                let mut tx = sdrtw::Writer::attach(&seg).unwrap();
                while done < ops || exited_ok(&mut child).is_none() {
                    tx.write(payload(done));
                    done += 1;
                }
            }
            Kind::QrtWo => {
                let mut tx = qrtwo::Writer::attach(&seg).unwrap();
                while done < ops || exited_ok(&mut child).is_none() {
                    tx.write(payload(done));
                    done += 1;
                }
            }
            Kind::QrtWc => {
                let mut tx = qrtwc::Writer::attach(&seg).unwrap();
                while done < ops || exited_ok(&mut child).is_none() {
                    tx.write(payload(done));
                    done += 1;
                }
                corrupt = tx.corruptions();
            }
        }
        assert!(child.wait().unwrap().success(), "{tag}: scribbler failed");
        assert!(done >= ops);
        // The real-time readers and QrtWc's writer read shared counters:
        // with a quarter of the scribbles aimed at them, they must notice.
        if matches!(kind, Kind::QrtR | Kind::SdrtR | Kind::QrtWc) {
            assert!(
                corrupt > 0,
                "{tag}: no corruption reported under a hostile peer"
            );
        }
    }
}

#[test]
fn opening_with_another_type_capacity_or_kind_is_a_clear_error() {
    let name = unique("mismatch");
    let mut seg = Segment::<u64>::create(Kind::QrtR, 16).unwrap();
    seg.publish(&name).unwrap();
    assert!(Segment::<u64>::open(&name, Kind::QrtR, 16).is_ok());
    for (err, says) in [
        (
            Segment::<u64>::open(&name, Kind::QrtR, 32).err(),
            "capacity 32",
        ),
        (Segment::<u32>::open(&name, Kind::QrtR, 16).err(), "4-byte"),
        (Segment::<u64>::open(&name, Kind::QrtWo, 16).err(), "QrtWo"),
    ] {
        let err = err.expect("a mismatched open must fail");
        assert!(matches!(err, OpenError::Mismatch { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains("QrtR channel of capacity 16 with 8-byte"),
            "{msg}"
        );
        assert!(msg.contains(says), "{msg} should name what was asked for");
    }
    // A side of another kind cannot attach either.
    let err = qrtwo::Reader::<u64>::attach(&seg).err().unwrap();
    assert!(err.to_string().contains("QrtWo side"), "{err}");
}

#[test]
fn unsealed_or_foreign_descriptors_are_refused() {
    // A plain file could be truncated under the mapping: refused before
    // mapping.
    let file = std::fs::File::create(std::env::temp_dir().join(unique("plain"))).unwrap();
    let err = Segment::<u64>::from_fd(OwnedFd::from(file), Kind::QrtR, 4)
        .err()
        .unwrap();
    assert!(matches!(err, OpenError::NotSealed), "{err:?}");

    // A sealed memfd that is not a channel.
    let seg = Segment::<u64>::create(Kind::QrtR, 4).unwrap();
    let dup = seg.fd().try_clone().unwrap();
    let other = Segment::<u64>::create(Kind::SdrtW, 1).unwrap();
    // SAFETY: writes one word of a fresh mapping of our own memfd.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            other.fd().as_raw_fd(),
            0,
        ) as *mut u64;
        std::ptr::write_volatile(p, 0xdead_beef);
        libc::munmap(p as *mut _, 4096);
    }
    let err = Segment::<u64>::from_fd(other.fd().try_clone().unwrap(), Kind::SdrtW, 1)
        .err()
        .unwrap();
    assert!(matches!(err, OpenError::NotAChannel), "{err:?}");
    assert!(Segment::<u64>::from_fd(dup, Kind::QrtR, 4).is_ok());
    // A raw descriptor that is not a memfd at all.
    // SAFETY: a fresh descriptor of /dev/null, owned by the OwnedFd.
    let null = unsafe {
        OwnedFd::from_raw_fd(libc::open(
            c"/dev/null".as_ptr(),
            libc::O_RDWR | libc::O_CLOEXEC,
        ))
    };
    assert!(matches!(
        Segment::<u64>::from_fd(null, Kind::QrtR, 4),
        Err(OpenError::NotSealed)
    ));
}

#[test]
fn names_are_private_to_the_user_and_checked() {
    let name = unique("perms");
    let mut seg = Segment::<u64>::create(Kind::SdrtW, 1).unwrap();
    let path = seg.publish(&name).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600, "socket mode");
    assert_eq!(mode(path.parent().unwrap()), 0o700, "directory mode");
    assert_eq!(socket_path(&name).unwrap(), path);
    // Publishing the same name twice is refused while the first is live.
    let mut again = Segment::<u64>::create(Kind::SdrtW, 1).unwrap();
    let err = again.publish(&name).err().unwrap();
    assert!(err.to_string().contains("already served"), "{err}");
    // Dropping the segment removes the socket.
    drop(seg);
    assert!(!path.exists());
    for bad in ["", "../etc", "a/b", ".hidden", "x y"] {
        assert!(
            matches!(socket_path(bad), Err(OpenError::BadName(_))),
            "{bad:?} accepted"
        );
    }
    let err = Segment::<u64>::open(&unique("nobody"), Kind::SdrtW, 1)
        .err()
        .unwrap();
    assert!(err.to_string().contains("connecting to"), "{err}");
}
