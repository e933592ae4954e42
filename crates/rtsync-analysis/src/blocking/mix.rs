//! Uniprocessor protocols side by side: NPCS, PIP, PCP, IPCP and SRP
//! resources in one system, each local to one CPU ([`rtsync_model::Mix::Uniprocessor`]).
//!
//! No paper bounds this mix as a whole; the bound is derived here from the
//! argument behind Sha, Rajkumar and Lehoczky (1990), Lemma 2 and
//! Theorem 5, which holds resource by resource whatever each resource's
//! protocol:
//!
//! 1. While job `J_i` is pending, a lower-priority job `J_j` of its CPU runs
//!    only at a priority at least `J_i`'s: because it is inside a
//!    non-preemptive section (NPCS), at a ceiling (IPCP), holding a
//!    resource whose SRP ceiling keeps `J_i` from starting, or inheriting
//!    from a job that it blocks (PIP, PCP). Each of these lasts until `J_j`
//!    leaves the outermost section it was in when `J_i` arrived (or last
//!    resumed): `J_j` cannot start a new outermost section meanwhile, as it
//!    runs only inside one. So each lower job blocks `J_i` for at most one
//!    of its sections, per arrival or resumption of `J_i`.
//! 2. A section of `J_j` on resource `r` can be that section only if `r`
//!    *reaches* `J_i`: under NPCS always (nothing preempts it); otherwise
//!    when `r`'s local ceiling, closed over nesting edges as in
//!    [`super::pip::effective_ceilings`] (a holder of an inner resource can
//!    inherit what the outer one passes on), is at least `J_i`'s rank. A
//!    PCP refusal by the system ceiling names a PCP resource whose ceiling
//!    reaches the requester's priority, the same condition.
//! 3. Hence `B_i <= Σ_{j lower} max { |s| : s section of j on a resource
//!    that reaches J_i }`, charged `S_i + 1` times (each self-suspension is
//!    a new arrival). This is PIP's per-job sum (Theorem 5's first half);
//!    its per-semaphore half does not carry over, as a PCP or NPCS section
//!    can block without `J_i` requesting its resource.
//! 4. Where every resource follows NPCS, IPCP or SRP, none of which lets a
//!    job wait once it runs, the sum tightens to its largest term: once a
//!    lower job is inside a section that reaches `J_i`, it runs at or above
//!    `J_i`'s rank (or keeps every job of rank at most the ceiling from
//!    starting), so no other lower job can enter one before it leaves
//!    (Baker 1991, Theorem 6, with NPCS as a ceiling above every task).
//!
//! Mixing PCP with an immediate protocol loses 4: an IPCP grant does not
//! test PCP's system ceiling, so a lower job may enter an IPCP section
//! while another holds a PCP resource, and `J_i` meet both.
//!
//! Point 1 holds for a holder that waits inside an IPCP section for a PIP
//! resource: the PIP holder inherits its waiter's effective priority, the
//! ceiling, so no job at or below it starts meanwhile
//! (`scenarios/mix-pip-inside-ipcp.toml`; hand-worked with the search in
//! `tests/data/mix-holder-suspended-inside-ipcp.toml`).
//!
//! Point 1 needs a job that holds `J_i` back to run whenever `J_i` would:
//! validation refuses a request that may suspend (PIP) inside an SRP
//! section, since while such a holder waits, `J_i`, held back at its start
//! by the section's ceiling, waits for whatever started jobs run, at their
//! own priorities, more than one section each (`rtsync_model::nesting`,
//! `SuspendsWhileHoldingStarts`; found by the soundness search at seed
//! 337, 2026-12-03: a lower job of the holder's priority ran a section and
//! locked the inner resource twice, 6.5% past the bound).
//!
//! Every wait here ends, which the argument needs: validation refuses a
//! lock-order cycle across protocols (no protocol prevents that deadlock),
//! one through NPCS, IPCP or SRP resources taken by a job while it holds
//! a PIP resource (lent a priority above their ceilings, it can wait for
//! them; found through a component topology, 2026-12-03) or while
//! another holds one of them suspended on a PIP request (the nested
//! shape's cycles, seed 361, 2026-12-03), and a PCP
//! resource nested with a resource of another protocol. The
//! second rule came from the soundness search, which found a deadlock
//! without any lock-order cycle: a job holding a PIP (or IPCP) resource
//! asks for a PCP one and is refused by the ceiling of a resource whose
//! holder then asks for the first (PCP's deadlock freedom, Sha et al. 1990
//! Thm 10, assumes every held resource passed the ceiling test). The searched soundness
//! experiment checks the bound (`rtsync experiment soundness --mix
//! uniprocessor`).

use super::{Demand, pip, times};
use crate::context::Context;
use rtsync_model::{Protocol, TaskId, Time};

/// What every task's bound reads, computed once per system: per CPU, each
/// resource's reach (NPCS: every task; else its ceiling closed over
/// nesting), and whether every protocol lets no job wait once it runs.
pub struct Tables {
    reach: Vec<Vec<u32>>,
    immediate: bool,
}

impl Tables {
    /// The tables of `cx`'s system.
    pub fn new(cx: &Context) -> Tables {
        let reach = (0..cx.f.cpus)
            .map(|cpu| {
                let mut reach = pip::effective_ceilings(cx, cpu);
                for (r, res) in cx.sys.resources.iter().enumerate() {
                    if res.protocol == Protocol::Npcs {
                        reach[r] = u32::MAX;
                    }
                }
                reach
            })
            .collect();
        Tables {
            reach,
            immediate: cx.sys.resources.iter().all(|r| r.protocol.never_waits()),
        }
    }
}

/// Task `i`'s blocking and execution terms in a mix of uniprocessor
/// protocols (the module's bound).
pub fn demand(cx: &Context, tb: &Tables, i: TaskId) -> Demand {
    let exec = cx.f.tasks[i].wcet;
    let Some(cpu) = cx.cpu(i) else {
        return Demand {
            exec,
            ..Demand::default()
        };
    };
    let reach = &tb.reach[cpu];
    let rank = cx.rank(i);
    let per_job = cx.lower_local(i).map(|j| {
        cx.f.sections(j)
            .iter()
            .filter(|rq| reach[rq.resource] >= rank)
            .map(|rq| rq.length)
            .max()
            .unwrap_or(Time::ZERO)
    });
    let b = if tb.immediate {
        per_job.max().unwrap_or(Time::ZERO)
    } else {
        per_job.fold(Time::ZERO, Time::saturating_add)
    };
    Demand {
        exec,
        local: times(b, cx.suspensions(i) + 1),
        ..Demand::default()
    }
}
