//! The stack resource policy (Baker 1991): a job starts only when its
//! preemption level is above the system ceiling, the highest level of any
//! user that could need more units than are free
//! ([`crate::Locks::may_start`]); having started, every request finds its
//! units. Multi-unit resources use the per-need ceiling of Baker's Def. 4.
//!
//! A waiter still lends its priority to the holders, as IPCP's fallback
//! queue does. On its own SRP never lets a job wait, but nested inside a
//! resource whose holder can run raised (a PIP holder inheriting a
//! waiter's priority), that holder can preempt a job inside an SRP section
//! and then ask for its resource. Without inheritance, every task between
//! the two ran first: the soundness search found it in the uniprocessor
//! mix (`tests/data/mix-pip-holder-waits-for-srp.toml` in the simulator's
//! crate: a PIP holder inherited the top priority, waited for an SRP
//! resource held by a middle job, and two tasks between them ran, 7.38 ms
//! against a 7.18 ms bound). With it, the SRP holder finishes its section
//! at the waiter's priority, the one section of it the analysis charges
//! (its ceiling closed over nesting, `blocking::mix`).

use super::ResourceFacts;
use crate::rule::{Arbitration, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        arbitration: Arbitration::Stack,
        inherit: true,
        handoff: false,
        ..rf.plain()
    }
}
