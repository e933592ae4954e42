//! Effective priorities: what the kernel's dispatcher compares.

use std::cmp::Reverse;

/// The band a thread runs in. A higher band beats any priority of a lower
/// one: `Boosted` is "above every normal priority" (MPCP global sections,
/// DPCP/DFLP agents, FMLP-L holders), `NonPreemptive` is "nothing preempts
/// it on its CPU" (NPCS, FMLP-S, MSRP global requests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Ordinary priorities (base, inherited, ceilings).
    Normal = 0,
    /// Above every normal priority of the CPU.
    Boosted = 1,
    /// Nothing preempts it on its CPU.
    NonPreemptive = 2,
}

/// An effective priority, totally ordered: band first, then `key` (larger
/// runs first; the kernel gives fixed priorities as they are and EDF
/// deadlines as `u64::MAX - deadline`), then the earlier `seq` (release
/// order among equal priorities, request order among FIFO-boosted holders).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Eff {
    /// The band, compared first.
    pub tier: Tier,
    /// The priority within the band (larger first).
    pub key: u64,
    /// Release or request order, the earlier first among equal keys.
    pub seq: Reverse<u64>,
}

impl Eff {
    /// How traces and conformance scenarios name this priority for a
    /// thread whose base key is `base`: `base`, the key (`5`), `inherited`
    /// (EDF, where keys are deadlines), `boosted 3`, `boosted (FIFO)`,
    /// `non-preemptive`.
    pub fn label(self, base: u64, edf: bool) -> String {
        match self.tier {
            Tier::NonPreemptive => "non-preemptive".into(),
            Tier::Boosted if self.key == 0 => "boosted (FIFO)".into(),
            Tier::Boosted => format!("boosted {}", self.key),
            Tier::Normal if self.key == base => "base".into(),
            Tier::Normal if edf => "inherited".into(),
            Tier::Normal => format!("{}", self.key),
        }
    }

    /// A normal-band priority `key`, ordered among equals by `seq`.
    pub fn normal(key: u64, seq: u64) -> Eff {
        Eff {
            tier: Tier::Normal,
            key,
            seq: Reverse(seq),
        }
    }
}
