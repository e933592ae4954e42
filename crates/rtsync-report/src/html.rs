//! One self-contained HTML page for a system: what it is, what the
//! analysis bounds and where each bound comes from, what the simulator saw
//! in the worst schedule it found, and the Gantt chart of that schedule,
//! zoomable and scrollable, each segment naming its task, job, resource
//! and priority on hover.
//!
//! Self-contained: the styles, the script and the charts are inline, so
//! the page opens from a file with no network, and can be mailed or
//! attached to a bug report as one file. The CSV and JSON beside it are
//! linked by relative names.
//!
//! The page's script records any error it meets into
//! `<body data-errors>` and sets `<body data-ready="1">` when it has run:
//! what a headless browser checks (`crates/rtsync/tests/report.rs`).

use crate::svg::esc;
use rtsync_analysis::blocking::Source;
use rtsync_analysis::{Analysis, Response, Verdict};
use rtsync_model::Time;
use std::fmt::Write;

/// What the simulator contributes to the page.
pub struct Simulated {
    /// Per task, the worst response seen (none without a finished job).
    pub worst: Vec<Option<Time>>,
    /// How the schedule was found, in a sentence.
    pub how: String,
    /// The Gantt chart (SVG) of the worst schedule found.
    pub gantt: String,
}

/// What real threads contribute: the worst response measured per task,
/// or why nothing was measured.
pub enum Measured {
    /// Per task, the worst response measured on SCHED_FIFO threads (none
    /// without a finished job), and how it was run.
    Ran {
        /// Per task.
        worst: Vec<Option<Time>>,
        /// How, in a sentence.
        how: String,
    },
    /// Not run, and why (in a sentence that says what to do).
    Not(String),
}

/// Everything the page shows.
pub struct Page<'a> {
    /// What the system was loaded from.
    pub label: &'a str,
    /// The analysis.
    pub analysis: &'a Analysis,
    /// The form of its blocking bounds.
    pub form: rtsync_analysis::BoundForm,
    /// Where the bounds come from: the protocols in use (and the
    /// components' analysis, where the system has components), each
    /// with its name.
    pub sources: Vec<(String, Source)>,
    /// The simulation, when one was run.
    pub simulated: Option<Simulated>,
    /// The run on real threads, or why there was none.
    pub measured: Measured,
    /// `(relative file name, what it holds)` written beside the page.
    pub files: Vec<(String, String)>,
}

const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1300px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
.verdict { display: inline-block; padding: 0.15em 0.6em; border-radius: 0.3em; font-weight: bold; }
.ok { background: #d9f2d9; color: #185c18; } .miss { background: #f8d7d7; color: #8a1c1c; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th { background: #f5f5f5; position: sticky; top: 0; }
td.name, th.name { text-align: left; }
tr.task:hover { background: #fafae0; }
.note { color: #555; font-size: 0.9em; }
#gantt { overflow: auto; border: 1px solid #ccc; max-height: 75vh; background: #fff; }
.tools button { margin-right: 0.3em; }
code { background: #f3f3f3; padding: 0 0.2em; }
"#;

/// The page's script: error capture first, then the Gantt zoom.
const SCRIPT_HEAD: &str = r#"
var rtsyncErrors = [];
window.addEventListener('error', function (e) { rtsyncErrors.push(String(e.message)); });
"#;

const SCRIPT_TAIL: &str = r#"
(function () {
  try {
    var box = document.getElementById('gantt');
    var svg = box ? box.querySelector('svg') : null;
    if (svg) {
      var w = parseFloat(svg.getAttribute('width')), h = parseFloat(svg.getAttribute('height'));
      svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
      var zoom = 1;
      var apply = function () {
        svg.setAttribute('width', String(w * zoom));
        svg.setAttribute('height', String(h * Math.min(zoom, 1)));
        svg.setAttribute('preserveAspectRatio', 'none');
        document.getElementById('zoom-level').textContent = Math.round(zoom * 100) + '%';
      };
      document.getElementById('zoom-in').addEventListener('click', function () { zoom = Math.min(zoom * 1.5, 64); apply(); });
      document.getElementById('zoom-out').addEventListener('click', function () { zoom = Math.max(zoom / 1.5, 0.25); apply(); });
      document.getElementById('zoom-fit').addEventListener('click', function () { zoom = Math.max(box.clientWidth / w, 0.25); apply(); });
      box.addEventListener('wheel', function (e) {
        if (!e.ctrlKey) { return; }
        e.preventDefault();
        var before = zoom;
        zoom = e.deltaY < 0 ? Math.min(zoom * 1.2, 64) : Math.max(zoom / 1.2, 0.25);
        var x = e.clientX - box.getBoundingClientRect().left + box.scrollLeft;
        apply();
        box.scrollLeft = x * zoom / before - (e.clientX - box.getBoundingClientRect().left);
      }, { passive: false });
      apply();
    }
  } catch (e) {
    rtsyncErrors.push(String(e));
  }
  document.body.setAttribute('data-errors', String(rtsyncErrors.length));
  document.body.setAttribute('data-ready', '1');
})();
"#;

/// The tightness of a task: its worst simulated response over its bound
/// (none where either is missing or the bound is zero).
fn tightness(worst: Option<Time>, bound: &Response) -> Option<f64> {
    match (worst, bound) {
        (Some(w), Response::Bounded(b)) if !b.is_zero() => Some(w.ns() as f64 / b.ns() as f64),
        _ => None,
    }
}

/// A time as the analysis table shows it (four significant digits).
fn t(x: Time) -> String {
    rtsync_analysis::result::shown(x)
}

/// The page.
pub fn page(p: &Page) -> String {
    let a = p.analysis;
    let r = &a.result;
    let sys = &a.system;
    let mut o = String::new();
    let title = sys.name.clone().unwrap_or_else(|| p.label.to_string());
    let ok = r.verdict == Verdict::Schedulable;
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>rtsync report: {}</title><style>{STYLE}</style><script>{SCRIPT_HEAD}</script></head><body>\n",
        esc(&title)
    );
    let _ = writeln!(
        o,
        "<h1>{}</h1><p>{} · {} CPU(s), {} scheduling, {} · <span class=\"verdict {}\">{}</span></p>",
        esc(&title),
        esc(p.label),
        sys.platform.cpus,
        r.scheduler,
        esc(&sys.protocol_phrase()),
        if ok { "ok" } else { "miss" },
        esc(&r.verdict.to_string())
    );

    o.push_str("<h2>Analysis</h2>\n");
    o.push_str(
        "<p class=\"note\">Per task: the blocking terms the protocol's bound charges, the \
         response-time bound they give, and, beside it, the worst response the simulator saw \
         (its ratio to the bound is the tightness: 1 means the bound was reached) and the worst \
         measured on real threads.</p>\n",
    );
    o.push_str(
        "<table id=\"analysis\"><thead><tr><th class=\"name\">task</th><th>CPU</th><th>priority</th>\
         <th>period</th><th>deadline</th><th>WCET</th><th>local</th><th>remote</th><th>spin</th>\
         <th>overhead</th><th>response bound</th><th>simulated worst</th><th>tightness</th>\
         <th>measured worst</th><th>slack</th><th>verdict</th></tr></thead><tbody>\n",
    );
    for (i, x) in r.tasks.iter().enumerate() {
        let worst = p
            .simulated
            .as_ref()
            .and_then(|s| s.worst.get(i).copied().flatten());
        let tight = tightness(worst, &x.response).map_or("-".into(), |v| format!("{v:.3}"));
        let measured = match &p.measured {
            Measured::Ran { worst, .. } => worst.get(i).copied().flatten().map_or("-".into(), t),
            Measured::Not(_) => "-".into(),
        };
        let _ = writeln!(
            o,
            "<tr class=\"task\"><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&x.name),
            x.cpu.map_or("-".into(), |c| c.to_string()),
            x.priority,
            t(x.period),
            t(x.deadline),
            t(x.wcet),
            x.blocking.local,
            x.blocking.remote,
            x.blocking.spin,
            t(x.blocking.overhead),
            x.response,
            worst.map_or("-".into(), t),
            tight,
            measured,
            x.slack.map_or("-".into(), t),
            if x.verdict == Verdict::Schedulable {
                "ok"
            } else {
                "MISS"
            }
        );
    }
    o.push_str("</tbody></table>\n");
    let _ = writeln!(
        o,
        "<p class=\"note\" id=\"measured\">{}</p>",
        esc(match &p.measured {
            Measured::Ran { how, .. } => how,
            Measured::Not(why) => why,
        })
    );
    o.push_str("<ul class=\"note\">");
    for t in &r.tests {
        let _ = write!(
            o,
            "<li>{}: {}{}</li>",
            esc(t.test.name()),
            esc(&t.verdict.to_string()),
            t.detail
                .as_deref()
                .map_or(String::new(), |d| format!(" ({})", esc(d)))
        );
    }
    let _ = writeln!(
        o,
        "</ul><p class=\"note\">verdict {}{}</p>",
        esc(&r.verdict.to_string()),
        r.decided_by
            .map_or(String::new(), |t| format!(", decided by {}", esc(t.name())))
    );

    o.push_str("<h2>Where the bounds come from</h2>\n<dl>\n");
    o.push_str(if r.scheduler == rtsync_model::Scheduler::Edf {
        "<dt>Response time</dt><dd>under EDF, Spuri's bound (1996): the longest busy period \
         <code>W(a)</code> of the jobs due by <code>d = a + D</code>, each released in it, plus \
         the blocking <code>B(d)</code> by jobs due after it, less the job's arrival \
         <code>a</code>, over the points where <code>W</code> steps \
         (<code>crates/rtsync-analysis/src/edf_rta.rs</code>); at most the deadline, which the \
         processor-demand criterion with blocking (Baruah, Rosier, Howell 1990; Baruah 2006) \
         or Baker's density test (1991) guarantees; self-suspension counted as execution, and \
         blocking charged again at each resumption in the window \
         (<code>crates/rtsync-analysis/src/edf.rs</code>).</dd>\n"
    } else {
        "<dt>Response time</dt><dd>the least fixed point of <code>R = J + C + B + Σ<sub>h above, \
         same CPU</sub> ⌈(R + J<sub>h</sub>) / T<sub>h</sub>⌉ C<sub>h</sub></code> \
         (Joseph and Pandya 1986; Audsley et al. 1993 with jitter), <code>B</code> the blocking \
         terms above; a job that suspends is analysed with its suspension as jitter of the tasks \
         below it (<code>crates/rtsync-analysis/src/fp.rs</code>).</dd>\n"
    });
    let _ = writeln!(
        o,
        "<dt>Blocking bounds</dt><dd>{}: {}</dd>",
        p.form,
        esc(p.form.describe())
    );
    for (proto, s) in &p.sources {
        let _ = writeln!(
            o,
            "<dt>{}</dt><dd>{}: {} (<code>crates/rtsync-analysis/src/{}</code>)</dd>",
            esc(proto),
            esc(s.paper),
            esc(s.charges),
            esc(s.module)
        );
    }
    o.push_str("</dl>\n");

    if let Some(s) = &p.simulated {
        o.push_str("<h2>Simulation</h2>\n");
        let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(&s.how));
        o.push_str(&tightness_bars(p));
        o.push_str(
            "<h2>Gantt chart</h2>\n<p class=\"tools\"><button id=\"zoom-out\">−</button>\
             <button id=\"zoom-in\">+</button><button id=\"zoom-fit\">fit</button> \
             <span id=\"zoom-level\">100%</span> <span class=\"note\">(ctrl + wheel zooms \
             where the pointer is; hover a segment for its task, job, resource and \
             priority)</span></p>\n<div id=\"gantt\">",
        );
        // The chart's own document header is not valid inside HTML.
        o.push_str(s.gantt.trim_start_matches("<?xml version=\"1.0\"?>"));
        o.push_str("</div>\n");
    }

    if !p.files.is_empty() {
        o.push_str("<h2>Files</h2>\n<ul>");
        for (name, what) in &p.files {
            let _ = write!(
                o,
                "<li><a href=\"{0}\">{0}</a>: {1}</li>",
                esc(name),
                esc(what)
            );
        }
        o.push_str("</ul>\n");
    }
    let _ = writeln!(
        o,
        "<p class=\"note\">Written by rtsync {}.</p><script>{SCRIPT_TAIL}</script></body></html>",
        env!("CARGO_PKG_VERSION")
    );
    o
}

/// One bar per task: the worst simulated response over its bound.
fn tightness_bars(p: &Page) -> String {
    let r = &p.analysis.result;
    let Some(s) = &p.simulated else {
        return String::new();
    };
    let (left, width, row) = (120.0, 600.0, 20.0);
    let height = 30.0 + row * r.tasks.len() as f64;
    let mut o = String::new();
    let _ = write!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"tightness\" width=\"{}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"11\">",
        left + width + 80.0
    );
    for (k, label) in [(0.0, "0"), (0.5, "0.5"), (1.0, "1 (bound)")] {
        let x = left + width * k;
        let _ = write!(
            o,
            "<line x1=\"{x}\" y1=\"4\" x2=\"{x}\" y2=\"{}\" stroke=\"{}\"/>\
             <text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555\">{label}</text>",
            height - 16.0,
            if k == 1.0 { "#c00" } else { "#ddd" },
            height - 4.0
        );
    }
    for (i, x) in r.tasks.iter().enumerate() {
        let y = 6.0 + row * i as f64;
        let ratio = tightness(s.worst.get(i).copied().flatten(), &x.response);
        let _ = write!(
            o,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + 11.0,
            esc(&x.name)
        );
        if let Some(v) = ratio {
            let _ = write!(
                o,
                "<rect x=\"{left}\" y=\"{y}\" width=\"{:.1}\" height=\"{}\" fill=\"{}\">\
                 <title>{}: worst simulated {:.3} of the bound</title></rect>\
                 <text x=\"{:.1}\" y=\"{}\" fill=\"#333\">{v:.3}</text>",
                width * v.min(1.2),
                row - 6.0,
                if v > 1.0 { "#c33" } else { "#4e79a7" },
                esc(&x.name),
                v,
                left + width * v.min(1.2) + 4.0,
                y + 11.0
            );
        }
    }
    o.push_str("</svg>\n");
    o
}
