//! Schedulability analysis for rtsync: blocking bounds for every protocol,
//! fixed-priority response-time analysis, EDF tests, utilization bounds,
//! overhead accounting, task-set generators and partitioning.
//!
//! Results are immutable values ([`result::SystemResult`]); the engine
//! iterates the blocking / response-time fixed point itself.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
pub mod analyze;
pub mod blocking;
pub mod bounds;
pub mod components;
pub mod context;
pub mod edf;
pub mod edf_rta;
pub mod fp;
pub mod generate;
pub mod overheads;
pub mod partition;
mod recurrence;
pub mod result;
pub mod sweep;

pub use analyze::{Analysis, Options, TestSelection, analyze, analyze_result, place, verdict};
pub use context::{BoundForm, Context};
pub use overheads::Profile;
pub use partition::{Heuristic, partition};
pub use result::{Blocking, Delay, Response, SystemResult, TaskResult, Test, TestOutcome, Verdict};
