//! The event trace (one JSON object per line) and the per-task timeline the
//! Gantt chart is drawn from.

use rtsync_model::Time;
use serde::Serialize;

/// One line of the event trace (`simulate --trace`), tagged by `event`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A job is released.
    Release {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// Its absolute deadline.
        deadline: Time,
    },
    /// A job completes.
    Complete {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// Its response time (completion minus arrival).
        response: Time,
    },
    /// A job passes its deadline unfinished.
    Miss {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// The deadline passed.
        deadline: Time,
    },
    /// A job asks for a resource.
    Request {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// The resource.
        resource: String,
        /// Units asked for.
        units: u32,
    },
    /// A request is granted.
    Granted {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// The resource.
        resource: String,
    },
    /// A request waits.
    Wait {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// The resource.
        resource: String,
        /// Whether it busy-waits (else it suspends).
        spin: bool,
    },
    /// A section ends.
    Unlock {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// The resource.
        resource: String,
    },
    /// A job suspends itself.
    Suspend {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// When it resumes.
        until: Time,
    },
    /// A self-suspension ends.
    Resume {
        /// When.
        t: Time,
        /// The task.
        task: String,
    },
    /// What runs on a CPU changes.
    Dispatch {
        /// When.
        t: Time,
        /// The CPU.
        cpu: usize,
        /// The task now running there, if any.
        task: Option<String>,
        /// Whether it runs there in a spinner's place (MrsP's helping).
        helping: bool,
    },
    /// A task's effective priority changes.
    Priority {
        /// When.
        t: Time,
        /// The task.
        task: String,
        /// The new priority, as labels name it (`base`, `5`, `boosted 3`).
        priority: String,
    },
    /// A request to a component's interface is sent (paper 001): from the
    /// task, or from the thread serving the request it is made in.
    Call {
        /// When.
        t: Time,
        /// The task whose job makes it.
        task: String,
        /// `component.interface.method`.
        request: String,
        /// Who sends it: the task, or a thread (`C.i`, `C.i#k`).
        from: String,
        /// The pool thread that takes it (`C.i#k`); none for a fixed
        /// interface, whose single thread takes it when it is granted.
        thread: Option<String>,
    },
    /// A fixed interface's thread takes a queued request.
    Serve {
        /// When.
        t: Time,
        /// The task whose job made it.
        task: String,
        /// `component.interface.method`.
        request: String,
        /// The thread (`C.i`).
        thread: String,
    },
    /// A request is served: its thread replies.
    Reply {
        /// When.
        t: Time,
        /// The task whose job made it.
        task: String,
        /// `component.interface.method`.
        request: String,
        /// The thread that served it.
        thread: String,
    },
    /// Jobs wait for each other in a cycle (possible under PIP only).
    Deadlock {
        /// When.
        t: Time,
        /// The cycle, as (task, resource it waits for) pairs.
        cycle: Vec<(String, String)>,
    },
}

/// What a task is doing over an interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    /// Executing on `cpu`; `resource` is its innermost held section.
    Run {
        /// The CPU.
        cpu: usize,
        /// The innermost resource it holds, if any.
        resource: Option<usize>,
    },
    /// Busy-waiting on `cpu` for `resource`.
    Spin {
        /// The CPU it spins on.
        cpu: usize,
        /// The resource it waits for.
        resource: usize,
    },
    /// Ready but not running.
    Ready,
    /// Suspended waiting for `resource`.
    Blocked {
        /// The resource it waits for.
        resource: usize,
    },
    /// Self-suspended.
    Suspended,
}

/// A task in one state over `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    /// The task (its index).
    pub task: usize,
    /// Where the interval starts.
    pub start: Time,
    /// Where it ends.
    pub end: Time,
    /// What the task does meanwhile.
    pub state: State,
}

/// An instant worth marking on a task's lane.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// When.
    pub t: Time,
    /// The task (its index).
    pub task: usize,
    /// What happened.
    pub kind: MarkKind,
}

/// What a [`Mark`] marks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    /// A job's release.
    Release,
    /// A job's deadline.
    Deadline,
    /// A job's completion.
    Complete,
    /// A deadline passed unfinished.
    Miss,
    /// The effective priority from then on, labelled.
    Priority(String),
}

/// A request served by a component thread over `[start, end)` (from
/// when its pool thread took it, or a fixed interface's thread was
/// granted it, to the reply).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Serve {
    /// The task whose job made it (its index).
    pub task: usize,
    /// `component.interface.method`.
    pub request: String,
    /// The interface (its index in the components).
    pub interface: usize,
    /// The thread serving it: `C.i` or `C.i#k`.
    pub lane: String,
    /// Who sent it: the task's name, or the thread serving the request it
    /// was made in.
    pub from: String,
    /// How many requests it is nested in (0: made by the task's body).
    pub depth: usize,
    /// When the thread took it.
    pub start: Time,
    /// When it replied.
    pub end: Time,
}

/// Everything recorded when [`crate::Options::record`] is on.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    /// Every event, in order.
    pub events: Vec<Event>,
    /// Each task's states over time (contiguous alike spans merged).
    pub spans: Vec<Span>,
    /// Releases, deadlines, completions, misses, priority changes.
    pub marks: Vec<Mark>,
    /// Requests served by component threads (component specs only), in
    /// order of their replies.
    pub serves: Vec<Serve>,
}

impl Recording {
    /// The events as JSON lines.
    pub fn write_jsonl(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        for e in &self.events {
            serde_json::to_writer(&mut *out, e)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }

    pub(crate) fn extend(&mut self, task: usize, start: Time, end: Time, state: State) {
        if start == end {
            return;
        }
        // Merge with this task's last span when contiguous and alike.
        if let Some(last) = self
            .spans
            .iter_mut()
            .rev()
            .take(64)
            .find(|s| s.task == task)
            && last.end == start
            && last.state == state
        {
            last.end = end;
            return;
        }
        self.spans.push(Span {
            task,
            start,
            end,
            state,
        });
    }
}
