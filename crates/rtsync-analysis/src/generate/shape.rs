//! The shape of random systems as a person writes it: the options of
//! `rtsync generate` and of the schedulability sweep, and the keyword
//! arguments of the Python package's `generate` and `experiments`. One
//! description, so that the command line, Python and a sweep's shard files
//! read the same words the same way; [`ShapeSpec::config`] turns it into
//! the generator's [`GenConfig`].
//!
//! With the `cli` feature the same struct is a set of clap options (the
//! doc comments are their help), so the command line cannot drift from
//! what a shard file or Python accepts.

use super::{Dist, GenConfig, Periods, Positions, Utilizations, check_config};
use crate::partition::Heuristic;
use rtsync_model::{Protocol, Scheduler, Time};
use serde::{Deserialize, Serialize};

/// The shape of generated systems. Every field has the default that
/// `rtsync generate` shows in its `--help`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ShapeSpec {
    /// Number of CPUs.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 4))]
    pub cpus: usize,
    /// Number of tasks (for uunifast, uunisort, randfixedsum).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 16))]
    pub tasks: usize,
    /// randfixedsum | uunifast | uunisort | uniform:MIN,MAX | exp:MEAN |
    /// bimodal:LMIN,LMAX,HMIN,HMAX,P_HEAVY.
    #[cfg_attr(feature = "cli", arg(long, default_value = "randfixedsum"))]
    pub utilizations: String,
    /// log-uniform:MIN,MAX | uniform:MIN,MAX | harmonic:MIN,MAX (times with units).
    #[cfg_attr(feature = "cli", arg(long, default_value = "log-uniform:10ms,1s"))]
    pub periods: String,
    /// Smallest deadline as a fraction of the period (1 = implicit deadlines).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1.0))]
    pub deadline_min: f64,
    /// Shared resources.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 4))]
    pub resources: usize,
    /// Probability that a task uses a given resource.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.3))]
    pub access_prob: f64,
    /// Critical-section length range, MIN,MAX.
    #[cfg_attr(feature = "cli", arg(long, default_value = "10us,100us"))]
    pub cs: String,
    /// Sections per used resource per job: 1..=N.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub requests: u32,
    /// Probability that a section nests inside the previous one.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.0))]
    pub nest_prob: f64,
    /// Resources private to each CPU, besides the shared ones: tasks are
    /// placed first (worst fit) and use their own CPU's. Local resources
    /// beside global ones are where MPCP's and FMLP's local terms matter.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0))]
    pub local_resources: usize,
    /// Probability of a self-suspension between two top-level segments.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.0))]
    pub suspend_prob: f64,
    /// Longest self-suspension.
    #[cfg_attr(feature = "cli", arg(long, default_value = "1ms"))]
    pub suspend_max: String,
    /// even (equal computation around the sections) | random (sections at
    /// the start, middle or end of the body).
    #[cfg_attr(feature = "cli", arg(long, default_value = "even"))]
    pub positions: String,
    /// fp (fixed priorities, rate monotonic) | edf.
    #[cfg_attr(feature = "cli", arg(long, default_value = "fp"))]
    pub scheduler: String,
    /// auto | wfd | ffd | bfd | sync | none (leave tasks without a CPU).
    /// auto keeps resource sharers together (sync) under uniprocessor
    /// protocols, whose resources must stay on one CPU, and uses wfd
    /// otherwise.
    #[cfg_attr(feature = "cli", arg(long, default_value = "auto"))]
    pub partition: String,
    /// DPCP and DFLP: serve resource r on CPU r mod cpus, several
    /// synchronization CPUs each hosting tasks, instead of every resource
    /// on the last CPU.
    #[cfg_attr(feature = "cli", arg(long))]
    pub sync_spread: bool,
}

impl Default for ShapeSpec {
    fn default() -> ShapeSpec {
        ShapeSpec {
            cpus: 4,
            tasks: 16,
            utilizations: "randfixedsum".into(),
            periods: "log-uniform:10ms,1s".into(),
            deadline_min: 1.0,
            resources: 4,
            access_prob: 0.3,
            cs: "10us,100us".into(),
            requests: 1,
            nest_prob: 0.0,
            local_resources: 0,
            suspend_prob: 0.0,
            suspend_max: "1ms".into(),
            positions: "even".into(),
            scheduler: "fp".into(),
            partition: "auto".into(),
            sync_spread: false,
        }
    }
}

fn pair(s: &str, what: &str) -> Result<(Time, Time), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("{what}: expected MIN,MAX, got `{s}`"))?;
    let a = Time::parse(a).map_err(|e| format!("{what}: {e}"))?;
    let b = Time::parse(b).map_err(|e| format!("{what}: {e}"))?;
    if a.is_zero() || a > b {
        return Err(format!("{what}: need 0 < MIN <= MAX, got {a},{b}"));
    }
    Ok((a, b))
}

fn floats(s: &str, n: usize, what: &str) -> Result<Vec<f64>, String> {
    let v: Result<Vec<f64>, _> = s.split(',').map(|x| x.trim().parse::<f64>()).collect();
    match v {
        Ok(v) if v.len() == n => Ok(v),
        _ => Err(format!(
            "{what}: expected {n} comma-separated numbers, got `{s}`"
        )),
    }
}

impl ShapeSpec {
    /// The scheduler named by `scheduler`.
    pub fn scheduler(&self) -> Result<Scheduler, String> {
        self.scheduler
            .parse::<Scheduler>()
            .map_err(|e| format!("scheduler: {e}"))
    }

    /// The generator's configuration for `protocol` at total utilization
    /// `utilization`, or what is wrong with the shape (the option named as
    /// on the command line).
    pub fn config(&self, protocol: Protocol, utilization: f64) -> Result<GenConfig, String> {
        let utilizations = match self.utilizations.split_once(':') {
            None => match self.utilizations.as_str() {
                "randfixedsum" => Utilizations::RandFixedSum,
                "uunifast" => Utilizations::UUniFast,
                "uunisort" => Utilizations::UUniSort,
                o => return Err(format!("--utilizations: unknown method `{o}`")),
            },
            Some(("uniform", r)) => {
                let v = floats(r, 2, "--utilizations uniform")?;
                Utilizations::Draw(Dist::Uniform {
                    min: v[0],
                    max: v[1],
                })
            }
            Some(("exp", r)) => Utilizations::Draw(Dist::Exponential {
                mean: floats(r, 1, "--utilizations exp")?[0],
            }),
            Some(("bimodal", r)) => {
                let v = floats(r, 5, "--utilizations bimodal")?;
                Utilizations::Draw(Dist::Bimodal {
                    light: (v[0], v[1]),
                    heavy: (v[2], v[3]),
                    p_heavy: v[4],
                })
            }
            Some((o, _)) => return Err(format!("--utilizations: unknown method `{o}`")),
        };
        let periods = match self.periods.split_once(':') {
            Some(("log-uniform", r)) => {
                let (min, max) = pair(r, "--periods")?;
                Periods::LogUniform { min, max }
            }
            Some(("uniform", r)) => {
                let (min, max) = pair(r, "--periods")?;
                Periods::Uniform { min, max }
            }
            Some(("harmonic", r)) => {
                let (min, max) = pair(r, "--periods")?;
                Periods::Harmonic { min, max }
            }
            _ => {
                return Err(format!(
                    "--periods: expected log-uniform:MIN,MAX, uniform:MIN,MAX or harmonic:MIN,MAX, got `{}`",
                    self.periods
                ));
            }
        };
        let (cs_min, cs_max) = pair(&self.cs, "--cs")?;
        let partition = match self.partition.as_str() {
            "none" => None,
            "auto" if protocol.is_uniprocessor() => Some(Heuristic::SyncAware),
            "auto" => Some(Heuristic::WorstFit),
            h => Some(
                h.parse::<Heuristic>()
                    .map_err(|e| format!("--partition: {e}"))?,
            ),
        };
        let positions = match self.positions.as_str() {
            "even" => Positions::Even,
            "random" => Positions::Random,
            o => {
                return Err(format!(
                    "--positions: unknown placement `{o}`; expected even or random"
                ));
            }
        };
        let suspend_max =
            Time::parse(&self.suspend_max).map_err(|e| format!("--suspend-max: {e}"))?;
        let c = GenConfig {
            cpus: self.cpus,
            scheduler: self.scheduler().map_err(|e| format!("--{e}"))?,
            protocol,
            tasks: self.tasks,
            utilization,
            utilizations,
            periods,
            deadline_min: self.deadline_min,
            resources: self.resources,
            access_prob: self.access_prob,
            cs_min,
            cs_max,
            requests_max: self.requests,
            nest_prob: self.nest_prob,
            partition,
            local_resources: self.local_resources,
            local_cs_max: None,
            suspend_prob: self.suspend_prob,
            suspend_max,
            positions,
            sync_spread: self.sync_spread,
            jitter_max: 0.0,
            priority_levels: None,
            units_max: 1,
        };
        check_config(&c)?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_shape_is_the_generators_default() {
        let c = ShapeSpec::default()
            .config(Protocol::Mpcp, 2.0)
            .expect("the default shape is valid");
        assert_eq!(c.cpus, 4);
        assert_eq!(c.tasks, 16);
        assert_eq!(c.cs_min, Time::from_us(10));
        assert_eq!(c.cs_max, Time::from_us(100));
        assert_eq!(c.partition, Some(Heuristic::WorstFit));
        assert_eq!(
            ShapeSpec::default()
                .config(Protocol::Pcp, 0.5)
                .unwrap()
                .partition,
            Some(Heuristic::SyncAware),
            "auto keeps sharers together under a uniprocessor protocol"
        );
    }

    #[test]
    fn each_bad_option_is_named() {
        let bad = |f: fn(&mut ShapeSpec), want: &str| {
            let mut s = ShapeSpec::default();
            f(&mut s);
            let e = s.config(Protocol::Mpcp, 2.0).unwrap_err();
            assert!(e.contains(want), "`{e}` should name {want}");
        };
        bad(|s| s.periods = "log:1ms".into(), "--periods");
        bad(|s| s.cs = "100us,10us".into(), "--cs");
        bad(|s| s.utilizations = "normal".into(), "--utilizations");
        bad(|s| s.positions = "middle".into(), "--positions");
        bad(|s| s.suspend_max = "soon".into(), "--suspend-max");
        bad(|s| s.scheduler = "llf".into(), "--scheduler");
        bad(|s| s.partition = "best".into(), "--partition");
    }

    #[test]
    fn unknown_keys_are_refused_when_read() {
        let e = serde_json::from_str::<ShapeSpec>(r#"{"cpu": 2}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `cpu`"), "{e}");
        let s: ShapeSpec = serde_json::from_str(r#"{"cpus": 2}"#).unwrap();
        assert_eq!((s.cpus, s.tasks), (2, 16), "the others keep their defaults");
    }
}
