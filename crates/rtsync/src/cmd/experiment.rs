//! `rtsync experiment`: experiments over many random systems.
//!
//! `soundness` checks the promise of the design: on systems the analysis
//! calls schedulable, the simulated worst response time of every task never
//! exceeds its analytic bound, no deadline is missed, mutual exclusion and
//! the priority rule hold, and no deadlock occurs.

use super::{BAD_INPUT, OK};
use rtsync_analysis::generate::Mixing;
use rtsync_experiment::Shape;
use rtsync_experiment::exhaustive;
use rtsync_experiment::shard::{Outcome, Prepared, Shard};
use rtsync_experiment::soundness::{self, Config, SoundnessSpec, Tally};
use rtsync_model::Protocol;
use rtsync_report::Table;
use rtsync_sim::grid::GridOptions;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Experiment {
    /// Simulated worst response <= analytic bound, on random systems, for
    /// every protocol (or one), searching each schedulable system for its
    /// worst schedule (offsets, arrival delays, jitter, execution times).
    /// Prints the violations and how tight the bounds are; exit code 1
    /// when any violation is found.
    Soundness(SoundnessArgs),
    /// The search checked against every release offset: small systems
    /// (one or two CPUs, three or four tasks) whose times are whole
    /// multiples of a step, each searched as `soundness` searches it and
    /// then run at every combination of offsets on the step's grid, with
    /// every order of the releases that meet at a point. Prints, per
    /// protocol, the violations either found and the *gaps*: tasks whose
    /// worst on the grid is above the search's, schedules the search did
    /// not reach. Exit code 1 when any violation is found.
    Exhaustive(ExhaustiveArgs),
    /// Schedulability ratios: the share of random systems each protocol's
    /// analysis accepts, over a range of total utilizations, on the same
    /// systems for every protocol. Prints the table and writes a CSV and
    /// an SVG plot.
    Schedulability(Box<super::sweep::Args>),
    /// Paper 001's evaluation (Sect. 6.2): the Fig. 7 topology under the
    /// four configurations of its Table 3, task sets at utilizations 0.1
    /// to 1.0 (UUniSort, harmonic periods 10 ms to 1 s), each analysed,
    /// simulated and run on real threads for 10 hyperperiods on one CPU.
    /// Prints the share schedulable by analysis beside the share with no
    /// miss in simulation and on real threads, per configuration; writes
    /// a CSV and an SVG plot; lists every miss on real threads that the
    /// analysis did not allow, with what explains it. Real-thread runs
    /// take up to 10 s each and go one per CPU at a time: the full run
    /// (400 task sets) took 21 minutes on two CPUs here.
    Components(ComponentsArgs),
    /// The runtime against the analysis: random systems the analysis
    /// accepts (this machine's costs charged) run on real SCHED_FIFO
    /// threads, and each task's measured worst response is set against
    /// its bound. A worst above its bound by no more than this machine's
    /// noise (timer lateness, time stolen by a hypervisor) is counted;
    /// one beyond it is listed with its spec written out to repeat it
    /// (`rtsync run FILE`); exit code 1 when any is.
    #[command(name = "on-threads")]
    OnThreads(OnThreadsArgs),
}

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
rtsync experiment on-threads                               (every protocol, 5 systems each, 500 ms each: about a minute)\n  \
rtsync experiment on-threads --protocol dpcp --systems 40 --utilization 0.3  (one protocol, longer)\n\n\
Systems: 8 tasks, periods 5 to 50 ms (log-uniform), sections 50 to 500 us on 3 shared \
resources, worst-fit placement; multiprocessor protocols on --cpus CPUs (folded onto this \
machine's where they are fewer), uniprocessor ones on one. DPCP's and DFLP's sections add \
their agents' load to the synchronization CPU: above about 0.3 per CPU most of their systems \
are rejected (`--protocol dpcp --utilization 0.3`). The costs charged are measured \
first (about a second), as `rtsync run` does. A sampled search: the simulator's searched \
soundness experiment is the analysis's proof of work; this one checks the runtime.")]
pub struct OnThreadsArgs {
    /// Only this protocol (default: all twelve).
    #[arg(long, value_parser = super::check::parse_protocol)]
    pub protocol: Option<Protocol>,
    /// Systems per protocol.
    #[arg(long, default_value_t = 5)]
    pub systems: u64,
    /// Seed of the systems.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// CPUs of a multiprocessor protocol's systems.
    #[arg(long, default_value_t = 2)]
    pub cpus: usize,
    /// Tasks per system.
    #[arg(long, default_value_t = 8)]
    pub tasks: usize,
    /// Utilization per CPU.
    #[arg(long, default_value_t = 0.4)]
    pub utilization: f64,
    /// How long each system runs.
    #[arg(long, default_value = "500ms", value_parser = super::positive_duration)]
    pub run_for: rtsync_model::Time,
    /// Where the spec of a system with a task beyond the noise is written.
    #[arg(long, default_value = "on-threads")]
    pub out: PathBuf,
    /// Random component topologies (paper 001, one CPU, plain resources
    /// in methods and tasks in half of them) in place of the protocols'
    /// systems (--systems of them, from --seed).
    #[arg(long, conflicts_with_all = ["protocol", "cpus", "tasks", "utilization"])]
    pub components: bool,
    /// The bounds the measured worst is set against, as in `rtsync
    /// analyze`: fixed, classic (the default) or lp (the bounds `rtsync
    /// demo` shows: a path of its own to check on real threads).
    #[arg(long, default_value = "classic", value_parser = |s: &str| s.parse::<rtsync_analysis::BoundForm>(),
        long_help = super::forms_help(
        "The bounds the measured worst is set against, as in `rtsync analyze`, each never \
         above the one before: fixed, classic (the default) or lp (the bounds `rtsync demo` \
         shows: a path of its own to check on real threads)."))]
    pub analysis: rtsync_analysis::BoundForm,
}

#[derive(clap::Args)]
pub struct ComponentsArgs {
    /// Task sets per configuration and utilization (the paper: 10).
    #[arg(long, default_value_t = 10)]
    pub systems: u64,
    /// Utilizations from, to and step.
    #[arg(long, default_value_t = 0.1)]
    pub from: f64,
    /// See --from.
    #[arg(long, default_value_t = 1.0)]
    pub to: f64,
    /// See --from.
    #[arg(long, default_value_t = 0.1)]
    pub step: f64,
    /// Hyperperiods each task set runs (simulated and on real threads).
    #[arg(long, default_value_t = 10)]
    pub hyperperiods: u32,
    /// Seed of the task sets.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Analysis and simulation only (no SCHED_FIFO needed).
    #[arg(long)]
    pub no_real_threads: bool,
    /// Overhead profile the analyses charge (`rtsync bench locks` and
    /// `rtsync bench components` write one).
    #[arg(long, value_name = "FILE")]
    pub overheads: Option<PathBuf>,
    /// Where to write `components.csv` and `components.svg`, and the
    /// spec of every task set that missed on real threads against the
    /// analysis (`config<K>-u<U>-<I>.toml`: run it again with `rtsync
    /// run`).
    #[arg(long, value_name = "DIR", default_value = "components")]
    pub out: PathBuf,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub experiment: Experiment,
}

/// What a soundness or exhaustive run checks: the systems (which
/// protocols or mix, which shape, which seed, whether EDF too) and which
/// of their bounds.
#[derive(clap::Args)]
pub struct Stream {
    /// Only this protocol (default: all twelve, then the three mixes).
    #[arg(long, value_parser = super::check::parse_protocol)]
    pub protocol: Option<Protocol>,
    /// Only systems with a protocol per resource by this rule: by-length
    /// (FMLP short and long resources by section length) | by-scope (MPCP
    /// global, PCP local) | uniprocessor (NPCS, PIP, PCP, IPCP and SRP
    /// drawn per resource on one CPU).
    #[arg(long, value_parser = |s: &str| s.parse::<Mixing>())]
    pub mix: Option<Mixing>,
    /// Seed of the system stream (and of the search).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also run the protocols that support it under EDF.
    #[arg(long)]
    pub edf: bool,
    /// The systems drawn: classic | local-global (local and global
    /// resources on one CPU) | suspending (self-suspensions) | nested |
    /// dense (several requests per job) | jitter (release jitter on half
    /// the tasks) | crowded (four tasks per CPU sharing each global
    /// resource: tasks queued ahead of a job on its CPU) | window (long
    /// sections above short ones, short deadlines: per-request waits pass
    /// the deadline where job windows hold) | reopened (jobs above that
    /// suspend often beside lower tasks with long sections: sections met
    /// at each resumption) | tight (reopened, each CPU's lowest task's
    /// period cut to just above its bound: its previous job still runs in
    /// the window) | unharmonic (log-uniform periods, which do not divide
    /// each other; the shapes before it draw harmonic ones) | priorities (drawn
    /// at random, some equal, whatever the deadlines; the shapes before
    /// it give unique deadline-monotonic ones) | multiunit (resources of up to
    /// four units under SRP and MSRP) | wide (four to six CPUs, one or
    /// two resources nearly every task uses: long queues) | combined
    /// (every dimension above drawn at once, per system) | edges
    /// (suspending, with a self-suspension at the start or end of half the
    /// bodies) | all (each in turn).
    #[arg(long, default_value = "all", value_parser = |s: &str| s.parse::<Shape>())]
    pub shape: Shape,
    /// Which bounds to check: classic, lp (the LP bounds, where the
    /// protocol has one), both, fixed (no job windows) or all.
    #[arg(long, value_enum, default_value = "classic", long_help = super::forms_help(
        "Which bounds to check: classic, lp (the LP bounds, where the protocol has one; \
         the others are left out), both, fixed (each request's bound on its own, no job \
         windows; the others' fixed forms are their classic bounds) or all (the three)."))]
    pub analysis: super::Forms,
}

impl Stream {
    /// The soundness experiment's description of these systems, every
    /// other field at its default.
    fn spec(&self) -> SoundnessSpec {
        SoundnessSpec {
            protocol: self.protocol.map(|p| p.name().to_string()),
            mix: self.mix.map(|m| m.to_string()),
            seed: self.seed,
            edf: self.edf,
            shape: self.shape.to_string(),
            analysis: self.analysis,
            ..SoundnessSpec::default()
        }
    }
}

#[derive(clap::Args)]
pub struct SoundnessArgs {
    /// Random systems per protocol (the design asks for 10000).
    #[arg(long, default_value_t = 10_000)]
    pub systems: u64,
    #[command(flatten)]
    pub stream: Stream,
    /// Only component topologies (paper 001): random DAGs of propagated,
    /// inherited, fixed and fixed-npcs interfaces with nested requests, on
    /// one CPU, checked against rtsync's bound and paper 001's, with the
    /// analyzer's pool sizes checked too (a request finding its pool full
    /// is a violation). Part of the default run.
    #[arg(long, conflicts_with_all = ["protocol", "mix"])]
    pub components: bool,
    /// Simulated events the worst-case search may spend per schedulable
    /// system (0: no search, the four sampled runs only).
    #[arg(long, default_value_t = 60_000)]
    pub search_budget: u64,
    /// Print every violation (by default the first five per protocol).
    #[arg(long)]
    pub verbose: bool,
    /// Write each system with a violation here: the spec
    /// (`<protocol>-<scheduler>-<shape>-<index>.toml`, partitioned as
    /// simulated) and the plan that reproduces it (`.plan.toml`, cut down
    /// to the choices the violation needs; replay with `rtsync simulate
    /// SPEC --plan PLAN`).
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Where to write the tightness histogram (`tightness.svg`) and the
    /// per-protocol figures (`soundness.csv`); with --shard, the shard's
    /// part file.
    #[arg(long, value_name = "DIR", default_value = "soundness")]
    pub out: PathBuf,
    /// Run only shard I of N (0 <= I < N) of the systems and write its
    /// part file into --out; `rtsync merge` adds the parts up to the files
    /// one run writes (docs/SWEEPS.md).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Charge this overhead profile (`rtsync bench locks` writes one) to
    /// every bound, and simulate and search the charged systems, as
    /// `rtsync run`, `demo` and `simulate --overheads` run them: the
    /// bounds a user of the runtime reads, checked on the path it takes.
    #[arg(long, value_name = "FILE")]
    pub overheads: Option<PathBuf>,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
rtsync experiment exhaustive --systems 20                 (every protocol and mix: a few minutes on two cores)\n  \
rtsync experiment exhaustive --protocol mpcp --systems 500 --save gaps/\n\n\
What the grid runs: task 0 released at one offset, every other task at every multiple of \
--step within its period plus 0, 1, 2, ... ns (2n - 1 nudges for n tasks, so that the releases \
meeting at one point come in every order), each job periodic and at its worst case, for one \
hyperperiod after the last first release. It leaves sporadic delays, release jitter and \
shorter durations to the search, which moves them too: a task where the search went further \
is counted, not reported. The `tight` shape (and the tight systems of `all`) is drawn as \
`reopened` here: its cut periods would leave the grid's whole steps. docs/SIMULATION.md, \
\"Every offset on a grid\".")]
pub struct ExhaustiveArgs {
    /// Small systems per protocol (and mix).
    #[arg(long, default_value_t = 100)]
    pub systems: u64,
    /// The systems, drawn small.
    #[command(flatten)]
    pub stream: Stream,
    /// Simulated events the search may spend per system, as in
    /// `soundness` (0: the grid alone, no gaps measured).
    #[arg(long, default_value_t = 60_000)]
    pub search_budget: u64,
    /// The grid's step: every period, duration and deadline of the systems
    /// drawn is a multiple of it.
    #[arg(long, default_value = "1ms", value_parser = super::positive_duration)]
    pub step: rtsync_model::Time,
    /// Offsets per grid point (0, 1, ... ns past it); default 2n - 1 for n
    /// tasks.
    #[arg(long)]
    pub nudges: Option<u32>,
    /// Skip a system that needs more runs than this.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_plans: u64,
    /// A task is a gap where the grid's worst is above the search's by
    /// more than this (below it: ties, which the grid runs at one instant
    /// and the search 1 ns apart).
    #[arg(long, default_value = "1us", value_parser = super::duration)]
    pub tolerance: rtsync_model::Time,
    /// Searches per system, each at its own seed (the first at the
    /// soundness experiment's): a gap is a task no search reaches, and
    /// `reached` counts every search. The search is random, so one seed
    /// makes each gap one sample; to tell whether a change to the search
    /// made it stronger, compare the rate over 10 or 20 seeds.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub search_seeds: u32,
    /// Print every violation and gap (by default the first five per case).
    #[arg(long)]
    pub verbose: bool,
    /// Write each system with a violation or a gap here, with the plan
    /// that shows it (`rtsync simulate SPEC --plan PLAN` replays it).
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
}

pub fn run(a: Args) -> u8 {
    match a.experiment {
        Experiment::Soundness(s) => soundness(s),
        Experiment::Exhaustive(e) => exhaustive(e),
        Experiment::Schedulability(s) => super::sweep::run(*s),
        Experiment::Components(c) => components(c),
        Experiment::OnThreads(o) => on_threads(o),
    }
}

fn on_threads(a: OnThreadsArgs) -> u8 {
    use rtsync_bench::on_threads::{self as ot, Config};
    let shown = |t: rtsync_model::Time| {
        rtsync_report::table::duration(std::time::Duration::from_nanos(t.ns()))
    };
    let run_for = std::time::Duration::from_nanos(a.run_for.ns());
    let c = Config {
        protocols: a.protocol.map_or(Protocol::ALL.to_vec(), |p| vec![p]),
        systems: a.systems,
        seed: a.seed,
        cpus: a.cpus,
        tasks: a.tasks,
        utilization: a.utilization,
        run_for,
        out: a.out,
        components: a.components,
        form: a.analysis,
    };
    if let Err(e) = c.check() {
        eprintln!("error: {e}");
        return BAD_INPUT;
    }
    if let Err(why) = rtsync_rt::sys::probe_realtime() {
        eprintln!("error: {why}\n  the experiment runs real SCHED_FIFO threads");
        return super::ENVIRONMENT;
    }
    eprintln!("measuring this machine's costs (about a second)...");
    let costs = match rtsync_bench::locks::quick_costs() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: this machine's costs could not be measured: {e}");
            return super::ENVIRONMENT;
        }
    };
    println!(
        "rtsync experiment on-threads: {} systems per protocol, seed {}, {:?} each, {} bounds; this machine: context switch {}, \
         timer lateness p99 {} (worst {}), charged in every bound",
        c.systems,
        c.seed,
        c.run_for,
        c.form,
        costs.profile.context_switch,
        costs.profile.release,
        costs.worst_timer_lateness
    );
    let rows_of = if c.components {
        1
    } else {
        c.protocols.len() as u64
    };
    let bar = indicatif::ProgressBar::new(c.systems * rows_of);
    let rows = match ot::run(&c, &costs, || bar.inc(1)) {
        Ok(r) => r,
        Err(rtsync_bench::Error::BadInput(e)) => {
            bar.finish_and_clear();
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
        Err(rtsync_bench::Error::Environment(e)) => {
            bar.finish_and_clear();
            eprintln!("error: {e}");
            return super::ENVIRONMENT;
        }
    };
    bar.finish_and_clear();
    let mut t = Table::new(&[
        "protocol",
        "run",
        "rejected",
        "for costs",
        "tasks",
        "worst / bound",
        "within noise",
        "once beyond",
        "beyond noise",
        "most stolen",
    ]);
    for r in &rows {
        t.row(vec![
            r.protocol.map_or("components".into(), |p| p.to_string()),
            r.run.to_string(),
            r.rejected.to_string(),
            r.rejected_for_costs.to_string(),
            r.tasks.to_string(),
            format!("{:.2}", r.worst),
            r.noise.to_string(),
            r.transient.to_string(),
            r.beyond.len().to_string(),
            shown(r.stolen),
        ]);
    }
    print!("{}", t.render());
    println!(
        "(rejected: the analysis does not accept the system, which is not run. for costs: of those, the systems it \
         accepts with no overhead charged, rejected for this machine's measured costs (a timer lateness of a \
         millisecond charged to every release rejects most systems), not for their own load. worst / bound: the largest measured worst \
         response over its bound. within noise: above the bound by no more than the worst timer lateness measured plus the \
         time the hypervisor took during the run from the CPUs the task depends on (its own, and those joined to it by a \
         shared resource). once beyond: beyond the noise in the first run, within it \
         in a run after (the system runs up to {} more times): a latency spike. beyond noise: beyond it in every run. \
         most stolen: the most the hypervisor took from the CPUs a task depends on during one run, which a measured worst \
         carries; /proc/stat counts it in ticks, so up to a tick per CPU can go uncounted)",
        ot::CONFIRM
    );
    let mut beyond = 0;
    for r in &rows {
        for f in &r.failed {
            println!(
                "  not run ({}): {f}",
                r.protocol.map_or("-".into(), |p| p.to_string())
            );
        }
        for b in &r.beyond {
            beyond += 1;
            println!(
                "  {} {}: measured {} against a bound of {} (stolen {}); repeat: rtsync run {} --duration 5s",
                r.protocol.map_or("components".into(), |p| p.to_string()),
                b.task,
                shown(b.measured),
                shown(b.bound),
                shown(b.stolen),
                b.spec.display()
            );
        }
    }
    if beyond > 0 {
        println!(
            "{beyond} task(s) beyond the noise: a cost the analysis does not charge here, or a defect"
        );
        1
    } else {
        println!("no task beyond the noise");
        OK
    }
}

fn components(a: ComponentsArgs) -> u8 {
    use rtsync_experiment::components::{self as ev, Config as EvConfig};
    if a.systems == 0 || a.hyperperiods == 0 {
        eprintln!("error: --systems and --hyperperiods must be at least 1");
        return BAD_INPUT;
    }
    let utilizations = match rtsync_analysis::sweep::points(a.from, a.to, a.step) {
        // One CPU: a total utilization past 1 is no task set.
        Ok(_) if a.to > 1.0 => Err(format!(
            "--to {} is past 1 (the systems run on one CPU)",
            a.to
        )),
        other => other,
    };
    let utilizations = match utilizations {
        Ok(u) => u,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let profile = match &a.overheads {
        None => None,
        Some(p) => match rtsync_analysis::overheads::Profile::load(p) {
            Ok(p) => Some(p),
            Err(d) => {
                eprint!("{d}");
                return BAD_INPUT;
            }
        },
    };
    let real_threads = !a.no_real_threads;
    if real_threads && let Err(why) = rtsync_rt::sys::probe_realtime() {
        eprintln!(
            "error: running on real threads needs SCHED_FIFO: {why}\n(--no-real-threads runs the analysis and the simulation only)"
        );
        return super::ENVIRONMENT;
    }
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("error: cannot create {}: {e}", a.out.display());
        return BAD_INPUT;
    }
    let c = EvConfig {
        systems: a.systems,
        utilizations,
        hyperperiods: a.hyperperiods,
        max_jobs: 2000,
        seed: a.seed,
        real_threads,
        profile,
    };
    let total = 4 * c.systems * c.utilizations.len() as u64;
    eprintln!(
        "paper 001 Sect. 6.2: {total} task sets (4 configurations x {} utilization(s) x {}), {} hyperperiod(s) each{}",
        c.utilizations.len(),
        c.systems,
        c.hyperperiods,
        if real_threads {
            format!(
                ", on real threads one per CPU ({} CPUs)",
                rtsync_rt::sys::allowed_cpus().len()
            )
        } else {
            String::new()
        }
    );
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} task sets, {elapsed} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let out = ev::run(&c, |d, _| bar.set_position(d));
    bar.finish_and_clear();
    let share = |n: u64, of: u64| {
        if of == 0 {
            "-".to_string()
        } else {
            format!("{:.2}", n as f64 / of as f64)
        }
    };
    let mut csv =
        String::from("config,utilization,systems,analysis,paper001,simulation,real_runs,real\n");
    let mut charts = Vec::new();
    for config in 1..=4 {
        let cells: Vec<&ev::Cell> = out.cells.iter().filter(|x| x.config == config).collect();
        let kinds = rtsync_analysis::generate::fig7::CONFIGS[config - 1];
        println!(
            "Configuration {config} (C {}, D {}, E {}; A and B inherited):",
            kinds[0], kinds[1], kinds[2]
        );
        let mut t = Table::new(&[
            "U",
            "sets",
            "analysis",
            "paper 001",
            "sim: no miss",
            "threads: no miss",
        ]);
        for x in &cells {
            t.row(vec![
                format!("{:.2}", x.utilization),
                x.systems.to_string(),
                share(x.analysis, x.systems),
                share(x.paper001, x.systems),
                share(x.simulation, x.systems),
                share(x.real, x.real_runs),
            ]);
            csv.push_str(&format!(
                "{config},{},{},{},{},{},{},{}\n",
                x.utilization, x.systems, x.analysis, x.paper001, x.simulation, x.real_runs, x.real
            ));
        }
        print!("{}", t.render());
        let line = |name: &str, f: &dyn Fn(&ev::Cell) -> Option<f64>| rtsync_report::plot::Line {
            name: name.into(),
            points: cells
                .iter()
                .filter_map(|x| f(x).map(|y| (x.utilization, y)))
                .collect(),
        };
        let frac = |n: u64, of: u64| (of > 0).then(|| n as f64 / of as f64);
        let mut lines = vec![
            line("analysis (rtsync)", &|x| frac(x.analysis, x.systems)),
            line("analysis (paper 001)", &|x| frac(x.paper001, x.systems)),
            line("simulation: no miss", &|x| frac(x.simulation, x.systems)),
        ];
        if real_threads {
            lines.push(line("real threads: no miss", &|x| {
                frac(x.real, x.real_runs)
            }));
        }
        charts.push(rtsync_report::plot::lines(
            &lines,
            &format!(
                "Configuration {config}: C {}, D {}, E {}",
                kinds[0], kinds[1], kinds[2]
            ),
            "total utilization",
            "share of task sets",
            None,
        ));
    }
    let csv_path = a.out.join("components.csv");
    let svg_path = a.out.join("components.svg");
    if let Err(e) = std::fs::write(&csv_path, csv)
        .and_then(|_| std::fs::write(&svg_path, rtsync_report::plot::grid(&charts, 2)))
    {
        eprintln!("error: cannot write to {}: {e}", a.out.display());
        return BAD_INPUT;
    }
    println!(
        "(analysis: the share of task sets whose every task meets its deadline by the analysis; sim and threads: the share with no deadline miss over {} hyperperiod(s); wrote {} and {})",
        c.hyperperiods,
        csv_path.display(),
        svg_path.display()
    );
    for f in &out.failures {
        println!("failed to run: {f}");
    }
    if out.findings.is_empty() {
        if real_threads {
            println!("No task set the analysis accepts missed a deadline on real threads.");
        }
    } else {
        println!("Misses on real threads that the analysis did not allow:");
        for f in &out.findings {
            let file = a.out.join(format!(
                "config{}-u{:.2}-{}.toml",
                f.config, f.utilization, f.index
            ));
            if let Err(e) = std::fs::write(&file, &f.spec) {
                eprintln!("error: cannot write {}: {e}", file.display());
            }
            println!(
                "  configuration {} U {:.2} set {}: {} missed {} time(s), longest {:?} against a bound of {}; steal {:?}; {}",
                f.config,
                f.utilization,
                f.index,
                f.task,
                f.misses,
                f.measured,
                f.bound,
                f.steal,
                f.why
            );
        }
    }
    if out.failures.is_empty() {
        OK
    } else {
        super::ENVIRONMENT
    }
}

fn soundness(a: SoundnessArgs) -> u8 {
    let spec = SoundnessSpec {
        systems: a.systems,
        components: a.components,
        search_budget: a.search_budget,
        save: a.save.clone(),
        overheads: a.overheads.clone(),
        ..a.stream.spec()
    };
    let cases = match spec.cases() {
        Ok(c) => c,
        Err(e) => {
            if e.contains("hint:") {
                eprintln!("error: {e}");
            } else {
                eprintln!("error: {e}\n  hint: see `rtsync experiment soundness --help`");
            }
            return BAD_INPUT;
        }
    };
    if let Some(shard) = a.shard {
        let prepared = Prepared::Soundness(spec, cases);
        println!("rtsync experiment soundness: shard {shard}");
        let bar = super::progress(shard.range(prepared.jobs()).count() as u64, "systems");
        let part = prepared.run(shard, &|| bar.inc(1));
        bar.finish_and_clear();
        return match part {
            Ok(p) => super::merge::finish(vec![("this run".into(), p)], &a.out, true),
            Err(e) => {
                eprintln!("error: {e}");
                BAD_INPUT
            }
        };
    }
    let bar = super::progress(a.systems * cases.len() as u64, "systems");
    let started = std::time::Instant::now();
    let mut tallies = Vec::with_capacity(cases.len());
    let mut seconds = Vec::with_capacity(cases.len());
    for cfg in &cases {
        let t0 = std::time::Instant::now();
        let t = soundness::run(cfg, &|| bar.inc(1));
        let secs = t0.elapsed().as_secs_f64();
        let max = t
            .quantile(1.0)
            .map_or("-".to_string(), |v| format!("{v:.3}"));
        bar.suspend(|| {
            println!(
                "{:<6} {:<3} {} systems, {} schedulable, {} violation(s), tightness max {max} ({secs:.1} s)",
                cfg.drawn.to_string(),
                cfg.scheduler.to_string(),
                t.systems,
                t.schedulable,
                t.violations.len()
            );
            let shown = if a.verbose { usize::MAX } else { 5 };
            for v in t.violations.iter().take(shown) {
                println!("    {v}");
            }
            if t.violations.len() > shown {
                println!("    ... {} more (--verbose)", t.violations.len() - shown);
            }
        });
        tallies.push(t);
        seconds.push(secs);
    }
    bar.finish_and_clear();
    let failed = print_soundness(&cases, &tallies, Some(&seconds));
    println!(
        "{} in {:.1} s, {}",
        if failed {
            "VIOLATIONS FOUND"
        } else {
            "no violations"
        },
        started.elapsed().as_secs_f64(),
        if a.search_budget > 0 {
            format!(
                "search budget {} events per schedulable system",
                a.search_budget
            )
        } else {
            "sampled runs only (no search)".to_string()
        }
    );
    if let Some(p) = &a.overheads {
        println!(
            "overheads charged from {} (the charged systems simulated and searched)",
            p.display()
        );
    }
    let outcome = Outcome::Soundness {
        spec,
        cases,
        tallies,
    };
    if let Err(bad) = super::merge::write_files(&a.out, &outcome) {
        return bad;
    }
    if failed { super::NOT_SCHEDULABLE } else { OK }
}

fn exhaustive(a: ExhaustiveArgs) -> u8 {
    let (step, tolerance) = (a.step, a.tolerance);
    let spec = SoundnessSpec {
        systems: a.systems,
        search_budget: a.search_budget,
        ..a.stream.spec()
    };
    let cases = match exhaustive::cases(&spec) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}\n  hint: see `rtsync experiment exhaustive --help`");
            return BAD_INPUT;
        }
    };
    if let Some(note) = cases.first().and_then(|c| exhaustive::shape_note(c.shape)) {
        eprintln!("note: {note}");
    }
    let grid = GridOptions {
        step,
        nudges: a.nudges,
        max_plans: a.max_plans,
    };
    let bar = super::progress(a.systems * cases.len() as u64, "systems");
    let started = std::time::Instant::now();
    let mut table = Table::new(&[
        "protocol",
        "sched",
        "systems",
        "schedulable",
        "enumerated",
        "grid runs",
        "tasks",
        "gaps",
        "widest gap",
        "reached",
        "mean share",
        "search beyond",
        "violations",
    ])
    .left(0)
    .left(1);
    let (mut violations, mut gaps) = (0, 0);
    let measure = exhaustive::Measure {
        tolerance,
        seeds: a.search_seeds,
    };
    let (mut searches, mut reached, mut share) = (0, 0, 0.0);
    let tallies = exhaustive::run_all(&cases, &grid, measure, a.save.as_deref(), &|| bar.inc(1));
    for (cfg, t) in cases.iter().zip(tallies) {
        bar.suspend(|| {
            let shown = if a.verbose { usize::MAX } else { 5 };
            for (what, lines) in [("violation", &t.violations), ("gap", &t.gaps)] {
                for v in lines.iter().take(shown) {
                    println!("{} ({}) {what}: {v}", cfg.drawn, cfg.scheduler);
                }
                if lines.len() > shown {
                    println!("    ... {} more (--verbose)", lines.len() - shown);
                }
            }
        });
        violations += t.violations.len();
        gaps += t.gaps.len();
        (searches, reached, share) = (searches + t.searches, reached + t.reached, share + t.share);
        let rate = |x: f64| {
            if t.searches == 0 {
                "-".to_string()
            } else {
                format!("{:.1}%", 100.0 * x / t.searches as f64)
            }
        };
        table.row(vec![
            cfg.drawn.to_string(),
            cfg.scheduler.to_string(),
            t.systems.to_string(),
            t.schedulable.to_string(),
            t.enumerated.to_string(),
            t.plans.to_string(),
            t.tasks.to_string(),
            t.gaps.len().to_string(),
            if t.gaps.is_empty() {
                "-".into()
            } else {
                format!("{:.3}", t.widest)
            },
            rate(t.reached as f64),
            rate(t.share),
            t.beyond.to_string(),
            t.violations.len().to_string(),
        ]);
    }
    bar.finish_and_clear();
    print!("\n{}", table.render());
    println!(
        "enumerated: schedulable systems the grid ran whole (the others need more than --max-plans runs);\n\
         tasks: tasks measured by both; gaps: tasks whose worst on the grid is above the search's by more than\n\
         --tolerance (widest: the ratio of the two); reached: the task searches ({} seed(s) a system,\n\
         --search-seeds) that reach the grid's worst; mean share: of the grid's worst, what they reach;\n\
         search beyond: tasks where the search went further (it also moves delays and durations).",
        a.search_seeds
    );
    if searches > 0 {
        println!(
            "in all: {reached} of {searches} task searches reach the grid's worst ({:.1}%), the mean share {:.4}",
            100.0 * reached as f64 / searches as f64,
            share / searches as f64
        );
    }
    println!(
        "{}, {} in {:.1} s; grid step {step}, {}",
        if violations > 0 {
            "VIOLATIONS FOUND"
        } else {
            "no violations"
        },
        match gaps {
            0 => "no gaps".to_string(),
            g => format!("{g} gap(s) where the search fell short"),
        },
        started.elapsed().as_secs_f64(),
        if a.search_budget > 0 {
            format!("search budget {} events per system", a.search_budget)
        } else {
            "no search (the grid alone)".to_string()
        }
    );
    if gaps > 0 {
        println!(
            "a gap breaks no bound: it is a schedule the search missed, where a bound as low as the\n\
             grid's worst would have gone unnoticed. {}",
            match &a.save {
                Some(d) => format!("Each is saved in {} with its plan.", d.display()),
                None => "--save DIR writes each system and its plan (`rtsync simulate SPEC --plan PLAN`)."
                    .to_string(),
            }
        );
    }
    if violations > 0 {
        super::NOT_SCHEDULABLE
    } else {
        OK
    }
}

/// Prints the per-case table of a soundness run (with `seconds`, the
/// rates too) and its legend; returns whether a violation was found.
pub(super) fn print_soundness(
    cases: &[Config],
    tallies: &[Tally],
    seconds: Option<&[f64]>,
) -> bool {
    let mut head = vec![
        "protocol",
        "sched",
        "systems",
        "schedulable",
        "simulations",
        "events",
        "violations",
        "tasks",
        "p50",
        "p90",
        "p99",
        "max",
    ];
    if seconds.is_some() {
        head.extend(["systems/s", "sims/s"]);
    }
    let mut table = Table::new(&head).left(0).left(1);
    for (k, (c, t)) in cases.iter().zip(tallies).enumerate() {
        let mut row = vec![c.drawn.to_string(), c.scheduler.to_string()];
        row.extend(t.figures());
        if let Some(secs) = seconds {
            let s = secs[k].max(1e-9);
            row.push(format!("{:.0}", t.systems as f64 / s));
            row.push(format!("{:.0}", t.simulations as f64 / s));
        }
        table.row(row);
    }
    print!("\n{}", table.render());
    println!(
        "tightness: per task whose bound exceeds its WCET, the worst simulated response over the\n\
         analytic bound (1.000: the bound was reached; above 1: a violation); p50/p90/p99/max over those tasks{}",
        if seconds.is_some() {
            ";\nsims/s: schedules simulated per second (sampled runs and the search's), on all cores."
        } else {
            "."
        }
    );
    let failed = tallies.iter().any(|t| !t.violations.is_empty());
    if seconds.is_none() {
        for (c, t) in cases.iter().zip(tallies) {
            for v in t.violations.iter().take(5) {
                println!("{} ({}): {v}", c.drawn, c.scheduler);
            }
        }
    }
    failed
}
