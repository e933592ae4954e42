//! A protocol per resource by rule, for experiments on mixed systems
//! ([`rtsync_model::mix`] lists the mixes rtsync accepts).
//!
//! A system is generated under the mix's base protocol (whose nesting and
//! placement rules the mix keeps), then each resource is given its own
//! protocol by the rule, and nestings the mix forbids are repaired by
//! changing the protocol of one side, never by dropping a section.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rtsync_model::lockorder::Closes;
use rtsync_model::nesting::{Conflict, Side, conflict};
use rtsync_model::{Facts, Protocol, Scheduler, System, Time};
use std::fmt;
use std::str::FromStr;

/// How resources get their protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mixing {
    /// FMLP as published: resources whose sections are short spin
    /// (FMLP-S), the others suspend (FMLP-L). Short means a longest
    /// section at most the median over the system's resources; a resource
    /// that nests a long one is long.
    ByLength,
    /// MPCP for global resources, PCP for local ones, as MPCP prescribes.
    ByScope,
    /// One CPU's uniprocessor protocols side by side, drawn per resource
    /// (NPCS, PIP, PCP, IPCP, SRP; NPCS and SRP under EDF).
    Uniprocessor,
}

impl Mixing {
    /// Every rule.
    pub const ALL: [Mixing; 3] = [Mixing::ByLength, Mixing::ByScope, Mixing::Uniprocessor];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mixing::ByLength => "by-length",
            Mixing::ByScope => "by-scope",
            Mixing::Uniprocessor => "uniprocessor",
        }
    }

    /// The protocol systems are generated under before the rule applies.
    pub fn base(self, scheduler: Scheduler) -> Protocol {
        match (self, scheduler) {
            (Mixing::ByLength, _) => Protocol::FmlpL,
            (Mixing::ByScope, _) => Protocol::Mpcp,
            (Mixing::Uniprocessor, Scheduler::Fp) => Protocol::Pcp,
            (Mixing::Uniprocessor, Scheduler::Edf) => Protocol::Srp,
        }
    }

    /// Whether the rule can be drawn under `scheduler`.
    pub fn supports(self, scheduler: Scheduler) -> bool {
        match self {
            Mixing::Uniprocessor => true,
            // FMLP-L and MPCP are analysed under FP only.
            Mixing::ByLength | Mixing::ByScope => scheduler == Scheduler::Fp,
        }
    }

    /// Gives each resource of `sys` (generated under [`Mixing::base`],
    /// placed where the rule needs it) its protocol; `seed` and `index`
    /// draw the uniprocessor rule's choices reproducibly.
    pub fn apply(self, sys: &mut System, seed: u64, index: u64) {
        let f = Facts::new(sys);
        let n = sys.resources.len();
        let longest: Vec<Time> = (0..n)
            .map(|r| {
                f.users(r)
                    .iter()
                    .flat_map(|&t| f.sections(t))
                    .filter(|rq| rq.resource == r)
                    .map(|rq| rq.length)
                    .max()
                    .unwrap_or(Time::ZERO)
            })
            .collect();
        let mut ps: Vec<Protocol> = match self {
            Mixing::ByLength => {
                let mut sorted = longest.clone();
                sorted.sort_unstable();
                let median = sorted
                    .get(n.saturating_sub(1) / 2)
                    .copied()
                    .unwrap_or(Time::ZERO);
                longest
                    .iter()
                    .map(|&l| {
                        if l <= median {
                            Protocol::FmlpS
                        } else {
                            Protocol::FmlpL
                        }
                    })
                    .collect()
            }
            Mixing::ByScope => f
                .global
                .iter()
                .map(|&g| if g { Protocol::Mpcp } else { Protocol::Pcp })
                .collect(),
            Mixing::Uniprocessor => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x006d_6978); // "mix"
                rng.set_stream(index);
                let sched = sys.platform.scheduler;
                let choices: Vec<Protocol> = Protocol::ALL
                    .into_iter()
                    .filter(|p| p.is_uniprocessor() && p.supports(sched))
                    .collect();
                // A resource of several units (the multi-unit shape) is
                // SRP's, the one uniprocessor protocol that manages them;
                // its draw is made all the same, so that the others' stay.
                (0..n)
                    .map(|r| {
                        let p = choices[rng.random_range(0..choices.len())];
                        if sys.resources[r].units > 1 && choices.contains(&Protocol::Srp) {
                            Protocol::Srp
                        } else {
                            p
                        }
                    })
                    .collect()
            }
        };
        // Nestings the protocols forbid ([`rtsync_model::nesting`]) are
        // repaired. A suspending request inside a section that keeps its
        // CPU: make the outer side long (FMLP) or the inner side immediate
        // (uniprocessor); inside an SRP section, the inner side immediate. PCP beside a protocol without its ceiling test
        // (only drawn among the uniprocessor protocols): both sides become
        // IPCP. Each change moves a resource towards FMLP-L or IPCP, so
        // the repair ends. A global resource nested where its protocol
        // forbids it is never drawn: the base protocol's generation
        // leaves those unnested.
        let side = |r: usize, p: Protocol| Side::new(p, f.global[r], f.partitioned);
        // A lock-order cycle (drawn by the `nested` shape in half its
        // systems) that the new protocols leave able to close
        // ([`rtsync_model::lockorder::check`]) is repaired too: a lender
        // that lets a job wait inside the cycle, or a suspending resource
        // asked for inside one of its resources, becomes IPCP; otherwise the
        // cycle's resources take one protocol that defuses it (IPCP on one
        // CPU, FMLP-L's group lock, PCP for MPCP's local resources). Each
        // change again moves towards IPCP or FMLP-L, so the repair ends.
        for _ in 0..=n {
            self.repair_nesting(&f, &side, &mut ps);
            for (r, &p) in sys.resources.iter_mut().zip(&ps) {
                r.protocol = p;
            }
            let rtsync_model::lockorder::Order::Unsafe { cycle, closes } =
                rtsync_model::lockorder::check(sys, &f)
            else {
                break;
            };
            match closes {
                Some(Closes::Lent { lender, .. }) => ps[lender] = Protocol::Ipcp,
                Some(Closes::Suspends { inner, .. }) => ps[inner] = Protocol::Ipcp,
                None => {
                    for &r in &cycle {
                        ps[r] = match self {
                            Mixing::Uniprocessor => Protocol::Ipcp,
                            Mixing::ByLength => Protocol::FmlpL,
                            Mixing::ByScope if f.global[r] => Protocol::Mpcp,
                            Mixing::ByScope => Protocol::Pcp,
                        };
                    }
                }
            }
        }
        for (r, p) in sys.resources.iter_mut().zip(ps) {
            r.protocol = p;
        }
        // A resource of several units whose protocol manages one (the
        // repair above can move one off SRP) keeps one, and so do its
        // sections.
        let single: Vec<bool> = sys
            .resources
            .iter()
            .map(|r| r.units > 1 && !r.protocol.allows_multi_unit())
            .collect();
        if single.contains(&true) {
            for (r, one) in sys.resources.iter_mut().zip(&single) {
                if *one {
                    r.units = 1;
                }
            }
            for t in &mut sys.tasks {
                super::each_section_units(&mut t.body, &mut |r, u| {
                    if single[r] {
                        *u = 1
                    }
                });
            }
        }
    }

    /// The nesting rules' repair ([`Mixing::apply`]), until no nested
    /// pair breaks a rule it mends.
    fn repair_nesting(
        self,
        f: &Facts,
        side: &impl Fn(usize, Protocol) -> Side,
        ps: &mut [Protocol],
    ) {
        loop {
            let mut changed = false;
            for &(outer, inner, _) in &f.nesting {
                // Until this pair breaks no rule that a repair mends.
                loop {
                    match conflict(side(outer, ps[outer]), side(inner, ps[inner])) {
                        Some(Conflict::SuspendsWhileKeepingCpu) => match self {
                            Mixing::ByLength => ps[outer] = Protocol::FmlpL,
                            _ => ps[inner] = Protocol::Ipcp,
                        },
                        Some(Conflict::SuspendsWhileHoldingStarts) => ps[inner] = Protocol::Ipcp,
                        Some(Conflict::CeilingTestMixed) if self == Mixing::Uniprocessor => {
                            ps[outer] = Protocol::Ipcp;
                            ps[inner] = Protocol::Ipcp;
                        }
                        _ => break,
                    }
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
}

impl fmt::Display for Mixing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mixing {
    type Err = String;
    fn from_str(s: &str) -> Result<Mixing, String> {
        Mixing::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown mix `{s}`; expected one of: {}",
                    Mixing::ALL.map(Mixing::name).join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenConfig, generate};

    /// Generated and mixed systems load, and mix what the rule says; with
    /// multi-unit resources drawn too (every other system; under EDF the
    /// uniprocessor rule starts from SRP, which manages them), that rule
    /// keeps some of them (under SRP), and no resource
    /// keeps units that its protocol does not manage.
    #[test]
    fn mixed_systems_validate_and_mix() {
        for m in Mixing::ALL {
            let (mut mixed, mut multi) = (0, 0);
            for i in 0..40 {
                let uni = m == Mixing::Uniprocessor;
                // Under EDF the uniprocessor rule starts from SRP, which
                // draws multi-unit resources.
                let sched = if uni && i % 4 == 0 {
                    Scheduler::Edf
                } else {
                    Scheduler::Fp
                };
                let c = GenConfig {
                    cpus: if uni { 1 } else { 2 },
                    tasks: 6,
                    utilization: if uni { 0.5 } else { 1.0 },
                    resources: 4,
                    nest_prob: 0.5,
                    local_resources: if m == Mixing::ByScope { 2 } else { 0 },
                    scheduler: sched,
                    protocol: m.base(sched),
                    units_max: if i % 2 == 0 { 4 } else { 1 },
                    ..GenConfig::default()
                };
                let mut sys = generate(&c, 7, i);
                m.apply(&mut sys, 7, i);
                let text = rtsync_model::to_toml(&sys);
                let (back, _) = rtsync_model::load_str(&text, None)
                    .unwrap_or_else(|d| panic!("{m} system {i}:\n{d}\n{text}"));
                let ps = rtsync_model::mix::protocols(&back);
                mixed += usize::from(ps.len() > 1);
                multi += usize::from(back.resources.iter().any(|r| r.units > 1));
                match m {
                    Mixing::ByLength => assert!(
                        ps.iter()
                            .all(|p| matches!(p, Protocol::FmlpS | Protocol::FmlpL))
                    ),
                    Mixing::ByScope => assert!(
                        ps.iter()
                            .all(|p| matches!(p, Protocol::Mpcp | Protocol::Pcp))
                    ),
                    Mixing::Uniprocessor => assert!(ps.iter().all(|p| p.is_uniprocessor())),
                }
            }
            assert!(mixed >= 20, "{m}: only {mixed} of 40 systems mix protocols");
            if m == Mixing::Uniprocessor {
                assert!(multi >= 5, "{m}: {multi} of 40 systems keep several units");
            }
        }
    }

    /// A lock-order cycle `B -> P -> B`, with `lo` taking it inside `A`:
    /// whatever protocols the uniprocessor rule draws, the repair leaves a
    /// system the model accepts with its nestings kept (the cycle is
    /// defused, not cut), and where `A` could lend `lo` a priority above
    /// the cycle's ceilings (PIP) it is no longer so.
    #[test]
    fn a_cycle_is_repaired_to_one_the_protocols_defuse() {
        let spec = r#"
[platform]
cpus = 1
protocol = "pcp"
[[resource]]
name = "A"
[[resource]]
name = "B"
[[resource]]
name = "P"
[[task]]
name = "hi"
period = "100ms"
priority = 3
body = [ { lock = "A", hold = "1ms" } ]
[[task]]
name = "mid"
period = "100ms"
priority = 2
body = [ { lock = "P", body = [ { compute = "2ms" }, { lock = "B", hold = "1ms" } ] } ]
[[task]]
name = "lo"
period = "100ms"
priority = 1
body = [ { lock = "A", body = [ { compute = "2ms" }, { lock = "B", body = [ { compute = "1ms" }, { lock = "P", hold = "1ms" } ] } ] } ]
"#;
        let (base, _) = rtsync_model::load_str(spec, None).expect("PCP defuses the cycle");
        let mut drawn = std::collections::HashSet::new();
        for i in 0..200 {
            let mut sys = base.clone();
            Mixing::Uniprocessor.apply(&mut sys, 3, i);
            let d = rtsync_model::validate(&sys);
            assert!(!d.has_errors(), "draw {i}: {d}");
            assert_eq!(Facts::new(&sys).nesting, Facts::new(&base).nesting);
            let f = Facts::new(&sys);
            assert!(!matches!(
                rtsync_model::lockorder::check(&sys, &f),
                rtsync_model::lockorder::Order::Unsafe { .. }
            ));
            drawn.insert(sys.resources.iter().map(|r| r.protocol).collect::<Vec<_>>());
        }
        assert!(drawn.len() > 3, "the draws vary: {drawn:?}");
    }

    #[test]
    fn names_parse() {
        for m in Mixing::ALL {
            assert_eq!(m.name().parse::<Mixing>(), Ok(m));
        }
        assert!("short".parse::<Mixing>().unwrap_err().contains("by-length"));
    }
}
