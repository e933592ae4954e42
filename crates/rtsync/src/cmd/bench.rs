//! `rtsync bench WHAT`: parses the arguments and runs the bench of
//! `rtsync-bench`, which prints its tables; exit 2 for an argument out of
//! range, 3 where the machine cannot measure (no SCHED_FIFO).

use super::{BAD_INPUT, ENVIRONMENT, OK};
use rtsync_bench as bench;

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum What {
    /// Schedulability analysis throughput (MPCP, DPCP, FMLP+, MSRP with
    /// P-FP RTA), the whole verdict and from each set's derived facts
    /// (where SchedCAT's timed region starts); with --schedcat DIR,
    /// SchedCAT on the same sets in the same run: the speed ratios, and
    /// both verdicts and every task's bounds compared.
    Analysis,
    /// Simulator speed: scheduling events per second on one core, per
    /// protocol (16 tasks, 4 CPUs, 4 resources).
    Sim,
    /// How much of the worst case the worst-case search reaches: each
    /// task's bound planted 1 ns below the worst response two searches of
    /// --reference events found, the share one search of --budget events
    /// breaks (the analysis bench's shapes and the soundness experiment's
    /// systems; MPCP, DPCP, FMLP-L, MSRP).
    Search,
    /// Wait-free channels beside rtrb, triple_buffer and seqlock: latency
    /// per side (paced, pressed, saturated), retries, ring throughput.
    Channels,
    /// Locking protocols on real SCHED_FIFO threads beside glibc's
    /// mutexes (none, PRIO_INHERIT, PRIO_PROTECT): uncontended
    /// lock+unlock, hand-off latency with 1..64 waiters, context switch,
    /// release and migration costs, lock state size; writes the overhead
    /// profile (--profile).
    Locks,
    /// Component requests on real threads (paper 001 Table 2): call and
    /// reply per interface kind beside a plain futex request/reply,
    /// inherited hand-off beside the PI futex's, the notification
    /// manager's push+pop against its size (Fig. 6, plotted to --plot);
    /// adds the `[component]` table to the overhead profile (--profile).
    Components,
    /// Spec loading against its size (1,000 to --tasks tasks) beside the
    /// toml crate alone on the same text: linear, 100,000 tasks under 1 s.
    Parse,
}

#[derive(clap::Args)]
pub struct Args {
    #[arg(value_enum)]
    pub what: What,
    /// Task sets per shape and protocol (analysis: 2000 when absent;
    /// search: schedulable systems, 10).
    #[arg(long)]
    pub sets: Option<u64>,
    /// Timed operations per side and case (channels); for locks, one
    /// batch of 64 lock+unlock is timed per 100.
    #[arg(long, default_value_t = 200_000)]
    pub ops: usize,
    /// Elements moved per ring and round in the throughput runs (channels; 5 rounds under each of two consumers).
    #[arg(long, default_value_t = 10_000_000)]
    pub elements: u64,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Systems per protocol (sim).
    #[arg(long, default_value_t = 4)]
    pub systems: u64,
    /// Simulated time per system (sim).
    #[arg(long, default_value = "20s", value_parser = super::positive_duration)]
    pub horizon: rtsync_model::Time,
    /// Skip the multi-threaded (rayon) measurement.
    #[arg(long)]
    pub single_only: bool,
    /// Hand-off rounds per lock and waiter count (locks).
    #[arg(long, default_value_t = 200)]
    pub rounds: usize,
    /// Largest number of queued waiters, powers of two up to it (locks).
    #[arg(long, default_value_t = 64)]
    pub max_waiters: usize,
    /// Analysis, search: only this shape (`a` or `b`; for the search also
    /// `soundness`, the systems `experiment soundness` draws; every one
    /// when absent).
    #[arg(long, value_parser = ["a", "b", "soundness"])]
    pub shape: Option<String>,
    /// Search: events of the search measured, per system (the soundness
    /// experiment's --search-budget).
    #[arg(long, default_value_t = 60_000)]
    pub budget: u64,
    /// Search: events of each of the two reference searches whose worst
    /// responses are planted, per system.
    #[arg(long, default_value_t = 600_000)]
    pub reference: u64,
    /// Analysis, search: only this protocol (when absent, every one
    /// measured: MPCP, DPCP, FMLP-L, MSRP with --analysis classic; MPCP,
    /// DPCP, FMLP-L, MSRP, DFLP with --analysis lp; the search bench
    /// measures the first four).
    #[arg(long, value_parser = ["mpcp", "dpcp", "fmlp-l", "msrp", "dflp"])]
    pub protocol: Option<String>,
    /// Analysis: a SchedCAT port built by `scripts/schedcat/build.sh
    /// SCHEDCAT_CHECKOUT DIR`; runs SchedCAT on the very same sets in this
    /// run and compares speed, verdicts and per-task bounds.
    #[arg(long, value_name = "DIR")]
    pub schedcat: Option<std::path::PathBuf>,
    /// Analysis: classic bounds (the default; DPCP and FMLP+ rows also
    /// time the fixed forms alone), fixed (per request, no job windows)
    /// or lp (beside SchedCAT's LP analyses with --schedcat).
    #[arg(long, default_value = "classic", value_parser = |s: &str| s.parse::<rtsync_analysis::BoundForm>(),
        long_help = super::forms_help(
        "Analysis: classic bounds (the default: the rows of protocols with a job-window form \
         also time the fixed forms alone on the same sets, a table of what the job windows \
         cost and buy), fixed (the per-request forms alone; SchedCAT's DPCP and FMLP+ \
         analyses read response times as the default does, so no target line) or lp (the \
         protocols with an LP form, timed with it, \
         beside SchedCAT's LP analyses with --schedcat)."))]
    pub analysis: rtsync_analysis::BoundForm,
    /// Largest spec, in tasks (parse).
    #[arg(long, default_value_t = 100_000)]
    pub tasks: usize,
    /// Where the locks bench writes the overhead profile that `analyze
    /// --overheads` and `simulate --overheads` read.
    #[arg(long, default_value = "overheads.toml")]
    pub profile: std::path::PathBuf,
    /// Where the components bench writes its plot of the notification
    /// manager (SVG).
    #[arg(long, default_value = "notification-manager.svg")]
    pub plot: std::path::PathBuf,
}

pub fn run(a: Args) -> u8 {
    let done = match a.what {
        What::Analysis => bench::analysis::run(bench::analysis::Config {
            sets: a.sets.unwrap_or(2000),
            seed: a.seed,
            single_only: a.single_only,
            shape: a.shape,
            protocol: a.protocol,
            schedcat: a.schedcat,
            form: a.analysis,
        }),
        What::Parse => bench::parse::run(a.tasks),
        What::Search => bench::search::run(bench::search::Config {
            sets: a.sets.unwrap_or(10),
            seed: a.seed,
            shape: a.shape,
            protocol: a.protocol,
            budget: a.budget,
            reference: a.reference,
        }),
        What::Sim => bench::sim::run(bench::sim::Config {
            systems: a.systems,
            horizon: a.horizon,
            seed: a.seed,
        }),
        // --ops counts operations; a sample is a batch of 64 of them.
        What::Locks => bench::locks::run(bench::locks::Config {
            samples: a.ops / 100,
            rounds: a.rounds,
            max_waiters: a.max_waiters,
            profile: a.profile,
        }),
        // --ops counts round trips per case here.
        What::Components => bench::components::run(bench::components::Config {
            calls: a.ops,
            rounds: a.rounds,
            plot: a.plot,
            profile: a.profile,
        }),
        What::Channels if a.ops < 100 || a.elements == 0 => Err(bench::Error::BadInput(
            "--ops must be at least 100 and --elements at least 1".into(),
        )),
        What::Channels => bench::channels::run(bench::channels::Config {
            ops: a.ops,
            elements: a.elements,
        }),
    };
    match done {
        Ok(()) => OK,
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                bench::Error::BadInput(_) => BAD_INPUT,
                bench::Error::Environment(_) => ENVIRONMENT,
            }
        }
    }
}
