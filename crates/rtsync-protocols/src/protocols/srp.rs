//! The stack resource policy (Baker 1991): a job starts only when its
//! preemption level is above the system ceiling, the highest level of any
//! user that could need more units than are free
//! ([`crate::Locks::may_start`]); having started, every request finds its
//! units. Multi-unit resources use the per-need ceiling of Baker's Def. 4.

use super::ResourceFacts;
use crate::rule::{Arbitration, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        arbitration: Arbitration::Stack,
        handoff: false,
        ..rf.plain()
    }
}
