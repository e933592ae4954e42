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

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rtsync_analysis::generate::{GenConfig, Periods, generate};
use rtsync_analysis::{BoundForm, Heuristic, Options, TestSelection, analyze_result};
use rtsync_bench::schedcat::{Peer, Relation, Why, compare, peer_of, verdicts};
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

/// One set judged both ways: whether rtsync accepts it, whether SchedCAT
/// does, and how many of its tasks rtsync bounds above SchedCAT.
fn judge(
    sys: &rtsync_model::System,
    theirs: &rtsync_bench::schedcat::PeerAnswer,
    p: Protocol,
    o: &Options,
) -> (bool, bool, usize) {
    let ours = analyze_result(sys, o).unwrap();
    let (a, b) = verdicts(&ours, theirs);
    // Above a bound that rests on SchedCAT's unsound "no remote blocking,
    // no suspension" rule is not looseness ([`Why::Unsuspended`]).
    let looser = compare(sys, &ours, theirs, p)
        .into_iter()
        .filter(|r| matches!(r, Relation::Looser(w) if *w != Why::Unsuspended))
        .count();
    (a, b, looser)
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
                let (a, b, looser) = judge(sys, theirs, p, &o);
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
                let (a, b, looser) = judge(sys, theirs, p, &o);
                assert!(
                    a || !b,
                    "{p} shape {k} set {i}: SchedCAT accepts, rtsync refuses"
                );
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

/// A shape drawn wide for the hunt below: 2 to 6 CPUs of 2 to 8 tasks,
/// 10% to 60% load per CPU, 1 to 8 resources used with probability 0.1 to
/// 0.7, sections of 1 us up to 5 us .. 2 ms, 1 to 4 requests per
/// resource, periods log-uniform over 3x, 10x or 100x from 1 to 20 ms,
/// implicit or constrained deadlines, any of the three bin-packing
/// heuristics, DPCP's resources on the last CPU or spread. The three
/// fixed shapes above never drew the case the hunt found first.
fn wide_shape(p: Protocol, rng: &mut ChaCha8Rng) -> GenConfig {
    let cpus = rng.random_range(2..=6);
    let tasks = cpus * rng.random_range(2..=8);
    let pmin = rng.random_range(1..=20);
    let spread = [3, 10, 100][rng.random_range(0..3)];
    GenConfig {
        cpus,
        tasks,
        utilization: (cpus as f64 * rng.random_range(0.1..0.6)).min(0.9 * tasks as f64),
        resources: rng.random_range(1..=8),
        access_prob: rng.random_range(0.1..0.7),
        requests_max: rng.random_range(1..=4),
        protocol: p,
        cs_min: Time::from_us(1),
        cs_max: Time::from_us(rng.random_range(5..=2000)),
        periods: Periods::LogUniform {
            min: Time::from_ms(pmin),
            max: Time::from_ms(pmin * spread),
        },
        deadline_min: if rng.random_bool(0.5) {
            1.0
        } else {
            rng.random_range(0.5..1.0)
        },
        partition: Some(
            [Heuristic::WorstFit, Heuristic::FirstFit, Heuristic::BestFit][rng.random_range(0..3)],
        ),
        sync_spread: rng.random_bool(0.5),
        ..GenConfig::default()
    }
}

/// The hunt: `RTSYNC_HUNT_SETS` sets per analysis (300 unless set), each
/// of its own wide shape (`RTSYNC_HUNT_SEED`, 1 unless set), under every
/// classic analysis SchedCAT has and the LP ones whose bounds the test
/// above asserts. No set SchedCAT accepts is refused, and no task's bound
/// is above SchedCAT's; each offending set is written out as a spec and
/// named. A first version of it (a drawer much like this one, 3,000 sets
/// per analysis at seeds 4 to 6) found a DPCP set that SchedCAT accepts
/// and rtsync refused
/// (`tests/data/dpcp-window-past-per-request.toml` in rtsync-analysis has
/// the case worked by hand).
#[test]
fn a_hunt_over_wide_shapes_finds_rtsync_never_looser() {
    let Some(peer) = peer() else { return };
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .map(|v| {
                v.parse::<u64>()
                    .unwrap_or_else(|_| panic!("{name}={v}: not a number"))
            })
            .unwrap_or(default)
    };
    let (n, seed) = (var("RTSYNC_HUNT_SETS", 300), var("RTSYNC_HUNT_SEED", 1));
    let out = std::env::temp_dir().join("rtsync-hunt");
    let mut found = Vec::new();
    for (p, lp) in [
        (Protocol::Dpcp, false),
        (Protocol::FmlpL, false),
        (Protocol::Msrp, false),
        (Protocol::Mpcp, false),
        (Protocol::Dpcp, true),
        (Protocol::FmlpL, true),
        (Protocol::Dflp, true),
        (Protocol::Msrp, true),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ ((p as u64) << 8) ^ u64::from(lp));
        let sets: Vec<_> = (0..n)
            .map(|k| generate(&wide_shape(p, &mut rng), seed, k))
            .collect();
        let run = peer.run(peer_of(p, lp).unwrap(), &sets, 1).unwrap();
        let o = Options {
            tests: TestSelection::Rta,
            form: if lp {
                BoundForm::Lp
            } else {
                BoundForm::Classic
            },
            ..Options::default()
        };
        let (mut both, mut compared) = (0, 0);
        for (k, (sys, theirs)) in sets.iter().zip(&run.sets).enumerate() {
            let (a, b, looser) = judge(sys, theirs, p, &o);
            both += usize::from(a && b);
            compared += usize::from(b);
            if (b && !a) || looser > 0 {
                std::fs::create_dir_all(&out).unwrap();
                let file = out.join(format!(
                    "{p}{}-seed{seed}-{k}.toml",
                    if lp { "-lp" } else { "" }
                ));
                std::fs::write(&file, rtsync_model::to_toml(sys)).unwrap();
                found.push(format!(
                    "{p}{}: set {k}: {}: {}",
                    if lp { " (LP)" } else { "" },
                    if b && !a {
                        "SchedCAT accepts, rtsync refuses".to_string()
                    } else {
                        format!("{looser} task(s) above SchedCAT")
                    },
                    file.display()
                ));
            }
        }
        eprintln!("{p} lp={lp}: {n} wide sets, SchedCAT accepts {compared}, both {both}");
        // A hunt whose sets SchedCAT never accepts would compare nothing.
        assert!(
            compared * 10 >= n as usize,
            "{p} lp={lp}: SchedCAT accepts only {compared} of {n}"
        );
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// SchedCAT's LP DPCP and LP DFLP, as its own tests drive them, are below
/// a simulated response on `tests/data/oblivious-reopened-dpcp.toml`
/// (rtsync-analysis): `h` waits twice for its sections served on CPU 1,
/// and each time `x`, below `i`, issues a 6 ms request that CPU 0's
/// agents serve above `h` once it resumes. Released as the second starts
/// (6.04 ms), `i` responds in 22.962 ms; SchedCAT's LP gives 19.02 ms.
/// Its LP charges `x` once per arrival of `i` (constraint 3, sound), but
/// its response-time step treats `h` as a task without suspension (its
/// `suspended`, the LP's remote blocking, is zero: nobody else uses its
/// resource) and so with no jitter, while `h` does suspend for its own
/// sections; the lower sections met at `h`'s resumptions are charged
/// nowhere. rtsync gave 19.02 ms too until 2026-12-01 (its
/// suspension-oblivious form); it gives 23 ms, which the simulated
/// schedule stays within. SchedCAT's classic `dpcp` (29.04 ms) holds.
/// Found while looking for why rtsync's LP was above SchedCAT's on two
/// sets of the hunt at seed 5, which the same change closed.
#[test]
fn schedcats_lp_dpcp_misses_a_section_met_at_a_resumption() {
    let Some(peer) = peer() else { return };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rtsync-analysis/tests/data/oblivious-reopened-dpcp.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let us = Time::from_us;
    for (p, peers) in [
        (
            Protocol::Dpcp,
            &[("lp-dpcp", Some(19_020)), ("dpcp", None)][..],
        ),
        (Protocol::Dflp, &[("lp-dflp", Some(19_020))][..]),
    ] {
        let text = text.replace("\"dpcp\"", &format!("\"{p}\""));
        let (sys, _) = rtsync_model::load_str(&text, None).unwrap();
        let plan = rtsync_sim::Plan::offsets([Time::ZERO, us(6040), Time::ZERO]);
        let opts = rtsync_sim::Options {
            horizon: plan.horizon(&sys),
            plan: Some(std::sync::Arc::new(plan)),
            ..rtsync_sim::Options::default()
        };
        let simulated = rtsync_sim::simulate(&sys, &opts).unwrap().0.tasks[1]
            .max_response
            .unwrap();
        assert_eq!(simulated, us(22_962), "{p}");
        let ours = analyze_result(&sys, &Options::default()).unwrap();
        let rtsync_i = match ours.tasks[1].response {
            rtsync_analysis::Response::Bounded(r) => r,
            r => panic!("{p}: {r:?}"),
        };
        assert!(rtsync_i >= simulated, "{p}: rtsync {rtsync_i}");
        for &(analysis, below) in peers {
            let run = peer.run(analysis, std::slice::from_ref(&sys), 1).unwrap();
            // Highest priority first: `i` is the second.
            let theirs = Time::from_ns(run.sets[0].tasks[1].response.unwrap());
            match below {
                Some(v) => {
                    assert_eq!(theirs, us(v), "{analysis}");
                    assert!(theirs < simulated, "{analysis}: {theirs}");
                }
                None => assert!(theirs >= simulated, "{analysis}: {theirs}"),
            }
        }
    }
}
