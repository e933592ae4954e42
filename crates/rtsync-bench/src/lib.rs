//! rtsync's benchmarks, each beside the peer it is measured against in
//! the same run (glibc's mutexes, rtrb, triple_buffer, seqlock, the toml
//! crate), kept out of the library crates so that their users never build
//! the peers. Each bench prints its tables and targets; `rtsync bench`
//! parses the arguments and calls it.
//!
//! | bench | measures |
//! | --- | --- |
//! | [`analysis`] | task sets analysed per second (MPCP, DPCP, P-FP RTA) |
//! | [`sim`] | simulated scheduling events per second, per protocol |
//! | [`channels`] | channel latency per side and ring throughput |
//! | [`components`] | component requests (paper 001 Table 2, Fig. 6) beside futex peers |
//! | [`locks`] | lock costs on SCHED_FIFO threads; writes the overhead profile |
//! | [`parse`] | spec loading against its size; `rtsync check` end to end |
//! | [`costs`] | this machine's costs for a system about to run (`rtsync run`) |
//! | [`on_threads`] | `rtsync experiment on-threads`: measured worst responses on real threads against the bounds |

pub mod analysis;
pub mod channels;
pub mod components;
pub mod costs;
pub mod locks;
pub mod on_threads;
pub mod parse;
pub mod reproduce;
pub mod schedcat;
pub mod search;
pub mod sim;

use std::fmt;

/// Why a bench did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An argument out of range, or a file that cannot be written.
    BadInput(String),
    /// The machine cannot measure it (SCHED_FIFO not permitted, a CPU
    /// refused).
    Environment(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadInput(m) | Error::Environment(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}
