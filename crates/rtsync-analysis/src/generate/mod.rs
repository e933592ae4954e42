//! Random systems for experiments, seeded and reproducible: the same
//! configuration and seed always give the same system.

pub mod components;
pub mod fig7;
pub mod mix;
pub mod periods;
pub mod shape;
pub mod utilization;

use crate::partition::{Heuristic, partition};
pub use mix::Mixing;
pub use periods::Periods;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rtsync_model::{
    Platform, Priority, Protocol, Resource, Scheduler, Segment, SourceMap, System, Task, Time,
    body_execution,
};
pub use shape::ShapeSpec;
pub use utilization::Dist;

/// How task utilizations are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Utilizations {
    /// UUniFast (Bini and Buttazzo 2005).
    UUniFast,
    /// UUniFast, sorted.
    UUniSort,
    /// RandFixedSum (Emberson et al. 2010), each utilization at most one.
    RandFixedSum,
    /// From a distribution until the total is reached (`tasks` is ignored).
    Draw(Dist),
}

/// The shape of generated task sets.
#[derive(Clone, Debug, PartialEq)]
pub struct GenConfig {
    /// CPUs.
    pub cpus: usize,
    /// Fixed priorities or EDF.
    pub scheduler: Scheduler,
    /// The protocol of every resource.
    pub protocol: Protocol,
    /// Tasks per set.
    pub tasks: usize,
    /// Total utilization.
    pub utilization: f64,
    /// How utilizations are drawn.
    pub utilizations: Utilizations,
    /// How periods are drawn.
    pub periods: Periods,
    /// Relative deadline as a fraction of the period, drawn uniformly in
    /// `[deadline_min, 1]` (1 gives implicit deadlines).
    pub deadline_min: f64,
    /// Resources shared by all CPUs.
    pub resources: usize,
    /// Probability that a task uses a given resource.
    pub access_prob: f64,
    /// Critical-section length range.
    pub cs_min: Time,
    /// See `cs_min`.
    pub cs_max: Time,
    /// Sections per used resource per job, drawn in `1..=requests_max`.
    pub requests_max: u32,
    /// Probability that a section is nested in the preceding one (always in
    /// increasing resource order, so nesting never forms a lock-order cycle).
    pub nest_prob: f64,
    /// Partition the tasks; `None` leaves them unassigned.
    pub partition: Option<Heuristic>,
    /// Resources private to each CPU, on top of the `resources` shared
    /// ones. With any, tasks are placed first (worst fit by utilization,
    /// `partition` is not used) and each task may use its own CPU's local
    /// resources: the shape in which local blocking meets global waiting
    /// (MPCP's and FMLP's local terms after a suspension).
    pub local_resources: usize,
    /// Longest section on a local resource (`None`: `cs_max`). Long local
    /// sections beside short global ones make local blocking the term
    /// that decides a bound.
    pub local_cs_max: Option<Time>,
    /// Probability of a self-suspension in each gap between top-level
    /// segments, lasting a uniform draw in `1ns..=suspend_max`.
    pub suspend_prob: f64,
    /// See `suspend_prob`.
    pub suspend_max: Time,
    /// Where the sections sit in the body.
    pub positions: Positions,
    /// DPCP and DFLP: serve resource `r` on CPU `r mod cpus` (several
    /// synchronization CPUs, each hosting tasks and agents) instead of
    /// all on the last CPU. The soundness search draws both, so that a
    /// task meets agents of lower tasks of its own CPU and of tasks that
    /// also have work at home elsewhere.
    pub sync_spread: bool,
    /// Release jitter: each task, with probability one half, is released
    /// up to this share of its slack (`D - C`) after its arrival, drawn
    /// uniformly. Drawn from a stream of its own, so that a system with
    /// jitter has the same tasks as the one without.
    pub jitter_max: f64,
    /// Priorities: `None`, deadline-monotonic and unique; `Some(k)`, each
    /// task's drawn uniformly from `1..=k` whatever its deadline, from a
    /// stream of its own (the tasks are those of `None`). Below the task
    /// count some are equal (served in FIFO order), and a task can sit
    /// above one with a shorter deadline or period. The soundness search
    /// draws both: analyses that lean on the order of deadlines, or on
    /// unique priorities, show only here.
    pub priority_levels: Option<u32>,
    /// Under a protocol that manages multi-unit resources (SRP, MSRP),
    /// each resource's units, drawn from `1..=units_max`, and each
    /// section's, from one to the resource's, from a stream of their own
    /// (the tasks are those of `1`). 1: single-unit resources.
    pub units_max: u32,
}

/// How the computation outside sections is spread around them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Positions {
    /// Equal gaps before, between and after the sections.
    #[default]
    Even,
    /// Random gaps: sections at the start, middle or end of the body.
    Random,
}

impl Default for GenConfig {
    /// Shape (a) of the analysis benchmark: 4 CPUs, 16 tasks, U = 2.0, 4
    /// resources, RandFixedSum, log-uniform periods 10 ms .. 1 s, access
    /// probability 0.3, sections 10 .. 100 us.
    fn default() -> Self {
        GenConfig {
            cpus: 4,
            scheduler: Scheduler::Fp,
            protocol: Protocol::Mpcp,
            tasks: 16,
            utilization: 2.0,
            utilizations: Utilizations::RandFixedSum,
            periods: Periods::LogUniform {
                min: Time::from_ms(10),
                max: Time::from_s(1),
            },
            deadline_min: 1.0,
            resources: 4,
            access_prob: 0.3,
            cs_min: Time::from_us(10),
            cs_max: Time::from_us(100),
            requests_max: 1,
            nest_prob: 0.0,
            partition: Some(Heuristic::WorstFit),
            local_resources: 0,
            local_cs_max: None,
            suspend_prob: 0.0,
            suspend_max: Time::from_ms(1),
            positions: Positions::Even,
            sync_spread: false,
            jitter_max: 0.0,
            priority_levels: None,
            units_max: 1,
        }
    }
}

/// Mixed into the seed of the jitter draws ("jitter" in ASCII).
const JITTER_STREAM: u64 = 0x6a69_7474_6572;
/// Mixed into the seed of the priority draws ("prio" in ASCII).
const PRIORITY_STREAM: u64 = 0x7072_696f;
/// Mixed into the seed of the unit draws ("units" in ASCII).
const UNITS_STREAM: u64 = 0x75_6e69_7473;

/// Why a configuration cannot produce systems.
pub fn check_config(c: &GenConfig) -> Result<(), String> {
    if c.cpus == 0 {
        return Err("cpus must be at least 1".into());
    }
    if c.units_max == 0 {
        return Err("units_max must be at least 1".into());
    }
    if c.priority_levels == Some(0) {
        return Err("priority_levels must be at least 1 (or none, for deadline-monotonic)".into());
    }
    if c.utilization.is_nan() || c.utilization <= 0.0 {
        return Err(format!(
            "utilization must be positive, got {}",
            c.utilization
        ));
    }
    if !matches!(c.utilizations, Utilizations::Draw(_)) {
        if c.tasks == 0 {
            return Err("tasks must be at least 1".into());
        }
        if c.utilization > c.tasks as f64 {
            return Err(format!(
                "utilization {} needs more than {} tasks (each at most 1)",
                c.utilization, c.tasks
            ));
        }
    }
    if c.cs_min > c.cs_max {
        return Err(format!("cs_min {} exceeds cs_max {}", c.cs_min, c.cs_max));
    }
    if !(0.0..=1.0).contains(&c.access_prob)
        || !(0.0..=1.0).contains(&c.nest_prob)
        || !(0.0..=1.0).contains(&c.suspend_prob)
        || !(0.0..=1.0).contains(&c.jitter_max)
    {
        return Err("probabilities must lie in [0, 1]".into());
    }
    if c.nest_prob > 0.0 && !c.protocol.allows_nesting() {
        return Err(format!(
            "{} forbids nesting its resources (a request made inside a section queues again \
             behind every request issued since), so a nesting probability needs another \
             protocol (dpcp nests resources served on one CPU)",
            c.protocol
        ));
    }
    if c.nest_prob > 0.0
        && !c.protocol.is_uniprocessor()
        && !c.protocol.allows_nested_global()
        && c.local_resources == 0
    {
        return Err(format!(
            "{} forbids nesting a global resource inside another, so a nesting probability needs \
             local resources to nest (--local-resources N: nesting is then drawn among each CPU's \
             own resources), or a protocol whose group locks allow it (fmlp-s, fmlp-l)",
            c.protocol
        ));
    }
    if !(0.0 < c.deadline_min && c.deadline_min <= 1.0) {
        return Err("deadline_min must lie in (0, 1]".into());
    }
    Ok(())
}

/// Generates system number `index` of the stream `seed`.
pub fn generate(c: &GenConfig, seed: u64, index: u64) -> System {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    let utils = match c.utilizations {
        Utilizations::UUniFast => {
            utilization::uunifast_discard(&mut rng, c.tasks, c.utilization, 1000).unwrap_or_else(
                || utilization::randfixedsum(&mut rng, c.tasks, c.utilization, 0.0, 1.0),
            )
        }
        Utilizations::UUniSort => utilization::uunisort(&mut rng, c.tasks, c.utilization),
        Utilizations::RandFixedSum => {
            utilization::randfixedsum(&mut rng, c.tasks, c.utilization, 0.0, 1.0)
        }
        Utilizations::Draw(d) => d.fill(&mut rng, c.utilization),
    };
    // A uniprocessor protocol on several CPUs needs every resource's users
    // on one CPU: place the tasks first (worst fit by utilization) and give
    // each CPU its own `resources` resources. Local resources likewise need
    // the placement first.
    let per_cpu = c.protocol.is_uniprocessor() && c.cpus > 1;
    let locals = if per_cpu { 0 } else { c.local_resources };
    let placed_first = per_cpu || locals > 0;
    let placement: Vec<Option<usize>> = if placed_first {
        worst_fit(&utils, c.cpus)
    } else {
        vec![None; utils.len()]
    };
    // Shared resources first, then each CPU's local ones.
    let shared = if per_cpu {
        c.resources * c.cpus
    } else {
        c.resources
    };
    let n_res = shared + locals * c.cpus;
    let mut resources: Vec<Resource> = (0..n_res)
        .map(|r| Resource {
            name: if per_cpu {
                format!("c{}r{}", r / c.resources, r % c.resources + 1)
            } else if r < shared {
                format!("r{}", r + 1)
            } else {
                let k = r - shared;
                format!("c{}l{}", k / locals, k % locals + 1)
            },
            protocol: c.protocol,
            units: 1,
            sync_cpu: c.protocol.needs_sync_cpu().then_some(sync_cpu_of(c, r)),
            ceiling: None,
        })
        .collect();
    let mut tasks = Vec::with_capacity(utils.len());
    for (i, &u) in utils.iter().enumerate() {
        let period = c.periods.draw(&mut rng);
        let frac = if c.deadline_min < 1.0 {
            rng.random_range(c.deadline_min..=1.0)
        } else {
            1.0
        };
        let deadline =
            Time::from_ns(((period.ns() as f64 * frac).round() as u64).clamp(1, period.ns()));
        let wcet = Time::from_ns(((u * period.ns() as f64).round() as u64).max(1));
        let usable: Vec<usize> = match placement[i] {
            Some(cpu) if per_cpu => (cpu * c.resources..(cpu + 1) * c.resources).collect(),
            Some(cpu) => (0..c.resources)
                .chain(shared + cpu * locals..shared + (cpu + 1) * locals)
                .collect(),
            None => (0..c.resources).collect(),
        };
        let body = body(&mut rng, c, wcet, &usable, shared);
        tasks.push(Task {
            name: format!("t{}", i + 1),
            period,
            deadline,
            jitter: Time::ZERO,
            offset: Time::ZERO,
            priority: 0,
            cpu: placement[i],
            body,
        });
    }
    if c.jitter_max > 0.0 {
        // A stream of its own: the tasks above are those of the same
        // configuration without jitter.
        let mut jr = ChaCha8Rng::seed_from_u64(seed ^ JITTER_STREAM);
        jr.set_stream(index);
        for t in &mut tasks {
            let slack = t
                .deadline
                .saturating_sub(body_execution(&t.body).unwrap_or(t.deadline));
            if jr.random_bool(0.5) && !slack.is_zero() {
                let most = (slack.ns() as f64 * c.jitter_max).round() as u64;
                t.jitter = Time::from_ns(jr.random_range(0..=most));
            }
        }
    }
    // Deadline-monotonic priorities, unique.
    let mut idx: Vec<usize> = (0..tasks.len()).collect();
    idx.sort_by_key(|&i| (tasks[i].deadline, tasks[i].period, i));
    let n = tasks.len() as Priority;
    for (rank, &i) in idx.iter().enumerate() {
        tasks[i].priority = n - rank as Priority;
    }
    if let Some(k) = c.priority_levels {
        let mut pr = ChaCha8Rng::seed_from_u64(seed ^ PRIORITY_STREAM);
        pr.set_stream(index);
        for t in &mut tasks {
            t.priority = pr.random_range(1..=k) as Priority;
        }
    }
    if c.units_max > 1 && c.protocol.allows_multi_unit() {
        let mut ur = ChaCha8Rng::seed_from_u64(seed ^ UNITS_STREAM);
        ur.set_stream(index);
        for r in &mut resources {
            r.units = ur.random_range(1..=c.units_max);
        }
        // Each section asks for one to all of its resource's units.
        for t in &mut tasks {
            each_section_units(&mut t.body, &mut |r, u| {
                *u = ur.random_range(1..=resources[r].units)
            });
        }
    }
    let sys = System {
        name: Some(format!("generated seed {seed} index {index}")),
        platform: Platform {
            cpus: c.cpus,
            scheduler: c.scheduler,
        },
        resources,
        tasks,
        source: SourceMap::default(),
        components: None,
    };
    match c.partition {
        Some(h) if !placed_first => partition(&sys, h),
        _ => sys,
    }
}

/// `f` with the resource and the units of each section of `body`, nested
/// ones too, each before those it holds.
pub(crate) fn each_section_units(body: &mut [Segment], f: &mut impl FnMut(usize, &mut u32)) {
    for s in body {
        if let Segment::Lock {
            resource,
            units,
            body,
        } = s
        {
            f(*resource, units);
            each_section_units(body, f);
        }
    }
}

/// The CPU whose agents serve resource `r` where the protocol has them:
/// spread over the CPUs, or all on the last one.
fn sync_cpu_of(c: &GenConfig, r: usize) -> usize {
    if c.sync_spread {
        r % c.cpus
    } else {
        c.cpus - 1
    }
}

/// Worst-fit placement by utilization, heaviest first.
fn worst_fit(utils: &[f64], cpus: usize) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..utils.len()).collect();
    order.sort_by(|a, b| utils[*b].total_cmp(&utils[*a]).then(a.cmp(b)));
    let mut load = vec![0.0f64; cpus];
    let mut out = vec![None; utils.len()];
    for i in order {
        let cpu = (0..cpus)
            .min_by(|a, b| load[*a].total_cmp(&load[*b]).then(a.cmp(b)))
            .unwrap();
        load[cpu] += utils[i];
        out[i] = Some(cpu);
    }
    out
}

/// A body with the configured sections, the rest of the WCET spread as
/// compute segments around them. Section lengths are scaled down when they
/// would not fit in the WCET.
fn body(
    rng: &mut ChaCha8Rng,
    c: &GenConfig,
    wcet: Time,
    usable: &[usize],
    shared: usize,
) -> Vec<Segment> {
    let mut sections: Vec<(usize, Time)> = Vec::new();
    for &r in usable {
        if rng.random::<f64>() < c.access_prob {
            let k = rng.random_range(1..=c.requests_max.max(1));
            let max = match c.local_cs_max {
                Some(m) if r >= shared => m.max(c.cs_min),
                _ => c.cs_max,
            };
            for _ in 0..k {
                sections.push((r, Time::from_ns(rng.random_range(c.cs_min.ns()..=max.ns()))));
            }
        }
    }
    let total: u64 = sections.iter().map(|s| s.1.ns()).sum();
    if total > wcet.ns() {
        // Scale into the WCET, keeping one nanosecond of outside compute.
        let room = wcet.ns().saturating_sub(1).max(sections.len() as u64);
        for s in &mut sections {
            s.1 = Time::from_ns(((s.1.ns() as u128 * room as u128) / total as u128).max(1) as u64);
        }
    }
    let used: u64 = sections.iter().map(|s| s.1.ns()).sum();
    let rest = wcet.ns().saturating_sub(used);
    // Group sections: nest a section into the previous top-level one with
    // probability nest_prob (resource order increases, so no cycles). A
    // protocol that forbids nesting global resources nests only this CPU's
    // local ones, so that every system generated is one `check` accepts.
    // Under DPCP the two must also be served on one CPU
    // ([`rtsync_model::nesting::Conflict::ServedApart`]); DFLP nests
    // nothing ([`rtsync_model::ProtocolFacts::nests`]).
    let may_nest = |outer: usize, inner: usize| {
        c.protocol.allows_nesting()
            && (c.protocol.is_uniprocessor()
                || c.protocol.allows_nested_global()
                || (outer >= shared && inner >= shared))
            && (!c.protocol.needs_sync_cpu() || sync_cpu_of(c, outer) == sync_cpu_of(c, inner))
    };
    let mut tops: Vec<Segment> = Vec::new();
    let mut prev_res: Option<usize> = None;
    for (r, len) in sections {
        let top_res = match tops.last() {
            Some(Segment::Lock { resource, .. }) => Some(*resource),
            _ => None,
        };
        // The draw comes before the protocol's rule, so that every protocol
        // consumes the same random stream and a sweep compares protocols on
        // the same tasks.
        let nest = prev_res.is_some_and(|p| p < r)
            && rng.random::<f64>() < c.nest_prob
            && top_res.is_some_and(|o| may_nest(o, r));
        let seg = Segment::Lock {
            resource: r,
            units: 1,
            body: vec![Segment::Compute(len)],
        };
        match (nest, tops.last_mut()) {
            (true, Some(Segment::Lock { body, .. })) => body.push(seg),
            _ => tops.push(seg),
        }
        prev_res = Some(r);
    }
    let gaps = gap_lengths(rng, c.positions, rest, tops.len() + 1);
    let mut out = Vec::with_capacity(tops.len() * 3 + 1);
    let last = tops.len();
    for (k, s) in tops.into_iter().enumerate() {
        if gaps[k] > 0 {
            out.push(Segment::Compute(Time::from_ns(gaps[k])));
        }
        suspension(rng, c, &mut out);
        out.push(s);
    }
    if gaps[last] > 0 || out.is_empty() {
        suspension(rng, c, &mut out);
        out.push(Segment::Compute(Time::from_ns(gaps[last].max(1))));
    }
    out
}

/// `rest` split into `n` gaps: equal ones (the remainder in the first), or
/// at uniformly random cut points.
fn gap_lengths(rng: &mut ChaCha8Rng, positions: Positions, rest: u64, n: usize) -> Vec<u64> {
    match positions {
        Positions::Even => {
            let share = rest / n as u64;
            let mut g = vec![share; n];
            g[0] += rest - share * n as u64;
            g
        }
        Positions::Random => {
            let mut cuts: Vec<u64> = (1..n).map(|_| rng.random_range(0..=rest)).collect();
            cuts.sort_unstable();
            let mut prev = 0;
            let mut g = Vec::with_capacity(n);
            for c in cuts {
                g.push(c - prev);
                prev = c;
            }
            g.push(rest - prev);
            g
        }
    }
}

/// With probability `suspend_prob`, a self-suspension at this point of the
/// body (never the first segment, so a job starts by running).
fn suspension(rng: &mut ChaCha8Rng, c: &GenConfig, out: &mut Vec<Segment>) {
    if c.suspend_prob > 0.0
        && !out.is_empty()
        && !matches!(out.last(), Some(Segment::Suspend(_)))
        && rng.random::<f64>() < c.suspend_prob
    {
        let d = rng.random_range(1..=c.suspend_max.ns().max(1));
        out.push(Segment::Suspend(Time::from_ns(d)));
    }
}

/// For the analysis's unit tests: a partitioned system (worst fit) of
/// `per_cpu` tasks per CPU at `util` per CPU under `p`, `resources`
/// resources, up to three requests per task, with `tweak` applied to the
/// configuration last (sections, nesting, periods, suspensions).
#[cfg(test)]
pub(crate) fn partitioned(
    p: rtsync_model::Protocol,
    seed: u64,
    cpus: usize,
    per_cpu: usize,
    util: f64,
    resources: usize,
    tweak: impl FnOnce(&mut GenConfig),
) -> System {
    let mut c = GenConfig {
        cpus,
        tasks: per_cpu * cpus,
        utilization: util * cpus as f64,
        resources,
        protocol: p,
        requests_max: 3,
        partition: Some(Heuristic::WorstFit),
        ..GenConfig::default()
    };
    tweak(&mut c);
    generate(&c, seed, 0)
}
