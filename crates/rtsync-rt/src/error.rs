//! What can go wrong on real threads, named in the system's own terms
//! (task and resource names, not indices), each with what to do.

use rtsync_protocols::LockError;
use std::fmt;
use std::time::Duration;

/// Why the runtime refused, named in the system's terms.
#[derive(Debug)]
pub enum RtError {
    /// The protocol refused the request or release (misuse: above the
    /// ceiling, a forbidden nesting, a release out of order...).
    Refused {
        /// The task whose thread asked.
        task: String,
        /// The resource, when the refusal concerns one.
        resource: Option<String>,
        /// The machine's reason.
        error: LockError,
    },
    /// The calling thread is not bound to a task of this domain.
    NotBound {
        /// The resource it used.
        resource: String,
    },
    /// A second binding of one task, or of one thread twice.
    AlreadyBound {
        /// The task.
        task: String,
    },
    /// No task or resource by that name.
    Unknown {
        /// `"task"` or `"resource"`.
        what: &'static str,
        /// The name given.
        name: String,
    },
    /// A `Mutex` over a multi-unit resource (it needs exclusive access).
    MultiUnit {
        /// The resource.
        resource: String,
        /// Its units.
        units: u32,
    },
    /// A request inside a section that the spec does not nest it in, where
    /// one of the two runs on the kernel's PI futex and the other in the
    /// protocol machine (`Options::kernel_pi`): neither could see the
    /// other's part of the nesting. A declared nesting keeps both in the
    /// machine.
    UndeclaredNesting {
        /// The task whose thread asked.
        task: String,
        /// The resource it asked for.
        resource: String,
        /// The section it held.
        held: String,
    },
    /// Granting would close a cycle of waits (possible only under PIP with
    /// opposite lock orders); the request is withdrawn.
    Deadlock {
        /// The cycle, as (task, resource it waits for) pairs.
        cycle: Vec<(String, String)>,
    },
    /// The wait exceeded the domain's limit; the request is withdrawn.
    Timeout {
        /// The waiting task.
        task: String,
        /// The resource it waited for.
        resource: String,
        /// How long it waited.
        waited: Duration,
    },
    /// SCHED_FIFO is not available (the message says what is missing).
    NotRealTime(String),
    /// A component system the runtime cannot serve as written, or a
    /// request that failed (the text names the interface and why).
    Component(String),
    /// The runtime needs fixed priorities (SCHED_FIFO).
    NotFixedPriority,
    /// Too many distinct priority levels for SCHED_FIFO.
    Levels(crate::prio::TooManyLevels),
    /// A model CPU with no machine CPU to run on.
    Cpus {
        /// CPUs the system needs.
        needed: usize,
        /// The machine CPUs this process may use.
        available: Vec<usize>,
    },
    /// The system description is invalid (each diagnostic says where
    /// and what to write instead).
    Invalid(rtsync_model::Diagnostics),
    /// A system call failed.
    Os {
        /// The call.
        what: String,
        /// The system's error.
        error: std::io::Error,
    },
}

impl fmt::Display for RtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RtError::Refused {
                task,
                resource,
                error,
            } => {
                write!(f, "task `{task}`")?;
                if let Some(r) = resource {
                    write!(f, " on `{r}`")?;
                }
                write!(f, ": {error}")
            }
            RtError::NotBound { resource } => write!(
                f,
                "the calling thread is not a task of the domain of `{resource}`; call `Domain::bind(task)` on it first"
            ),
            RtError::AlreadyBound { task } => write!(
                f,
                "task `{task}` is already bound to a thread (one thread per task), or this thread already has a task in this domain"
            ),
            RtError::Unknown { what, name } => write!(f, "no {what} named `{name}` in the system"),
            RtError::MultiUnit { resource, units } => write!(
                f,
                "`{resource}` has {units} units; a Mutex owns its data exclusively and needs a single-unit resource (take units with `Binding::lock(r, n)`)"
            ),
            RtError::UndeclaredNesting {
                task,
                resource,
                held,
            } => write!(
                f,
                "task `{task}` asked for `{resource}` inside `{held}`, a nesting its spec does not declare: `{resource}` and `{held}` run on different paths (one on the kernel's PI futex, one in the protocol machine), which cannot see each other's part of it; declare the nesting in the task's body (`{{ lock = \"{held}\", body = [ {{ lock = \"{resource}\", ... }} ] }}`) so the analysis counts it and both run in the machine"
            ),
            RtError::Deadlock { cycle } => {
                write!(f, "deadlock refused: ")?;
                for (i, (t, r)) in cycle.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "`{t}` waits for `{r}`")?;
                }
                write!(
                    f,
                    "; take resources in one global order, or give the cycle's resources one ceiling protocol (pcp, ipcp, srp) taken while holding no pip resource (`rtsync check` names what lets the cycle close)"
                )
            }
            RtError::Timeout {
                task,
                resource,
                waited,
            } => write!(
                f,
                "task `{task}` waited {waited:?} for `{resource}` and gave up (the domain's wait limit)"
            ),
            RtError::NotRealTime(why) => write!(f, "{why}"),
            RtError::Component(why) => write!(f, "{why}"),
            RtError::NotFixedPriority => write!(
                f,
                "the Linux runtime schedules with SCHED_FIFO (fixed priorities); set `scheduler = \"fp\"`"
            ),
            RtError::Levels(e) => write!(f, "{e}"),
            RtError::Cpus { needed, available } => write!(
                f,
                "the system uses {needed} CPU(s) and this process may run on {available:?}; give a CPU map with one machine CPU per system CPU"
            ),
            RtError::Os { what, error } => write!(f, "{what}: {error}"),
            RtError::Invalid(d) => write!(f, "{}", d.to_string().trim_end()),
        }
    }
}

impl std::error::Error for RtError {}
