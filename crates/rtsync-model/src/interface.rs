//! The data of a component spec (paper 001), kept beside the lowered
//! [`crate::System`]: interfaces, each job's tree of requests, and what
//! the analyzer derived (ceilings, pools). [`crate::component`] builds
//! it; the module documentation there says what each kind means.

use crate::diag::Pos;

/// A priority (as [`crate::Priority`]: larger runs first).
type Priority = u32;
/// A resource index (as [`crate::ResourceId`]).
type ResourceId = usize;
/// A task index (as [`crate::TaskId`]).
type TaskId = usize;
/// A CPU index (as [`crate::Cpu`]).
type Cpu = usize;

/// The priority a request carries out of a `fixed-npcs` interface: above
/// every task's.
pub const TOP: Priority = Priority::MAX;

/// How an interface serves its requests (paper 001, Sect. 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// At the requester's priority, reentrant.
    Propagated,
    /// Mutually exclusive, PIP across the request, nested inheritance.
    Inherited,
    /// One thread at the ceiling, or at the given priority (IPCP).
    Fixed,
    /// One thread at the top priority (NPCS).
    FixedNpcs,
}

impl Kind {
    /// Every kind, as the spec names them.
    pub const ALL: [Kind; 4] = [
        Kind::Propagated,
        Kind::Inherited,
        Kind::Fixed,
        Kind::FixedNpcs,
    ];

    /// The spec's name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Propagated => "propagated",
            Kind::Inherited => "inherited",
            Kind::Fixed => "fixed",
            Kind::FixedNpcs => "fixed-npcs",
        }
    }

    /// Whether one request at a time is served (a lock in the lowering).
    pub fn exclusive(self) -> bool {
        self != Kind::Propagated
    }

    /// Whether the interface has a single thread.
    pub fn single_thread(self) -> bool {
        matches!(self, Kind::Fixed | Kind::FixedNpcs)
    }

    /// The protocol of the resource an exclusive interface lowers to.
    pub fn protocol(self) -> Option<crate::Protocol> {
        match self {
            Kind::Propagated => None,
            Kind::Inherited => Some(crate::Protocol::Pip),
            Kind::Fixed => Some(crate::Protocol::Ipcp),
            Kind::FixedNpcs => Some(crate::Protocol::Npcs),
        }
    }
}

impl std::str::FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Kind, String> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown interface protocol `{s}`"))
    }
}

/// One interface of a passive component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// The component providing it.
    pub component: String,
    /// `component.interface`.
    pub name: String,
    /// How it serves requests.
    pub kind: Kind,
    /// A `fixed` interface's given priority (else its ceiling).
    pub priority: Option<Priority>,
    /// The pool size the spec wrote, checked against [`Components::pool`].
    pub threads: Option<u32>,
    /// The most nested requests of this interface one job makes, for a
    /// cycle of propagated requests.
    pub recursion: Option<u32>,
    /// Its methods' names.
    pub methods: Vec<String>,
    /// The resource an exclusive interface lowers to, once requested.
    pub resource: Option<ResourceId>,
    /// Where it was written.
    pub pos: Option<Pos>,
}

/// One request in a job's control flow, with the requests its method
/// makes while serving it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The interface requested.
    pub interface: usize,
    /// The method, by index in the interface's.
    pub method: usize,
    /// Requests made while serving it, in order.
    pub inner: Vec<Request>,
    /// Where it runs in the task's lowered body: the preorder numbers
    /// ([`crate::system::preorder`]) of its segments, the section of an
    /// exclusive interface first, or a propagated method's body in place
    /// (empty when the body is). An engine that knows which segment a job
    /// executes knows which requests it is inside.
    pub segments: std::ops::Range<usize>,
}

/// The components of a system and what the analyzer derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    /// Every interface.
    pub interfaces: Vec<Interface>,
    /// Per task: its requests in body order (a request inside a plain
    /// critical section included).
    pub requests: Vec<Vec<Request>>,
    /// Per interface: the highest priority a request reaching it can
    /// carry (its pool threads wait there; paper 001's `p_max(c)` and
    /// priority ceiling); [`TOP`] downstream of a `fixed-npcs` one. 0 for
    /// an interface nobody requests.
    pub ceiling: Vec<Priority>,
    /// Per interface: the lowest priority a request reaching it can carry
    /// (paper 001's `p_min(c)`).
    pub floor: Vec<Priority>,
    /// Per interface: the threads its pool needs (paper 001 Fig. 3): one
    /// for a fixed interface, else the most requests that can be in it at
    /// once, plus one for `nest` downstream of an inherited interface.
    pub pool: Vec<u32>,
    /// Per interface: whether a request can reach it with an inherited
    /// interface held upstream (it then provides `nest`).
    pub nest: Vec<bool>,
    /// Per interface: the tasks whose requests reach it, in task order.
    pub callers: Vec<Vec<TaskId>>,
}

impl Components {
    /// The one CPU interface `i` serves, with each task's CPU read from
    /// `cpu_of`: paper 001's interfaces serve one CPU (unicore or fully
    /// partitioned), so every caller must be placed, and on the same CPU.
    /// `None` where that fails, or where nobody calls it. The one home of
    /// the rule: validation reports a spec that breaks it, and the
    /// runtime refuses a system changed after validation to break it
    /// (its pool threads are pinned to this CPU).
    pub fn serving_cpu(&self, i: usize, cpu_of: impl Fn(TaskId) -> Option<Cpu>) -> Option<Cpu> {
        let mut callers = self.callers[i].iter().map(|&t| cpu_of(t));
        let first = callers.next()??;
        callers.all(|c| c == Some(first)).then_some(first)
    }

    /// The interface named `name` (`component.interface`).
    pub fn interface(&self, name: &str) -> Option<usize> {
        self.interfaces.iter().position(|i| i.name == name)
    }

    /// Whether resource `r` is an exclusive interface's lowered section
    /// (not a plain resource).
    pub fn lowers_to(&self, r: ResourceId) -> bool {
        self.interfaces.iter().any(|i| i.resource == Some(r))
    }

    /// `interface.method` of a request, as a person reads it.
    pub fn label(&self, r: &Request) -> String {
        self.method_label(r.interface, r.method)
    }

    /// `interface.method` of method `m` of interface `i`.
    pub fn method_label(&self, i: usize, m: usize) -> String {
        let f = &self.interfaces[i];
        format!("{}.{}", f.name, f.methods[m])
    }

    /// Every request chain of `task`: each path from the task's body to a
    /// request, outermost first.
    pub fn chains(&self, task: TaskId) -> Vec<Vec<&Request>> {
        fn walk<'a>(
            rs: &'a [Request],
            path: &mut Vec<&'a Request>,
            out: &mut Vec<Vec<&'a Request>>,
        ) {
            for r in rs {
                path.push(r);
                out.push(path.clone());
                walk(&r.inner, path, out);
                path.pop();
            }
        }
        let mut out = Vec::new();
        walk(&self.requests[task], &mut Vec::new(), &mut out);
        out
    }

    /// A priority as the analyzer prints it (`top` for [`TOP`]).
    pub fn show(p: Priority) -> String {
        if p == TOP {
            "top".into()
        } else {
            p.to_string()
        }
    }
}
