//! A described system as it runs on this machine, analysed: the bound a
//! measured response is compared with must be the bound of the system
//! that ran. `rtsync run` and `rtsync demo` both start here.
//!
//! The system is partitioned as the analysis places it, put on this
//! machine's CPUs (an explicit map, or folded onto the CPUs this process
//! may use where they are fewer: [`rtsync_rt::placement`]), and analysed
//! once, folded as it runs.

use rtsync_analysis::{Analysis, Options, analyze};
use rtsync_model::System;
use rtsync_rt::placement::{Placement, place};
use rtsync_rt::{Options as RtOptions, RtError, RunOptions, RunResult, sys};
use std::time::Duration;

/// Why a system could not be placed and analysed as it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unplaced {
    /// The spec or the arguments (the text says what, as it is printed).
    Input(String),
    /// The machine: a CPU this process may not use, or a fold that breaks
    /// a protocol's rule.
    Environment(String),
}

/// `sys` partitioned as the analysis places it, put on this machine's
/// CPUs (`explicit`, or folded onto the allowed ones where they are
/// fewer), and analysed as it runs.
pub fn as_it_runs(
    sys: &System,
    explicit: Option<&[usize]>,
    opts: &Options,
) -> Result<(Placement, Analysis), Unplaced> {
    let partitioned =
        rtsync_analysis::place(sys, opts.heuristic).map_err(|d| Unplaced::Input(d.to_string()))?;
    let placement = place(&partitioned, explicit).map_err(|e| {
        let text = format!("error: {e}\n");
        if e.is_environment() {
            Unplaced::Environment(text)
        } else {
            Unplaced::Input(text)
        }
    })?;
    let analysis = analyze(&placement.system, opts).map_err(|d| {
        Unplaced::Environment(format!(
            "{d}  (the folded system breaks a protocol rule: give --cpus a map that keeps these CPUs apart)\n"
        ))
    })?;
    Ok((placement, analysis))
}

/// The time the hypervisor stole from each machine CPU while a placed
/// system ran (`/proc/stat`; zero where it does not say).
pub struct Stolen {
    before: Option<Vec<Duration>>,
    after: Option<Vec<Duration>>,
    machine: Vec<usize>,
}

impl Stolen {
    /// Stolen from the machine CPU that system CPU `cpu` ran on.
    pub fn on(&self, cpu: usize) -> Duration {
        let m = rtsync_rt::placement::machine_cpu(&self.machine, cpu);
        sys::steal_between(&self.before, &self.after, m)
    }
}

/// Runs the placed system on real threads for `duration`: SCHED_FIFO,
/// pinned as placed and memory locked where `realtime`, the protocols'
/// decisions alone otherwise. `rtsync run`, `rtsync demo` and `rtsync
/// experiment on-threads` run systems this way.
pub fn run_placed(
    p: &Placement,
    duration: Duration,
    realtime: bool,
) -> Result<(RunResult, Stolen), RtError> {
    let o = RunOptions {
        duration,
        domain: RtOptions {
            realtime,
            cpu_map: Some(p.machine.clone()),
            ..RtOptions::default()
        },
        lock_memory: realtime,
        ..RunOptions::default()
    };
    let before = sys::steal_per_cpu();
    let r = rtsync_rt::run(&p.system, &o)?;
    let stolen = Stolen {
        before,
        after: sys::steal_per_cpu(),
        machine: p.machine.clone(),
    };
    Ok((r, stolen))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(cpus: usize) -> System {
        let mut s =
            format!("[platform]\ncpus = {cpus}\nprotocol = \"mpcp\"\n[[resource]]\nname = \"r\"\n");
        for c in 0..cpus {
            s += &format!(
                "[[task]]\nname = \"t{c}\"\nperiod = \"10ms\"\ncpu = {c}\nbody = [ {{ lock = \"r\", hold = \"1ms\" }} ]\n"
            );
        }
        rtsync_model::load_str(&s, None).unwrap().0
    }

    #[test]
    fn an_explicit_map_runs_the_system_as_described_and_the_bound_is_of_it() {
        let sys = spec(2);
        let cpu = rtsync_rt::sys::allowed_cpus()[0];
        let (placed, analysis) = as_it_runs(&sys, Some(&[cpu, cpu]), &Options::default()).unwrap();
        // Both system CPUs on machine CPU 0: folded into one CPU, and the
        // analysis is of that one-CPU system (the resource is local now).
        assert!(placed.folded());
        assert_eq!(placed.system.platform.cpus, 1);
        assert_eq!(analysis.system.platform.cpus, 1);
        let allowed = rtsync_rt::sys::allowed_cpus();
        if allowed.len() < 2 {
            eprintln!("skipped the unfolded case: this process may use one CPU");
            return;
        }
        let (placed, _) = as_it_runs(&sys, Some(&allowed[..2]), &Options::default()).unwrap();
        assert!(!placed.folded());
        assert_eq!(placed.system.platform.cpus, 2);
    }

    #[test]
    fn a_map_short_of_cpus_is_bad_input() {
        let r = as_it_runs(&spec(3), Some(&[0]), &Options::default());
        assert!(matches!(r, Err(Unplaced::Input(_))), "{r:?}");
    }
}
