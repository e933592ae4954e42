//! The immediate priority ceiling protocol (highest locker; POSIX
//! `PTHREAD_PRIO_PROTECT`): a holder runs at the resource's ceiling from
//! the moment it locks, so no job that could request the resource runs
//! meanwhile on its CPU. Requests find the resource free; the inheriting
//! priority queue is the fallback a POSIX mutex has too.

use super::ResourceFacts;
use crate::rule::{Hold, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        holding: Hold::Ceiling(rf.ceiling()),
        inherit: true,
        handoff: false,
        ceiling: rf.ceiling(),
        ..rf.plain()
    }
}
