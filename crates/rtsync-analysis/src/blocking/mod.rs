//! Blocking bounds, one module per protocol, each citing the paper and
//! equation it implements.
//!
//! Every protocol maps a task to a [`Demand`]: how long the job executes on
//! its own CPU, how long it may spin there, how long lower-priority work may
//! block it there, and how long it may be suspended waiting for resources
//! held on (or sections run on) other CPUs. The fixed-point engine in
//! [`crate::fp`] combines demands into response times.
//!
//! Conventions shared by all modules: a job's own critical sections are part
//! of its execution unless the protocol runs them elsewhere (DPCP, DFLP);
//! each self-suspension gives lower-priority work a fresh chance to block
//! (the job is, for blocking purposes, a new job when it resumes), which is
//! why local terms are multiplied by `suspensions + 1`. All arithmetic
//! saturates at [`Time::MAX`], which the engine reports as unbounded.

pub mod dflp;
pub mod dpcp;
pub mod fmlp;
pub mod fmlp_l;
pub mod fmlp_s;
pub mod lp;
pub mod mix;
pub mod mpcp;
pub mod mrsp;
pub mod msrp;
pub mod npcs;
pub mod pcp;
pub mod pip;
pub mod srp;

use crate::context::{BoundForm, Context};
use rtsync_model::{Cpu, Mix, Protocol, ResourceId, TaskId, Time};
use std::cell::{Cell, OnceCell};

/// Whether rtsync has an LP bound for `p` ([`lp`]): the protocols for
/// which `--analysis lp` can answer differently from `classic`.
pub fn has_lp_form(p: Protocol) -> bool {
    matches!(
        p,
        Protocol::Dpcp
            | Protocol::FmlpL
            | Protocol::Mpcp
            | Protocol::Dflp
            | Protocol::Msrp
            | Protocol::FmlpS
    )
}

/// Whether `p`'s classic bound has a job-window form, which reads the
/// response times of the jobs whose requests a job can wait for: the
/// protocols for which `--analysis fixed` can answer differently from
/// `classic` ([`BoundForm`]). DPCP: a request waits for the agents' work
/// of the higher jobs in the job's window, not per request
/// ([`dpcp::window_demand`]); FMLP+: the FIFO waits of the requests in the
/// job's window ([`fmlp_l`]).
pub fn has_job_window(p: Protocol) -> bool {
    matches!(p, Protocol::Dpcp | Protocol::FmlpL)
}

/// Whether `--analysis fixed` can answer differently from `classic` for a
/// system analysed under `protocol` (`None` for a mix, whose tables have
/// no job window) and `scheduler`: a protocol with job windows
/// ([`has_job_window`]) on every resource, under fixed priorities (the
/// windows enter through the refinement of the fixed-priority rounds,
/// [`lp_applies`]).
pub fn job_windows_apply(protocol: Option<Protocol>, scheduler: rtsync_model::Scheduler) -> bool {
    protocol.is_some_and(has_job_window) && lp_applies(scheduler)
}

/// Whether the LP bounds are charged under `scheduler`. They enter
/// through the job-window refinement of the fixed-priority rounds
/// ([`DemandTable::refine`]); the EDF tests charge each task's fixed
/// blocking terms ([`demands`]), so under EDF `--analysis lp` answers as
/// `classic` does, and so does `--analysis fixed` (the job windows enter
/// through the same refinement).
pub fn lp_applies(scheduler: rtsync_model::Scheduler) -> bool {
    scheduler == rtsync_model::Scheduler::Fp
}

/// The names of the protocols that have an LP form, comma-separated, as
/// help texts and errors list them.
pub fn lp_protocols() -> String {
    names_where(has_lp_form)
}

/// The names of the protocols for which `has` holds, comma-separated.
fn names_where(has: fn(Protocol) -> bool) -> String {
    let names: Vec<&str> = Protocol::ALL
        .into_iter()
        .filter(|&p| has(p))
        .map(Protocol::name)
        .collect();
    names.join(", ")
}

/// The names of the protocols whose classic bound has a job-window form
/// ([`has_job_window`]), comma-separated, as help texts list them.
pub fn job_window_protocols() -> String {
    names_where(has_job_window)
}

/// Where a protocol's bound comes from: the module that holds it, the
/// paper and equation it implements, and what it charges, as a reader of
/// a report wants them beside the numbers (docs/ANALYSIS.md is the same
/// index, with the choices explained).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The module, under `crates/rtsync-analysis/src/`.
    pub module: &'static str,
    /// The paper and equation.
    pub paper: &'static str,
    /// What the bound charges, in a sentence.
    pub charges: &'static str,
}

/// The source of the bounds of a component system's requests (paper 001),
/// charged beside the protocols' where a system has components.
pub const COMPONENTS_SOURCE: Source = Source {
    module: "components.rs",
    paper: "Sudvarg et al. 2024 (paper 001), Sect. 3.2, Eqs. 1, 5-8",
    charges: "each task's WCET across the interfaces its requests traverse with their overheads, and its blocking by interface kind (PIP, IPCP, NPCS)",
};

/// The source of `p`'s classic bound.
pub fn source(p: Protocol) -> Source {
    let (module, paper, charges) = match p {
        Protocol::Npcs => (
            "blocking/npcs.rs",
            "Mok 1983; paper 001 Eq. 6",
            "the longest lower-priority section on the CPU, once per release and per self-suspension",
        ),
        Protocol::Pip => (
            "blocking/pip.rs",
            "Sha, Rajkumar, Lehoczky 1990, Theorem 6",
            "min(one section per lower job, one per semaphore), ceilings closed over nesting",
        ),
        Protocol::Pcp | Protocol::Ipcp => (
            "blocking/pcp.rs",
            "Sha, Rajkumar, Lehoczky 1990, Theorem 12; paper 001 Eq. 5",
            "one lower section on a resource whose ceiling reaches the task",
        ),
        Protocol::Srp => (
            "blocking/srp.rs",
            "Baker 1991",
            "one section of a lower preemption level",
        ),
        Protocol::Mpcp => (
            "blocking/mpcp.rs",
            "Rajkumar 1990; Lakshmanan, de Niz, Rajkumar 2009 (corrected)",
            "per request a fixed point with (⌈W/T⌉+1) higher requests, sections keyed by remote ceilings, suspended for that wait less the sections of higher tasks of its own CPU (their interference already); locally, per start or resumption, one global section of each lower task and the PCP blocker's excess over its own",
        ),
        Protocol::Dpcp => (
            "blocking/dpcp.rs",
            "Rajkumar, Sha, Lehoczky 1988; Rajkumar 1991; SchedCAT's job window",
            "per synchronization CPU the smaller of the per-request fixed point and the job-window bound",
        ),
        Protocol::FmlpS => (
            "blocking/fmlp_s.rs",
            "Block, Leontyev, Brandenburg, Anderson 2007",
            "FIFO spin, one section per other CPU (group locks); non-preemptive arrival blocking",
        ),
        Protocol::FmlpL => (
            "blocking/fmlp_l.rs",
            "Block et al. 2007; Brandenburg 2011, Sec. 6.4.3 (FMLP+)",
            "the smaller of one section of each task of another CPU queued or boosted ahead and the job-window FMLP+ bound",
        ),
        Protocol::Dflp => (
            "blocking/dflp.rs",
            "Brandenburg 2013",
            "per request one section of each other task served on the same synchronization CPU",
        ),
        Protocol::Msrp => (
            "blocking/msrp.rs",
            "Gai, Lipari, Di Natale 2001",
            "FIFO spin, one section per other CPU; SRP locally; a lower non-preemptive spin plus section as blocking",
        ),
        Protocol::Mrsp => (
            "blocking/mrsp.rs",
            "Burns and Wellings 2013",
            "access cost |G(r)| · c_r, blocking of one access",
        ),
    };
    Source {
        module,
        paper,
        charges,
    }
}

/// What a job of one task asks of the platform.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Demand {
    /// Execution on the task's own CPU.
    pub exec: Time,
    /// Busy-waiting on its own CPU (preemptable or not, as the protocol says).
    pub spin: Time,
    /// Blocking by lower-priority work on its own CPU.
    pub local: Time,
    /// Suspension waiting for remote holders or remote execution.
    pub remote: Time,
    /// With a spin-lock LP form (`--analysis lp`), one bound on everything
    /// spinning and arrival blocking add to the job's busy window: its own
    /// spin and arrival blocking *and the spin of the jobs above it on its
    /// CPU released in the window* (Wieder and Brandenburg 2013). The
    /// engine then charges `spin + local` as this and the jobs above their
    /// execution alone. `spin` and `local` keep the job's own classic
    /// terms, which the tasks below it read.
    pub joint: Option<Time>,
}

impl Demand {
    /// Execution charged as interference to lower-priority tasks.
    pub fn cpu_time(&self) -> Time {
        self.exec.saturating_add(self.spin)
    }
    /// Whether the job can suspend (through `remote`); self-suspension is
    /// added by the engine.
    pub fn suspends(&self) -> bool {
        !self.remote.is_zero()
    }
    /// This demand with no term below `earlier`'s: each part the larger
    /// of the two (the joint bound too, where both have one).
    fn at_least(self, earlier: Demand) -> Demand {
        Demand {
            exec: self.exec.max(earlier.exec),
            spin: self.spin.max(earlier.spin),
            local: self.local.max(earlier.local),
            remote: self.remote.max(earlier.remote),
            joint: match (self.joint, earlier.joint) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (j, _) => j,
            },
        }
    }
}

/// The demands of all tasks under the system's protocols (one, or a mix
/// that [`rtsync_model::mix`] accepts). MPCP, DPCP and the two mixes
/// build their per-system tables once here. These are the *fixed* forms,
/// which need no response times; DPCP and FMLP+ also have a job-window
/// form that reads them ([`DemandTable::refine`]), which the engine
/// iterates.
pub fn demands(cx: &Context) -> Vec<Demand> {
    DemandTable::new(cx).into_vec()
}

/// Each task's demand, computed the first time it is asked for.
///
/// The bounds of different tasks are independent of one another, so a
/// verdict-only analysis that stops at the first miss computes the demands
/// of the tasks it looked at (and of the tasks above them) and no others;
/// in sweeps of overloaded systems that is most of the cost saved.
pub struct DemandTable<'c> {
    cx: &'c Context<'c>,
    rule: Method,
    cells: Vec<OnceCell<Demand>>,
    /// Per task, the demand refined by the job-window form at the latest
    /// response-time estimates, which [`DemandTable::get`] answers with.
    refined: Vec<Cell<Option<Demand>>>,
}

/// How one task's demand is computed.
enum Method {
    /// No protocol: the task's execution alone.
    Plain,
    Mpcp(mpcp::Tables),
    Dpcp(dpcp::Tables),
    Dflp(dflp::Tables),
    Msrp(msrp::Tables),
    Fmlp(fmlp::Tables),
    FmlpL(fmlp_l::Tables),
    /// FMLP-S with `--analysis lp`: the spin-lock program's keys.
    FmlpS(lp::spin::Keys),
    Uni(mix::Tables),
    Each(fn(&Context, TaskId) -> Demand),
}

impl<'c> DemandTable<'c> {
    /// Builds the protocol's per-system tables; computes no demand yet.
    pub fn new(cx: &'c Context<'c>) -> DemandTable<'c> {
        let rule = match cx.mix {
            Mix::Empty => Method::Plain,
            Mix::Uniprocessor => Method::Uni(mix::Tables::new(cx)),
            Mix::Fmlp => Method::Fmlp(fmlp::Tables::new(cx)),
            Mix::One(Protocol::Mpcp) => Method::Mpcp(mpcp::Tables::new(cx)),
            Mix::One(Protocol::Dpcp) => Method::Dpcp(dpcp::Tables::new(cx)),
            // DFLP's tables serve its LP form alone.
            Mix::One(Protocol::Dflp) if cx.form == BoundForm::Lp => {
                Method::Dflp(dflp::Tables::new(cx))
            }
            Mix::One(Protocol::FmlpL) => Method::FmlpL(fmlp_l::Tables::new(cx)),
            Mix::One(Protocol::Msrp) => Method::Msrp(msrp::Tables::new(cx)),
            Mix::One(Protocol::FmlpS) if cx.form == BoundForm::Lp => {
                Method::FmlpS(lp::spin::Keys::groups(cx))
            }
            Mix::One(p) => Method::Each(match p {
                Protocol::Npcs => npcs::demand,
                Protocol::Pip => pip::demand,
                Protocol::Pcp | Protocol::Ipcp => pcp::demand,
                Protocol::Srp => srp::demand,
                Protocol::FmlpS => fmlp_s::demand,
                Protocol::Mrsp => mrsp::demand,
                Protocol::Dflp => dflp::demand,
                Protocol::Mpcp | Protocol::Dpcp | Protocol::FmlpL | Protocol::Msrp => {
                    unreachable!("handled above")
                }
            }),
        };
        DemandTable {
            cx,
            rule,
            cells: (0..cx.n()).map(|_| OnceCell::new()).collect(),
            refined: (0..cx.n()).map(|_| Cell::new(None)).collect(),
        }
    }

    /// The demand of task `i`: the job-window refinement if one was made
    /// ([`DemandTable::refine`]), else the fixed form, computed now if it
    /// was not before.
    pub fn get(&self, i: TaskId) -> Demand {
        self.refined[i].get().unwrap_or_else(|| self.fixed(i))
    }

    /// Whether some task's bound has a job-window form, which reads
    /// response times: the engine then iterates the bounds with them.
    pub fn windowed(&self) -> bool {
        match self.rule {
            _ if self.cx.form == BoundForm::Fixed => false,
            Method::Dpcp(_) | Method::FmlpL(_) => true,
            Method::Mpcp(_) | Method::Dflp(_) | Method::Msrp(_) => self.cx.form == BoundForm::Lp,
            Method::FmlpS(_) => true,
            _ => false,
        }
    }

    /// Whether the job-window form's waits are served in priority order
    /// (DPCP's agents), not FIFO. Its misses then come at the bottom of a
    /// CPU, so the verdict's rounds look there first
    /// ([`crate::fp::schedulable`]); and a job's demand grows with its own
    /// window (it waits for every higher agent's jobs there), so a look
    /// whose estimate rose refines and solves again at once
    /// ([`crate::fp`]'s climb).
    pub fn served_by_priority(&self) -> bool {
        matches!(self.rule, Method::Dpcp(_))
    }

    /// Refines `i`'s demand with the job-window form at the response-time
    /// estimates `resp` (`resp[i]` the job's own window): each term the
    /// smaller of the fixed and the job-window bound, as the protocol's
    /// module decides. Both are sound where every job of every task
    /// completes within its estimate, which holds at the engine's fixed
    /// point. Later [`DemandTable::get`]s answer with it.
    ///
    /// After the first, a refinement never lowers a term: the engine's
    /// rounds only raise the estimates, and resume each recurrence where
    /// it stopped, which is below its least solution only while every
    /// term it reads has only risen. A module's parts need not each rise
    /// with the estimates (MPCP's LP form moves blocking between its
    /// local and remote terms as the optimum's split changes, found by
    /// `the_rounds_end_at_a_fixed_point` in a debug build: seed 58534),
    /// so each part is held at its largest so far. Sound: the last
    /// refinement, at the fixed point's estimates, bounds each delay, and
    /// a larger term bounds it too.
    pub fn refine(&self, i: TaskId, resp: &[Time]) -> Demand {
        let fixed = self.fixed(i);
        let d = match &self.rule {
            Method::Dpcp(tb) => dpcp::window_demand(self.cx, tb, i, fixed, resp),
            Method::FmlpL(tb) => fmlp_l::window_demand(self.cx, tb, i, fixed, resp),
            Method::Mpcp(tb) => mpcp::window_demand(self.cx, tb, i, fixed, resp),
            Method::Dflp(tb) => dflp::window_demand(self.cx, tb, i, fixed, resp),
            Method::Msrp(tb) => msrp::window_demand(self.cx, tb, i, fixed, resp),
            Method::FmlpS(keys) => fmlp_s::window_demand(self.cx, keys, i, fixed, resp),
            _ => fixed,
        };
        let d = match self.refined[i].get() {
            Some(earlier) => d.at_least(earlier),
            None => d,
        };
        self.refined[i].set(Some(d));
        d
    }

    /// Drops every refinement: [`DemandTable::get`] answers with the fixed
    /// forms again, and a later [`DemandTable::refine`] starts afresh, at
    /// any estimates (FMLP+'s job windows keep counts that assume rising
    /// estimates: dropped too; until 2026-12-03 they were kept, and a
    /// refinement at lower estimates after this one read the higher
    /// estimates' counts, which the engine never did but nothing stopped).
    pub fn unrefine(&self) {
        for c in &self.refined {
            c.set(None);
        }
        if let Method::FmlpL(tb) = &self.rule {
            tb.forget();
        }
    }

    /// The fixed form of `i`'s demand, which needs no response times.
    pub fn fixed(&self, i: TaskId) -> Demand {
        *self.cells[i].get_or_init(|| {
            let cx = self.cx;
            match &self.rule {
                Method::Plain => Demand {
                    exec: cx.f.tasks[i].wcet,
                    ..Demand::default()
                },
                Method::Mpcp(tb) => mpcp::demand(cx, tb, i),
                Method::Dpcp(tb) => dpcp::demand(cx, tb, i),
                Method::Dflp(tb) => dflp::tabled_demand(cx, tb, i),
                Method::Msrp(tb) => msrp::demand(cx, tb, i),
                Method::Fmlp(tb) => fmlp::demand(cx, tb, i),
                Method::FmlpL(tb) => fmlp_l::demand(cx, tb, i),
                Method::FmlpS(_) => fmlp_s::demand(cx, i),
                Method::Uni(tb) => mix::demand(cx, tb, i),
                Method::Each(one) => one(cx, i),
            }
        })
    }

    /// A cheap floor of the time one job of `i` keeps its CPU busy (never
    /// above its demand's `cpu_time`), for ordering looks only: the job's
    /// execution and, under MSRP, whose tables hold it, its spin. Reads no
    /// blocking term, which costs as much as the demand itself.
    pub fn cpu_time_hint(&self, i: TaskId) -> Time {
        let wcet = self.cx.f.tasks[i].wcet;
        match &self.rule {
            Method::Msrp(tb) => wcet.saturating_add(tb.job_spin(i)),
            _ => wcet,
        }
    }

    /// Whether `i`'s demand has been refined from the estimates (since
    /// the last [`DemandTable::unrefine`]).
    pub fn is_refined(&self, i: TaskId) -> bool {
        self.refined[i].get().is_some()
    }

    /// The demand of `i` if it has been computed.
    pub fn computed(&self, i: TaskId) -> Option<Demand> {
        self.refined[i]
            .get()
            .or_else(|| self.cells[i].get().copied())
    }

    /// Every demand, computing those not yet asked for.
    pub fn into_vec(self) -> Vec<Demand> {
        (0..self.cells.len()).map(|i| self.get(i)).collect()
    }
}

/// Per CPU, the execution that the protocol places there on behalf of tasks
/// of other CPUs (agents on a synchronization CPU): `(task, per-job time)`.
/// Tasks hosted on that CPU suffer it as interference above every normal
/// priority.
pub fn foreign_loads(cx: &Context) -> Vec<Vec<(TaskId, Time)>> {
    match cx.mix {
        Mix::One(Protocol::Dpcp) | Mix::One(Protocol::Dflp) => sync_cpu_loads(cx),
        _ => vec![Vec::new(); cx.f.cpus],
    }
}

/// Per CPU and task, the total length of the task's outermost sections
/// whose resource is synchronized on that CPU (tasks without any omitted).
/// A CPU that hosts no task gets an empty list: its agents interfere with
/// no one (the usual DPCP layout, a synchronization CPU of its own).
pub(crate) fn sync_cpu_loads(cx: &Context) -> Vec<Vec<(TaskId, Time)>> {
    let mut out = vec![Vec::new(); cx.f.cpus];
    let hosts: Vec<bool> = (0..cx.f.cpus).map(|c| !cx.f.on_cpu(c).is_empty()).collect();
    if !(0..cx.f.n_resources).any(|r| sync_cpu(cx, r).is_some_and(|s| hosts.get(s) == Some(&true)))
    {
        return out;
    }
    let mut per = vec![Time::ZERO; cx.f.cpus];
    for t in 0..cx.n() {
        per.fill(Time::ZERO);
        for (s, rq) in cx.f.agent_sections(cx.sys, t) {
            if hosts.get(s) == Some(&true) {
                per[s] = per[s].saturating_add(rq.length);
            }
        }
        for (s, &load) in per.iter().enumerate() {
            if !load.is_zero() {
                out[s].push((t, load));
            }
        }
    }
    out
}

/// The CPU whose agents run `r`'s sections ([`System::serving_cpu`]).
///
/// [`System::serving_cpu`]: rtsync_model::System::serving_cpu
pub(crate) fn sync_cpu(cx: &Context, r: ResourceId) -> Option<Cpu> {
    cx.sys.serving_cpu(r)
}

/// `⌈(r_i + r_x) / t⌉`: jobs of a task with period `t` and response time
/// `r_x` that overlap a window of length `r_i` (the job-window forms).
///
/// Most windows are shorter than the period: one job, found by a
/// comparison instead of a 64-bit division (tens of cycles, and the
/// job-window forms take one per task pair per look).
#[inline]
pub(crate) fn jobs(r_i: Time, r_x: Time, t: Time) -> u64 {
    let (w, t) = (r_i.saturating_add(r_x).ns(), t.ns().max(1));
    if w <= t {
        (w > 0) as u64
    } else {
        w.div_ceil(t)
    }
}

/// A sum without one of its parts (a task's own cost from a sum over
/// tasks); a saturated sum stays saturated, never less than the true one.
pub(crate) fn excluding(sum: Time, own: Time) -> Time {
    if sum == Time::MAX {
        sum
    } else {
        sum.saturating_sub(own)
    }
}

/// `a * k`, saturating.
pub(crate) fn times(a: Time, k: u64) -> Time {
    a.checked_mul(k).unwrap_or(Time::MAX)
}

/// The classic ceiling-blocking term shared by PCP, IPCP and SRP, and used
/// for local resources by MPCP and MSRP: the longest section (at any nesting
/// level, so that a section containing nested ones counts whole) of a
/// lower-precedence task on the same CPU, on a resource whose local ceiling
/// reaches the task's rank. Only resources accepted by `filter` count.
pub(crate) fn ceiling_blocking(
    cx: &Context,
    i: TaskId,
    filter: impl Fn(ResourceId) -> bool,
) -> Time {
    // Where no resource passes the test, no section can: asked per
    // resource (a few) before walking every section of every lower task
    // (under MSRP on the bench's shapes, nearly every resource is global
    // and this term is zero).
    let Some(c) = cx.cpu(i) else {
        return Time::ZERO;
    };
    let rank = cx.rank(i);
    if !(0..cx.f.n_resources).any(|r| filter(r) && cx.local_ceiling(r, c) >= rank) {
        return Time::ZERO;
    }
    ceiling_sections(cx, i, filter)
        .map(|(_, rq)| rq.length)
        .max()
        .unwrap_or(Time::ZERO)
}

/// The sections [`ceiling_blocking`] chooses from, as `(task, section)`:
/// every section (at any nesting level) of a lower-precedence
/// task of `i`'s CPU on a resource accepted by `filter` whose local
/// ceiling reaches `i`'s rank. None for a task without a CPU. The one home
/// of that rule: PCP's and SRP's blocking, MPCP's local term and its LP,
/// MSRP's local resources and MrsP's arrival blocking read it.
pub(crate) fn ceiling_sections<'a>(
    cx: &'a Context,
    i: TaskId,
    filter: impl Fn(ResourceId) -> bool + 'a,
) -> impl Iterator<Item = (TaskId, &'a rtsync_model::Request)> + 'a {
    // `lower_local` is empty for a task without a CPU.
    let (cpu, rank) = (cx.cpu(i), cx.rank(i));
    cx.lower_local(i)
        .flat_map(move |j| cx.f.sections(j).iter().map(move |rq| (j, rq)))
        .filter(move |(_, rq)| {
            filter(rq.resource) && cpu.is_some_and(|c| cx.local_ceiling(rq.resource, c) >= rank)
        })
}

/// Execution, and one section of a lower job on a resource whose ceiling
/// reaches `i` per arrival of `i` (its release and each resumption from a
/// self-suspension): the bound of PCP and IPCP (Sha, Rajkumar, Lehoczky
/// 1990, Theorem 12) and of SRP (Baker 1991, Theorem 6), whose modules
/// say why it holds for each.
pub(crate) fn one_ceiling_section_per_arrival(cx: &Context, i: TaskId) -> Demand {
    Demand {
        exec: cx.f.tasks[i].wcet,
        local: times(ceiling_blocking(cx, i, |_| true), cx.suspensions(i) + 1),
        ..Demand::default()
    }
}

/// Total length of the outermost sections of `i`.
pub(crate) fn own_sections(cx: &Context, i: TaskId) -> Time {
    cx.f.sections(i)
        .iter()
        .filter(|rq| rq.is_outermost())
        .fold(Time::ZERO, |a, rq| a.saturating_add(rq.length))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `has_job_window`, which help texts and the benchmark read, names
    /// the protocols whose classic analysis the engine iterates with job
    /// windows (`DemandTable::windowed`), and `--analysis fixed` turns
    /// them off for every protocol.
    #[test]
    fn the_job_window_protocols_are_the_windowed_ones() {
        for p in Protocol::ALL {
            let cpus = if p.is_uniprocessor() { 1 } else { 2 };
            let sys = crate::generate::partitioned(p, 3, cpus, 3, 0.4, 2, |_| {});
            for form in [BoundForm::Fixed, BoundForm::Classic] {
                let cx = Context::with_form(&sys, form);
                let want = form == BoundForm::Classic && has_job_window(p);
                assert_eq!(DemandTable::new(&cx).windowed(), want, "{p:?}, {form}");
            }
        }
    }

    /// Every source names a module that exists and a paper, so a report's
    /// "where the bounds come from" never points at a moved file.
    #[test]
    fn every_source_names_a_module_that_exists() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let all = Protocol::ALL
            .into_iter()
            .map(source)
            .chain([COMPONENTS_SOURCE]);
        for s in all {
            assert!(src.join(s.module).is_file(), "{} does not exist", s.module);
            assert!(!s.paper.is_empty() && !s.charges.is_empty(), "{s:?}");
        }
    }
}
