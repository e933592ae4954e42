//! `rtsync reproduce`: the papers' tables and figures, made on this
//! machine. Each target runs the experiment its paper describes and writes
//! a CSV, SVG figures shaped like the paper's, a note that sets the
//! published result beside the measured one and says what differs and
//! why, and an HTML page; `index.html` links the targets run.
//!
//! A target's outputs are cached by a hash of its inputs (the target, the
//! mode, the overhead profile's text, rtsync's version and build): a rerun with the
//! same inputs says so and redoes nothing (`--force` redoes it). Files
//! are written whole or not at all, the inputs' hash last, so an
//! interrupted run is redone rather than taken as complete.

mod fig2;
mod fig34;
mod fig5;
mod table1;
mod table2;
mod tables002;

pub use tables002::peer;

use crate::Error;
use std::path::{Path, PathBuf};

/// Whether a target can run yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// It runs.
    Ready,
    /// Not built yet; the reason.
    NotBuilt(&'static str),
    /// It waits on another piece of rtsync; which.
    WaitsOn(&'static str),
}

/// One reproducible table or figure.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// Its name on the command line: paper number, then the figure.
    pub name: &'static str,
    /// What it reproduces.
    pub what: &'static str,
    /// Whether it runs.
    pub status: Status,
    /// What it needs and how long it takes, on a two-CPU machine.
    pub needs: &'static str,
}

/// Every target, in the papers' order.
pub const TARGETS: [Target; 7] = [
    Target {
        name: "001-table2",
        what: "paper 001 Table 2: component request overheads per interface kind, against the built-in",
        status: Status::Ready,
        needs: "SCHED_FIFO; --quick ~1 s, full ~3 s",
    },
    Target {
        name: "001-fig6",
        what: "paper 001 Fig. 6: the notification manager's push + pop against its size",
        status: Status::Ready,
        needs: "nothing; --quick under 1 s, full ~1 s",
    },
    Target {
        name: "002-tables",
        what: "paper 002 Tables 2-6: channel latency (worst, mean, std, retries), threads and processes",
        status: Status::Ready,
        needs: "SCHED_FIFO for the real-time side (runs without, and says so); --quick ~2 s, full ~2 min",
    },
    Target {
        name: "003-fig5",
        what: "paper 003 Fig. 5: lock, unlock and migration costs under the Table I application's load",
        status: Status::Ready,
        needs: "SCHED_FIFO; --quick ~2 s, full ~3 min",
    },
    Target {
        name: "004-table1",
        what: "paper 004 Table I: state bytes and code size per protocol",
        status: Status::Ready,
        needs: "this binary's symbol table (a release build keeps it); under 1 s",
    },
    Target {
        name: "004-fig2",
        what: "paper 004 Fig. 2: p and v cost against the number of waiting tasks, per protocol",
        status: Status::Ready,
        needs: "nothing (SCHED_FIFO adds v with the kernel: the hand-off on real threads); --quick ~2 s, full ~1 min",
    },
    Target {
        name: "004-figs3-4",
        what: "paper 004 Figs. 3 and 4: schedulability against utilization, with and without overheads",
        status: Status::Ready,
        needs: "nothing (--overheads: a profile from `rtsync bench locks`); --quick ~1 s, full ~30 s",
    },
];

/// How a target is asked to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Its name.
    pub name: String,
    /// A small sample (CI) rather than the paper's full experiment.
    pub quick: bool,
    /// Where the target's folder and the index go.
    pub out: PathBuf,
    /// The overhead profile (`rtsync bench locks --profile`), if measured.
    pub overheads: Option<PathBuf>,
    /// Redo it even when its inputs have not changed.
    pub force: bool,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The target's folder.
    pub dir: PathBuf,
    /// Whether it was up to date and left alone.
    pub cached: bool,
    /// The files written (names within `dir`).
    pub files: Vec<String>,
    /// The note setting the published result beside the measured one.
    pub note: String,
}

/// What a target hands back to be written.
pub(crate) struct Made {
    /// `(name, contents)` of each file but the page.
    files: Vec<(String, String)>,
    /// Figures to show on the page, as SVG documents.
    figures: Vec<String>,
    /// The note.
    note: String,
}

/// The target named `name`, or an error that lists them.
pub fn target(name: &str) -> Result<&'static Target, Error> {
    TARGETS.iter().find(|t| t.name == name).ok_or_else(|| {
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        Error::BadInput(format!(
            "no target `{name}`; targets are {} (`rtsync reproduce --list` says what each makes)",
            names.join(", ")
        ))
    })
}

/// FNV-1a over the inputs, as hex: stable across runs and machines.
fn hash(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// Writes `dir/name` whole or not at all, the error naming the file.
fn write_whole(dir: &Path, name: &str, text: &str) -> Result<(), Error> {
    rtsync_report::files::write_whole(dir, name, text)
        .map_err(|e| Error::BadInput(format!("cannot write {}: {e}", dir.join(name).display())))
}

/// Runs the target `c.name` (or finds it up to date), writes its files
/// and page, and refreshes the index.
pub fn run(c: &Config) -> Result<Outcome, Error> {
    let t = target(&c.name)?;
    match t.status {
        Status::Ready => {}
        Status::NotBuilt(why) => {
            return Err(Error::BadInput(format!(
                "{} is not built yet ({why})",
                t.name
            )));
        }
        Status::WaitsOn(what) => {
            return Err(Error::BadInput(format!("{} waits on {what}", t.name)));
        }
    }
    let profile_text = match &c.overheads {
        Some(p) => std::fs::read_to_string(p).map_err(|e| {
            Error::BadInput(format!(
                "--overheads {}: {e}\n  hint: measure this machine's profile with `rtsync bench locks --profile {}`",
                p.display(),
                p.display()
            ))
        })?,
        None => String::new(),
    };
    let profile = match &c.overheads {
        Some(p) => Some(
            rtsync_analysis::Profile::load(p)
                .map_err(|d| Error::BadInput(format!("--overheads {}: {d}", p.display())))?,
        ),
        None => None,
    };
    let dir = c.out.join(t.name);
    std::fs::create_dir_all(&dir).map_err(|e| {
        Error::BadInput(format!(
            "cannot create {}: {e}\n  hint: give --out a folder you can write",
            dir.display()
        ))
    })?;
    // The build too: a rebuilt rtsync may measure or draw differently.
    let build = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
        .unwrap_or_default();
    let key = hash(&[
        t.name,
        if c.quick { "quick" } else { "full" },
        &profile_text,
        env!("CARGO_PKG_VERSION"),
        &build,
    ]);
    let stamp = dir.join("inputs.hash");
    if !c.force
        && std::fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == key)
        && dir.join("index.html").is_file()
    {
        let note = std::fs::read_to_string(dir.join("notes.txt")).unwrap_or_default();
        return Ok(Outcome {
            dir,
            cached: true,
            files: Vec::new(),
            note,
        });
    }
    // Whatever was there is stale from here on.
    let _ = std::fs::remove_file(&stamp);
    let made = match t.name {
        "004-figs3-4" => fig34::run(c.quick, profile.as_ref())?,
        "004-fig2" => fig2::run(c.quick)?,
        "004-table1" => table1::run()?,
        "003-fig5" => fig5::run(c.quick)?,
        "001-table2" => table2::run_table2(c.quick)?,
        "001-fig6" => table2::run_fig6(c.quick)?,
        "002-tables" => tables002::run(c.quick)?,
        _ => unreachable!("every ready target is dispatched"),
    };
    let mut names = Vec::new();
    for (name, text) in &made.files {
        write_whole(&dir, name, text)?;
        names.push(name.clone());
    }
    write_whole(&dir, "notes.txt", &made.note)?;
    names.push("notes.txt".into());
    write_whole(&dir, "index.html", &page(t, &made, &names))?;
    names.push("index.html".into());
    write_whole(&dir, "inputs.hash", &key)?;
    write_index(&c.out)?;
    Ok(Outcome {
        dir,
        cached: false,
        files: names,
        note: made.note,
    })
}

use rtsync_report::esc;

/// A target's page: its figures inline, its note, links to its files.
fn page(t: &Target, made: &Made, files: &[String]) -> String {
    let mut o = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>\
         <style>body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 1.5em auto; padding: 0 1em; }} \
         pre {{ white-space: pre-wrap; background: #f6f6f6; padding: 0.8em; }}</style></head><body>\
         <h1>{0}</h1><p>{1}</p>\n",
        esc(t.name),
        esc(t.what)
    );
    for f in &made.figures {
        o.push_str("<div class=\"figure\">");
        o.push_str(f);
        o.push_str("</div>\n");
    }
    o.push_str("<h2>Published beside measured</h2><pre>");
    o.push_str(&esc(&made.note));
    o.push_str("</pre><h2>Files</h2><ul>");
    for f in files {
        o.push_str(&format!("<li><a href=\"{0}\">{0}</a></li>", esc(f)));
    }
    o.push_str(&format!(
        "<li><a href=\"index.html\">index.html</a></li></ul><p><a href=\"../index.html\">all targets</a> · written by rtsync {}</p></body></html>\n",
        env!("CARGO_PKG_VERSION")
    ));
    o
}

/// `out/index.html`: every target, linked where it has been run.
fn write_index(out: &Path) -> Result<(), Error> {
    let mut o = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rtsync reproduce</title>\
         <style>body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 1.5em auto; padding: 0 1em; } \
         td { padding: 0.3em 0.8em; border-bottom: 1px solid #eee; }</style></head><body>\
         <h1>The papers, reproduced on this machine</h1><table>\n",
    );
    for t in &TARGETS {
        let done = out.join(t.name).join("inputs.hash").is_file();
        let state = match (t.status, done) {
            (_, true) => format!("<a href=\"{0}/index.html\">results</a>", t.name),
            (Status::Ready, false) => {
                format!("not run yet: <code>rtsync reproduce {}</code>", t.name)
            }
            (Status::NotBuilt(why), _) => format!("not built yet ({})", esc(why)),
            (Status::WaitsOn(what), _) => format!("waits on {}", esc(what)),
        };
        o.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{state}</td></tr>\n",
            esc(t.name),
            esc(t.what)
        ));
    }
    o.push_str("</table></body></html>\n");
    write_whole(out, "index.html", &o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash changes with every input and only with them.
    #[test]
    fn the_inputs_hash_separates_its_inputs() {
        let a = hash(&["004-figs3-4", "quick", "", "0.1.0"]);
        assert_eq!(a, hash(&["004-figs3-4", "quick", "", "0.1.0"]));
        assert_ne!(a, hash(&["004-figs3-4", "full", "", "0.1.0"]));
        assert_ne!(a, hash(&["004-figs3-4", "quick", "x", "0.1.0"]));
        // Parts are separated: moving a character across a boundary shows.
        assert_ne!(hash(&["ab", "c"]), hash(&["a", "bc"]));
    }

    /// Unknown names list the targets.
    #[test]
    fn unknown_targets_list_the_known_ones() {
        let Err(Error::BadInput(m)) = target("004-fig9") else {
            panic!("an unknown target was found")
        };
        assert!(m.contains("004-figs3-4") && m.contains("--list"), "{m}");
        for t in &TARGETS {
            assert_eq!(target(t.name).map(|x| x.name), Ok(t.name));
        }
    }
}
