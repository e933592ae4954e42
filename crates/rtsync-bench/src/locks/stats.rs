//! Order statistics of a bench's samples, as paper 001 Table 2 and paper
//! 004 Fig. 2 report them: min, median, p99, max.

/// min, median, p99, max of `v` (nanoseconds), nearest-rank quantiles.
pub fn summary(mut v: Vec<f64>) -> [f64; 4] {
    assert!(!v.is_empty(), "no samples");
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [v[0], q(0.5), q(0.99), v[v.len() - 1]]
}

/// The summaries of several short rounds of one measurement as one:
/// the least minimum, the median of the medians and of the p99s, the
/// largest maximum. A hypervisor burst that stalls a few consecutive
/// samples of one round (a 2 ms steal covers four 500 us timer periods)
/// makes that round's p99 the burst, where the other rounds' stay at the
/// machine's usual tail: the median of the rounds' p99s keeps the usual
/// tail, and the burst stays in the maximum, the noise that a measured
/// response is allowed beyond its bound. A tail in every round stays in
/// the median.
pub fn robust(rounds: &[[f64; 4]]) -> [f64; 4] {
    assert!(!rounds.is_empty(), "no rounds");
    let median = |k: usize| {
        let mut v: Vec<f64> = rounds.iter().map(|r| r[k]).collect();
        v.sort_by(f64::total_cmp);
        v[(v.len() - 1) / 2]
    };
    let fold = |k: usize, f: fn(f64, f64) -> f64| rounds.iter().map(|r| r[k]).reduce(f).unwrap();
    [fold(0, f64::min), median(1), median(2), fold(3, f64::max)]
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

    /// Three rounds of 100 timer wake-ups, 5 us late but for a few: a
    /// 2 ms burst stalls three samples of one round, whose p99 (the 99th
    /// of 100) becomes the burst; the other rounds' p99 is 9 us. The
    /// median keeps 9 us and the worst keeps the burst; with the burst in
    /// two rounds the median is the burst.
    #[test]
    fn a_burst_in_one_round_stays_in_the_worst_not_the_p99() {
        let round = |burst: bool| {
            let mut v = vec![5_000.0; 100];
            v[50] = 9_000.0;
            v[51] = 9_000.0;
            if burst {
                v[10..13].copy_from_slice(&[2_000_000.0, 1_500_000.0, 1_000_000.0]);
            }
            summary(v)
        };
        let (calm, burst) = (round(false), round(true));
        assert_eq!(calm[2], 9_000.0);
        assert_eq!(burst[2], 1_500_000.0);
        assert_eq!(
            robust(&[calm, burst, calm]),
            [5_000.0, 5_000.0, 9_000.0, 2_000_000.0]
        );
        assert_eq!(robust(&[burst, calm, burst])[2], 1_500_000.0);
    }

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
