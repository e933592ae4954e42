//! Time as integer nanoseconds.
//!
//! Every duration in rtsync is a [`Time`]: a `u64` count of nanoseconds. No
//! floating point takes part in time arithmetic, so a bound computed twice is
//! the same bound, and an overflow is reported (as `None` from the checked
//! operations, or as an error from the parser) instead of wrapping into a
//! small, wrong, "schedulable" number.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A non-negative duration or instant in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

impl Time {
    /// No time.
    pub const ZERO: Time = Time(0);
    /// The largest time (about 584 years): in the analysis's saturating
    /// arithmetic, "beyond".
    pub const MAX: Time = Time(u64::MAX);

    /// From nanoseconds.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns)
    }
    /// From microseconds.
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000)
    }
    /// From milliseconds.
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    /// From seconds.
    pub const fn from_s(s: u64) -> Time {
        Time(s * 1_000_000_000)
    }
    /// In nanoseconds.
    pub const fn ns(self) -> u64 {
        self.0
    }
    /// Whether it is zero.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
    /// The sum, `None` on overflow.
    pub fn checked_add(self, o: Time) -> Option<Time> {
        self.0.checked_add(o.0).map(Time)
    }
    /// The difference, `None` below zero.
    pub fn checked_sub(self, o: Time) -> Option<Time> {
        self.0.checked_sub(o.0).map(Time)
    }
    /// `k` times it, `None` on overflow.
    pub fn checked_mul(self, k: u64) -> Option<Time> {
        self.0.checked_mul(k).map(Time)
    }
    /// The difference, zero below zero.
    pub fn saturating_sub(self, o: Time) -> Time {
        Time(self.0.saturating_sub(o.0))
    }
    /// The sum, `Time::MAX` on overflow.
    pub fn saturating_add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
    /// `ceil(self / d)`; `d` must not be zero.
    pub fn div_ceil(self, d: Time) -> u64 {
        self.0.div_ceil(d.0)
    }
    /// `floor(self / d)`; `d` must not be zero.
    pub fn div_floor(self, d: Time) -> u64 {
        self.0 / d.0
    }
    /// The ratio as a float, for utilizations and reports only (never for
    /// time arithmetic).
    pub fn ratio(self, d: Time) -> f64 {
        self.0 as f64 / d.0 as f64
    }
    /// The least common multiple of `periods` (the hyperperiod), `None`
    /// past [`Time::MAX`]; a zero period counts as one nanosecond. The one
    /// computation of it: the simulator's default horizon and the EDF
    /// demand test's horizon both come from here.
    pub fn hyperperiod<I: IntoIterator<Item = Time>>(periods: I) -> Option<Time> {
        fn gcd(a: u64, b: u64) -> u64 {
            if b == 0 { a } else { gcd(b, a % b) }
        }
        periods
            .into_iter()
            .try_fold(1u64, |acc, p| {
                let p = p.0.max(1);
                (acc / gcd(acc, p)).checked_mul(p)
            })
            .map(Time)
    }

    /// Sum of an iterator of times, `None` on overflow.
    pub fn checked_sum<I: IntoIterator<Item = Time>>(it: I) -> Option<Time> {
        it.into_iter().try_fold(Time::ZERO, |a, b| a.checked_add(b))
    }

    /// Parses a duration written with a unit: `"10ms"`, `"250us"`, `"1.5ms"`,
    /// `"2s"`, `"800ns"`, `"0"`. Decimal fractions are exact; a value finer
    /// than a nanosecond, a negative value, or one beyond `u64` nanoseconds is
    /// an error saying so.
    pub fn parse(text: &str) -> Result<Time, TimeError> {
        let s = text.trim();
        if s.is_empty() {
            return Err(TimeError::Empty);
        }
        if s.starts_with('-') {
            return Err(TimeError::Negative(s.to_string()));
        }
        let split = s
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
            .unwrap_or(s.len());
        let (num, unit) = (&s[..split], s[split..].trim());
        if num.is_empty() {
            return Err(TimeError::NoNumber(s.to_string()));
        }
        let scale: u64 = match unit {
            "ns" => 1,
            "us" | "µs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "" if num.chars().all(|c| c == '0' || c == '.' || c == '_') => 1,
            "" => return Err(TimeError::NoUnit(s.to_string())),
            other => return Err(TimeError::BadUnit(other.to_string())),
        };
        let num: String = num.chars().filter(|&c| c != '_').collect();
        let (int, frac) = match num.split_once('.') {
            Some((i, f)) => (i, f),
            None => (num.as_str(), ""),
        };
        if frac.contains('.') || (int.is_empty() && frac.is_empty()) {
            return Err(TimeError::NoNumber(s.to_string()));
        }
        let overflow = || TimeError::Overflow(s.to_string());
        let int_v: u64 = if int.is_empty() {
            0
        } else {
            int.parse().map_err(|_| overflow())?
        };
        let mut total = int_v.checked_mul(scale).ok_or_else(overflow)?;
        // Fractional digits: each must land on a whole nanosecond.
        let mut place = scale;
        for d in frac.chars() {
            let digit = d
                .to_digit(10)
                .ok_or_else(|| TimeError::NoNumber(s.to_string()))? as u64;
            if !place.is_multiple_of(10) {
                if digit != 0 {
                    return Err(TimeError::SubNanosecond(s.to_string()));
                }
                continue;
            }
            place /= 10;
            total = total.checked_add(digit * place).ok_or_else(overflow)?;
        }
        Ok(Time(total))
    }
}

/// Why a time string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeError {
    /// Nothing written.
    Empty,
    /// A negative value.
    Negative(String),
    /// No number before the unit.
    NoNumber(String),
    /// A number without a unit.
    NoUnit(String),
    /// A unit other than s, ms, us, ns.
    BadUnit(String),
    /// Finer than a nanosecond.
    SubNanosecond(String),
    /// Beyond 64-bit nanoseconds.
    Overflow(String),
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::Empty => write!(f, "empty duration"),
            TimeError::Negative(s) => write!(f, "negative duration `{s}`"),
            TimeError::NoNumber(s) => write!(f, "`{s}` is not a number followed by a unit"),
            TimeError::NoUnit(s) => write!(f, "`{s}` has no unit"),
            TimeError::BadUnit(u) => write!(f, "unknown time unit `{u}`"),
            TimeError::SubNanosecond(s) => {
                write!(f, "`{s}` is finer than one nanosecond, the unit of time")
            }
            TimeError::Overflow(s) => write!(f, "`{s}` does not fit in 64-bit nanoseconds"),
        }
    }
}

/// The hint that goes with every time error: what to write instead.
pub const TIME_HINT: &str =
    "write a number with a unit: \"10ms\", \"250us\", \"1.5ms\", \"2s\" or \"800ns\"";

impl fmt::Display for Time {
    /// The largest unit in which the value is exact to three decimals,
    /// so that `Time::parse(&t.to_string()) == t` always holds. Zero is
    /// `0`, the one time that needs no unit, in every command's output
    /// alike (tables once printed `0` and reports `0ns`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns == 0 {
            return f.write_str("0");
        }
        for (scale, unit) in [(1_000_000_000u64, "s"), (1_000_000, "ms"), (1_000, "us")] {
            if ns >= scale && ns.is_multiple_of((scale / 1000).max(1)) {
                let whole = ns / scale;
                let rem = ns % scale;
                if rem == 0 {
                    return write!(f, "{whole}{unit}");
                }
                let frac = format!("{:03}", rem / (scale / 1000));
                return write!(f, "{whole}.{}{unit}", frac.trim_end_matches('0'));
            }
        }
        write!(f, "{ns}ns")
    }
}

impl Serialize for Time {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
        u64::deserialize(d).map(Time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hyperperiod_is_the_lcm_and_none_past_the_range() {
        let ms = Time::from_ms;
        assert_eq!(Time::hyperperiod([ms(4), ms(6), ms(10)]), Some(ms(60)));
        assert_eq!(Time::hyperperiod([ms(5)]), Some(ms(5)));
        assert_eq!(Time::hyperperiod([]), Some(Time::from_ns(1)));
        // Four primes near 10^6 ns: their product passes 2^64.
        let primes = [1_000_003, 999_983, 1_000_033, 999_979].map(Time::from_ns);
        assert_eq!(Time::hyperperiod(primes), None);
        assert_eq!(
            Time::hyperperiod(primes[..3].iter().copied()),
            Some(Time::from_ns(1_000_003 * 999_983 * 1_000_033))
        );
    }
    use proptest::prelude::*;

    #[test]
    fn parses_units_exactly() {
        assert_eq!(Time::parse("10ms"), Ok(Time::from_ms(10)));
        assert_eq!(Time::parse("250us"), Ok(Time::from_us(250)));
        assert_eq!(Time::parse("1.5ms"), Ok(Time::from_us(1500)));
        assert_eq!(Time::parse("0.000000001s"), Ok(Time::from_ns(1)));
        assert_eq!(Time::parse("2 s"), Ok(Time::from_s(2)));
        assert_eq!(Time::parse("1_000ns"), Ok(Time::from_us(1)));
        assert_eq!(Time::parse("0"), Ok(Time::ZERO));
        assert_eq!(Time::parse(".5us"), Ok(Time::from_ns(500)));
    }

    #[test]
    fn rejects_bad_times_with_reason() {
        assert!(matches!(Time::parse("-1ms"), Err(TimeError::Negative(_))));
        assert!(matches!(Time::parse("10"), Err(TimeError::NoUnit(_))));
        assert!(matches!(Time::parse("10 min"), Err(TimeError::BadUnit(_))));
        assert!(matches!(
            Time::parse("1.5ns"),
            Err(TimeError::SubNanosecond(_))
        ));
        assert!(matches!(Time::parse("ms"), Err(TimeError::NoNumber(_))));
        assert!(matches!(
            Time::parse("1.2.3ms"),
            Err(TimeError::NoNumber(_))
        ));
        assert!(matches!(
            Time::parse("20000000000s"),
            Err(TimeError::Overflow(_))
        ));
        assert!(matches!(
            Time::parse("99999999999999999999ns"),
            Err(TimeError::Overflow(_))
        ));
        assert_eq!(Time::parse(""), Err(TimeError::Empty));
    }

    #[test]
    fn displays_in_readable_units() {
        assert_eq!(Time::from_ms(10).to_string(), "10ms");
        assert_eq!(Time::from_us(1500).to_string(), "1.5ms");
        assert_eq!(Time::from_ns(1234).to_string(), "1.234us");
        assert_eq!(Time::from_ns(1_000_001).to_string(), "1000.001us");
        assert_eq!(Time::from_ns(7).to_string(), "7ns");
    }

    #[test]
    fn checked_arithmetic_reports_overflow() {
        assert_eq!(Time::MAX.checked_add(Time::from_ns(1)), None);
        assert_eq!(Time::from_s(10).checked_mul(u64::MAX), None);
        assert_eq!(Time::from_ms(7).div_ceil(Time::from_ms(2)), 4);
    }

    proptest! {
        #[test]
        fn display_round_trips(ns in any::<u64>()) {
            let t = Time::from_ns(ns);
            prop_assert_eq!(Time::parse(&t.to_string()), Ok(t));
        }
    }
}
