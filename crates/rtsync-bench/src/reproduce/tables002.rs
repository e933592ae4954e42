//! Paper 002 Tables 2 to 6: the five wait-free channels' read and write
//! times, worst, mean and standard deviation, for the real-time side and
//! the non-real-time side, and the non-real-time side's repetitions,
//! between two threads and between two processes over shared memory.
//!
//! As the paper measures them: both sides periodic every 100 us, one
//! 64-bit integer per operation (the paper's is 32-bit), queues of 1,024
//! elements. The real-time side runs pinned to the last CPU this process
//! may use, under SCHED_FIFO where permitted (the note says where it was
//! not); the other side pinned to the first. Between processes, the
//! segment is a sealed memfd published by name (`rtsync_channels::shm`)
//! and the other side is this program again (`rtsync reproduce --peer`),
//! which opens it by name, as any non-real-time process would.
//!
//! CPU isolation: the paper isolates both sides' cores (cpusets, IRQ
//! affinity). This target reads `/sys/devices/system/cpu/isolated` and
//! says what it found; it does not isolate CPUs itself (that needs the
//! machine's boot parameters or cpusets owned by the administrator).

use super::Made;
use crate::Error;
use rtsync_channels::shm::Segment;
use rtsync_channels::{Kind, qrtr, qrtwc, qrtwo, sdrtr, sdrtw};
use rtsync_rt::sys;
use std::fmt::Write;
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

/// Elements in each queue.
const RING: u64 = 1024;
/// Both sides' period, as the paper's.
const PERIOD: Duration = Duration::from_micros(100);
/// The real-time side's SCHED_FIFO priority.
const PRIO: i32 = 10;

/// The five channels: `(kind, name, real-time op, other side's op)`.
const CHANNELS: [(Kind, &str, &str, &str); 5] = [
    (Kind::SdrtR, "SDrtR", "read", "write"),
    (Kind::SdrtW, "SDrtW", "write", "read"),
    (Kind::QrtWo, "QrtWo", "write", "read"),
    (Kind::QrtWc, "QrtWc", "write", "read"),
    (Kind::QrtR, "QrtR", "read", "write"),
];

fn kind_named(name: &str) -> Option<Kind> {
    CHANNELS.iter().find(|c| c.1 == name).map(|c| c.0)
}

fn capacity(kind: Kind) -> u64 {
    match kind {
        Kind::SdrtR | Kind::SdrtW => 1,
        _ => RING,
    }
}

/// One side's operation: what it reports, its repetitions.
type Op = Box<dyn FnMut(u64) -> u32 + Send>;

/// The real-time side of `kind` on `seg`.
fn rt_side(kind: Kind, seg: &Segment<u64>) -> Result<Op, String> {
    let e = |x: rtsync_channels::shm::OpenError| x.to_string();
    Ok(match kind {
        Kind::SdrtR => {
            let mut rx = sdrtr::Reader::attach(seg).map_err(e)?;
            Box::new(move |_| {
                std::hint::black_box(rx.read().ok());
                0
            })
        }
        Kind::SdrtW => {
            let mut tx = sdrtw::Writer::attach(seg).map_err(e)?;
            Box::new(move |k| {
                tx.write(k);
                0
            })
        }
        Kind::QrtWo => {
            let mut tx = qrtwo::Writer::attach(seg).map_err(e)?;
            Box::new(move |k| {
                tx.write(k);
                0
            })
        }
        Kind::QrtWc => {
            let mut tx = qrtwc::Writer::attach(seg).map_err(e)?;
            Box::new(move |k| {
                std::hint::black_box(tx.write(k));
                0
            })
        }
        Kind::QrtR => {
            let mut rx = qrtr::Reader::attach(seg).map_err(e)?;
            Box::new(move |_| {
                std::hint::black_box(rx.read().ok());
                0
            })
        }
    })
}

/// The non-real-time side of `kind` on `seg`: each call reports its
/// repetitions (a seqlock read retried, a lossy read restarted, a queue
/// write refused as full).
fn other_side(kind: Kind, seg: &Segment<u64>) -> Result<Op, String> {
    let e = |x: rtsync_channels::shm::OpenError| x.to_string();
    Ok(match kind {
        Kind::SdrtR => {
            let mut tx = sdrtr::Writer::attach(seg).map_err(e)?;
            Box::new(move |k| {
                tx.write(k);
                0
            })
        }
        Kind::SdrtW => {
            let rx = sdrtw::Reader::attach(seg).map_err(e)?;
            Box::new(move |_| match rx.read() {
                Ok(Some(s)) => s.retries,
                _ => 0,
            })
        }
        Kind::QrtWo => {
            let mut rx = qrtwo::Reader::attach(seg).map_err(e)?;
            Box::new(move |_| {
                let before = rx.stats().retries;
                std::hint::black_box(rx.read());
                (rx.stats().retries - before) as u32
            })
        }
        Kind::QrtWc => {
            let mut rx = qrtwc::Reader::attach(seg).map_err(e)?;
            Box::new(move |_| {
                let before = rx.stats().retries;
                std::hint::black_box(rx.read());
                (rx.stats().retries - before) as u32
            })
        }
        Kind::QrtR => {
            let mut tx = qrtr::Writer::attach(seg).map_err(e)?;
            Box::new(move |k| u32::from(tx.write(k).is_err()))
        }
    })
}

/// One side's samples: per operation its time (ns) and repetitions.
#[derive(Default)]
struct Samples {
    ns: Vec<f64>,
    reps: Vec<u32>,
}

/// `n` operations of `op`, one per period from `start`, each timed (the
/// clock's own cost `clock` taken off). Bounded: `n` iterations, each at
/// most one period's sleep.
fn periodic(mut op: Op, n: usize, start: Instant, clock: f64) -> Samples {
    let mut s = Samples::default();
    for k in 0..n {
        let due = start + PERIOD * k as u32;
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        let t0 = Instant::now();
        let r = op(k as u64 + 1);
        s.ns.push((t0.elapsed().as_nanos() as f64 - clock).max(0.0));
        s.reps.push(r);
    }
    s
}

/// Pins the calling thread to `cpu` and, for the real-time side, raises
/// it to SCHED_FIFO; says whether it is real-time.
fn place(cpu: usize, realtime: bool) -> bool {
    let tid = sys::gettid();
    let _ = sys::set_cpu(tid, cpu);
    realtime && sys::set_priority(tid, Some(PRIO)).is_ok()
}

/// The other side in a child process: `KIND:NAME:OPS:START_NS_FROM_NOW`.
/// Opens the published segment, prints `ready`, runs its `OPS`
/// operations and prints `ns reps` lines, one per operation.
pub fn peer(spec: &str) -> Result<(), Error> {
    let bad = || Error::BadInput(format!("--peer {spec}: expected KIND:NAME:OPS"));
    let mut it = spec.split(':');
    let kind = it.next().and_then(kind_named).ok_or_else(bad)?;
    let name = it.next().ok_or_else(bad)?;
    let n: usize = it.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let deadline = Instant::now() + Duration::from_secs(5);
    let seg = loop {
        match Segment::<u64>::open(name, kind, capacity(kind)) {
            Ok(s) => break s,
            Err(e) if Instant::now() > deadline => {
                return Err(Error::Environment(format!("opening {name}: {e}")));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let op = other_side(kind, &seg).map_err(Error::Environment)?;
    let allowed = sys::allowed_cpus();
    place(allowed.first().copied().unwrap_or(0), false);
    let clock = crate::locks::stats::clock_cost();
    println!("ready");
    // The parent starts its side now; so does this one.
    let s = periodic(op, n, Instant::now(), clock);
    let mut out = String::new();
    for (ns, r) in s.ns.iter().zip(&s.reps) {
        let _ = writeln!(out, "{ns:.0} {r}");
    }
    print!("{out}");
    Ok(())
}

/// Runs both sides of `kind`, between threads or processes.
fn pair(
    kind: Kind,
    n: usize,
    processes: bool,
    clock: f64,
) -> Result<(Samples, Samples, bool), Error> {
    let env = Error::Environment;
    let mut seg = Segment::<u64>::create(kind, capacity(kind)).map_err(|e| env(e.to_string()))?;
    let allowed = sys::allowed_cpus();
    let rt_cpu = allowed.last().copied().unwrap_or(0);
    if processes {
        let name = format!("rtsync-repro-{}-{kind:?}", std::process::id());
        seg.publish(&name).map_err(|e| env(e.to_string()))?;
        let rt = rt_side(kind, &seg).map_err(env)?;
        let exe = std::env::current_exe().map_err(|e| env(e.to_string()))?;
        let mut child = std::process::Command::new(exe)
            .args([
                "reproduce",
                "--peer",
                &format!("{}:{name}:{n}", name_of(kind)),
            ])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| env(format!("starting the peer process: {e}")))?;
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        match lines.next() {
            Some(Ok(l)) if l == "ready" => {}
            other => {
                let _ = child.kill();
                return Err(env(format!("the peer process did not start: {other:?}")));
            }
        }
        let (rt_samples, realtime) = std::thread::scope(|s| {
            s.spawn(|| {
                let realtime = place(rt_cpu, true);
                let out = periodic(rt, n, Instant::now(), clock);
                let _ = sys::set_priority(sys::gettid(), None);
                (out, realtime)
            })
            .join()
            .expect("the real-time side does not panic")
        });
        let mut other = Samples::default();
        for l in lines.map_while(Result::ok) {
            let mut w = l.split(' ');
            if let (Some(ns), Some(r)) = (w.next(), w.next()) {
                other.ns.push(ns.parse().unwrap_or(0.0));
                other.reps.push(r.parse().unwrap_or(0));
            }
        }
        let status = child.wait().map_err(|e| env(e.to_string()))?;
        if !status.success() || other.ns.len() != n {
            return Err(env(format!(
                "the peer process failed ({status}) after {} of {n} operations",
                other.ns.len()
            )));
        }
        Ok((rt_samples, other, realtime))
    } else {
        let rt = rt_side(kind, &seg).map_err(env)?;
        let op = other_side(kind, &seg).map_err(env)?;
        let start = Instant::now() + Duration::from_millis(5);
        let other_cpu = allowed.first().copied().unwrap_or(0);
        std::thread::scope(|s| {
            let other = s.spawn(move || {
                place(other_cpu, false);
                periodic(op, n, start, clock)
            });
            let rt = s.spawn(move || {
                let realtime = place(rt_cpu, true);
                let out = periodic(rt, n, start, clock);
                let _ = sys::set_priority(sys::gettid(), None);
                (out, realtime)
            });
            let (rt, realtime) = rt.join().expect("the real-time side does not panic");
            let other = other.join().expect("the other side does not panic");
            Ok((rt, other, realtime))
        })
    }
}

fn name_of(kind: Kind) -> &'static str {
    CHANNELS.iter().find(|c| c.0 == kind).map_or("?", |c| c.1)
}

/// Worst, mean and standard deviation of `v`.
fn moments(v: &[f64]) -> [f64; 3] {
    let (mean, std) = crate::locks::stats::mean_std(v);
    [v.iter().copied().fold(0.0, f64::max), mean, std]
}

pub(crate) fn run(quick: bool) -> Result<Made, Error> {
    let n = if quick { 2_000 } else { 100_000 };
    let clock = crate::locks::stats::clock_cost();
    let isolated = std::fs::read_to_string("/sys/devices/system/cpu/isolated")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let mut csv = String::from(
        "channel,between,side,op,worst_ns,mean_ns,std_ns,max_repetitions,ops_repeated\n",
    );
    let mut table = String::new();
    let mut groups = Vec::new();
    let mut all_realtime = true;
    // Shown on a terminal only (indicatif hides it elsewhere).
    let bar = indicatif::ProgressBar::new(2 * CHANNELS.len() as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "002-tables {bar:30} {pos}/{len} cases ({msg}), {elapsed} (eta {eta})",
        )
        .expect("static template"),
    );
    for (kind, name, rt_op, other_op) in CHANNELS {
        let mut bars = Vec::new();
        for processes in [false, true] {
            let between = if processes { "processes" } else { "threads" };
            bar.set_message(format!("{name}, {between}"));
            let (rt, other, realtime) = pair(kind, n, processes, clock)?;
            bar.inc(1);
            all_realtime &= realtime;
            for (side, op, s) in [("real-time", rt_op, &rt), ("other", other_op, &other)] {
                let m = moments(&s.ns);
                let max_reps = s.reps.iter().copied().max().unwrap_or(0);
                let repeated = s.reps.iter().filter(|&&r| r > 0).count();
                let _ = writeln!(
                    csv,
                    "{name},{between},{side},{op},{:.0},{:.1},{:.1},{max_reps},{repeated}",
                    m[0], m[1], m[2]
                );
                let _ = writeln!(
                    table,
                    "  {name:<6} {between:<9} {side:<9} {op:<5}  worst {:>8.0}  mean {:>7.1}  std {:>7.1}{}",
                    m[0],
                    m[1],
                    m[2],
                    if max_reps > 0 {
                        format!("  repeated {repeated} of {n}, at most {max_reps} times")
                    } else {
                        String::new()
                    }
                );
                if side == "real-time" {
                    bars.push((format!("real-time side, {between}"), m[1]));
                }
            }
        }
        groups.push((name.to_string(), bars));
    }
    bar.finish_and_clear();
    let figure = rtsync_report::plot::bars(
        &groups,
        "real-time side's mean operation time (ns), threads and processes",
        "ns",
    );
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Paper 002 Tables 2 to 6 measure each channel on an Android/Linux ARM device, both sides \
         periodic every 100 us on isolated cores, 10^8 operations: the averages small (the real-time \
         side's jitter not raised by the protocols), the worst times set by non-maskable interrupts \
         and kernel threads the isolation cannot stop (up to about 250 us), the non-real-time side \
         repeating rarely (at most 3 times for SDrtR's writer, 2 for SDrtW's reader).\n"
    );
    let _ = writeln!(
        o,
        "Here: {n} operations per side and case{}, both sides every 100 us, the real-time side {} on \
         the last CPU, the other on the first; CPU isolation: {}. Times in ns (the clock's cost \
         taken off):",
        if quick { " (--quick)" } else { "" },
        if all_realtime {
            "under SCHED_FIFO".to_string()
        } else {
            // The probe's message says what to grant.
            format!(
                "NOT under SCHED_FIFO ({})",
                sys::probe_realtime()
                    .err()
                    .unwrap_or_else(|| "its priority was refused".into())
            )
        },
        if isolated.is_empty() {
            "none on this machine (no isolcpus; both sides share the machine with everything else)"
                .to_string()
        } else {
            format!("the kernel isolates CPUs {isolated}, not used here")
        }
    );
    o.push_str(&table);
    o.push_str(
        "\nWhat differs and why: the machine (a shared x86-64 VM, not an ARM device with isolated \
         cores), the element (64 bits, not 32), the number of operations, and the shared memory \
         (a sealed memfd, not tmpfs: a peer cannot shrink it under the real-time side). As in the \
         paper, the worst times are the machine's interference, the means the channels' cost.\n",
    );
    Ok(Made {
        files: vec![
            ("latency.csv".into(), csv),
            ("latency.svg".into(), figure.clone()),
        ],
        figures: vec![figure],
        note: o,
    })
}
