//! What a newcomer meets (issue 23): one validation behind `check` and
//! `analyze`, file names in every message, bounds printed as a person reads
//! them, and the same spelling of a time in every command.

mod common;
use common::{rtsync, temp, text};

/// The tests that run real-time threads take turns: two at once would
/// share the CPUs at SCHED_FIFO priorities and measure each other.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A duration as the tables print it (`18.35ms`, `261.9us`, `1.2s`), in
/// milliseconds.
fn ms(cell: &str) -> Option<f64> {
    [("ms", 1.0), ("us", 1e-3), ("ns", 1e-6), ("s", 1e3)]
        .iter()
        .find_map(|(unit, f)| cell.strip_suffix(unit)?.parse::<f64>().ok().map(|v| v * f))
}

/// Two PIP users with 1.4 of utilization between them: no placement keeps
/// them on one CPU, so PIP (a uniprocessor protocol) cannot hold.
const PIP_SPLIT: &str = "[platform]\ncpus = 8\nprotocol = \"pip\"\n\
[[resource]]\nname = \"A\"\n\
[[task]]\nname = \"a\"\nperiod = \"10ms\"\nbody = [ { lock = \"A\", hold = \"7ms\" } ]\n\
[[task]]\nname = \"b\"\nperiod = \"10ms\"\nbody = [ { lock = \"A\", hold = \"7ms\" } ]\n";

#[test]
fn check_refuses_what_analyze_refuses_and_both_name_the_file() {
    let p = temp("pip-split.toml", PIP_SPLIT);
    let path = p.to_str().unwrap();
    for cmd in ["check", "analyze"] {
        let o = rtsync(&[cmd, path]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains(&format!("{path}:4:1: resource \"A\"")),
            "{cmd} must name file, line and resource: {err}"
        );
        assert!(err.contains("uniprocessor protocol"), "{cmd}: {err}");
    }
    // With room on one CPU, check accepts and shows where analyze will
    // place the tasks.
    let p = temp("pip-fits.toml", &PIP_SPLIT.replace("7ms", "3ms"));
    let o = rtsync(&["check", p.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains("placement (sync partitioning"), "{out}");
}

/// An MPCP system whose remote-blocking recurrences diverge.
const DIVERGES: &str = "[platform]\ncpus = 2\nprotocol = \"mpcp\"\n\
[[resource]]\nname = \"A\"\n\
[[task]]\nname = \"a\"\nperiod = \"10ms\"\ncpu = 0\nbody = [ { lock = \"A\", hold = \"6ms\" } ]\n\
[[task]]\nname = \"b\"\nperiod = \"10ms\"\ncpu = 1\nbody = [ { lock = \"A\", hold = \"6ms\" } ]\n\
[[task]]\nname = \"c\"\nperiod = \"12ms\"\ncpu = 1\nbody = [ { lock = \"A\", hold = \"6ms\" } ]\n";

#[test]
fn unbounded_blocking_reads_unbounded_in_tables_and_null_with_a_reason_in_json() {
    let p = temp("diverges.toml", DIVERGES);
    let o = rtsync(&["analyze", p.to_str().unwrap()]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.contains("unbounded"), "{out}");
    assert!(!out.contains("18446744073709551"), "{out}");

    let o = rtsync(&["analyze", p.to_str().unwrap(), "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tasks = doc["result"]["tasks"].as_array().unwrap();
    let b = &tasks.iter().find(|t| t["name"] == "b").unwrap()["blocking"];
    assert!(b["remote"].is_null(), "{b}");
    assert!(
        b["unbounded_reason"]
            .as_str()
            .is_some_and(|r| r.contains("deadline")),
        "{b}"
    );
    // A bounded task carries no reason.
    let a = &tasks.iter().find(|t| t["name"] == "a").unwrap()["blocking"];
    assert!(
        a["remote"].is_u64() && a.get("unbounded_reason").is_none(),
        "{a}"
    );
}

#[test]
fn zero_is_spelled_the_same_in_every_command() {
    // `analyze` prints zero blocking, `simulate` zero blocked time: both `0`.
    let o = rtsync(&["analyze", "pip-chained"]);
    let (out, _) = text(&o);
    assert!(out.contains(" 0 ") && !out.contains("0ns"), "{out}");
    let o = rtsync(&["simulate", "pip-chained", "--horizon", "50ms"]);
    let (out, _) = text(&o);
    assert!(!out.contains("0ns"), "{out}");
}

/// Peak resident memory of one `rtsync` run, from the kernel's own count
/// (wait4's rusage), in KiB. The child is reaped by `wait4`, which
/// `Child::wait` cannot do with the rusage.
#[allow(clippy::zombie_processes)]
fn peak_kib(args: &[&str]) -> (i32, i64, String) {
    use std::os::unix::process::ExitStatusExt;
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_rtsync"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let out = {
        use std::io::Read;
        let mut s = String::new();
        child.stdout.unwrap().read_to_string(&mut s).unwrap();
        s
    };
    let mut status = 0;
    // SAFETY: rusage is a valid out-pointer; pid is our child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid);
    let code = std::process::ExitStatus::from_raw(status)
        .code()
        .unwrap_or(-1);
    (code, ru.ru_maxrss, out)
}

/// The README's main job stays small: memory is locked on fault, so the
/// allocator's reserved address space is not made resident (it once
/// peaked at 1.1 GB). Target: under 100 MB.
#[test]
fn the_demo_and_run_stay_under_100_mb() {
    let _serial = serial();
    let (code, kib, out) = peak_kib(&["demo", "--run-for", "50ms"]);
    assert_eq!(code, 0, "{out}");
    assert!(kib < 100 * 1024, "demo peaked at {kib} KiB");
    let (_, kib, out) = peak_kib(&["run", "--duration", "50ms"]);
    assert!(kib < 100 * 1024, "run peaked at {kib} KiB\n{out}");
}

/// The demo's legend explains the marks that appear, and only those.
#[test]
fn the_demo_legend_explains_only_the_marks_shown() {
    let _serial = serial();
    let (code, _, out) = peak_kib(&["demo", "--run-for", "100ms"]);
    assert_eq!(code, 0, "{out}");
    // The legend starts at its first line: the '!' line when a bound is
    // above its deadline (it comes first), else the line that says what
    // the simulated and measured columns are.
    let start = ["\n'!' marks", "\nsimulated worst: the worst response"]
        .iter()
        .filter_map(|l| out.find(l))
        .min()
        .unwrap();
    let (tables, legend) = out.split_at(start);
    for (mark, line) in [
        (" !", "'!' marks a bound above the deadline"),
        // A simulated or measured cell whose bound is marked '!' may
        // show its time alone.
        (" !", "or alone, where the bound is marked '!'"),
        (" ~", "'~' in a measured table"),
    ] {
        assert_eq!(
            tables.contains(mark),
            legend.contains(line),
            "mark `{mark}` and its legend disagree:\n{out}"
        );
    }
    // A '>' cell is explained by the legend line of its table.
    let measured_above = tables
        .split("measured worst")
        .skip(1)
        .any(|t| t.split("\n\n").next().unwrap().contains(" >"));
    assert_eq!(
        measured_above,
        legend.contains("'>' in a measured table"),
        "{out}"
    );
    // The four-CPU example is folded onto this machine where it has fewer
    // CPUs, and the tables say so.
    if rtsync_rt::sys::allowed_cpus().len() < 4 && rtsync_rt::sys::probe_realtime().is_ok() {
        assert!(
            out.contains("the system runs folded, system CPU 0,"),
            "{out}"
        );
    }
}

#[test]
fn run_folds_by_default_and_separates_environment_from_input() {
    let _serial = serial();
    if rtsync_rt::sys::probe_realtime().is_err() {
        let o = rtsync(&["run", "--duration", "50ms"]);
        assert_eq!(
            o.status.code(),
            Some(3),
            "no SCHED_FIFO is the environment's"
        );
        return;
    }
    let allowed = rtsync_rt::sys::allowed_cpus();
    let o = rtsync(&["run", "--duration", "50ms"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    if allowed.len() < 4 {
        assert!(err.contains("folded (system CPU 0,"), "{err}");
    }
    // A CPU this process may not use: the environment (3).
    let o = rtsync(&["run", "--duration", "50ms", "--cpus", "0,1,0,4095"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o).1);
    assert!(text(&o).1.contains("CPU 4095 is not available"));
    // Too short a map: the input (2).
    let o = rtsync(&["run", "--duration", "50ms", "--cpus", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).1);
}

/// What `rtsync run` shows first: on the bundled example, as it runs here
/// (folded onto this machine's CPUs), no task responds far beyond its
/// bound. The margin (a quarter of the bound and a millisecond) is for
/// what the bounds do not charge (overheads) and a shared machine's
/// noise. The runtime's bookkeeping lock, held at the holders' own
/// priorities, once let a low task of one CPU, preempted there while
/// holding it, stall the tasks of another: folded onto two CPUs, the
/// lowest task of CPU 1 responded in 33 ms against its 18.35 ms bound.
#[test]
fn run_keeps_the_bundled_example_within_its_bounds() {
    let _serial = serial();
    if rtsync_rt::sys::probe_realtime().is_err() {
        eprintln!("skipped run_keeps_the_bundled_example_within_its_bounds: no SCHED_FIFO");
        return;
    }
    // A shared VM's host can stall these threads for milliseconds (a
    // CI run once measured 148 ms against a 100 ms deadline, with timer
    // wake-ups 6 ms late): one such run is the machine's, so a failed run
    // is tried once more, and the second must hold.
    let first = run_within_bounds();
    if let Err(why) = first {
        eprintln!("first run not within its bounds, trying once more:\n{why}");
        run_within_bounds().unwrap_or_else(|why| panic!("{why}"));
    }
}

/// One `rtsync run` of the bundled example for 1 s: exit 0, the machine's
/// costs charged, every one of its 15 tasks' measured worst within a
/// quarter of its bound and a millisecond, and a worst above its bound
/// marked and the mark explained; or what was not, with the output.
fn run_within_bounds() -> Result<(), String> {
    let o = rtsync(&["run", "--duration", "1s"]);
    let (out, err) = text(&o);
    let fail = |what: String| Err(format!("{what}\n{out}{err}"));
    if o.status.code() != Some(0) {
        return fail(format!("exit {:?}", o.status.code()));
    }
    // The bounds charge what this machine costs, measured first.
    if !out.contains("This machine: context switch") {
        return fail("no machine costs".into());
    }
    let mut rows = 0;
    for line in out.lines() {
        let mut cells: Vec<&str> = line.split_whitespace().collect();
        // A bound past the deadline shows as `> D` (the costs measured
        // on a noisy VM can push the lowest tasks' there): the job is
        // then held to its deadline, with the same margin.
        if cells.get(3) == Some(&">") {
            cells.remove(3);
        }
        let [task, _, _, bound, _, measured, ref rest @ ..] = cells[..] else {
            continue;
        };
        let (Some(bound), Some(measured)) = (ms(bound), ms(measured)) else {
            continue;
        };
        rows += 1;
        if measured > 1.25 * bound + 1.0 {
            return fail(format!(
                "{task}: measured {measured} ms against a bound of {bound} ms"
            ));
        }
        // A worst above its bound is marked, and the mark explained.
        if measured > bound {
            let mark = rest.first().copied().unwrap_or("");
            if !(mark == "~" || mark == ">") {
                return fail(format!("{task}: unmarked"));
            }
            if !out.contains(&format!("'{mark}': above the bound")) {
                return fail(format!("{task}: mark {mark} not explained"));
            }
        }
    }
    if rows != 15 {
        return fail(format!("{rows} task rows"));
    }
    Ok(())
}

/// `rtsync run` on a component spec charges the requests' calls and
/// replies, measured first like the kernel's costs, and says what it
/// charged; with `--no-overheads` it says it charged none.
#[test]
fn run_charges_a_component_specs_request_costs() {
    let _serial = serial();
    if rtsync_rt::sys::probe_realtime().is_err() {
        eprintln!("skipped run_charges_a_component_specs_request_costs: no SCHED_FIFO");
        return;
    }
    let o = rtsync(&["run", "camkes-fig2", "--duration", "300ms"]);
    let (out, err) = text(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{out}{err}");
    assert!(
        out.contains("The bounds charge each request's call and reply as measured here"),
        "{out}{err}"
    );
    let o = rtsync(&[
        "run",
        "camkes-fig2",
        "--duration",
        "300ms",
        "--no-overheads",
    ]);
    let (out, err) = text(&o);
    assert!(
        out.contains("The bounds charge no request costs"),
        "{out}{err}"
    );
}
