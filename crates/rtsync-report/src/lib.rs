//! What a person looks at, in one place: aligned text tables, the
//! analysis report (text and JSON), Gantt charts of a simulation, the
//! plots of a sweep and of the soundness experiment. `simulate`,
//! `analyze`, `check`, `experiment` and the benches render through here,
//! and a later HTML report will too.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod components;
pub mod gantt;
pub mod plot;
mod svg;
pub mod table;

pub use table::Table;
