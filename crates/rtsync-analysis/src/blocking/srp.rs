//! The stack resource policy (Baker 1991).
//!
//! A job may start only when its preemption level exceeds the system
//! ceiling, so it is blocked at most once, before it starts, for one
//! section of a job of lower preemption level (Baker 1991, Theorem 6;
//! Buttazzo Sec. 7.8). Under EDF the levels order relative deadlines; under
//! FP they are the priorities ([`Context::rank`]). For a multi-unit resource the
//! ceiling is taken at its highest value (no unit free), which is sound for
//! every allocation state.
//!
//! Suspensions: a job that self-suspends passes the start test again when
//! it resumes, and may be blocked there again by a section a lower job
//! entered meanwhile: `S_i + 1` blockings. Under SRP no wait for a
//! resource suspends (requests never fail once started), so self-suspension
//! is the only kind. Checked by the simulator's
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
