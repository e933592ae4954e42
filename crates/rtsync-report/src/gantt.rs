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

use crate::svg::esc;
use rtsync_model::{System, Time};
use rtsync_sim::trace::{MarkKind, Recording, State};
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

/// The SVG document for `rec`, covering `[0, end]`.
pub fn render(sys: &System, rec: &Recording, end: Time) -> String {
    let end_ns = end.ns().max(1) as f64;
    let x = |t: Time| LEFT + WIDTH * (t.ns() as f64 / end_ns);
    let cpus = sys.platform.cpus;
    let n = sys.tasks.len();
    let task_top = TOP + cpus as f64 * LANE + 30.0;
    let height = task_top + n as f64 * LANE + 90.0;
    let colour = |t: usize| TASK_COLOURS[t % TASK_COLOURS.len()];
    let rcolour = |r: usize| RES_COLOURS[r % RES_COLOURS.len()];
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" font-family="sans-serif" font-size="11">"##,
        w = LEFT + WIDTH + 20.0
    );
    s.push_str(concat!(
        r##"<defs><pattern id="spin" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">"##,
        r##"<rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#e8a33d" stroke-width="3"/></pattern></defs>"##,
        "\n"
    ));
    let title = sys.name.clone().unwrap_or_else(|| "simulation".into());
    let proto = sys
        .protocol()
        .map_or("no protocol".into(), |p| p.to_string());
    let _ = writeln!(
        s,
        r##"<text x="{LEFT}" y="18" font-size="14" font-weight="bold">{} ({proto}, {}) — 0 .. {end}</text>"##,
        esc(&title),
        sys.platform.scheduler
    );
    // Time grid.
    let step = tick_step(end);
    let mut t = 0u64;
    while t as f64 <= end_ns {
        let xx = x(Time::from_ns(t));
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="#eee"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}</text>"##,
            task_top + n as f64 * LANE,
            task_top + n as f64 * LANE + 14.0,
            Time::from_ns(t)
        );
        t += step;
    }
    // Lane labels.
    for c in 0..cpus {
        let y = TOP + c as f64 * LANE;
        let _ = writeln!(
            s,
            r##"<text x="8" y="{:.1}" font-weight="bold">CPU {c}</text><line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#999"/>"##,
            y + LANE * 0.6,
            y + LANE - 2.0,
            LEFT + WIDTH,
            y + LANE - 2.0
        );
    }
    for (i, task) in sys.tasks.iter().enumerate() {
        let y = task_top + i as f64 * LANE;
        let _ = writeln!(
            s,
            r##"<rect x="8" y="{:.1}" width="10" height="10" fill="{}"/><text x="22" y="{:.1}">{} (p{}, cpu {})</text><line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#ccc"/>"##,
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
    // Spans.
    for sp in &rec.spans {
        let (x0, x1) = (x(sp.start), x(sp.end));
        let w = (x1 - x0).max(0.5);
        let ty = task_top + sp.task as f64 * LANE;
        let home = sys.tasks[sp.task].cpu.unwrap_or(0);
        match sp.state {
            State::Run { cpu, resource } => {
                let cy = TOP + cpu as f64 * LANE;
                let dash = if cpu != home {
                    r##" stroke="#000" stroke-dasharray="3,2""##
                } else {
                    ""
                };
                let _ = writeln!(
                    s,
                    r##"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="{}"{dash}><title>{} on CPU {cpu}, {} .. {}</title></rect>"##,
                    cy + 6.0,
                    LANE - 12.0,
                    colour(sp.task),
                    esc(&sys.tasks[sp.task].name),
                    sp.start,
                    sp.end
                );
                let _ = writeln!(
                    s,
                    r##"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="{}"/>"##,
                    ty + 8.0,
                    LANE - 16.0,
                    colour(sp.task)
                );
                if let Some(r) = resource {
                    for yy in [cy + LANE - 10.0, ty + LANE - 10.0] {
                        let _ = writeln!(
                            s,
                            r##"<rect x="{x0:.2}" y="{yy:.1}" width="{w:.2}" height="4" fill="{}"><title>holds {}</title></rect>"##,
                            rcolour(r),
                            esc(&sys.resources[r].name)
                        );
                    }
                    if w > 24.0 {
                        let _ = writeln!(
                            s,
                            r##"<text x="{:.1}" y="{:.1}" fill="#fff" font-size="9">{}</text>"##,
                            x0 + 2.0,
                            cy + 18.0,
                            esc(&sys.resources[r].name)
                        );
                    }
                }
            }
            State::Spin { cpu, resource } => {
                let cy = TOP + cpu as f64 * LANE;
                for yy in [cy + 6.0, ty + 8.0] {
                    let _ = writeln!(
                        s,
                        r##"<rect x="{x0:.2}" y="{yy:.1}" width="{w:.2}" height="{:.1}" fill="url(#spin)" stroke="{}"><title>{} spins for {}, {} .. {}</title></rect>"##,
                        LANE - 14.0,
                        colour(sp.task),
                        esc(&sys.tasks[sp.task].name),
                        esc(&sys.resources[resource].name),
                        sp.start,
                        sp.end
                    );
                }
            }
            State::Ready => {
                let _ = writeln!(
                    s,
                    r##"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="#ddd"><title>ready, not running</title></rect>"##,
                    ty + 13.0,
                    LANE - 26.0
                );
            }
            State::Blocked { resource } => {
                let _ = writeln!(
                    s,
                    r##"<rect x="{x0:.2}" y="{:.1}" width="{w:.2}" height="{:.1}" fill="#f4b6b6" stroke="#c33"><title>blocked on {}, {} .. {}</title></rect>"##,
                    ty + 11.0,
                    LANE - 22.0,
                    esc(&sys.resources[resource].name),
                    sp.start,
                    sp.end
                );
                if w > 40.0 {
                    let _ = writeln!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" fill="#a00" font-size="9">waits {}</text>"##,
                        x0 + 2.0,
                        ty + LANE - 13.0,
                        esc(&sys.resources[resource].name)
                    );
                }
            }
            State::Suspended => {
                let _ = writeln!(
                    s,
                    r##"<line x1="{x0:.2}" y1="{:.1}" x2="{x1:.2}" y2="{:.1}" stroke="#777" stroke-dasharray="2,2"><title>self-suspended</title></line>"##,
                    ty + LANE / 2.0,
                    ty + LANE / 2.0
                );
            }
        }
    }
    // Marks.
    for m in &rec.marks {
        if m.t > end {
            continue;
        }
        let xx = x(m.t);
        let ty = task_top + m.task as f64 * LANE;
        match &m.kind {
            MarkKind::Release => {
                let _ = writeln!(
                    s,
                    r##"<path d="M{xx:.1},{:.1} l-3,6 h6 z M{xx:.1},{:.1} v-10" stroke="#000" fill="#000"><title>release</title></path>"##,
                    ty + 2.0,
                    ty + 12.0
                );
            }
            MarkKind::Deadline => {
                let _ = writeln!(
                    s,
                    r##"<path d="M{xx:.1},{:.1} l-3,-6 h6 z" fill="#c00"><title>deadline</title></path>"##,
                    ty + LANE - 2.0
                );
            }
            MarkKind::Complete => {
                let _ = writeln!(
                    s,
                    r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#000" stroke-width="2"><title>job done</title></line>"##,
                    ty + 6.0,
                    ty + LANE - 6.0
                );
            }
            MarkKind::Miss => {
                let _ = writeln!(
                    s,
                    r##"<text x="{xx:.1}" y="{:.1}" fill="#c00" font-weight="bold" text-anchor="middle">✕ miss</text>"##,
                    ty + 10.0
                );
            }
            MarkKind::Priority(label) => {
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" fill="#333" font-size="9">→{}</text>"##,
                    xx + 1.0,
                    ty + 7.0,
                    esc(label)
                );
            }
        }
    }
    // Legend.
    let ly = task_top + n as f64 * LANE + 34.0;
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
            s,
            r##"<rect x="{lx:.1}" y="{ly:.1}" width="14" height="10" fill="{fill}" stroke="#555"/><text x="{:.1}" y="{:.1}">{label}</text>"##,
            lx + 18.0,
            ly + 9.0
        );
        lx += 30.0 + label.len() as f64 * 6.0;
    }
    let ly2 = ly + 20.0;
    let mut lx = LEFT;
    for (r, res) in sys.resources.iter().enumerate() {
        let _ = writeln!(
            s,
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
        s,
        r##"<text x="{LEFT}" y="{:.1}" fill="#555">▲ release   ▼ deadline   | job done   →label: effective priority from then on</text>"##,
        ly2 + 26.0
    );
    s.push_str("</svg>\n");
    s
}
