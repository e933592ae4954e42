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

/// An overhead profile with every kind of cost, paper 001's request
/// costs among them.
fn charged_profile() -> rtsync_analysis::overheads::Profile {
    rtsync_analysis::overheads::Profile::from_toml(
        r#"
context_switch = "3us"
release = "5us"
[protocol.pip]
lock = "2us"
unlock = "1us"
per_waiter = "1us"
[protocol.ipcp]
lock = "1us"
unlock = "1us"
[protocol.npcs]
lock = "1us"
unlock = "1us"
[component]
prop_call = "11us"
prop_reply = "7us"
fix_call = "13us"
fix_reply = "5us"
pip_unlocked = "17us"
pip_locked = "19us"
pip_reply = "3us"
queue = "2us"
nest = "23us"
"#,
        None,
    )
    .unwrap()
}

/// The charged system (`Profile::inflate`: call and reply costs written
/// around each request, lock and job costs around the rest) is what
/// `rtsync run`, `demo` and `simulate --overheads` simulate: its requests
/// must still say where they run, or the pools would be counted at the
/// wrong segments. Same requests served as the uncharged run, each
/// nested in its parent, none on a busy thread.
#[test]
fn a_charged_system_serves_the_same_requests() {
    let p = charged_profile();
    for name in [
        "comp-fig7.toml",
        "comp-fig2.toml",
        "comp-fixed.toml",
        "comp-propagated.toml",
    ] {
        let sys = scenario_system(name);
        let charged = p.inflate(&sys);
        let opts = Options {
            horizon: Time::from_ms(400),
            record: true,
            ..Options::default()
        };
        let (r0, rec0) = simulate(&sys, &opts).unwrap();
        let (r1, rec1) = simulate(&charged, &opts).unwrap();
        assert!(r1.violations.is_empty(), "{name}: {:?}", r1.violations);
        let labels = |rec: &rtsync_sim::Recording| -> Vec<(usize, String, usize)> {
            // The jobs released at the horizon itself start only in the
            // run that charges no release cost.
            let mut v: Vec<_> = (rec.serves.iter())
                .filter(|s| s.start < opts.horizon)
                .map(|s| (s.task, s.request.clone(), s.depth))
                .collect();
            v.sort();
            v
        };
        let (a, b) = (rec0.unwrap(), rec1.unwrap());
        assert!(r0.violations.is_empty());
        assert!(!a.serves.is_empty(), "{name}");
        assert_eq!(labels(&a), labels(&b), "{name}");
        for s in &b.serves {
            if s.depth > 0 {
                assert!(
                    b.serves.iter().any(|q| q.task == s.task
                        && q.depth + 1 == s.depth
                        && q.start <= s.start
                        && s.end <= q.end),
                    "{name}: {s:?} has no enclosing request"
                );
            }
        }
    }
}

/// Random topologies, charged: the search finds no response above the
/// charged analysis's bound, and no pool short; with the request costs
/// alone charged (paper 001's terms charge no kernel or lock costs), none
/// above paper 001's own bound with the same costs either (Eqs. 5 to 7,
/// which the soundness experiment's component run takes where it is
/// lower).
#[test]
fn charged_topologies_hold_their_bounds_under_the_search() {
    let full = charged_profile();
    let requests_only = rtsync_analysis::overheads::Profile {
        component: full.component,
        ..Default::default()
    };
    assert!(search_charged(&full, false) >= 12);
    assert!(search_charged(&requests_only, true) >= 12);
}

/// Searches 24 random topologies charged with `p` against their bounds
/// (with `paper`, the lower of rtsync's and paper 001's); the number of
/// schedulable ones searched.
fn search_charged(p: &rtsync_analysis::overheads::Profile, paper: bool) -> usize {
    use rtsync_analysis::generate::components::component_system;
    use rtsync_analysis::{Options as AOpts, Response, analyze};
    use rtsync_sim::search::{SearchOptions, search};
    let mut checked = 0;
    for i in 0..24 {
        let (sys, spec) = component_system(41, i).expect("a loadable draw");
        let opts = AOpts {
            overheads: Some(p.clone()),
            ..AOpts::default()
        };
        let an = analyze(&sys, &opts).unwrap();
        let bounds: Option<Vec<Time>> = (an.result.tasks.iter())
            .map(|t| match t.response {
                Response::Bounded(r) => Some(r),
                _ => None,
            })
            .collect();
        let Some(mut bounds) = bounds else { continue };
        let c = sys.components.as_deref().unwrap();
        if paper && rtsync_analysis::components::outside_the_model(&sys, c).is_empty() {
            let terms = rtsync_analysis::components::analyse(&sys, c, &p.component);
            for (b, r) in bounds.iter_mut().zip(&terms.response) {
                if let Some(r) = r {
                    *b = (*b).min(*r);
                }
            }
        }
        checked += 1;
        let out = search(
            &an.system,
            &bounds,
            &SearchOptions {
                budget: 20_000,
                seed: i,
                ..SearchOptions::default()
            },
        );
        assert!(out.findings.is_empty(), "{spec}\n{:?}", out.findings);
    }
    checked
}
