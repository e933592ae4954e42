//! The protocols' nesting rules: which resource may be locked while which
//! is held. One home for them, read by validation (which refuses a spec
//! that breaks one), by the protocol core (which refuses the request at
//! run time) and by the generator of protocol mixes (which repairs the
//! nestings it draws). Each rule is stated from the protocols' facts
//! ([`Protocol::keeps_cpu`], [`Protocol::suspends`],
//! [`Protocol::allows_nested_global`], [`Protocol::ceiling_tested`]), so a
//! new protocol brings its rules with its facts.
//!
//! Lock-order cycles are a property of the whole spec, not of one
//! nesting, and stay validation's (`validate.rs`).

use crate::system::{Cpu, ResourceId, System};
use crate::{Facts, Protocol};
use std::fmt;

/// One resource as the nesting rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// The protocol whose rules it follows: its own, or for a local
    /// resource of MPCP or MSRP the local protocol (PCP, SRP) that the
    /// protocol core gives it ([`crate::mix::family`]), so that a local
    /// resource nests alike whichever of the two the spec names.
    pub family: Protocol,
    /// Whether it is, or may be, shared across CPUs: used from more than
    /// one CPU, or any resource of a system not yet partitioned
    /// ([`Facts::partitioned`]: on one CPU every task already is). (There
    /// a resource that one task alone uses is still not `global` in the
    /// facts, and its `family` the local protocol: it stays on that
    /// task's CPU wherever the task goes.)
    pub shared: bool,
    /// The CPU whose agents run its sections ([`System::serving_cpu`]:
    /// DPCP and DFLP), `None` where they run on the job's own CPU.
    pub serving: Option<Cpu>,
}

impl Side {
    /// Resource `r` of `sys`, whose facts are `f` (read, not recomputed:
    /// validation and the protocol core ask for every resource).
    pub fn of(sys: &System, f: &Facts, r: ResourceId) -> Side {
        Side {
            serving: sys.serving_cpu(r),
            ..Side::new(sys.resources[r].protocol, f.global[r], f.partitioned)
        }
    }

    /// A resource under `protocol`, used from more than one CPU where
    /// `global`, in a system that is `partitioned` or not yet.
    pub fn new(protocol: Protocol, global: bool, partitioned: bool) -> Side {
        Side {
            family: crate::mix::family_of(protocol, global),
            shared: global || !partitioned,
            serving: None,
        }
    }
}

/// Why a nesting is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// A request that may suspend inside a section whose holder keeps its
    /// CPU (non-preemptive or spinning): the spin or the non-preemptive
    /// stretch would last across the suspension, which no analysis bounds
    /// (FMLP's rule for a long resource inside a short one, Block et al.
    /// 2007).
    SuspendsWhileKeepingCpu,
    /// A request that may suspend inside a section whose resource keeps
    /// jobs from starting (SRP's start test, [`Protocol::tests_start`]):
    /// while the holder is suspended, a higher job held back at its start
    /// waits, not for a resource it could inherit through, and every job
    /// that started before runs meanwhile, whole, at its own priority
    /// (one holding the inner resource can release and lock it again
    /// before the woken holder runs). The per-section bound of the
    /// uniprocessor mix (`blocking::mix`) charges one section per lower
    /// job; the soundness search broke it by 6.5% on such a nesting
    /// (2026-12-03: PIP inside SRP, seed 337, `spec_errors.rs`,
    /// `a_suspending_request_inside_an_srp_section_is_refused`).
    SuspendsWhileHoldingStarts,
    /// A global section nested with another resource under a protocol
    /// that forbids it (MPCP, DPCP, DFLP, MSRP, MrsP as published and as
    /// analysed; FMLP allows it through group locks).
    NestedGlobal(Protocol),
    /// A resource of a protocol that nests none of its resources, global
    /// or not (DFLP, [`crate::ProtocolFacts::nests`]).
    Unnested(Protocol),
    /// The two sections would run on different CPUs: one served by agents
    /// of a synchronization CPU (DPCP, DFLP) and the other by another
    /// CPU's agents or on the job's own CPU. The outer section's agent
    /// would wait off its CPU holding it, which lets the lower tasks there
    /// run and ask meanwhile, and its holding time would grow by the
    /// inner request's wait; the analyses bound neither (the soundness
    /// search broke the DPCP and DFLP bounds by up to 2.2 times on such
    /// nestings, 2026-12-02; spec_errors.rs, `sections_served_on_different_cpus_do_not_nest`).
    ServedApart,
    /// One side passes PCP's ceiling test and the other does not: PCP's
    /// deadlock freedom (Sha, Rajkumar and Lehoczky 1990, Thm 10) holds
    /// only among jobs that took every resource they hold through the
    /// test, and a job holding one taken past it can deadlock with a job
    /// the test refuses (found by the soundness search).
    CeilingTestMixed,
}

/// Whether locking `inner` while holding `outer` breaks a rule, and which:
/// the first that applies, in the order of [`Conflict`]'s variants.
pub fn conflict(outer: Side, inner: Side) -> Option<Conflict> {
    if outer.family.keeps_cpu() && inner.family.suspends() {
        return Some(Conflict::SuspendsWhileKeepingCpu);
    }
    if outer.family.tests_start() && inner.family.suspends() {
        return Some(Conflict::SuspendsWhileHoldingStarts);
    }
    // Whichever side follows such a protocol, where either side is (or
    // may be) global.
    if outer.shared || inner.shared {
        let forbids = [outer.family, inner.family]
            .into_iter()
            .find(|p| !p.is_uniprocessor() && !p.allows_nested_global());
        if let Some(p) = forbids {
            return Some(Conflict::NestedGlobal(p));
        }
    }
    if let Some(p) = [outer.family, inner.family]
        .into_iter()
        .find(|p| !p.allows_nesting())
    {
        return Some(Conflict::Unnested(p));
    }
    if outer.serving != inner.serving {
        return Some(Conflict::ServedApart);
    }
    if outer.family.ceiling_tested() != inner.family.ceiling_tested() {
        return Some(Conflict::CeilingTestMixed);
    }
    None
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Conflict::SuspendsWhileKeepingCpu => {
                f.write_str("a request that may suspend inside a section that keeps its CPU")
            }
            Conflict::SuspendsWhileHoldingStarts => f.write_str(
                "a request that may suspend inside a section that keeps jobs from starting",
            ),
            Conflict::NestedGlobal(p) => {
                write!(f, "{p} forbids nesting a global resource with another")
            }
            Conflict::Unnested(p) => write!(f, "{p} forbids nesting its resources"),
            Conflict::ServedApart => {
                f.write_str("a section served on another CPU than the section that holds it")
            }
            Conflict::CeilingTestMixed => f.write_str(
                "a resource that passes PCP's ceiling test nested with one that does not",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(p: Protocol, global: bool) -> Side {
        Side::new(p, global, true)
    }

    /// The rules on hand-picked pairs, one per rule and one each way
    /// round where the order matters.
    #[test]
    fn each_rule_on_its_own_pair() {
        use Protocol::*;
        // A long FMLP request inside a short one, not the other way round.
        assert_eq!(
            conflict(side(FmlpS, true), side(FmlpL, true)),
            Some(Conflict::SuspendsWhileKeepingCpu)
        );
        assert_eq!(conflict(side(FmlpL, true), side(FmlpS, true)), None);
        // PIP (suspends) inside a non-preemptive section, on one CPU.
        assert_eq!(
            conflict(side(Npcs, false), side(Pip, false)),
            Some(Conflict::SuspendsWhileKeepingCpu)
        );
        // PIP (suspends) inside SRP (tests starts), not the other way
        // round; IPCP (never waits) inside SRP is fine.
        assert_eq!(
            conflict(side(Srp, false), side(Pip, false)),
            Some(Conflict::SuspendsWhileHoldingStarts)
        );
        assert_eq!(conflict(side(Pip, false), side(Srp, false)), None);
        assert_eq!(conflict(side(Srp, false), side(Ipcp, false)), None);
        // MPCP: two local resources follow PCP and nest; a global one
        // nests with nothing, on either side.
        assert_eq!(conflict(side(Mpcp, false), side(Mpcp, false)), None);
        assert_eq!(
            conflict(side(Mpcp, false), side(Mpcp, true)),
            Some(Conflict::NestedGlobal(Mpcp))
        );
        assert_eq!(
            conflict(side(Mpcp, true), side(Pcp, false)),
            Some(Conflict::NestedGlobal(Mpcp))
        );
        // Not yet partitioned: any resource may end up global, but one
        // used by a single task (not `global` in the facts) is local to
        // that task's CPU wherever it goes, and MPCP's follows PCP.
        assert_eq!(
            conflict(Side::new(Dpcp, false, false), Side::new(Dpcp, false, false)),
            Some(Conflict::NestedGlobal(Dpcp))
        );
        assert_eq!(
            conflict(Side::new(Mpcp, false, false), Side::new(Mpcp, false, false)),
            None
        );
        // PCP with a protocol that skips its ceiling test, both ways.
        assert_eq!(
            conflict(side(Pcp, false), side(Ipcp, false)),
            Some(Conflict::CeilingTestMixed)
        );
        assert_eq!(
            conflict(side(Pip, false), side(Pcp, false)),
            Some(Conflict::CeilingTestMixed)
        );
        assert_eq!(conflict(side(Pcp, false), side(Pcp, false)), None);
        // Sections served on different CPUs (DPCP, DFLP's agents, or the
        // job's own CPU) never nest; served on the same CPU they may.
        let at = |p, c| Side {
            serving: c,
            ..side(p, false)
        };
        assert_eq!(conflict(at(Dpcp, Some(0)), at(Dpcp, Some(0))), None);
        assert_eq!(
            conflict(at(Dpcp, Some(0)), at(Dpcp, Some(1))),
            Some(Conflict::ServedApart)
        );
        assert_eq!(
            conflict(at(Mpcp, None), at(Dpcp, Some(1))),
            Some(Conflict::ServedApart)
        );
        // DFLP nests nothing, served on one CPU or not, either side.
        assert_eq!(
            conflict(at(Dflp, Some(1)), at(Dflp, Some(1))),
            Some(Conflict::Unnested(Dflp))
        );
        assert_eq!(
            conflict(at(Pcp, None), at(Dflp, None)),
            Some(Conflict::Unnested(Dflp))
        );
        assert_eq!(
            conflict(at(Dpcp, Some(1)), at(Pcp, None)),
            Some(Conflict::ServedApart)
        );
        // A local MSRP resource follows SRP, which nests with SRP, and
        // with a global MSRP resource nests as SRP would: refused.
        assert_eq!(conflict(side(Msrp, false), side(Srp, false)), None);
        assert_eq!(
            conflict(side(Msrp, false), side(Msrp, true)),
            conflict(side(Srp, false), side(Msrp, true)),
        );
    }
}
