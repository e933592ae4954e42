//! FMLP for long resources in its FMLP+ form (Block et al. 2007;
//! Brandenburg 2011, Ch. 6): requesters suspend in FIFO order per group;
//! a holder is boosted above every normal priority, and boosted holders of
//! one CPU run in the order their requests were issued.

use super::ResourceFacts;
use crate::rule::{Arbitration, Hold, Order, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        arbitration: Arbitration::Queue(Order::Fifo),
        holding: Hold::BoostFifo,
        unit: rf.facts.group[rf.r],
        ..rf.plain()
    }
}
