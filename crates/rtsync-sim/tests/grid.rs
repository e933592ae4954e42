//! The exhaustive grid of release offsets (`rtsync_sim::grid`) against
//! schedules worked out by hand.

mod common;

use common::{bounds, data, sys};
use rtsync_model::Time;
use rtsync_sim::grid::{GridOptions, NotEnumerated, enumerate, plans_needed};
use rtsync_sim::search::Kind;

/// MPCP on two CPUs. `a` (CPU 0) computes 1 ms, asks for `g` (1 ms) and
/// computes 1 ms; `b` (CPU 1) holds `g` for 3 ms from its release.
///
/// By hand: `a` waits longest when `b` locks `g` just before `a` asks,
/// 3 ms less the gap: with `a` released at 1 ns (the grid's middle
/// nudge of three) it asks at 1 ms + 1 ns, and `b` released at 1 ms locks
/// then, so `a` waits 3 ms - 1 ns and responds in 1 + (3 ms - 1 ns) + 1 +
/// 1 = 6 ms - 1 ns. `b` waits longest when `a` locks as it asks: released
/// at 1 ms + 1 ns, the instant `a` asks, it finds `g` granted to `a` (the
/// simulator takes `a`'s request first, one of the two orders of a tie),
/// waits the whole 1 ms, then 3 + 1 ms: 5 ms. The synchronous release
/// gives 5 ms and 4 ms.
const TWO_CPUS: &str = r#"
[platform]
cpus = 2
protocol = "mpcp"
[[resource]]
name = "g"
[[task]]
name = "a"
period = "8ms"
priority = 2
cpu = 0
body = [ { compute = "1ms" }, { lock = "g", hold = "1ms" }, { compute = "1ms" } ]
[[task]]
name = "b"
period = "16ms"
priority = 1
cpu = 1
body = [ { lock = "g", hold = "3ms" }, { compute = "1ms" } ]
"#;

#[test]
fn the_grid_finds_a_remote_holder_just_before_a_request() {
    let s = sys(TWO_CPUS);
    let o = GridOptions::default();
    // `a` fixed, `b` at 16 points of 1 ms times three nudges (2n - 1).
    assert_eq!(plans_needed(&s, &o), Ok(48));
    let huge = vec![Time::from_ms(100); 2];
    let out = enumerate(&s, &huge, &o).unwrap();
    assert_eq!(out.plans, 48);
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    let worst: Vec<Time> = out.worst.iter().map(|w| w.as_ref().unwrap().0).collect();
    let less_1ns = |ms| Time::from_ms(ms).saturating_sub(Time::from_ns(1));
    assert_eq!(worst, vec![less_1ns(6), Time::from_ms(5)]);
    // The plan that shows `a`'s worst releases `b` at 1 ms.
    let plan = &out.worst[0].as_ref().unwrap().1;
    assert_eq!(plan.tasks[1].offset, Time::from_ms(1));
    // Bounds 1 ns below what the grid reaches are broken, each once.
    let low: Vec<Time> = worst
        .iter()
        .map(|w| w.saturating_sub(Time::from_ns(1)))
        .collect();
    let out = enumerate(&s, &low, &o).unwrap();
    let above: Vec<Option<usize>> = out
        .findings
        .iter()
        .filter(|f| f.kind == Kind::AboveBound)
        .map(|f| f.task)
        .collect();
    assert_eq!(above, vec![Some(0), Some(1)], "{:?}", out.findings);
    // The analysis's bounds hold.
    let b = bounds(&s);
    assert!(b[0] >= worst[0] && b[1] >= worst[1], "{b:?} {worst:?}");
    assert!(enumerate(&s, &b, &o).unwrap().findings.is_empty());
}

#[test]
fn the_grid_refuses_what_it_cannot_cover() {
    let s = sys(TWO_CPUS);
    let few = GridOptions {
        max_plans: 47,
        ..GridOptions::default()
    };
    assert_eq!(
        enumerate(&s, &[Time::MAX; 2], &few).unwrap_err(),
        NotEnumerated::TooMany(48)
    );
    // A period of 8 ms on a 3 ms grid: its phasings are not on the grid.
    let coarse = GridOptions {
        step: Time::from_ms(3),
        ..GridOptions::default()
    };
    assert_eq!(
        plans_needed(&s, &coarse),
        Err(NotEnumerated::OffGrid("a".into()))
    );
}

/// PIP's transitive chain (rtsync-analysis `pip-transitive-chain.toml`,
/// bound 8 ms worked by hand there): `hi` waits for `mid`'s `A`, inside
/// which `mid` waits for `lo`'s `B`. Three releases in order, which the
/// search reaches only with its staircases; the grid reaches it by
/// running every phasing.
#[test]
fn the_grid_reaches_a_chain_of_three_releases() {
    let s = data("pip-transitive-chain.toml");
    let b = bounds(&s);
    assert_eq!(b[0], Time::from_ms(8));
    let out = enumerate(&s, &b, &GridOptions::default()).unwrap();
    // `mid` at 40 points, `lo` at 80, five nudges each.
    assert_eq!(out.plans, 200 * 400);
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    // `lo` locks `B` at 0 ns, `mid` preempts it 1 ns later and locks `A`,
    // `hi` asks for `A` at 2 ns: it waits 1 ms - 1 ns for `mid`'s
    // computation, 4 ms - 1 ns for the rest of `lo`'s `B`, 2 ms for
    // `mid`'s, then holds `A` for 1 ms: 8 ms - 2 ns.
    let hi = out.worst[0].as_ref().unwrap().0;
    assert_eq!(hi, Time::from_ms(8).saturating_sub(Time::from_ns(2)));
    // With three nudges the three releases cannot all meet in order at
    // one point: `lo`'s section has run a whole step when `hi` comes.
    let three = GridOptions {
        nudges: Some(3),
        ..GridOptions::default()
    };
    let out = enumerate(&s, &b, &three).unwrap();
    assert_eq!(out.worst[0].as_ref().unwrap().0, Time::from_ns(7_000_001));
}

/// MSRP on two CPUs, from seed 9's `tight-9` of `experiment exhaustive`
/// (`data/msrp-spinner-after-a-queue.toml`, its lowest task left out,
/// so that the grid runs 3,200 plans): the
/// grid runs each plan a hyperperiod past the last first release, and
/// `t2`'s worst on it comes in a job after its first (4 ms, where its
/// first job takes 3 at the plan that shows the worst). A replay of that
/// plan shows the worst only when run as long as the grid ran it
/// ([`GridOutcome::horizon`], which `experiment exhaustive` writes into
/// the replay line of a saved case; until 2026-12-04 the line ran the
/// planned jobs alone, and on the whole `tight-9` showed 3 ms where the
/// header claimed 5).
///
/// [`GridOutcome::horizon`]: rtsync_sim::grid::GridOutcome
#[test]
fn the_grid_says_how_long_each_plan_ran() {
    let mut s = data("msrp-spinner-after-a-queue.toml");
    // `t4`, the lowest task, left out: 3,200 plans where it takes 702,464.
    assert_eq!(s.tasks.pop().map(|t| t.name), Some("t4".to_string()));
    let o = GridOptions::default();
    let out = enumerate(&s, &bounds(&s), &o).unwrap();
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    let (worst, plan) = out.worst[1].clone().unwrap();
    let replay = |horizon: Time| {
        let opts = rtsync_sim::Options {
            horizon,
            plan: Some(std::sync::Arc::new(plan.clone())),
            ..rtsync_sim::Options::default()
        };
        rtsync_sim::simulate(&s, &opts).unwrap().0.tasks[1]
            .max_response
            .unwrap()
    };
    assert_eq!(replay(out.horizon), worst);
    let first = replay(plan.horizon(&s));
    assert!(first < worst, "{first} {worst}");
}
