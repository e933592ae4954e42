//! Non-preemptive critical sections (Mok 1983): a holder cannot be
//! preempted on its CPU. A request finds the resource free, since no other
//! job runs while a holder is inside (validation forbids suspending in a
//! section); the priority queue only keeps a misbehaving kernel safe.

use super::ResourceFacts;
use crate::rule::{Hold, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        holding: Hold::NonPreemptive,
        handoff: false,
        ..rf.plain()
    }
}
