//! Random component topologies (paper 001) for the soundness experiment:
//! interfaces of every kind in a DAG of nested requests, tasks requesting
//! them, on one CPU, and in some draws plain resources of the
//! uniprocessor protocols, locked inside methods and in tasks' own code
//! (the lowering makes a method's lock its requester's: the runtime's
//! `Deputy`), some of those sections making a request themselves (since
//! 2026-12-03: until then no draw held a plain resource across a request,
//! which a user's spec may). Seeded and reproducible.
//!
//! A topology is written as a spec and loaded through the spec loader,
//! so the experiment checks exactly what a user's component spec gets
//! (lowering, pool sizes, the mixed-protocol rules). Draws the loader
//! refuses (an `inherited` interface below a `fixed-npcs` one: the
//! non-preemptive section would suspend) are drawn again.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rtsync_model::System;
use std::fmt::Write;

/// The kinds, as the spec names them, with the weight each is drawn by:
/// the exclusive ones more often, since they make the blocking.
const KINDS: [(&str, u32); 4] = [
    ("propagated", 3),
    ("inherited", 4),
    ("fixed", 3),
    ("fixed-npcs", 1),
];

/// The protocols a plain resource is drawn with.
const PLAIN: [&str; 5] = ["pip", "pcp", "ipcp", "srp", "npcs"];

/// Periods (µs): harmonic and not, so that releases collide in many ways.
const PERIODS_US: [u64; 8] = [5_000, 8_000, 10_000, 12_000, 20_000, 25_000, 40_000, 50_000];

/// A spec with a random component topology: system `index` of the stream
/// seeded by `seed`.
pub fn component_spec(seed: u64, index: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    let interfaces = rng.random_range(2..=5usize);
    let tasks = rng.random_range(3..=6usize);
    let mut s = format!(
        "name = \"components-{seed}-{index}\"\n[platform]\ncpus = 1\npriorities = \"rm\"\n"
    );
    // Plain resources in half the draws, each with a protocol of its own;
    // `used` marks those some section locks (only those are declared).
    let plain: Vec<&str> = if rng.random_bool(0.5) {
        (0..rng.random_range(1..=2))
            .map(|_| PLAIN[rng.random_range(0..PLAIN.len())])
            .collect()
    } else {
        Vec::new()
    };
    let mut used = vec![false; plain.len()];
    // A section holds computation and, in some draws, a request to one of
    // the interfaces `callable` (those the body may call), recorded in
    // `calls`: a request made while holding a plain resource, which the
    // lowering nests inside it (the loader refuses the nestings no
    // analysis bounds, and such a draw is drawn again).
    let mut section = |rng: &mut ChaCha8Rng,
                       p: f64,
                       callable: &[usize],
                       calls: &mut Vec<usize>|
     -> Option<String> {
        if plain.is_empty() || !rng.random_bool(p) {
            return None;
        }
        let k = rng.random_range(0..plain.len());
        used[k] = true;
        let mut inner = vec![compute(rng, 20, 200)];
        if !callable.is_empty() && rng.random_bool(0.4) {
            inner.push(call(rng, callable, calls));
            if rng.random_bool(0.5) {
                inner.push(compute(rng, 20, 200));
            }
        }
        Some(format!(
            "{{ lock = \"P{k}\", body = [ {} ] }}",
            inner.join(", ")
        ))
    };
    // Interface j may request only interfaces after it: a DAG, so no
    // cycle. Two methods each, a short one and one that may go on.
    let mut kinds = Vec::with_capacity(interfaces);
    for j in 0..interfaces {
        let total: u32 = KINDS.iter().map(|k| k.1).sum();
        let mut pick = rng.random_range(0..total);
        let kind = KINDS
            .iter()
            .find(|k| {
                if pick < k.1 {
                    true
                } else {
                    pick -= k.1;
                    false
                }
            })
            .map_or("inherited", |k| k.0);
        kinds.push(kind);
        let below: Vec<usize> = (j + 1..interfaces).collect();
        let mut calls = Vec::new();
        let mut body = |rng: &mut ChaCha8Rng, calls: &mut Vec<usize>| {
            let mut segs = vec![compute(rng, 50, 600)];
            segs.extend(section(rng, 0.35, &below, calls));
            for _ in 0..rng.random_range(0..=2) {
                if below.is_empty() || !rng.random_bool(0.6) {
                    continue;
                }
                segs.push(call(rng, &below, calls));
                if rng.random_bool(0.5) {
                    segs.push(compute(rng, 20, 300));
                }
            }
            segs.join(", ")
        };
        let a = body(&mut rng, &mut calls);
        let b = body(&mut rng, &mut calls);
        calls.sort_unstable();
        calls.dedup();
        let uses: Vec<String> = calls.iter().map(|c| format!("\"C{c}.i\"")).collect();
        let _ = write!(
            s,
            "[[component]]\nname = \"C{j}\"\nuses = [{}]\n[[component.interface]]\nname = \"i\"\nprotocol = \"{kind}\"\nmethods.a = [ {a} ]\nmethods.b = [ {b} ]\n",
            uses.join(", ")
        );
    }
    // Tasks: computation around one or two requests, at a load that the
    // analysis accepts often enough and the blocking still matters.
    let load = rng.random_range(0.25..0.7);
    let all: Vec<usize> = (0..interfaces).collect();
    for t in 0..tasks {
        let period = PERIODS_US[rng.random_range(0..PERIODS_US.len())];
        let own = (period as f64 * load / tasks as f64).max(100.0) as u64;
        let mut calls = Vec::new();
        let mut segs = vec![format!("{{ compute = \"{}us\" }}", own / 2)];
        segs.extend(section(&mut rng, 0.3, &all, &mut calls));
        for _ in 0..rng.random_range(1..=2) {
            segs.push(call(&mut rng, &all, &mut calls));
        }
        segs.push(format!("{{ compute = \"{}us\" }}", own - own / 2));
        calls.sort_unstable();
        calls.dedup();
        let uses: Vec<String> = calls.iter().map(|c| format!("\"C{c}.i\"")).collect();
        let _ = write!(
            s,
            "[[task]]\nname = \"t{t}\"\nperiod = \"{period}us\"\nuses = [{}]\nbody = [ {} ]\n",
            uses.join(", "),
            segs.join(", ")
        );
    }
    for (k, protocol) in plain.iter().enumerate() {
        if used[k] {
            let _ = write!(
                s,
                "[[resource]]\nname = \"P{k}\"\nprotocol = \"{protocol}\"\n"
            );
        }
    }
    s
}

/// A request to one of the interfaces `callable`, method `a` or `b`,
/// recorded in `calls`.
fn call(rng: &mut ChaCha8Rng, callable: &[usize], calls: &mut Vec<usize>) -> String {
    let to = callable[rng.random_range(0..callable.len())];
    let m = if rng.random_bool(0.5) { "a" } else { "b" };
    calls.push(to);
    format!("{{ call = \"C{to}.i.{m}\" }}")
}

fn compute(rng: &mut ChaCha8Rng, lo_us: u64, hi_us: u64) -> String {
    format!("{{ compute = \"{}us\" }}", rng.random_range(lo_us..=hi_us))
}

/// System `index` of the stream: the first draw from `index`'s
/// sub-stream that the loader accepts (at most 16 tries), with its spec.
pub fn component_system(seed: u64, index: u64) -> Option<(System, String)> {
    (0..16u64).find_map(|k| {
        let spec = component_spec(seed, index.wrapping_mul(16).wrapping_add(k));
        rtsync_model::load_str(&spec, None)
            .ok()
            .map(|(sys, _)| (sys, spec))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every request of `top`, the nested ones included.
    fn all_requests(
        top: &[rtsync_model::interface::Request],
    ) -> Vec<&rtsync_model::interface::Request> {
        let mut out = Vec::new();
        let mut stack: Vec<_> = top.iter().collect();
        while let Some(r) = stack.pop() {
            out.push(r);
            stack.extend(r.inner.iter());
        }
        out
    }

    #[test]
    fn topologies_load_and_vary() {
        let mut kinds = std::collections::HashSet::new();
        let mut protocols = std::collections::HashSet::new();
        let mut nested = 0;
        // Plain sections inside a method, and in a task's own code.
        let (mut in_methods, mut in_tasks) = (0, 0);
        // Requests made while holding a plain resource, by its protocol.
        let mut held_across = std::collections::HashMap::new();
        for i in 0..1000 {
            let (sys, _) = component_system(7, i).expect("a loadable draw");
            let c = sys.components.as_deref().expect("components");
            let interface: Vec<usize> = c.interfaces.iter().filter_map(|f| f.resource).collect();
            for (t, task) in sys.tasks.iter().enumerate() {
                let pre = rtsync_model::system::preorder(&task.body);
                let in_request = |n: usize| c.requests[t].iter().any(|r| r.segments.contains(&n));
                for (n, seg) in pre.iter().enumerate() {
                    if let rtsync_model::Segment::Lock { resource, .. } = seg
                        && !interface.contains(resource)
                    {
                        let protocol = sys.resources[*resource].protocol;
                        protocols.insert(protocol);
                        // The section's segments follow it in preorder.
                        let inside = n + 1
                            ..n + rtsync_model::system::preorder(std::slice::from_ref(*seg)).len();
                        let requests = all_requests(&c.requests[t]);
                        *held_across.entry(protocol).or_insert(0) += requests
                            .iter()
                            .filter(|r| inside.contains(&r.segments.start))
                            .count();
                        if in_request(n) {
                            in_methods += 1;
                        } else {
                            in_tasks += 1;
                        }
                    }
                }
            }
            for f in &c.interfaces {
                kinds.insert(f.kind);
            }
            nested += c
                .requests
                .iter()
                .flatten()
                .filter(|r| !r.inner.is_empty())
                .count();
        }
        assert_eq!(kinds.len(), 4, "every kind is drawn");
        assert!(nested > 50, "nested requests are drawn ({nested})");
        assert!(
            in_methods > 50 && in_tasks > 50,
            "plain sections are drawn in methods ({in_methods}) and tasks ({in_tasks})"
        );
        assert_eq!(
            protocols.len(),
            PLAIN.len(),
            "every plain protocol is drawn: {protocols:?}"
        );
        // PCP nests only PCP, so a PCP section holds only a propagated
        // request whose methods lock nothing: rarer than the others.
        for p in PLAIN {
            let protocol: rtsync_model::Protocol = p.parse().expect("a protocol");
            let least = if protocol == rtsync_model::Protocol::Pcp {
                1
            } else {
                20
            };
            assert!(
                held_across.get(&protocol).is_some_and(|&k| k >= least),
                "requests are drawn inside sections of every plain protocol: {held_across:?}"
            );
        }
        assert_eq!(component_spec(3, 9), component_spec(3, 9));
        assert_ne!(component_spec(3, 9), component_spec(3, 10));
    }
}
