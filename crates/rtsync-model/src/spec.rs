//! Loading a system from its TOML spec.
//!
//! Parsing happens in two steps: serde reads the file into "raw" structs that
//! keep the byte span of every value (so that every later error can name its
//! line and column), then `convert` turns raw values into the typed
//! [`System`], collecting every error instead of stopping at the first. The
//! semantic checks that look at the whole system live in [`crate::validate()`].
//! A large spec is read a thousand tasks at a time (the `sections` module),
//! which changes neither the result nor any diagnostic.
//!
//! ```toml
//! [platform]
//! cpus = 1
//! scheduler = "fp"          # or "edf"
//! protocol = "pcp"          # default protocol of every resource
//!
//! [[resource]]
//! name = "bus"
//!
//! [[task]]
//! name = "control"
//! period = "10ms"           # deadline defaults to the period
//! body = [
//!   { compute = "1ms" },
//!   { lock = "bus", body = [ { compute = "200us" } ] },
//!   { lock = "bus", hold = "50us" },   # shorthand for a compute-only section
//!   { suspend = "500us" },
//! ]
//! ```

use crate::diag::{Diagnostic, Diagnostics, LineIndex, Pos};
use crate::protocol::{Protocol, Scheduler};
use crate::raw::{RawPlatform, RawResource, RawSegment, RawSpec, RawTask, RawTasks};
use crate::system::{Platform, Priority, Resource, Segment, SourceMap, System, Task, keys};
use crate::time::{TIME_HINT, Time};
use toml::Spanned;

/// How priorities are assigned when no task gives one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PriorityOrder {
    DeadlineMonotonic,
    RateMonotonic,
}

/// Loads and validates a spec. On success the system comes with its
/// warnings and notes; on failure, with every error found.
pub fn load_str(src: &str, file: Option<&str>) -> Result<(System, Diagnostics), Diagnostics> {
    load_with(src, file, true)
}

/// [`load_str`], reading the text in sections or (for the tests that
/// compare the two) as one document.
pub(crate) fn load_with(
    src: &str,
    file: Option<&str>,
    sectioned: bool,
) -> Result<(System, Diagnostics), Diagnostics> {
    let (system, mut diags) = parse(src, file, sectioned)?;
    diags.0.extend(crate::validate::validate(&system).0);
    if !diags.has_errors() {
        return Ok((system, finish(diags, file)));
    }
    Err(finish(sorted(diags), file))
}

/// Parses a spec into a system without the cross-element rules of
/// [`crate::validate()`] (structure, names, times and references are still
/// checked). For tools that must run what validation rejects on purpose:
/// the simulator's deadlock scenario locks in opposite orders under PIP.
pub fn parse_str(src: &str, file: Option<&str>) -> Result<System, Diagnostics> {
    parse(src, file, true)
        .map(|(s, _)| s)
        .map_err(|d| finish(d, file))
}

fn finish(d: Diagnostics, file: Option<&str>) -> Diagnostics {
    match file {
        Some(f) => d.with_file(f),
        None => d,
    }
}

fn sorted(mut diags: Diagnostics) -> Diagnostics {
    diags.0.sort_by_key(|d| {
        (
            std::cmp::Reverse(d.severity),
            d.pos.map(|p| (p.line, p.col)),
        )
    });
    diags
}

/// The raw spec and, per task, the byte offset its spans count from.
/// Read in sections where the text allows it ([`crate::sections`]), as
/// one document otherwise or whenever a section does not parse, so that
/// every error is the whole document's.
fn read_raw(src: &str, sectioned: bool) -> Result<(RawSpec, Vec<usize>), toml::de::Error> {
    if sectioned
        && let Some(sections) = crate::sections::split(src)
        && let Ok(mut raw) = toml::from_str::<RawSpec>(&sections.rest)
        && raw.tasks.is_none()
        // Component methods are inlined into task bodies: their spans
        // must count from the same start as the tasks'.
        && raw.components.is_empty()
    {
        let mut tasks = Vec::new();
        let mut bases = Vec::new();
        let mut whole = true;
        for (base, text) in sections.batches {
            match toml::from_str::<RawTasks>(text) {
                Ok(batch) => {
                    bases.resize(bases.len() + batch.task.len(), base);
                    tasks.extend(batch.task);
                }
                Err(_) => {
                    whole = false;
                    break;
                }
            }
        }
        if whole {
            raw.tasks = Some(tasks);
            return Ok((raw, bases));
        }
    }
    toml::from_str(src).map(|raw| (raw, Vec::new()))
}

fn parse(
    src: &str,
    file: Option<&str>,
    sectioned: bool,
) -> Result<(System, Diagnostics), Diagnostics> {
    let (mut raw, bases) = match read_raw(src, sectioned) {
        Ok(r) => r,
        Err(e) => {
            let pos = e.span().map(|s| Pos::of_offset(src, s.start));
            let mut msg = e.message().trim().to_string();
            let mut hint = syntax_hint(&msg);
            // The TOML parser says "duplicate key" and points at it: name
            // the key, and say where a second one usually belongs.
            if msg == "duplicate key"
                && let Some(key) = e.span().and_then(|s| src.get(s)).map(str::trim)
                && !key.is_empty()
            {
                msg = format!("duplicate key `{key}`: it is already set in this table");
                hint = Some(format!(
                    "keep one `{key}`; to describe another task or resource, start a new \
                     `[[task]]` or `[[resource]]` table before it"
                ));
            }
            let mut d = Diagnostic::error("", msg).at(pos);
            if let Some(h) = hint {
                d = d.hint(h);
            }
            return Err(finish(Diagnostics(vec![d]), file));
        }
    };
    let mut cx = Loader {
        lines: LineIndex::new(src),
        base: 0,
        resource_ids: Default::default(),
        diags: Diagnostics::default(),
        source: SourceMap::for_file(file),
    };
    let lowered = crate::component::lower::lower(&mut raw, &cx.lines, &mut cx.diags);
    let system = convert(&mut cx, raw, &bases).map(|mut sys| {
        if let Some(l) = lowered {
            sys.components = Some(std::sync::Arc::new(l.finish(&sys, &mut cx.diags)));
        }
        sys
    });
    let diags = cx.diags;
    match system {
        Some(system) if !diags.has_errors() => Ok((system, diags)),
        _ => Err(finish(sorted(diags), file)),
    }
}

/// Loads a spec file from disk.
pub fn load_file(path: &std::path::Path) -> Result<(System, Diagnostics), Diagnostics> {
    let name = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(src) => match crate::include::expand(&src, path)? {
            None => load_str(&src, Some(&name)),
            Some(x) => load_str(&x.text, Some(&name))
                .map(|(s, d)| (s, x.place(d)))
                .map_err(|d| x.place(d)),
        },
        Err(e) => Err(Diagnostics(vec![
            Diagnostic::error("", format!("cannot read the spec: {e}"))
                .hint("give the path of a TOML spec file, or no path for the bundled example"),
        ])
        .with_file(&name)),
    }
}

fn syntax_hint(msg: &str) -> Option<String> {
    if msg.contains("unknown field") {
        Some("remove or rename the key; the message lists the keys allowed here".into())
    } else if msg.contains("missing field") {
        Some("add the key the message names".into())
    } else if msg.contains("invalid type") {
        Some(
            "check the value's type: times are strings with units (\"10ms\"), counts are integers"
                .into(),
        )
    } else {
        None
    }
}

struct Loader<'a> {
    lines: LineIndex<'a>,
    /// Where the spans being read count from: a task read in a section
    /// has spans from its section's start.
    base: usize,
    /// Each accepted resource's index, by name (names are looked up once
    /// per section: a list search made loading quadratic).
    resource_ids: std::collections::HashMap<String, usize>,
    diags: Diagnostics,
    source: SourceMap,
}

impl Loader<'_> {
    fn pos<T>(&self, s: &Spanned<T>) -> Pos {
        self.lines.pos(self.base + s.span().start)
    }
    fn mark<T>(&mut self, key: &str, s: &Spanned<T>) {
        let p = self.pos(s);
        self.source.insert(key, p);
    }
    fn err<T>(&mut self, at: &Spanned<T>, key: &str, msg: String, hint: &str) {
        let d = Diagnostic::error(key, msg)
            .at(Some(self.pos(at)))
            .hint(hint);
        self.diags.push(d);
    }

    /// A time value: a string with a unit, or the integer 0.
    fn time(&mut self, v: &Spanned<toml::Value>, key: &str) -> Option<Time> {
        self.mark(key, v);
        match v.get_ref() {
            toml::Value::String(s) => match Time::parse(s) {
                Ok(t) => Some(t),
                Err(e) => {
                    self.err(v, key, e.to_string(), TIME_HINT);
                    None
                }
            },
            toml::Value::Integer(0) => Some(Time::ZERO),
            toml::Value::Integer(n) => {
                self.err(v, key, format!("the number {n} has no unit"), TIME_HINT);
                None
            }
            other => {
                self.err(
                    v,
                    key,
                    format!("expected a duration, found {}", other.type_str()),
                    TIME_HINT,
                );
                None
            }
        }
    }

    /// A strictly positive time.
    fn positive_time(&mut self, v: &Spanned<toml::Value>, key: &str, what: &str) -> Option<Time> {
        let t = self.time(v, key)?;
        if t.is_zero() {
            self.err(
                v,
                key,
                format!("{what} is zero"),
                "a zero length means nothing happens: give a positive duration or remove it",
            );
            return None;
        }
        Some(t)
    }

    fn count(
        &mut self,
        v: &Spanned<i64>,
        key: &str,
        what: &str,
        min: i64,
        max: i64,
    ) -> Option<i64> {
        self.mark(key, v);
        let n = *v.get_ref();
        if n < min || n > max {
            self.err(
                v,
                key,
                format!("{what} is {n}, outside {min}..={max}"),
                &format!("write an integer from {min} to {max}"),
            );
            return None;
        }
        Some(n)
    }

    /// A priority (a task's, or a resource's given ceiling): larger runs
    /// first, from 1.
    fn priority(&mut self, v: &Spanned<i64>, key: &str, what: &str) -> Option<Priority> {
        self.count(v, key, what, 1, 1_000_000)
            .map(|v| v as Priority)
    }
}

fn convert(cx: &mut Loader, raw: RawSpec, bases: &[usize]) -> Option<System> {
    let platform = platform(cx, raw.platform.as_ref());
    let (cpus, scheduler) = (platform.cpus, platform.scheduler);
    let resources = resources(cx, &raw.resources, &platform);

    // Tasks: about eight positions each.
    let raw_tasks = raw.tasks.as_deref().unwrap_or_default();
    cx.source.reserve(raw_tasks.len() * 8);
    let mut tasks = Vec::with_capacity(raw_tasks.len());
    let mut task_names = std::collections::HashSet::with_capacity(raw_tasks.len());
    let mut explicit = Vec::new();
    for (i, t) in raw_tasks.iter().enumerate() {
        cx.base = bases.get(i).copied().unwrap_or(0);
        let given = t.get_ref().priority.is_some();
        if let Some(task) = task(cx, t, cpus, &mut task_names, &resources, &raw.resources) {
            tasks.push(task);
            explicit.push(given);
        }
    }
    cx.base = 0;
    if raw_tasks.is_empty() {
        cx.diags.push(
            Diagnostic::error("", "the spec has no tasks")
                .hint("add at least one [[task]] with a name, a period and a wcet or body"),
        );
    }
    if cx.diags.has_errors() {
        return None;
    }

    // Priorities: all explicit, or all assigned by deadline / rate order.
    let n_explicit = explicit.iter().filter(|&&e| e).count();
    if n_explicit == 0 {
        assign_monotonic(&mut tasks, platform.order);
    } else if n_explicit < tasks.len() {
        for (t, e) in tasks.iter().zip(&explicit) {
            if !e {
                let k = keys::task(&t.name);
                let pos = cx.source.get(&k);
                cx.diags.push(
                    Diagnostic::error(k, "has no priority while other tasks have one")
                        .at(pos)
                        .hint("give every task a priority (larger runs first), or none to get deadline-monotonic priorities"),
                );
            }
        }
        return None;
    }
    Some(System {
        name: raw.name,
        platform: Platform { cpus, scheduler },
        resources,
        tasks,
        source: std::mem::take(&mut cx.source),
        components: None,
    })
}

/// What `[platform]` says, defaults filled in.
struct PlatformSection {
    cpus: usize,
    scheduler: Scheduler,
    default_protocol: Option<Protocol>,
    /// A default protocol was written (even one that did not parse).
    protocol_given: bool,
    order: PriorityOrder,
}

/// The `[platform]` table.
fn platform(cx: &mut Loader, raw: Option<&Spanned<RawPlatform>>) -> PlatformSection {
    let mut cpus = 1usize;
    let mut scheduler = Scheduler::Fp;
    let mut default_protocol: Option<Protocol> = None;
    let mut order = PriorityOrder::DeadlineMonotonic;
    if let Some(p) = raw {
        cx.mark("platform", p);
        let p = p.get_ref();
        if let Some(c) = &p.cpus {
            cpus = cx
                .count(c, "platform.cpus", "the number of CPUs", 1, 1024)
                .unwrap_or(1) as usize;
        }
        if let Some(s) = &p.scheduler {
            cx.mark("platform.scheduler", s);
            match s.get_ref().parse() {
                Ok(v) => scheduler = v,
                Err(e) => cx.err(
                    s,
                    "platform.scheduler",
                    e,
                    "write scheduler = \"fp\" or \"edf\"",
                ),
            }
        }
        if let Some(s) = &p.protocol {
            cx.mark("platform.protocol", s);
            match s.get_ref().parse() {
                Ok(v) => default_protocol = Some(v),
                Err(e) => cx.err(
                    s,
                    "platform.protocol",
                    e,
                    "pick one of the protocols listed",
                ),
            }
        }
        if let Some(s) = &p.priorities {
            cx.mark("platform.priorities", s);
            match s.get_ref().as_str() {
                "dm" | "deadline-monotonic" => order = PriorityOrder::DeadlineMonotonic,
                "rm" | "rate-monotonic" => order = PriorityOrder::RateMonotonic,
                other => cx.err(
                    s,
                    "platform.priorities",
                    format!("unknown priority assignment `{other}`"),
                    "write priorities = \"rm\" or \"dm\", or give every task a priority",
                ),
            }
        }
    }

    PlatformSection {
        cpus,
        scheduler,
        default_protocol,
        protocol_given: raw.is_some_and(|p| p.get_ref().protocol.is_some()),
        order,
    }
}

/// The `[[resource]]` tables, each name entered in `cx.resource_ids`.
fn resources(
    cx: &mut Loader,
    raw: &[Spanned<RawResource>],
    platform: &PlatformSection,
) -> Vec<Resource> {
    let mut resources = Vec::new();
    for r in raw {
        let rr = r.get_ref();
        let name = rr.name.get_ref().clone();
        let key = keys::resource(&name);
        cx.mark(&key, r);
        if cx.resource_ids.contains_key(&name) {
            cx.err(
                &rr.name,
                &key,
                format!("a resource named `{name}` is already defined"),
                "give each resource a unique name",
            );
            continue;
        }
        let protocol = match &rr.protocol {
            Some(p) => {
                let k = keys::resource_field(&name, "protocol");
                cx.mark(&k, p);
                match p.get_ref().parse() {
                    Ok(v) => Some(v),
                    Err(e) => {
                        cx.err(p, &k, e, "pick one of the protocols listed");
                        None
                    }
                }
            }
            None => platform.default_protocol,
        };
        let Some(protocol) = protocol else {
            if rr.protocol.is_none() && !platform.protocol_given {
                cx.err(&rr.name, &key, "no protocol given".into(), "add protocol = \"pcp\" (or another) to the resource, or a default under [platform]");
            }
            continue;
        };
        let units = match &rr.units {
            Some(u) => cx
                .count(
                    u,
                    &keys::resource_field(&name, "units"),
                    "units",
                    1,
                    1 << 20,
                )
                .unwrap_or(1) as u32,
            None => 1,
        };
        let sync_cpu = rr.sync_cpu.as_ref().and_then(|c| {
            cx.count(
                c,
                &keys::resource_field(&name, "sync_cpu"),
                "sync_cpu",
                0,
                i64::MAX,
            )
            .map(|v| v as usize)
        });
        // The higher of a ceiling given here and one a component's fixed
        // interface gives its resource.
        let given = (rr.ceiling.as_ref())
            .and_then(|c| cx.priority(c, &keys::resource_field(&name, "ceiling"), "the ceiling"));
        cx.resource_ids.insert(name.clone(), resources.len());
        resources.push(Resource {
            name,
            protocol,
            units,
            sync_cpu,
            ceiling: given.max(rr.lowered_ceiling),
        });
    }

    resources
}

/// One `[[task]]` table, `None` when it has an error (reported) or
/// repeats a name.
fn task(
    cx: &mut Loader,
    t: &Spanned<RawTask>,
    cpus: usize,
    task_names: &mut std::collections::HashSet<String>,
    resources: &[Resource],
    raw_resources: &[Spanned<RawResource>],
) -> Option<Task> {
    let rt = t.get_ref();
    let name = rt.name.get_ref().clone();
    let key = keys::task(&name);
    cx.mark(&key, t);
    if !task_names.insert(name.clone()) {
        cx.err(
            &rt.name,
            &key,
            format!("a task named `{name}` is already defined"),
            "give each task a unique name",
        );
        return None;
    }
    let period = match &rt.period {
        Some(p) => cx.positive_time(p, &keys::task_field(&name, "period"), "the period"),
        None => {
            cx.err(
                t,
                &key,
                "no period".into(),
                "add period = \"10ms\" (the period or minimum inter-arrival time)",
            );
            None
        }
    };
    let deadline = match &rt.deadline {
        Some(d) => cx.positive_time(d, &keys::task_field(&name, "deadline"), "the deadline"),
        None => period,
    };
    let jitter = match &rt.jitter {
        Some(j) => cx.time(j, &keys::task_field(&name, "jitter")),
        None => Some(Time::ZERO),
    };
    let offset = match &rt.offset {
        Some(o) => cx.time(o, &keys::task_field(&name, "offset")),
        None => Some(Time::ZERO),
    };
    let priority = (rt.priority.as_ref())
        .and_then(|p| cx.priority(p, &keys::task_field(&name, "priority"), "the priority"));
    let cpu = match &rt.cpu {
        Some(c) => cx
            .count(c, &keys::task_field(&name, "cpu"), "the CPU", 0, i64::MAX)
            .map(|v| v as usize),
        // On one CPU there is nothing to choose.
        None if cpus == 1 => Some(0),
        None => None,
    };
    let body = match (&rt.body, &rt.wcet) {
        (Some(_), Some(w)) => {
            cx.err(w, &keys::task_field(&name, "wcet"), "both `wcet` and `body` are given".into(), "`wcet = \"2ms\"` is shorthand for `body = [{ compute = \"2ms\" }]`: keep one of them");
            None
        }
        (None, Some(w)) => cx
            .positive_time(w, &keys::task_field(&name, "wcet"), "the WCET")
            .map(|c| vec![Segment::Compute(c)]),
        (Some(b), None) => {
            cx.mark(&keys::task_field(&name, "body"), b);
            if b.get_ref().is_empty() {
                cx.err(
                    b,
                    &keys::task_field(&name, "body"),
                    "the body is empty".into(),
                    "give at least one segment, e.g. body = [{ compute = \"1ms\" }]",
                );
            }
            segments(
                cx,
                &name,
                b.get_ref(),
                &mut Vec::new(),
                resources,
                raw_resources,
            )
        }
        (None, None) => {
            cx.err(
                t,
                &key,
                "no body and no wcet".into(),
                "add wcet = \"1ms\", or a body = [ ... ] of compute / lock / suspend segments",
            );
            None
        }
    };
    Some(Task {
        name,
        period: period?,
        deadline: deadline?,
        jitter: jitter?,
        offset: offset?,
        priority: priority.unwrap_or(0),
        cpu,
        body: body?,
    })
}

/// Deadline- (or rate-) monotonic priorities, unique, ties broken by the
/// order tasks are written in; the highest priority is `n`.
fn assign_monotonic(tasks: &mut [Task], order: PriorityOrder) {
    let mut idx: Vec<usize> = (0..tasks.len()).collect();
    idx.sort_by_key(|&i| match order {
        PriorityOrder::DeadlineMonotonic => (tasks[i].deadline, tasks[i].period, i),
        PriorityOrder::RateMonotonic => (tasks[i].period, tasks[i].deadline, i),
    });
    let n = tasks.len() as Priority;
    for (rank, &i) in idx.iter().enumerate() {
        tasks[i].priority = n - rank as Priority;
    }
}

fn segments(
    cx: &mut Loader,
    task: &str,
    raw: &[Spanned<RawSegment>],
    path: &mut Vec<usize>,
    resources: &[Resource],
    raw_resources: &[Spanned<RawResource>],
) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    let mut ok = true;
    for (i, s) in raw.iter().enumerate() {
        path.push(i);
        let key = keys::segment(task, path);
        cx.mark(&key, s);
        match segment(cx, task, s, &key, path, resources, raw_resources) {
            Some(seg) => out.push(seg),
            None => ok = false,
        }
        path.pop();
    }
    ok.then_some(out)
}

fn segment(
    cx: &mut Loader,
    task: &str,
    s: &Spanned<RawSegment>,
    key: &str,
    path: &mut Vec<usize>,
    resources: &[Resource],
    raw_resources: &[Spanned<RawResource>],
) -> Option<Segment> {
    let r = s.get_ref();
    if r.call.is_some() {
        // Not lowered: the component lowering reported why.
        return None;
    }
    let kinds = r.compute.is_some() as u8 + r.suspend.is_some() as u8 + r.lock.is_some() as u8;
    const SHAPES: &str = "a segment is { compute = \"1ms\" }, { suspend = \"1ms\" }, { lock = \"R\", hold = \"100us\" }, { lock = \"R\", body = [ ... ] } or { call = \"component.interface.method\" }";
    if kinds != 1 {
        let msg = if kinds == 0 {
            "segment has no `compute`, `suspend` or `lock`"
        } else {
            "segment mixes `compute`, `suspend` and `lock`"
        };
        cx.err(s, key, msg.into(), SHAPES);
        return None;
    }
    if r.lock.is_none() && (r.hold.is_some() || r.body.is_some() || r.units.is_some()) {
        cx.err(
            s,
            key,
            "`hold`, `body` and `units` belong to a `lock` segment".into(),
            SHAPES,
        );
        return None;
    }
    if let Some(c) = &r.compute {
        return cx
            .positive_time(c, &[key, ".compute"].concat(), "the compute time")
            .map(Segment::Compute);
    }
    if let Some(c) = &r.suspend {
        return cx
            .positive_time(c, &[key, ".suspend"].concat(), "the suspension")
            .map(Segment::Suspend);
    }
    let lock = r.lock.as_ref()?;
    let name = lock.get_ref();
    let Some(&resource) = cx.resource_ids.get(name.as_str()) else {
        // A resource defined but rejected already has its own error.
        if !raw_resources
            .iter()
            .any(|x| x.get_ref().name.get_ref() == name)
        {
            let known: Vec<&str> = resources.iter().map(|x| x.name.as_str()).collect();
            let hint = if known.is_empty() {
                format!("define it first: [[resource]] name = \"{name}\"")
            } else {
                format!(
                    "known resources: {}; or define it with [[resource]] name = \"{name}\"",
                    known.join(", ")
                )
            };
            cx.err(
                lock,
                key,
                format!("task \"{task}\" locks unknown resource `{name}`"),
                &hint,
            );
        }
        return None;
    };
    let units = match &r.units {
        Some(u) => cx.count(u, &[key, ".units"].concat(), "units", 1, 1 << 20)? as u32,
        None => 1,
    };
    let body = match (&r.hold, &r.body) {
        (Some(h), None) => vec![Segment::Compute(cx.positive_time(
            h,
            &[key, ".hold"].concat(),
            "the hold time",
        )?)],
        (None, Some(b)) => {
            if b.is_empty() {
                cx.err(
                    s,
                    key,
                    "the critical section's body is empty".into(),
                    "give it a compute segment, or write hold = \"100us\"",
                );
                return None;
            }
            segments(cx, task, b, path, resources, raw_resources)?
        }
        (Some(_), Some(_)) => {
            cx.err(s, key, "both `hold` and `body` are given".into(), "`hold = \"100us\"` is shorthand for `body = [{ compute = \"100us\" }]`: keep one of them");
            return None;
        }
        (None, None) => {
            cx.err(
                s,
                key,
                "a lock segment needs `hold` or `body`".into(),
                "write { lock = \"R\", hold = \"100us\" }",
            );
            return None;
        }
    };
    Some(Segment::Lock {
        resource,
        units,
        body,
    })
}
