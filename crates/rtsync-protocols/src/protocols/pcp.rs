//! The original priority ceiling protocol (Sha, Rajkumar, Lehoczky 1990,
//! Sec. IV): a request is granted only when the requester's priority is
//! strictly above the ceilings of all resources held by other jobs (the
//! system ceiling); the job holding the highest such ceiling inherits the
//! refused requester's priority. This blocks at most once per job and
//! prevents deadlock.

use super::ResourceFacts;
use crate::rule::{Arbitration, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        arbitration: Arbitration::Ceiling,
        handoff: false,
        inherit: true,
        ceiling: rf.ceiling(),
        ..rf.plain()
    }
}
