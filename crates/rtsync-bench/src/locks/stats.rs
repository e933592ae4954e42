//! Order statistics of a bench's samples, as paper 001 Table 2 and paper
//! 004 Fig. 2 report them: min, median, p99, max.

/// min, median, p99, max of `v` (nanoseconds), nearest-rank quantiles.
pub fn summary(mut v: Vec<f64>) -> [f64; 4] {
    assert!(!v.is_empty(), "no samples");
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [v[0], q(0.5), q(0.99), v[v.len() - 1]]
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

    #[test]
    fn quantiles_of_one_to_a_hundred_and_one() {
        let v: Vec<f64> = (1..=101).rev().map(f64::from).collect();
        assert_eq!(summary(v), [1.0, 51.0, 100.0, 101.0]);
        assert_eq!(summary(vec![5.0]), [5.0; 4]);
    }
}
