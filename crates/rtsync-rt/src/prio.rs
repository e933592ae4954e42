//! From the machine's effective priorities to SCHED_FIFO's 1..=99.
//!
//! Every key a thread can run at is known ahead of time (RTIC's lesson:
//! compute ceilings before the first request): base priorities, ceilings,
//! local ceilings, boosting keys. They are ranked once, per band, and the
//! bands stacked: normal priorities, then boosted sections above every
//! normal priority, then non-preemptive sections above everything. A
//! change of effective priority is then one table lookup and one
//! `sched_setscheduler`.
//!
//! What SCHED_FIFO cannot express is the machine's order *among equals*
//! (`Eff::seq`: release order, request order for FIFO boosting, grant
//! order for MPCP's equal ceilings). SCHED_FIFO queues equal priorities
//! in the order they became runnable, which is the same order in the
//! cases the protocols rely on (a boosted section is made runnable when
//! granted; FIFO-boosted requests when issued).

use rtsync_protocols::{Config, Eff, Hold, Tier};
use std::fmt;

/// The SCHED_FIFO priority of idle component threads
/// ([`crate::component`]): below every task, so that a thread that
/// replies, losing what it inherited, yields its CPU to its requester at
/// once and a request's round trip is two system calls, not four.
pub const IDLE: i32 = 1;

/// The lowest and highest SCHED_FIFO priority the runtime gives a task.
/// 99 is left to the kernel's own threads (watchdogs, migration), 1 to
/// idle component threads ([`IDLE`]).
pub const LOWEST: i32 = 2;
/// See [`LOWEST`].
pub const HIGHEST: i32 = 98;

/// The SCHED_FIFO priority of each effective priority the machine can
/// give: normal priorities from [`LOWEST`] up, the boosted band above.
#[derive(Clone, Debug)]
pub struct PrioMap {
    normal: Vec<u64>,
    boosted: Vec<u64>,
}

/// More distinct priorities than SCHED_FIFO's range holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooManyLevels {
    /// The levels the system needs.
    pub needed: usize,
}

impl fmt::Display for TooManyLevels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the system needs {} distinct SCHED_FIFO priorities (bases, ceilings, boosting levels, \
             and one above them all for the runtime's bookkeeping), \
             and {}..={} are available; give tasks fewer distinct priorities",
            self.needed, LOWEST, HIGHEST
        )
    }
}

impl std::error::Error for TooManyLevels {}

impl PrioMap {
    /// The map for a fixed-priority configuration.
    pub fn new(cfg: &Config) -> Result<PrioMap, TooManyLevels> {
        let mut normal: Vec<u64> = cfg.level.iter().map(|&l| l as u64).collect();
        let mut boosted = Vec::new();
        for (r, rule) in cfg.rules.iter().enumerate() {
            if rule.arbitration == rtsync_protocols::Arbitration::Ceiling {
                normal.push(rule.ceiling);
            }
            for hold in [rule.holding, rule.waiting] {
                match hold {
                    Hold::Base | Hold::NonPreemptive => {}
                    Hold::Ceiling(c) => normal.push(c),
                    Hold::LocalCeiling => normal.extend(cfg.local_ceiling[r].iter().copied()),
                    Hold::BoostRemote => boosted.extend(cfg.remote_ceiling[r].iter().copied()),
                    Hold::BoostBase => boosted.extend(cfg.level.iter().map(|&l| l as u64)),
                    Hold::BoostFifo => boosted.push(0),
                }
            }
        }
        for v in [&mut normal, &mut boosted] {
            v.sort_unstable();
            v.dedup();
        }
        // The non-preemptive level, and above it the level a thread holds
        // the runtime's bookkeeping lock at ([`PrioMap::books`]).
        let needed = normal.len() + boosted.len() + 2;
        if needed > (HIGHEST - LOWEST + 1) as usize {
            return Err(TooManyLevels { needed });
        }
        Ok(PrioMap { normal, boosted })
    }

    /// The SCHED_FIFO priority for an effective priority: its rank in its
    /// band (a key between known ones, which the machine never produces,
    /// takes the rank below).
    pub fn fifo(&self, e: Eff) -> i32 {
        let rank = |keys: &[u64]| keys.partition_point(|&k| k <= e.key).saturating_sub(1) as i32;
        match e.tier {
            Tier::Normal => LOWEST + rank(&self.normal),
            Tier::Boosted => LOWEST + self.normal.len() as i32 + rank(&self.boosted),
            Tier::NonPreemptive => LOWEST + (self.normal.len() + self.boosted.len()) as i32,
        }
    }

    /// Levels a task can run at (the bookkeeping level not counted).
    pub fn levels(&self) -> usize {
        self.normal.len() + self.boosted.len() + 1
    }

    /// The SCHED_FIFO priority a task's thread holds the runtime's
    /// bookkeeping lock at: above every level a task can run at, so that
    /// no task's thread preempts a holder (`domain`'s module documentation
    /// says why priority inheritance alone is not enough across CPUs).
    pub fn books(&self) -> i32 {
        LOWEST + self.levels() as i32
    }
}
