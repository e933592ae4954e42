//! The rules of each locking protocol, written once, as a deterministic
//! state machine over an abstract kernel.
//!
//! A kernel (the simulator in `rtsync-sim`, the Linux runtime in `rtsync-rt`) owns
//! time and CPUs; it tells the [`Locks`] machine when a thread starts a job,
//! asks for a lock or releases one, and asks back:
//!
//! * at which [`Eff`]ective priority each thread runs now (inheritance,
//!   ceilings, boosting, non-preemptive sections),
//! * on which CPU it must run ([`Locks::location`]: the synchronization CPU
//!   of a DPCP or DFLP section),
//! * whether a job may start ([`Locks::may_start`]: SRP's preemption test),
//! * whether a waiter spins or suspends, and which holder a spinner may
//!   help ([`Locks::helpee`]: MrsP),
//! * which thread runs on each CPU, helping included ([`Locks::dispatch`]:
//!   one decision for the simulator and the runtime).
//!
//! Each protocol is one [`Rule`] per resource, built by its own module under
//! [`protocols`] from the system's [`rtsync_model::Facts`] ahead of time
//! (ceilings are computed once, as RTIC does for SRP). The machine interprets
//! rules; a new protocol is a new combination of rule fields (and, where
//! none fits, one new field), not a new machine.
//!
//! Misuse (a release by a non-owner, a forbidden nesting, a request for
//! more units than exist) returns a [`LockError`]; the machine never panics
//! on input.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
pub mod config;
pub mod dispatch;
pub mod eff;
pub mod error;
pub mod machine;
pub mod protocols;
pub mod rule;

pub use config::Config;
pub use dispatch::{Ready, Slot};
pub use eff::{Eff, Label, Tier};
pub use error::LockError;
pub use machine::{Granted, Locks, Outcome, Tid};
pub use rule::{Arbitration, Hold, Order, Rule, Wait};
