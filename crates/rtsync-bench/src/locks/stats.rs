//! Order statistics of a bench's samples, as paper 001 Table 2 and paper
//! 004 Fig. 2 report them: min, median, p99, max.

/// min, median, p99, max of `v` (nanoseconds), nearest-rank quantiles.
pub fn summary(mut v: Vec<f64>) -> [f64; 4] {
    assert!(!v.is_empty(), "no samples");
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [v[0], q(0.5), q(0.99), v[v.len() - 1]]
}

/// Mean and (population) standard deviation of `v`, as paper 001 Fig. 6
/// and paper 002's tables report them; `(0, 0)` for no sample.
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// The cost of reading the clock, to take off single timed operations:
/// the median of back-to-back reads.
pub fn clock_cost() -> f64 {
    let v = (0..2000)
        .map(|_| {
            let t0 = std::time::Instant::now();
            let t1 = std::time::Instant::now();
            (t1 - t0).as_nanos() as f64
        })
        .collect();
    summary(v)[1]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2, 4, 4, 4, 5, 5, 7, 9: mean 5, standard deviation 2 (the
    /// textbook example).
    #[test]
    fn mean_and_deviation_by_hand() {
        assert_eq!(
            mean_std(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]),
            (5.0, 2.0)
        );
        assert_eq!(mean_std(&[]), (0.0, 0.0));
    }

    #[test]
    fn quantiles_of_one_to_a_hundred_and_one() {
        let v: Vec<f64> = (1..=101).rev().map(f64::from).collect();
        assert_eq!(summary(v), [1.0, 51.0, 100.0, 101.0]);
        assert_eq!(summary(vec![5.0]), [5.0; 4]);
    }
}
