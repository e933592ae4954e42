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
//! (helping). The result is an ordinary system whose bodies include the
//! overheads, so every analysis charges them the same way.

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

    /// The system with every overhead written into the bodies.
    pub fn inflate(&self, sys: &System) -> System {
        let facts = Facts::new(sys);
        let mut out = sys.clone();
        let per_job = self
            .release
            .saturating_add(self.timer)
            .saturating_add(self.context_switch.saturating_add(self.context_switch));
        for t in &mut out.tasks {
            let body = std::mem::take(&mut t.body);
            let mut nb = Vec::with_capacity(body.len() + 1);
            if !per_job.is_zero() {
                nb.push(Segment::Compute(per_job));
            }
            nb.extend(self.inflate_body(sys, &facts, body));
            t.body = nb;
        }
        out
    }

    fn inflate_body(&self, sys: &System, facts: &Facts, body: Vec<Segment>) -> Vec<Segment> {
        let mut out = Vec::with_capacity(body.len());
        for s in body {
            match s {
                Segment::Lock {
                    resource,
                    units,
                    body,
                } => {
                    let proto = sys.resources[resource].protocol;
                    let cost = self.protocols.get(&proto).cloned().unwrap_or_default();
                    let waiters = facts.users(resource).len().saturating_sub(1) as u64;
                    let mut before = cost.lock;
                    if proto.suspends() {
                        before = before.saturating_add(
                            self.context_switch.saturating_add(self.context_switch),
                        );
                    }
                    let mut inside_end = cost
                        .unlock
                        .saturating_add(cost.per_waiter.checked_mul(waiters).unwrap_or(Time::MAX));
                    let migrations = proto.migrations();
                    inside_end = inside_end.saturating_add(
                        self.migration.checked_mul(migrations).unwrap_or(Time::MAX),
                    );
                    if !before.is_zero() {
                        out.push(Segment::Compute(before));
                    }
                    let mut inner = self.inflate_body(sys, facts, body);
                    if !inside_end.is_zero() {
                        inner.push(Segment::Compute(inside_end));
                    }
                    out.push(Segment::Lock {
                        resource,
                        units,
                        body: inner,
                    });
                }
                other => out.push(other),
            }
        }
        out
    }
}
