//! The priority ceiling protocol (original, with the system ceiling) and
//! the immediate priority ceiling protocol.
//!
//! Both block a job at most once, for the longest section of a lower-priority
//! job on a resource whose ceiling is at least the job's priority (Sha,
//! Rajkumar, Lehoczky 1990, Theorem 12 for PCP; Rajkumar 1991 and paper 001
//! Eq. 5 for IPCP). The bound is the same; they differ in when the priority
//! is raised (IPCP at lock time, PCP on contention), which matters to the
//! number of context switches, not to the worst case. The section length is
//! taken at any nesting level, so an outer section counts whole.
//!
//! Suspensions: PCP's "at most once" holds between two points at which the
//! job starts or resumes. While it is self-suspended, a lower-priority job
//! may lock a resource whose ceiling reaches it, so the term is charged
//! `S_i + 1` times (once at release and once per self-suspension). PCP and
//! IPCP waiters here never suspend on another CPU, so no other kind of
//! suspension exists. Checked by the simulator's
//! `a_self_suspension_reopens_local_blocking_under_every_protocol`.

use super::{Demand, one_ceiling_section_per_arrival};
use crate::context::Context;
use rtsync_model::TaskId;

/// Task `i`'s blocking and execution terms under this protocol (the
/// module's bound, whose form it shares with the other ceiling
/// protocol's: `blocking::one_ceiling_section_per_arrival`).
pub fn demand(cx: &Context, i: TaskId) -> Demand {
    one_ceiling_section_per_arrival(cx, i)
}
