//! Linear-programming blocking bounds (Brandenburg, "Improved analysis
//! and evaluation of real-time semaphore protocols for P-FP scheduling",
//! RTAS 2013; the constraint numbers below are the paper's).
//!
//! The paper bounds a job's blocking by a linear program: one variable per
//! request that another task can issue while the job is pending and per
//! way it can delay the job (directly, indirectly, by a boosted
//! preemption), each in `[0, 1]`, the objective the delay they add up to,
//! and each constraint a fact of the protocol (a FIFO queue lets each
//! other request ahead of a request at most once, ...). The LP's optimum
//! is a sound bound whatever the constraints leave out, and tighter than
//! the closed forms, which each fix one way of counting.
//!
//! **Aggregated variables.** Every constraint of the paper sums the
//! variables of all instances of one task's requests for one resource
//! with one coefficient, or bounds one instance alone by 1. Summing the
//! instances of each `(task, resource, kind)` into one variable, capped by
//! the number of instances, gives the same optimum: an aggregated solution
//! splits evenly over the instances. So rtsync's programs have three
//! variables per task and resource, not three per request instance
//! ([`Program`] spells one out).
//!
//! **Solved by structure.** For the protocols here the aggregated program
//! falls apart into small independent pieces whose optimum a greedy choice
//! reaches (each module proves it for its program: a knapsack with unit
//! weights, a laminar matroid). Measured on the shape of these programs, a
//! general solver takes hundreds of microseconds per program (HiGHS about
//! 0.7 ms, the pure-Rust `microlp` about 0.3 ms, 40 pairs, 120 variables):
//! a sweep solves one per task per round. The tests build each program
//! with [`Program`] and check that a general LP solver (`microlp`) finds
//! the same optimum as the greedy form on random systems.
//!
//! **Combined with the classic bounds.** Every term the engine reads is
//! the smaller of the classic bound (fixed or job window) and the LP's,
//! both sound bounds on the same delay, so `--analysis lp` never answers
//! above `--analysis classic` (a property test checks it on random sets).

pub mod dflp;
pub mod dpcp;
mod flow;
pub mod fmlp_l;
pub mod mpcp;
pub mod spin;

/// How a request delays the job (the paper's `X^D`, `X^I`, `X^P`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The job waits for the resource while the request holds it.
    Direct,
    /// The job waits while the request (not for the job's resource)
    /// delays the job's holder or agent.
    Indirect,
    /// The request's boosted section preempts the job on its own CPU.
    Preempt,
    /// The request delays the job that blocks `J_i` when `J_i` arrives (a
    /// spin lock's arrival blocking, [`spin`]).
    Arrival,
}

/// One aggregated variable: all instances of `task`'s requests for `key`
/// (a resource or a resource group) in the job's window, delaying it by
/// `kind`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Var {
    /// The requesting task.
    pub task: usize,
    /// The resource (DPCP) or resource group (FMLP+).
    pub key: usize,
    /// How it delays the job.
    pub kind: Kind,
    /// Whether the request's task runs on the job's CPU (its delay is
    /// local blocking) or not (remote).
    pub local: bool,
    /// The objective coefficient: the longest such section, in ns.
    pub length: f64,
}

/// One constraint: `Σ coefficient · variable ≤ bound`.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The paper's constraint number; 0 for a row of rtsync's own that
    /// the paper does not state (the module of the protocol says which).
    pub constraint: u8,
    /// `(variable index, coefficient)`.
    pub terms: Vec<(usize, f64)>,
    /// The right-hand side.
    pub bound: f64,
}

/// A blocking LP as data: maximise `Σ length · x` over `x ≥ 0` subject to
/// the rows. Every row has nonnegative coefficients and bound, so `x = 0`
/// is feasible and the optimum is finite.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    /// The variables.
    pub vars: Vec<Var>,
    /// The constraints.
    pub rows: Vec<Row>,
}

impl Program {
    /// Adds a variable, returning its index.
    pub fn var(&mut self, v: Var) -> usize {
        self.vars.push(v);
        self.vars.len() - 1
    }

    /// Adds `Σ_{v ∈ vars} x_v ≤ bound` (skipped when `vars` is empty).
    pub fn at_most(&mut self, constraint: u8, vars: &[usize], bound: u64) {
        if !vars.is_empty() {
            self.rows.push(Row {
                constraint,
                terms: vars.iter().map(|&v| (v, 1.0)).collect(),
                bound: bound as f64,
            });
        }
    }
}

#[cfg(test)]
pub(crate) mod check {
    //! Solves a [`Program`] with a general LP solver, for the tests that
    //! check the greedy forms.
    use super::Program;
    use crate::context::Context;
    use crate::generate::GenConfig;
    use crate::partition::Heuristic;
    use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOutcome};
    use rtsync_model::{Protocol, Time};

    /// The random systems the greedy forms are checked on: `3 · cpus`
    /// tasks partitioned worst-fit, short sections (up to 300 us) so that
    /// windows hold many requests; the callers set what else they vary.
    pub fn config(
        protocol: Protocol,
        cpus: usize,
        requests_max: u32,
        resources: usize,
    ) -> GenConfig {
        GenConfig {
            cpus,
            tasks: 3 * cpus,
            utilization: 0.5 * cpus as f64,
            resources,
            protocol,
            requests_max,
            cs_max: Time::from_us(300),
            partition: Some(Heuristic::WorstFit),
            ..GenConfig::default()
        }
    }

    /// Response-time estimates for the checks: each task's period times
    /// `scale / 4` (so from a quarter period to past two), never zero.
    pub fn windows(cx: &Context, scale: u64) -> Vec<rtsync_model::Time> {
        (0..cx.n())
            .map(|x| Time::from_ns(cx.period[x].ns() * scale / 4 + 1))
            .collect()
    }

    /// The optimum of `p` with the objective restricted to the variables
    /// `keep` accepts: `(local, remote)` are then two calls.
    pub fn optimum(p: &Program, keep: impl Fn(&super::Var) -> bool) -> f64 {
        let mut pb = Problem::new(OptimizationDirection::Maximize);
        let vars: Vec<_> = p
            .vars
            .iter()
            .map(|v| pb.add_var(if keep(v) { v.length } else { 0.0 }, (0.0, f64::INFINITY)))
            .collect();
        for r in &p.rows {
            let e: Vec<_> = r.terms.iter().map(|&(v, c)| (vars[v], c)).collect();
            pb.add_constraint(e.as_slice(), ComparisonOp::Le, r.bound);
        }
        match pb.solve().expect("a packing LP is feasible and bounded") {
            SolveOutcome::Solution(s) => s.objective(),
            SolveOutcome::Interrupted(_) => panic!("no time limit was set"),
        }
    }
}
