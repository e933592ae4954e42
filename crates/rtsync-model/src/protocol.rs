//! The locking protocols rtsync knows, and the static facts about each that
//! the model, validation and the analysis read ([`Protocol::facts`]: one
//! row per protocol).

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

    /// Everything the model, validation and the analysis know about the
    /// protocol, in one row per protocol: the one place a protocol's static
    /// properties are written. (What it does at run time is its resources'
    /// rules, in `rtsync-protocols`; a test there keeps the two in
    /// agreement.)
    pub const fn facts(self) -> ProtocolFacts {
        // The flags a row can carry (see `ProtocolFacts` for each).
        const UNI: u16 = 1;
        const SYNC_CPU: u16 = 1 << 1;
        const SUSPENDS: u16 = 1 << 2;
        const MULTI_UNIT: u16 = 1 << 3;
        const NO_DEADLOCK: u16 = 1 << 4;
        const NESTED_GLOBAL: u16 = 1 << 5;
        const EDF: u16 = 1 << 6;
        const BUSY: u16 = 1 << 7;
        const CEILING_TEST: u16 = 1 << 8;
        const NEVER_WAITS: u16 = 1 << 9;
        const START_TEST: u16 = 1 << 10;
        const NO_NESTING: u16 = 1 << 11;
        const fn row(name: &'static str, flags: u16, migrations: u64) -> ProtocolFacts {
            with_local(name, flags, migrations, None)
        }
        const fn with_local(
            name: &'static str,
            flags: u16,
            migrations: u64,
            local: Option<Protocol>,
        ) -> ProtocolFacts {
            ProtocolFacts {
                name,
                uniprocessor: flags & UNI != 0,
                sync_cpu: flags & SYNC_CPU != 0,
                suspends: flags & SUSPENDS != 0,
                migrations,
                multi_unit: flags & MULTI_UNIT != 0,
                prevents_deadlock: flags & NO_DEADLOCK != 0,
                nested_global: flags & NESTED_GLOBAL != 0,
                edf: flags & EDF != 0,
                busy: flags & BUSY != 0,
                ceiling_test: flags & CEILING_TEST != 0,
                never_waits: flags & NEVER_WAITS != 0,
                start_test: flags & START_TEST != 0,
                nests: flags & NO_NESTING == 0,
                local,
            }
        }
        match self {
            Protocol::Npcs => row("npcs", UNI | NO_DEADLOCK | EDF | BUSY | NEVER_WAITS, 0),
            Protocol::Pip => row("pip", UNI | SUSPENDS, 0),
            Protocol::Pcp => row("pcp", UNI | SUSPENDS | NO_DEADLOCK | CEILING_TEST, 0),
            Protocol::Ipcp => row("ipcp", UNI | NO_DEADLOCK | NEVER_WAITS, 0),
            Protocol::Srp => row(
                "srp",
                UNI | MULTI_UNIT | NO_DEADLOCK | EDF | NEVER_WAITS | START_TEST,
                0,
            ),
            Protocol::Mpcp => with_local("mpcp", SUSPENDS | NO_DEADLOCK, 0, Some(Protocol::Pcp)),
            Protocol::Dpcp => row("dpcp", SYNC_CPU | SUSPENDS | NO_DEADLOCK, 2),
            Protocol::FmlpS => row("fmlp-s", NO_DEADLOCK | NESTED_GLOBAL | EDF | BUSY, 0),
            Protocol::FmlpL => row("fmlp-l", SUSPENDS | NO_DEADLOCK | NESTED_GLOBAL, 0),
            Protocol::Dflp => row("dflp", SYNC_CPU | SUSPENDS | NO_DEADLOCK | NO_NESTING, 2),
            Protocol::Msrp => with_local(
                "msrp",
                MULTI_UNIT | NO_DEADLOCK | EDF | BUSY,
                0,
                Some(Protocol::Srp),
            ),
            Protocol::Mrsp => row("mrsp", NO_DEADLOCK | BUSY, 1),
        }
    }

    /// The name specs and the command line use (`pcp`, `fmlp-s`).
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// Uniprocessor protocols only arbitrate among tasks of one CPU.
    pub fn is_uniprocessor(self) -> bool {
        self.facts().uniprocessor
    }

    /// Critical sections of global resources run on a synchronization CPU.
    pub fn needs_sync_cpu(self) -> bool {
        self.facts().sync_cpu
    }

    /// Whether a job may suspend while it waits for a resource, which the
    /// analysis charges two context switches for. NPCS, IPCP and SRP never
    /// let a job find its resource held; the spinning protocols busy-wait.
    pub fn suspends(self) -> bool {
        self.facts().suspends
    }

    /// Migrations per global critical section that the analysis charges:
    /// there and back for a section on a synchronization CPU (DPCP, DFLP),
    /// one for MrsP's helping.
    pub fn migrations(self) -> u64 {
        self.facts().migrations
    }

    /// Only SRP and MSRP let a resource have more than one unit. An SRP
    /// resource's ceiling moves with the units left free (Baker 1991).
    /// An MSRP global one is granted in strict FIFO order (a request that
    /// does not fit holds back those behind it), so a request still waits
    /// for at most one section per other CPU, and the analysis charges it
    /// as a single-unit spin lock; the soundness search's `multiunit`
    /// shape draws both kinds.
    pub fn allows_multi_unit(self) -> bool {
        self.facts().multi_unit
    }

    /// Whether the protocol itself rules out deadlock, whatever order nested
    /// locks are taken in. PIP does not; FMLP does through group locks.
    pub fn prevents_deadlock(self) -> bool {
        self.facts().prevents_deadlock
    }

    /// Whether a global resource may be locked while another global resource
    /// is held. MPCP, DPCP, DFLP, MSRP and MrsP, as published and as
    /// analysed here, forbid nested global sections; FMLP allows them through
    /// group locks (the nesting-connected resources become one lock).
    pub fn allows_nested_global(self) -> bool {
        self.facts().nested_global
    }

    /// Whether its resources may be nested at all ([`ProtocolFacts::nests`]).
    pub fn allows_nesting(self) -> bool {
        self.facts().nests
    }

    /// Whether a holder keeps its CPU without suspending: it runs
    /// non-preemptively or spins (NPCS, FMLP-S, MSRP, MrsP). A request that
    /// may suspend must not be made inside such a section: the spin or the
    /// non-preemptive stretch would last across the suspension, which no
    /// analysis bounds.
    pub fn keeps_cpu(self) -> bool {
        self.facts().busy
    }

    /// Whether a request passes PCP's ceiling test (Sha, Rajkumar and
    /// Lehoczky 1990). Its deadlock freedom (their Thm 10) holds only among
    /// jobs that took every resource they hold through the test, so such a
    /// resource nests only with resources that pass it too.
    pub fn ceiling_tested(self) -> bool {
        self.facts().ceiling_test
    }

    /// Whether, on one CPU, a job never waits for the resource once it runs
    /// (NPCS, IPCP, SRP): one lower section blocks it per arrival, and a
    /// lock-order cycle through such resources alone cannot close, unless
    /// a job takes them while holding a resource whose waiters lend it a
    /// priority above their ceilings (validation refuses that cycle).
    pub fn never_waits(self) -> bool {
        self.facts().never_waits
    }

    /// Whether a job may be kept from starting while a resource it may
    /// need is short (SRP's start test, Baker 1991). A job held back so
    /// waits without having started, and jobs that started before it run
    /// meanwhile, whole, where their preemption levels pass the test:
    /// under EDF with release jitter that can be more than one section
    /// (the analysis's EDF tests charge it).
    pub fn tests_start(self) -> bool {
        self.facts().start_test
    }

    /// The uniprocessor protocol this multiprocessor protocol prescribes
    /// for its local resources, whose rules it gives them unchanged: PCP
    /// for MPCP (Rajkumar 1990), SRP for MSRP (Gai et al. 2001). A local
    /// resource may name that protocol beside the global ones.
    pub fn local_protocol(self) -> Option<Protocol> {
        self.facts().local
    }

    /// Schedulers under which rtsync analyses this protocol.
    pub fn supports(self, sched: Scheduler) -> bool {
        match sched {
            Scheduler::Fp => true,
            Scheduler::Edf => self.facts().edf,
        }
    }
}

/// A protocol's static properties ([`Protocol::facts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProtocolFacts {
    /// Its name in specs and on the command line.
    pub name: &'static str,
    /// It arbitrates among the tasks of one CPU only.
    pub uniprocessor: bool,
    /// Global sections run on a synchronization CPU.
    pub sync_cpu: bool,
    /// A waiter may suspend (the analysis charges its context switches).
    pub suspends: bool,
    /// Migrations the analysis charges per global section.
    pub migrations: u64,
    /// A resource may have more than one unit.
    pub multi_unit: bool,
    /// It rules out deadlock whatever the nesting order.
    pub prevents_deadlock: bool,
    /// A global resource may be locked while another global one is held.
    pub nested_global: bool,
    /// rtsync analyses it under EDF (every protocol under FP).
    pub edf: bool,
    /// A holder keeps its CPU (non-preemptive or spinning).
    pub busy: bool,
    /// Requests pass PCP's ceiling test.
    pub ceiling_test: bool,
    /// On one CPU, a job never waits for it once it runs.
    pub never_waits: bool,
    /// A job may be kept from starting while it is short (SRP).
    pub start_test: bool,
    /// Its resources may be nested at all (where they stay on one CPU;
    /// `nested_global` says whether across CPUs). Not DFLP's: a request
    /// made inside a section queues again in FIFO order behind every
    /// request issued since the outer one, so the outer section's holding
    /// time grows by a second round of the others' sections, which its
    /// analysis (Brandenburg 2013, one section of each other task per
    /// request) does not bound; the soundness search broke it so on the
    /// `nested` shape (2026-12-02).
    pub nests: bool,
    /// The uniprocessor protocol it prescribes for its local resources.
    pub local: Option<Protocol>,
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

    #[test]
    fn the_rows_hold_together() {
        for p in Protocol::ALL {
            let f = p.facts();
            // A section on a synchronization CPU goes there and back.
            assert_eq!(f.sync_cpu, f.migrations == 2, "{p}");
            // One CPU: nothing migrates, nothing is global.
            if f.uniprocessor {
                assert!(f.migrations == 0 && !f.nested_global && !f.sync_cpu, "{p}");
            }
            // Waiting once running and suspending exclude each other; the
            // ceiling test is a suspending protocol's.
            assert!(
                !(f.never_waits && f.suspends) && f.never_waits <= f.uniprocessor,
                "{p}"
            );
            assert!(f.ceiling_test <= f.suspends, "{p}");
            // Several units need a stack-based start test.
            assert_eq!(
                f.multi_unit,
                matches!(p, Protocol::Srp | Protocol::Msrp),
                "{p}"
            );
        }
        let uni: Vec<_> = Protocol::ALL
            .into_iter()
            .filter(|p| p.is_uniprocessor())
            .collect();
        assert_eq!(uni, Protocol::ALL[..5]);
        assert_eq!(
            Protocol::ALL
                .into_iter()
                .filter(|p| !p.prevents_deadlock())
                .collect::<Vec<_>>(),
            vec![Protocol::Pip]
        );
    }
}
