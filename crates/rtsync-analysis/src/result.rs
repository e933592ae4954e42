//! Analysis results: immutable values, serialisable to JSON.
//!
//! A response-time bound is either a finite time or an explicit
//! [`Response::Unbounded`] / [`Response::Exceeds`]; no sentinel integer ever
//! flows into later arithmetic.

use rtsync_model::{Protocol, Scheduler, Time};
use serde::Serialize;
use std::fmt;

/// A response-time bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "ns", rename_all = "snake_case")]
pub enum Response {
    /// Every job finishes within this time of its arrival.
    Bounded(Time),
    /// The fixed-point iteration passed the deadline (at this value) and was
    /// stopped: the task may miss its deadline.
    Exceeds(Time),
    /// No finite bound: arithmetic overflow, or a test that gives none.
    Unbounded,
}

impl Response {
    /// The bound, when there is one.
    pub fn bounded(self) -> Option<Time> {
        match self {
            Response::Bounded(t) => Some(t),
            _ => None,
        }
    }
    /// Whether the bound is known and within `deadline`.
    pub fn meets(self, deadline: Time) -> bool {
        matches!(self, Response::Bounded(r) if r <= deadline)
    }
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Bounded(t) => write!(f, "{}", shown(*t)),
            Response::Exceeds(t) => write!(f, "> {}", shown(*t)),
            Response::Unbounded => write!(f, "unbounded"),
        }
    }
}

/// A bound as a person reads it: [`Time::MAX`] (a bound that passed the
/// deadline, or overflowed, and was not computed further) is `unbounded`,
/// never its 18-digit sentinel. Every table prints bounds through this.
/// A value that needs more than four significant digits (an overhead
/// profile makes bounds like 89,630,807 ns) is rounded up to four: a
/// bound read a little high is still a bound, and `89.64ms` reads at a
/// glance where `89630.807us` does not. JSON keeps the exact nanoseconds.
pub fn shown(t: Time) -> String {
    if t == Time::MAX {
        return "unbounded".into();
    }
    let exact = t.to_string();
    let digits = exact.chars().filter(char::is_ascii_digit).count();
    if digits <= 4 {
        return exact;
    }
    let ns = t.ns();
    let (scale, unit) = [(1_000_000_000u64, "s"), (1_000_000, "ms"), (1_000, "us")]
        .into_iter()
        .find(|&(s, _)| ns >= s)
        .unwrap_or((1, "ns"));
    let whole_digits = (ns / scale).to_string().len();
    let decimals = 4usize.saturating_sub(whole_digits) as u32;
    // Round up in integer arithmetic: units of scale / 10^decimals.
    let step = (scale / 10u64.pow(decimals)).max(1);
    let up = ns.div_ceil(step) * step;
    // Integer digits: `format!("{:.3}", f64)` took the slow exact path in
    // the float formatter for every period of a 100,000-task table.
    let whole = up / scale;
    let mut frac = (up % scale) / step;
    let mut places = decimals;
    while places > 0 && frac.is_multiple_of(10) {
        frac /= 10;
        places -= 1;
    }
    if places == 0 {
        format!("{whole}{unit}")
    } else {
        format!("{whole}.{frac:0width$}{unit}", width = places as usize)
    }
}

/// Why a blocking field is `null` in JSON.
pub const UNBOUNDED_REASON: &str = "a blocking term's recurrence passed the task's deadline \
     (or overflowed 64-bit nanoseconds) and was not computed further: the task may miss its deadline";

/// A bound on a delay: a finite time, or none. The analysis computes in
/// saturating time, where a recurrence that passes the deadline (or
/// overflows 64-bit nanoseconds) stops at [`Time::MAX`]; results never
/// carry that value, only [`Delay::Unbounded`], so no consumer can add to
/// it or print its 20 digits by mistake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Delay {
    /// At most this long.
    Bounded(Time),
    /// Not bounded: the task may miss its deadline ([`UNBOUNDED_REASON`]).
    Unbounded,
}

impl Delay {
    /// No delay.
    pub const ZERO: Delay = Delay::Bounded(Time::ZERO);

    /// A value of the analysis's saturating arithmetic, where [`Time::MAX`]
    /// means "beyond": the one place that reads that convention.
    pub fn from_saturated(t: Time) -> Delay {
        if t == Time::MAX {
            Delay::Unbounded
        } else {
            Delay::Bounded(t)
        }
    }

    /// The finite bound, if there is one.
    pub fn bounded(self) -> Option<Time> {
        match self {
            Delay::Bounded(t) => Some(t),
            Delay::Unbounded => None,
        }
    }

    /// The sum; unbounded if either is, or if it overflows.
    pub fn plus(self, o: Delay) -> Delay {
        match (self, o) {
            (Delay::Bounded(a), Delay::Bounded(b)) => a
                .checked_add(b)
                .map_or(Delay::Unbounded, Delay::from_saturated),
            _ => Delay::Unbounded,
        }
    }
}

impl Default for Delay {
    fn default() -> Delay {
        Delay::ZERO
    }
}

/// A delay equals a time when it is bounded at exactly that time.
impl PartialEq<Time> for Delay {
    fn eq(&self, t: &Time) -> bool {
        *self == Delay::Bounded(*t)
    }
}

impl fmt::Display for Delay {
    /// [`shown`] for a bound, `unbounded` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Delay::Bounded(t) => f.write_str(&shown(*t)),
            Delay::Unbounded => f.write_str("unbounded"),
        }
    }
}

impl Serialize for Delay {
    /// Nanoseconds, or `null` when unbounded.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Delay::Bounded(t) => s.serialize_u64(t.ns()),
            Delay::Unbounded => s.serialize_none(),
        }
    }
}

/// A job's worst-case delays, split by kind. An unbounded one is `null`
/// in JSON, and the object then carries `unbounded_reason`
/// ([`UNBOUNDED_REASON`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Blocking {
    /// Priority inversion on the task's own CPU (lower-priority sections,
    /// non-preemptive sections, boosted or ceiling-raised holders).
    pub local: Delay,
    /// Suspended while waiting for a resource held elsewhere, or while the
    /// section runs on a synchronization CPU (it includes that execution).
    pub remote: Delay,
    /// Busy-waiting on the task's own CPU.
    pub spin: Delay,
    /// Run-time overheads charged to the job (lock, unlock, context
    /// switches, migrations, release), already part of its WCET.
    pub overhead: Time,
}

impl Serialize for Blocking {
    /// The fields, an unbounded one as `null`, and `unbounded_reason`
    /// exactly when one is (derived here, never stored).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let unbounded = self.total() == Delay::Unbounded;
        let mut st = s.serialize_struct("Blocking", 4 + unbounded as usize)?;
        st.serialize_field("local", &self.local)?;
        st.serialize_field("remote", &self.remote)?;
        st.serialize_field("spin", &self.spin)?;
        st.serialize_field("overhead", &self.overhead)?;
        if unbounded {
            st.serialize_field("unbounded_reason", UNBOUNDED_REASON)?;
        }
        st.end()
    }
}

impl Blocking {
    /// Local + remote + spin (overhead is inside the WCET).
    pub fn total(&self) -> Delay {
        self.local.plus(self.remote).plus(self.spin)
    }
}

/// A test's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every deadline holds.
    Schedulable,
    /// Some deadline may be missed.
    NotSchedulable,
    /// The test does not apply to this system (its assumptions fail).
    NotApplicable,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Schedulable => "schedulable",
            Verdict::NotSchedulable => "NOT schedulable",
            Verdict::NotApplicable => "n/a",
        })
    }
}

/// Schedulability tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Fixed-priority response-time analysis.
    Rta,
    /// EDF processor-demand criterion (exact for the model).
    EdfDemand,
    /// Baker's density test for EDF + SRP.
    EdfBaker,
    /// Liu-Layland utilization bound with blocking (Sha et al. 1990).
    LiuLayland,
    /// Hyperbolic bound with blocking, non-unique priorities (paper 001 Eq. 4).
    Hyperbolic,
}

impl Test {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Test::Rta => "rta",
            Test::EdfDemand => "edf-demand",
            Test::EdfBaker => "edf-baker",
            Test::LiuLayland => "ll",
            Test::Hyperbolic => "hyperbolic",
        }
    }
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One task's analysis.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskResult {
    /// The task.
    pub name: String,
    /// Its CPU.
    pub cpu: Option<usize>,
    /// Its priority.
    pub priority: u32,
    /// Its period.
    pub period: Time,
    /// Its relative deadline.
    pub deadline: Time,
    /// WCET including charged overheads.
    pub wcet: Time,
    /// Its worst-case blocking, by kind.
    pub blocking: Blocking,
    /// Its response-time bound.
    pub response: Response,
    /// Deadline minus bound, when bounded and met.
    pub slack: Option<Time>,
    /// Whether its deadline holds.
    pub verdict: Verdict,
}

/// One test's outcome on the whole system.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestOutcome {
    /// The test.
    pub test: Test,
    /// Its answer.
    pub verdict: Verdict,
    /// Why it does not apply, or which task fails it.
    pub detail: Option<String>,
}

/// The analysis of a whole system.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemResult {
    /// The protocol whose analysis covers every resource, if one does
    /// (`None` for a mix of protocols, [`rtsync_model::Mix`]).
    pub protocol: Option<Protocol>,
    /// Every protocol the resources use, each once.
    pub protocols: Vec<Protocol>,
    /// Fixed priorities or EDF.
    pub scheduler: Scheduler,
    /// The form of the blocking bounds (`--analysis`).
    pub analysis: crate::BoundForm,
    /// The verdict.
    pub verdict: Verdict,
    /// The test that decided the verdict.
    pub decided_by: Option<Test>,
    /// Each test's outcome.
    pub tests: Vec<TestOutcome>,
    /// Per task.
    pub tasks: Vec<TaskResult>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_round_up_to_four_digits_and_short_ones_stay_exact() {
        assert_eq!(shown(Time::from_ns(89_630_807)), "89.64ms");
        assert_eq!(shown(Time::from_ns(5_429_812)), "5.43ms");
        assert_eq!(shown(Time::from_ns(38_315_768)), "38.32ms");
        assert_eq!(shown(Time::from_ns(1_103_276)), "1.104ms");
        assert_eq!(shown(Time::from_ns(123_456)), "123.5us");
        assert_eq!(shown(Time::from_us(20_450)), "20.45ms");
        assert_eq!(shown(Time::from_ms(100)), "100ms");
        assert_eq!(shown(Time::ZERO), "0");
        assert_eq!(shown(Time::MAX), "unbounded");
        // Rounding up carries into the whole part; trailing zeros go.
        assert_eq!(shown(Time::from_ns(1_199_999_999)), "1.2s");
        assert_eq!(shown(Time::from_ns(999_999_999)), "1000ms");
        assert_eq!(shown(Time::from_ns(12_000_000_001)), "12.01s");
        assert_eq!(shown(Time::from_ns(1_000_040_000)), "1.001s");
        // Never below the exact value.
        for ns in [1_000_001u64, 999_999_999, 12_345_678_901, 7, 1_234_567] {
            let t = Time::from_ns(ns);
            let back = Time::parse(&shown(t)).unwrap();
            assert!(back >= t, "{ns}: {}", shown(t));
        }
    }

    #[test]
    fn a_delay_is_bounded_or_not_and_never_the_saturated_value() {
        let ms = |n| Delay::Bounded(Time::from_ms(n));
        assert_eq!(Delay::from_saturated(Time::MAX), Delay::Unbounded);
        assert_eq!(Delay::from_saturated(Time::from_ms(3)), ms(3));
        assert_eq!(ms(3).plus(ms(4)), ms(7));
        assert_eq!(ms(3).plus(Delay::Unbounded), Delay::Unbounded);
        // A sum that overflows, or lands on the saturated value, is unbounded.
        let near = Delay::Bounded(Time::from_ns(u64::MAX - 1));
        assert_eq!(
            near.plus(Delay::Bounded(Time::from_ns(1))),
            Delay::Unbounded
        );
        assert_eq!(near.plus(ms(1)), Delay::Unbounded);
        // Unbounded sorts above every bound; a delay equals the time it is.
        assert!(ms(u64::MAX / 2_000_000) < Delay::Unbounded);
        assert!(ms(2) < ms(3));
        assert!(ms(2) == Time::from_ms(2) && Delay::Unbounded != Time::MAX);
        assert_eq!(Delay::Unbounded.to_string(), "unbounded");
        assert_eq!(
            Delay::Bounded(Time::from_ns(89_630_807)).to_string(),
            "89.64ms"
        );
    }

    #[test]
    fn blocking_serialises_null_with_a_reason_exactly_when_unbounded() {
        let mut b = Blocking {
            local: Delay::Bounded(Time::from_us(5)),
            ..Blocking::default()
        };
        let v = serde_json::to_value(b).unwrap();
        assert_eq!(v["local"], 5000);
        assert!(v.get("unbounded_reason").is_none());
        b.spin = Delay::Unbounded;
        let v = serde_json::to_value(b).unwrap();
        assert!(v["spin"].is_null());
        assert_eq!(v["unbounded_reason"], UNBOUNDED_REASON);
        assert_eq!(b.total(), Delay::Unbounded);
    }
}
