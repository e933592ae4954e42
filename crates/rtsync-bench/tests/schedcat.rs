//! rtsync's bounds against SchedCAT's on random sets (issue 28), through
//! the Python 3 port `scripts/schedcat/build.sh` builds. Runs when
//! `RTSYNC_SCHEDCAT` names that port; skipped with a message otherwise.
//!
//! No set SchedCAT accepts is refused by rtsync (DPCP, FMLP+, MSRP, MPCP);
//! on every set both accept, no task's rtsync bound is above SchedCAT's.
//! (MPCP's gap closed when rtsync's MPCP took Lakshmanan et al.'s remote
//! ceilings, as SchedCAT's does, and its local term stopped charging the
//! local blocker's global section too; DPCP's, a few tasks with several
//! requests per job, when each request was charged its own section, not
//! the task's longest.)
//!
//! The LP forms (`--analysis lp`) against SchedCAT's LP analyses (GLPK):
//! no set `lp-dpcp`, `lp-fmlp+`, `lp-dflp` or `lp-msrp` accepts is refused by rtsync,
//! and no task's bound is above SchedCAT's LP bound. `lp-mpcp` is reported,
//! not asserted: on 57 of these 180 sets some rtsync LP MPCP bound is above
//! SchedCAT's. 38 of them come from constraint 11, which SchedCAT states
//! unsoundly (rtsync's `lp::mpcp` doc, and
//! `tests/data/mpcp-lower-preempts-a-holder-ahead.toml` in rtsync-analysis);
//! of the other 19, 10 are SchedCAT's wait recurrence stopped short of
//! its solution (`scripts/schedcat/converge-mpcp-waits.sh` lets it
//! converge) and 9 have a cause not found yet (docs/ANALYSIS.md, "LP
//! bounds").

use rtsync_analysis::generate::{GenConfig, generate};
use rtsync_analysis::{BoundForm, Heuristic, Options, TestSelection, analyze_result};
use rtsync_bench::schedcat::{Peer, Relation, compare, peer_of, verdicts};
use rtsync_model::{Protocol, Time};

/// The port named by `RTSYNC_SCHEDCAT`, or `None` after saying why the
/// test is skipped.
fn peer() -> Option<Peer> {
    let Some(dir) = std::env::var_os("RTSYNC_SCHEDCAT") else {
        eprintln!(
            "skipped: set RTSYNC_SCHEDCAT to a SchedCAT port built by scripts/schedcat/build.sh to compare bounds"
        );
        return None;
    };
    Some(Peer::open(std::path::Path::new(&dir)).expect("the SchedCAT port"))
}

/// `(cpus, tasks, utilization, resources, requests per resource)`: one
/// request per job, two, three.
const SHAPES: [(usize, usize, f64, usize, u32); 3] =
    [(2, 8, 1.0, 3, 1), (4, 16, 2.4, 4, 2), (3, 12, 1.8, 6, 3)];

/// The 60 sets of shape `k` under `p`.
fn sets(p: Protocol, k: usize) -> Vec<rtsync_model::System> {
    let (cpus, tasks, util, resources, requests_max) = SHAPES[k];
    let c = GenConfig {
        cpus,
        tasks,
        utilization: util,
        resources,
        requests_max,
        protocol: p,
        cs_max: Time::from_us(500),
        partition: Some(Heuristic::WorstFit),
        ..GenConfig::default()
    };
    (0..60).map(|i| generate(&c, 28 + k as u64, i)).collect()
}

#[test]
fn rtsync_lp_bounds_against_schedcats_lp() {
    let Some(peer) = peer() else { return };
    for p in [
        Protocol::Dpcp,
        Protocol::FmlpL,
        Protocol::Dflp,
        Protocol::Msrp,
        Protocol::Mpcp,
    ] {
        for k in 0..SHAPES.len() {
            let sets = sets(p, k);
            let run = peer.run(peer_of(p, true).unwrap(), &sets, 1).unwrap();
            let o = Options {
                tests: TestSelection::Rta,
                form: BoundForm::Lp,
                ..Options::default()
            };
            for (i, (sys, theirs)) in sets.iter().zip(&run.sets).enumerate() {
                let ours = analyze_result(sys, &o).unwrap();
                let (a, b) = verdicts(&ours, theirs);
                let looser = compare(sys, &ours, theirs, p)
                    .into_iter()
                    .filter(|r| matches!(r, Relation::Looser(_)))
                    .count();
                if p == Protocol::Mpcp {
                    if b && !a {
                        eprintln!(
                            "{p} LP shape {k} set {i}: SchedCAT's LP accepts, rtsync's refuses"
                        );
                    }
                    if looser > 0 {
                        eprintln!("{p} LP shape {k} set {i}: {looser} task(s) above SchedCAT's LP");
                    }
                    continue;
                }
                assert!(
                    a || !b,
                    "{p} LP shape {k} set {i}: SchedCAT's LP accepts, rtsync's refuses"
                );
                assert_eq!(
                    looser, 0,
                    "{p} LP shape {k} set {i}: rtsync above SchedCAT's LP"
                );
            }
        }
    }
}

#[test]
fn rtsync_bounds_are_at_most_schedcats() {
    let Some(peer) = peer() else { return };
    for p in [
        Protocol::Dpcp,
        Protocol::FmlpL,
        Protocol::Msrp,
        Protocol::Mpcp,
    ] {
        for k in 0..SHAPES.len() {
            let sets = sets(p, k);
            let run = peer.run(peer_of(p, false).unwrap(), &sets, 1).unwrap();
            let o = Options {
                tests: TestSelection::Rta,
                ..Options::default()
            };
            for (i, (sys, theirs)) in sets.iter().zip(&run.sets).enumerate() {
                let ours = analyze_result(sys, &o).unwrap();
                let (a, b) = verdicts(&ours, theirs);
                assert!(
                    a || !b,
                    "{p} shape {k} set {i}: SchedCAT accepts, rtsync refuses"
                );
                let looser = compare(sys, &ours, theirs, p)
                    .into_iter()
                    .filter(|r| matches!(r, Relation::Looser(_)))
                    .count();
                assert_eq!(looser, 0, "{p} shape {k} set {i}: rtsync above SchedCAT");
            }
        }
    }
}

/// The port times each set as well as the whole run (the bench's time by
/// verdict): one time per set, each positive, together within the run's
/// (which holds them), and each repeat's fastest kept.
#[test]
fn schedcat_times_each_set() {
    let Some(peer) = peer() else { return };
    let sets = sets(Protocol::Dpcp, 1);
    let run = peer
        .run(peer_of(Protocol::Dpcp, false).unwrap(), &sets, 2)
        .unwrap();
    assert_eq!(run.set_seconds.len(), sets.len());
    assert!(
        run.set_seconds.iter().all(|&t| t > 0.0),
        "{:?}",
        run.set_seconds
    );
    let sum: f64 = run.set_seconds.iter().sum();
    // Two repeats: the fastest of each set's two is at most half their sum.
    assert!(
        sum <= run.seconds / 2.0 * 1.0001,
        "{sum} against {}",
        run.seconds
    );
}
