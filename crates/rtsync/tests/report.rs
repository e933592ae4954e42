//! `rtsync report`: the page and its files as a user gets them, and the
//! page opened in headless Chromium (Debian's `chromium`; skipped with a
//! message where it is absent, CI installs it).

mod common;
use common::{rtsync, temp, text};
use std::path::{Path, PathBuf};

/// A fresh folder for one test's output.
fn out_dir(name: &str) -> common::Temp {
    common::out(&format!("report-{name}"))
}

/// `(tasks, cpus)` of a spec, read through the analysis the page shows.
fn shape(spec: &str) -> (usize, usize) {
    let v = analysis(spec);
    (
        v["result"]["tasks"].as_array().expect("tasks").len(),
        v["system"]["cpus"].as_u64().expect("cpus") as usize,
    )
}

/// The analysis of a spec, as `analyze --format json` writes it.
fn analysis(spec: &str) -> serde_json::Value {
    let o = rtsync(&["analyze", spec, "--format", "json"]);
    serde_json::from_slice(&o.stdout).expect("analysis JSON")
}

/// Writes the report of `spec` into a fresh folder and checks what any
/// reader of the files can: every file whole, one table row per task,
/// one chart lane per CPU and per task, nothing fetched from a network.
fn report(spec: &str, name: &str) -> common::Temp {
    let dir = out_dir(name);
    let o = rtsync(&[
        "report",
        spec,
        "--search",
        "20000",
        "--run-for",
        "300ms",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("report.html"), "{out}");
    measured_column(spec, &dir);
    let (tasks, cpus) = shape(spec);
    let html = std::fs::read_to_string(dir.join("report.html")).expect("the page");
    assert_eq!(html.matches("<tr class=\"task\">").count(), tasks);
    assert_eq!(html.matches("class=\"lane\"").count(), cpus + tasks);
    assert!(html.trim_end().ends_with("</html>"));
    // Which form of the bounds the numbers are (the default's here).
    assert!(
        html.contains("<dt>Blocking bounds</dt><dd>classic: the closed forms"),
        "the page does not say which bounds it shows"
    );
    // The chart's plan is cut down to its choices, and the page says how.
    assert!(
        html.contains("the plan makes no choice") || html.contains("choice(s) kept"),
        "the page does not say which choices its chart's schedule needs"
    );
    // Self-contained: no script, style or image from elsewhere (the SVG
    // namespace is a name, not a fetch).
    for needle in ["src=", "<link", "href=\"http", "url(http", "@import"] {
        assert!(!html.contains(needle), "the page refers to `{needle}`");
    }
    for f in ["analysis.json", "analysis.csv", "gantt.svg"] {
        assert!(html.contains(&format!("href=\"{f}\"")), "no link to {f}");
        assert!(dir.join(f).is_file(), "{f} not written");
    }
    let csv = std::fs::read_to_string(dir.join("analysis.csv")).unwrap();
    assert_eq!(csv.lines().count(), tasks + 1, "{csv}");
    // Every task's simulated worst is filled and never above its bound.
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let (bound, seen): (u64, u64) = (cells[10].parse().unwrap(), cells[11].parse().unwrap());
        assert!(seen > 0 && seen <= bound, "{line}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    dir
}

/// The measured column: filled from real threads where SCHED_FIFO is
/// permitted and the system fits this machine's CPUs; otherwise the page
/// says why, and the column stays empty.
fn measured_column(spec: &str, dir: &Path) {
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let csv = std::fs::read_to_string(dir.join("analysis.csv")).unwrap();
    let filled = csv
        .lines()
        .skip(1)
        .filter(|l| l.rsplit(',').next().is_some_and(|m| !m.is_empty()))
        .count();
    let (tasks, cpus) = shape(spec);
    let fits = cpus <= rtsync_allowed_cpus();
    // The runtime schedules with fixed priorities only.
    let fp = analysis(spec)["system"]["scheduler"] == "fp";
    if rtsync_rt::sys::probe_realtime().is_ok() && fits && fp {
        assert!(html.contains("The measured worst column"), "{spec}");
        assert_eq!(filled, tasks, "{spec}: every task measured\n{csv}");
    } else {
        assert!(html.contains("Not run on real threads"), "{spec}");
        assert_eq!(filled, 0, "{spec}\n{csv}");
    }
}

/// The CPUs this process may use.
fn rtsync_allowed_cpus() -> usize {
    rtsync_rt::sys::allowed_cpus().len()
}

#[test]
fn the_bundled_example_and_a_uniprocessor_one_give_whole_pages() {
    report("rtems-table1", "rtems");
    let pip = report("pip-chained", "pip");
    // The chart is ctrl's chained blocking, and the page tells its
    // choices in words, in the order they happen (logger locks log,
    // comms preempts it and locks bus, then ctrl comes; logger, released
    // at 0, the default, is named only where the plan moved it).
    let html = std::fs::read_to_string(pip.join("report.html")).unwrap();
    let text = (html.split("worst schedule it found for ctrl:").nth(1))
        .unwrap_or_else(|| panic!("the page shows another task's schedule"));
    let at = |who: &str| text.find(&format!("{who} released at"));
    let (comms, ctrl) = (at("comms"), at("ctrl"));
    assert!(comms.is_some() && comms < ctrl);
    assert!(at("logger").is_none_or(|l| Some(l) < comms));
}

/// Under EDF the page says where its bounds come from (Spuri's
/// response-time analysis and the demand test), not the fixed-priority
/// recurrence it once described for every system.
#[test]
fn an_edf_page_names_the_edf_analysis() {
    let dir = report("srp-edf-multiunit", "edf");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("Spuri") && html.contains("edf_rta.rs"));
    assert!(!html.contains("Joseph and Pandya"));
    let fp = std::fs::read_to_string(report("pip-chained", "fp-source").join("report.html"));
    let fp = fp.unwrap();
    assert!(fp.contains("Joseph and Pandya") && !fp.contains("Spuri"));
}

#[test]
fn bad_input_says_what_and_leaves_no_page() {
    // A folder that cannot be made: its parent is a file.
    let file = temp("not-a-folder", "x");
    let dir = file.join("sub");
    let o = rtsync(&["report", "--search", "0", "--out", dir.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot create") && err.contains("hint:"),
        "{err}"
    );
    // A spec that does not exist: no folder is made for it.
    let dir = out_dir("missing");
    let o = rtsync(&[
        "report",
        "/nonexistent/spec.toml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.join("report.html").exists());
}

/// Debian's Chromium, where installed (or the one `RTSYNC_CHROMIUM`
/// names).
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("RTSYNC_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `page` with `args`, in a profile of its own,
/// with the flags that keep it off this machine's closed network.
fn browse(bin: &Path, page: &Path, profile: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("start chromium")
}

/// The width and height in a PNG's header.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn the_page_runs_in_a_browser_without_errors() {
    let Some(bin) = chromium() else {
        eprintln!(
            "skipped: no Chromium (install Debian's `chromium`, or set RTSYNC_CHROMIUM) to open the report in a browser"
        );
        return;
    };
    let dir = report("rtems-table1", "browser");
    let page = dir.join("report.html");
    let (tasks, cpus) = shape("rtems-table1");
    // The DOM after the page's script ran.
    let o = browse(&bin, &page, &dir.join("profile-dom"), &["--dump-dom"]);
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page's script did not finish:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(dom.contains("data-errors=\"0\""), "the page met errors");
    assert_eq!(dom.matches("<tr class=\"task\">").count(), tasks);
    assert_eq!(dom.matches("class=\"lane\"").count(), cpus + tasks);
    // The zoom took hold of the chart.
    assert!(
        dom.contains("viewBox=\"0 0 "),
        "the chart was not made zoomable"
    );
    // A screenshot, kept beside the page for a person to look at: the
    // size asked for, and not blank (a white page compresses to a few KB).
    let shot = dir.join("screenshot.png");
    let o = browse(
        &bin,
        &page,
        &dir.join("profile-shot"),
        &[
            "--window-size=1400,2400",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let bytes = std::fs::read(&shot).unwrap_or_else(|e| {
        panic!(
            "no screenshot ({e}):\n{}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    assert_eq!(png_size(&bytes), (1400, 2400));
    assert!(
        bytes.len() > 50_000,
        "screenshot of {} bytes looks blank",
        bytes.len()
    );
    eprintln!("screenshot: {}", shot.display());
}
