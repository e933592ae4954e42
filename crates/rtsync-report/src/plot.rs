//! Line charts in SVG: the schedulability curves of a sweep, one line per
//! protocol, the share of schedulable systems (0 to 1) against total
//! utilization.

use crate::svg::esc;
use rtsync_analysis::sweep::{Cell, Curve};
use std::fmt::Write;

const COLOURS: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#17becf", "#8c564b",
];
/// Dash patterns, so that lines stay apart in grey print.
const DASHES: [&str; 4] = ["", "6 3", "2 3", "8 3 2 3"];

const LEFT: f64 = 70.0;
const TOP: f64 = 50.0;
const W: f64 = 640.0;
const H: f64 = 380.0;

/// About eight ticks of 1, 2 or 5 times a power of ten over `span`.
fn tick(span: f64) -> f64 {
    let raw = (span / 8.0).max(f64::MIN_POSITIVE);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&t| t >= raw)
        .unwrap_or(10.0 * p)
}

/// The chart of `cells` (as [`rtsync_analysis::sweep::Sweep::cells`]
/// returns them) for `protocols`, titled `title`.
pub fn schedulability(cells: &[Cell], protocols: &[Curve], title: &str) -> String {
    let lo = cells
        .iter()
        .map(|c| c.utilization)
        .fold(f64::INFINITY, f64::min);
    let hi = cells
        .iter()
        .map(|c| c.utilization)
        .fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        let u = if lo.is_finite() { lo } else { 0.0 };
        (u - 0.5, u + 0.5)
    };
    let x = |u: f64| LEFT + W * (u - lo) / (hi - lo);
    let y = |r: f64| TOP + H * (1.0 - r);
    let legend_h = 22.0 * protocols.len() as f64;
    let height = (TOP + H + 70.0).max(TOP + legend_h + 20.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" font-family="sans-serif" font-size="12">"#,
        LEFT + W + 170.0
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="28" font-size="15" font-weight="bold">{}</text>"#,
        esc(title)
    );
    // Grid and axes.
    for k in 0..=10 {
        let r = k as f64 / 10.0;
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"#e4e4e4\"/>\n<text x=\"{2}\" y=\"{3:.1}\" text-anchor=\"end\">{r:.1}</text>",
            y(r),
            LEFT + W,
            LEFT - 8.0,
            y(r) + 4.0
        );
    }
    let step = tick(hi - lo);
    let mut u = (lo / step).ceil() * step;
    while u <= hi + step * 1e-9 {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{TOP}\" x2=\"{0:.1}\" y2=\"{1}\" stroke=\"#e4e4e4\"/>\n<text x=\"{0:.1}\" y=\"{2}\" text-anchor=\"middle\">{3}</text>",
            x(u),
            TOP + H,
            TOP + H + 18.0,
            trim(u)
        );
        u += step;
    }
    let _ = writeln!(
        s,
        r#"<rect x="{LEFT}" y="{TOP}" width="{W}" height="{H}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">total utilization</text>"#,
        LEFT + W / 2.0,
        TOP + H + 42.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(22 {}) rotate(-90)" text-anchor="middle">share of systems found schedulable</text>"#,
        TOP + H / 2.0
    );
    // One line per protocol, with a marker per point.
    for (j, p) in protocols.iter().enumerate() {
        let colour = COLOURS[j % COLOURS.len()];
        let dash = DASHES[j % DASHES.len()];
        let mut pts: Vec<(f64, f64)> = cells
            .iter()
            .filter(|c| c.curve == *p)
            .map(|c| (x(c.utilization), y(c.ratio())))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let path: Vec<String> = pts.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"><title>{p}</title></polyline>"#,
            path.join(" ")
        );
        for (a, b) in &pts {
            let _ = writeln!(
                s,
                r#"<circle cx="{a:.1}" cy="{b:.1}" r="3" fill="{colour}"/>"#
            );
        }
        let ly = TOP + 10.0 + 22.0 * j as f64;
        let lx = LEFT + W + 20.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{}</text>"#,
            lx + 30.0,
            lx + 38.0,
            ly + 4.0,
            esc(&p.to_string())
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Bins of the tightness histogram: 20 of width 0.05 over `[0, 1]`, the
/// last one closed (a bound reached exactly falls in it), and one for
/// everything above 1 (violations).
const BINS: usize = 20;

fn bin(v: f64) -> usize {
    if v > 1.0 {
        BINS
    } else {
        ((v * BINS as f64) as usize).min(BINS - 1)
    }
}

/// Small multiples, one histogram per series (a protocol and scheduler):
/// how many tasks reached which share of their bound. Bars above 1 (a
/// simulated response past its bound) are drawn red.
pub fn histogram(series: &[(String, Vec<f64>)], title: &str) -> String {
    const PW: f64 = 220.0;
    const PH: f64 = 120.0;
    const GAP_X: f64 = 50.0;
    const GAP_Y: f64 = 70.0;
    let cols = series.len().clamp(1, 4);
    let rows = series.len().div_ceil(cols).max(1);
    let width = LEFT + cols as f64 * (PW + GAP_X);
    let height = TOP + 40.0 + rows as f64 * (PH + GAP_Y) + 30.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="20" y="28" font-size="15" font-weight="bold">{}</text>"#,
        esc(title)
    );
    let _ = writeln!(
        s,
        r#"<text x="20" y="46">bars: tasks per bin of width 0.05 (x: worst simulated response / analytic bound; 1 = bound reached); red: above the bound</text>"#
    );
    let bw = PW / (BINS + 2) as f64;
    for (k, (name, values)) in series.iter().enumerate() {
        let (c, r) = (k % cols, k / cols);
        let x0 = LEFT + c as f64 * (PW + GAP_X);
        let y0 = TOP + 40.0 + r as f64 * (PH + GAP_Y);
        let mut counts = [0u64; BINS + 1];
        for &v in values {
            counts[bin(v)] += 1;
        }
        let top = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
        let worst = values.iter().copied().fold(f64::NAN, f64::max);
        let _ = writeln!(
            s,
            r#"<text x="{x0}" y="{:.1}" font-weight="bold">{} <tspan font-weight="normal">({} tasks{})</tspan></text>"#,
            y0 - 8.0,
            esc(name),
            values.len(),
            if worst.is_nan() {
                String::new()
            } else {
                format!(", max {worst:.3}")
            }
        );
        let _ = writeln!(
            s,
            "<line x1=\"{x0}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"black\"/>",
            y0 + PH,
            x0 + PW
        );
        for (b, &n) in counts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let h = PH * n as f64 / top;
            let x = x0 + bw * (b + usize::from(b == BINS)) as f64;
            let (fill, label) = if b == BINS {
                ("#d62728", "above 1 (violation)".to_string())
            } else {
                (
                    "#4e79a7",
                    format!(
                        "{:.2} to {:.2}",
                        b as f64 / BINS as f64,
                        (b + 1) as f64 / BINS as f64
                    ),
                )
            };
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{fill}"><title>{label}: {n} task(s)</title></rect>"#,
                y0 + PH - h,
                bw - 1.0
            );
        }
        for (v, lab) in [(0.0, "0"), (0.5, "0.5"), (1.0, "1")] {
            let x = x0 + bw * BINS as f64 * v;
            let _ = writeln!(
                s,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{lab}</text>"#,
                y0 + PH + 14.0
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            x0 - 4.0,
            y0 + 4.0,
            top as u64
        );
    }
    s.push_str("</svg>\n");
    s
}

/// A utilization without trailing zeros.
fn trim(u: f64) -> String {
    let t = format!("{u:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    use rtsync_model::Protocol;

    fn cell(u: f64, p: Protocol, ok: u64) -> Cell {
        Cell {
            utilization: u,
            curve: p.into(),
            sets: 10,
            schedulable: ok,
        }
    }

    /// Each protocol's line passes through its points: ratio 1 at the
    /// top of the plot, ratio 0 at the bottom, the smallest utilization at
    /// the left edge and the largest at the right.
    #[test]
    fn lines_go_through_the_points() {
        let cells = vec![
            cell(1.0, Protocol::Mpcp, 10),
            cell(1.0, Protocol::Dpcp, 10),
            cell(3.0, Protocol::Mpcp, 0),
            cell(3.0, Protocol::Dpcp, 5),
        ];
        let svg = schedulability(
            &cells,
            &[Protocol::Mpcp.into(), Protocol::Dpcp.into()],
            "a <test>",
        );
        let (l, r, t, b) = (LEFT, LEFT + W, TOP, TOP + H);
        assert!(
            svg.contains(&format!(r#"points="{l:.1},{t:.1} {r:.1},{b:.1}""#)),
            "{svg}"
        );
        let mid = TOP + H / 2.0;
        assert!(svg.contains(&format!(r#"points="{l:.1},{t:.1} {r:.1},{mid:.1}""#)));
        assert!(svg.contains(">mpcp</text>") && svg.contains(">dpcp</text>"));
        assert!(svg.contains("a &lt;test&gt;"), "the title is escaped");
        assert_eq!(svg.matches("<circle").count(), 4);
    }

    /// Each value lands in its bin: a bound reached exactly in the last
    /// bin below 1, anything above 1 in the red violation bin, drawn only
    /// where there is one.
    #[test]
    fn histogram_bins_and_marks_violations() {
        assert_eq!(bin(0.0), 0);
        assert_eq!(bin(0.049), 0);
        assert_eq!(bin(0.05), 1);
        assert_eq!(bin(1.0), BINS - 1);
        assert_eq!(bin(1.0001), BINS);
        let svg = histogram(
            &[
                ("mpcp (fp)".into(), vec![0.2, 0.21, 1.0]),
                ("pip (fp)".into(), vec![1.2]),
            ],
            "t",
        );
        assert_eq!(svg.matches("<rect x=").count(), 3, "{svg}");
        assert!(svg.contains("0.20 to 0.25: 2 task(s)"));
        assert!(svg.contains("0.95 to 1.00: 1 task(s)"));
        assert_eq!(svg.matches("#d62728").count(), 1);
        assert!(svg.contains("above 1 (violation): 1 task(s)"));
        assert!(svg.contains("(3 tasks, max 1.000)"));
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick(4.0), 0.5);
        assert_eq!(tick(0.9), 0.2);
        assert_eq!(tick(30.0), 5.0);
        assert_eq!(trim(2.5), "2.5");
        assert_eq!(trim(3.0), "3");
    }

    /// One point: the axis still has a width (no division by zero).
    #[test]
    fn a_single_point_is_drawn() {
        let svg = schedulability(
            &[cell(2.0, Protocol::Mpcp, 7)],
            &[Protocol::Mpcp.into()],
            "one",
        );
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert_eq!(svg.matches("<circle").count(), 1);
    }
}

/// One line of [`lines`]: its name and its points `(x, y)`.
pub struct Line {
    /// The legend's name.
    pub name: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

/// The y axis's grid lines and labels, `0` to `top` by `step`.
fn y_grid(s: &mut String, top: f64, step: f64, y: &dyn Fn(f64) -> f64) {
    let mut v = 0.0;
    while v <= top + step / 2.0 {
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#ddd\"/><text x=\"{2}\" y=\"{3:.1}\" text-anchor=\"end\">{4}</text>",
            y(v),
            LEFT + W,
            LEFT - 6.0,
            y(v) + 4.0,
            trim(v)
        );
        v += step;
    }
}

/// A chart's opening: the document of `width` by `height`, white, with
/// `title` above the plot.
fn open(width: f64, height: f64, title: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="28" font-size="15" font-weight="bold">{}</text>"#,
        esc(title)
    );
    s
}

/// A grouped bar chart: one group per label (a protocol), one bar per
/// `(series, value)` in it, coloured by series, y from 0, the values
/// written above the bars.
pub fn bars(groups: &[(String, Vec<(String, f64)>)], title: &str, y_label: &str) -> String {
    let ymax = groups
        .iter()
        .flat_map(|g| g.1.iter().map(|b| b.1))
        .fold(0.0f64, f64::max);
    let step = tick(ymax.max(f64::MIN_POSITIVE) * 1.1);
    let top = (ymax * 1.1 / step).ceil().max(1.0) * step;
    let y = |v: f64| TOP + H * (1.0 - v / top);
    let per = groups.iter().map(|g| g.1.len()).max().unwrap_or(1).max(1);
    let slot = W / groups.len().max(1) as f64;
    let bar = (slot * 0.8) / per as f64;
    let mut s = open(LEFT + W + 120.0, TOP + H + 50.0, title);
    y_grid(&mut s, top, step, &y);
    let _ = writeln!(
        s,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        TOP + H / 2.0,
        esc(y_label)
    );
    let mut names: Vec<&str> = Vec::new();
    for (k, (label, values)) in groups.iter().enumerate() {
        let x0 = LEFT + slot * k as f64 + slot * 0.1;
        for (j, (series, value)) in values.iter().enumerate() {
            let col = match names.iter().position(|n| n == series) {
                Some(i) => i,
                None => {
                    names.push(series);
                    names.len() - 1
                }
            };
            let x = x0 + bar * j as f64;
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}, {}: {}</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="9">{}</text>"#,
                y(*value),
                bar * 0.9,
                (TOP + H - y(*value)).max(0.0),
                COLOURS[col % COLOURS.len()],
                esc(label),
                esc(series),
                trim(*value),
                x + bar * 0.45,
                y(*value) - 3.0,
                trim(*value)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + slot * (k as f64 + 0.5),
            TOP + H + 16.0,
            esc(label)
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{LEFT}" y="{TOP}" width="{W}" height="{H}" fill="none" stroke="black"/>"#
    );
    for (i, n) in names.iter().enumerate() {
        let ly = TOP + 10.0 + 18.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            LEFT + W + 10.0,
            ly,
            COLOURS[i % COLOURS.len()],
            LEFT + W + 28.0,
            ly + 10.0,
            esc(n)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// A line chart of several series against a shared x axis, y from 0,
/// with axis labels and an optional horizontal target line (drawn dashed
/// red, labelled).
pub fn lines(
    series: &[Line],
    title: &str,
    x_label: &str,
    y_label: &str,
    target: Option<(f64, &str)>,
) -> String {
    let xs = series.iter().flat_map(|l| l.points.iter().map(|p| p.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    let ymax = series
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .chain(target.map(|t| t.0))
        .fold(0.0f64, f64::max);
    let step = tick(ymax.max(f64::MIN_POSITIVE) * 1.1);
    // Shares (at most 1) end at 1; anything else gets a tenth of headroom.
    let top = if ymax <= 1.0 && ymax > 0.5 {
        1.0
    } else {
        (ymax * 1.1 / step).ceil().max(1.0) * step
    };
    let x = |v: f64| LEFT + W * (v - lo) / (hi - lo);
    let y = |v: f64| TOP + H * (1.0 - v / top);
    let mut s = open(LEFT + W + 190.0, TOP + H + 60.0, title);
    let _ = writeln!(
        s,
        r#"<rect x="{LEFT}" y="{TOP}" width="{W}" height="{H}" fill="none" stroke="black"/>"#
    );
    y_grid(&mut s, top, step, &y);
    let xstep = tick(hi - lo);
    let mut v = (lo / xstep).ceil() * xstep;
    while v <= hi + xstep / 1e6 {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            x(v),
            TOP + H + 16.0,
            trim(v)
        );
        v += xstep;
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + W / 2.0,
        TOP + H + 40.0,
        esc(x_label)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        TOP + H / 2.0,
        esc(y_label)
    );
    if let Some((t, label)) = target {
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#d62728\" stroke-dasharray=\"6 3\"/><text x=\"{2}\" y=\"{3:.1}\" fill=\"#d62728\">{4}</text>",
            y(t),
            LEFT + W,
            LEFT + W + 8.0,
            y(t) + 4.0,
            esc(label)
        );
    }
    for (k, l) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let pts: Vec<String> = (l.points.iter())
            .map(|&(a, b)| format!("{:.1},{:.1}", x(a), y(b)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{}"/>"#,
            pts.join(" "),
            DASHES[k % DASHES.len()]
        );
        for &(a, b) in &l.points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"><title>{}: {} at {}</title></circle>"#,
                x(a),
                y(b),
                esc(&l.name),
                trim(b),
                trim(a)
            );
        }
        let ly = TOP + 20.0 + 22.0 * (k as f64) + if target.is_some() { 24.0 } else { 0.0 };
        let _ = writeln!(
            s,
            r#"<line x1="{0}" y1="{ly:.1}" x2="{1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"/><text x="{2}" y="{3:.1}">{4}</text>"#,
            LEFT + W + 8.0,
            LEFT + W + 30.0,
            LEFT + W + 36.0,
            ly + 4.0,
            esc(&l.name)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod lines_tests {
    use super::*;

    #[test]
    fn a_line_chart_places_points_on_its_axes() {
        let svg = lines(
            &[Line {
                name: "push+pop".into(),
                points: vec![(1.0, 10.0), (100.0, 40.0)],
            }],
            "t",
            "waiters",
            "ns",
            Some((100.0, "target 100 ns")),
        );
        // The y axis reaches past the target; the first point sits on the
        // left edge, the last on the right.
        assert!(svg.contains(&format!("cx=\"{:.1}\"", LEFT)));
        assert!(svg.contains(&format!("cx=\"{:.1}\"", LEFT + W)));
        assert!(svg.contains("target 100 ns"));
        assert!(svg.contains("push+pop"));
        assert!(svg.ends_with("</svg>\n"));
    }
}

/// The size of a [`lines`] chart.
pub const LINES_SIZE: (f64, f64) = (LEFT + W + 190.0, TOP + H + 60.0);

/// Several charts of [`LINES_SIZE`] in one SVG, `cols` per row.
pub fn grid(charts: &[String], cols: usize) -> String {
    let cols = cols.max(1);
    let rows = charts.len().div_ceil(cols).max(1);
    let (w, h) = LINES_SIZE;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n",
        w * cols.min(charts.len().max(1)) as f64,
        h * rows as f64
    );
    for (k, c) in charts.iter().enumerate() {
        let (x, y) = (w * (k % cols) as f64, h * (k / cols) as f64);
        s.push_str(&c.replacen("<svg ", &format!("<svg x=\"{x}\" y=\"{y}\" "), 1));
    }
    s.push_str("</svg>\n");
    s
}
