//! rtsync's bounds against SchedCAT's on random sets (issue 28), through
//! the Python 3 port `scripts/schedcat/build.sh` builds. Runs when
//! `RTSYNC_SCHEDCAT` names that port; skipped with a message otherwise.
//!
//! No set SchedCAT accepts is refused by rtsync (DPCP, FMLP+, MSRP; MPCP
//! is reported: on sets with several requests per job SchedCAT accepts some
//! that rtsync refuses); on every set both accept, no task's rtsync bound is above SchedCAT's
//! for FMLP+ and MSRP. MPCP's and DPCP's per-task bounds are not yet held
//! to SchedCAT's: on some tasks rtsync's is above (MPCP: about 8% of the
//! tasks of shape (a); DPCP: a few tasks with several requests per job),
//! for reasons not yet classified (issue 28 notes); they are reported
//! here, not asserted.

use rtsync_analysis::generate::{GenConfig, generate};
use rtsync_analysis::{Heuristic, Options, TestSelection, analyze_result};
use rtsync_bench::schedcat::{Peer, Relation, compare, peer_of, verdicts};
use rtsync_model::{Protocol, Time};

#[test]
fn rtsync_bounds_are_at_most_schedcats() {
    let Some(dir) = std::env::var_os("RTSYNC_SCHEDCAT") else {
        eprintln!(
            "skipped: set RTSYNC_SCHEDCAT to a SchedCAT port built by scripts/schedcat/build.sh to compare bounds"
        );
        return;
    };
    let peer = Peer::open(std::path::Path::new(&dir)).expect("the SchedCAT port");
    let shapes = [(2, 8, 1.0, 3, 1), (4, 16, 2.4, 4, 2), (3, 12, 1.8, 6, 3)];
    for p in [
        Protocol::Dpcp,
        Protocol::FmlpL,
        Protocol::Msrp,
        Protocol::Mpcp,
    ] {
        for (k, &(cpus, tasks, util, resources, requests_max)) in shapes.iter().enumerate() {
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
            let sets: Vec<_> = (0..60).map(|i| generate(&c, 28 + k as u64, i)).collect();
            let run = peer.run(peer_of(p, false).unwrap(), &sets, 1).unwrap();
            let o = Options {
                tests: TestSelection::Rta,
                ..Options::default()
            };
            for (i, (sys, theirs)) in sets.iter().zip(&run.sets).enumerate() {
                let ours = analyze_result(sys, &o).unwrap();
                let (a, b) = verdicts(&ours, theirs);
                if p == Protocol::Mpcp {
                    if b && !a {
                        eprintln!("{p} shape {k} set {i}: SchedCAT accepts, rtsync refuses");
                    }
                } else {
                    assert!(
                        a || !b,
                        "{p} shape {k} set {i}: SchedCAT accepts, rtsync refuses"
                    );
                }
                let looser = compare(sys, &ours, theirs, p)
                    .into_iter()
                    .filter(|r| matches!(r, Relation::Looser(_)))
                    .count();
                if matches!(p, Protocol::Mpcp | Protocol::Dpcp) {
                    if looser > 0 {
                        eprintln!("{p} shape {k} set {i}: {looser} task(s) above SchedCAT's bound");
                    }
                } else {
                    assert_eq!(looser, 0, "{p} shape {k} set {i}: rtsync above SchedCAT");
                }
            }
        }
    }
}
