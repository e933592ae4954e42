//! How long to simulate when the user does not say: two hyperperiods,
//! unless that is out of reach.
//!
//! Periods of 1000003 ns and 999983 ns have a hyperperiod of about 10^12
//! ns, and a few such tasks reach 10^18 ns: two hyperperiods would never
//! finish, and a first version ran on in silence. The default is capped
//! at about [`MAX_DEFAULT_JOBS`] jobs, and the cap says what to pass
//! instead. An explicit horizon is honoured (with progress shown by the
//! caller).

use rtsync_model::{System, Time};

/// The most jobs (all tasks together) a default horizon releases: at the
/// simulator's few million events per second, a few seconds of work.
pub const MAX_DEFAULT_JOBS: u128 = 1_000_000;

/// Jobs released within `horizon` (periodic, from 0), all tasks together.
pub fn jobs_within(sys: &System, horizon: Time) -> u128 {
    sys.tasks
        .iter()
        .map(|t| (horizon.ns() as u128).div_ceil(t.period.ns().max(1) as u128))
        .sum()
}

/// A horizon chosen for the user, and why it is not the one asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultHorizon {
    /// The horizon to simulate.
    pub horizon: Time,
    /// Set when `hyperperiods` hyperperiods were out of reach: what was
    /// simulated instead and what to pass to choose.
    pub capped: Option<String>,
}

/// `hyperperiods` hyperperiods of `sys`, or, when they overflow or would
/// release more than [`MAX_DEFAULT_JOBS`] jobs, the horizon that releases
/// about that many (every task still releases its first job at 0).
pub fn default_horizon(sys: &System, hyperperiods: u64) -> DefaultHorizon {
    let wanted = sys.hyperperiod().and_then(|h| h.checked_mul(hyperperiods));
    if let Some(h) = wanted
        && jobs_within(sys, h) <= MAX_DEFAULT_JOBS
    {
        return DefaultHorizon {
            horizon: h,
            capped: None,
        };
    }
    // Jobs per nanosecond, all tasks together.
    let rate: f64 = sys
        .tasks
        .iter()
        .map(|t| 1.0 / t.period.ns().max(1) as f64)
        .sum();
    let reach = round_down(Time::from_ns(
        (MAX_DEFAULT_JOBS as f64 / rate.max(f64::MIN_POSITIVE)) as u64,
    ))
    .max(Time::from_ns(1));
    let what = match wanted {
        Some(h) => format!(
            "{hyperperiods} hyperperiods ({h}) would release {} jobs",
            jobs_within(sys, h)
        ),
        None => format!("{hyperperiods} hyperperiods overflow 64-bit nanoseconds"),
    };
    DefaultHorizon {
        horizon: reach,
        capped: Some(format!(
            "{what}; simulating {reach} instead (about {} jobs). Pass --horizon with a \
             duration (\"10s\") or a number of hyperperiods (\"1h\") to choose",
            jobs_within(sys, reach)
        )),
    }
}

/// `t` cut to two significant digits (249,999,874,885 ns
/// has 12 significant digits; 240 s reads at a glance and stays within
/// the job budget).
fn round_down(t: Time) -> Time {
    let ns = t.ns();
    let mut unit = 1u64;
    while ns / unit >= 100 {
        unit *= 10;
    }
    Time::from_ns(ns / unit * unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(periods: &[&str]) -> System {
        let mut src = String::new();
        for (i, p) in periods.iter().enumerate() {
            src += &format!("[[task]]\nname = \"t{i}\"\nperiod = \"{p}\"\nwcet = \"1ns\"\n");
        }
        rtsync_model::load_str(&src, None).unwrap().0
    }

    #[test]
    fn capped_horizons_are_round() {
        assert_eq!(
            round_down(Time::from_ns(249_999_874_885)),
            Time::from_s(240)
        );
        assert_eq!(round_down(Time::from_ns(99)), Time::from_ns(99));
        assert_eq!(round_down(Time::from_ns(1234)), Time::from_ns(1200));
    }

    #[test]
    fn a_reachable_default_is_two_hyperperiods() {
        let d = default_horizon(&sys(&["4ms", "6ms", "10ms"]), 2);
        assert_eq!(d.horizon, Time::from_ms(120));
        assert!(d.capped.is_none());
        // 30 + 20 + 12 jobs, counted by hand.
        assert_eq!(jobs_within(&sys(&["4ms", "6ms", "10ms"]), d.horizon), 62);
    }

    #[test]
    fn an_unreachable_default_is_capped_near_the_job_budget_and_says_so() {
        for periods in [
            &["1000003ns", "999983ns", "1000033ns", "999979ns"][..],
            &["1ns", "1s"][..],
            &["1000003ns", "999983ns", "1s"][..],
        ] {
            let s = sys(periods);
            let d = default_horizon(&s, 2);
            let jobs = jobs_within(&s, d.horizon);
            assert!(
                jobs <= MAX_DEFAULT_JOBS + s.tasks.len() as u128,
                "{periods:?}: {jobs} jobs"
            );
            assert!(jobs >= MAX_DEFAULT_JOBS / 2, "{periods:?}: {jobs} jobs");
            let why = d.capped.expect("capped");
            assert!(why.contains("--horizon"), "{why}");
        }
    }
}
