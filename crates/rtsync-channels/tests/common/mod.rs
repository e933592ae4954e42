//! Checksummed payloads for the stress tests: a torn copy, a duplicate or a
//! reordering shows up as a failed check.
#![allow(dead_code)]

pub type Payload = [u64; 8];

/// Element number `k` as a payload whose words all derive from `k`.
pub fn payload(k: u64) -> Payload {
    let mut p = [0u64; 8];
    p[0] = k;
    let mut x = k ^ 0x5851_f42d_4c95_7f2d;
    for w in p.iter_mut().take(7).skip(1) {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *w = x;
    }
    p[7] = p[..7].iter().fold(0xcbf2_9ce4_8422_2325u64, |h, w| {
        (h ^ w).wrapping_mul(0x0000_0100_0000_01b3)
    });
    p
}

/// The element number of a payload, panicking if it is torn.
pub fn number(p: &Payload) -> u64 {
    assert_eq!(*p, payload(p[0]), "torn or corrupted payload {p:x?}");
    p[0]
}

/// Follows a queue reader's output: numbers must increase, and every gap
/// must be exactly the loss the reader reported before the element.
#[derive(Default)]
pub struct Tally {
    pub next: u64,
    pub received: u64,
    pub lost: u64,
}

impl Tally {
    pub fn take(&mut self, k: u64, lost_before: u64) {
        assert_eq!(
            k,
            self.next + lost_before,
            "got element {k} after {} with {lost_before} reported lost (duplicate, reorder or miscount)",
            self.next.wrapping_sub(1)
        );
        self.lost += lost_before;
        self.received += 1;
        self.next = k + 1;
    }
}

/// Reads a lossy queue until `finished()` says the writer is done, then
/// drains it, checking every element on the way; returns the tally.
pub fn follow(
    mut finished: impl FnMut() -> bool,
    mut read: impl FnMut() -> Option<rtsync_channels::Received<Payload>>,
) -> Tally {
    let mut t = Tally::default();
    while !finished() {
        match read() {
            Some(r) => t.take(number(&r.value), r.lost_before),
            None => std::thread::yield_now(),
        }
    }
    while let Some(r) = read() {
        t.take(number(&r.value), r.lost_before);
    }
    t
}

/// This test binary run again as a child process that runs only the
/// ignored test `role_test` (the child-process side of a cross-process
/// test); the caller adds the environment and where its output goes.
pub fn rerun_as(role_test: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--ignored",
        "--exact",
        role_test,
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd
}
