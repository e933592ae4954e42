//! Where a described system runs on this machine: which machine CPU each
//! of its CPUs uses, and the system that then really runs.
//!
//! A system with more CPUs than the machine allows is folded, CPU `c` on
//! the `c mod m`-th allowed CPU, and the folded system (its CPUs merged
//! where they share a machine CPU) is the one to analyse and simulate, so
//! that a measured response is compared with the bound of what ran. `rtsync
//! run` and `rtsync demo` both place through here.

use rtsync_model::System;
use std::fmt;

/// A system placed on machine CPUs.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The system as it runs (CPUs merged where they share a machine CPU).
    pub system: System,
    /// The machine CPU of each of `system`'s CPUs: the runtime's CPU map.
    pub machine: Vec<usize>,
    /// The machine CPU of each CPU of the described system.
    pub map: Vec<usize>,
}

impl Placement {
    /// Whether some machine CPU carries more than one CPU of the spec.
    pub fn folded(&self) -> bool {
        self.machine.len() < self.map.len()
    }

    /// The map in words: `0,2 -> 0; 1,3 -> 1`.
    pub fn describe(&self) -> String {
        self.machine
            .iter()
            .map(|&m| {
                let from: Vec<String> = (0..self.map.len())
                    .filter(|&c| self.map[c] == m)
                    .map(|c| c.to_string())
                    .collect();
                format!("system CPU {} -> CPU {m}", from.join(","))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Why a system cannot be placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlacementError {
    /// The map names fewer CPUs than the system has (bad input).
    Short {
        /// CPUs of the system.
        needed: usize,
        /// CPUs the map names.
        given: usize,
    },
    /// The map names a CPU this process may not use (the environment).
    NotAllowed {
        /// The CPU named.
        cpu: usize,
        /// The CPUs this process may use.
        allowed: Vec<usize>,
    },
}

impl PlacementError {
    /// Whether the fault is the machine's (affinity, cgroup), not the
    /// input's.
    pub fn is_environment(&self) -> bool {
        matches!(self, PlacementError::NotAllowed { .. })
    }
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementError::Short { needed, given } => write!(
                f,
                "--cpus names {given} CPU(s), the system has {needed}: give one machine CPU per system CPU (a CPU may repeat, folding those system CPUs onto it)"
            ),
            PlacementError::NotAllowed { cpu, allowed } => write!(
                f,
                "CPU {cpu} is not available to this process (allowed: {allowed:?}; see `taskset -p $$` or the cgroup's cpuset)"
            ),
        }
    }
}

/// The default map: the system's CPUs on the allowed CPUs in order,
/// round robin when there are fewer.
pub fn default_map(cpus: usize, allowed: &[usize]) -> Vec<usize> {
    (0..cpus).map(|c| machine_cpu(allowed, c)).collect()
}

/// The machine CPU that system CPU `cpu` runs on under `map`: the map
/// cycles where it is shorter than the system (folding system CPUs onto
/// the machine's, as [`default_map`] does), and an empty map is CPU 0.
/// Every reader of a CPU map goes through here, so that a system CPU is
/// never placed one way and accounted another.
#[inline]
pub fn machine_cpu(map: &[usize], cpu: usize) -> usize {
    if map.is_empty() {
        0
    } else {
        map[cpu % map.len()]
    }
}

/// Places `sys` (partitioned) by `explicit`, or by [`default_map`] on the
/// CPUs this process may use.
pub fn place(sys: &System, explicit: Option<&[usize]>) -> Result<Placement, PlacementError> {
    place_on(sys, explicit, &crate::sys::allowed_cpus())
}

/// [`place`] against a given set of allowed CPUs.
pub fn place_on(
    sys: &System,
    explicit: Option<&[usize]>,
    allowed: &[usize],
) -> Result<Placement, PlacementError> {
    let cpus = sys.platform.cpus.max(1);
    let map = match explicit {
        Some(m) if m.len() < cpus => {
            return Err(PlacementError::Short {
                needed: cpus,
                given: m.len(),
            });
        }
        Some(m) => m[..cpus].to_vec(),
        None => default_map(cpus, allowed),
    };
    if let Some(&cpu) = map.iter().find(|c| !allowed.contains(c)) {
        return Err(PlacementError::NotAllowed {
            cpu,
            allowed: allowed.to_vec(),
        });
    }
    let (system, machine) = sys.fold(&map);
    Ok(Placement {
        system,
        machine,
        map,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn four() -> System {
        let mut src = String::from("[platform]\ncpus = 4\n");
        for c in 0..4 {
            src += &format!(
                "[[task]]\nname = \"t{c}\"\nperiod = \"10ms\"\ncpu = {c}\nwcet = \"1ms\"\n"
            );
        }
        rtsync_model::load_str(&src, None).unwrap().0
    }

    #[test]
    fn fewer_allowed_cpus_fold_round_robin_and_say_so() {
        let p = place_on(&four(), None, &[2, 5]).unwrap();
        assert!(p.folded());
        assert_eq!(p.map, vec![2, 5, 2, 5]);
        assert_eq!(p.machine, vec![2, 5]);
        assert_eq!(p.system.platform.cpus, 2);
        assert_eq!(
            p.describe(),
            "system CPU 0,2 -> CPU 2; system CPU 1,3 -> CPU 5"
        );
    }

    #[test]
    fn a_short_map_cycles_and_an_empty_one_is_cpu_zero() {
        assert_eq!(
            (0..5).map(|c| machine_cpu(&[3, 1], c)).collect::<Vec<_>>(),
            vec![3, 1, 3, 1, 3]
        );
        assert_eq!(machine_cpu(&[], 4), 0);
        assert_eq!(default_map(3, &[]), vec![0, 0, 0]);
    }

    #[test]
    fn enough_cpus_keep_the_system_as_it_is() {
        let p = place_on(&four(), None, &[0, 1, 2, 3, 4]).unwrap();
        assert!(!p.folded());
        assert_eq!(p.system.tasks, four().tasks);
    }

    #[test]
    fn an_explicit_map_is_checked_against_the_system_and_the_machine() {
        let e = place_on(&four(), Some(&[0, 1]), &[0, 1]).unwrap_err();
        assert!(!e.is_environment(), "{e}");
        let e = place_on(&four(), Some(&[0, 1, 0, 7]), &[0, 1]).unwrap_err();
        assert!(e.is_environment());
        assert!(e.to_string().contains("CPU 7 is not available"), "{e}");
        let p = place_on(&four(), Some(&[1, 1, 1, 1]), &[0, 1]).unwrap();
        assert_eq!(p.machine, vec![1]);
        assert_eq!(p.system.platform.cpus, 1);
    }
}
