//! A discrete-event simulator for rtsync systems.
//!
//! One thread per task, pinned to its CPU (partitioned scheduling), under
//! preemptive fixed priorities or EDF; periodic or sporadic arrivals with
//! release jitter; execution and self-suspension at their worst case or
//! drawn below it from a seeded generator. Every locking decision is made by
//! the protocol machine of `rtsync-protocols`, and which thread runs where
//! by its dispatch decision (MrsP's helping included): the same machine and
//! the same decision the Linux runtime drives, so the simulator shows what
//! a protocol's rules do, event by event.
//!
//! After every instant the kernel checks mutual exclusion (counting the
//! units inside sections itself) and that a lower-priority thread runs
//! ahead of a ready higher-priority one only while a protocol allows it.
//! A cycle of waits stops the run with the cycle reported.
//!
//! Overheads are charged as the analysis charges them: simulate the system
//! inflated by the same profile (`rtsync simulate --overheads`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]
pub mod grid;
pub mod horizon;
pub mod kernel;
pub mod options;
pub mod plan;
pub mod program;
pub mod result;
pub mod search;
mod serve;
pub mod shrink;
pub mod trace;

pub use kernel::{Sim, SimError, simulate};
pub use options::{Arrivals, Exec, Options};
pub use plan::{Plan, TaskPlan};
pub use result::{Blocking, Broken, Deadlock, Kind, Overload, SimResult, TaskStats, Violation};
pub use trace::{Event, Recording, Serve};
