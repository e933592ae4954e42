//! Utilization generators.
//!
//! * UUniFast (Bini and Buttazzo 2005): `n` utilizations summing to `U`,
//!   uniformly distributed over the simplex; with the discard rule of Davis
//!   and Burns (2009) when a value above 1 is not allowed.
//! * UUniSort (Bini and Buttazzo 2005): the gaps between `n - 1` sorted
//!   uniform points in `[0, U]`; the same distribution, quasi-linear time
//!   (paper 001's choice).
//! * RandFixedSum (Stafford 2006; Emberson, Stafford and Davis 2010):
//!   uniform over `{u ∈ [a, b]^n : Σ u = U}`, with no discards, so it also
//!   serves multiprocessor totals above 1.
//! * Draws from a distribution (uniform, exponential, bimodal) until the
//!   total reaches `U`, the last value cut to land on it (the method of
//!   Brandenburg's and paper 004's experiments; the task count varies).

use rand::Rng;

/// `n` utilizations summing to `total` (UUniFast, Bini and Buttazzo
/// 2005); a value may exceed one when `total > 1`.
pub fn uunifast<R: Rng>(rng: &mut R, n: usize, total: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    let mut sum = total;
    for i in 1..n {
        let next = sum * rng.random::<f64>().powf(1.0 / (n - i) as f64);
        out.push(sum - next);
        sum = next;
    }
    if n > 0 {
        out.push(sum);
    }
    out
}

/// UUniFast-Discard: redraws until every value is at most 1. Returns `None`
/// after `tries` failures (the total is then too close to `n`).
pub fn uunifast_discard<R: Rng>(
    rng: &mut R,
    n: usize,
    total: f64,
    tries: usize,
) -> Option<Vec<f64>> {
    (0..tries)
        .map(|_| uunifast(rng, n, total))
        .find(|v| v.iter().all(|&u| u <= 1.0))
}

/// UUniFast's draw, sorted in decreasing order.
pub fn uunisort<R: Rng>(rng: &mut R, n: usize, total: f64) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let mut pts: Vec<f64> = (0..n - 1).map(|_| rng.random::<f64>() * total).collect();
    pts.sort_by(f64::total_cmp);
    let mut out = Vec::with_capacity(n);
    let mut prev = 0.0;
    for p in pts {
        out.push(p - prev);
        prev = p;
    }
    out.push(total - prev);
    out
}

/// `n` values in `[a, b]` summing to `total`, uniformly over that polytope.
/// Requires `n a <= total <= n b`.
pub fn randfixedsum<R: Rng>(rng: &mut R, n: usize, total: f64, a: f64, b: f64) -> Vec<f64> {
    assert!(n >= 1 && b > a && total >= n as f64 * a - 1e-9 && total <= n as f64 * b + 1e-9);
    if n == 1 {
        return vec![total];
    }
    // Rescale to the unit cube.
    let mut s = (total - n as f64 * a) / (b - a);
    let k = (s.floor() as i64).clamp(0, n as i64 - 1);
    s = s.clamp(k as f64, k as f64 + 1.0);
    let s1: Vec<f64> = (0..n).map(|i| s - (k - i as i64) as f64).collect();
    let s2: Vec<f64> = (0..n)
        .map(|i| (k + n as i64 - i as i64) as f64 - s)
        .collect();
    // w[i][c] are scaled simplex-slice volumes; t[i][c] transition
    // probabilities of the sampling walk.
    let big = f64::MAX;
    let tiny = f64::MIN_POSITIVE;
    let mut w = vec![vec![0.0f64; n + 1]; n];
    w[0][1] = big;
    let mut t = vec![vec![0.0f64; n]; n - 1];
    for i in 2..=n {
        for c in 0..i {
            let tmp1 = w[i - 2][c + 1] * s1[c] / i as f64;
            let tmp2 = w[i - 2][c] * s2[n - i + c] / i as f64;
            w[i - 1][c + 1] = tmp1 + tmp2;
            let tmp3 = w[i - 1][c + 1] + tiny;
            t[i - 2][c] = if s2[n - i + c] > s1[c] {
                tmp2 / tmp3
            } else {
                1.0 - tmp1 / tmp3
            };
        }
    }
    let mut x = vec![0.0f64; n];
    let mut j = k; // column into t (0-based)
    let mut sm = 0.0;
    let mut pr = 1.0;
    for i in (1..n).rev() {
        let e = rng.random::<f64>() <= t[i - 1][j as usize];
        let sx = rng.random::<f64>().powf(1.0 / i as f64);
        sm += (1.0 - sx) * pr * s / (i + 1) as f64;
        pr *= sx;
        x[n - i - 1] = sm + pr * if e { 1.0 } else { 0.0 };
        if e {
            s -= 1.0;
            j -= 1;
        }
    }
    x[n - 1] = sm + pr * s;
    // Random order, then back to [a, b].
    for i in (1..n).rev() {
        let r = rng.random_range(0..=i);
        x.swap(i, r);
    }
    x.into_iter().map(|v| (b - a) * v + a).collect()
}

/// A distribution to draw single utilizations from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dist {
    /// Uniform in `[min, max]`.
    Uniform {
        /// Least.
        min: f64,
        /// Most.
        max: f64,
    },
    /// Exponential with this mean, redrawn until in (0, 1].
    Exponential {
        /// The mean.
        mean: f64,
    },
    /// Uniform in `light` with probability `1 - p_heavy`, else in `heavy`.
    Bimodal {
        /// The light range.
        light: (f64, f64),
        /// The heavy range.
        heavy: (f64, f64),
        /// Probability of a heavy task.
        p_heavy: f64,
    },
}

impl Dist {
    /// One utilization.
    pub fn draw<R: Rng>(&self, rng: &mut R) -> f64 {
        match *self {
            Dist::Uniform { min, max } => rng.random_range(min..=max),
            Dist::Exponential { mean } => loop {
                let u: f64 = rng.random::<f64>();
                let v = -mean * (1.0 - u).ln();
                if v > 0.0 && v <= 1.0 {
                    return v;
                }
            },
            Dist::Bimodal {
                light,
                heavy,
                p_heavy,
            } => {
                let (lo, hi) = if rng.random::<f64>() < p_heavy {
                    heavy
                } else {
                    light
                };
                rng.random_range(lo..=hi)
            }
        }
    }

    /// Draws until the sum reaches `total`; the last value is cut so that
    /// the sum is exactly `total`.
    pub fn fill<R: Rng>(&self, rng: &mut R, total: f64) -> Vec<f64> {
        let mut out = Vec::new();
        let mut sum = 0.0;
        while sum < total - 1e-12 {
            let u = self.draw(rng).max(1e-6);
            let u = u.min(total - sum);
            out.push(u);
            sum += u;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    proptest! {
        #[test]
        fn randfixedsum_stays_in_box_and_sums(seed in any::<u64>(), n in 1usize..40, frac in 0.0f64..1.0) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let total = frac * n as f64;
            let v = randfixedsum(&mut rng, n, total, 0.0, 1.0);
            prop_assert_eq!(v.len(), n);
            let sum: f64 = v.iter().sum();
            prop_assert!((sum - total).abs() < 1e-6 * n as f64, "sum {} total {}", sum, total);
            prop_assert!(v.iter().all(|&u| (-1e-9..=1.0 + 1e-9).contains(&u)), "{:?}", v);
        }

        #[test]
        fn uunifast_and_uunisort_sum_to_total(seed in any::<u64>(), n in 1usize..40, total in 0.01f64..1.0) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for v in [uunifast(&mut rng, n, total), uunisort(&mut rng, n, total)] {
                prop_assert_eq!(v.len(), n);
                prop_assert!((v.iter().sum::<f64>() - total).abs() < 1e-9);
                prop_assert!(v.iter().all(|&u| u >= 0.0));
            }
        }

        #[test]
        fn fill_reaches_the_total(seed in any::<u64>(), total in 0.1f64..8.0) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for d in [Dist::Uniform { min: 0.01, max: 0.5 }, Dist::Exponential { mean: 0.25 },
                      Dist::Bimodal { light: (0.01, 0.1), heavy: (0.5, 0.9), p_heavy: 0.2 }] {
                let v = d.fill(&mut rng, total);
                prop_assert!((v.iter().sum::<f64>() - total).abs() < 1e-9);
                prop_assert!(v.iter().all(|&u| u > 0.0 && u <= 1.0));
            }
        }
    }

    /// RandFixedSum is uniform on the polytope: for n = 2 and total 1 on
    /// [0, 1] the first value is uniform on [0, 1], so its mean is 1/2 and
    /// a quarter of the draws fall below 1/4. For n = 3, total 1.5, the
    /// marginal mean is 1/2 by symmetry.
    #[test]
    fn randfixedsum_marginals_are_uniform() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let draws: Vec<f64> = (0..20_000)
            .map(|_| randfixedsum(&mut rng, 2, 1.0, 0.0, 1.0)[0])
            .collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let below = draws.iter().filter(|&&u| u < 0.25).count() as f64 / draws.len() as f64;
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
        assert!((below - 0.25).abs() < 0.015, "fraction below 1/4: {below}");
        let m3 = (0..20_000)
            .map(|_| randfixedsum(&mut rng, 3, 1.5, 0.0, 1.0)[1])
            .sum::<f64>()
            / 20_000.0;
        assert!((m3 - 0.5).abs() < 0.01, "mean {m3}");
    }

    /// UUniFast's marginal for n = 2 is uniform on [0, U] as well.
    #[test]
    fn uunifast_marginal_is_uniform() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let v: Vec<f64> = (0..20_000).map(|_| uunifast(&mut rng, 2, 0.8)[0]).collect();
        let below = v.iter().filter(|&&u| u < 0.2).count() as f64 / v.len() as f64;
        assert!((below - 0.25).abs() < 0.015, "{below}");
    }
}
