//! `rtsync`: check, analyse, generate and compare real-time systems that
//! share resources.
//!
//! Exit codes: 0 schedulable (or success), 1 not schedulable, 2 bad input,
//! 3 the environment (SCHED_FIFO not permitted, a CPU not allowed).

mod allocator;
mod bundled;
mod cmd;
mod spec_arg;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc instead of glibc's allocator: analysis sweeps build and drop
/// small tables for every system, and glibc's consolidation of freed
/// chunks cost them about a fifth of their time (`rtsync bench analysis`,
/// docs/PERFORMANCE.md). Through its plain entry points where they align
/// enough (`allocator`).
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

#[derive(Parser)]
#[command(
    name = "rtsync",
    version,
    about = "Resource sharing for real-time systems: locking-protocol analysis on one and many CPUs",
    long_about = "rtsync reads a system description (CPUs, tasks, resources and the critical \
sections each job runs) and tells whether every deadline holds under a locking protocol \
(NPCS, PIP, PCP, IPCP, SRP; MPCP, DPCP, FMLP-S, FMLP-L, DFLP, MSRP, MrsP), with blocking \
bounds that cite the papers they come from.\n\n\
Start with `rtsync demo`, then `rtsync check` and `rtsync analyze` on the bundled example, \
then on a spec of your own (see examples/*.toml for the format).",
    after_help = "Exit codes: 0 schedulable / success, 1 not schedulable, 2 bad input, \
3 the environment (SCHED_FIFO not permitted, a CPU this process may not use)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a spec and print what rtsync derives from it (ceilings,
    /// local and global resources, preemption levels, warnings).
    Check(cmd::check::Args),
    /// Run the schedulability tests and print per-task blocking and
    /// response-time bounds.
    Analyze(cmd::analyze::Args),
    /// Write random systems as spec files (seeded, reproducible).
    Generate(cmd::generate::Args),
    /// Check and analyse the bundled examples under every protocol and print
    /// the comparison.
    Demo(cmd::demo::Args),
    /// Simulate a system event by event and print the simulated response
    /// times beside the analysis bounds; optional trace and Gantt chart.
    Simulate(cmd::simulate::Args),
    /// Run a system on real Linux threads (SCHED_FIFO, pinned, real
    /// locks) and print bound, simulated and measured worst per task.
    Run(cmd::run::Args),
    /// Write one self-contained HTML page for a system: the analysis
    /// with every blocking term and its source, the worst schedule the
    /// simulator's search found, its Gantt chart; CSV and JSON beside.
    Report(cmd::report::Args),
    /// The papers' tables and figures, made on this machine beside the
    /// published ones (`--list` names them).
    Reproduce(cmd::reproduce::Args),
    /// Measure rtsync's speed beside its peers: analysis, simulator, channels, locks.
    Bench(cmd::bench::Args),
    /// Experiments over many random systems: soundness of the analysis
    /// against simulation, of the runtime on real threads against the
    /// bounds, schedulability ratios per protocol, paper 001's evaluation.
    Experiment(cmd::experiment::Args),
    /// Add up the part files of an experiment run as shards (--shard I/N,
    /// a Slurm job array, a Ray cluster) into the files one run writes.
    Merge(cmd::merge::Args),
}

fn main() -> ExitCode {
    // Rust starts with SIGPIPE ignored, so `rtsync demo | head` made every
    // later print panic with "Broken pipe". Restore the default, as command
    // line tools expect: a reader that stops reading ends the writer quietly.
    // SAFETY: setting a signal's disposition to its default, before any
    // thread starts, has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(a) => cmd::check::run(a),
        Command::Analyze(a) => cmd::analyze::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Simulate(a) => cmd::simulate::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Reproduce(a) => cmd::reproduce::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Experiment(a) => cmd::experiment::run(a),
        Command::Merge(a) => cmd::merge::run(a),
    };
    ExitCode::from(code)
}
