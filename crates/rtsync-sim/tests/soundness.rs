//! Bounds broken by concrete schedules, and the search that finds them.
//!
//! Each system here once broke an analytic bound. The schedule that breaks
//! the old bound is worked out by hand and checked in the simulator; the
//! worst-case search must find a schedule past the old bound on its own,
//! and none past the corrected one.

use rtsync_analysis::{Options as AOpts, Response, analyze};
use rtsync_model::{System, Time, load_str};
use rtsync_sim::search::{SearchOptions, search};
use rtsync_sim::{Options, Plan, simulate};
use std::sync::Arc;

fn sys(src: &str) -> System {
    load_str(src, None).unwrap_or_else(|d| panic!("{d}")).0
}

fn bounds(s: &System) -> Vec<Time> {
    analyze(s, &AOpts::default())
        .unwrap()
        .result
        .tasks
        .iter()
        .map(|t| match t.response {
            Response::Bounded(r) => r,
            r => panic!("not bounded: {r}"),
        })
        .collect()
}

/// MPCP on two CPUs. H uses local L1, then global G, then local L2; the
/// lower local tasks M and Lo hold L2 and L1 for 4 ms; R on CPU 1 holds G
/// for 4 ms.
const MPCP_RESUME: &str = r#"
[platform]
cpus = 2
protocol = "mpcp"
[[resource]]
name = "L1"
[[resource]]
name = "L2"
[[resource]]
name = "G"
[[task]]
name = "H"
period = "100ms"
priority = 4
cpu = 0
body = [ { compute = "1ms" }, { lock = "L1", hold = "1ms" }, { lock = "G", hold = "1ms" }, { lock = "L2", hold = "1ms" }, { compute = "1ms" } ]
[[task]]
name = "M"
period = "150ms"
priority = 3
cpu = 0
body = [ { lock = "L2", hold = "4ms" } ]
[[task]]
name = "Lo"
period = "200ms"
priority = 2
cpu = 0
body = [ { lock = "L1", hold = "4ms" } ]
[[task]]
name = "R"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "G", hold = "4ms" } ]
"#;

/// The bound (Rajkumar's `(N^G + 1)` local factor): C = 5; local blocking
/// 4 ms (Lo's L1 or M's L2) at release and again after the global wait,
/// 8 ms; remote: R's 4 ms section. R_H = 5 + 8 + 4 = 17 ms. The first
/// wave charged local blocking once (13 ms).
///
/// The schedule, by hand: Lo locks L1 at 0. H arrives at 1 us, computes
/// 1 ms, asks for L1 and is blocked to 4 ms; holds L1 4-5 ms. R locked G
/// at 4.999 ms: H suspends 5-8.999 ms. M arrives at 8.9 ms and locks L2.
/// H gets G at 8.999 (boosted), releases it at 9.999 and asks for L2:
/// blocked behind M's remaining 3.901 ms to 13.9; L2 13.9-14.9, compute
/// to 15.9 ms. Response 15.899 ms: above 13, within 17.
#[test]
fn mpcp_local_blocking_recurs_after_a_global_wait() {
    let s = sys(MPCP_RESUME);
    let b = bounds(&s);
    assert_eq!(b[0], Time::from_ms(17));
    let plan = Plan::offsets([
        Time::from_us(1),
        Time::from_us(8900),
        Time::ZERO,
        Time::from_us(4999),
    ]);
    let opts = Options {
        horizon: plan.horizon(&s),
        plan: Some(Arc::new(plan)),
        ..Options::default()
    };
    let (res, _) = simulate(&s, &opts).unwrap();
    let h = res.tasks[0].max_response.unwrap();
    assert_eq!(h, Time::from_us(15_899));
    assert!(h > Time::from_ms(13) && h <= b[0]);
}

/// The search, knowing nothing of the schedule above, finds one past the
/// first wave's 13 ms bound, and none past the corrected bounds.
#[test]
fn the_search_finds_the_mpcp_schedule_on_its_own() {
    let s = sys(MPCP_RESUME);
    let b = bounds(&s);
    let mut old = b.clone();
    old[0] = Time::from_ms(13);
    let opts = SearchOptions {
        budget: 100_000,
        ..SearchOptions::default()
    };
    let found = search(&s, &old, &opts);
    let (worst, plan) = found.worst[0].clone().unwrap();
    assert!(worst > Time::from_ms(13), "search reached only {worst}");
    assert!(
        found.findings.iter().any(|f| f.task == Some(0)),
        "reported as a violation of the old bound"
    );
    // The plan it returns reproduces the response.
    let (res, _) = simulate(
        &s,
        &Options {
            horizon: plan.horizon(&s),
            plan: Some(Arc::new(plan)),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(res.tasks[0].max_response, Some(worst));
    // Against the corrected bounds: nothing.
    let found = search(&s, &b, &opts);
    assert!(found.findings.is_empty(), "{:?}", found.findings);
    // The search is deterministic.
    let again = search(&s, &b, &opts);
    assert_eq!(found.events, again.events);
    assert_eq!(
        found
            .worst
            .iter()
            .map(|w| w.as_ref().map(|x| x.0))
            .collect::<Vec<_>>(),
        again
            .worst
            .iter()
            .map(|w| w.as_ref().map(|x| x.0))
            .collect::<Vec<_>>()
    );
}

/// A plan written to TOML and read back is the same plan, and bad plans
/// are refused with what to change.
#[test]
fn plans_round_trip_through_toml() {
    let s = sys(MPCP_RESUME);
    let found = search(
        &s,
        &bounds(&s),
        &SearchOptions {
            budget: 20_000,
            ..SearchOptions::default()
        },
    );
    for (_, plan) in found.worst.iter().flatten() {
        let text = plan.to_toml(&s);
        let back = Plan::from_toml(&text, &s).unwrap();
        for t in 0..s.tasks.len() {
            let (a, b) = (plan.task(t), back.task(t));
            assert_eq!(a.offset, b.offset);
            assert_eq!(a.exec, b.exec);
            let trim = |v: &[Time]| {
                let mut v = v.to_vec();
                while v.last() == Some(&Time::ZERO) {
                    v.pop();
                }
                v
            };
            assert_eq!(trim(&a.delays), trim(&b.delays));
            assert_eq!(trim(&a.jitter), trim(&b.jitter));
        }
    }
    let e = Plan::from_toml("[[task]]\nname = \"Z\"\n", &s).unwrap_err();
    assert!(e.contains("no task `Z`"), "{e}");
    let e = Plan::from_toml("[[task]]\nname = \"H\"\noffset = \"5 parsecs\"\n", &s).unwrap_err();
    assert!(e.contains("offset"), "{e}");
    let e = Plan::from_toml("[[task]]\nname = \"H\"\nofset = \"5ms\"\n", &s).unwrap_err();
    assert!(e.contains("unknown key `ofset`"), "{e}");
}
