//! A typed request in flight: the work, the answer, the reply word.

use super::server::Run;
use super::{CallError, Origin};
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicU32;

/// One request: `F` runs on the serving thread and its `R` comes back.
pub(crate) struct Call<F, R> {
    reply: AtomicU32,
    origin: Origin,
    work: UnsafeCell<Option<F>>,
    answer: UnsafeCell<Option<Result<R, CallError>>>,
}

// SAFETY: `work` is taken once, by the serving thread, after the post
// that publishes it; `answer` is written by the serving thread before it
// releases the reply word and read by the requester only after it owns
// that word (the futex orders the two), or never (a requester that gave
// up). F and R cross threads, hence `Send`.
unsafe impl<F: Send, R: Send> Sync for Call<F, R> {}

impl<F: FnOnce() -> R + Send, R: Send> Call<F, R> {
    pub(crate) fn new(origin: Origin, work: F) -> Call<F, R> {
        Call {
            reply: AtomicU32::new(0),
            origin,
            work: UnsafeCell::new(Some(work)),
            answer: UnsafeCell::new(None),
        }
    }

    /// The answer, once the reply came back.
    pub(crate) fn answer(&self, interface: &str) -> Result<R, CallError> {
        // SAFETY: called by the requester after it owned the reply word.
        unsafe { (*self.answer.get()).take() }.unwrap_or_else(|| {
            Err(CallError::NoAnswer {
                interface: interface.to_string(),
            })
        })
    }
}

impl<F: FnOnce() -> R + Send, R: Send> Run for Call<F, R> {
    fn reply(&self) -> &AtomicU32 {
        &self.reply
    }

    fn origin(&self) -> &Origin {
        &self.origin
    }

    fn run(&self) {
        // SAFETY: see the `Sync` impl: only the serving thread runs this.
        let Some(work) = (unsafe { (*self.work.get()).take() }) else {
            return;
        };
        let out = catch_unwind(AssertUnwindSafe(work)).map_err(|p| CallError::Panicked {
            message: p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(a panic without a message)".into()),
        });
        // SAFETY: as above.
        unsafe { *self.answer.get() = Some(out) };
    }

    fn fail(&self, e: CallError) {
        // SAFETY: as for `run`.
        unsafe {
            (*self.work.get()).take();
            *self.answer.get() = Some(Err(e));
        }
    }
}
