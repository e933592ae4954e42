//! The multiprocessor priority ceiling protocol, shared-memory form
//! (Rajkumar 1990; Lakshmanan, de Niz, Rajkumar 2009). A global section
//! runs above every normal priority, in the boosted band at its resource's
//! *remote* ceiling on the holder's CPU: the highest priority among the
//! resource's users on the other CPUs (Lakshmanan et al.'s gcs priority
//! `π_G + max{π_j : τ_j uses R, τ_j not on the holder's CPU}`; SchedCAT's
//! `get_mpcp_ceilings`). Rajkumar's original form boosts to the ceiling
//! over all users, which puts more sections at the top of the band, where
//! they may run inside another CPU's waiter's holder (the analysis counts
//! every section of ceiling at or above the holder's); the first wave
//! used it, and was looser than SchedCAT's MPCP bound on about 8% of the
//! benchmark's tasks for that reason (issue 28). Equal keys run in grant
//! order. Waiters suspend in priority order. Local resources follow PCP on
//! their CPU. Nesting a global section inside another is forbidden.

use super::{ResourceFacts, pcp};
use crate::rule::{Hold, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    if !rf.global() {
        return pcp::rule(rf);
    }
    Rule {
        holding: Hold::BoostRemote,
        ..rf.plain()
    }
}
