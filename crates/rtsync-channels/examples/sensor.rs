//! A real-time sensor loop and a non-real-time consumer, in two processes.
//!
//!     cargo run --release -p rtsync-channels --example sensor [-- SECONDS]
//!
//! The sensor process creates two channels in sealed shared memory and
//! publishes them by name, then starts the consumer (this same program with
//! the argument `consume`) and runs a 1 kHz loop for SECONDS (default 3):
//! each period it samples a simulated sensor, pushes the sample into a QrtWo
//! queue (it never waits for the consumer; when the consumer falls behind
//! the oldest samples are overwritten and counted), and reads the latest
//! gain from an SDrtR channel the consumer writes. It asks for SCHED_FIFO
//! and says so when it is not permitted. At the end both print what they
//! saw: samples received and lost, the real-time side's worst operation
//! times and late wake-ups.

use std::time::{Duration, Instant};

use rtsync_channels::shm::Segment;
use rtsync_channels::{Kind, qrtwo, sdrtr};

#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct Sample {
    seq: u64,
    at_ns: u64,
    value: f64,
}

const SAMPLES: &str = "rtsync-example-samples";
const GAIN: &str = "rtsync-example-gain";
const QUEUE: u64 = 4;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("consume") {
        consume();
        return;
    }
    let seconds: u64 = match args.get(1).map(|s| s.parse()) {
        None => 3,
        Some(Ok(s)) if (1..=600).contains(&s) => s,
        Some(_) => {
            eprintln!("usage: sensor [SECONDS (1-600, default 3)] | sensor consume");
            std::process::exit(2);
        }
    };
    sense(Duration::from_secs(seconds));
}

fn try_sched_fifo() -> Result<(), std::io::Error> {
    let param = libc::sched_param { sched_priority: 10 };
    // SAFETY: plain system call on this thread with a valid parameter.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn sense(duration: Duration) {
    let mut samples = Segment::<Sample>::create(Kind::QrtWo, QUEUE).expect("creating samples");
    let mut gain = Segment::<f64>::create(Kind::SdrtR, 1).expect("creating gain");
    samples.publish(SAMPLES).expect("publishing samples");
    gain.publish(GAIN).expect("publishing gain");
    let mut tx = qrtwo::Writer::attach(&samples).unwrap();
    let mut rx = sdrtr::Reader::attach(&gain).unwrap();

    let mut consumer = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("consume")
        .spawn()
        .expect("starting the consumer process");

    match try_sched_fifo() {
        Ok(()) => println!("sensor: running at SCHED_FIFO priority 10 (RT throttling stays on)"),
        Err(e) => println!(
            "sensor: SCHED_FIFO not permitted ({e}); running at normal priority. \
             Grant CAP_SYS_NICE or an rtprio limit to run it real-time."
        ),
    }
    let period = Duration::from_millis(1);
    let start = Instant::now();
    let (mut worst_write, mut worst_read, mut late) = (Duration::ZERO, Duration::ZERO, 0u64);
    let mut current_gain = 1.0;
    let mut seq = 0u64;
    // Bounded: one iteration per period, for `duration` only.
    while start.elapsed() < duration {
        let t = start.elapsed();
        let sample = Sample {
            seq,
            at_ns: t.as_nanos() as u64,
            value: current_gain * (t.as_secs_f64() * 6.0).sin(),
        };
        let a = Instant::now();
        tx.write(sample);
        let b = Instant::now();
        if let Ok(Some(g)) = rx.read() {
            current_gain = g;
        }
        let c = Instant::now();
        worst_write = worst_write.max(b - a);
        worst_read = worst_read.max(c - b);
        seq += 1;
        let next = period * seq as u32;
        match next.checked_sub(start.elapsed()) {
            Some(wait) => std::thread::sleep(wait),
            None => late += 1,
        }
    }
    println!(
        "sensor: {seq} samples in {:.1}s; worst QrtWo write {:?}, worst SDrtR read {:?}; \
         {late} periods started late; last gain {current_gain}",
        start.elapsed().as_secs_f64(),
        worst_write,
        worst_read
    );
    // The consumer notices the stream has stopped and exits.
    let status = consumer.wait().expect("waiting for the consumer");
    assert!(status.success(), "consumer failed");
}

fn open_with_retry<T: rtsync_channels::Element>(name: &str, kind: Kind, cap: u64) -> Segment<T> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match Segment::open(name, kind, cap) {
            Ok(s) => return s,
            Err(e) if Instant::now() > deadline => panic!("consumer: cannot open {name}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

fn consume() {
    let samples = open_with_retry::<Sample>(SAMPLES, Kind::QrtWo, QUEUE);
    let gain = open_with_retry::<f64>(GAIN, Kind::SdrtR, 1);
    let mut rx = qrtwo::Reader::attach(&samples).unwrap();
    let mut tx = sdrtr::Writer::attach(&gain).unwrap();
    let mut last_new = Instant::now();
    let mut last_report = Instant::now();
    let mut last_gain = Instant::now();
    let mut g = 1.0;
    let mut latest = None;
    let mut first = None;
    // Ends when no sample has arrived for half a second.
    while last_new.elapsed() < Duration::from_millis(500) {
        while let Some(r) = rx.read() {
            first.get_or_insert(r.value.seq);
            latest = Some(r.value);
            last_new = Instant::now();
        }
        if last_gain.elapsed() >= Duration::from_millis(100) {
            g = if g > 1.5 { 1.0 } else { g + 0.1 };
            tx.write(g);
            last_gain = Instant::now();
        }
        if last_report.elapsed() >= Duration::from_secs(1) {
            let s = rx.stats();
            println!(
                "consumer: received {}, lost {}, retries {}; latest {:?}",
                s.received, s.lost, s.retries, latest
            );
            last_report = Instant::now();
        }
        // A slow, non-real-time consumer: it polls every 5 ms.
        std::thread::sleep(Duration::from_millis(5));
    }
    let s = rx.stats();
    println!(
        "consumer: done: received {}, lost {} (overwritten while it slept), retries {}, \
         corruptions {}; it attached when sample {} was the oldest held, so \
         received + lost = {} samples from there on",
        s.received,
        s.lost,
        s.retries,
        s.corruptions,
        first.unwrap_or(0),
        s.received + s.lost
    );
}
