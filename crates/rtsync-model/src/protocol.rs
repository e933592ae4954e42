//! The locking protocols rtsync knows, and the facts about each that the
//! model, the analysis and (later) the simulator and runtime share.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A resource-access protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// Non-preemptive critical sections.
    Npcs,
    /// Priority inheritance (Sha, Rajkumar, Lehoczky 1990).
    Pip,
    /// Original priority ceiling protocol with the system ceiling (Sha et al. 1990).
    Pcp,
    /// Immediate priority ceiling ("highest locker", POSIX PRIO_PROTECT).
    Ipcp,
    /// Stack resource policy (Baker 1991): preemption levels, multi-unit.
    Srp,
    /// Multiprocessor PCP (Rajkumar 1990; Lakshmanan et al. 2009).
    Mpcp,
    /// Distributed PCP (Rajkumar et al. 1988): sections run on a synchronization CPU.
    Dpcp,
    /// FMLP short resources: FIFO spin, non-preemptive (Block et al. 2007).
    FmlpS,
    /// FMLP long resources / FMLP+: FIFO suspension with priority boosting
    /// (Block et al. 2007; Brandenburg 2011).
    FmlpL,
    /// Distributed FIFO locking protocol (Brandenburg 2013).
    Dflp,
    /// Multiprocessor SRP: FIFO non-preemptive spin, SRP locally (Gai et al. 2001).
    Msrp,
    /// Multiprocessor resource sharing protocol: FIFO spin at the local ceiling,
    /// with helping (Burns and Wellings 2013).
    Mrsp,
}

impl Protocol {
    /// Every protocol, uniprocessor ones first.
    pub const ALL: [Protocol; 12] = [
        Protocol::Npcs,
        Protocol::Pip,
        Protocol::Pcp,
        Protocol::Ipcp,
        Protocol::Srp,
        Protocol::Mpcp,
        Protocol::Dpcp,
        Protocol::FmlpS,
        Protocol::FmlpL,
        Protocol::Dflp,
        Protocol::Msrp,
        Protocol::Mrsp,
    ];

    /// The name specs and the command line use (`pcp`, `fmlp-s`).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Npcs => "npcs",
            Protocol::Pip => "pip",
            Protocol::Pcp => "pcp",
            Protocol::Ipcp => "ipcp",
            Protocol::Srp => "srp",
            Protocol::Mpcp => "mpcp",
            Protocol::Dpcp => "dpcp",
            Protocol::FmlpS => "fmlp-s",
            Protocol::FmlpL => "fmlp-l",
            Protocol::Dflp => "dflp",
            Protocol::Msrp => "msrp",
            Protocol::Mrsp => "mrsp",
        }
    }

    /// Uniprocessor protocols only arbitrate among tasks of one CPU.
    pub fn is_uniprocessor(self) -> bool {
        matches!(
            self,
            Protocol::Npcs | Protocol::Pip | Protocol::Pcp | Protocol::Ipcp | Protocol::Srp
        )
    }

    /// Critical sections of global resources run on a synchronization CPU.
    pub fn needs_sync_cpu(self) -> bool {
        matches!(self, Protocol::Dpcp | Protocol::Dflp)
    }

    /// Whether a job may suspend while it waits for a resource, which the
    /// analysis charges two context switches for. NPCS, IPCP and SRP never
    /// let a job find its resource held; the spinning protocols busy-wait.
    /// How a waiter waits at run time is its resource's rule
    /// (`rtsync_protocols::Rule::wait`); a test there keeps the two in
    /// agreement.
    pub fn suspends(self) -> bool {
        matches!(
            self,
            Protocol::Pip
                | Protocol::Pcp
                | Protocol::Mpcp
                | Protocol::Dpcp
                | Protocol::FmlpL
                | Protocol::Dflp
        )
    }

    /// Migrations per global critical section that the analysis charges:
    /// there and back for a section on a synchronization CPU (DPCP, DFLP),
    /// one for MrsP's helping. The rules (`Rule::domain`, `Rule::helping`)
    /// are what moves threads; a test in `rtsync-protocols` keeps the two
    /// in agreement.
    pub fn migrations(self) -> u64 {
        match self {
            Protocol::Dpcp | Protocol::Dflp => 2,
            Protocol::Mrsp => 1,
            _ => 0,
        }
    }

    /// Only SRP (and MSRP for its local resources) lets a resource have
    /// more than one unit.
    pub fn allows_multi_unit(self) -> bool {
        matches!(self, Protocol::Srp | Protocol::Msrp)
    }

    /// Whether the protocol itself rules out deadlock, whatever order nested
    /// locks are taken in. PIP does not; FMLP does through group locks.
    pub fn prevents_deadlock(self) -> bool {
        !matches!(self, Protocol::Pip)
    }

    /// Whether a global resource may be locked while another global resource
    /// is held. MPCP, DPCP, DFLP, MSRP and MrsP, as published and as
    /// analysed here, forbid nested global sections; FMLP allows them through
    /// group locks (the nesting-connected resources become one lock).
    pub fn allows_nested_global(self) -> bool {
        matches!(self, Protocol::FmlpS | Protocol::FmlpL)
    }

    /// Schedulers under which rtsync analyses this protocol.
    pub fn supports(self, sched: Scheduler) -> bool {
        match sched {
            Scheduler::Fp => true,
            Scheduler::Edf => matches!(
                self,
                Protocol::Npcs | Protocol::Srp | Protocol::Msrp | Protocol::FmlpS
            ),
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        let norm = match norm.as_str() {
            "fmlps" => "fmlp-s",
            "fmlpl" | "fmlp+" | "fmlp-plus" => "fmlp-l",
            "pcp-immediate" | "hlp" => "ipcp",
            other => other,
        };
        Protocol::ALL
            .into_iter()
            .find(|p| p.name() == norm)
            .ok_or_else(|| {
                format!(
                    "unknown protocol `{s}`; expected one of: {}",
                    Protocol::ALL.map(|p| p.name()).join(", ")
                )
            })
    }
}

/// The per-CPU scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Scheduler {
    /// Preemptive fixed priority (higher number runs first).
    #[default]
    Fp,
    /// Preemptive earliest deadline first.
    Edf,
}

impl fmt::Display for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scheduler::Fp => "fp",
            Scheduler::Edf => "edf",
        })
    }
}

impl FromStr for Scheduler {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fp" | "fixed-priority" | "rm" | "dm" => Ok(Scheduler::Fp),
            "edf" => Ok(Scheduler::Edf),
            _ => Err(format!("unknown scheduler `{s}`; expected `fp` or `edf`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_aliases_parse() {
        for p in Protocol::ALL {
            assert_eq!(p.name().parse::<Protocol>(), Ok(p));
        }
        assert_eq!("FMLP+".parse::<Protocol>(), Ok(Protocol::FmlpL));
        assert_eq!("fmlp_s".parse::<Protocol>(), Ok(Protocol::FmlpS));
        let err = "pcpx".parse::<Protocol>().unwrap_err();
        assert!(err.contains("pcpx") && err.contains("mrsp"), "{err}");
    }
}
