//! The stack resource policy (Baker 1991).
//!
//! A job may start only when its preemption level exceeds the system
//! ceiling, so it is blocked at most once, before it starts, for one
//! section of a job of lower preemption level (Baker 1991, Theorem 6;
//! Buttazzo Sec. 7.8). Under EDF the levels order relative deadlines; under
//! FP they are the priorities ([`Cx::rank`]). For a multi-unit resource the
//! ceiling is taken at its highest value (no unit free), which is sound for
//! every allocation state.

use super::{Demand, ceiling_blocking, times};
use crate::context::Cx;
use rtsync_model::TaskId;

pub fn demand(cx: &Cx, i: TaskId) -> Demand {
    Demand {
        exec: cx.f.tasks[i].wcet,
        local: times(ceiling_blocking(cx, i, |_| true), cx.suspensions(i) + 1),
        ..Demand::default()
    }
}
