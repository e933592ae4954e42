//! Gantt charts in SVG, drawn from a [`Recording`].
//!
//! The top lanes show each CPU: which task runs there, with its critical
//! sections underlined in the resource's colour, spinning hatched, and a
//! holder running on a foreign CPU (MrsP helping, a DPCP/DFLP agent)
//! outlined with dashes. Below, one lane per task shows what the task
//! waits for: ready but preempted (grey), blocked on a resource (red, with
//! the resource's name), self-suspended (dotted); arrows mark releases (up)
//! and deadlines (down), a cross a miss, and small labels the effective
//! priority whenever it changes (inheritance, ceilings, boosting).
//!
//! A component spec (paper 001) adds one lane per component thread (`C.i`
//! for a fixed interface's thread, `C.i#k` for the threads of a pool): a
//! light bar while the thread serves a request, solid where the request's
//! own code runs (not a nested request's), an arrow down from the sender's
//! lane where the request is sent and a dashed one back where it replies.
//!
//! A chart draws a [`Window`] of the run. A long run drawn whole is a
//! smear of slivers (each job a fraction of a pixel) and a file of tens
//! of megabytes, so where no window is named [`default_window`] draws the
//! whole run only while it holds at most [`MOST_SPANS`] spans, and
//! otherwise a window some eight responses wide around the job whose
//! response came closest to its deadline: the part a person looks for
//! first.

use crate::svg::esc;
use rtsync_model::{System, Time};
use rtsync_sim::trace::{Mark, MarkKind, Recording, Serve, Span, State};
use std::fmt::Write;

const TASK_COLOURS: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#ff9da7", "#9c755f",
    "#bab0ac", "#e15759",
];
const RES_COLOURS: [&str; 6] = [
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf",
];

const LEFT: f64 = 130.0;
const WIDTH: f64 = 1100.0;
const LANE: f64 = 34.0;
const TOP: f64 = 40.0;
/// The width of a character of a 9-pixel label, rounded up.
const LABEL_CHAR: f64 = 5.5;

/// A step of 1, 2 or 5 times a power of ten giving about ten ticks.
fn tick_step(end: Time) -> u64 {
    let target = (end.ns() / 10).max(1);
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            if step * m >= target {
                return step * m;
            }
        }
        step *= 10;
    }
}

/// `(a, b)` less the intervals `cut` (which do not overlap each other).
fn subtract((a, b): (Time, Time), cut: &[(Time, Time)]) -> Vec<(Time, Time)> {
    let mut out = Vec::new();
    let mut from = a;
    let mut cuts: Vec<&(Time, Time)> = cut.iter().filter(|c| c.1 > a && c.0 < b).collect();
    cuts.sort();
    for &&(s, e) in &cuts {
        if s > from {
            out.push((from, s.min(b)));
        }
        from = from.max(e);
    }
    if from < b {
        out.push((from, b));
    }
    out
}

/// The part of a run a chart draws, `[from, to]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Where the chart starts.
    pub from: Time,
    /// Where it ends.
    pub to: Time,
}

impl Window {
    /// The whole run, `[0, end]`.
    pub fn whole(end: Time) -> Window {
        Window {
            from: Time::ZERO,
            to: end,
        }
    }
}

/// The most spans (a task in one state for a while) a chart draws whole
/// when no window is named: beyond, the jobs are slivers of a pixel.
pub const MOST_SPANS: usize = 1_500;

/// The window drawn where the user names none, and, where it is not the
/// whole run, why: the whole run while its recording holds at most
/// [`MOST_SPANS`] spans; else eight times the response of the job whose
/// response came closest to its deadline, rounded, that job in the
/// middle.
pub fn default_window(sys: &System, rec: &Recording, end: Time) -> (Window, Option<String>) {
    let whole = Window::whole(end);
    if rec.spans.len() <= MOST_SPANS || end.is_zero() {
        return (whole, None);
    }
    // Per task, its jobs' releases and completions in order (a task's
    // jobs complete in the order they were released).
    let n = sys.tasks.len();
    let mut releases: Vec<Vec<Time>> = vec![Vec::new(); n];
    let mut done: Vec<Vec<Time>> = vec![Vec::new(); n];
    for m in &rec.marks {
        match m.kind {
            MarkKind::Release => releases[m.task].push(m.t),
            MarkKind::Complete => done[m.task].push(m.t),
            _ => {}
        }
    }
    let mut worst: Option<(f64, usize, Time, Time)> = None;
    for t in 0..n {
        let d = sys.tasks[t].deadline.ns().max(1) as f64;
        for (&r, &c) in releases[t].iter().zip(&done[t]) {
            let ratio = c.saturating_sub(r).ns() as f64 / d;
            if worst.is_none_or(|w| ratio > w.0) {
                worst = Some((ratio, t, r, c));
            }
        }
    }
    let Some((_, t, r, c)) = worst else {
        return (whole, None);
    };
    // Eight times the job, rounded up to 1, 2 or 5 times a power of ten
    // (the job some 140 pixels wide, with its neighbours), the start on
    // the grid: the job whole, in the middle.
    let job = c.saturating_sub(r).ns().max(1);
    let len = tick_step(Time::from_ns(job.saturating_mul(8)))
        .saturating_mul(10)
        .min(end.ns());
    let room = (len - job.min(len)) / 2;
    let step = tick_step(Time::from_ns(len));
    let from = (r.ns().saturating_sub(room) / step * step).min(end.ns() - len);
    let w = Window {
        from: Time::from_ns(from),
        to: Time::from_ns(from + len),
    };
    let why = format!(
        "around {}'s response of {} (released at {}), the closest to its deadline",
        sys.tasks[t].name,
        c.saturating_sub(r),
        r
    );
    (w, Some(why))
}

/// The SVG document for `rec`, covering `w` (spans and requests that
/// cross its edges cut there; their hover texts keep their whole times).
pub fn render(sys: &System, rec: &Recording, w: Window) -> String {
    let end = w.to;
    let mut c = Chart::new(sys, w);
    c.threads = component_lanes(sys, rec);
    c.jobs = Jobs::new(sys, rec);
    c.header();
    c.grid();
    c.lanes();
    c.thread_lanes();
    for sp in rec
        .spans
        .iter()
        .filter(|sp| sp.end > w.from && sp.start < end)
    {
        c.span(sp);
    }
    // Per task, in time order: its running spans and its served
    // requests (each request looks up only its own task's, by time).
    let n = sys.tasks.len();
    let mut runs: Vec<Vec<&Span>> = vec![Vec::new(); n];
    for sp in rec
        .spans
        .iter()
        .filter(|sp| matches!(sp.state, State::Run { .. }))
    {
        runs[sp.task].push(sp);
    }
    let mut served: Vec<Vec<&Serve>> = vec![Vec::new(); n];
    for sv in &rec.serves {
        served[sv.task].push(sv);
    }
    for v in &mut served {
        v.sort_by_key(|sv| sv.start);
    }
    for sv in rec
        .serves
        .iter()
        .filter(|sv| sv.start <= end && sv.end >= w.from)
    {
        c.serve(sv, &runs[sv.task], &served[sv.task]);
    }
    for m in rec.marks.iter().filter(|m| m.t >= w.from && m.t <= end) {
        c.mark(m);
    }
    c.legend();
    c.s.push_str("</svg>\n");
    c.s
}

/// A chart being drawn: the system, the time scale, the layout, the text.
struct Chart<'a> {
    sys: &'a System,
    /// The window's start, and its end.
    from: Time,
    end: Time,
    /// The window's length in nanoseconds (at least 1).
    len_ns: f64,
    /// Where the task lanes start, below the CPU lanes.
    task_top: f64,
    /// The component threads' lanes, below the tasks'.
    threads: Vec<String>,
    /// Which job of a task runs at a time, and at what priority.
    jobs: Jobs,
    /// Per task lane, where its last priority label's text ends: a label
    /// that would overlap it is a tick with the label on hover instead
    /// (a priority raised and returned within a pixel or two read as one
    /// garbled word).
    label_end: Vec<f64>,
    s: String,
}

/// Per task, its releases and effective-priority changes in time order,
/// so that a hover can name the job and the priority of any span.
#[derive(Default)]
struct Jobs {
    releases: Vec<Vec<Time>>,
    priority: Vec<Vec<(Time, String)>>,
    base: Vec<String>,
}

impl Jobs {
    fn new(sys: &System, rec: &Recording) -> Jobs {
        let n = sys.tasks.len();
        let mut j = Jobs {
            releases: vec![Vec::new(); n],
            priority: vec![Vec::new(); n],
            base: sys.tasks.iter().map(|t| t.priority.to_string()).collect(),
        };
        for m in &rec.marks {
            match &m.kind {
                MarkKind::Release => j.releases[m.task].push(m.t),
                MarkKind::Priority(label) => j.priority[m.task].push((m.t, label.clone())),
                _ => {}
            }
        }
        for v in &mut j.releases {
            v.sort();
        }
        for v in &mut j.priority {
            v.sort_by_key(|e| e.0);
        }
        j
    }

    /// `job k, priority p` for `task` at `t` (jobs counted from 1).
    fn at(&self, task: usize, t: Time) -> String {
        let k = self.releases[task].partition_point(|&r| r <= t).max(1);
        let pr = self.priority[task].partition_point(|e| e.0 <= t);
        let p = match pr {
            0 => &self.base[task],
            k => &self.priority[task][k - 1].1,
        };
        format!("job {k}, priority {}", esc(p))
    }
}

/// The component threads that served a request, by interface and number.
fn component_lanes(sys: &System, rec: &Recording) -> Vec<String> {
    let order = |lane: &str| {
        let (name, k) = lane.split_once('#').unwrap_or((lane, "0"));
        let i = sys
            .components
            .as_deref()
            .and_then(|c| c.interface(name))
            .unwrap_or(usize::MAX);
        (i, k.parse::<u32>().unwrap_or(0))
    };
    let mut lanes: Vec<String> = rec.serves.iter().map(|s| s.lane.clone()).collect();
    lanes.sort_by_key(|l| order(l));
    lanes.dedup();
    lanes
}

fn colour(t: usize) -> &'static str {
    TASK_COLOURS[t % TASK_COLOURS.len()]
}

fn rcolour(r: usize) -> &'static str {
    RES_COLOURS[r % RES_COLOURS.len()]
}

impl<'a> Chart<'a> {
    fn new(sys: &'a System, w: Window) -> Chart<'a> {
        Chart {
            sys,
            from: w.from,
            end: w.to,
            len_ns: w.to.saturating_sub(w.from).ns().max(1) as f64,
            task_top: TOP + sys.platform.cpus as f64 * LANE + 30.0,
            threads: Vec::new(),
            jobs: Jobs::default(),
            label_end: vec![0.0; sys.tasks.len()],
            s: String::new(),
        }
    }

    /// Where the component threads' lanes start.
    fn thread_top(&self) -> f64 {
        self.task_top
            + self.sys.tasks.len() as f64 * LANE
            + if self.threads.is_empty() { 0.0 } else { 10.0 }
    }

    /// Below the last lane.
    fn bottom(&self) -> f64 {
        self.thread_top() + self.threads.len() as f64 * LANE
    }

    /// The top of a lane named by a task or a component thread.
    fn lane_y(&self, name: &str) -> Option<f64> {
        if let Some(t) = self.sys.tasks.iter().position(|t| t.name == name) {
            return Some(self.task_top + t as f64 * LANE);
        }
        let k = self.threads.iter().position(|l| l == name)?;
        Some(self.thread_top() + k as f64 * LANE)
    }

    /// The x coordinate of time `t`, held at the window's edges.
    fn x(&self, t: Time) -> f64 {
        let t = t.clamp(self.from, self.end);
        LEFT + WIDTH * (t.saturating_sub(self.from).ns() as f64 / self.len_ns)
    }

    /// The document's opening, the spinning pattern, the title.
    fn header(&mut self) {
        let height = self.bottom() + if self.threads.is_empty() { 90.0 } else { 106.0 };
        let _ = writeln!(
            self.s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" font-family="sans-serif" font-size="11">"##,
            w = LEFT + WIDTH + 20.0
        );
        self.s.push_str(concat!(
            r##"<defs><pattern id="spin" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">"##,
            r##"<rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#e8a33d" stroke-width="3"/></pattern></defs>"##,
            "\n"
        ));
        let title = self.sys.name.clone().unwrap_or_else(|| "simulation".into());
        let proto = self.sys.protocol_phrase();
        let _ = writeln!(
            self.s,
            r##"<text x="{LEFT}" y="18" font-size="14" font-weight="bold">{} ({proto}, {}) — {} .. {}</text>"##,
            esc(&title),
            self.sys.platform.scheduler,
            self.from,
            self.end
        );
    }

    /// The time grid and its labels.
    fn grid(&mut self) {
        let step = tick_step(self.end.saturating_sub(self.from));
        // The first tick at or after the window's start.
        let mut t = self.from.ns().div_ceil(step) * step;
        while t <= self.end.ns() {
            let xx = self.x(Time::from_ns(t));
            let _ = writeln!(
                self.s,
                r##"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="#eee"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}</text>"##,
                self.bottom(),
                self.bottom() + 14.0,
                Time::from_ns(t)
            );
            t += step;
        }
    }

    /// One lane per CPU, then one per task, with their labels.
    fn lanes(&mut self) {
        for c in 0..self.sys.platform.cpus {
            let y = TOP + c as f64 * LANE;
            let _ = writeln!(
                self.s,
                r##"<text class="lane" x="8" y="{:.1}" font-weight="bold">CPU {c}</text><line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#999"/>"##,
                y + LANE * 0.6,
                y + LANE - 2.0,
                LEFT + WIDTH,
                y + LANE - 2.0
            );
        }
        for (i, task) in self.sys.tasks.iter().enumerate() {
            let y = self.task_top + i as f64 * LANE;
            let _ = writeln!(
                self.s,
                r##"<rect x="8" y="{:.1}" width="10" height="10" fill="{}"/><text class="lane" x="22" y="{:.1}">{} (p{}, cpu {})</text><line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#ccc"/>"##,
                y + LANE * 0.6 - 9.0,
                colour(i),
                y + LANE * 0.6,
                esc(&task.name),
                task.priority,
                task.cpu.unwrap_or(0),
                y + LANE - 2.0,
                LEFT + WIDTH,
                y + LANE - 2.0
            );
        }
    }

    /// One lane per component thread, labelled.
    fn thread_lanes(&mut self) {
        for k in 0..self.threads.len() {
            let y = self.thread_top() + k as f64 * LANE;
            let _ = writeln!(
                self.s,
                r##"<text class="lane" x="8" y="{:.1}" font-style="italic">{}</text><line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#ccc"/>"##,
                y + LANE * 0.6,
                esc(&self.threads[k]),
                y + LANE - 2.0,
                LEFT + WIDTH,
                y + LANE - 2.0
            );
        }
    }

    /// A request served by a component thread: the light bar of the
    /// service, solid where its own code runs, the arrows of the request
    /// and of the reply.
    /// `runs` and `same_task` are the task's running spans and served
    /// requests, in time order.
    fn serve(&mut self, sv: &Serve, runs: &[&Span], same_task: &[&Serve]) {
        let Some(y) = self.lane_y(&sv.lane) else {
            return;
        };
        let end = sv.end.min(self.end);
        let start = sv.start.max(self.from);
        let (x0, x1) = (self.x(start), self.x(end));
        let col = colour(sv.task);
        let _ = writeln!(
            self.s,
            r##"<rect x="{x0:.2}" y="{:.1}" width="{:.2}" height="{:.1}" fill="{col}" fill-opacity="0.25" stroke="{col}"><title>{} serves {}'s request {}, {} .. {}</title></rect>"##,
            y + 8.0,
            (x1 - x0).max(0.5),
            LANE - 16.0,
            esc(&sv.lane),
            esc(&self.sys.tasks[sv.task].name),
            esc(&sv.request),
            sv.start,
            sv.end
        );
        // Its own code: the task's running time inside it, less the
        // requests nested in it.
        let from = same_task.partition_point(|o| o.start < sv.start);
        let nested: Vec<(Time, Time)> = same_task[from..]
            .iter()
            .take_while(|o| o.start <= sv.end)
            .filter(|o| o.depth == sv.depth + 1 && o.end <= sv.end)
            .map(|o| (o.start, o.end))
            .collect();
        let first = runs.partition_point(|sp| sp.end <= sv.start);
        for sp in runs[first..].iter().take_while(|sp| sp.start < end) {
            let (a, b) = (sp.start.max(start), sp.end.min(end));
            if a >= b {
                continue;
            }
            for (a, b) in subtract((a, b), &nested) {
                let _ = writeln!(
                    self.s,
                    r##"<rect x="{:.2}" y="{:.1}" width="{:.2}" height="{:.1}" fill="{col}"/>"##,
                    self.x(a),
                    y + 8.0,
                    (self.x(b) - self.x(a)).max(0.5),
                    LANE - 16.0
                );
            }
        }
        if let Some(fy) = self.lane_y(&sv.from) {
            let (top, bot) = if fy < y {
                (fy + LANE - 8.0, y + 8.0)
            } else {
                (fy + 8.0, y + LANE - 8.0)
            };
            let head = if bot > top { -4.0 } else { 4.0 };
            if sv.start >= self.from {
                let _ = writeln!(
                    self.s,
                    r##"<path d="M{x0:.1},{top:.1} V{bot:.1} l-3,{head:.1} m3,{:.1} l3,{head:.1}" stroke="#333" fill="none"><title>{} sends {} to {} at {}</title></path>"##,
                    -head,
                    esc(&sv.from),
                    esc(&sv.request),
                    esc(&sv.lane),
                    sv.start
                );
            }
            if sv.end <= self.end {
                let _ = writeln!(
                    self.s,
                    r##"<path d="M{x1:.1},{bot:.1} V{top:.1} l-3,{:.1} m3,{head:.1} l3,{:.1}" stroke="#333" stroke-dasharray="2,2" fill="none"><title>{} replies at {}</title></path>"##,
                    -head,
                    -head,
                    esc(&sv.lane),
                    sv.end
                );
            }
        }
    }

    /// One span of a task's state: on its CPU lane when it runs or spins,
    /// on its task lane always.
    fn span(&mut self, sp: &Span) {
        let (x0, x1) = (self.x(sp.start), self.x(sp.end));
        let w = (x1 - x0).max(0.5);
        let ty = self.task_top + sp.task as f64 * LANE;
        let home = self.sys.tasks[sp.task].cpu.unwrap_or(0);
        match sp.state {
            State::Run { cpu, resource } => {
                let cy = TOP + cpu as f64 * LANE;
                let dash = if cpu != home {
                    r##" stroke="#000" stroke-dasharray="3,2""##
                } else {
                    ""
                };
                let _ = writeln!(
                    self.s,
                    r##"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="{}"{dash}><title>{} ({}) on CPU {cpu}{}, {} .. {}</title></rect>"##,
                    cy + 6.0,
                    LANE - 12.0,
                    colour(sp.task),
                    esc(&self.sys.tasks[sp.task].name),
                    self.jobs.at(sp.task, sp.start),
                    resource.map_or(String::new(), |r| format!(
                        ", holding {}",
                        esc(&self.sys.resources[r].name)
                    )),
                    sp.start,
                    sp.end
                );
                let _ = writeln!(
                    self.s,
                    r##"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="{}"><title>{} ({}) runs on CPU {cpu}, {} .. {}</title></rect>"##,
                    ty + 8.0,
                    LANE - 16.0,
                    colour(sp.task),
                    esc(&self.sys.tasks[sp.task].name),
                    self.jobs.at(sp.task, sp.start),
                    sp.start,
                    sp.end
                );
                if let Some(r) = resource {
                    for yy in [cy + LANE - 10.0, ty + LANE - 10.0] {
                        let _ = writeln!(
                            self.s,
                            r##"<rect x="{x0:.2}" y="{yy:.1}" width="{w:.2}" height="4" fill="{}"><title>holds {}</title></rect>"##,
                            rcolour(r),
                            esc(&self.sys.resources[r].name)
                        );
                    }
                    if w > 24.0 {
                        let _ = writeln!(
                            self.s,
                            r##"<text x="{:.1}" y="{:.1}" fill="#fff" font-size="9">{}</text>"##,
                            x0 + 2.0,
                            cy + 18.0,
                            esc(&self.sys.resources[r].name)
                        );
                    }
                }
            }
            State::Spin { cpu, resource } => {
                let cy = TOP + cpu as f64 * LANE;
                for yy in [cy + 6.0, ty + 8.0] {
                    let _ = writeln!(
                        self.s,
                        r##"<rect x="{x0:.2}" y="{yy:.1}" width="{w:.2}" height="{:.1}" fill="url(#spin)" stroke="{}"><title>{} ({}) spins for {}, {} .. {}</title></rect>"##,
                        LANE - 14.0,
                        colour(sp.task),
                        esc(&self.sys.tasks[sp.task].name),
                        self.jobs.at(sp.task, sp.start),
                        esc(&self.sys.resources[resource].name),
                        sp.start,
                        sp.end
                    );
                }
            }
            State::Ready => {
                let _ = writeln!(
                    self.s,
                    r##"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="#ddd"><title>{} ({}) ready, not running</title></rect>"##,
                    ty + 13.0,
                    LANE - 26.0,
                    esc(&self.sys.tasks[sp.task].name),
                    self.jobs.at(sp.task, sp.start)
                );
            }
            State::Blocked { resource } => {
                let _ = writeln!(
                    self.s,
                    r##"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="#f4b6b6" stroke="#c33"><title>{} ({}) blocked on {}, {} .. {}</title></rect>"##,
                    ty + 11.0,
                    LANE - 22.0,
                    esc(&self.sys.tasks[sp.task].name),
                    self.jobs.at(sp.task, sp.start),
                    esc(&self.sys.resources[resource].name),
                    sp.start,
                    sp.end
                );
                if w > 40.0 {
                    let _ = writeln!(
                        self.s,
                        r##"<text x="{:.1}" y="{:.1}" fill="#a00" font-size="9">waits {}</text>"##,
                        x0 + 2.0,
                        ty + LANE - 13.0,
                        esc(&self.sys.resources[resource].name)
                    );
                }
            }
            State::Suspended => {
                let _ = writeln!(
                    self.s,
                    r##"<line x1="{x0:.2}" y1="{:.1}" x2="{x1:.2}" y2="{:.1}" stroke="#777" stroke-dasharray="2,2"><title>self-suspended</title></line>"##,
                    ty + LANE / 2.0,
                    ty + LANE / 2.0
                );
            }
        }
    }

    /// A release, deadline, completion, miss or priority change.
    fn mark(&mut self, m: &Mark) {
        let xx = self.x(m.t);
        let ty = self.task_top + m.task as f64 * LANE;
        match &m.kind {
            MarkKind::Release => {
                let _ = writeln!(
                    self.s,
                    r##"<path d="M{xx:.1},{:.1} l-3,6 h6 z M{xx:.1},{:.1} v-10" stroke="#000" fill="#000"><title>release</title></path>"##,
                    ty + 2.0,
                    ty + 12.0
                );
            }
            MarkKind::Deadline => {
                let _ = writeln!(
                    self.s,
                    r##"<path d="M{xx:.1},{:.1} l-3,-6 h6 z" fill="#c00"><title>deadline</title></path>"##,
                    ty + LANE - 2.0
                );
            }
            MarkKind::Complete => {
                let _ = writeln!(
                    self.s,
                    r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#000" stroke-width="2"><title>job done</title></line>"##,
                    ty + 6.0,
                    ty + LANE - 6.0
                );
            }
            MarkKind::Miss => {
                let _ = writeln!(
                    self.s,
                    r##"<text x="{xx:.1}" y="{:.1}" fill="#c00" font-weight="bold" text-anchor="middle">✕ miss</text>"##,
                    ty + 10.0
                );
            }
            MarkKind::Priority(label) => {
                if xx + 1.0 < self.label_end[m.task] {
                    let _ = writeln!(
                        self.s,
                        r##"<line class="prio" x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#333"><title>priority → {} at {}</title></line>"##,
                        ty + 1.0,
                        ty + 8.0,
                        esc(label),
                        m.t
                    );
                } else {
                    let _ = writeln!(
                        self.s,
                        r##"<text class="prio" x="{:.1}" y="{:.1}" fill="#333" font-size="9">→{}<title>priority → {} at {}</title></text>"##,
                        xx + 1.0,
                        ty + 7.0,
                        esc(label),
                        esc(label),
                        m.t
                    );
                    self.label_end[m.task] =
                        xx + 1.0 + LABEL_CHAR * (label.chars().count() + 1) as f64;
                }
            }
        }
    }

    /// What the fills and marks mean.
    fn legend(&mut self) {
        let ly = self.bottom() + 34.0;
        let mut lx = LEFT;
        let items: [(&str, &str); 4] = [
            ("#ddd", "ready, preempted"),
            ("#f4b6b6", "blocked on a resource"),
            ("url(#spin)", "spinning"),
            (
                "#fff",
                "dashed outline: running on a foreign CPU (helping, agent)",
            ),
        ];
        for (fill, label) in items {
            let _ = writeln!(
                self.s,
                r##"<rect x="{lx:.1}" y="{ly:.1}" width="14" height="10" fill="{fill}" stroke="#555"/><text x="{:.1}" y="{:.1}">{label}</text>"##,
                lx + 18.0,
                ly + 9.0
            );
            lx += 30.0 + label.len() as f64 * 6.0;
        }
        let ly2 = ly + 20.0;
        let mut lx = LEFT;
        for (r, res) in self.sys.resources.iter().enumerate() {
            let _ = writeln!(
                self.s,
                r##"<rect x="{lx:.1}" y="{:.1}" width="14" height="4" fill="{}"/><text x="{:.1}" y="{:.1}">section on {}</text>"##,
                ly2 + 3.0,
                rcolour(r),
                lx + 18.0,
                ly2 + 9.0,
                esc(&res.name)
            );
            lx += 40.0 + (res.name.len() + 11) as f64 * 6.0;
        }
        let _ = writeln!(
            self.s,
            r##"<text x="{LEFT}" y="{:.1}" fill="#555">▲ release   ▼ deadline   | job done   →label: effective priority from then on (a tick where labels would overlap: hover it)</text>"##,
            ly2 + 26.0
        );
        if !self.threads.is_empty() {
            let _ = writeln!(
                self.s,
                r##"<text x="{LEFT}" y="{:.1}" fill="#555">component threads (italic lanes): light while serving a request, solid where its own code runs; ↓ request sent, dashed ↑ reply</text>"##,
                ly2 + 42.0
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtsync_sim::{Options, simulate};

    fn pip_chained() -> System {
        let text = include_str!("../../../examples/pip-chained.toml");
        rtsync_model::load_str(text, None).unwrap().0
    }

    fn run(sys: &System, horizon: Time) -> (Time, Vec<Option<Time>>, Recording) {
        let opts = Options {
            horizon,
            record: true,
            ..Options::default()
        };
        let (res, rec) = simulate(sys, &opts).unwrap();
        let worst = res.tasks.iter().map(|t| t.max_response).collect();
        (res.end, worst, rec.unwrap())
    }

    /// A short run is drawn whole. A long one is drawn around the job
    /// whose response came closest to its deadline, as the simulator's
    /// results name it (the task with the largest worst response against
    /// its deadline): a window eight to twenty times that response, the
    /// job's release and completion inside it.
    #[test]
    fn a_short_run_is_drawn_whole_and_a_long_one_around_its_worst_job() {
        let sys = pip_chained();
        let (end, _, rec) = run(&sys, Time::from_ms(20));
        assert!(rec.spans.len() <= MOST_SPANS);
        assert_eq!(default_window(&sys, &rec, end), (Window::whole(end), None));

        let (end, worst, rec) = run(&sys, Time::from_s(10));
        assert!(rec.spans.len() > MOST_SPANS);
        let (w, why) = default_window(&sys, &rec, end);
        let why = why.expect("a long run is narrowed");
        let (t, r) = (0..sys.tasks.len())
            .filter_map(|t| worst[t].map(|r| (t, r)))
            .max_by(|a, b| {
                let f = |(t, r): (usize, Time)| r.ratio(sys.tasks[t].deadline);
                f(*a).total_cmp(&f(*b))
            })
            .unwrap();
        assert!(why.contains(&sys.tasks[t].name), "{why}");
        let len = w.to.saturating_sub(w.from);
        assert!(len >= r.checked_mul(8).unwrap() && len <= r.checked_mul(20).unwrap());
        // Some job of that task with that response lies wholly inside.
        let releases: Vec<Time> = (rec.marks.iter())
            .filter(|m| m.task == t && m.kind == MarkKind::Release)
            .map(|m| m.t)
            .collect();
        let done: Vec<Time> = (rec.marks.iter())
            .filter(|m| m.task == t && m.kind == MarkKind::Complete)
            .map(|m| m.t)
            .collect();
        assert!(
            releases
                .iter()
                .zip(&done)
                .any(|(&a, &c)| c.saturating_sub(a) == r && a >= w.from && c <= w.to),
            "{w:?}"
        );
    }

    /// Priority labels on one lane never overlap: where one would start
    /// inside the last one's text, it is a tick whose hover holds it.
    /// Every priority change in the window is drawn, as one or the other.
    /// (The bundled example under DPCP: a job boosted for its agent and
    /// back at base within a pixel printed "→boosted 1" and "→base" on
    /// top of each other.)
    #[test]
    fn priority_labels_on_a_lane_never_overlap() {
        let text = include_str!("../../../examples/rtems-table1.toml");
        let sys = rtsync_model::load_str(text, None).unwrap().0;
        let (_, _, rec) = run(&sys, Time::from_ms(200));
        let svg = render(&sys, &rec, Window::whole(Time::from_ms(200)));
        let changes = (rec.marks.iter())
            .filter(|m| matches!(m.kind, MarkKind::Priority(_)))
            .count();
        let (mut texts, mut ticks) = (0, 0);
        // Per lane (its y), the right end of the last label's text.
        let mut ends: Vec<(String, f64)> = Vec::new();
        for line in svg.lines() {
            let attr = |key: &str| -> &str {
                let at = line.find(key).unwrap() + key.len();
                line[at..].split('"').next().unwrap()
            };
            if line.starts_with(r#"<text class="prio""#) {
                texts += 1;
                let x: f64 = attr(" x=\"").parse().unwrap();
                let y = attr(" y=\"").to_string();
                let label = line[line.find('→').unwrap()..line.find("<title>").unwrap()]
                    .chars()
                    .count();
                if let Some(e) = ends.iter_mut().find(|e| e.0 == y) {
                    assert!(
                        x >= e.1,
                        "a label at {x} starts inside one ending at {}",
                        e.1
                    );
                    e.1 = x + LABEL_CHAR * label as f64;
                } else {
                    ends.push((y, x + LABEL_CHAR * label as f64));
                }
            } else if line.starts_with(r#"<line class="prio""#) {
                ticks += 1;
                assert!(line.contains("<title>priority → "), "{line}");
            }
        }
        assert_eq!(texts + ticks, changes);
        assert!(ticks > 0 && texts > 0, "{texts} labels, {ticks} ticks");
    }

    /// A window draws what it covers and nothing else: every shape within
    /// the time axis, one running bar per running span that overlaps it
    /// (cut at its edges), the window in the title.
    #[test]
    fn a_window_draws_only_what_it_covers() {
        let sys = pip_chained();
        let (_, _, rec) = run(&sys, Time::from_ms(40));
        let w = Window {
            from: Time::from_ms(5),
            to: Time::from_ms(12),
        };
        let svg = render(&sys, &rec, w);
        assert!(
            svg.contains("— 5ms .. 12ms</text>"),
            "the title names the window"
        );
        let overlapping = (rec.spans.iter())
            .filter(|sp| matches!(sp.state, State::Run { .. }))
            .filter(|sp| sp.end > w.from && sp.start < w.to)
            .count();
        assert!(overlapping > 0);
        assert_eq!(svg.matches(" runs on CPU ").count(), overlapping);
        let all = (rec.spans.iter())
            .filter(|sp| matches!(sp.state, State::Run { .. }))
            .count();
        assert!(all > overlapping, "the run holds spans outside the window");
        for line in svg.lines().filter(|l| l.starts_with("<rect x=\"")) {
            let num = |key: &str| -> f64 {
                let at = line.find(key).unwrap() + key.len();
                line[at..].split('"').next().unwrap().parse().unwrap()
            };
            let (x, width) = (num("x=\""), num("width=\""));
            if x < 20.0 {
                continue; // the task lanes' colour swatches
            }
            assert!(x >= LEFT && x + width <= LEFT + WIDTH + 0.51, "{line}");
        }
    }
}
