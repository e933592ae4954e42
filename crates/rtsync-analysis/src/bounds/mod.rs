//! Utilization bounds with blocking for rate-monotonic priorities.
//!
//! They apply per CPU to implicit-deadline, jitter-free tasks whose
//! priorities are rate-monotonic (a higher priority never goes with a longer
//! period). Suspension and remote blocking are counted as execution
//! (suspension-oblivious), so the bounds stay sound for suspending
//! protocols; the local blocking term is `B_i`. They do not apply on a CPU
//! that runs other CPUs' critical sections (a DPCP or DFLP
//! synchronization CPU hosting tasks).

pub mod hyperbolic;
pub mod liu_layland;

use crate::blocking::Demand;
use crate::context::Context;
use rtsync_model::{TaskId, Time};

/// One task as the bounds see it: utilization, blocking ratio, priority.
#[derive(Clone, Copy, Debug)]
pub struct BoundTask {
    /// The task.
    pub id: TaskId,
    /// Its utilization, overheads included.
    pub u: f64,
    /// Its blocking over its period.
    pub b: f64,
    /// Its priority.
    pub prio: u32,
}

/// What the bounds need to know of a task to say whether they apply.
#[derive(Clone, Copy, Debug)]
pub struct Modelled<'a> {
    /// Its name, for the reason.
    pub name: &'a str,
    /// Its priority.
    pub prio: u32,
    /// Its period.
    pub period: Time,
    /// Its deadline.
    pub deadline: Time,
    /// Its release jitter.
    pub jitter: Time,
}

/// Whether the bounds apply to these tasks (one CPU's), or why not:
/// implicit deadlines, no jitter, and rate-monotonic priorities, equal
/// priorities with equal periods (see the note in [`hyperbolic`]).
pub fn applicable(ts: &[Modelled]) -> Result<(), String> {
    for t in ts {
        if t.deadline != t.period {
            return Err(format!(
                "task {} has a deadline other than its period",
                t.name
            ));
        }
        if !t.jitter.is_zero() {
            return Err(format!("task {} has release jitter", t.name));
        }
    }
    for a in ts {
        for b in ts {
            if !std::ptr::eq(a, b) && a.prio >= b.prio && a.period > b.period {
                let rel = if a.prio == b.prio {
                    "shares a priority with"
                } else {
                    "outranks"
                };
                return Err(format!(
                    "priorities are not rate-monotonic ({} {rel} {} but has a longer period)",
                    a.name, b.name
                ));
            }
        }
    }
    Ok(())
}

/// The tasks of `cpu` in bound form, or why the bounds do not apply;
/// `agents` is the CPU's list from [`crate::blocking::foreign_loads`].
pub fn tasks_on(
    cx: &Context,
    demands: &[Demand],
    cpu: usize,
    agents: &[(TaskId, Time)],
) -> Result<Vec<BoundTask>, String> {
    let ids = cx.f.on_cpu(cpu);
    let model: Vec<Modelled> = ids
        .iter()
        .map(|&i| {
            let t = &cx.sys.tasks[i];
            Modelled {
                name: &t.name,
                prio: cx.prio(i),
                period: cx.period[i],
                deadline: t.deadline,
                jitter: t.jitter,
            }
        })
        .collect();
    applicable(&model)?;
    // Agents (DPCP, DFLP sections run for tasks of other CPUs) preempt
    // every task of their CPU with a release pattern that follows the
    // requesting tasks' responses, not a period of their own: the bounds'
    // task model has no place for them. (Found by the property test
    // `bounds_imply_rta_and_ll_implies_hyperbolic`: a task placed on a
    // synchronization CPU passed the hyperbolic bound while its
    // response-time bound, agents included, passed its deadline.)
    if let Some(&(x, _)) = agents.iter().find(|&&(x, _)| cx.cpu(x) != Some(cpu)) {
        return Err(format!(
            "CPU {cpu} runs the critical sections of task {} as a synchronization CPU; the utilization bounds do not model that interference",
            cx.sys.tasks[x].name
        ));
    }
    // Nor do they model the sections of a task of the CPU itself that its
    // agents run above every task there: a task above it can wait for
    // one, a blocking the bounds' demands (no local term under DPCP and
    // DFLP) leave out. (Found by the same property test once the
    // partitioning put tasks on synchronization CPUs: test
    // `utilization_bounds_do_not_apply_where_agents_run_a_lower_tasks_sections`.)
    if let Some(&(x, _)) = agents
        .iter()
        .find(|&&(x, _)| ids.iter().any(|&h| cx.is_lower(x, h)))
    {
        return Err(format!(
            "CPU {cpu} runs the critical sections of its task {} as a synchronization CPU, above the tasks of higher priority there, which can wait for them; the utilization bounds do not model that blocking",
            cx.sys.tasks[x].name
        ));
    }
    Ok(ids
        .iter()
        .map(|&i| {
            let d = &demands[i];
            let c = d
                .cpu_time()
                .saturating_add(d.remote)
                .saturating_add(cx.f.tasks[i].suspension);
            // A task that suspends carries its local blocking in its
            // utilization, which the tasks below it add up: while it is
            // suspended a lower task can start a section that holds it
            // back once it resumes, blocking that the lower tasks' own
            // terms (once per *their* arrivals) leave out. The response-
            // time analysis's form 2 charges it so (`fp::Engine::
            // oblivious_cost`, with the example that broke it); for the
            // task itself `u + b` is the same sum either way.
            let suspends = d.suspends() || cx.f.tasks[i].suspensions > 0;
            let (c, local) = if suspends {
                (c.saturating_add(d.local), Time::ZERO)
            } else {
                (c, d.local)
            };
            let u = if c == Time::MAX {
                f64::INFINITY
            } else {
                c.ratio(cx.period[i])
            };
            let b = if local == Time::MAX {
                f64::INFINITY
            } else {
                local.ratio(cx.period[i])
            };
            BoundTask {
                id: i,
                u,
                b,
                prio: cx.prio(i),
            }
        })
        .collect())
}
