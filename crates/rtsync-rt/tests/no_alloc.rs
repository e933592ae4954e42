//! The operations a real-time thread calls allocate nothing where the
//! protocol's decisions are remade under the bookkeeping lock: a thread
//! that holds it must not wait for the allocator (which may take its own
//! lock, or the kernel's for fresh pages), or every thread queued on the
//! bookkeeping lock waits with it.
//!
//! The case that used to allocate: MrsP's helping decision, remade at
//! every job start and end while a waiter spins (`Shared::replan`), and
//! SRP's dispatch gate inside it; and recording (`Options::record`),
//! whose log entries were named with fresh strings under the lock. The
//! allocator here counts the calls of the thread being measured. Each
//! test runs logic only, then with priorities and CPUs applied
//! (SCHED_FIFO) where that is permitted, each with no log, a recorded
//! log and a trace: all take different paths. With
//! `RTSYNC_ALLOC_TRACE=1` it prints where each counted allocation was
//! made.

mod common;

use common::{RealTime, realtime, system};
use rtsync_rt::{Domain, Options, placement, sys};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

struct Counting;

thread_local! {
    /// Whether this thread's allocations are being counted, and how many.
    static COUNT: Cell<Option<u64>> = const { Cell::new(None) };
    /// Whether to print where each counted allocation was made.
    static TRACE: Cell<bool> = const { Cell::new(false) };
}

/// Counts an allocation of this thread where counting is on.
fn count() {
    // Counting is off while the backtrace (which allocates) is taken.
    let Some(n) = COUNT.try_with(|c| c.replace(None)).ok().flatten() else {
        return;
    };
    if TRACE.try_with(Cell::get).unwrap_or(false) {
        let trace = format!("{:?}", std::backtrace::Backtrace::force_capture());
        let ours: Vec<&str> = trace
            .split("{ fn: ")
            .filter(|f| f.contains("rtsync"))
            .take(4)
            .collect();
        eprintln!("allocation: {}", ours.join(" <- "));
    }
    let _ = COUNT.try_with(|c| c.set(Some(n + 1)));
}

// SAFETY: every call is passed to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The allocations `f` makes on this thread, and its result.
fn allocations<T>(f: impl FnOnce() -> T) -> (u64, T) {
    TRACE.with(|t| t.set(std::env::var_os("RTSYNC_ALLOC_TRACE").is_some()));
    COUNT.with(|c| c.set(Some(0)));
    let out = f();
    let n = COUNT.with(|c| c.replace(None)).unwrap_or(0);
    (n, out)
}

/// What a domain keeps of its run: each takes other paths (recording
/// turns off the fast path and the kernel's PI futex, and writes its log
/// under the bookkeeping lock; tracing writes each thread's own buffer).
#[derive(Clone, Copy, Debug)]
enum Log {
    None,
    Record,
    Trace,
}

/// A domain for `src` keeping `log`; with `realtime`, its system CPUs on
/// the process's CPUs in turn.
fn domain(src: &str, realtime: bool, log: Log) -> Domain {
    domain_chunked(src, realtime, log, Options::default().log_chunk)
}

/// [`domain`], its log and traces in chunks of `chunk` entries.
fn domain_chunked(src: &str, realtime: bool, log: Log, chunk: usize) -> Domain {
    let sys = system(src);
    let cpu_map = realtime.then(|| placement::default_map(sys.platform.cpus, &sys::allowed_cpus()));
    Domain::new(
        &sys,
        Options {
            realtime,
            cpu_map,
            wait_limit: Duration::from_secs(5),
            record: matches!(log, Log::Record),
            trace: matches!(log, Log::Trace),
            log_chunk: chunk,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Logic only, and with SCHED_FIFO where permitted (else said why not),
/// each with no log, a recorded log and a trace; and the real-time
/// tests' hold on the machine, for the caller to keep while it runs them.
fn modes(test: &str) -> (Option<RealTime>, Vec<(bool, Log)>) {
    let held = realtime(test);
    let mut rts = vec![false];
    if held.is_some() {
        rts.push(true);
    }
    let runs = rts
        .into_iter()
        .flat_map(|rt| [Log::None, Log::Record, Log::Trace].map(|log| (rt, log)))
        .collect();
    (held, runs)
}

/// How long any step of a test waits for another thread.
const STEP: Duration = Duration::from_secs(5);

/// Task `A` on a thread of its own: begins a job and locks `g`, says so,
/// waits for the word to go on, then unlocks and ends the job. Returns
/// when `A` holds `g`, with the word to send and the thread, whose
/// result is the allocations of its two halves.
fn holder(d: &Domain, g: usize) -> (Sender<()>, JoinHandle<(u64, u64)>) {
    let (held_tx, held_rx) = channel();
    let (go_tx, go_rx) = channel::<()>();
    let d = d.clone();
    let thread = std::thread::spawn(move || {
        let a = d.bind("A").unwrap();
        let (before, r) = allocations(|| {
            a.job_begin()?;
            a.lock(g, 1)
        });
        r.unwrap();
        held_tx.send(()).unwrap();
        go_rx.recv_timeout(STEP).unwrap();
        let (after, r) = allocations(|| {
            a.unlock(g)?;
            a.job_end()
        });
        r.unwrap();
        (before, after)
    });
    held_rx.recv_timeout(STEP).unwrap();
    (go_tx, thread)
}

/// Task `B` on a thread of its own: one job that locks and unlocks `g`;
/// the thread's result is the job's allocations.
fn asker(d: &Domain, g: usize) -> JoinHandle<u64> {
    let d = d.clone();
    std::thread::spawn(move || {
        let b = d.bind("B").unwrap();
        let (n, r) = allocations(|| {
            b.job_begin()?;
            b.lock(g, 1)?;
            b.unlock(g)?;
            b.job_end()
        });
        r.unwrap();
        n
    })
}

const MRSP: &str = r#"
[platform]
cpus = 2
protocol = "mrsp"
[[resource]]
name = "G"
[[task]]
name = "H"
period = "1s"
priority = 5
cpu = 0
wcet = "1ms"
[[task]]
name = "A"
period = "1s"
priority = 1
cpu = 0
body = [ { lock = "G", hold = "1ms" } ]
[[task]]
name = "B"
period = "1s"
priority = 1
cpu = 1
body = [ { lock = "G", hold = "1ms" } ]
"#;

/// A holds G on CPU 0; B spins for it on CPU 1; H starts a job on CPU 0
/// (A preempted: MrsP lends B's CPU to A) and ends it (A back home), then
/// A lets G go (granted to B, nobody lent). Each call remakes the helping
/// decision under the bookkeeping lock; none may allocate (binding a
/// thread may), in the first round or later ones.
#[test]
fn mrsp_helping_decisions_allocate_nothing() {
    let (_rt, runs) = modes("mrsp_helping_decisions_allocate_nothing");
    for (rt, log) in runs {
        mrsp_helping(rt, log);
    }
}

fn mrsp_helping(rt: bool, log: Log) {
    let d = domain(MRSP, rt, log);
    let g = d.resource("G").unwrap();
    let b_task = d.task("B").unwrap();
    for round in 0..3 {
        let (go, a_thread) = holder(&d, g);
        let b_thread = asker(&d, g);
        let t0 = Instant::now();
        while d.waiting(b_task) != Some(g) {
            assert!(t0.elapsed() < STEP, "B never waited for G");
            std::thread::sleep(Duration::from_millis(1));
        }
        let h = d.bind("H").unwrap();
        let (begin, r) = allocations(|| h.job_begin());
        r.unwrap();
        let (end, r) = allocations(|| h.job_end());
        r.unwrap();
        drop(h);
        go.send(()).unwrap();
        let (a_locks, a_unlocks) = a_thread.join().unwrap();
        let b_all = b_thread.join().unwrap();
        assert_eq!(
            [begin, end, a_locks, a_unlocks, b_all],
            [0; 5],
            "real-time {rt}, log {log:?}, round {round}: allocations in H's job_begin, H's job_end, \
             A's job_begin and lock, A's unlock and job_end, B's job (spinning for G)"
        );
    }
}

/// Every protocol's contended path: A holds G, B asks for it (waits,
/// sleeping, spinning or refused at its job's start as the protocol
/// says), A lets it go and B is granted. Neither thread allocates in its
/// job (binding aside), in the first round or later ones.
#[test]
fn contended_sections_allocate_nothing_under_any_protocol() {
    let (_rt, runs) = modes("contended_sections_allocate_nothing_under_any_protocol");
    for (rt, log) in runs {
        contended(rt, log);
    }
}

fn contended(rt: bool, log: Log) {
    for protocol in [
        "npcs", "pip", "pcp", "ipcp", "srp", "mpcp", "dpcp", "dflp", "fmlp-s", "fmlp-l", "msrp",
        "mrsp",
    ] {
        let one_cpu = matches!(protocol, "npcs" | "pip" | "pcp" | "ipcp" | "srp");
        let (cpus, b_cpu) = if one_cpu { (1, 0) } else { (2, 1) };
        let sync = if matches!(protocol, "dpcp" | "dflp") {
            "sync_cpu = 1"
        } else {
            ""
        };
        let src = format!(
            r#"
[platform]
cpus = {cpus}
protocol = "{protocol}"
[[resource]]
name = "G"
{sync}
[[task]]
name = "A"
period = "1s"
priority = 1
cpu = 0
body = [ {{ lock = "G", hold = "1ms" }} ]
[[task]]
name = "B"
period = "1s"
priority = 2
cpu = {b_cpu}
body = [ {{ lock = "G", hold = "1ms" }} ]
"#
        );
        let d = domain(&src, rt, log);
        let g = d.resource("G").unwrap();
        let b_task = d.task("B").unwrap();
        for round in 0..3 {
            let (go, a_thread) = holder(&d, g);
            let b_thread = asker(&d, g);
            // B waits on G, or (SRP) at its job's start: give it the time
            // to get there either way.
            let t0 = Instant::now();
            while d.waiting(b_task) != Some(g) && t0.elapsed() < Duration::from_millis(50) {
                std::thread::sleep(Duration::from_millis(1));
            }
            go.send(()).unwrap();
            let (before, after) = a_thread.join().unwrap();
            let (a, b) = (before + after, b_thread.join().unwrap());
            assert_eq!(
                [a, b],
                [0, 0],
                "{protocol}, real-time {rt}, log {log:?}, round {round}: allocations in A's job, B's job"
            );
        }
    }
}

/// A log past its chunks (of four entries, then of the default 4096):
/// the thread whose append took a chunk's spare makes the next after it
/// lets the lock go, so no chunk is made with the bookkeeping lock held
/// (`Domain::late_chunks`), the jobs allocate at most one chunk per chunk
/// they filled, and every entry is kept.
#[test]
fn a_log_past_its_chunks_makes_them_outside_the_lock_and_keeps_every_entry() {
    let name = "a_log_past_its_chunks_makes_them_outside_the_lock_and_keeps_every_entry";
    let default = Options::default().log_chunk;
    let (_rt, runs) = modes(name);
    for (rt, log) in runs {
        for (chunk, jobs) in [(4, 300), (default, default as u64 / 2)] {
            past_chunks(rt, log, chunk, jobs);
        }
    }
}

/// One run of [`a_log_past_its_chunks_makes_them_outside_the_lock_and_keeps_every_entry`]:
/// `jobs` jobs with the log, if any, in chunks of `chunk` entries.
fn past_chunks(rt: bool, log: Log, chunk: usize, jobs: u64) {
    if matches!(log, Log::None) {
        return;
    }
    let d = domain_chunked(
        r#"
[platform]
cpus = 1
protocol = "pcp"
[[resource]]
name = "G"
[[task]]
name = "A"
period = "1s"
priority = 1
cpu = 0
body = [ { lock = "G", hold = "1ms" } ]
"#,
        rt,
        log,
        chunk,
    );
    let g = d.resource("G").unwrap();
    let d2 = d.clone();
    let allocs = std::thread::spawn(move || {
        let a = d2.bind("A").unwrap();
        let (n, r) = allocations(|| {
            for _ in 0..jobs {
                a.job_begin()?;
                a.lock(g, 1)?;
                a.unlock(g)?;
                a.job_end()?;
            }
            Ok::<(), rtsync_rt::RtError>(())
        });
        r.unwrap();
        n
    })
    .join()
    .unwrap();
    let entries = d.timed_log();
    let granted = entries
        .iter()
        .filter(|(_, e)| matches!(e, rtsync_rt::Record::Granted { .. }))
        .count() as u64;
    assert_eq!(granted, jobs, "real-time {rt}, log {log:?}: grants kept");
    assert_eq!(
        d.late_chunks(),
        0,
        "real-time {rt}, log {log:?}: chunks made late"
    );
    let chunks = entries.len() as u64 / chunk as u64 + 1;
    assert!(
        allocs <= chunks,
        "real-time {rt}, log {log:?}: {allocs} allocations for {} entries in chunks of {chunk}",
        entries.len()
    );
    assert!(
        entries.len() > chunk && allocs > 0,
        "the run went past its first chunk, and the next were made"
    );
}
