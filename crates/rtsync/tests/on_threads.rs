//! `rtsync experiment on-threads`: the runtime's soundness check on real
//! threads, its table and its errors.

mod common;
use common::{rtsync, text};

/// One uniprocessor and one multiprocessor protocol, one short system
/// each: both run (the analysis accepts these light systems), the table
/// counts their tasks, and the run ends with its finding.
#[test]
fn the_experiment_runs_systems_and_counts_their_tasks() {
    if rtsync_rt::sys::probe_realtime().is_err() {
        let o = rtsync(&["experiment", "on-threads", "--systems", "1"]);
        assert_eq!(
            o.status.code(),
            Some(3),
            "no SCHED_FIFO is the environment's"
        );
        return;
    }
    let out_dir = std::env::temp_dir().join(format!("rtsync-on-threads-{}", std::process::id()));
    for p in ["pcp", "mpcp"] {
        let o = rtsync(&[
            "experiment",
            "on-threads",
            "--protocol",
            p,
            "--systems",
            "1",
            "--utilization",
            "0.2",
            "--run-for",
            "200ms",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        let (out, err) = text(&o);
        // 1 only where a task stayed beyond the noise in three runs.
        assert!(matches!(o.status.code(), Some(0 | 1)), "{out}{err}");
        let row: Vec<&str> = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(p))
            .unwrap_or_else(|| panic!("no {p} row\n{out}"))
            .split_whitespace()
            .collect();
        // run 1, rejected 0, 8 tasks.
        assert_eq!(row[1..4], ["1", "0", "8"], "{out}");
        assert!(
            out.contains("no task beyond the noise") || out.contains("repeat: rtsync run"),
            "{out}"
        );
    }
    let _ = std::fs::remove_dir_all(out_dir);
}

#[test]
fn bad_arguments_are_the_input() {
    for (args, says) in [
        (&["--utilization", "1.5"][..], "--utilization is per CPU"),
        (&["--run-for", "soon"][..], "--run-for `soon`"),
        (&["--systems", "0"][..], "must be positive"),
    ] {
        let mut all = vec!["experiment", "on-threads", "--protocol", "pcp"];
        all.extend_from_slice(args);
        let o = rtsync(&all);
        let (out, err) = text(&o);
        // The input's fault is said before the environment is looked at.
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
