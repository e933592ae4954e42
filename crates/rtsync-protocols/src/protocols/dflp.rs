//! The distributed FIFO locking protocol (Brandenburg 2013): like DPCP,
//! sections run on the synchronization CPU while the requester is away;
//! unlike it, each resource serves requests in FIFO order and the
//! synchronization CPU runs the pending sections in the order their
//! requests were issued (FIFO-ordered boosting).

use super::ResourceFacts;
use crate::rule::{Arbitration, Hold, Order, Rule};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    let sync = rf.sync_cpu.unwrap_or(rf.users_cpu);
    Rule {
        arbitration: Arbitration::Queue(Order::Fifo),
        waiting: Hold::BoostFifo,
        holding: Hold::BoostFifo,
        domain: Some(sync),
        scope: sync,
        ..rf.plain()
    }
}
