//! `rtsync run`: run a described system on real Linux threads and print
//! per task the analytic bound, the simulated worst and the measured worst.

use super::{BAD_INPUT, ENVIRONMENT, NOT_SCHEDULABLE, OK, bad_input};
use crate::spec_arg;
use rtsync_analysis::{BoundForm, Heuristic, Options as AnalysisOptions};
use rtsync_bench::locks::Against;
use rtsync_experiment::as_it_runs::{Unplaced, as_it_runs, run_placed};
use rtsync_model::{Protocol, Time};
use rtsync_report::Table;
use rtsync_rt::sys;
use rtsync_sim::{Options as SimOptions, simulate};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
rtsync run                                  (the bundled example, 2 s)\n  \
rtsync run examples/pip-chained.toml --duration 5s\n  \
rtsync run my.toml --cpus 1,0                (system CPU 0 on machine CPU 1, 1 on 0)\n  \
rtsync run my.toml --cpus 0,1,0,1            (four system CPUs folded onto two)\n  \
rtsync run my.toml --no-realtime             (without SCHED_FIFO: the protocol's decisions only)\n\n\
Each task is a SCHED_FIFO thread pinned to its CPU, released on absolute timers; a \
computation spins on the thread's CPU-time clock, sections take the real locks. The \
kernel's RT throttling stays on: a CPU's real-time load above 95% is cut.\n\n\
A system with more CPUs than this process may use is folded onto them (system CPU c on \
the (c mod m)-th allowed CPU), said on stderr with the map; the bounds shown are then those \
of the folded system, the one that runs.\n\n\
The bounds charge this machine's costs, measured first in about a second (context switch, \
timer lateness, lock and unlock per protocol; on a component system also each kind of \
request's call and reply), as `rtsync demo` does; a measured worst above \
its bound is marked '~' within the noise measured (timer lateness, time the hypervisor stole) \
and '>' beyond it. `--no-overheads` leaves the costs out.\n\n\
Exit codes: 0 no deadline missed, 1 a miss, 2 bad input, 3 the environment (SCHED_FIFO not \
permitted, a CPU in --cpus this process may not use, a system call refused).")]
pub struct Args {
    /// Spec file (TOML), or the name of a bundled example; the bundled
    /// four-CPU example when omitted.
    pub spec: Option<PathBuf>,
    /// How long to release jobs.
    #[arg(long, default_value = "2s", value_parser = super::positive_duration)]
    pub duration: Time,
    /// Machine CPU for each system CPU, comma-separated; a CPU may repeat
    /// (folding). Default: the CPUs this process may use, in order, round
    /// robin when the system has more.
    #[arg(long, value_name = "LIST")]
    pub cpus: Option<String>,
    /// Run without SCHED_FIFO or pinning (where it is not permitted): the
    /// protocol's decisions are carried out, priorities are not.
    #[arg(long)]
    pub no_realtime: bool,
    /// Put every resource under this protocol first.
    #[arg(long, value_parser = super::check::parse_protocol)]
    pub protocol: Option<Protocol>,
    /// How to place tasks that have no CPU (as in `rtsync analyze`).
    #[arg(long, default_value = "sync", value_parser = |s: &str| s.parse::<Heuristic>())]
    pub partition: Heuristic,
    /// Bounds without this machine's costs: skips the second of measuring
    /// them (context switch, timer lateness, lock and unlock per protocol)
    /// that the bounds otherwise charge, as `rtsync demo` does.
    #[arg(long)]
    pub no_overheads: bool,
    /// Blocking bounds, as in `rtsync analyze`: fixed, classic (the
    /// default) or lp (the tightest, which `rtsync demo` shows).
    #[arg(long, default_value = "classic", value_parser = |s: &str| s.parse::<BoundForm>(),
        long_help = super::forms_help(
        "Blocking bounds, as in `rtsync analyze`, each never above the one before: fixed, \
         classic (the default) or lp (also the linear-programming bounds, each term the \
         smaller of the two: the bounds `rtsync demo` shows)."))]
    pub analysis: BoundForm,
}

fn parse_cpus(text: &str) -> Result<Vec<usize>, String> {
    text.split(',')
        .map(|c| {
            c.trim()
                .parse::<usize>()
                .map_err(|_| format!("--cpus `{text}`: `{c}` is not a CPU number"))
        })
        .collect()
}

pub fn run(a: Args) -> u8 {
    let loaded = match spec_arg::load(a.spec.as_deref(), a.protocol) {
        Ok(l) => l,
        Err(d) => return bad_input(&d),
    };
    let duration = Duration::from_nanos(a.duration.ns());
    let cpu_map = match a.cpus.as_deref().map(parse_cpus).transpose() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let opts = AnalysisOptions {
        heuristic: a.partition,
        form: a.analysis,
        ..AnalysisOptions::default()
    };
    // Placed and analysed first without costs: a bad map is the input's
    // fault (2) before a missing SCHED_FIFO is the environment's (3).
    let (placement, mut analysis) = match as_it_runs(&loaded.system, cpu_map.as_deref(), &opts) {
        Ok(x) => x,
        Err(Unplaced::Input(e)) => {
            eprint!("{e}");
            return BAD_INPUT;
        }
        Err(Unplaced::Environment(e)) => {
            eprint!("{e}");
            return ENVIRONMENT;
        }
    };
    if placement.folded() {
        eprintln!(
            "note: the system has {} CPUs and runs on {} here, folded ({}); the bounds below are \
             of the folded system, which is what runs (`--cpus LIST` chooses another map)",
            placement.map.len(),
            placement.machine.len(),
            placement.describe()
        );
    }
    if !a.no_realtime
        && let Err(why) = sys::probe_realtime()
    {
        eprintln!(
            "error: {why}\n  hint: `--no-realtime` runs the protocol logic without priorities"
        );
        return ENVIRONMENT;
    }
    // This machine's costs, charged in the bounds (as the demo does), so
    // that a measured response is set against a bound of what runs here.
    let costs = if a.no_realtime || a.no_overheads {
        None
    } else {
        eprintln!("measuring this machine's costs (about a second; --no-overheads skips it)...");
        match rtsync_bench::costs::for_system(&placement.system) {
            Ok((c, left_out)) => {
                if let Some(why) = left_out {
                    eprintln!("warning: {why}; bounds without them");
                }
                Some(c)
            }
            Err(e) => {
                eprintln!(
                    "warning: this machine's costs could not be measured ({e}); bounds without them"
                );
                None
            }
        }
    };
    if let Some(c) = &costs {
        let charged = AnalysisOptions {
            overheads: Some(c.profile.clone()),
            ..opts
        };
        // The same placement, analysed again with the costs (placing
        // does not read them).
        analysis = match rtsync_analysis::analyze(&placement.system, &charged) {
            Ok(an) => an,
            Err(d) => {
                eprint!("{d}");
                return ENVIRONMENT;
            }
        };
    }
    // What runs is the placed system; what is simulated is the one
    // analysed (costs charged), so that both tables read against the
    // bounds.
    let sys = &placement.system;
    for cpu in 0..sys.platform.cpus {
        let u = sys.cpu_utilization(cpu);
        if u > 0.95 {
            eprintln!(
                "warning: CPU {cpu} carries utilization {u:.2}; the kernel's RT throttling gives real-time threads at most 95% of a CPU, so jobs there will be late"
            );
        }
    }
    let horizon = Time::from_ns(duration.as_nanos().min(u64::MAX as u128) as u64);
    let simulated = simulate(
        &analysis.system,
        &SimOptions {
            horizon,
            ..SimOptions::default()
        },
    )
    .ok()
    .map(|(r, _)| r);
    eprintln!(
        "running {} for {duration:?} on real threads{}...",
        loaded.label,
        if a.no_realtime {
            " (no SCHED_FIFO)"
        } else {
            ""
        }
    );
    let (res, stolen) = match run_placed(&placement, duration, !a.no_realtime) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ENVIRONMENT;
        }
    };
    println!(
        "{}: ran {duration:?}, {}{}",
        loaded.label,
        sys.protocol_phrase(),
        if a.no_realtime {
            ", without SCHED_FIFO (timings not meaningful)"
        } else {
            ""
        }
    );
    if let Some(c) = &costs {
        println!(
            "This machine: context switch {}, timer lateness p99 {} (worst {}), lock and unlock per protocol: \
             charged in every bound below as `rtsync analyze --overheads` charges them.",
            c.profile.context_switch, c.profile.release, c.worst_timer_lateness
        );
    }
    let mut t = Table::new(&[
        "task",
        "cpu",
        "jobs",
        "bound",
        "sim max",
        "measured max",
        "mean",
        "blocked",
        "misses",
    ]);
    let ms = rtsync_report::table::duration;
    let mut misses = 0;
    let (mut noise_shown, mut above_shown) = (false, false);
    // The measured worst, marked where it passes its bound (the rule of
    // `rtsync demo`'s measured tables).
    let mut measured = |i: usize, w: Duration| -> String {
        let shown = ms(w);
        let (Some(c), Some(b)) = (&costs, analysis.result.tasks[i].response.bounded()) else {
            return shown;
        };
        let (a, mark) = c.mark(w, b, stolen.reaching(sys.tasks[i].cpu.unwrap_or(0)));
        match a {
            Against::Within => {}
            Against::Noise => noise_shown = true,
            Against::Above => above_shown = true,
        }
        format!("{shown}{mark}")
    };
    for (i, m) in res.tasks.iter().enumerate() {
        let an = &analysis.result.tasks[i];
        let sim = simulated
            .as_ref()
            .and_then(|s| s.tasks[i].max_response)
            .map_or("-".into(), |x| ms(Duration::from_nanos(x.ns())));
        misses += m.misses;
        t.row(vec![
            m.name.clone(),
            sys.tasks[i].cpu.unwrap_or(0).to_string(),
            m.jobs.to_string(),
            an.response.to_string(),
            sim,
            m.max_response.map_or("-".into(), |w| measured(i, w)),
            m.mean_response.map_or("-".into(), ms),
            ms(m.max_blocking),
            m.misses.to_string(),
        ]);
    }
    print!("{}", t.render());
    println!(
        "(bound: the analysis; sim max: the simulator over the same time; measured: response from release on real threads; blocked: longest wait for locks in one job, a component thread's waits for it included)"
    );
    if let Some(c) = &costs {
        if noise_shown {
            println!("'~': {}", c.noise_explained());
        }
        if above_shown {
            println!(
                "'>': {}; a longer --duration shows whether it repeats.",
                c.above_explained(stolen.uncounted())
            );
        }
    } else if !a.no_realtime {
        println!(
            "(the bounds charge no overheads: a measured response may pass its bound by what this machine costs)"
        );
    }
    if !res.component_threads.is_empty() {
        let threads: Vec<String> = (res.component_threads.iter())
            .map(|(f, n)| format!("{f} {n}"))
            .collect();
        let charged = costs
            .as_ref()
            .map(|c| c.profile.component)
            .filter(|o| *o != Default::default());
        println!(
            "requests served by component threads ({}); {}. {}",
            threads.join(", "),
            match res.pool_overflows {
                0 => "none found its pool busy".to_string(),
                n => format!(
                    "{n} found their pool busy: the analyzer's pool sizes were short (a bug: please report it)"
                ),
            },
            match charged {
                Some(o) => format!(
                    "The bounds charge each request's call and reply as measured here \
                     (p99 round trips: propagated {}, fixed {}, inherited {}; an inherited \
                     interface's hand-off {}, a nested one's {} more), inside the interface's \
                     section for exclusive ones",
                    o.prop_call.saturating_add(o.prop_reply),
                    o.fix_call.saturating_add(o.fix_reply),
                    o.pip_unlocked.saturating_add(o.pip_reply),
                    o.pip_locked,
                    o.nest
                ),
                None => "The bounds charge no request costs (a call and reply takes \
                         microseconds: `rtsync bench components` measures them and writes the \
                         profile that `rtsync analyze --overheads` charges)"
                    .to_string(),
            }
        );
    }
    if misses > 0 {
        println!("{misses} deadline miss(es)");
        NOT_SCHEDULABLE
    } else {
        OK
    }
}
