//! Degenerate input the simulator must survive: an overloaded system stops
//! at a bounded backlog and says so; progress is published as it runs.

use rtsync_model::{Time, load_str};
use rtsync_sim::{Kind, Options, simulate};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Periods of 1 and 3 ns, utilization 5/3: jobs pile up without end.
const OVERLOADED: &str = "[[task]]\nname = \"a\"\nperiod = \"1ns\"\nwcet = \"1ns\"\n\
[[task]]\nname = \"b\"\nperiod = \"3ns\"\nwcet = \"2ns\"\n";

#[test]
fn an_overloaded_system_stops_at_the_backlog_bound_and_is_reported() {
    let (sys, _) = load_str(OVERLOADED, None).unwrap();
    let o = Options {
        horizon: Time::from_s(10),
        max_backlog: 50,
        ..Options::default()
    };
    let (r, _) = simulate(&sys, &o).unwrap();
    let over = r.overload.as_ref().expect("reported overloaded");
    assert_eq!(over.task, "b");
    assert_eq!(over.backlog, 51);
    // Stopped at once, not after ten simulated seconds.
    assert!(r.end < Time::from_us(1), "ran to {}", r.end);
    // The jobs left behind count as misses, and the run is judged broken.
    assert!(r.tasks[1].misses >= 49, "{}", r.tasks[1].misses);
    let kinds: Vec<Kind> = r.broken(&[]).iter().map(|b| b.kind).collect();
    assert!(kinds.contains(&Kind::Overload), "{kinds:?}");
}

#[test]
fn a_schedulable_system_never_meets_the_backlog_bound() {
    let (sys, _) = load_str(
        &OVERLOADED.replace("period = \"1ns\"", "period = \"10ns\""),
        None,
    )
    .unwrap();
    let o = Options {
        horizon: Time::from_ms(1),
        max_backlog: 2,
        ..Options::default()
    };
    let (r, _) = simulate(&sys, &o).unwrap();
    assert!(r.overload.is_none(), "{:?}", r.overload);
    assert!(r.end > Time::from_us(999), "stopped at {}", r.end);
}

#[test]
fn progress_reaches_the_horizon_region() {
    let (sys, _) = load_str(
        &OVERLOADED.replace("period = \"1ns\"", "period = \"10ns\""),
        None,
    )
    .unwrap();
    let seen = Arc::new(AtomicU64::new(0));
    let o = Options {
        horizon: Time::from_ms(2),
        progress: Some(seen.clone()),
        ..Options::default()
    };
    let (r, _) = simulate(&sys, &o).unwrap();
    let last = seen.load(Ordering::Relaxed);
    // Published every 1,024 steps: within the last few microseconds.
    assert!(last > 0 && last <= r.end.ns(), "{last}");
    assert!(r.end.ns() - last < 100_000, "{last} of {}", r.end);
}

/// H (2 ms every 5 ms) above L (`body`, every 10 ms), simulated for
/// 20 ms: each task's worst response.
fn h_above_l(body: &str) -> [Option<Time>; 2] {
    let (sys, _) = load_str(
        &format!(
            "[[task]]\nname = \"H\"\nperiod = \"5ms\"\nwcet = \"2ms\"\n\
             [[task]]\nname = \"L\"\nperiod = \"10ms\"\nbody = {body}\n"
        ),
        None,
    )
    .unwrap();
    let o = Options {
        horizon: Time::from_ms(20),
        ..Options::default()
    };
    let (r, _) = simulate(&sys, &o).unwrap();
    [r.tasks[0].max_response, r.tasks[1].max_response]
}

/// A job whose work ends at the instant a higher-priority job is released
/// completes then: L (3 ms) after H (2 ms) ends at exactly 5 ms, H's next
/// release, which is L's exact response time (R = 3 + ceil(R/5) 2 = 5).
/// The kernel once let the release preempt L's completion, giving 7 ms.
#[test]
fn a_job_done_at_a_release_instant_completes_then() {
    let [h, l] = h_above_l("[ { compute = \"1ms\" }, { compute = \"2ms\" } ]");
    assert_eq!(l, Some(Time::from_ms(5)));
    assert_eq!(h, Some(Time::from_ms(2)));
}

/// The same at the end of a self-suspension: L computes 1 ms after H's
/// 2 ms, then suspends 2 ms, so its suspension ends at exactly 5 ms,
/// H's next release, with nothing left to do. Its response is 5 ms (R =
/// 1 + 2 + ceil(R/5) 2 = 5, the suspension counted as execution). The
/// kernel once fired every timer of an instant together: H's release
/// took the CPU from L's zero-time completion, which came at 7 ms. Found
/// by `rtsync experiment exhaustive` on a job ending with a suspension
/// (12 ms against a bound of 8 ms).
#[test]
fn a_job_whose_last_suspension_ends_at_a_release_instant_completes_then() {
    let [h, l] = h_above_l("[ { compute = \"1ms\" }, { suspend = \"2ms\" } ]");
    assert_eq!(l, Some(Time::from_ms(5)));
    assert_eq!(h, Some(Time::from_ms(2)));
}
