//! FMLP for short resources (Block, Leontyev, Brandenburg, Anderson 2007):
//! a requester becomes non-preemptive, spins in FIFO order and holds the
//! resource non-preemptively. Nested resources are locked as one group (the
//! group lock is taken by the outermost request; inner requests of the same
//! group are granted at once), which rules out deadlock.

use super::ResourceFacts;
use crate::rule::Arbitration;
use crate::rule::{Hold, Order, Rule, Wait};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        arbitration: Arbitration::Queue(Order::Fifo),
        wait: Wait::Spin,
        waiting: Hold::NonPreemptive,
        holding: Hold::NonPreemptive,
        unit: rf.facts.group[rf.r],
        ..rf.plain()
    }
}
