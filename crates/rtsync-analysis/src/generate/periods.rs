//! Period generators. Periods are integer nanoseconds, drawn exactly at
//! that resolution: no rounding to milliseconds or other grids happens
//! unless the distribution itself is a grid (harmonic).

use rand::Rng;
use rtsync_model::Time;

/// How task periods are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Periods {
    /// `exp(uniform(ln min, ln max))` (Emberson et al. 2010).
    LogUniform {
        /// Shortest.
        min: Time,
        /// Longest.
        max: Time,
    },
    /// Uniform in `[min, max]`.
    Uniform {
        /// Shortest.
        min: Time,
        /// Longest.
        max: Time,
    },
    /// `min · 2^k` for the `k` that stay within `max` (paper 001: harmonic
    /// periods from 10 ms to 1 s).
    Harmonic {
        /// Shortest.
        min: Time,
        /// Longest.
        max: Time,
    },
}

impl Periods {
    /// One period.
    pub fn draw<R: Rng>(&self, rng: &mut R) -> Time {
        match *self {
            Periods::LogUniform { min, max } => {
                let (a, b) = ((min.ns() as f64).ln(), (max.ns() as f64).ln());
                let v = rng.random_range(a..=b).exp().round() as u64;
                Time::from_ns(v.clamp(min.ns(), max.ns()))
            }
            Periods::Uniform { min, max } => Time::from_ns(rng.random_range(min.ns()..=max.ns())),
            Periods::Harmonic { min, max } => {
                let mut steps = 0;
                while min.ns() << (steps + 1) <= max.ns() && steps < 62 {
                    steps += 1;
                }
                Time::from_ns(min.ns() << rng.random_range(0..=steps))
            }
        }
    }
}
