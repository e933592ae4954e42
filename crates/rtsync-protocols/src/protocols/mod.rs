//! One module per protocol, each building the [`Rule`] of a resource from
//! the system's facts and citing the paper whose rules it writes down.

pub mod dflp;
pub mod dpcp;
pub mod fmlp_l;
pub mod fmlp_s;
pub mod ipcp;
pub mod mpcp;
pub mod mrsp;
pub mod msrp;
pub mod npcs;
pub mod pcp;
pub mod pip;
pub mod srp;

use crate::rule::Rule;
use rtsync_model::{Cpu, Facts, Protocol, ResourceId, System};

/// What a protocol module reads about one resource.
pub struct ResourceFacts<'a> {
    /// The resource.
    pub r: ResourceId,
    /// The system's derived facts (users, ceilings, nesting groups).
    pub facts: &'a Facts,
    /// The CPU of the resource's first user (its CPU when local).
    pub users_cpu: Cpu,
    /// The synchronization CPU, if the spec or the defaults gave one.
    pub sync_cpu: Option<Cpu>,
    /// The resource as the nesting rules see it; every protocol's rule
    /// carries it unchanged.
    pub nesting: rtsync_model::nesting::Side,
}

impl ResourceFacts<'_> {
    /// Whether tasks on more than one CPU use it.
    pub fn global(&self) -> bool {
        self.facts.global[self.r]
    }
    /// The highest priority among all users.
    pub fn ceiling(&self) -> u64 {
        self.facts.ceiling[self.r] as u64
    }
    /// The plain rule for this resource, scoped to its users' CPU.
    pub fn plain(&self) -> Rule {
        Rule::plain(self.r, self.users_cpu, self.global(), self.nesting)
    }
}

/// The rule of resource `r` under its protocol; a resource without a
/// protocol (never the case after validation) gets PIP's rule.
pub(crate) fn rule(sys: &System, f: &Facts, home: &[Cpu], r: ResourceId) -> Rule {
    let rf = ResourceFacts {
        r,
        facts: f,
        nesting: rtsync_model::nesting::Side::of(sys, f, r),
        users_cpu: f.users(r).first().map_or(0, |&t| home[t]),
        sync_cpu: sys.resources[r].sync_cpu,
    };
    match sys.resources[r].protocol {
        Protocol::Npcs => npcs::rule(&rf),
        Protocol::Pip => pip::rule(&rf),
        Protocol::Pcp => pcp::rule(&rf),
        Protocol::Ipcp => ipcp::rule(&rf),
        Protocol::Srp => srp::rule(&rf),
        Protocol::Mpcp => mpcp::rule(&rf),
        Protocol::Dpcp => dpcp::rule(&rf),
        Protocol::FmlpS => fmlp_s::rule(&rf),
        Protocol::FmlpL => fmlp_l::rule(&rf),
        Protocol::Dflp => dflp::rule(&rf),
        Protocol::Msrp => msrp::rule(&rf),
        Protocol::Mrsp => mrsp::rule(&rf),
    }
}
