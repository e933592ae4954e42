//! `rtsync bench parse`: how loading a spec grows with its size.
//!
//! A spec of N tasks (four CPUs, ten MPCP resources, each task a
//! computation and a section) is loaded the way `rtsync check` loads it
//! (TOML, conversion with a position for every key, validation), for N up
//! to 100,000. Beside it, in the same run, the TOML crate parsing the same
//! text into a plain table: the floor any loader built on it pays. Linear
//! loading shows as a flat time per task; the target is 100,000 tasks in
//! under a second.

use crate::Error;
use std::time::{Duration, Instant};

/// The spec text of `n` tasks.
pub fn spec(n: usize) -> String {
    let mut s = String::from("[platform]\ncpus = 4\nprotocol = \"mpcp\"\n");
    for r in 0..10 {
        s += &format!("[[resource]]\nname = \"r{r}\"\n");
    }
    for i in 0..n {
        s += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"{}s\"\ncpu = {}\n\
             body = [ {{ compute = \"1us\" }}, {{ lock = \"r{}\", hold = \"1us\" }} ]\n",
            1000 + i,
            i % 4,
            i % 10
        );
    }
    s
}

/// The best of `reps` runs of `f`.
fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

pub fn run(max_tasks: usize) -> Result<(), Error> {
    if max_tasks < 1000 {
        return Err(Error::BadInput("--tasks must be at least 1000".into()));
    }
    println!(
        "rtsync bench parse: loading a spec (TOML, conversion, validation) against its size; \
         beside it the toml crate parsing the same text into a table (best of 3, one thread)\n"
    );
    let mut sizes = vec![1000];
    while *sizes.last().unwrap() * 10 <= max_tasks {
        sizes.push(sizes.last().unwrap() * 10);
    }
    if *sizes.last().unwrap() != max_tasks {
        sizes.push(max_tasks);
    }
    let mut tb = rtsync_report::table::Table::new(&[
        "tasks",
        "MB",
        "load (ms)",
        "us/task",
        "toml alone (ms)",
        "load / toml",
    ]);
    let mut per_task = Vec::new();
    let mut last = Duration::ZERO;
    for &n in &sizes {
        let src = spec(n);
        let ours = best(3, || {
            let r = rtsync_model::load_str(&src, Some("bench.toml"));
            assert!(r.is_ok(), "the bench spec is valid");
        });
        let peer = best(3, || {
            let t: Result<toml::Table, _> = toml::from_str(&src);
            assert!(t.is_ok());
        });
        let us = ours.as_secs_f64() * 1e6 / n as f64;
        per_task.push(us);
        last = ours;
        tb.row(vec![
            n.to_string(),
            format!("{:.1}", src.len() as f64 / 1e6),
            format!("{:.1}", ours.as_secs_f64() * 1e3),
            format!("{us:.2}"),
            format!("{:.1}", peer.as_secs_f64() * 1e3),
            format!("{:.2}x", ours.as_secs_f64() / peer.as_secs_f64()),
        ]);
    }
    print!("{}", tb.render());
    let growth = per_task.last().unwrap() / per_task[0];
    println!(
        "\nTime per task at {} tasks / at 1,000: {growth:.2}x (linear loading keeps it near 1).",
        sizes.last().unwrap()
    );
    if *sizes.last().unwrap() >= 100_000 {
        println!(
            "Target: 100,000 tasks in under 1 s: {:.2} s to load {} ({}).",
            last.as_secs_f64(),
            sizes.last().unwrap(),
            verdict(last)
        );
        // The path a user gets: `rtsync check FILE` as its own process
        // (reading the file, loading, the facts table printed).
        match check_process(&spec(*sizes.last().unwrap())) {
            Ok(t) => println!(
                "`rtsync check` on that spec, end to end in its own process (best of 3): {:.2} s ({}).",
                t.as_secs_f64(),
                verdict(t)
            ),
            Err(e) => println!("`rtsync check` end to end: not measured ({e})."),
        }
    }
    Ok(())
}

fn verdict(t: Duration) -> &'static str {
    if t < Duration::from_secs(1) {
        "met"
    } else {
        "missed"
    }
}

/// The best of three runs of this binary's `check` on `src`, its output
/// discarded.
fn check_process(src: &str) -> std::io::Result<Duration> {
    let exe = std::env::current_exe()?;
    let path = std::env::temp_dir().join(format!("rtsync-bench-parse-{}.toml", std::process::id()));
    std::fs::write(&path, src)?;
    let mut times = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let status = std::process::Command::new(&exe)
            .arg("check")
            .arg(&path)
            .stdout(std::process::Stdio::null())
            .status();
        times.push(t.elapsed());
        if !status.as_ref().is_ok_and(|s| s.success()) {
            let _ = std::fs::remove_file(&path);
            return Err(std::io::Error::other(format!(
                "check exited with {status:?}"
            )));
        }
    }
    let _ = std::fs::remove_file(&path);
    Ok(times.into_iter().min().unwrap_or_default())
}
