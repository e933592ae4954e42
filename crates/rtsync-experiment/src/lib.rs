//! Experiments that compare the analysis with what runs: the simulator's
//! search for a broken bound, and a system as it runs on this machine
//! ([`as_it_runs`]), analysed as placed.
//!
//! [`soundness`] checks the promise of the design on random systems: on a
//! system the analysis calls schedulable, no schedule the task model
//! allows takes a task past its bound. It samples (periodic and sporadic
//! runs) and, above all, searches ([`rtsync_sim::search`]) for the
//! schedule that comes closest to each bound. [`shapes`] names the random
//! system shapes it draws, aimed at where bounds break.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
pub mod as_it_runs;
pub mod components;
pub mod exhaustive;
pub mod shapes;
pub mod shard;
pub mod soundness;

pub use shapes::Shape;
pub use soundness::{Checked, Config, SoundnessSpec, Tally, Violation, check_system, run};
