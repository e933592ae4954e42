//! The event trace (one JSON object per line) and the per-task timeline the
//! Gantt chart is drawn from.

use rtsync_model::Time;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Release {
        t: Time,
        task: String,
        deadline: Time,
    },
    Complete {
        t: Time,
        task: String,
        response: Time,
    },
    Miss {
        t: Time,
        task: String,
        deadline: Time,
    },
    Request {
        t: Time,
        task: String,
        resource: String,
        units: u32,
    },
    Granted {
        t: Time,
        task: String,
        resource: String,
    },
    Wait {
        t: Time,
        task: String,
        resource: String,
        spin: bool,
    },
    Unlock {
        t: Time,
        task: String,
        resource: String,
    },
    Suspend {
        t: Time,
        task: String,
        until: Time,
    },
    Resume {
        t: Time,
        task: String,
    },
    Dispatch {
        t: Time,
        cpu: usize,
        task: Option<String>,
        helping: bool,
    },
    Priority {
        t: Time,
        task: String,
        priority: String,
    },
    Deadlock {
        t: Time,
        cycle: Vec<(String, String)>,
    },
}

/// What a task is doing over an interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    /// Executing on `cpu`; `resource` is its innermost held section.
    Run { cpu: usize, resource: Option<usize> },
    /// Busy-waiting on `cpu` for `resource`.
    Spin { cpu: usize, resource: usize },
    /// Ready but not running.
    Ready,
    /// Suspended waiting for `resource`.
    Blocked { resource: usize },
    /// Self-suspended.
    Suspended,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    pub task: usize,
    pub start: Time,
    pub end: Time,
    pub state: State,
}

/// A priority change, for annotation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    pub t: Time,
    pub task: usize,
    pub kind: MarkKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    Release,
    Deadline,
    Complete,
    Miss,
    Priority(String),
}

/// Everything recorded when [`crate::Options::record`] is on.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pub events: Vec<Event>,
    pub spans: Vec<Span>,
    pub marks: Vec<Mark>,
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
