//! Fixed-priority response-time analysis with blocking, release jitter and
//! self-suspension, iterated to a system-wide fixed point.
//!
//! For each task, the response time is the least fixed point of
//! (Joseph and Pandya 1986; Audsley et al. 1993 for jitter and blocking)
//!
//! `w = E_i + S_i + B_i + Σ_{h ∈ hp(i)} ⌈(w + J_h) / T_h⌉ · C_h + A_i(w)`,  `R_i = J_i + w`
//!
//! with `E_i` execution plus spin, `S_i` self-suspension plus remote
//! blocking, `B_i` local blocking and `A_i` the work of synchronization
//! agents on the CPU. Suspension (remote blocking included) is handled in
//! the two ways proven sound by Chen et al., "Many suspensions, many
//! problems" (Real-Time Systems 2019), and the smaller result is kept:
//!
//! 1. *jitter*: a suspending higher-priority task `h` interferes with
//!    release jitter `J_h = R_h - C_h` (Bletsas et al. 2018, correcting the
//!    earlier jitter-free forms used in several MPCP analyses);
//! 2. *suspension-oblivious*: `h`'s suspension is counted as execution.
//!
//! Form 1 needs the other tasks' response times, so the engine starts from
//! `R = C` and repeats the per-task analysis until no bound changes. Each
//! round can only raise bounds, and a bound past its deadline stops, so the
//! iteration ends.

use crate::blocking::{Demand, demand, foreign_load};
use crate::context::Cx;
use crate::result::Response;
use rtsync_model::{TaskId, Time};

/// Per-task demand and response-time bound.
pub struct FpAnalysis {
    pub demands: Vec<Demand>,
    pub responses: Vec<Response>,
    /// Rounds of the system-wide fixed point.
    pub rounds: usize,
}

/// Runs the analysis on a partitioned system.
pub fn analyse(cx: &Cx) -> FpAnalysis {
    let n = cx.n();
    let demands: Vec<Demand> = (0..n).map(|i| demand(cx, i)).collect();
    analyse_with(cx, demands)
}

/// Runs the fixed point with given demands (the overhead-free analysis and
/// tests reuse it).
pub fn analyse_with(cx: &Cx, demands: Vec<Demand>) -> FpAnalysis {
    let n = cx.n();
    let foreign: Vec<Vec<(TaskId, Time)>> = (0..cx.f.cpus).map(|c| foreign_load(cx, c)).collect();
    let suspends: Vec<bool> = (0..n)
        .map(|i| demands[i].suspends() || cx.f.tasks[i].suspensions > 0)
        .collect();
    // Start from the job's own demand: a lower bound of the fixed point.
    let mut resp: Vec<Time> = (0..n)
        .map(|i| cx.jitter[i].saturating_add(own(cx, &demands, i)))
        .collect();
    let mut out = vec![Response::Unbounded; n];
    let max_rounds = 4 * n + 8;
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut changed = false;
        for i in 0..n {
            let r = task_response(cx, &demands, &suspends, &foreign, &resp, i);
            out[i] = r;
            let v = match r {
                Response::Bounded(t) => t,
                // Past its deadline the task's bound no longer matters to
                // the verdict; hold it at the deadline for others' jitter.
                Response::Exceeds(_) | Response::Unbounded => cx.deadline[i],
            };
            if v > resp[i] {
                resp[i] = v;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        if rounds >= max_rounds {
            // Not converged: the current values are not yet bounds.
            for (i, o) in out.iter_mut().enumerate() {
                if matches!(o, Response::Bounded(_)) && resp[i] > cx.deadline[i] {
                    *o = Response::Unbounded;
                }
            }
            break;
        }
    }
    FpAnalysis {
        demands,
        responses: out,
        rounds,
    }
}

fn own(cx: &Cx, d: &[Demand], i: TaskId) -> Time {
    d[i].cpu_time()
        .saturating_add(d[i].local)
        .saturating_add(d[i].remote)
        .saturating_add(cx.f.tasks[i].suspension)
}

fn task_response(
    cx: &Cx,
    d: &[Demand],
    suspends: &[bool],
    foreign: &[Vec<(TaskId, Time)>],
    resp: &[Time],
    i: TaskId,
) -> Response {
    let base = own(cx, d, i);
    let limit = cx.deadline[i].saturating_sub(cx.jitter[i]);
    if base > limit {
        // A demand past the deadline (including the saturated "beyond the
        // deadline" value of a request bound) is a miss.
        return Response::Exceeds(cx.deadline[i]);
    }
    let agents: &[(TaskId, Time)] = cx.cpu(i).map_or(&[], |c| &foreign[c]);
    // Form 1: suspension as jitter.
    let jitter_form = fixed_point(cx, base, limit, i, agents, resp, |h| {
        let c = d[h].cpu_time();
        let j = if suspends[h] {
            resp[h].saturating_sub(c).max(cx.jitter[h])
        } else {
            cx.jitter[h]
        };
        (c, j)
    });
    // Form 2: suspension as execution.
    let oblivious = fixed_point(cx, base, limit, i, agents, resp, |h| {
        let c = if suspends[h] {
            d[h].cpu_time()
                .saturating_add(d[h].remote)
                .saturating_add(cx.f.tasks[h].suspension)
        } else {
            d[h].cpu_time()
        };
        (c, cx.jitter[h])
    });
    let best = match (jitter_form, oblivious) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    match best {
        Some(w) => Response::Bounded(cx.jitter[i].saturating_add(w)),
        None => {
            // Report how far the cheaper form got before passing the deadline.
            Response::Exceeds(cx.deadline[i])
        }
    }
}

/// Least `w` with `w = base + Σ ⌈(w + J_h)/T_h⌉ C_h + Σ ⌈(w + R_x)/T_x⌉ L_x`,
/// or `None` once `w` passes `limit`.
fn fixed_point(
    cx: &Cx,
    base: Time,
    limit: Time,
    i: TaskId,
    agents: &[(TaskId, Time)],
    resp: &[Time],
    param: impl Fn(TaskId) -> (Time, Time),
) -> Option<Time> {
    let hp: Vec<(Time, Time, Time)> = cx
        .interfering(i)
        .map(|h| {
            let (c, j) = param(h);
            (cx.period[h], c, j)
        })
        .collect();
    let mut w = base;
    loop {
        if w > limit {
            return None;
        }
        let mut next = base;
        for &(t, c, j) in &hp {
            next = next.saturating_add(
                c.checked_mul(w.saturating_add(j).div_ceil(t))
                    .unwrap_or(Time::MAX),
            );
        }
        for &(x, load) in agents {
            if x != i {
                let k = w.saturating_add(resp[x]).div_ceil(cx.period[x]);
                next = next.saturating_add(load.checked_mul(k).unwrap_or(Time::MAX));
            }
        }
        if next == w {
            return Some(w);
        }
        w = next;
    }
}
