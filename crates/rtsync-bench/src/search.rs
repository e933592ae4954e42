//! `rtsync bench search`: how much of the worst case the simulator's
//! worst-case search reaches with a given budget.
//!
//! The soundness experiment trusts the search to find a schedule past a
//! bound where one exists; a search too weak for the systems it is given
//! finds nothing and says so as loudly as a sound bound would. The true
//! worst response of a task is not known, so each task gets a *planted*
//! bound instead: 1 ns below the worst response that two searches of
//! `--reference` events (other seeds) found, which some schedule is known
//! to break. The share of planted bounds that one search of `--budget`
//! events breaks says how often that budget finds a violation known to
//! exist, and the mean of its worst over the reference's how near it
//! comes where it does not (docs/PERFORMANCE.md, "Search strength": with
//! the soundness experiment's 60,000 events, a quarter to four fifths
//! broken where the budget buys dozens of simulations a system, 95% to
//! 99.8% reached on average, half at the farthest miss),
//! so a budget is a trade the user should see. The reference runs the
//! same search, so a stronger search also raises the bar it is measured
//! against.
//!
//! The systems are the analysis bench's shapes (DESIGN.md's (a) and (b))
//! and the stream `experiment soundness` draws (its five shapes in turn:
//! 2 or 3 CPUs, 6 to 11 tasks, harmonic periods of 10 to 80 ms), the
//! schedulable ones among them, with the analysis's bounds for the tasks
//! nothing is planted for (those whose reference worst is their own
//! execution: nothing delayed them).

use crate::Error;
use crate::analysis::{SHAPES, Shape, sets};
use rtsync_analysis::{Options, TestSelection, Verdict, analyze_result};
use rtsync_experiment::shapes::Shape as SoundnessShape;
use rtsync_model::{Protocol, Scheduler, System, Time, body_execution};
use rtsync_sim::search::{SearchOptions, search};

pub struct Config {
    /// Schedulable systems per shape and protocol.
    pub sets: u64,
    pub seed: u64,
    pub shape: Option<String>,
    pub protocol: Option<String>,
    /// Events of the search measured, per system.
    pub budget: u64,
    /// Events of each of the two reference searches, per system.
    pub reference: u64,
}

/// The protocols measured, as in the analysis bench.
const PROTOCOLS: [Protocol; 4] = [
    Protocol::Mpcp,
    Protocol::Dpcp,
    Protocol::FmlpL,
    Protocol::Msrp,
];

/// Where a row's systems come from.
#[derive(Clone, Copy)]
enum Stream {
    /// One of the analysis bench's shapes.
    Bench(&'static Shape),
    /// The systems `experiment soundness` draws by default, the ones its
    /// search is trusted with.
    Soundness,
}

impl Stream {
    /// Every stream, in the table's order.
    fn all() -> Vec<Stream> {
        let mut all: Vec<Stream> = SHAPES.iter().map(Stream::Bench).collect();
        all.push(Stream::Soundness);
        all
    }

    /// Its `--shape` key.
    fn key(self) -> &'static str {
        match self {
            Stream::Bench(s) => s.key,
            Stream::Soundness => "soundness",
        }
    }

    /// Its row label.
    fn name(self) -> &'static str {
        match self {
            Stream::Bench(s) => s.name,
            Stream::Soundness => "experiment soundness (all)",
        }
    }

    /// The first `n` systems of the stream under `p`.
    fn systems(self, p: Protocol, n: u64, seed: u64) -> Vec<System> {
        match self {
            Stream::Bench(s) => sets(s, p, n, seed),
            Stream::Soundness => (0..n)
                .map(|i| SoundnessShape::All.system(p, Scheduler::Fp, seed, i))
                .collect(),
        }
    }
}

/// The seeds of the two reference searches: not the measured one's.
const REFERENCE_SEEDS: [u64; 2] = [0x5eed_0001, 0x5eed_0002];

impl Default for Strength {
    fn default() -> Strength {
        Strength {
            planted: 0,
            broken: 0,
            reached: 0.0,
            least: 1.0,
            simulations: 0,
        }
    }
}

/// What one system's measurement found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    /// Tasks with a planted bound.
    pub planted: usize,
    /// Of those, the tasks whose planted bound the measured search broke.
    pub broken: usize,
    /// Over the planted tasks, the sum of the measured search's worst
    /// response over the reference's: how near the misses came.
    pub reached: f64,
    /// The least of those ratios (1 where nothing is planted): the
    /// farthest miss.
    pub least: f64,
    /// Simulations the measured search ran.
    pub simulations: u64,
}

/// Plants a bound for each task of `sys` that something delayed in the
/// reference searches (1 ns below the worst response they found; `bounds`
/// for the others) and counts the planted bounds a search of `budget`
/// events with `seed` breaks.
pub fn strength(sys: &System, bounds: &[Time], budget: u64, reference: u64, seed: u64) -> Strength {
    let mut best = vec![None::<Time>; bounds.len()];
    for s in REFERENCE_SEEDS {
        let out = search(
            sys,
            bounds,
            &SearchOptions {
                budget: reference,
                seed: s,
                ..SearchOptions::default()
            },
        );
        for (b, w) in best.iter_mut().zip(&out.worst) {
            if let Some((r, _)) = w {
                *b = Some(b.map_or(*r, |b| b.max(*r)));
            }
        }
    }
    // Planted where the worst found exceeds the task's own execution.
    let planted: Vec<Option<Time>> = sys
        .tasks
        .iter()
        .zip(&best)
        .map(|(t, b)| {
            let own = body_execution(&t.body).unwrap_or(Time::MAX);
            b.filter(|&b| b > own)
                .map(|b| b.saturating_sub(Time::from_ns(1)))
        })
        .collect();
    let trial: Vec<Time> = planted
        .iter()
        .zip(bounds)
        .map(|(p, &b)| p.unwrap_or(b))
        .collect();
    let out = search(
        sys,
        &trial,
        &SearchOptions {
            budget,
            seed,
            // The planted bounds are there to be broken: their plans are
            // not read, and cutting each down would cost the run more
            // than the search does.
            shrink: false,
            ..SearchOptions::default()
        },
    );
    let (mut broken, mut reached, mut least) = (0, 0.0, 1.0f64);
    for ((p, w), b) in planted.iter().zip(&out.worst).zip(&best) {
        if let (Some(p), Some(b)) = (p, b) {
            let r = w.as_ref().map_or(Time::ZERO, |w| w.0);
            broken += usize::from(r > *p);
            reached += r.ratio(*b);
            least = least.min(r.ratio(*b));
        }
    }
    Strength {
        planted: planted.iter().flatten().count(),
        broken,
        reached,
        least,
        simulations: out.simulations,
    }
}

/// One row: a stream and protocol over its systems.
struct Row {
    shape: &'static str,
    protocol: Protocol,
    systems: usize,
    total: Strength,
}

/// The first `want` schedulable systems of a stream and protocol (drawn
/// from at most fifty times as many), with their bounds.
fn schedulable(stream: Stream, p: Protocol, want: u64, seed: u64) -> Vec<(System, Vec<Time>)> {
    let o = Options {
        tests: TestSelection::Rta,
        ..Options::default()
    };
    let mut out = Vec::new();
    for s in stream.systems(p, want.saturating_mul(50), seed) {
        if out.len() as u64 >= want {
            break;
        }
        let Ok(r) = analyze_result(&s, &o) else {
            continue;
        };
        if r.verdict != Verdict::Schedulable {
            continue;
        }
        let bounds: Option<Vec<Time>> = r.tasks.iter().map(|t| t.response.bounded()).collect();
        if let Some(b) = bounds {
            out.push((s, b));
        }
    }
    out
}

/// Measures and prints the table.
pub fn run(c: Config) -> Result<(), Error> {
    if c.sets == 0 || c.budget == 0 || c.reference == 0 {
        return Err(Error::BadInput(
            "--sets, --budget and --reference must each be at least 1".into(),
        ));
    }
    let shapes: Vec<Stream> = Stream::all()
        .into_iter()
        .filter(|s| c.shape.as_deref().is_none_or(|k| k == s.key()))
        .collect();
    if shapes.is_empty() {
        return Err(Error::BadInput(format!(
            "--shape {}: the search bench measures {}",
            c.shape.unwrap_or_default(),
            Stream::all()
                .iter()
                .map(|s| s.key())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let protocols: Vec<Protocol> = PROTOCOLS
        .into_iter()
        .filter(|p| c.protocol.as_deref().is_none_or(|k| k == p.to_string()))
        .collect();
    if protocols.is_empty() {
        return Err(Error::BadInput(format!(
            "--protocol {}: the search bench measures {}",
            c.protocol.unwrap_or_default(),
            PROTOCOLS.map(|p| p.to_string()).join(", ")
        )));
    }
    println!(
        "rtsync bench search: {} schedulable systems per shape and protocol, seed {}",
        c.sets, c.seed
    );
    println!(
        "each task's bound planted 1 ns below the worst response two searches of {} events found; \
         one search of {} events tries to break it\n",
        c.reference, c.budget
    );
    let bar = indicatif::ProgressBar::new((shapes.len() * protocols.len()) as u64 * c.sets);
    let mut rows = Vec::new();
    for shape in shapes {
        for &p in &protocols {
            let systems = schedulable(shape, p, c.sets, c.seed);
            let mut total = Strength::default();
            for (sys, bounds) in &systems {
                let s = strength(sys, bounds, c.budget, c.reference, c.seed);
                total.planted += s.planted;
                total.broken += s.broken;
                total.reached += s.reached;
                total.least = total.least.min(s.least);
                total.simulations += s.simulations;
                bar.inc(1);
            }
            rows.push(Row {
                shape: shape.name(),
                protocol: p,
                systems: systems.len(),
                total,
            });
        }
    }
    bar.finish_and_clear();
    let head = [
        "shape",
        "protocol",
        "systems",
        "planted bounds",
        "broken",
        "share",
        "mean reached",
        "least reached",
        "simulations/system",
    ];
    let mut tb = rtsync_report::table::Table::new(&head).left(0).left(1);
    for r in &rows {
        tb.row({
            let per = |x: f64, digits: usize| {
                if r.total.planted == 0 {
                    "-".to_string()
                } else {
                    format!("{:.*}%", digits, 100.0 * x / r.total.planted as f64)
                }
            };
            vec![
                r.shape.to_string(),
                r.protocol.to_string(),
                r.systems.to_string(),
                r.total.planted.to_string(),
                r.total.broken.to_string(),
                per(r.total.broken as f64, 0),
                per(r.total.reached, 1),
                format!("{:.1}%", 100.0 * r.total.least),
                format!(
                    "{:.1}",
                    r.total.simulations as f64 / r.systems.max(1) as f64
                ),
            ]
        });
    }
    print!("{}", tb.render());
    if rows.iter().any(|r| (r.systems as u64) < c.sets) {
        println!(
            "\nfewer systems than asked: the shape's generator gave fewer schedulable ones among {} drawn",
            c.sets.saturating_mul(50)
        );
    }
    println!(
        "\nshare: the planted bounds the search of {} events broke, each a violation known to \
         exist: about how often a soundness check with that budget finds one. Raise \
         `experiment soundness --search-budget` where it is low (more tasks cost more events \
         per simulation). mean reached: the search's worst response over the reference's, \
         averaged over the planted tasks (how near the misses came); least reached: the \
         farthest miss.",
        c.budget
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two targets sharing G (2 ms periods), each delayed at most by the
    /// other's section: `a` 399.999 us (asking 1 ns after `c` locks), `c`
    /// 400 us (asking with `a`, which wins the tie). The reference finds
    /// both; planted 1 ns below, a small search breaks both. Planted at
    /// the worst itself, none would break.
    #[test]
    fn a_search_that_finds_the_worst_case_breaks_every_planted_bound() {
        let sys = rtsync_model::load_str(
            r#"
[platform]
cpus = 2
protocol = "mpcp"
[[resource]]
name = "G"
[[task]]
name = "a"
period = "2ms"
priority = 2
cpu = 0
body = [ { lock = "G", hold = "100us" } ]
[[task]]
name = "c"
period = "2ms"
priority = 1
cpu = 1
body = [ { lock = "G", hold = "300us" } ]
"#,
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let bounds = [Time::from_us(500), Time::from_us(500)];
        let s = strength(&sys, &bounds, 5_000, 20_000, 1);
        assert_eq!((s.planted, s.broken), (2, 2), "{s:?}");
        assert!(s.simulations > 0);
    }

    /// A task nothing delays gets no planted bound: its worst is its own
    /// execution, which no schedule exceeds.
    #[test]
    fn a_task_nothing_delays_is_not_planted() {
        let sys = rtsync_model::load_str(
            "[platform]\ncpus = 1\nprotocol = \"pcp\"\n[[task]]\nname = \"t\"\nperiod = \"1ms\"\nwcet = \"100us\"\n",
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
        let s = strength(&sys, &[Time::from_us(100)], 1_000, 1_000, 1);
        assert_eq!((s.planted, s.broken), (0, 0));
    }
}
