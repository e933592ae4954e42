//! `rtsync reproduce` as a user meets it: the list, a quick run's files,
//! the cache, and what bad input says.

mod common;
use common::{rtsync, text};

/// The tests that run SCHED_FIFO threads take turns: on a two-CPU
/// machine two of them at once would measure each other.
static REAL_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `target` (`--quick`) into a fresh folder and returns the
/// target's folder and the CSV `file` it wrote; `None`, after saying so, where the machine may not
/// run it (exit code 3: SCHED_FIFO not permitted, named in the error).
fn quick(target: &str, file: &str) -> Option<(common::Temp, String)> {
    let dir = out_dir(target);
    let o = rtsync(&[
        "reproduce",
        target,
        "--quick",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    if o.status.code() == Some(3) {
        assert!(err.contains("SCHED_FIFO") && err.contains("hint:"), "{err}");
        eprintln!("skipped: SCHED_FIFO is not permitted here ({err})");
        return None;
    }
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let dir = dir.inside(target);
    let csv = std::fs::read_to_string(dir.join(file)).unwrap();
    Some((dir, csv))
}

/// A CSV's rows below its header, split into cells.
fn cells(csv: &str) -> Vec<Vec<&str>> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect()
}

fn out_dir(name: &str) -> common::Temp {
    common::out(&format!("reproduce-{name}"))
}

#[test]
fn the_list_names_every_target_and_its_state() {
    let o = rtsync(&["reproduce", "--list"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    for name in [
        "001-table2",
        "001-fig6",
        "002-tables",
        "003-fig5",
        "004-table1",
        "004-fig2",
        "004-figs3-4",
    ] {
        assert!(out.contains(name), "{name} missing:\n{out}");
    }
    // Every target runs today; a later one not built would say why.
    assert_eq!(out.matches("ready").count(), 7, "{out}");
}

#[test]
fn a_quick_run_writes_its_figures_and_is_cached() {
    let dir = out_dir("figs");
    let args = [
        "reproduce",
        "004-figs3-4",
        "--quick",
        "--out",
        dir.to_str().unwrap(),
    ];
    let o = rtsync(&args);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let t = dir.join("004-figs3-4");
    // Seven panels (four of Fig. 3, three of Fig. 4), each a figure.
    for k in 1..=7 {
        let svg = std::fs::read_to_string(t.join(format!("panel-{k}.svg"))).unwrap();
        assert!(svg.contains("<polyline"), "panel {k} has no curve");
    }
    // One row per panel, curve and cap; every count within the sets.
    let csv = std::fs::read_to_string(t.join("schedulability.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(rows.len() > 100, "{} rows", rows.len());
    for r in &rows {
        let cells: Vec<&str> = r.rsplitn(3, ',').collect();
        let (ok, sets): (u64, u64) = (cells[0].parse().unwrap(), cells[1].parse().unwrap());
        assert!(ok <= sets, "{r}");
    }
    // The baseline without resources is never below a protocol's curve on
    // the same sets: a protocol only adds blocking.
    let share = |panel: &str, curve: &str, cap: &str| -> u64 {
        rows.iter()
            .find(|r| r.starts_with(panel) && r.contains(curve) && r.contains(&format!(",{cap},")))
            .map(|r| r.rsplit(',').next().unwrap().parse().unwrap())
            .unwrap_or_else(|| panic!("no row {panel} {curve} {cap}"))
    };
    for cap in ["4", "5.6", "7.2"] {
        assert!(
            share("4,8,16,", "no resources (RM)", cap) >= share("4,8,16,", "MPCP (P-RM)", cap),
            "cap {cap}"
        );
    }
    let note = std::fs::read_to_string(t.join("notes.txt")).unwrap();
    assert!(note.contains("The paper's findings"), "{note}");
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(index.contains("004-figs3-4/index.html"), "{index}");
    // Unchanged inputs: nothing redone; --force redoes it.
    let o = rtsync(&args);
    assert!(text(&o).0.contains("up to date"), "{}", text(&o).0);
    let mut forced = args.to_vec();
    forced.push("--force");
    let o = rtsync(&forced);
    assert!(text(&o).0.contains("wrote"), "{}", text(&o).0);
}

#[test]
fn bad_input_names_the_targets_and_the_missing_profile() {
    let dir = out_dir("bad");
    let o = rtsync(&["reproduce", "004-fig9", "--out", dir.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("004-figs3-4") && err.contains("--list"),
        "{err}"
    );
    let o = rtsync(&[
        "reproduce",
        "004-figs3-4",
        "--quick",
        "--overheads",
        "/nonexistent/overheads.toml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("rtsync bench locks --profile"), "{err}");
    assert!(!dir.join("004-figs3-4").join("inputs.hash").exists());
}

/// With a profile, every protocol gets its curve with overheads beside,
/// never above the curve without (overheads only inflate execution), and
/// a changed profile is a changed input: the target is redone.
#[test]
fn a_profile_adds_the_overhead_curves_below_the_plain_ones() {
    let dir = out_dir("profile");
    let profile = common::temp(
        "repro-overheads.toml",
        "context_switch = \"5us\"\nrelease = \"2us\"\n\
         [protocol.mpcp]\nlock = \"3us\"\nunlock = \"3us\"\nper_waiter = \"1us\"\n\
         [protocol.msrp]\nlock = \"3us\"\nunlock = \"3us\"\nper_waiter = \"1us\"\n\
         [protocol.pip]\nlock = \"3us\"\nunlock = \"3us\"\nper_waiter = \"1us\"\n",
    );
    let args = [
        "reproduce",
        "004-figs3-4",
        "--quick",
        "--overheads",
        profile.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ];
    let o = rtsync(&args);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let csv = std::fs::read_to_string(dir.join("004-figs3-4/schedulability.csv")).unwrap();
    let count = |prefix: &str| -> u64 { prefix.rsplit(',').next().unwrap().parse().unwrap() };
    let mut compared = 0;
    for row in csv.lines().filter(|r| r.contains(" + overheads")) {
        let plain = row.replace(" + overheads", "");
        let twin = csv
            .lines()
            .find(|r| r.rsplit_once(',').map(|x| x.0) == plain.rsplit_once(',').map(|x| x.0))
            .unwrap_or_else(|| panic!("no plain twin of {row}"));
        assert!(count(row) <= count(twin), "{row} above {twin}");
        compared += 1;
    }
    assert!(compared > 50, "{compared} overhead rows");
    std::fs::write(&profile, "context_switch = \"6us\"\n").unwrap();
    let o = rtsync(&args);
    assert!(
        text(&o).0.contains("wrote"),
        "a changed profile was not redone"
    );
}

/// Paper 004 Fig. 2 on the protocol core: every protocol has its row at
/// none waiting, the ones whose tasks can wait have every count up to 64,
/// and each row's order statistics are ordered. (Times are not asserted:
/// they are measurements on a shared machine.)
#[test]
fn the_p_and_v_costs_cover_every_protocol() {
    // Its hand-off part runs SCHED_FIFO threads where permitted.
    let _turn = REAL_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (dir, csv) = quick("004-fig2", "costs.csv").expect("004-fig2 needs no real-time thread");
    let rows = cells(&csv);
    for p in [
        "npcs", "pip", "pcp", "ipcp", "srp", "mpcp", "dpcp", "fmlp-s", "fmlp-l", "dflp", "msrp",
        "mrsp",
    ] {
        let mine: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == p).collect();
        let counts: Vec<&str> = mine.iter().filter(|r| r[2] == "p").map(|r| r[1]).collect();
        // A job under these never finds its resource taken once it runs.
        let want: &[&str] = if ["npcs", "ipcp", "srp"].contains(&p) {
            &["0"]
        } else {
            &["0", "1", "2", "4", "8", "16", "32", "64"]
        };
        assert_eq!(counts, want, "{p}");
        assert_eq!(
            mine.iter().filter(|r| r[2] == "v").count(),
            want.len(),
            "{p}"
        );
        for r in mine {
            let q: Vec<f64> = r[3..].iter().map(|x| x.parse().unwrap()).collect();
            assert!(q.windows(2).all(|w| w[0] <= w[1]), "{r:?}");
        }
    }
    for f in ["p.svg", "v.svg", "notes.txt", "index.html"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    // v with the kernel: measured on real threads, or the note says why not.
    let notes = std::fs::read_to_string(dir.join("notes.txt")).unwrap();
    let Ok(hand) = std::fs::read_to_string(dir.join("handoff.csv")) else {
        assert!(notes.contains("was not measured"), "{notes}");
        return;
    };
    let rows = cells(&hand);
    let series =
        |name: &str| -> Vec<&str> { rows.iter().filter(|r| r[0] == name).map(|r| r[1]).collect() };
    for name in ["PI futex", "PIP", "PCP"] {
        assert_eq!(series(name), ["1", "2", "4", "8"], "{name}");
    }
    if rtsync_rt_cpus() > 1 {
        assert_eq!(series("MPCP (other CPU)"), ["1", "2", "4", "8"]);
        // One waiter per other CPU where waiters spin.
        assert_eq!(series("MSRP (other CPU)"), ["1"]);
    }
    for r in &rows {
        let q: Vec<f64> = r[2..].iter().map(|x| x.parse().unwrap()).collect();
        assert!(q[0] > 0.0 && q.windows(2).all(|w| w[0] <= w[1]), "{r:?}");
    }
    assert!(dir.join("handoff.svg").is_file() && notes.contains("kernel included"));
}

/// The CPUs this process may run on.
fn rtsync_rt_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Paper 004 Table I from this binary: the state sizes, and code sizes
/// read from its symbol table, every group found.
#[test]
fn the_footprint_is_read_from_this_binary() {
    let dir = out_dir("table1");
    let o = rtsync(&["reproduce", "004-table1", "--out", dir.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let csv = std::fs::read_to_string(dir.join("004-table1/footprint.csv")).unwrap();
    let bytes = |what: &str| -> u64 {
        csv.lines()
            .find(|l| l.starts_with(what))
            .and_then(|l| l.rsplit(',').next())
            .and_then(|b| b.parse().ok())
            .unwrap_or_else(|| panic!("no `{what}` in\n{csv}"))
    };
    assert!(bytes("state per resource") > 0 && bytes("state per thread") > 0);
    let core = bytes("code: the protocol core, all of it");
    let p = bytes("code: p's entry points");
    let v = bytes("code: v's entry points");
    let rules = bytes("code: rules of all twelve");
    // The parts are found and lie within the whole.
    assert!(p > 0 && v > 0 && rules > 0, "{csv}");
    assert!(p + v + rules <= core, "{csv}");
    assert!(out.contains("MSRP Global") && out.contains("1674"), "{out}");
}

/// Paper 003 Fig. 5 on SCHED_FIFO threads: every multiprocessor protocol
/// has its lock and unlock row, from the same calls, with ordered order
/// statistics. Skipped with a message where SCHED_FIFO is not permitted
/// (the command says so with exit code 3).
#[test]
fn lock_costs_under_the_table1_application() {
    let _turn = REAL_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some((dir, csv)) = quick("003-fig5", "costs.csv") else {
        return;
    };
    let rows = cells(&csv);
    for p in ["mpcp", "dpcp", "fmlp-s", "fmlp-l", "dflp", "msrp", "mrsp"] {
        let mine: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == p).collect();
        let ops: Vec<&str> = mine.iter().map(|r| r[1]).collect();
        // The distributed protocols move the caller to the
        // synchronization CPU and back, timed apart inside the calls; the
        // others never move a caller between CPUs.
        let migrates = matches!(p, "dpcp" | "dflp");
        if migrates {
            assert_eq!(ops, ["lock", "unlock", "migrate-to", "migrate-back"], "{p}");
        } else if p != "mrsp" {
            assert_eq!(ops, ["lock", "unlock"], "{p}");
        }
        assert_eq!(mine[0][2], mine[1][2], "{p}: lock and unlock counts differ");
        let n: u64 = mine[0][2].parse().unwrap();
        assert!(n > 0, "{p}: no call");
        for r in &mine {
            let q: Vec<f64> = r[4..].iter().map(|x| x.parse().unwrap()).collect();
            assert!(q.windows(2).all(|w| w[0] <= w[1]), "{r:?}");
        }
        if migrates {
            // Moves within calls: at most one per call, each inside the
            // call that made it (no longer than the longest such call).
            for (call, mv) in [(mine[0], mine[2]), (mine[1], mine[3])] {
                assert!(mv[2].parse::<u64>().unwrap() <= n, "{mv:?}");
                let (longest, move_max): (f64, f64) =
                    (call[7].parse().unwrap(), mv[7].parse().unwrap());
                assert!(move_max > 0.0 && move_max <= longest, "{call:?} {mv:?}");
            }
        }
    }
    assert!(dir.join("costs.svg").is_file());
}

/// Paper 001 Fig. 6: one row per heap size, the mean within the batches'
/// spread; needs no real-time thread.
#[test]
fn the_notification_heap_against_its_size() {
    let (_, csv) = quick("001-fig6", "heap.csv").expect("001-fig6 needs no real-time thread");
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.first().map(|r| r[0]), Some(1.0));
    assert_eq!(rows.last().map(|r| r[0]), Some(100.0));
    for r in &rows {
        // mean > 0, std >= 0, the largest batch at least the mean.
        assert!(r[1] > 0.0 && r[2] >= 0.0 && r[3] >= r[1], "{r:?}");
    }
}

/// Paper 001 Table 2 on SCHED_FIFO threads: every interface case and
/// the hand-offs, with the paper's ratio beside the single-interface
/// cases. Skipped with a message where SCHED_FIFO is not permitted.
#[test]
fn component_overheads_against_the_built_in() {
    let _turn = REAL_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some((_, csv)) = quick("001-table2", "overheads.csv") else {
        return;
    };
    for case in [
        "built-in",
        "\"fixed\"",
        "\"propagated\"",
        "inherited, unlocked",
        "inherited to inherited",
        "inherited to propagated",
        "inherited, locked",
        "nest",
    ] {
        assert!(csv.contains(case), "{case} missing:\n{csv}");
    }
    // The paper's ratios, from its Table 2: fixed 1.18, propagated 1.61.
    let paper = |case: &str| -> String {
        csv.lines()
            .find(|l| l.starts_with(case))
            .and_then(|l| l.rsplit(',').next())
            .unwrap()
            .to_string()
    };
    assert_eq!(paper("\"fixed\""), "1.182");
    assert_eq!(paper("\"propagated\""), "1.613");
}

/// Paper 002 Tables 2-6: every channel between threads and between
/// processes (the other side a second rtsync process opening the segment
/// by name), both sides, worst at least the mean.
#[test]
fn channel_latency_between_threads_and_processes() {
    let _turn = REAL_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some((_, csv)) = quick("002-tables", "latency.csv") else {
        return;
    };
    let rows = cells(&csv);
    assert_eq!(rows.len(), 5 * 2 * 2, "{csv}");
    for ch in ["SDrtR", "SDrtW", "QrtWo", "QrtWc", "QrtR"] {
        for between in ["threads", "processes"] {
            for side in ["real-time", "other"] {
                let r = rows
                    .iter()
                    .find(|r| r[0] == ch && r[1] == between && r[2] == side)
                    .unwrap_or_else(|| panic!("no row {ch} {between} {side}"));
                let (worst, mean, std): (f64, f64, f64) = (
                    r[4].parse().unwrap(),
                    r[5].parse().unwrap(),
                    r[6].parse().unwrap(),
                );
                assert!(worst >= mean && mean >= 0.0 && std >= 0.0, "{r:?}");
            }
        }
    }
}
