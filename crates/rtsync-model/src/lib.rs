//! The rtsync system model: time, tasks, resources, critical sections and
//! their protocol, loaded from a TOML spec with precise diagnostics, and the
//! facts derived from them (WCETs, ceilings, preemption levels, nesting).
//!
//! Data flows one way: spec -> [`System`] -> [`Facts`] -> the engines
//! (the analysis, the simulator and the Linux runtime).

#![forbid(unsafe_code)]
#![warn(missing_docs)]
pub mod component;
pub mod derived;
pub mod diag;
pub mod disjoint;
mod include;
pub mod interface;
pub mod lockorder;
pub mod mix;
pub mod nesting;
pub mod protocol;
mod raw;
pub mod scenario;
mod sections;
pub mod spec;
pub mod system;
pub mod time;
pub mod validate;
pub mod write;

pub use derived::{Facts, Request, TaskFacts};
pub use diag::{Diagnostic, Diagnostics, LineIndex, Pos, Severity};
pub use mix::Mix;
pub use protocol::{Protocol, ProtocolFacts, Scheduler};
pub use spec::{load_file, load_str, parse_str};
pub use system::{
    Cpu, Platform, Priority, Resource, ResourceId, Segment, SourceMap, System, Task, TaskId,
    body_execution, keys, preorder,
};
pub use time::Time;
pub use validate::validate;
pub use write::to_toml;
