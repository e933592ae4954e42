//! Misuse of the locking interface. Every variant names the thread and the
//! resource involved so that a kernel can report it as it is.

use std::fmt;

/// Why the machine refused a request or a release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockError {
    /// A thread or resource index outside the configured system.
    Unknown {
        /// `"thread"` or `"resource"`.
        what: &'static str,
        /// The index given.
        index: usize,
    },
    /// Release of a resource the thread does not hold.
    NotOwner {
        /// The thread (its index in the system's task list).
        thread: usize,
        /// The resource (its index in the system's resource list).
        resource: usize,
    },
    /// Releases must be in LIFO order (sections nest properly).
    NotInnermost {
        /// The thread (its index in the system's task list).
        thread: usize,
        /// The resource (its index in the system's resource list).
        resource: usize,
        /// The innermost resource it holds, which must go first.
        innermost: usize,
    },
    /// A request while the thread already waits for a resource.
    AlreadyWaiting {
        /// The thread (its index in the system's task list).
        thread: usize,
        /// The resource (its index in the system's resource list).
        resource: usize,
    },
    /// A second request of a resource the thread holds (no recursion).
    Recursive {
        /// The thread (its index in the system's task list).
        thread: usize,
        /// The resource (its index in the system's resource list).
        resource: usize,
    },
    /// More units than the resource has, or zero units.
    Units {
        /// The thread (its index in the system's task list).
        thread: usize,
        /// The resource (its index in the system's resource list).
        resource: usize,
        /// Units requested.
        asked: u32,
        /// Units the resource has.
        total: u32,
    },
    /// The protocols forbid requesting `resource` while holding `held`
    /// (`rule` says which of [`rtsync_model::nesting`]'s rules): a global
    /// section nested with another under MPCP, DPCP, DFLP, MSRP or MrsP, a
    /// request that may suspend inside a section that keeps its CPU
    /// (non-preemptive or spinning), or PCP beside a protocol without its
    /// ceiling test.
    ForbiddenNesting {
        /// The thread (its index in the system's task list).
        thread: usize,
        /// The resource (its index in the system's resource list).
        resource: usize,
        /// The resource held that forbids it.
        held: usize,
        /// The rule the nesting breaks.
        rule: rtsync_model::nesting::Conflict,
    },
    /// [`crate::Locks::retry`] without a woken request.
    NothingToRetry {
        /// The thread (its index in the system's task list).
        thread: usize,
    },
    /// Under a ceiling protocol, a user whose priority is above the
    /// resource's ceiling (the configuration did not know it as a user).
    AboveCeiling {
        /// The thread (its index in the system's task list).
        thread: usize,
        /// The resource (its index in the system's resource list).
        resource: usize,
    },
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Unknown { what, index } => write!(f, "no {what} with index {index}"),
            LockError::NotOwner { thread, resource } => write!(
                f,
                "thread {thread} released resource {resource}, which it does not hold"
            ),
            LockError::NotInnermost {
                thread,
                resource,
                innermost,
            } => write!(
                f,
                "thread {thread} released resource {resource} before its innermost section on resource {innermost}"
            ),
            LockError::AlreadyWaiting { thread, resource } => write!(
                f,
                "thread {thread} requested resource {resource} while already waiting for another"
            ),
            LockError::Recursive { thread, resource } => write!(
                f,
                "thread {thread} requested resource {resource}, which it already holds"
            ),
            LockError::Units {
                thread,
                resource,
                asked,
                total,
            } => write!(
                f,
                "thread {thread} asked for {asked} unit(s) of resource {resource}, which has {total}"
            ),
            LockError::ForbiddenNesting {
                thread,
                resource,
                held,
                rule,
            } => write!(
                f,
                "thread {thread} requested resource {resource} while holding resource {held}, which the protocols forbid: {rule}"
            ),
            LockError::NothingToRetry { thread } => {
                write!(f, "thread {thread} has no woken request to retry")
            }
            LockError::AboveCeiling { thread, resource } => write!(
                f,
                "thread {thread} is not a declared user of resource {resource}: its priority is above the ceiling"
            ),
        }
    }
}

impl std::error::Error for LockError {}
