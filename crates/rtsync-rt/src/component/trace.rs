//! What component threads did, for conformance checks and pictures:
//! requests sent, taken and answered, each with its time.

use crate::pi::PiLock;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One event of a component thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `task`'s request was sent to lane `lane` of interface `interface`
    /// (a pool's thread), or queued for a single thread.
    Call {
        /// The task whose control flow the request belongs to.
        task: Arc<str>,
        /// The interface (its index in the assembly).
        interface: usize,
        /// The thread.
        lane: usize,
    },
    /// The request took the interface: its exclusive word, or the single
    /// thread's turn.
    Grant {
        /// As in `Call`.
        task: Arc<str>,
        /// As in `Call`.
        interface: usize,
        /// As in `Call`.
        lane: usize,
    },
    /// The thread answered.
    Reply {
        /// As in `Call`.
        task: Arc<str>,
        /// As in `Call`.
        interface: usize,
        /// As in `Call`.
        lane: usize,
    },
}

/// Events with their times since the log began, kept under a
/// priority-inheritance lock (a high-priority thread noting an event
/// lends its priority to whoever holds it) and stamped under it, so the
/// order of the log is the order of the events.
pub(crate) struct Log {
    start: Instant,
    events: PiLock<Vec<(Duration, Event)>>,
}

impl Log {
    pub(crate) fn new(start: Instant) -> std::io::Result<Log> {
        Ok(Log {
            start,
            events: PiLock::new(Vec::with_capacity(1024))?,
        })
    }

    pub(crate) fn note(&self, e: Event) {
        let mut g = self.events.lock();
        g.push((self.start.elapsed(), e));
    }

    pub(crate) fn events(&self) -> Vec<(Duration, Event)> {
        self.events.lock().clone()
    }
}

/// A component thread's service of one request, from the log: from the
/// request's arrival at the thread (a pool's) or its grant (a single
/// thread's) to the reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served {
    /// The thread, as the simulator names it (`C.i`, `C.i#k`).
    pub lane: String,
    /// The task whose request it was.
    pub task: String,
    /// When service began and ended, since the log began.
    pub start: Duration,
    /// See `start`.
    pub end: Duration,
}

/// Pairs each service's beginning with its reply, in the order services
/// began. `single[i]`: whether interface `i` has one thread (its service
/// begins at the grant); `label(i, k)` names lane `k` of interface `i`.
pub(crate) fn served(
    events: &[(Duration, Event)],
    single: &[bool],
    label: impl Fn(usize, usize) -> String,
) -> Vec<Served> {
    let mut open: Vec<(usize, usize, Served)> = Vec::new();
    let mut out: Vec<Served> = Vec::new();
    for (t, e) in events {
        match e {
            Event::Call {
                task,
                interface,
                lane,
            }
            | Event::Grant {
                task,
                interface,
                lane,
            } => {
                let starts = matches!(e, Event::Grant { .. }) == single[*interface];
                if starts {
                    open.push((
                        *interface,
                        *lane,
                        Served {
                            lane: label(*interface, *lane),
                            task: task.to_string(),
                            start: *t,
                            end: *t,
                        },
                    ));
                }
            }
            Event::Reply {
                interface, lane, ..
            } => {
                if let Some(at) = open
                    .iter()
                    .position(|(i, k, _)| i == interface && k == lane)
                {
                    let (_, _, mut s) = open.remove(at);
                    s.end = *t;
                    out.push(s);
                }
            }
        }
    }
    out.sort_by_key(|s| s.start);
    out
}
