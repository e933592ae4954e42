//! The atomics every channel uses, switched to loom's model-checked ones
//! under `--cfg loom` so the same algorithm code is what loom explores.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU64, fence};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU64, fence};

pub(crate) use std::sync::atomic::Ordering;
