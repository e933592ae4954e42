//! The bundled examples load, round-trip through the spec writer, and their
//! derived facts (ceilings, levels, groups, scopes) match hand-worked values.

use rtsync_model::{Facts, Protocol, System, load_str, to_toml};
use std::path::Path;

fn examples() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut v: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    assert!(v.len() >= 7, "bundled examples missing: {v:?}");
    v
}

/// A system without its positions and component structure: a component
/// spec is written in its lowered form, which round-trips.
fn strip(mut s: System) -> System {
    s.source = Default::default();
    s.components = None;
    s
}

#[test]
fn every_example_loads_without_errors_and_round_trips() {
    for (name, src) in examples() {
        let (sys, _) = load_str(&src, Some(&name)).unwrap_or_else(|d| panic!("{name}:\n{d}"));
        let again = to_toml(&sys);
        let (back, _) =
            load_str(&again, None).unwrap_or_else(|d| panic!("{name} rewritten:\n{d}\n{again}"));
        assert_eq!(strip(back), strip(sys), "{name} did not round-trip");
    }
}

fn load(name: &str) -> System {
    let (_, src) = examples()
        .into_iter()
        .find(|(n, _)| n.ends_with(name))
        .unwrap();
    load_str(&src, None).unwrap().0
}

#[test]
fn pip_chained_facts() {
    let s = load("pip-chained.toml");
    let f = Facts::new(&s);
    // Deadline-monotonic priorities: ctrl (10ms) 3, comms 2, logger 1.
    let p: Vec<u32> = s.tasks.iter().map(|t| t.priority).collect();
    assert_eq!(p, vec![3, 2, 1]);
    // WCETs: 1 + 0.5 + 0.5 + 0.5 = 2.5ms; 1 + 2 + 1 = 4ms; 2 + 3 + 1 = 6ms.
    let w: Vec<u64> = f.tasks.iter().map(|t| t.wcet.ns() / 1000).collect();
    assert_eq!(w, vec![2500, 4000, 6000]);
    // Both resources are used by ctrl: ceiling 3.
    assert_eq!(f.ceiling, vec![3, 3]);
    assert_eq!(f.cs(1, 0).ns(), 2_000_000);
    assert_eq!(f.cs(2, 1).ns(), 3_000_000);
    assert!(f.global.iter().all(|g| !g));
}

#[test]
fn nesting_groups_and_levels() {
    let s = load("srp-edf-multiunit.toml");
    let f = Facts::new(&s);
    // video nests buf inside dma, so both are one FMLP group.
    assert_eq!(f.group[0], f.group[1]);
    assert_eq!(f.nesting, vec![(0, 1, 1)]);
    // video's buf section is requested inside dma.
    let buf = f.sections(1).iter().find(|rq| rq.resource == 1).unwrap();
    assert!(!buf.is_outermost());
    assert_eq!(f.held(buf), &[0]);
    // Levels by deadline: audio 4ms -> 3, video 16ms -> 2, storage 40ms -> 1.
    assert_eq!(f.levels_of_tasks(), &[3, 2, 1]);
    // dma used by all: level ceiling 3; buf by video and storage: 2.
    assert_eq!((f.level_ceiling(0), f.level_ceiling(1)), (3, 2));
    assert_eq!(f.units(2, 0), 3);
    // video's dma section is 300us + nested 200us.
    assert_eq!(f.cs(1, 0).ns(), 500_000);
    assert_eq!(f.outer_cs(1, 1).ns(), 0, "buf is never outermost for video");
}

#[test]
fn table1_resources_are_global_and_ceilings_per_cpu() {
    let s = load("rtems-table1.toml");
    let f = Facts::new(&s);
    assert_eq!(s.tasks.len(), 15);
    assert!(f.global.iter().all(|&g| g));
    // r1 is used on CPU 0 by L0 (prio 1), on CPU 1 by M1 (3) and H1 (5), on CPU 2 by ML2 (2) and MH2 (4).
    let r1: Vec<u32> = (0..4).map(|c| f.local_ceiling(0, c)).collect();
    assert_eq!(r1, vec![1, 5, 4, 0]);
    // Its remote ceilings (MPCP's boosting keys): the highest user on the
    // other CPUs, H1's 5 except on CPU 1, where MH2's 4 on CPU 2 is.
    let r1: Vec<u32> = (0..4).map(|c| f.remote_ceiling(0, c)).collect();
    assert_eq!(r1, vec![5, 4, 5, 5]);
    assert!(f.on_cpu(3).is_empty());
}

#[test]
fn switching_protocol_fills_sync_cpus_and_clamps_units() {
    let s = load("srp-edf-multiunit.toml");
    let d = s.with_protocol(Protocol::Dpcp);
    assert!(
        d.resources
            .iter()
            .all(|r| r.sync_cpu == Some(0) && r.units == 1)
    );
}

/// A section's length, depth and held resources are the same whether its
/// body is one stretch of execution (read off directly) or several
/// segments (walked): worked by hand for a body with both, a nested
/// section inside a walked one, and a suspension between sections, which
/// counts as suspension, not execution.
#[test]
fn sections_of_one_stretch_and_of_several_segments_add_up_alike() {
    let src = r#"
[platform]
cpus = 1
protocol = "pcp"

[[resource]]
name = "a"

[[resource]]
name = "b"

[[task]]
name = "t"
period = "100ms"
body = [
  { compute = "1ms" },
  { lock = "a", hold = "2ms" },
  { lock = "b", body = [ { compute = "1ms" }, { lock = "a", hold = "3ms" }, { compute = "500us" } ] },
  { suspend = "4ms" },
  { lock = "a", body = [ { compute = "250us" } ] },
]
"#;
    let (s, _) = load_str(src, None).unwrap_or_else(|d| panic!("{d}"));
    let f = Facts::new(&s);
    let us = |t: rtsync_model::Time| t.ns() / 1000;
    // 1 + 2 + (1 + 3 + 0.5) + 0.25 ms; the 4 ms is suspension.
    assert_eq!(us(f.tasks[0].wcet), 7750);
    assert_eq!(
        (us(f.tasks[0].suspension), f.tasks[0].suspensions),
        (4000, 1)
    );
    let got: Vec<(usize, u64, bool, Vec<usize>)> = f
        .sections(0)
        .iter()
        .map(|rq| {
            (
                rq.resource,
                us(rq.length),
                rq.is_outermost(),
                f.held(rq).to_vec(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (0, 2000, true, vec![]),
            (1, 4500, true, vec![]),
            (0, 3000, false, vec![1]),
            (0, 250, true, vec![]),
        ]
    );
    // a: longest at any depth 3 ms, longest outermost 2 ms, three sections.
    assert_eq!(
        (us(f.cs(0, 0)), us(f.outer_cs(0, 0)), f.requests(0, 0)),
        (3000, 2000, 3)
    );
    assert_eq!(f.nesting, vec![(1, 0, 0)]);
}
