//! The multiprocessor resource sharing protocol (Burns and Wellings 2013):
//! a requester raises its priority to the resource's ceiling among the
//! users on its own CPU, spins there in FIFO order, and holds at that
//! ceiling. A spinning waiter may run a preempted holder in its place
//! (helping): the holder migrates to the waiter's CPU for as long as it is
//! preempted on its own, so each request waits at most one section per
//! other CPU.

use super::ResourceFacts;
use crate::rule::{Arbitration, Hold, Order, Rule, Wait};

/// The rule of one resource under this protocol (see the module's doc).
pub fn rule(rf: &ResourceFacts) -> Rule {
    Rule {
        arbitration: Arbitration::Queue(Order::Fifo),
        wait: Wait::Spin,
        waiting: Hold::LocalCeiling,
        holding: Hold::LocalCeiling,
        helping: rf.global(),
        ..rf.plain()
    }
}
