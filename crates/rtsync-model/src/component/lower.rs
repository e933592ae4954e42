//! Reading `[[component]]` tables and replacing every `call` segment by
//! what it means for scheduling (module documentation of
//! [`crate::component`]), with an error for everything a user can get
//! wrong: unknown names, a request without a connection, a cycle of
//! requests through an exclusive interface (a job would wait for itself),
//! a cycle through propagated ones without a bound on its recursion.
//!
//! Cycles are found on the method-level call graph as the requests are
//! expanded, so a component whose two interfaces call each other's
//! *different* methods is no cycle (paper 001 reads connections only, at
//! component level, and over-reports such cases, its footnote 7).

use crate::diag::{Diagnostic, Diagnostics, LineIndex, Pos};
use crate::interface::{Components, Interface, Kind, Request};
use crate::raw::{RawComponent, RawResource, RawSegment, RawSpec};
use crate::system::{Priority, System, keys};
use std::collections::{HashMap, HashSet};
use toml::Spanned;

/// The most segments the expansion of all requests may produce: a deep
/// tree of requests to methods that request several others grows
/// exponentially.
const BUDGET: usize = 1_000_000;

const CALL_SHAPE: &str = "write { call = \"component.interface.method\" } (or \"component.interface\" when it has one method)";
const KINDS: &str = "write protocol = \"propagated\", \"inherited\", \"fixed\" or \"fixed-npcs\"";

/// What the lowering learned, completed by [`Lowered::finish`] once the
/// tasks have priorities.
pub(crate) struct Lowered {
    components: Components,
    /// Per interface: where its `threads` and `priority` were written.
    threads_pos: Vec<Option<Pos>>,
    priority_pos: Vec<Option<Pos>>,
}

struct Iface {
    info: Interface,
    bodies: Vec<Spanned<Vec<Spanned<RawSegment>>>>,
    /// The component's connections.
    uses: Vec<String>,
    /// Requested at least once.
    used: bool,
    /// Some of its methods were refused (reported there): a request that
    /// names none of the others is no further error.
    refused: bool,
}

struct Lowering<'a> {
    ifaces: Vec<Iface>,
    by_name: HashMap<String, usize>,
    lines: &'a LineIndex<'a>,
    diags: &'a mut Diagnostics,
    /// (offset, message) of every diagnostic given: a method expanded at
    /// several call sites reports its errors once.
    said: HashSet<(usize, String)>,
    spent: usize,
    /// The preorder number ([`crate::system::preorder`]) the next segment
    /// of the task being lowered will have.
    at: usize,
    /// Interfaces whose definition was refused (reported there): a use
    /// or a request of one is no further error.
    rejected: HashSet<String>,
}

/// Who makes a request: a task's body or a method.
struct Caller<'a> {
    what: String,
    uses: &'a [String],
    hint_where: String,
}

/// Reads the components of `raw` and lowers every request in its tasks;
/// `None` when the spec has no components and no requests.
pub(crate) fn lower(
    raw: &mut RawSpec,
    lines: &LineIndex,
    diags: &mut Diagnostics,
) -> Option<Lowered> {
    let calls_anywhere = raw.tasks.iter().flatten().any(|t| {
        t.get_ref().uses.is_some()
            || t.get_ref()
                .body
                .as_ref()
                .is_some_and(|b| has_call(b.get_ref()))
    });
    if raw.components.is_empty() && !calls_anywhere {
        return None;
    }
    let mut l = Lowering {
        ifaces: Vec::new(),
        by_name: HashMap::new(),
        lines,
        diags,
        said: HashSet::new(),
        spent: 0,
        at: 0,
        rejected: HashSet::new(),
    };
    let (threads_pos, priority_pos) = l.read_components(&raw.components);
    let tasks = raw.tasks.as_deref_mut().unwrap_or_default();
    let mut requests = Vec::with_capacity(tasks.len());
    for t in tasks.iter_mut() {
        let t = t.get_mut();
        let name = t.name.get_ref().clone();
        let uses: Vec<String> = match &t.uses {
            Some(u) => l.connections(u, &format!("task `{name}`")),
            None => Vec::new(),
        };
        let caller = Caller {
            what: format!("task `{name}`"),
            uses: &uses,
            hint_where: format!(
                "to the task's `uses` (uses = [\"...\"] under [[task]] name = \"{name}\")"
            ),
        };
        let mut reqs = Vec::new();
        l.at = 0;
        if let Some(body) = t.body.as_mut() {
            let span = body.span();
            if let Some(new) = l.expand(body.get_ref(), &caller, &mut Vec::new(), &mut reqs) {
                *body = Spanned::new(span, new);
            }
        }
        requests.push(reqs);
    }
    // An exclusive interface that is requested becomes a resource.
    let taken: HashSet<String> = raw
        .resources
        .iter()
        .map(|r| r.get_ref().name.get_ref().clone())
        .collect();
    let mut clashes = Vec::new();
    for f in &l.ifaces {
        let Some(protocol) = f.info.kind.protocol().filter(|_| f.used) else {
            continue;
        };
        let span = f.bodies.first().map(|b| b.span()).unwrap_or(0..0);
        if taken.contains(&f.info.name) {
            clashes.push((span.start, Diagnostic::error(keys::resource(&f.info.name), format!("a resource is named `{}`, like the interface of component `{}` that locks under that name", f.info.name, f.info.component)).hint("rename the resource: an exclusive interface is a resource named component.interface")));
            continue;
        }
        raw.resources.push(Spanned::new(
            span.clone(),
            RawResource {
                name: Spanned::new(span.clone(), f.info.name.clone()),
                protocol: Some(Spanned::new(span, protocol.to_string())),
                units: None,
                sync_cpu: None,
                ceiling: None,
                lowered_ceiling: f.info.priority,
            },
        ));
    }
    for (at, d) in clashes {
        l.say(at, d);
    }
    let interfaces = l.ifaces.into_iter().map(|f| f.info).collect();
    Some(Lowered {
        components: Components {
            interfaces,
            requests,
            ceiling: Vec::new(),
            floor: Vec::new(),
            pool: Vec::new(),
            nest: Vec::new(),
            callers: Vec::new(),
        },
        threads_pos,
        priority_pos,
    })
}

/// How many segments a call-free raw segment becomes, itself and what it
/// holds (`hold` is a one-segment body).
fn preorder_size(s: &RawSegment) -> usize {
    1 + s.hold.is_some() as usize
        + s.body
            .as_deref()
            .map_or(0, |b| b.iter().map(|x| preorder_size(x.get_ref())).sum())
}

fn has_call(body: &[Spanned<RawSegment>]) -> bool {
    body.iter().any(|s| {
        let s = s.get_ref();
        s.call.is_some() || s.body.as_deref().is_some_and(has_call)
    })
}

impl Lowering<'_> {
    fn pos(&self, offset: usize) -> Pos {
        self.lines.pos(offset)
    }

    fn say(&mut self, offset: usize, d: Diagnostic) {
        if self.said.insert((offset, d.message.clone())) {
            let p = self.pos(offset);
            self.diags.push(d.at(Some(p)));
        }
    }

    fn read_components(
        &mut self,
        raw: &[Spanned<RawComponent>],
    ) -> (Vec<Option<Pos>>, Vec<Option<Pos>>) {
        let (mut threads_pos, mut priority_pos) = (Vec::new(), Vec::new());
        let mut names = HashSet::new();
        for c in raw {
            let rc = c.get_ref();
            let cname = rc.name.get_ref().clone();
            let ckey = format!("component \"{cname}\"");
            if !names.insert(cname.clone()) {
                self.say(
                    rc.name.span().start,
                    Diagnostic::error(
                        &ckey,
                        format!("a component named `{cname}` is already defined"),
                    )
                    .hint("give each component a unique name"),
                );
                continue;
            }
            if cname.contains('.') || cname.is_empty() {
                self.say(
                    rc.name.span().start,
                    Diagnostic::error(
                        &ckey,
                        format!("component name `{cname}` is empty or contains a dot"),
                    )
                    .hint(
                        "requests name component.interface.method: use letters, digits, `_` or `-`",
                    ),
                );
                continue;
            }
            if rc.interfaces.is_empty() {
                self.say(c.span().start, Diagnostic::error(&ckey, format!("component `{cname}` provides no interface")).hint("add [[component.interface]] name = \"...\" protocol = \"propagated\" with methods.NAME = [ ... ]; a task is an active component already"));
            }
            // The connections are read after every interface is known.
            for i in &rc.interfaces {
                let ri = i.get_ref();
                let iname = format!("{cname}.{}", ri.name.get_ref());
                let ikey = format!("interface \"{iname}\"");
                if self.by_name.contains_key(&iname) {
                    self.say(
                        ri.name.span().start,
                        Diagnostic::error(
                            &ikey,
                            format!(
                                "component `{cname}` already provides an interface named `{}`",
                                ri.name.get_ref()
                            ),
                        )
                        .hint("give each interface of a component a unique name"),
                    );
                    continue;
                }
                let kind = match &ri.protocol {
                    None => {
                        self.say(
                            i.span().start,
                            Diagnostic::error(
                                &ikey,
                                format!("interface `{iname}` has no protocol"),
                            )
                            .hint(KINDS),
                        );
                        self.rejected.insert(iname);
                        continue;
                    }
                    Some(p) => match p.get_ref().parse::<Kind>() {
                        Ok(k) => k,
                        Err(e) => {
                            self.say(p.span().start, Diagnostic::error(&ikey, e).hint(KINDS));
                            self.rejected.insert(iname);
                            continue;
                        }
                    },
                };
                let count =
                    |l: &mut Self, v: &Option<Spanned<i64>>, what: &str, min: i64| -> Option<u32> {
                        let v = v.as_ref()?;
                        let n = *v.get_ref();
                        if n < min || n > 1_000_000 {
                            l.say(
                                v.span().start,
                                Diagnostic::error(
                                    &ikey,
                                    format!("{what} of `{iname}` is {n}, outside {min}..=1000000"),
                                )
                                .hint(format!("write an integer from {min} to 1000000")),
                            );
                            return None;
                        }
                        Some(n as u32)
                    };
                let priority = count(self, &ri.priority, "the priority", 1).map(|p| p as Priority);
                if priority.is_some() && kind != Kind::Fixed {
                    let at = ri.priority.as_ref().map(|p| p.span().start).unwrap_or(0);
                    self.say(at, Diagnostic::error(&ikey, format!("a priority is given to `{iname}`, a {} interface", kind.name())).hint("only a `fixed` interface runs at a priority of its own: remove `priority`, or make it protocol = \"fixed\""));
                }
                let threads = count(self, &ri.threads, "the pool size", 1);
                let recursion = count(self, &ri.recursion, "the recursion bound", 1);
                if ri.methods.is_empty() {
                    self.say(i.span().start, Diagnostic::error(&ikey, format!("interface `{iname}` has no methods")).hint("add methods.NAME = [ { compute = \"100us\" } ] under the interface"));
                }
                let mut methods = Vec::new();
                let mut bodies = Vec::new();
                let mut refused = false;
                for (m, b) in &ri.methods {
                    if b.get_ref().is_empty() {
                        refused = true;
                        self.say(
                            b.span().start,
                            Diagnostic::error(
                                &ikey,
                                format!("method `{iname}.{m}` has an empty body"),
                            )
                            .hint("give it at least one segment, e.g. [ { compute = \"100us\" } ]"),
                        );
                        continue;
                    }
                    methods.push(m.clone());
                    bodies.push(b.clone());
                }
                self.by_name.insert(iname.clone(), self.ifaces.len());
                threads_pos.push(ri.threads.as_ref().map(|t| self.pos(t.span().start)));
                priority_pos.push(ri.priority.as_ref().map(|t| self.pos(t.span().start)));
                let pos = Some(self.pos(ri.name.span().start));
                self.ifaces.push(Iface {
                    info: Interface {
                        component: cname.clone(),
                        name: iname,
                        kind,
                        priority: priority.filter(|_| kind == Kind::Fixed),
                        threads,
                        recursion,
                        methods,
                        resource: None,
                        pos,
                    },
                    bodies,
                    uses: Vec::new(),
                    used: false,
                    refused,
                });
            }
        }
        for c in raw {
            let rc = c.get_ref();
            let cname = rc.name.get_ref();
            let uses = self.connections(&rc.uses, &format!("component `{cname}`"));
            for f in self
                .ifaces
                .iter_mut()
                .filter(|f| &f.info.component == cname)
            {
                f.uses = uses.clone();
            }
        }
        (threads_pos, priority_pos)
    }

    /// The interfaces a `uses` list names, each checked.
    fn connections(&mut self, raw: &[Spanned<String>], who: &str) -> Vec<String> {
        let mut out = Vec::new();
        for u in raw {
            let name = u.get_ref();
            if self.by_name.contains_key(name) {
                out.push(name.clone());
            } else if !self.rejected.contains(name) {
                let hint = self.known_hint();
                self.say(
                    u.span().start,
                    Diagnostic::error("", format!("{who} uses `{name}`, which is no interface"))
                        .hint(hint),
                );
            }
        }
        out
    }

    fn known_hint(&self) -> String {
        let mut names: Vec<&str> = self.ifaces.iter().map(|f| f.info.name.as_str()).collect();
        names.sort_unstable();
        if names.is_empty() {
            "define it: [[component]] name = \"C\" with [[component.interface]] name = \"i\"".into()
        } else {
            format!(
                "interfaces are named component.interface: {}",
                names.join(", ")
            )
        }
    }

    /// `body` with every request lowered; `None` where one could not be
    /// (reported). `stack` holds the (interface, method) pairs being
    /// served on this chain, outermost first.
    fn expand(
        &mut self,
        body: &[Spanned<RawSegment>],
        caller: &Caller,
        stack: &mut Vec<(usize, usize)>,
        out_reqs: &mut Vec<Request>,
    ) -> Option<Vec<Spanned<RawSegment>>> {
        let mut out = Vec::with_capacity(body.len());
        let mut ok = true;
        for s in body {
            self.spent += 1;
            if self.spent > BUDGET {
                if self.spent == BUDGET + 1 {
                    self.say(s.span().start, Diagnostic::error("", format!("the requests expand to more than {BUDGET} segments")).hint("a deep tree of requests multiplies: shorten the chains, or merge methods that are always requested together"));
                }
                return None;
            }
            let seg = s.get_ref();
            if let Some(call) = &seg.call {
                let others = seg.compute.is_some()
                    || seg.suspend.is_some()
                    || seg.lock.is_some()
                    || seg.hold.is_some()
                    || seg.body.is_some()
                    || seg.units.is_some();
                if others {
                    self.say(
                        s.span().start,
                        Diagnostic::error("", "a `call` segment has other keys").hint(CALL_SHAPE),
                    );
                    ok = false;
                    continue;
                }
                match self.request(call, caller, stack, out_reqs) {
                    Some(segs) => out.extend(segs),
                    None => ok = false,
                }
                continue;
            }
            match &seg.body {
                Some(inner) if has_call(inner) => {
                    self.at += 1;
                    let Some(new) = self.expand(inner, caller, stack, out_reqs) else {
                        ok = false;
                        continue;
                    };
                    let mut seg = seg.clone();
                    seg.body = Some(new);
                    out.push(Spanned::new(s.span(), seg));
                }
                _ => {
                    self.at += preorder_size(seg);
                    out.push(s.clone())
                }
            }
        }
        ok.then_some(out)
    }

    /// The segments one request lowers to.
    fn request(
        &mut self,
        call: &Spanned<String>,
        caller: &Caller,
        stack: &mut Vec<(usize, usize)>,
        out_reqs: &mut Vec<Request>,
    ) -> Option<Vec<Spanned<RawSegment>>> {
        let at = call.span().start;
        let text = call.get_ref();
        let parts: Vec<&str> = text.split('.').collect();
        let (iname, method) = match parts.as_slice() {
            [c, i] => (format!("{c}.{i}"), None),
            [c, i, m] => (format!("{c}.{i}"), Some(*m)),
            _ => {
                self.say(
                    at,
                    Diagnostic::error(
                        "",
                        format!(
                            "{} requests `{text}`, which is not component.interface.method",
                            caller.what
                        ),
                    )
                    .hint(CALL_SHAPE),
                );
                return None;
            }
        };
        let Some(&i) = self.by_name.get(&iname) else {
            if self.rejected.contains(&iname) {
                return None;
            }
            let hint = self.known_hint();
            self.say(
                at,
                Diagnostic::error(
                    "",
                    format!(
                        "{} requests `{text}`: there is no interface `{iname}`",
                        caller.what
                    ),
                )
                .hint(hint),
            );
            return None;
        };
        let methods = &self.ifaces[i].info.methods;
        let m = match method {
            Some(m) => methods.iter().position(|x| x == m),
            None if methods.len() == 1 => Some(0),
            None => None,
        };
        let Some(m) = m else {
            if self.ifaces[i].refused {
                return None;
            }
            let list = methods.join(", ");
            let msg = match method {
                Some(name) => format!(
                    "{} requests `{text}`: `{iname}` has no method `{name}`",
                    caller.what
                ),
                None => format!(
                    "{} requests `{iname}`, which has several methods",
                    caller.what
                ),
            };
            self.say(
                at,
                Diagnostic::error("", msg)
                    .hint(format!("its methods: {list}; write \"{iname}.METHOD\"")),
            );
            return None;
        };
        if !caller.uses.contains(&iname) {
            let msg = format!(
                "{} requests `{iname}` but has no connection to it",
                caller.what
            );
            self.say(
                at,
                Diagnostic::error("", msg).hint(format!("add \"{iname}\" {}", caller.hint_where)),
            );
            return None;
        }
        // A cycle: an exclusive interface already held on the chain (any
        // of its methods: the interface is the lock), or a propagated
        // method already being served.
        let exclusive = self.ifaces[i].info.kind.exclusive();
        let again = if exclusive {
            stack.iter().position(|x| x.0 == i)
        } else {
            stack.iter().position(|&x| x == (i, m))
        };
        if let Some(first) = again {
            let cycle: Vec<String> = stack[first..]
                .iter()
                .chain([&(i, m)])
                .map(|&(i, m)| self.method_name(i, m))
                .collect();
            let through = stack[first..]
                .iter()
                .map(|x| x.0)
                .find(|&x| self.ifaces[x].info.kind.exclusive());
            if let Some(x) = through {
                let f = &self.ifaces[x].info;
                let msg = format!(
                    "a cycle of requests: {}; `{}` is {}: the request would wait for the very request it serves (deadlock)",
                    cycle.join(" -> "),
                    f.name,
                    f.kind.name()
                );
                self.say(
                    at,
                    Diagnostic::error("", msg).hint(
                        "break the cycle: a request chain may enter an exclusive interface once",
                    ),
                );
                return None;
            }
            // Propagated only: a `recursion` bound on an interface of the
            // cycle stops it there, every time round.
            let bounded = stack[first..]
                .iter()
                .map(|x| x.0)
                .chain([i])
                .find(|&x| self.ifaces[x].info.recursion.is_some());
            let Some(b) = bounded else {
                let msg = format!(
                    "a cycle of requests through propagated interfaces: {}",
                    cycle.join(" -> ")
                );
                let hint = format!(
                    "give the most nested requests of `{}` one job makes, recursion = N under its [[component.interface]], or break the cycle",
                    self.ifaces[i].info.name
                );
                self.say(at, Diagnostic::error("", msg).hint(hint));
                return None;
            };
            let f = &self.ifaces[b].info;
            let n = f.recursion.unwrap_or(1);
            let msg = format!(
                "a cycle of requests through propagated interfaces: {}; the analysis assumes at most {n} nested requests of `{}` (its `recursion`)",
                cycle.join(" -> "),
                f.name
            );
            self.say(at, Diagnostic::warning("", msg).hint("a deeper recursion at run time breaks every bound: make sure the code stops there"));
        }
        if let Some(n) = self.ifaces[i].info.recursion
            && stack.iter().filter(|x| x.0 == i).count() as u32 >= n
        {
            // The bound the user gave: deeper requests do not happen (the
            // program's own logic stops them).
            return Some(Vec::new());
        }
        self.ifaces[i].used = true;
        let body = self.ifaces[i].bodies[m].clone();
        let uses = self.ifaces[i].uses.clone();
        let inner_caller = Caller {
            what: format!("method `{}`", self.method_name(i, m)),
            uses: &uses,
            hint_where: format!(
                "to the `uses` of component `{}`",
                self.ifaces[i].info.component
            ),
        };
        // Its segments: the section an exclusive interface lowers to, or
        // the propagated method's body in place.
        let start = self.at;
        if self.ifaces[i].info.kind.exclusive() {
            self.at += 1;
        }
        stack.push((i, m));
        let mut inner = Vec::new();
        let expanded = self.expand(body.get_ref(), &inner_caller, stack, &mut inner);
        stack.pop();
        let expanded = expanded?;
        out_reqs.push(Request {
            interface: i,
            method: m,
            inner,
            segments: start..self.at,
        });
        if !self.ifaces[i].info.kind.exclusive() {
            return Some(expanded);
        }
        let name = self.ifaces[i].info.name.clone();
        Some(vec![Spanned::new(
            call.span(),
            RawSegment {
                lock: Some(Spanned::new(call.span(), name)),
                body: Some(expanded),
                ..RawSegment::default()
            },
        )])
    }

    fn method_name(&self, i: usize, m: usize) -> String {
        let f = &self.ifaces[i].info;
        format!("{}.{}", f.name, f.methods[m])
    }
}

impl Lowered {
    /// The components of `sys` (the lowered system) with what needs the
    /// tasks' priorities derived and checked.
    pub(crate) fn finish(self, sys: &System, diags: &mut Diagnostics) -> Components {
        let Lowered {
            mut components,
            threads_pos,
            priority_pos,
        } = self;
        let c = &mut components;
        for f in &mut c.interfaces {
            f.resource = sys.resource_by_name(&f.name).filter(|_| f.kind.exclusive());
        }
        c.requests.resize(sys.tasks.len(), Vec::new());
        let priority: Vec<Priority> = sys.tasks.iter().map(|t| t.priority).collect();
        super::pool::derive(c, &priority);
        let facts = crate::Facts::new(sys);
        for (i, f) in c.interfaces.iter().enumerate() {
            let key = format!("interface \"{}\"", f.name);
            let callers = &c.callers[i];
            if callers.is_empty() {
                diags.push(
                    Diagnostic::note(&key, format!("no task's requests reach `{}`", f.name))
                        .at(f.pos)
                        .hint("connect a caller and request it, or remove it"),
                );
                continue;
            }
            if let Some(p) = f.priority
                && p < c.ceiling[i]
            {
                diags.push(Diagnostic::error(&key, format!("`{}` runs at the fixed priority {p}, below the priority {} that a request to it can carry", f.name, super::Components::show(c.ceiling[i]))).at(priority_pos[i].or(f.pos)).hint(format!("give priority >= {} (or none: the interface then runs at its ceiling)", super::Components::show(c.ceiling[i]))));
            }
            if let Some(n) = f.threads {
                let need = c.pool[i];
                if n < need {
                    diags.push(Diagnostic::error(&key, format!("the pool of `{}` has {n} thread(s); {need} request(s) can be in it at once", f.name)).at(threads_pos[i].or(f.pos)).hint(format!("write threads = {need}, or leave `threads` out for the analyzer's size")));
                } else if n > need {
                    diags.push(
                        Diagnostic::note(
                            &key,
                            format!("the pool of `{}` has {n} threads; {need} suffice", f.name),
                        )
                        .at(threads_pos[i].or(f.pos))
                        .hint(format!("threads = {need} saves memory")),
                    );
                }
            }
            if c.serving_cpu(i, |t| facts.cpu_of[t]).is_none() {
                diags.push(Diagnostic::error(&key, format!("`{}` is requested by tasks on different CPUs (or unplaced)", f.name)).at(f.pos).hint("an interface's threads serve one CPU (paper 001: unicore or fully partitioned): place its callers on one CPU with `cpu = N`"));
            }
        }
        for (t, task) in sys.tasks.iter().enumerate() {
            if !c.requests[t].is_empty() && task.deadline > task.period {
                let key = keys::task_field(&task.name, "deadline");
                diags.push(Diagnostic::error(&key, format!("task `{}` requests interfaces and its deadline exceeds its period: its jobs may overlap, and no pool can be sized for them", task.name)).at(sys.source.get(&key)).hint("give deadline <= period"));
            }
        }
        components
    }
}
