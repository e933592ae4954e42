//! Paper 001's evaluation systems (Sect. 6.2): the Fig. 7 topology under
//! the four configurations of its Table 3, task sets drawn as the paper
//! draws them. Seeded and reproducible; written as specs and loaded by
//! the spec loader, as a user's would be.
//!
//! Topology (`examples/camkes-fig7.toml` reads the figure the same way):
//! tasks t1 and t2 request component A, t3 and t4 component B, both
//! inherited (PIP); A requests C and D, B requests D and E, whose kinds
//! Table 3 varies.
//!
//! Drawing (Sect. 6.2): task utilizations by UUniSort summing to the
//! target; periods from harmonic values between 10 ms and 1 s; priorities
//! rate-monotonic; tasks taken in increasing workload, each workload
//! split by UUniSort over the subtasks its chain traverses (its own code,
//! its component's method, the two methods that one requests), a subtask
//! already drawn for an earlier task (a method shared) keeping its value
//! and the rest split over the others. Taking tasks by increasing
//! workload keeps what is left non-negative: what an earlier task's chain
//! drew is part of a workload no larger.

use super::utilization::uunisort;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write;

/// Table 3: the kinds of C, D and E per configuration.
pub const CONFIGS: [[&str; 3]; 4] = [
    ["inherited", "propagated", "inherited"],
    ["inherited", "propagated", "propagated"],
    ["fixed", "inherited", "propagated"],
    ["fixed", "propagated", "inherited"],
];

/// Harmonic periods from 10 ms to 1 s (each divides the next), µs.
pub const PERIODS_US: [u64; 5] = [10_000, 20_000, 100_000, 200_000, 1_000_000];

/// Subtasks: 0 own code (per task), 1 A, 2 B, 3 C, 4 D, 5 E.
const CHAINS: [[usize; 3]; 4] = [[1, 3, 4], [1, 3, 4], [2, 4, 5], [2, 4, 5]];

/// The spec of system `index` of configuration `config` (0 to 3) at total
/// utilization `utilization`, from the stream seeded by `seed`.
pub fn fig7_spec(config: usize, utilization: f64, seed: u64, index: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // The same task set for every configuration: the stream depends on
    // the utilization and the index only.
    rng.set_stream((utilization * 1000.0).round() as u64 * 1_000_003 + index);
    let us = uunisort(&mut rng, 4, utilization);
    let periods: Vec<u64> = (0..4)
        .map(|_| PERIODS_US[rng.random_range(0..PERIODS_US.len())])
        .collect();
    // Workloads in ns (integers: the spec's resolution).
    let work: Vec<u64> = (0..4)
        .map(|t| (us[t] * periods[t] as f64 * 1000.0).round() as u64)
        .collect();
    let mut order: Vec<usize> = (0..4).collect();
    order.sort_by_key(|&t| (work[t], t));
    let mut method = [None::<u64>; 6];
    let mut own = [0u64; 4];
    for &t in &order {
        let chain = CHAINS[t];
        let fixed: u64 = chain.iter().filter_map(|&m| method[m]).sum();
        let open: Vec<usize> = chain
            .iter()
            .copied()
            .filter(|&m| method[m].is_none())
            .collect();
        let left = work[t].saturating_sub(fixed) as f64;
        let parts = uunisort(&mut rng, open.len() + 1, left);
        own[t] = parts[0].round() as u64;
        for (k, &m) in open.iter().enumerate() {
            method[m] = Some(parts[k + 1].round() as u64);
        }
    }
    let ns = |m: usize| method[m].unwrap_or(0).max(1);
    let kinds = CONFIGS[config];
    let mut s = format!(
        "name = \"fig7-config{}-u{utilization:.2}-{index}\"\n[platform]\ncpus = 1\npriorities = \"rm\"\n",
        config + 1
    );
    let comp = |s: &mut String, name: &str, kind: &str, uses: &[&str], body: String| {
        let uses: Vec<String> = uses.iter().map(|u| format!("\"{u}.cpi\"")).collect();
        let _ = write!(
            s,
            "[[component]]\nname = \"{name}\"\nuses = [{}]\n[[component.interface]]\nname = \"cpi\"\nprotocol = \"{kind}\"\nmethods.serve = [ {body} ]\n",
            uses.join(", ")
        );
    };
    let c = |m: usize| format!("{{ compute = \"{}ns\" }}", ns(m));
    comp(
        &mut s,
        "A",
        "inherited",
        &["C", "D"],
        format!("{}, {{ call = \"C.cpi\" }}, {{ call = \"D.cpi\" }}", c(1)),
    );
    comp(
        &mut s,
        "B",
        "inherited",
        &["D", "E"],
        format!("{}, {{ call = \"D.cpi\" }}, {{ call = \"E.cpi\" }}", c(2)),
    );
    for (k, name) in ["C", "D", "E"].into_iter().enumerate() {
        comp(&mut s, name, kinds[k], &[], c(3 + k));
    }
    for t in 0..4 {
        let to = if t < 2 { "A" } else { "B" };
        let _ = write!(
            s,
            "[[task]]\nname = \"t{}\"\nperiod = \"{}us\"\nuses = [\"{to}.cpi\"]\nbody = [ {{ compute = \"{}ns\" }}, {{ call = \"{to}.cpi\" }} ]\n",
            t + 1,
            periods[t],
            own[t].max(1)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_systems_have_the_utilization_and_the_configurations_kinds() {
        for (config, kinds) in CONFIGS.iter().enumerate() {
            for (i, u) in [0.1, 0.5, 1.0].into_iter().enumerate() {
                let spec = fig7_spec(config, u, 11, i as u64);
                let (sys, _) =
                    rtsync_model::load_str(&spec, None).unwrap_or_else(|d| panic!("{d}\n{spec}"));
                // The lowered bodies hold every subtask once per use: the
                // utilization is the target (to the ns rounding).
                let total: f64 = (0..4).map(|c| sys.cpu_utilization(c)).sum();
                assert!((total - u).abs() < 1e-3, "{total} vs {u}\n{spec}");
                let comps = sys.components.as_deref().unwrap();
                let kind = |n: &str| comps.interfaces[comps.interface(n).unwrap()].kind.name();
                assert_eq!(kind("C.cpi"), kinds[0]);
                assert_eq!(kind("D.cpi"), kinds[1]);
                assert_eq!(kind("E.cpi"), kinds[2]);
                assert_eq!(kind("A.cpi"), "inherited");
                // Harmonic periods: each divides the largest.
                let h = sys.tasks.iter().map(|t| t.period.ns()).max().unwrap();
                assert!(sys.tasks.iter().all(|t| h % t.period.ns() == 0));
            }
        }
        // The same task set under every configuration.
        let a = fig7_spec(0, 0.6, 3, 2);
        let b = fig7_spec(2, 0.6, 3, 2);
        let periods = |s: &str| {
            s.lines()
                .filter(|l| l.starts_with("period"))
                .map(String::from)
                .collect::<Vec<_>>()
        };
        assert_eq!(periods(&a), periods(&b));
        assert_ne!(fig7_spec(0, 0.6, 3, 2), fig7_spec(0, 0.6, 3, 3));
    }
}
