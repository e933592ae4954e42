//! The distributed priority ceiling protocol (Rajkumar, Sha, Lehoczky
//! 1988). Every section runs on its resource's synchronization CPU, as an
//! agent above every normal priority there (the boosted band, keyed by the
//! requester's priority); the requesting job is away from its own CPU
//! meanwhile. Agents on one synchronization CPU follow PCP among themselves
//! (ceiling over all users, inheritance). rtsync sends local resources to
//! the synchronization CPU as well, so one rule covers every section.

use super::ResourceFacts;
use crate::rule::{Arbitration, Hold, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    let sync = rf.sync_cpu.unwrap_or(rf.users_cpu);
    Rule {
        arbitration: Arbitration::Ceiling,
        waiting: Hold::BoostBase,
        holding: Hold::BoostBase,
        inherit: true,
        domain: Some(sync),
        scope: sync,
        ceiling: rf.ceiling(),
        ..rf.plain()
    }
}
