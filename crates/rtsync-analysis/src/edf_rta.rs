//! Response-time bounds under EDF on one CPU: Spuri's analysis (Spuri
//! 1996, "Analysis of deadline scheduled real-time systems", INRIA
//! RR-2772, Sec. 4: sporadic tasks with release jitter), over the window
//! blocking of [`crate::edf`].
//!
//! The job of task `i` arriving `a` after the start `t0` of a busy period
//! (`a ≥ -J_i`: released in it) has the deadline `d = a + D_i`. Every job
//! that runs before it in the busy period has a deadline at most `d`, or
//! blocks it; the *deadline-`d` busy period* has the length
//!
//! `W(a) = Σ_{j≠i} min(⌈(W + J_j)/T_j⌉, ⌊(d - D_j + J_j)/T_j⌋ + 1)⁺·C_j
//!        + (⌊(a + J_i)/T_i⌋ + 1)·C_i + B(d)`,
//!
//! the first term counting the jobs released in it and due by `d`, the
//! second the jobs of `i` up to the one analysed, and `B(d)` the blocking
//! of the window of jobs due by `d` (`edf::window`: at its start,
//! at each resumption, capped). The job ends by `t0 + W(a)`, and its
//! response is at most `max(C_i, W(a) - a)`. `W` is constant between the
//! points where `d` reaches a deadline point `D_j - J_j + k·T_j`, so only
//! `a = p - D_i` for those points `p` need checking, with `a` below the
//! longest busy period (synchronous releases, every job arriving its
//! jitter early, the largest blocking).
//!
//! Spuri's `W(a)` has no blocking and counts jobs of equal deadlines as
//! ahead (so does rtsync's simulator, which breaks deadline ties by
//! arrival). The blocking enters as it does in the demand test, whose
//! derivation (docs/ANALYSIS.md, "EDF") bounds the work of jobs due after
//! `d` in any window of jobs due by `d`. Where the demand test accepts
//! the CPU, its tasks' bounds are these, at most their deadlines.

use crate::edf::{EdfTask, all_late, due_by, points, window};
use rtsync_model::Time;

/// Most work the bounds of one CPU may take, in tasks visited by the
/// fixed-point steps (tens of milliseconds); beyond, the deadlines stand
/// as the bounds (the demand test still decides).
pub const MAX_STEPS: u64 = 20_000_000;

/// Each task's response-time bound, in `ts` order; `None` where the bound
/// cannot be computed within [`MAX_STEPS`] or the utilization leaves no
/// bounded busy period.
pub fn response_bounds(ts: &[EdfTask]) -> Option<Vec<Time>> {
    if ts.is_empty() {
        return Some(Vec::new());
    }
    let u: f64 = ts.iter().map(|x| x.c.ratio(x.t)).sum();
    if u >= 1.0 - 1e-9 || ts.iter().any(|x| x.c == Time::MAX) {
        return None;
    }
    let cap = all_late(ts);
    // The largest blocking any window sees: the cap where jobs
    // self-suspend, else one arrival's.
    let worst = if ts.iter().any(|x| x.s > 0) {
        cap
    } else {
        ts.iter()
            .map(|x| x.b.saturating_add(x.q))
            .max()
            .unwrap_or(Time::ZERO)
            .min(cap)
    };
    let mut steps = 0u64;
    let longest = busy(ts, worst, &mut steps)?;
    let dmax = ts.iter().map(|x| x.d).max().unwrap_or(Time::ZERO);
    let points = points(ts, longest.saturating_add(dmax))?;
    let mut out = Vec::with_capacity(ts.len());
    for (i, x) in ts.iter().enumerate() {
        let mut r = x.c;
        // `a = p - D_i`, from `-J_i` up to the longest busy period.
        let first = x.d.saturating_sub(x.j);
        let last = longest.saturating_add(x.d);
        for &p in points.iter().filter(|&&p| first <= p && p < last) {
            let (_, blocking) = window(ts, p, cap);
            // `i`'s jobs up to the one analysed: those due by `d`.
            let own = x.c.checked_mul(due_by(x, p))?;
            let mut w = own.saturating_add(blocking);
            loop {
                steps += ts.len() as u64;
                if steps > MAX_STEPS {
                    return None;
                }
                let mut next = own.saturating_add(blocking);
                for (_, y) in ts.iter().enumerate().filter(|&(k, _)| k != i) {
                    let jobs = due_by(y, p).min(released_in(y, w));
                    next = next.saturating_add(y.c.checked_mul(jobs)?);
                }
                if next == w {
                    break;
                }
                w = next;
            }
            // Response from arrival: `W - a = W - p + D_i`.
            r = r.max(w.saturating_add(x.d).saturating_sub(p));
        }
        out.push(r);
    }
    Some(out)
}

/// How many jobs of `x` a busy period of length `w` can release: those
/// arriving from its jitter before its start, `⌈(w + J)/T⌉`.
fn released_in(x: &EdfTask, w: Time) -> u64 {
    w.saturating_add(x.j).ns().div_ceil(x.t.ns())
}

/// The longest busy period: every task's jobs arriving their jitter
/// before its start and as often as they may, behind `blocking`.
fn busy(ts: &[EdfTask], blocking: Time, steps: &mut u64) -> Option<Time> {
    let mut w = ts.iter().fold(blocking, |a, x| a.saturating_add(x.c));
    loop {
        *steps += ts.len() as u64;
        if *steps > MAX_STEPS || w == Time::MAX {
            return None;
        }
        let next = ts.iter().try_fold(blocking, |a, x| {
            Some(a.saturating_add(x.c.checked_mul(released_in(x, w))?))
        })?;
        if next == w {
            return Some(w);
        }
        w = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(c: u64, d: u64, t: u64) -> EdfTask {
        let ms = Time::from_ms;
        EdfTask {
            id: 0,
            c: ms(c),
            d: ms(d),
            t: ms(t),
            j: Time::ZERO,
            b: Time::ZERO,
            s: 0,
            q: Time::ZERO,
            late: Time::ZERO,
            hold: Time::ZERO,
            first_w: Time::ZERO,
            first_d: Time::ZERO,
        }
    }

    /// Worked by hand (the analysis's recurrence at each candidate):
    /// τ1 (C 2, D = T 5), τ2 (C 4, D = T 7), U = 0.971, longest busy
    /// period 14. τ1: a = 0: 2; a = 2 (d 7, τ2's first job due with it):
    /// W = 2 + 4 = 6, R = 4; a = 5: W = 8, R = 3; a = 9: W = 12, R = 3;
    /// a = 10: W = 14, R = 4. τ2: a = 0: W = 6, R = 6; a = 3: W = 8,
    /// R = 5; a = 7: W = 12, R = 5; a = 8: W = 14, R = 6. The synchronous
    /// schedule shows τ2's 6; τ1's 4 is its job arriving at 2 behind τ2's
    /// of the same deadline.
    #[test]
    fn two_tasks_by_hand() {
        let ts = [task(2, 5, 5), task(4, 7, 7)];
        let r = response_bounds(&ts).unwrap();
        assert_eq!(r, [Time::from_ms(4), Time::from_ms(6)]);
    }
}
