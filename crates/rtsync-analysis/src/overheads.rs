//! Run-time overheads and how they are charged.
//!
//! An overhead profile gives the worst-case cost of each kernel or protocol
//! operation. It is read from a TOML file (`--overheads FILE`; the runtime's
//! `rtsync bench locks` will write it from measurements):
//!
//! ```toml
//! context_switch = "2us"   # one switch (charged twice per job: in and out)
//! release = "1us"          # releasing a job (timer interrupt + wake-up)
//! timer = "0"              # extra timer handling per release
//! migration = "5us"        # moving a thread between CPUs
//!
//! [protocol.pcp]
//! lock = "300ns"           # uncontended lock operation
//! unlock = "250ns"
//! per_waiter = "20ns"      # extra unlock cost per waiting task
//!
//! [component]              # paper 001's Table 2 terms, per request
//! prop_call = "4us"        # (crate::components::Overheads names them)
//! prop_reply = "3us"
//! fix_call = "3us"
//! fix_reply = "2us"
//! pip_unlocked = "4us"
//! pip_locked = "4us"
//! pip_reply = "3us"
//! queue = "200ns"
//! nest = "5us"
//! ```
//!
//! Charging follows paper 004, Sec. IV-C (each WCET inflated with the
//! protocol's lock and unlock costs and its context-switch penalties) and
//! paper 001, Eqs. 1 and 7 (one request overhead per section) and Eq. 8
//! (PIP's cost grows with the waiters, `C^locked + C^locked(c)`): per job,
//! `release + timer + 2 · context_switch`; per section, `lock` before it and
//! `unlock + per_waiter · (users - 1)` inside it (the holder pays it while
//! others wait); for protocols whose waiters suspend, two more context
//! switches per section; for DPCP and DFLP, two migrations inside the
//! section (there and back); for MrsP, one migration inside the section
//! (helping); per request to a component's interface (paper 001), its
//! call and reply, inside the interface's section where it is exclusive
//! and around the method's body where it is propagated (`Writer` says
//! why). The result is an ordinary system whose bodies include the
//! overheads, so every analysis charges them the same way, and whose
//! requests still name the segments they run in.

use rtsync_model::component::{Components, Request};
use rtsync_model::{Diagnostic, Diagnostics, Facts, Pos, Protocol, Segment, System, Time};
use serde::Deserialize;
use std::collections::BTreeMap;

/// What one lock operation of a protocol costs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockCost {
    /// A lock, uncontended.
    pub lock: Time,
    /// An unlock, uncontended.
    pub unlock: Time,
    /// Added to an unlock per queued waiter.
    pub per_waiter: Time,
}

/// Measured run-time overheads (`rtsync bench locks --profile`), charged
/// as the runtime pays them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// A context switch.
    pub context_switch: Time,
    /// Releasing a job.
    pub release: Time,
    /// A timer's lateness.
    pub timer: Time,
    /// Moving a thread to another CPU.
    pub migration: Time,
    /// Lock and unlock costs per protocol.
    pub protocols: BTreeMap<Protocol, LockCost>,
    /// Component requests' costs (paper 001), for its analysis.
    pub component: crate::components::Overheads,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    context_switch: Option<String>,
    release: Option<String>,
    timer: Option<String>,
    migration: Option<String>,
    #[serde(default)]
    protocol: BTreeMap<String, RawCost>,
    #[serde(default)]
    component: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCost {
    lock: Option<String>,
    unlock: Option<String>,
    per_waiter: Option<String>,
}

impl Profile {
    /// Parses a profile; errors name the key and say what to write.
    pub fn from_toml(src: &str, file: Option<&str>) -> Result<Profile, Diagnostics> {
        let fin = |d: Diagnostic| {
            let d = Diagnostics(vec![d]);
            match file {
                Some(f) => d.with_file(f),
                None => d,
            }
        };
        let raw: RawProfile = toml::from_str(src).map_err(|e| {
            fin(Diagnostic::error("", e.message().trim().to_string())
                .at(e.span().map(|s| Pos::of_offset(src, s.start)))
                .hint("keys: context_switch, release, timer, migration, and [protocol.NAME] tables with lock, unlock, per_waiter"))
        })?;
        let t = |v: &Option<String>, key: &str| -> Result<Time, Diagnostics> {
            match v {
                None => Ok(Time::ZERO),
                Some(s) => Time::parse(s).map_err(|e| {
                    fin(Diagnostic::error(key, e.to_string()).hint(rtsync_model::time::TIME_HINT))
                }),
            }
        };
        let mut p = Profile {
            context_switch: t(&raw.context_switch, "context_switch")?,
            release: t(&raw.release, "release")?,
            timer: t(&raw.timer, "timer")?,
            migration: t(&raw.migration, "migration")?,
            protocols: BTreeMap::new(),
            component: Default::default(),
        };
        for (key, v) in &raw.component {
            let o = &mut p.component;
            let slot = match key.as_str() {
                "prop_call" => &mut o.prop_call,
                "prop_reply" => &mut o.prop_reply,
                "fix_call" => &mut o.fix_call,
                "fix_reply" => &mut o.fix_reply,
                "pip_unlocked" => &mut o.pip_unlocked,
                "pip_locked" => &mut o.pip_locked,
                "pip_reply" => &mut o.pip_reply,
                "queue" => &mut o.queue,
                "nest" => &mut o.nest,
                _ => {
                    return Err(fin(Diagnostic::error(format!("component.{key}"), format!("unknown component overhead `{key}`")).hint("keys: prop_call, prop_reply, fix_call, fix_reply, pip_unlocked, pip_locked, pip_reply, queue, nest")));
                }
            };
            *slot = t(&Some(v.clone()), &format!("component.{key}"))?;
        }
        for (name, c) in &raw.protocol {
            let proto: Protocol = name
                .parse()
                .map_err(|e: String| fin(Diagnostic::error(format!("protocol.{name}"), e)))?;
            let k = |f: &str| format!("protocol.{name}.{f}");
            p.protocols.insert(
                proto,
                LockCost {
                    lock: t(&c.lock, &k("lock"))?,
                    unlock: t(&c.unlock, &k("unlock"))?,
                    per_waiter: t(&c.per_waiter, &k("per_waiter"))?,
                },
            );
        }
        Ok(p)
    }

    /// Reads a profile file.
    pub fn load(path: &std::path::Path) -> Result<Profile, Diagnostics> {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(path).map_err(|e| {
            Diagnostics(vec![Diagnostic::error(
                "",
                format!("cannot read the overhead profile: {e}"),
            )])
            .with_file(&name)
        })?;
        Profile::from_toml(&src, Some(&name))
    }

    /// Writes the profile in the form [`Profile::from_toml`] reads.
    pub fn to_toml(&self) -> String {
        let mut s = format!(
            "context_switch = \"{}\"\nrelease = \"{}\"\ntimer = \"{}\"\nmigration = \"{}\"\n",
            self.context_switch, self.release, self.timer, self.migration
        );
        for (p, c) in &self.protocols {
            s.push_str(&format!(
                "\n[protocol.{p}]\nlock = \"{}\"\nunlock = \"{}\"\nper_waiter = \"{}\"\n",
                c.lock, c.unlock, c.per_waiter
            ));
        }
        let c = &self.component;
        if *c != crate::components::Overheads::default() {
            s.push_str(&format!(
                "\n[component]\nprop_call = \"{}\"\nprop_reply = \"{}\"\nfix_call = \"{}\"\nfix_reply = \"{}\"\npip_unlocked = \"{}\"\npip_locked = \"{}\"\npip_reply = \"{}\"\nqueue = \"{}\"\nnest = \"{}\"\n",
                c.prop_call, c.prop_reply, c.fix_call, c.fix_reply, c.pip_unlocked, c.pip_locked, c.pip_reply, c.queue, c.nest
            ));
        }
        s
    }

    /// The system with every overhead written into the bodies; a
    /// component system's requests keep saying where they run (their
    /// segment numbers follow the inserted costs).
    pub fn inflate(&self, sys: &System) -> System {
        let facts = Facts::new(sys);
        let mut out = sys.clone();
        let per_job = self
            .release
            .saturating_add(self.timer)
            .saturating_add(self.context_switch.saturating_add(self.context_switch));
        let comps = sys.components.as_deref();
        let mut requests = comps.map(|c| c.requests.clone());
        for (t, task) in out.tasks.iter_mut().enumerate() {
            let body = std::mem::take(&mut task.body);
            let mut w = Writer {
                profile: self,
                sys,
                facts: &facts,
                old: 0,
                new: 0,
                reqs: comps.map(|c| flatten(self, c, t)).unwrap_or_default(),
                next: 0,
                open: Vec::new(),
                placed: Vec::new(),
            };
            w.placed = vec![0..0; w.reqs.len()];
            let mut nb = Vec::with_capacity(body.len() + 1);
            if !per_job.is_zero() {
                nb.push(Segment::Compute(per_job));
                w.new += 1;
            }
            w.body(body, &mut nb, 0);
            debug_assert!(
                w.next == w.reqs.len() && w.open.is_empty(),
                "every request of `{}` placed",
                task.name
            );
            if let Some(rs) = requests.as_mut().and_then(|r| r.get_mut(t)) {
                let mut k = 0;
                renumber(rs, &w.placed, &mut k);
            }
            task.body = nb;
        }
        if let (Some(c), Some(requests)) = (comps, requests) {
            let mut c = c.clone();
            c.requests = requests;
            out.components = Some(std::sync::Arc::new(c));
        }
        out
    }
}

/// One request of a task, in the preorder of its request tree (the
/// order of its segments: the lowering numbers them as it expands).
struct Req {
    /// Its segments in the body before charging.
    old: std::ops::Range<usize>,
    /// A critical section (its first segment the interface's lock).
    exclusive: bool,
    /// Paper 001's call and reply costs.
    call: Time,
    reply: Time,
}

fn flatten(p: &Profile, c: &Components, t: usize) -> Vec<Req> {
    fn walk(p: &Profile, c: &Components, rs: &[Request], out: &mut Vec<Req>) {
        for r in rs {
            let kind = c.interfaces[r.interface].kind;
            let (call, reply) = p.component.call_reply(kind, crate::components::depth(r));
            out.push(Req {
                old: r.segments.clone(),
                exclusive: kind.exclusive(),
                call,
                reply,
            });
            walk(p, c, &r.inner, out);
        }
    }
    let mut out = Vec::new();
    if let Some(rs) = c.requests.get(t) {
        walk(p, c, rs, &mut out);
    }
    debug_assert!(
        out.iter().all(|r| !r.old.is_empty()),
        "a request without segments"
    );
    debug_assert!(out.windows(2).all(|w| w[0].old.start <= w[1].old.start));
    out
}

/// Writes the new segment numbers into the request tree, in preorder.
fn renumber(rs: &mut [Request], placed: &[std::ops::Range<usize>], k: &mut usize) {
    for r in rs {
        r.segments = placed[*k].clone();
        *k += 1;
        renumber(&mut r.inner, placed, k);
    }
}

/// Copies one task's body with its costs written in, keeping count of
/// the segment numbers before (`old`) and after (`new`), so that each
/// request is placed where its segments went.
///
/// Costs are charged where the runtime pays them, or later and inside
/// more (which only lengthens others' blocking): a lock's cost before
/// it, its unlock's inside at the end; a request to an exclusive
/// interface its call at the start of the interface's section and its
/// reply at the end (the serving thread holds the interface across
/// both); a propagated request its call before its method's body and
/// its reply after, at the requester's priority (`rtsync_rt`'s pool
/// threads run at the priority they inherit, not at a ceiling).
struct Writer<'a> {
    profile: &'a Profile,
    sys: &'a System,
    facts: &'a Facts,
    old: usize,
    new: usize,
    reqs: Vec<Req>,
    /// The next request to place.
    next: usize,
    /// Propagated requests begun and not ended: (request, depth of the
    /// body it began in).
    open: Vec<(usize, usize)>,
    /// Per request, its segments in the charged body.
    placed: Vec<std::ops::Range<usize>>,
}

impl Writer<'_> {
    fn push(&mut self, out: &mut Vec<Segment>, cost: Time) {
        if !cost.is_zero() {
            out.push(Segment::Compute(cost));
            self.new += 1;
        }
    }

    /// Ends the propagated requests begun in this body (at `depth`) whose
    /// segments end where the old numbering stands now, innermost first;
    /// then, before a segment, begins those whose first segment it is,
    /// outermost first (the requests' preorder). Every request has a
    /// segment (the loader refuses an empty method), so none begins at a
    /// body's end, and none that ends here has a request inside it left
    /// to begin here.
    fn settle(&mut self, out: &mut Vec<Segment>, depth: usize, before_segment: bool) {
        let here = self.old;
        while let Some(&(top, d)) = self.open.last()
            && d == depth
            && self.reqs[top].old.end == here
        {
            self.open.pop();
            let reply = self.reqs[top].reply;
            self.push(out, reply);
            self.placed[top].end = self.new;
        }
        // An exclusive request begins at its lock, in `body`.
        while before_segment
            && self.next < self.reqs.len()
            && self.reqs[self.next].old.start == here
            && !self.reqs[self.next].exclusive
        {
            let n = self.next;
            self.placed[n].start = self.new;
            let call = self.reqs[n].call;
            self.push(out, call);
            self.open.push((n, depth));
            self.next += 1;
        }
    }

    fn body(&mut self, body: Vec<Segment>, out: &mut Vec<Segment>, depth: usize) {
        for s in body {
            self.settle(out, depth, true);
            match s {
                Segment::Lock {
                    resource,
                    units,
                    body,
                } => {
                    let proto = self.sys.resources[resource].protocol;
                    let cost = self
                        .profile
                        .protocols
                        .get(&proto)
                        .cloned()
                        .unwrap_or_default();
                    let waiters = self.facts.users(resource).len().saturating_sub(1) as u64;
                    let mut before = cost.lock;
                    if proto.suspends() {
                        let cs = self.profile.context_switch;
                        before = before.saturating_add(cs.saturating_add(cs));
                    }
                    let mut inside_end = cost
                        .unlock
                        .saturating_add(cost.per_waiter.checked_mul(waiters).unwrap_or(Time::MAX));
                    inside_end = inside_end.saturating_add(
                        (self.profile.migration)
                            .checked_mul(proto.migrations())
                            .unwrap_or(Time::MAX),
                    );
                    self.push(out, before);
                    // The exclusive request this lock is, if any.
                    let request = (self.next < self.reqs.len()
                        && self.reqs[self.next].exclusive
                        && self.reqs[self.next].old.start == self.old)
                        .then_some(self.next);
                    let at = self.new;
                    self.old += 1;
                    self.new += 1;
                    let mut inner = Vec::with_capacity(body.len() + 3);
                    if let Some(e) = request {
                        self.next += 1;
                        let call = self.reqs[e].call;
                        self.push(&mut inner, call);
                    }
                    self.body(body, &mut inner, depth + 1);
                    if let Some(e) = request {
                        let reply = self.reqs[e].reply;
                        self.push(&mut inner, reply);
                    }
                    self.push(&mut inner, inside_end);
                    if let Some(e) = request {
                        self.placed[e] = at..self.new;
                    }
                    out.push(Segment::Lock {
                        resource,
                        units,
                        body: inner,
                    });
                }
                other => {
                    out.push(other);
                    self.old += 1;
                    self.new += 1;
                }
            }
        }
        self.settle(out, depth, false);
    }
}
