//! Under EDF the priority field means nothing: the scheduler orders jobs
//! by absolute deadline, and "below" is a longer relative deadline
//! (Baker's preemption levels). The search must read it the same way, or
//! a user's EDF spec (which need not give priorities, and may give any)
//! is searched with steps aimed at the wrong tasks.

use rtsync_analysis::generate::{GenConfig, generate};
use rtsync_model::{Protocol, Scheduler, System, Time};
use rtsync_sim::search::{SearchOptions, search};

/// EDF systems of every protocol that runs under EDF, the generator's
/// deadline-monotonic priorities as drawn: on one CPU (SRP, NPCS) and on
/// two (MSRP, FMLP-S), some tasks self-suspending, deadlines below the
/// periods (so that the relative deadlines order the tasks).
fn edf_systems() -> Vec<System> {
    let mut out = Vec::new();
    for (p, cpus) in [
        (Protocol::Srp, 1),
        (Protocol::Npcs, 1),
        (Protocol::Msrp, 2),
        (Protocol::FmlpS, 2),
    ] {
        let c = GenConfig {
            cpus,
            scheduler: Scheduler::Edf,
            protocol: p,
            tasks: 6,
            utilization: 0.6 * cpus as f64,
            deadline_min: 0.7,
            resources: 3,
            access_prob: 0.5,
            cs_min: Time::from_us(200),
            cs_max: Time::from_ms(2),
            suspend_prob: 0.3,
            ..GenConfig::default()
        };
        out.extend((0..6).map(|k| generate(&c, 11, k)));
    }
    out
}

/// The search finds the same schedules for a system whatever its tasks'
/// priority fields say: every priority 1 (a spec that gives none), and
/// the generator's order turned upside down. Same plans, so the same
/// number of simulations and events and the same worst per task. Until
/// 2026-12-04 nine of the search's steps picked "lower" and "higher"
/// tasks by the priority field under EDF too: with every priority 1 the
/// search of the first SRP system here ran 18 schedules where the
/// generated priorities gave 38.
#[test]
fn under_edf_the_search_reads_no_priority() {
    let opts = SearchOptions {
        budget: 20_000,
        ..SearchOptions::default()
    };
    for (k, sys) in edf_systems().into_iter().enumerate() {
        // The deadlines as bounds: the search climbs towards them.
        let bounds: Vec<Time> = sys.tasks.iter().map(|t| t.deadline).collect();
        let base = search(&sys, &bounds, &opts);
        let flat = vec![1; sys.tasks.len()];
        let top = sys.tasks.iter().map(|t| t.priority).max().unwrap_or(0);
        let reversed: Vec<_> = sys.tasks.iter().map(|t| top + 1 - t.priority).collect();
        for (what, prio) in [
            ("every priority 1", flat),
            ("priorities reversed", reversed),
        ] {
            let mut other = sys.clone();
            for (t, p) in other.tasks.iter_mut().zip(prio) {
                t.priority = p;
            }
            let found = search(&other, &bounds, &opts);
            let worst = |o: &rtsync_sim::search::Outcome| -> Vec<Option<Time>> {
                o.worst
                    .iter()
                    .map(|w| w.as_ref().map(|(r, _)| *r))
                    .collect()
            };
            assert_eq!(
                (found.simulations, found.events, worst(&found)),
                (base.simulations, base.events, worst(&base)),
                "system {k} ({}), {what}",
                sys.resources[0].protocol
            );
        }
    }
}
