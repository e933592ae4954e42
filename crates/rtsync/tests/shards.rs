//! Experiments split into shards (`--shard I/N`) and added up by `rtsync
//! merge`: the merged files are the single run's, byte for byte, for any
//! shard count; a retried shard writes the same bytes; a missing,
//! foreign or inconsistent part is refused with what to do.

mod common;
use common::{rtsync, text};
use std::path::Path;

fn dir(name: &str) -> common::Temp {
    common::out(&format!("shards-{name}"))
}

fn ok(args: &[&str]) -> String {
    let o = rtsync(args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "rtsync {args:?} failed:\n{out}\n{err}");
    out
}

fn read(d: &Path, f: &str) -> Vec<u8> {
    std::fs::read(d.join(f)).unwrap_or_else(|e| panic!("{}: {e}", d.join(f).display()))
}

const SWEEP: &[&str] = &[
    "experiment",
    "schedulability",
    "--cpus",
    "2",
    "--tasks",
    "6",
    "--sets",
    "23",
    "--protocols",
    "mpcp,dpcp,fmlp-s",
    "--analysis",
    "both",
    "--from",
    "0.4",
    "--to",
    "1.8",
    "--step",
    "0.7",
];

fn with(base: &[&str], more: &[&str]) -> Vec<String> {
    base.iter().chain(more).map(|s| s.to_string()).collect()
}

fn run(args: Vec<String>) -> String {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&a)
}

#[test]
fn a_sweep_in_shards_merges_to_the_single_runs_files() {
    let whole = dir("sweep-whole");
    run(with(SWEEP, &["--out", whole.to_str().unwrap()]));
    let csv = read(&whole, "schedulability.csv");
    // Not trivially all-or-nothing: the counts tell the curves apart.
    let text = String::from_utf8_lossy(&csv);
    assert!(
        text.contains("lp:dpcp") && text.lines().count() == 1 + 3 * 6,
        "{text}"
    );
    // 69 systems in 1, 2, 4 and 7 shards (7 does not divide 69).
    let mut seven = None;
    for n in [1u32, 2, 4, 7] {
        let parts = dir(&format!("sweep-parts-{n}"));
        for i in 0..n {
            run(with(
                SWEEP,
                &[
                    "--shard",
                    &format!("{i}/{n}"),
                    "--out",
                    parts.to_str().unwrap(),
                ],
            ));
        }
        let merged = dir(&format!("sweep-merged-{n}"));
        let out = ok(&[
            "merge",
            parts.to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
        ]);
        assert!(out.contains("weighted"), "merge prints the table:\n{out}");
        for f in ["schedulability.csv", "schedulability.svg"] {
            assert!(
                read(&whole, f) == read(&merged, f),
                "{f} differs with {n} shards"
            );
        }
        if n == 7 {
            seven = Some(parts);
        }
    }
    // A retried shard writes the same bytes.
    let again = dir("sweep-again");
    run(with(
        SWEEP,
        &["--shard", "3/7", "--out", again.to_str().unwrap()],
    ));
    assert_eq!(
        read(&again, "part-3-of-7.json"),
        read(&seven.expect("the 7 shards ran"), "part-3-of-7.json")
    );
}

#[test]
fn merge_refuses_missing_foreign_and_inconsistent_parts() {
    let parts = dir("bad-parts");
    let p = parts.to_str().unwrap();
    for i in [0, 2] {
        run(with(SWEEP, &["--shard", &format!("{i}/3"), "--out", p]));
    }
    let o = rtsync(&["merge", p]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("missing shard(s) 1/3") && err.contains("--shard"),
        "{err}"
    );

    // Shard 1 of another sweep (another seed) is not this sweep's.
    let other = dir("bad-other");
    run(with(
        SWEEP,
        &[
            "--seed",
            "9",
            "--shard",
            "1/3",
            "--out",
            other.to_str().unwrap(),
        ],
    ));
    let foreign = other.join("part-1-of-3.json");
    let o = rtsync(&["merge", p, foreign.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert!(err.contains("another experiment"), "{err}");

    // The same shard twice with different findings: one was tampered with.
    run(with(SWEEP, &["--shard", "1/3", "--out", p]));
    let good = std::fs::read_to_string(parts.join("part-1-of-3.json")).unwrap();
    let twin = other.join("part-1-of-3-copy.json");
    let tampered = good.replacen(
        "\"schedulability\": [\n",
        "\"schedulability\": [\n    [\n      99,\n      0\n    ],\n",
        1,
    );
    assert_ne!(tampered, good, "the edit took");
    std::fs::write(&twin, tampered).unwrap();
    let o = rtsync(&["merge", p, twin.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert!(err.contains("both shard 1/3"), "{err}");

    // Split another way.
    let four = dir("bad-four");
    run(with(
        SWEEP,
        &["--shard", "0/4", "--out", four.to_str().unwrap()],
    ));
    let o = rtsync(&["merge", p, four.join("part-0-of-4.json").to_str().unwrap()]);
    let (_, err) = text(&o);
    assert!(err.contains("split the same way"), "{err}");

    // Not a part file, and a bad shard.
    let junk = other.join("part-junk.json");
    std::fs::write(&junk, "{}").unwrap();
    let (_, err) = text(&rtsync(&["merge", junk.to_str().unwrap()]));
    assert!(err.contains("not an rtsync part file"), "{err}");
    let o = rtsync(
        &with(SWEEP, &["--shard", "3/3"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("0 <= I < N"), "{err}");
}

#[test]
fn the_soundness_experiment_in_shards_merges_to_the_single_runs_files() {
    let base = [
        "experiment",
        "soundness",
        "--protocol",
        "msrp",
        "--edf",
        "--systems",
        "25",
        "--search-budget",
        "1500",
        "--seed",
        "5",
    ];
    let whole = dir("sound-whole");
    let out = run(with(&base, &["--out", whole.to_str().unwrap()]));
    assert!(out.contains("no violations"), "{out}");
    let csv = String::from_utf8(read(&whole, "soundness.csv")).unwrap();
    // MSRP under fp and edf: two cases, schedulable systems simulated.
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(
        !csv.contains(",0,0,0,"),
        "some systems were simulated: {csv}"
    );
    let parts = dir("sound-parts");
    for i in 0..3 {
        run(with(
            &base,
            &[
                "--shard",
                &format!("{i}/3"),
                "--out",
                parts.to_str().unwrap(),
            ],
        ));
    }
    let merged = dir("sound-merged");
    let out = ok(&[
        "merge",
        parts.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(out.contains("msrp") && out.contains("p99"), "{out}");
    for f in ["soundness.csv", "tightness.svg"] {
        assert!(read(&whole, f) == read(&merged, f), "{f} differs");
    }
}
