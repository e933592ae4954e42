//! The soundness experiment searches the bounds that issue 28 tightened.
//!
//! DPCP's and FMLP+'s classic bounds take, per task, the smaller of a
//! fixed per-request form and a job-window form that reads the other
//! tasks' response times; the LP forms go lower still. A soundness run
//! only tests a tighter form where it sets a bound (falls below the looser
//! one) and where the search then presses on that bound: a stream whose
//! systems always fall back to the looser form, or a search that never
//! comes near the tighter bounds, would pass with an unsound form. These
//! tests keep both true of the experiment's own stream, on a sample small
//! enough for the test suite; `rtsync experiment soundness` runs the full
//! stream.

use rtsync_analysis::{BoundForm, Context, Options, Response, analyze, fp};
use rtsync_experiment::shapes::Shape;
use rtsync_model::{Protocol, Scheduler, System, Time};
use rtsync_sim::search::{SearchOptions, search};

/// Systems drawn per protocol: every shape of the stream fifteen times.
const SYSTEMS: u64 = 120;
/// The stream's seed (any; this one is fixed so that the test is).
const SEED: u64 = 92;
/// Simulated events the search may spend per system.
const BUDGET: u64 = 20_000;

/// The bounds the soundness experiment checks (`check_system`), and the
/// system as analysed; `None` where some task misses (the experiment
/// searches only schedulable systems).
fn bounds(sys: &System, form: BoundForm) -> Option<(System, Vec<Time>)> {
    let opts = Options {
        form,
        ..Options::default()
    };
    let an = analyze(sys, &opts).expect("the stream's systems analyse");
    let mut out = Vec::new();
    for t in &an.result.tasks {
        match t.response {
            Response::Bounded(r) if r <= t.deadline => out.push(r),
            _ => return None,
        }
    }
    Some((an.system, out))
}

/// Over the sample under `p`: how many tasks have a bound that the tighter
/// form sets (below `looser`'s bound for the same task), and the closest
/// the search came to one of those bounds (worst simulated response over
/// the bound). Panics on any schedule past a bound.
fn tightened(
    p: Protocol,
    form: BoundForm,
    looser: impl Fn(&System) -> Vec<Response>,
) -> (usize, f64) {
    tightened_in(Shape::All, p, form, looser, |bound, loose, _| match loose {
        Response::Bounded(l) => bound < l,
        _ => true,
    })
}

/// [`tightened`] over `shape`'s systems, the tasks counted those `set`
/// picks from (the bound, the looser form's bound, the deadline).
fn tightened_in(
    shape: Shape,
    p: Protocol,
    form: BoundForm,
    looser: impl Fn(&System) -> Vec<Response>,
    set: impl Fn(Time, Response, Time) -> bool,
) -> (usize, f64) {
    let (mut tasks, mut closest) = (0, 0.0f64);
    for i in 0..SYSTEMS {
        let sys = shape.system(p, Scheduler::Fp, SEED, i);
        let Some((placed, bounds)) = bounds(&sys, form) else {
            continue;
        };
        let loose = looser(&placed);
        let set: Vec<usize> = (0..bounds.len())
            .filter(|&k| set(bounds[k], loose[k], placed.tasks[k].deadline))
            .collect();
        if set.is_empty() {
            continue;
        }
        let out = search(
            &placed,
            &bounds,
            &SearchOptions {
                budget: BUDGET,
                seed: SEED ^ i,
                shrink: false,
                ..SearchOptions::default()
            },
        );
        assert!(
            out.findings.is_empty(),
            "{p:?} ({form:?}), system {i} of seed {SEED}: {}",
            out.findings[0].what
        );
        for k in set {
            tasks += 1;
            if let Some((worst, _)) = &out.worst[k] {
                closest = closest.max(worst.ns() as f64 / bounds[k].ns().max(1) as f64);
            }
        }
    }
    (tasks, closest)
}

/// The fixed-priority bounds with the fixed forms alone (no job window).
fn fixed_forms(sys: &System) -> Vec<Response> {
    fp::analyse_fixed(&Context::new(sys))
}

/// The classic bounds of the system as the LP analysis placed it.
fn classic(sys: &System) -> Vec<Response> {
    let an = analyze(sys, &Options::default()).expect("analyses classic");
    an.result.tasks.iter().map(|t| t.response).collect()
}

fn assert_pressed(what: &str, found: (usize, f64)) {
    assert_pressed_to(what, found, 0.97);
}

/// [`assert_pressed`] with the search required to come within `reach`
/// of some tighter bound.
fn assert_pressed_to(what: &str, (tasks, closest): (usize, f64), reach: f64) {
    assert!(
        tasks >= 10,
        "{what}: only {tasks} tasks of {SYSTEMS} systems have a bound set by the tighter form; \
         the soundness stream no longer tests it"
    );
    assert!(
        closest >= reach,
        "{what}: the search came to {closest:.3} of a tighter bound at best; \
         it no longer presses on them"
    );
}

#[test]
fn the_search_presses_on_bounds_that_job_windows_set() {
    // Measured at this seed: 282 tasks under DPCP and 327 under FMLP+,
    // each protocol with a task whose bound the search reaches.
    for p in [Protocol::Dpcp, Protocol::FmlpL] {
        assert_pressed(
            &format!("{p:?}, job windows"),
            tightened(p, BoundForm::Classic, fixed_forms),
        );
    }
}

#[test]
fn the_search_presses_on_bounds_that_the_lp_sets() {
    // Measured at this seed with seven shapes: MPCP 387 tasks, DPCP 71,
    // FMLP+ 87, DFLP 155, MSRP 394, FMLP-S 388; the search reached a
    // bound under each but DPCP, where it came within 2% (it reached one
    // too with 200 systems and 300,000 events each).
    for p in [
        Protocol::Mpcp,
        Protocol::FmlpL,
        Protocol::Dflp,
        Protocol::Msrp,
        Protocol::FmlpS,
    ] {
        assert_pressed(&format!("{p:?}, LP"), tightened(p, BoundForm::Lp, classic));
    }
    // DPCP's LP bounds are the ones the search presses least: with the
    // window shape in the stream (eight shapes, 120 systems, 20,000
    // events each) it came to 0.948 of one at this seed, and to 0.916,
    // 0.931, 0.97 or more, 0.970 and 0.97 or more at seeds 1 to 5; 150,000 events
    // a system moved this seed's only to 0.955. A search that no longer
    // came near them would still fail here.
    assert_pressed_to(
        "Dpcp, LP",
        tightened(Protocol::Dpcp, BoundForm::Lp, classic),
        0.9,
    );
}

#[test]
fn the_search_presses_where_only_the_job_window_meets_the_deadline() {
    // The window shape: tasks whose fixed forms pass their deadline (a
    // per-request wait past it, or their sum) and whose job window meets
    // it. Until 2026-12-01 DPCP's job window was skipped where one
    // per-request wait passed the deadline; the hunt beside SchedCAT
    // found it, and no other shape of the stream draws the case.
    //
    // How close the search comes depends on which tasks the sample holds
    // (their fixed forms past the deadline). Since DPCP's agents' loads
    // count each section at its own length (2026-12-02) the set at this
    // seed is 94 tasks, not 54, and the search comes to 0.965 of one of
    // those bounds (60,000 events a system, the same); at seeds 1 to 5,
    // DPCP 1.000, 0.967, 1.000, 1.000 and 1.000, and FMLP+ (unchanged)
    // 0.966 at seed 1, 0.9995, 1.000 and 0.9986 at seeds 3 to 5. So 0.95
    // here: a search that no longer came near these bounds would still
    // fail.
    for p in [Protocol::Dpcp, Protocol::FmlpL] {
        assert_pressed_to(
            &format!("{p:?}, job windows past the per-request forms"),
            tightened_in(
                Shape::Window,
                p,
                BoundForm::Classic,
                fixed_forms,
                |_, loose, deadline| !loose.meets(deadline),
            ),
            0.95,
        );
    }
}
