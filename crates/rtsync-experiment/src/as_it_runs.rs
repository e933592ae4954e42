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

/// The time the hypervisor took, while a placed system ran, from the
/// CPUs each task's response depends on (`/proc/stat`; zero where it
/// does not say).
pub struct Stolen {
    before: Option<Vec<Duration>>,
    after: Option<Vec<Duration>>,
    machine: Vec<usize>,
    /// Per system CPU, the machine CPUs whose lost time can hold up its
    /// tasks ([`reach`]).
    reach: Vec<Vec<usize>>,
}

impl Stolen {
    /// What the hypervisor took during the run, as /proc/stat counts it,
    /// from the machine CPUs that the tasks of system CPU `cpu` depend
    /// on: their own and every one [`reach`] finds.
    pub fn reaching(&self, cpu: usize) -> Duration {
        let own = [rtsync_rt::placement::machine_cpu(&self.machine, cpu)];
        let cpus = self.reach.get(cpu).map_or(&own[..], |r| &r[..]);
        cpus.iter()
            .map(|&m| sys::steal_between(&self.before, &self.after, m))
            .sum()
    }

    /// Where a CPU of the run has a steal clock ([`sys::steal_clock`]),
    /// the counter's tick: up to that much per CPU can have been taken
    /// without being counted. `None` where no CPU of the run has one.
    pub fn uncounted(&self) -> Option<Duration> {
        // An empty map runs everything on machine CPU 0 (`machine_cpu`).
        let cpus: &[usize] = if self.machine.is_empty() {
            &[0]
        } else {
            &self.machine
        };
        cpus.iter()
            .any(|&m| sys::steal_clock(&self.after, m))
            .then(sys::steal_tick)
    }
}

/// Per system CPU of `sys` (placed), the machine CPUs (`machine`, as
/// [`rtsync_rt::placement::machine_cpu`] maps them, each once) whose lost
/// time can hold up a task there: its own, and every CPU joined to it by
/// a resource, the CPUs of its users and the one that serves its sections
/// (DPCP, DFLP): a holder or an agent that is not running holds its
/// waiters up, spinning or suspended, and what holds that holder up
/// (its own wait, a job preempting it that waits) reaches further the
/// same way, so the joined CPUs are taken whole.
pub fn reach(sys: &System, machine: &[usize]) -> Vec<Vec<usize>> {
    let cpus = sys.platform.cpus;
    let mut joined = rtsync_model::disjoint::Disjoint::new(cpus);
    let f = rtsync_model::Facts::new(sys);
    for r in 0..sys.resources.len() {
        let placed = f.users(r).iter().filter_map(|&t| f.cpu_of[t]);
        let mut on = placed.chain(sys.serving_cpu(r)).filter(|&c| c < cpus);
        if let Some(first) = on.next() {
            for c in on {
                joined.join(first, c);
            }
        }
    }
    let roots = joined.roots();
    (0..cpus)
        .map(|c| {
            let mut out: Vec<usize> = (0..cpus)
                .filter(|&x| roots[x] == roots[c])
                .map(|x| rtsync_rt::placement::machine_cpu(machine, x))
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect()
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
        reach: reach(&p.system, &p.machine),
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

    /// A task's lost time can come from every CPU a resource joins to
    /// its own (DPCP): CPUs 0 and 1 share `g`, CPU 2's `d` is served on
    /// CPU 3, CPU 4's `l` is its own and served there. Folded onto fewer
    /// machine CPUs, each machine CPU counts once.
    #[test]
    fn lost_time_reaches_the_cpus_a_resource_joins() {
        let text = "[platform]\ncpus = 5\nprotocol = \"dpcp\"\n\
            [[resource]]\nname = \"g\"\nsync_cpu = 0\n\
            [[resource]]\nname = \"d\"\nsync_cpu = 3\n\
            [[resource]]\nname = \"l\"\nsync_cpu = 4\n\
            [[task]]\nname = \"a\"\nperiod = \"10ms\"\ncpu = 0\nbody = [ { lock = \"g\", hold = \"1ms\" } ]\n\
            [[task]]\nname = \"b\"\nperiod = \"10ms\"\ncpu = 1\nbody = [ { lock = \"g\", hold = \"1ms\" } ]\n\
            [[task]]\nname = \"c\"\nperiod = \"10ms\"\ncpu = 2\nbody = [ { lock = \"d\", hold = \"1ms\" } ]\n\
            [[task]]\nname = \"e\"\nperiod = \"10ms\"\ncpu = 4\nbody = [ { lock = \"l\", hold = \"1ms\" } ]\n";
        let sys = rtsync_model::load_str(text, None).unwrap().0;
        let identity = [0, 1, 2, 3, 4];
        assert_eq!(
            reach(&sys, &identity),
            vec![vec![0, 1], vec![0, 1], vec![2, 3], vec![2, 3], vec![4]]
        );
        // CPUs 0 and 2 on machine CPU 0, 1 and 3 on 1, 4 on 0.
        assert_eq!(
            reach(&sys, &[0, 1]),
            vec![vec![0, 1], vec![0, 1], vec![0, 1], vec![0, 1], vec![0]]
        );
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
