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
    placed(&load_str(SPEC, None).unwrap().0, h)
}

/// Each task's CPU after partitioning `s` with `h`.
fn placed(s: &rtsync_model::System, h: Heuristic) -> Vec<usize> {
    partition(s, h)
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
fn placed_tasks_keep_their_cpu() {
    let s = load_str(
        &SPEC.replace("name = \"a\"\n", "name = \"a\"\ncpu = 1\n"),
        None,
    )
    .unwrap()
    .0;
    assert_eq!(partition(&s, Heuristic::WorstFit).tasks[0].cpu, Some(1));
}

/// DPCP with R served on CPU 1: its agents run a's 1ms and d's 2ms
/// sections every 10ms there, so CPU 1 starts at 0.3. WFD: a 0.6 -> C0
/// (0 < 0.3); b 0.5 -> C1 (0.3 < 0.6, 0.8); c 0.3 -> C0 (0.6 < 0.8,
/// 0.9); d 0.2 -> C1 (C0 would be 1.1; C1 reaches 1.0). Plain WFD over
/// both CPUs sends c to C1 and d to C0 (`heuristics_place_as_worked_out`):
/// the agents' 0.3 is what turns them.
#[test]
fn a_sync_cpu_starts_with_its_agents_load() {
    let d = load_str(
        &SPEC
            .replace("mpcp", "dpcp")
            .replace("name = \"R\"\n", "name = \"R\"\nsync_cpu = 1\n"),
        None,
    )
    .unwrap()
    .0;
    assert_eq!(placed(&d, Heuristic::WorstFit), vec![0, 1, 0, 1]);
}

/// Four tasks of 0.25 (one with a 0.1ms section of R every 10ms, R
/// served on CPU 1) on 2 CPUs: CPU 1 starts at 0.01 and WFD alternates,
/// where keeping the synchronization CPU for when nothing else has room
/// put all four on CPU 0 at utilization 1.
#[test]
fn a_sync_cpu_is_not_left_idle_while_another_fills() {
    let mut spec = String::from(
        "[platform]\ncpus = 2\nprotocol = \"dpcp\"\n[[resource]]\nname = \"R\"\nsync_cpu = 1\n",
    );
    for k in 0..4 {
        let body = if k == 0 {
            "body = [ { compute = \"2.4ms\" }, { lock = \"R\", hold = \"0.1ms\" } ]"
        } else {
            "wcet = \"2.5ms\""
        };
        spec += &format!("[[task]]\nname = \"t{k}\"\nperiod = \"10ms\"\n{body}\n");
    }
    let s = load_str(&spec, None).unwrap().0;
    assert_eq!(placed(&s, Heuristic::WorstFit), vec![0, 1, 0, 1]);
}
