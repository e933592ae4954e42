//! The multiprocessor stack resource policy (Gai, Lipari, Di Natale 2001):
//! local resources follow SRP on their CPU; a global request makes the job
//! non-preemptive, and it spins in FIFO order until granted and holds the
//! resource non-preemptively. Global sections do not nest.

use super::{ResourceFacts, srp};
use crate::rule::{Arbitration, Hold, Order, Rule, Wait};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    if !rf.global() {
        return srp::rule(rf);
    }
    Rule {
        arbitration: Arbitration::Queue(Order::Fifo),
        wait: Wait::Spin,
        waiting: Hold::NonPreemptive,
        holding: Hold::NonPreemptive,
        ..rf.plain()
    }
}
