//! Effective priorities: what the kernel's dispatcher compares.

use std::cmp::Reverse;
use std::fmt;

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
        self.shown(base, edf).to_string()
    }

    /// What [`Eff::label`] names, without making the string: two
    /// priorities get equal labels exactly when these are equal. The
    /// runtime keeps this under its bookkeeping lock, where nothing may
    /// allocate, and makes the label when the log is read.
    pub fn shown(self, base: u64, edf: bool) -> Label {
        match self.tier {
            Tier::NonPreemptive => Label::NonPreemptive,
            Tier::Boosted if self.key == 0 => Label::BoostedFifo,
            Tier::Boosted => Label::Boosted(self.key),
            Tier::Normal if self.key == base => Label::Base,
            Tier::Normal if edf => Label::Inherited,
            Tier::Normal => Label::Key(self.key),
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

/// An effective priority as traces name it ([`Eff::shown`]), its
/// [`Display`](fmt::Display) the label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    /// `non-preemptive`.
    NonPreemptive,
    /// `boosted (FIFO)`: boosted, ordered by request time (FMLP).
    BoostedFifo,
    /// `boosted 3`: boosted at that priority (MPCP, DPCP, DFLP agents).
    Boosted(u64),
    /// `base`: the thread's own priority.
    Base,
    /// `inherited`: another's deadline (EDF).
    Inherited,
    /// `5`: another fixed priority, inherited or a ceiling.
    Key(u64),
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::NonPreemptive => f.write_str("non-preemptive"),
            Label::BoostedFifo => f.write_str("boosted (FIFO)"),
            Label::Boosted(k) => write!(f, "boosted {k}"),
            Label::Base => f.write_str("base"),
            Label::Inherited => f.write_str("inherited"),
            Label::Key(k) => write!(f, "{k}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eff(tier: Tier, key: u64) -> Eff {
        Eff {
            tier,
            key,
            seq: Reverse(0),
        }
    }

    /// The names the scenario files and the simulator's traces use.
    #[test]
    fn labels_are_the_scenario_names() {
        let cases = [
            (eff(Tier::NonPreemptive, 4), false, "non-preemptive"),
            (eff(Tier::Boosted, 0), false, "boosted (FIFO)"),
            (eff(Tier::Boosted, 3), false, "boosted 3"),
            (eff(Tier::Normal, 2), false, "base"),
            (eff(Tier::Normal, 7), false, "7"),
            (eff(Tier::Normal, 7), true, "inherited"),
            (eff(Tier::Normal, 2), true, "base"),
        ];
        for (e, edf, want) in cases {
            assert_eq!(e.label(2, edf), want, "{e:?}, edf {edf}");
        }
    }

    /// The runtime compares `shown` where it used to compare labels: the
    /// two must agree on every pair.
    #[test]
    fn equal_shown_is_equal_label() {
        let mut all = Vec::new();
        for tier in [Tier::Normal, Tier::Boosted, Tier::NonPreemptive] {
            for key in 0..5 {
                for seq in 0..2 {
                    all.push(Eff {
                        tier,
                        key,
                        seq: Reverse(seq),
                    });
                }
            }
        }
        for edf in [false, true] {
            for base in 0..5 {
                for &a in &all {
                    for &b in &all {
                        assert_eq!(
                            a.shown(base, edf) == b.shown(base, edf),
                            a.label(base, edf) == b.label(base, edf),
                            "{a:?} and {b:?}, base {base}, edf {edf}"
                        );
                    }
                }
            }
        }
    }
}
