//! The least solution of the response-time recurrence
//!
//! `w = base + Σ_k c_k · ⌈(w + j_k) / t_k⌉`
//!
//! that every fixed point in rtsync has the shape of: a task's busy window
//! (Joseph and Pandya 1986, with the release jitter of Audsley et al. 1993),
//! and the per-request waits of MPCP and DPCP (whose `(⌈w / T⌉ + 1) · c`
//! terms put `c` into `base` and leave `⌈w / T⌉ · c`).
//!
//! The iteration starts at `base` and only rises, so each term's job count
//! `⌈(w + j) / t⌉` only grows. A term keeps its count and the point `k · t`
//! up to which that count holds: a step divides only for the terms whose
//! point `w + j` has passed, and compares for the others. Most steps of an
//! analysis move few counts, and a 64-bit division costs tens of cycles.

use rtsync_model::Time;

/// One interference term `c · ⌈(w + j) / t⌉` and its cached job count.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Term {
    c: Time,
    j: Time,
    t: Time,
    /// The largest `w + j` for which `work` is still `c · ⌈(w + j) / t⌉`.
    edge: Time,
    work: Time,
}

impl Term {
    /// The term at `w`, from its cached count where `w + j` has not passed
    /// the point up to which that count holds.
    #[inline]
    fn at(&mut self, w: Time) -> Time {
        let point = w.saturating_add(self.j);
        if point > self.edge {
            // ⌈point / t⌉ jobs; the count holds up to k · t.
            let k = point.div_ceil(self.t);
            self.edge = self.t.checked_mul(k).unwrap_or(Time::MAX);
            self.work = self.c.checked_mul(k).unwrap_or(Time::MAX);
        }
        self.work
    }

    /// `c · ⌈(w + j) / t⌉`; `t` must not be zero.
    pub(crate) fn new(c: Time, j: Time, t: Time) -> Term {
        debug_assert!(!t.is_zero(), "a period is never zero");
        Term {
            c,
            j,
            t,
            edge: Time::ZERO,
            work: Time::ZERO,
        }
    }
}

/// The `a` longest section instances of a task with `k = ⌈(w + j)/t⌉`
/// jobs in the window, each job issuing the sections of `arena[from..to]`
/// (longest first): [`top_sum`] of them, recomputed only when `k` moves.
/// A nondecreasing step function of `w`, at most both `a` times the
/// longest section and `k` times a job's sections, and below their
/// smaller where a job's sections differ in length: the charge for a
/// task that has at most `a` requests in progress at the points that
/// matter (a lower task's agents on a job's CPU, one at each of the job's
/// arrivals, Brandenburg 2013, RTAS, as SchedCAT's `lp_dpcp.cpp` sums
/// them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Top {
    j: Time,
    t: Time,
    a: u64,
    from: u32,
    to: u32,
    /// The largest `w + j` for which `k` jobs still hold.
    edge: Time,
    k: u64,
    value: Time,
}

impl Top {
    /// The `a` longest of the sections `arena[from..to]` (longest first)
    /// over `⌈(w + j)/t⌉` jobs; `t` must not be zero.
    pub(crate) fn new(a: u64, j: Time, t: Time, (from, to): (u32, u32)) -> Top {
        debug_assert!(!t.is_zero(), "a period is never zero");
        Top {
            j,
            t,
            a,
            from,
            to,
            edge: Time::ZERO,
            k: 0,
            value: Time::ZERO,
        }
    }

    #[inline]
    fn at(&mut self, w: Time, arena: &[Time]) -> Time {
        let point = w.saturating_add(self.j);
        if point > self.edge {
            let k = point.div_ceil(self.t);
            self.edge = self.t.checked_mul(k).unwrap_or(Time::MAX);
            if k != self.k {
                self.k = k;
                self.value = top_sum(&arena[self.from as usize..self.to as usize], self.a, k);
            }
        }
        self.value
    }
}

/// The sum of the `a` largest of the multiset holding each of
/// `longest_first` `k` times.
pub(crate) fn top_sum(longest_first: &[Time], a: u64, k: u64) -> Time {
    let (mut left, mut sum) = (a, Time::ZERO);
    for &s in longest_first {
        if left == 0 {
            break;
        }
        let n = k.min(left);
        sum = sum.saturating_add(s.checked_mul(n).unwrap_or(Time::MAX));
        left -= n;
    }
    sum
}

/// The least `w ≥ base` with `w = base + Σ terms(w)`, or `None` once an
/// iterate passes `limit` (the iterates are lower bounds of the solution,
/// so the solution passes it too). Arithmetic saturates at [`Time::MAX`].
pub(crate) fn solve(base: Time, limit: Time, terms: &mut [Term]) -> Option<Time> {
    solve_from(base, base, limit, terms)
}

/// As [`solve`], starting the iteration at `from` instead of `base`.
///
/// `from` must not exceed the least solution and must not lie below any
/// point at which `terms` were last evaluated (their cached counts only
/// rise). Both hold when `terms` last solved the same recurrence with a
/// base smaller by `d` and `from` is that solution plus `d`: the least
/// solution is monotone in the base with slope at least one, since
/// `w* = b + Σ(w*) ≥ b + Σ(w*_old) = w*_old + (b - b_old)`.
pub(crate) fn solve_from(base: Time, from: Time, limit: Time, terms: &mut [Term]) -> Option<Time> {
    climb(base, from, limit, terms).ok()
}

/// As [`solve_from`], saying where the iteration stopped: `Ok` with the
/// least solution, or `Err` with the first iterate past `limit`. Either
/// is a lower bound of the least solution, so of the least solution of
/// the same recurrence with any base and terms no smaller (monotone in
/// each): a later solve of a grown recurrence may start there.
pub(crate) fn climb(base: Time, from: Time, limit: Time, terms: &mut [Term]) -> Result<Time, Time> {
    climb_with(base, from, limit, terms, &mut [], &mut [], &[])
}

/// As [`climb`], with `pairs` and `tops` besides: each pair adds the
/// smaller of its two terms, `min(c · ⌈(w + j)/t⌉, c' · ⌈(w + j')/t⌉)`,
/// and each [`Top`] its longest instances, reading its sections from
/// `arena`. The smaller of two nondecreasing functions of `w` is
/// nondecreasing, and so is a top sum (its job count only grows), so the
/// iteration still only rises to the least solution, and each term keeps
/// its own cached count.
pub(crate) fn climb_with(
    base: Time,
    from: Time,
    limit: Time,
    terms: &mut [Term],
    pairs: &mut [(Term, Term)],
    tops: &mut [Top],
    arena: &[Time],
) -> Result<Time, Time> {
    debug_assert!(from >= base);
    let mut w = from;
    loop {
        if w > limit {
            return Err(w);
        }
        let mut next = base;
        for x in terms.iter_mut() {
            next = next.saturating_add(x.at(w));
        }
        for (a, b) in pairs.iter_mut() {
            next = next.saturating_add(a.at(w).min(b.at(w)));
        }
        for x in tops.iter_mut() {
            next = next.saturating_add(x.at(w, arena));
        }
        if next == w {
            return Ok(w);
        }
        // Below the least solution every step rises (a point `w` with
        // `next ≤ w` bounds the least solution from above); a `from`
        // past it would break the cached counts.
        debug_assert!(next > w, "the iteration started past the least solution");
        w = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_ms(v)
    }

    /// One term `c · ⌈(w + j) / t⌉`, divided afresh.
    fn work(w: Time, (c, j, t): (Time, Time, Time)) -> Time {
        c.checked_mul(w.saturating_add(j).div_ceil(t))
            .unwrap_or(Time::MAX)
    }

    /// The plain iteration of `w = base + sum(w)`.
    fn naive_by(base: Time, limit: Time, sum: impl Fn(Time) -> Time) -> Option<Time> {
        let mut w = base;
        loop {
            if w > limit {
                return None;
            }
            let next = base.saturating_add(sum(w));
            if next == w {
                return Some(w);
            }
            w = next;
        }
    }

    /// The plain iteration, dividing every term at every step.
    fn naive(base: Time, limit: Time, terms: &[(Time, Time, Time)]) -> Option<Time> {
        naive_by(base, limit, |w| {
            (terms.iter()).fold(Time::ZERO, |a, &x| a.saturating_add(work(w, x)))
        })
    }

    /// Worked by hand: C = (1, 2, 3), T = (4, 6, 10) in ms, rate-monotonic.
    /// The lowest task's window: 3 → 3+1+2 = 6 → 3+2+2 = 7 → 3+2+4 = 9 →
    /// 3+3+4 = 10 → 10.
    #[test]
    fn a_textbook_busy_window() {
        let mut t = [
            Term::new(ms(1), Time::ZERO, ms(4)),
            Term::new(ms(2), Time::ZERO, ms(6)),
        ];
        assert_eq!(solve(ms(3), ms(10), &mut t), Some(ms(10)));
        let mut t = [
            Term::new(ms(1), Time::ZERO, ms(4)),
            Term::new(ms(2), Time::ZERO, ms(6)),
        ];
        assert_eq!(
            solve(ms(3), ms(9), &mut t),
            None,
            "10 ms passes a 9 ms limit"
        );
    }

    /// Jitter counts one more job once `w + j` passes a period.
    #[test]
    fn jitter_adds_a_job() {
        let mut t = [Term::new(ms(1), ms(3), ms(4))];
        // w = 1: ⌈(1 + 3) / 4⌉ = 1 → 2; ⌈5/4⌉ = 2 → 3; ⌈6/4⌉ = 2 → 3.
        assert_eq!(solve(ms(1), ms(100), &mut t), Some(ms(3)));
    }

    use proptest::prelude::*;
    proptest! {
        /// The cached counts give exactly the plain iteration's answer.
        #[test]
        fn same_as_dividing_every_time(
            base in 0u64..50_000,
            terms in proptest::collection::vec((0u64..5_000, 0u64..20_000, 1u64..40_000), 0..8),
            limit in 0u64..400_000,
        ) {
            let t: Vec<(Time, Time, Time)> = terms
                .iter()
                .map(|&(c, j, p)| (Time::from_ns(c), Time::from_ns(j), Time::from_ns(p)))
                .collect();
            let mut cached: Vec<Term> = t.iter().map(|&(c, j, p)| Term::new(c, j, p)).collect();
            let (b, l) = (Time::from_ns(base), Time::from_ns(limit));
            prop_assert_eq!(solve(b, l, &mut cached), naive(b, l, &t));
        }

        /// Solving again with a larger base, from the old solution plus
        /// the difference and with the counts the first solve left, gives
        /// the plain iteration's answer for the larger base.
        #[test]
        fn a_warm_start_from_a_smaller_base_agrees(
            base in 0u64..50_000,
            more in 0u64..20_000,
            terms in proptest::collection::vec((0u64..5_000, 0u64..20_000, 1u64..40_000), 0..8),
            limit in 0u64..400_000,
        ) {
            let t: Vec<(Time, Time, Time)> = terms
                .iter()
                .map(|&(c, j, p)| (Time::from_ns(c), Time::from_ns(j), Time::from_ns(p)))
                .collect();
            let mut cached: Vec<Term> = t.iter().map(|&(c, j, p)| Term::new(c, j, p)).collect();
            let (b, l, d) = (Time::from_ns(base), Time::from_ns(limit), Time::from_ns(more));
            let warm = solve(b, l, &mut cached)
                .and_then(|w| solve_from(b.saturating_add(d), w.saturating_add(d), l, &mut cached));
            prop_assert_eq!(warm, naive(b.saturating_add(d), l, &t));
        }

        /// Where one climb stopped (its answer, or its first iterate past
        /// its limit) is a start for the grown recurrence (base, every
        /// `c` and `j` no smaller) that gives the plain iteration's
        /// answer, under any limit. A stop point above the least solution
        /// (`Err` answering the limit's neighbour, say) would give more.
        #[test]
        fn where_a_climb_stopped_starts_a_grown_one(
            base in 0u64..50_000,
            terms in proptest::collection::vec(
                (0u64..5_000, 0u64..20_000, 1u64..40_000, 0u64..2_000, 0u64..10_000),
                0..8,
            ),
            more in 0u64..20_000,
            first_limit in 0u64..400_000,
            limit in 0u64..400_000,
        ) {
            let ns = Time::from_ns;
            let small: Vec<Term> = terms.iter().map(|&(c, j, p, _, _)| Term::new(ns(c), ns(j), ns(p))).collect();
            let grown: Vec<(Time, Time, Time)> = terms
                .iter()
                .map(|&(c, j, p, dc, dj)| (ns(c + dc), ns(j + dj), ns(p)))
                .collect();
            let (Ok(stop) | Err(stop)) = climb(ns(base), ns(base), ns(first_limit), &mut small.clone());
            let b = ns(base + more);
            let mut fresh: Vec<Term> = grown.iter().map(|&(c, j, p)| Term::new(c, j, p)).collect();
            let warm = climb(b, stop.max(b), ns(limit), &mut fresh).ok();
            prop_assert_eq!(warm, naive(b, ns(limit), &grown));
        }

        /// Tops: the climb's answer is the plain iteration's with each
        /// task's `a` longest instances summed over its jobs at every
        /// step, taken here by listing every instance and sorting; no
        /// larger than the smaller of its two coarse bounds (`a` times
        /// the longest, the jobs' whole sections) taken at every step.
        #[test]
        fn tops_sum_the_longest_instances_at_each_step(
            base in 0u64..50_000,
            tasks in proptest::collection::vec(
                (1u64..5, 0u64..20_000, 1u64..40_000, proptest::collection::vec(1u64..3_000, 1..4)),
                0..4,
            ),
            limit in 0u64..400_000,
        ) {
            let ns = Time::from_ns;
            let (b, l) = (ns(base), ns(limit));
            let mut arena = Vec::new();
            let mut tops = Vec::new();
            for (a, j, t, secs) in &tasks {
                let mut sorted: Vec<Time> = secs.iter().map(|&x| ns(x)).collect();
                sorted.sort_by(|x, y| y.cmp(x));
                let from = arena.len() as u32;
                arena.extend(sorted);
                tops.push(Top::new(*a, ns(*j), ns(*t), (from, arena.len() as u32)));
            }
            let got = climb_with(b, b, l, &mut [], &mut [], &mut tops, &arena).ok();
            let exact = |w: Time| {
                tasks.iter().fold(Time::ZERO, |acc, (a, j, t, secs)| {
                    let k = w.saturating_add(ns(*j)).div_ceil(ns(*t));
                    let mut all: Vec<u64> =
                        (0..k).flat_map(|_| secs.iter().copied()).collect();
                    all.sort_unstable_by(|x, y| y.cmp(x));
                    acc.saturating_add(ns(all.iter().take(*a as usize).sum()))
                })
            };
            prop_assert_eq!(got, naive_by(b, l, exact));
            let coarse = naive_by(b, l, |w| {
                tasks.iter().fold(Time::ZERO, |acc, (a, j, t, secs)| {
                    let k = w.saturating_add(ns(*j)).div_ceil(ns(*t));
                    let cap = secs.iter().max().unwrap() * a;
                    acc.saturating_add(ns(cap.min(k * secs.iter().sum::<u64>())))
                })
            });
            if let Some(x) = coarse {
                prop_assert!(got.is_some_and(|g| g <= x), "{got:?} above {x:?}");
            }
        }

        /// Pairs: the climb's answer is the plain iteration's with each
        /// pair's smaller term taken at every step, and it is no larger
        /// than either choice taken for every pair.
        #[test]
        fn pairs_take_the_smaller_term_at_each_step(
            base in 0u64..50_000,
            pairs in proptest::collection::vec(
                ((0u64..5_000, 0u64..20_000), (0u64..5_000, 0u64..20_000), 1u64..40_000),
                0..6,
            ),
            limit in 0u64..400_000,
        ) {
            let ns = Time::from_ns;
            let (b, l) = (ns(base), ns(limit));
            let mut cached: Vec<(Term, Term)> = pairs
                .iter()
                .map(|&((c, j), (c2, j2), p)| (Term::new(ns(c), ns(j), ns(p)), Term::new(ns(c2), ns(j2), ns(p))))
                .collect();
            let got = climb_with(b, b, l, &mut [], &mut cached, &mut [], &[]).ok();
            let plain = naive_by(b, l, |w| {
                pairs.iter().fold(Time::ZERO, |a, &((c, j), (c2, j2), p)| {
                    let one = work(w, (ns(c), ns(j), ns(p)));
                    a.saturating_add(one.min(work(w, (ns(c2), ns(j2), ns(p)))))
                })
            });
            prop_assert_eq!(got, plain);
            for side in [0, 1] {
                let one: Vec<(Time, Time, Time)> = pairs
                    .iter()
                    .map(|&((c, j), (c2, j2), p)| {
                        let (c, j) = if side == 0 { (c, j) } else { (c2, j2) };
                        (ns(c), ns(j), ns(p))
                    })
                    .collect();
                if let Some(x) = naive(b, l, &one) {
                    prop_assert!(got.is_some_and(|g| g <= x), "{got:?} above {x:?}");
                }
            }
        }
    }
}
