//! Paper 001's analysis of component systems (Sudvarg et al. 2024,
//! Sect. 3.2): each task's WCET across the interfaces its requests
//! traverse with the protocol overheads of each kind (Eqs. 1 and 7, with
//! Eq. 8 for an inherited interface), its blocking by interface kind
//! (Eqs. 5 and 6), the hyperbolic bound with blocking and non-unique
//! priorities (Eq. 4, [`crate::bounds::hyperbolic`]) and response-time
//! analysis with the same terms.
//!
//! Where we depart from the text, and why:
//!
//! - **Requests, not sets.** Eqs. 1 and 7 sum over the *set* of
//!   interfaces a task traverses; a task that requests one interface
//!   twice pays its procedure and overhead twice, so we sum over the
//!   requests of its request tree.
//! - **Inherited interfaces block more than once.** The paper gives no
//!   blocking term for PIP interfaces (it notes that PIP may block for
//!   several sections, after Sha et al. 1990). We charge each lower-
//!   priority task once, with its longest request that can block
//!   (Sha, Rajkumar, Lehoczky 1990, Thm. 5: under PIP a job is blocked at
//!   most once per lower job), summed over the lower tasks; with no
//!   inherited interface, Eqs. 5 and 6 take the single largest term as
//!   the paper does (IPCP and NPCS block at most once).
//! - **Equal priorities interfere.** The response-time recurrence counts
//!   tasks of equal priority as higher ones, as Eq. 4's Lemma 1.2 does
//!   (one of them may be released just before).
//!
//! The verdict rtsync gives for a component system is the analysis of its
//! lowered form ([`rtsync_model::component`]), which is searched for
//! counterexamples by the simulator like every other bound; these terms
//! are the paper's, to compare with and to read its examples by.

use crate::bounds::{BoundTask, Modelled, applicable, hyperbolic};
use crate::recurrence::{self, Term};
use rtsync_model::component::{Components, Kind, Request};
use rtsync_model::{Facts, Priority, System, TaskId, Time};

/// The overheads of paper 001's Table 2, per request (worst case).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overheads {
    /// Sending a request to a propagated interface (`C_prop_send`).
    pub prop_call: Time,
    /// Its reply (`C_prop_reply`).
    pub prop_reply: Time,
    /// Sending a request to a fixed interface (`C_fix_send`).
    pub fix_call: Time,
    /// Its reply (`C_fix_reply`).
    pub fix_reply: Time,
    /// A request to an inherited interface whose lock is free
    /// (`C^unlocked`).
    pub pip_unlocked: Time,
    /// One whose lock is held, nobody else waiting (`C^locked`).
    pub pip_locked: Time,
    /// The reply of an inherited interface.
    pub pip_reply: Time,
    /// The notification manager's extra cost when full (`C^locked(c)`).
    pub queue: Time,
    /// One nested priority update down a chain (`C_up`).
    pub nest: Time,
}

impl Overheads {
    /// What one request to an interface of `kind` costs, call and reply,
    /// with `depth` requests nested below it at most (`l(c)`, Eq. 8).
    pub fn request(&self, kind: Kind, depth: u32) -> Time {
        let (call, reply) = self.call_reply(kind, depth);
        add(call, reply)
    }

    /// [`Overheads::request`] in its two halves: what the call costs
    /// before the method's first instruction, and what the reply costs
    /// after its last. The overhead profile charges them there
    /// ([`crate::overheads::Profile::inflate`]).
    pub fn call_reply(&self, kind: Kind, depth: u32) -> (Time, Time) {
        match kind {
            Kind::Propagated => (self.prop_call, self.prop_reply),
            Kind::Fixed | Kind::FixedNpcs => (self.fix_call, self.fix_reply),
            Kind::Inherited => {
                // Eq. 8.
                let locked = add(
                    add(self.pip_locked, self.queue),
                    times(self.nest, depth as u64),
                );
                (self.pip_unlocked.max(locked), self.pip_reply)
            }
        }
    }
}

/// Paper 001's terms for each task, and its verdicts.
#[derive(Clone, Debug, PartialEq)]
pub struct Paper001 {
    /// Per task: Eq. 7's WCET (procedures along its requests and their
    /// overheads included).
    pub wcet: Vec<Time>,
    /// Per task: the blocking term (Eqs. 5 and 6, module documentation
    /// for inherited interfaces).
    pub blocking: Vec<Time>,
    /// Per interface: `B(c)`, the most one request to it can block a
    /// higher task (0 for one nobody requests).
    pub interface_blocking: Vec<Time>,
    /// Per task: the response-time bound with these terms, `None` past the
    /// deadline.
    pub response: Vec<Option<Time>>,
    /// Eq. 4: `Ok`, the first task it fails, or why it does not apply.
    pub hyperbolic: Result<Result<(), TaskId>, String>,
}

fn add(a: Time, b: Time) -> Time {
    a.saturating_add(b)
}

/// `a · k`, saturating at [`Time::MAX`].
fn times(a: Time, k: u64) -> Time {
    a.checked_mul(k).unwrap_or(Time::MAX)
}

/// The deepest chain of requests below `r` (`l(c)` for its interface).
pub(crate) fn depth(r: &Request) -> u32 {
    r.inner.iter().map(|i| 1 + depth(i)).max().unwrap_or(0)
}

/// The execution of one request, its nested requests and all their
/// overheads: what its section holds a CPU for.
fn request_length(c: &Components, o: &Overheads, f: &Facts, task: TaskId, r: &Request) -> Time {
    // An exclusive request is a section of the lowered system; its length
    // there includes the nested requests' procedures.
    let own = match c.interfaces[r.interface].resource {
        Some(res) => section_of(f, task, res),
        None => Time::ZERO,
    };
    add(own, nested_overhead(c, o, r))
}

/// The overheads of one request and of every request nested in it.
fn nested_overhead(c: &Components, o: &Overheads, r: &Request) -> Time {
    let own = o.request(c.interfaces[r.interface].kind, depth(r));
    r.inner
        .iter()
        .map(|x| nested_overhead(c, o, x))
        .fold(own, add)
}

/// The longest section of `task` on `res`.
fn section_of(f: &Facts, task: TaskId, res: usize) -> Time {
    f.sections(task)
        .iter()
        .filter(|s| s.resource == res)
        .map(|s| s.length)
        .max()
        .unwrap_or(Time::ZERO)
}

/// The resources of `sys` that are no interface's and that some task
/// locks (in its own code or inside a method it requests): paper 001's
/// model shares data only through interfaces, so [`analyse`] does not
/// bound the blocking such a resource causes, and its responses are no
/// bound for a system that has one (rtsync's analysis of the lowered
/// system charges it like any other resource). One user is enough: a
/// non-preemptive section blocks every task above its user. The
/// soundness search found both on random topologies once they drew plain
/// resources (seed 121: 41 responses above the lower of the two bounds in
/// 300 systems, among them a task blocked by an NPCS section of the one
/// task that locked it).
pub fn outside_the_model(sys: &System, c: &Components) -> Vec<usize> {
    let f = Facts::new(sys);
    (0..sys.resources.len())
        .filter(|&r| !c.lowers_to(r))
        .filter(|&r| !f.users(r).is_empty())
        .collect()
}

/// Paper 001's analysis of `sys` (a lowered component spec, one CPU's
/// tasks; every task is analysed against every other). Its responses
/// bound the system's only where [`outside_the_model`] is empty.
pub fn analyse(sys: &System, c: &Components, o: &Overheads) -> Paper001 {
    let f = Facts::new(sys);
    let n = sys.tasks.len();
    let prio: Vec<Priority> = sys.tasks.iter().map(|t| t.priority).collect();
    // Eq. 7.
    let wcet: Vec<Time> = (0..n)
        .map(|t| {
            c.requests[t]
                .iter()
                .map(|r| nested_overhead(c, o, r))
                .fold(f.tasks[t].wcet, add)
        })
        .collect();
    // B(c), and per task the longest blocking request it makes to each
    // interface.
    let ni = c.interfaces.len();
    let mut interface_blocking = vec![Time::ZERO; ni];
    let mut longest = vec![vec![Time::ZERO; ni]; n];
    for (t, mine) in longest.iter_mut().enumerate() {
        let mut stack: Vec<&Request> = c.requests[t].iter().collect();
        while let Some(r) = stack.pop() {
            let kind = c.interfaces[r.interface].kind;
            let b = match kind {
                // Only the transitions run at the pool's ceiling.
                Kind::Propagated => o.prop_call.max(o.prop_reply),
                _ => request_length(c, o, &f, t, r),
            };
            let x = r.interface;
            interface_blocking[x] = interface_blocking[x].max(b);
            mine[x] = mine[x].max(b);
            stack.extend(r.inner.iter());
        }
    }
    let any_inherited = c.interfaces.iter().any(|i| i.kind == Kind::Inherited);
    let blocking: Vec<Time> = (0..n)
        .map(|i| {
            let p = prio[i];
            // Can a request to `x` by a lower task block `i`?
            let reaches = |x: usize| {
                let k = c.interfaces[x].kind;
                match k {
                    // Eq. 6.
                    Kind::FixedNpcs => true,
                    // Eq. 5: p_min(c) < p_i <= p_max(c), the lower side
                    // checked per task below.
                    _ => p <= c.ceiling[x],
                }
            };
            let per_task = (0..n).filter(|&j| prio[j] < p).map(|j| {
                (0..ni)
                    .filter(|&x| reaches(x))
                    .map(|x| longest[j][x])
                    .max()
                    .unwrap_or(Time::ZERO)
            });
            if any_inherited {
                per_task.fold(Time::ZERO, add)
            } else {
                per_task.max().unwrap_or(Time::ZERO)
            }
        })
        .collect();
    let response = (0..n)
        .map(|i| response_time(sys, &prio, &wcet, &blocking, i))
        .collect();
    Paper001 {
        hyperbolic: hyperbolic_verdict(sys, &prio, &wcet, &blocking),
        wcet,
        blocking,
        interface_blocking,
        response,
    }
}

/// `R = C_i + B_i + Σ_{j ≠ i, p_j ≥ p_i} ⌈R / T_j⌉ C_j`, `None` once
/// past the deadline.
fn response_time(
    sys: &System,
    prio: &[Priority],
    wcet: &[Time],
    blocking: &[Time],
    i: usize,
) -> Option<Time> {
    let mut terms: Vec<Term> = (sys.tasks.iter().enumerate())
        .filter(|&(j, _)| j != i && prio[j] >= prio[i])
        .map(|(j, t)| Term::new(wcet[j], Time::ZERO, t.period))
        .collect();
    recurrence::solve(add(wcet[i], blocking[i]), sys.tasks[i].deadline, &mut terms)
}

/// Eq. 4, where the bounds apply ([`applicable`]: implicit deadlines, no
/// jitter, rate-monotonic priorities, equal periods among equal ones).
fn hyperbolic_verdict(
    sys: &System,
    prio: &[Priority],
    wcet: &[Time],
    blocking: &[Time],
) -> Result<Result<(), TaskId>, String> {
    let model: Vec<Modelled> = (sys.tasks.iter().enumerate())
        .map(|(i, t)| Modelled {
            name: &t.name,
            prio: prio[i],
            period: t.period,
            deadline: t.deadline,
            jitter: t.jitter,
        })
        .collect();
    applicable(&model)?;
    let ts: Vec<BoundTask> = sys
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| BoundTask {
            id: i,
            u: wcet[i].ratio(t.period),
            b: blocking[i].ratio(t.period),
            prio: prio[i],
        })
        .collect();
    Ok(hyperbolic::check(&ts))
}
