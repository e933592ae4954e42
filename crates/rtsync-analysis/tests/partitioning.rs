//! Partitioning heuristics on a hand-worked set: utilizations 0.6, 0.5,
//! 0.3, 0.2 (decreasing order) onto 2 CPUs.
//! * WFD: 0.6 -> C0; 0.5 -> C1; 0.3 -> C1 (0.5 < 0.6); 0.2 -> C0 (0.6 < 0.8).
//! * FFD: 0.6 -> C0; 0.5 -> C1 (C0 would be 1.1); 0.3 -> C0 (0.9); 0.2 -> C1.
//! * BFD: 0.6 -> C0; 0.5 -> C1; 0.3 -> C0 (fullest that fits: 0.6 > 0.5);
//!   0.2 -> C1 (C0 at 0.9 has no room).
//! * sync-aware: a and d share a resource: bundle {a, d} = 0.8 first ->
//!   C0; b 0.5 -> C1; c 0.3 -> C1.

use rtsync_analysis::{Heuristic, partition};
use rtsync_model::load_str;

const SPEC: &str = r#"
[platform]
cpus = 2
protocol = "mpcp"
[[resource]]
name = "R"
[[task]]
name = "a"
period = "10ms"
body = [ { compute = "5ms" }, { lock = "R", hold = "1ms" } ]
[[task]]
name = "b"
period = "10ms"
wcet = "5ms"
[[task]]
name = "c"
period = "10ms"
wcet = "3ms"
[[task]]
name = "d"
period = "10ms"
body = [ { lock = "R", hold = "2ms" } ]
"#;

fn cpus(h: Heuristic) -> Vec<usize> {
    let s = load_str(SPEC, None).unwrap().0;
    partition(&s, h)
        .tasks
        .iter()
        .map(|t| t.cpu.unwrap())
        .collect()
}

#[test]
fn heuristics_place_as_worked_out() {
    assert_eq!(cpus(Heuristic::WorstFit), vec![0, 1, 1, 0]);
    assert_eq!(cpus(Heuristic::FirstFit), vec![0, 1, 0, 1]);
    assert_eq!(cpus(Heuristic::BestFit), vec![0, 1, 0, 1]);
    assert_eq!(cpus(Heuristic::SyncAware), vec![0, 1, 1, 0]);
}

#[test]
fn placed_tasks_keep_their_cpu_and_sync_cpus_are_avoided() {
    let s = load_str(
        &SPEC.replace("name = \"a\"\n", "name = \"a\"\ncpu = 1\n"),
        None,
    )
    .unwrap()
    .0;
    assert_eq!(partition(&s, Heuristic::WorstFit).tasks[0].cpu, Some(1));
    let d = load_str(
        &SPEC
            .replace("mpcp", "dpcp")
            .replace("name = \"R\"\n", "name = \"R\"\nsync_cpu = 1\n"),
        None,
    )
    .unwrap()
    .0;
    // Total 1.6 cannot fit on CPU 0 alone; the sync CPU takes tasks only
    // when nothing else has room.
    let p = partition(&d, Heuristic::WorstFit);
    assert_eq!(
        p.tasks[0].cpu,
        Some(0),
        "the heaviest task goes to the non-sync CPU"
    );
}
