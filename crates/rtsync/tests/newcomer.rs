//! What a newcomer meets (issue 23): one validation behind `check` and
//! `analyze`, file names in every message, bounds printed as a person reads
//! them, and the same spelling of a time in every command.

mod common;
use common::{rtsync, temp, text};

/// Two PIP users with 1.4 of utilization between them: no placement keeps
/// them on one CPU, so PIP (a uniprocessor protocol) cannot hold.
const PIP_SPLIT: &str = "[platform]\ncpus = 8\nprotocol = \"pip\"\n\
[[resource]]\nname = \"A\"\n\
[[task]]\nname = \"a\"\nperiod = \"10ms\"\nbody = [ { lock = \"A\", hold = \"7ms\" } ]\n\
[[task]]\nname = \"b\"\nperiod = \"10ms\"\nbody = [ { lock = \"A\", hold = \"7ms\" } ]\n";

#[test]
fn check_refuses_what_analyze_refuses_and_both_name_the_file() {
    let p = temp("pip-split.toml", PIP_SPLIT);
    let path = p.to_str().unwrap();
    for cmd in ["check", "analyze"] {
        let o = rtsync(&[cmd, path]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains(&format!("{path}:4:1: resource \"A\"")),
            "{cmd} must name file, line and resource: {err}"
        );
        assert!(err.contains("uniprocessor protocol"), "{cmd}: {err}");
    }
    // With room on one CPU, check accepts and shows where analyze will
    // place the tasks.
    let p = temp("pip-fits.toml", &PIP_SPLIT.replace("7ms", "3ms"));
    let o = rtsync(&["check", p.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains("placement (sync partitioning"), "{out}");
}

/// An MPCP system whose remote-blocking recurrences diverge.
const DIVERGES: &str = "[platform]\ncpus = 2\nprotocol = \"mpcp\"\n\
[[resource]]\nname = \"A\"\n\
[[task]]\nname = \"a\"\nperiod = \"10ms\"\ncpu = 0\nbody = [ { lock = \"A\", hold = \"6ms\" } ]\n\
[[task]]\nname = \"b\"\nperiod = \"10ms\"\ncpu = 1\nbody = [ { lock = \"A\", hold = \"6ms\" } ]\n\
[[task]]\nname = \"c\"\nperiod = \"12ms\"\ncpu = 1\nbody = [ { lock = \"A\", hold = \"6ms\" } ]\n";

#[test]
fn unbounded_blocking_reads_unbounded_in_tables_and_null_with_a_reason_in_json() {
    let p = temp("diverges.toml", DIVERGES);
    let o = rtsync(&["analyze", p.to_str().unwrap()]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.contains("unbounded"), "{out}");
    assert!(!out.contains("18446744073709551"), "{out}");

    let o = rtsync(&["analyze", p.to_str().unwrap(), "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tasks = doc["result"]["tasks"].as_array().unwrap();
    let b = &tasks.iter().find(|t| t["name"] == "b").unwrap()["blocking"];
    assert!(b["remote"].is_null(), "{b}");
    assert!(
        b["unbounded_reason"]
            .as_str()
            .is_some_and(|r| r.contains("deadline")),
        "{b}"
    );
    // A bounded task carries no reason.
    let a = &tasks.iter().find(|t| t["name"] == "a").unwrap()["blocking"];
    assert!(
        a["remote"].is_u64() && a.get("unbounded_reason").is_none(),
        "{a}"
    );
}

#[test]
fn zero_is_spelled_the_same_in_every_command() {
    // `analyze` prints zero blocking, `simulate` zero blocked time: both `0`.
    let o = rtsync(&["analyze", "pip-chained"]);
    let (out, _) = text(&o);
    assert!(out.contains(" 0 ") && !out.contains("0ns"), "{out}");
    let o = rtsync(&["simulate", "pip-chained", "--horizon", "50ms"]);
    let (out, _) = text(&o);
    assert!(!out.contains("0ns"), "{out}");
}
