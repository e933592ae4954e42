//! Component threads in the simulator (paper 001): the analyzer's pool
//! sizes checked as requests arrive, and the picture of who serves what
//! under random execution.

use rtsync_model::scenario::Scenario;
use rtsync_model::{System, Time};
use rtsync_sim::{Exec, Options, simulate};
use std::path::Path;
use std::sync::Arc;

fn scenario_system(name: &str) -> System {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name);
    let sc = Scenario::load(&path).unwrap();
    sc.system(name).unwrap()
}

fn staged(sys: &System, offsets: &[(&str, u64)]) -> Options {
    let mut o = vec![Time::ZERO; sys.tasks.len()];
    for (name, us) in offsets {
        o[sys.task_by_name(name).unwrap()] = Time::from_us(*us);
    }
    Options {
        horizon: Time::from_ms(30),
        record: true,
        offsets: o,
        ..Options::default()
    }
}

/// Two requests are in the propagated interface at once (L's and H's):
/// with the analyzer's pool of 2 nothing is reported; with a pool of one
/// thread the simulator reports the request that found it busy.
#[test]
fn a_pool_too_small_for_its_requests_is_reported() {
    let mut sys = scenario_system("comp-propagated.toml");
    let opts = staged(&sys, &[("L", 0), ("M", 500), ("H", 1000), ("V", 2000)]);
    let (r, _) = simulate(&sys, &opts).unwrap();
    assert!(r.violations.is_empty(), "{:?}", r.violations);
    let mut c = (*sys.components.clone().unwrap()).clone();
    let i = c.interface("P.api").unwrap();
    assert_eq!(c.pool[i], 2);
    c.pool[i] = 1;
    sys.components = Some(Arc::new(c));
    let (r, _) = simulate(&sys, &opts).unwrap();
    assert_eq!(r.violations.len(), 1, "{:?}", r.violations);
    assert_eq!(r.violations[0].at, Time::from_ms(1));
    assert!(
        r.violations[0]
            .what
            .contains("pool of `P.api` has 1 thread(s)")
            && r.violations[0].what.contains("request of H"),
        "{}",
        r.violations[0].what
    );
}

/// Under random execution times and many jobs, every request is served
/// by one thread at a time, nested requests inside their parents, and a
/// fixed interface's single thread serves one request at a time.
#[test]
fn serves_nest_and_never_overlap_on_a_thread() {
    for name in ["comp-fig7.toml", "comp-fig2.toml", "comp-fixed.toml"] {
        let sys = scenario_system(name);
        let opts = Options {
            horizon: Time::from_ms(2000),
            record: true,
            exec: Exec::Random,
            seed: 11,
            ..Options::default()
        };
        let (r, rec) = simulate(&sys, &opts).unwrap();
        assert!(r.violations.is_empty(), "{name}: {:?}", r.violations);
        let rec = rec.unwrap();
        assert!(rec.serves.len() > 20, "{name}: {}", rec.serves.len());
        let mut by_lane: std::collections::BTreeMap<&str, Vec<(Time, Time)>> = Default::default();
        for s in &rec.serves {
            assert!(s.start <= s.end);
            by_lane.entry(&s.lane).or_default().push((s.start, s.end));
            if s.depth > 0 {
                let parent = rec.serves.iter().find(|p| {
                    p.task == s.task
                        && p.depth + 1 == s.depth
                        && p.lane == s.from
                        && p.start <= s.start
                        && s.end <= p.end
                });
                assert!(parent.is_some(), "{name}: {s:?} has no enclosing request");
            }
        }
        for (lane, mut v) in by_lane {
            v.sort();
            for w in v.windows(2) {
                assert!(
                    w[0].1 <= w[1].0,
                    "{name}: {lane} serves two requests at once: {w:?}"
                );
            }
        }
    }
}
