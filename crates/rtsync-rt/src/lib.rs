//! The Linux runtime: the protocols of `rtsync-protocols` on real threads.
//!
//! A [`Domain`] is built from a system description; each thread binds to
//! one of its tasks ([`Domain::bind`]), which gives it the task's
//! SCHED_FIFO priority and CPU. Resources are used through [`Mutex`] (data
//! owned by a resource, a guard to reach it) or, for multi-unit SRP
//! resources and the system runner, [`Binding::lock`] / [`Binding::unlock`]
//! by index.
//!
//! Where the process may not use SCHED_FIFO, [`sys::probe_realtime`] says
//! what is missing, and a domain built with `realtime: false` still carries
//! out every decision of the protocol (who waits, who is granted, in which
//! order) without applying priorities.

#![warn(missing_docs)]

#[cfg(not(target_os = "linux"))]
compile_error!(
    "rtsync-rt runs protocols on Linux threads (SCHED_FIFO, PI futexes, CPU affinity): it builds for Linux only"
);
pub mod builder;
pub mod component;
pub mod domain;
pub mod error;
pub mod gate;
mod helping;
mod journal;
pub mod mutex;
pub mod pi;
pub mod placement;
pub mod prio;
pub mod runner;
pub mod sys;

pub use builder::{Builder, ResourceRef, TaskRef};
pub use domain::{Binding, Domain, Options, Record};
pub use error::RtError;
pub use mutex::{Fail, Guard, Mutex};
pub use prio::PrioMap;
pub use rtsync_model::Protocol;
pub use runner::{LockCall, RunOptions, RunResult, TaskRun, run};
