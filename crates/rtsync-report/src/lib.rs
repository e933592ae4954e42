//! What a person looks at, in one place: aligned text tables, the
//! analysis report (text and JSON), Gantt charts of a simulation, the
//! plots of a sweep and of the soundness experiment, and the HTML page of
//! `rtsync report` that puts them together. `simulate`, `analyze`,
//! `check`, `experiment`, `report` and the benches render through here.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod components;
pub mod files;
pub mod gantt;
pub mod html;
pub mod plot;
mod svg;
pub mod table;

pub use svg::esc;
pub use table::Table;
