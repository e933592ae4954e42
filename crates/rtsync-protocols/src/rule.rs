//! What a protocol decides about one resource, as data.
//!
//! The twelve protocols differ along a few independent axes: how a request
//! is arbitrated, whether a waiter spins or suspends, at which priority a
//! waiter and a holder run, whether blocked requesters lend their priority,
//! where the section runs, and what is locked (the resource or its nesting
//! group). A [`Rule`] fixes each axis for one resource; the
//! [`crate::Locks`] machine interprets it.

use rtsync_model::nesting::Side;
use rtsync_model::{Cpu, ResourceId};

/// Order of a resource's wait queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Highest effective priority first, FIFO among equals.
    Priority,
    /// Request order.
    Fifo,
}

/// How a request is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arbitration {
    /// Granted when enough units are free and nobody queues ahead;
    /// otherwise the requester joins the queue.
    Queue(Order),
    /// The original priority ceiling rule (Sha, Rajkumar, Lehoczky 1990):
    /// granted only when the requester's priority is strictly above the
    /// ceiling of every resource of the same scope held by another thread.
    /// A refused requester is blocked by the holder of the highest such
    /// ceiling, and is reconsidered at every release in the scope.
    Ceiling,
    /// The stack resource policy (Baker 1991): [`crate::Locks::may_start`]
    /// keeps a job from starting while a resource it may need is short, so
    /// a request always finds its units. A kernel that skips the start test
    /// still gets mutual exclusion: the request then queues by priority.
    Stack,
}

/// Waiting for a resource held by another thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// The waiter leaves its CPU.
    Suspend,
    /// The waiter busy-waits, consuming its CPU.
    Spin,
}

/// The priority a rule gives a thread while it waits for or holds the
/// resource. The thread's effective priority is the highest of its base
/// priority and every `Hold` that applies (and what it inherits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// No change.
    Base,
    /// Raised to this priority within the normal band (IPCP's ceiling,
    /// MrsP's local ceiling).
    Ceiling(u64),
    /// Raised to the resource's ceiling among the users on the thread's own
    /// CPU (MrsP).
    LocalCeiling,
    /// Boosted band at the resource's ceiling among the users on the other
    /// CPUs than the thread's (MPCP's remote ceiling).
    BoostRemote,
    /// Boosted band at the thread's own base priority (DPCP agents).
    BoostBase,
    /// Boosted band, ordered by the time the request was issued (FMLP-L,
    /// DFLP: earlier requests run first).
    BoostFifo,
    /// Not preemptable on its CPU.
    NonPreemptive,
}

/// Everything a protocol decides about one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// How a request is decided.
    pub arbitration: Arbitration,
    /// How a refused requester waits.
    pub wait: Wait,
    /// Priority from the request until the grant.
    pub waiting: Hold,
    /// Priority from the grant until the release.
    pub holding: Hold,
    /// Whether a blocked requester passes its effective priority to the
    /// thread that blocks it (transitively).
    pub inherit: bool,
    /// The CPU on which the section runs, when not the requester's own
    /// (DPCP, DFLP synchronization CPU).
    pub domain: Option<Cpu>,
    /// The CPU whose system ceiling the resource counts towards
    /// ([`Arbitration::Ceiling`], [`Arbitration::Stack`]).
    pub scope: Cpu,
    /// The PCP ceiling, in priorities ([`Arbitration::Ceiling`]).
    pub ceiling: u64,
    /// What is actually locked: the resource itself, or the representative
    /// of its nesting group (FMLP group locks).
    pub unit: ResourceId,
    /// Whether the resource is shared across CPUs.
    pub global: bool,
    /// MrsP: a spinning waiter may run the preempted holder in its place.
    pub helping: bool,
    /// At a release, the next queued waiter receives the resource (true:
    /// MPCP, the FIFO protocols), or the highest waiter is only woken and
    /// requests again when it runs, so that a higher-priority job running
    /// meanwhile may take the resource first (false: PIP and the other
    /// uniprocessor protocols, as Sha, Rajkumar and Lehoczky 1990 define
    /// the release; Linux rt-mutexes get the same effect by lock
    /// stealing). Handing over instead would let one job be blocked twice
    /// on the same resource by two lower-priority jobs, beyond Theorem 6's
    /// bound.
    pub handoff: bool,
    /// The resource as the nesting rules see it
    /// ([`rtsync_model::nesting`], their one home, which validation
    /// reads too): a request that breaks one is refused.
    pub nesting: Side,
}

impl Rule {
    /// Whether the rule of resource `r` asks for nothing beyond what a
    /// priority-inheritance mutex gives (Linux's PI futex, an rt-mutex):
    /// waiters suspend in priority order and lend their priority to the
    /// holder, transitively; no ceiling, boost, non-preemption or
    /// migration; the resource itself is the lock. A runtime may then
    /// leave such resources to the kernel. PIP's rule is one; whether the
    /// release hands over or lets the woken waiter request again does not
    /// matter here, as both keep the holder's inheritance.
    pub fn is_inheritance_mutex(&self, r: ResourceId) -> bool {
        self.arbitration == Arbitration::Queue(Order::Priority)
            && self.wait == Wait::Suspend
            && self.waiting == Hold::Base
            && self.holding == Hold::Base
            && self.inherit
            && self.domain.is_none()
            && self.unit == r
            && !self.helping
    }

    /// The plain rule (no priority change, priority-ordered suspension):
    /// the starting point each protocol module adjusts.
    pub fn plain(r: ResourceId, scope: Cpu, global: bool, nesting: Side) -> Rule {
        Rule {
            arbitration: Arbitration::Queue(Order::Priority),
            wait: Wait::Suspend,
            waiting: Hold::Base,
            holding: Hold::Base,
            inherit: false,
            domain: None,
            scope,
            ceiling: 0,
            unit: r,
            global,
            helping: false,
            handoff: true,
            nesting,
        }
    }
}
