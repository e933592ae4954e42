//! The priority inheritance protocol (Sha, Rajkumar, Lehoczky 1990,
//! Sec. III): waiters suspend in priority order and lend their priority to
//! the holder, transitively along chains of nested sections. Deadlock is
//! possible when nested locks are taken in opposite orders; the machine's
//! [`crate::Locks::wait_cycle`] finds the cycle.

use super::ResourceFacts;
use crate::rule::Rule;

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        inherit: true,
        handoff: false,
        ..rf.plain()
    }
}
