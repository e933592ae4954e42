//! Named shapes of random systems for the soundness experiment, each aimed
//! at a place where blocking bounds have been found to break.

use rtsync_analysis::Heuristic;
use rtsync_analysis::generate::{GenConfig, Periods, Positions, Utilizations, generate};
use rtsync_model::{Protocol, Scheduler, Segment, System, Time};
use std::fmt;
use std::str::FromStr;

/// A family of random systems.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Resources shared freely, sections evenly spread, some nesting: the
    /// shape of the first wave's experiment.
    Classic,
    /// Each CPU with local resources beside one or two global ones, used
    /// at random points of the body, several times per job: local blocking
    /// that recurs after every global wait (MPCP's unsound term).
    LocalGlobal,
    /// Self-suspensions between sections: blocking that recurs after each
    /// resumption, and suspension-induced jitter.
    Suspending,
    /// Nested sections wherever the protocol allows them (transitive
    /// inheritance, nesting groups). Where it forbids nesting a global
    /// resource (MPCP, DPCP, DFLP, MSRP, MrsP), among each CPU's own two
    /// resources (under DPCP where one CPU serves both; DFLP nests
    /// nothing). Until 2026-12-02 those protocols drew no nesting at all;
    /// the first run with it broke DPCP's and DFLP's bounds: sections
    /// served on different CPUs, and DFLP's nested requests queued again,
    /// both of which the nesting rules now refuse
    /// ([`rtsync_model::nesting::Conflict`]), and DPCP's job window
    /// charging a lower agent that holds a resource nested nothing
    /// ([`rtsync_analysis`]'s `blocking::dpcp`). Since 2026-12-03, in half
    /// the systems, every other task takes its nested pairs in the other
    /// order, so that lock-order cycles form where the protocols defuse
    /// them (the mixes repair the rest: `Mixing::apply`).
    Nested,
    /// Many short requests per job at random points.
    Dense,
    /// Release jitter on half the tasks, up to half their slack, over the
    /// classic shape: jobs released late into windows that the analyses
    /// count from arrival (interference, job windows, EDF's demand and
    /// the blocking of a job whose release a lower one overtook).
    Jitter,
    /// Four tasks per CPU, several of them sharing each global resource,
    /// up to three requests per job, long periods beside short ones: tasks
    /// of a job's CPU queue ahead of it for what it waits for, and lower
    /// ones start sections while it waits, keeping those holders off the
    /// CPU. MPCP's LP constraint 11 as SchedCAT states it misses that; the
    /// search found it in 2 of 14,000 such systems, and in none of 6,000
    /// of the shapes above.
    Crowded,
    /// Tasks above holding long sections (together more than half of a
    /// lower job's deadline) beside lower jobs with short ones and short,
    /// constrained deadlines: a per-request wait, which counts every task
    /// above twice, passes the deadline where the job window, which counts
    /// the jobs in the window, holds. Each form must bound the wait on its
    /// own (DPCP's refused such jobs until 2026-12-01: its job window was
    /// skipped once the per-request recurrence passed the deadline, and
    /// none of the shapes above draws that case).
    Window,
    /// Jobs above that suspend often and briefly beside lower tasks with
    /// long sections, periods over 16x: a lower task starts a section each
    /// time the jobs above are all suspended, and the one that resumes
    /// waits for it, pushing its work into a lower job's window. The
    /// suspension-oblivious form charged the jobs above their execution
    /// and suspension alone until 2026-12-01 (tests/data/oblivious-
    /// reopened-*.toml in rtsync-analysis), and the shapes above drew no
    /// system where that showed.
    Reopened,
    /// The reopened shape with each CPU's lowest task's period and
    /// deadline cut to 1 to 1.35 times its bound (under fixed
    /// priorities): its previous job is still running in the window that
    /// the suspension-oblivious form counts from before the job's
    /// release, and holds the suspending jobs above back with its own
    /// sections, which that form's charge per resumption (the sections of
    /// the tasks below the job) does not name; the argument for the form
    /// (docs/ANALYSIS.md, "Forms 1 and 2 task by task") rests on the
    /// period's slack there. No shape above cuts a period to its bound.
    /// Added 2026-12-02 after a targeted search of 1,900 such systems on
    /// one CPU found no violation (half their lowest tasks reached their
    /// bound exactly).
    Tight,
    /// Periods drawn log-uniformly from 10 to 100 ms at nanosecond grain,
    /// over the classic shape, in turn with self-suspensions (and a local
    /// resource) and with release jitter. Every shape above draws harmonic
    /// periods (10 ms times a power of two): each period divides every
    /// longer one, so the jobs of two tasks line up the same way in every
    /// hyperperiod and every window holds whole numbers of the shorter
    /// task's periods. Job counts `⌈(w + J)/T⌉` that are off by one, or
    /// that rest on releases lining up, show only where periods do not
    /// divide each other. Added 2026-12-02: no shape had drawn one.
    Unharmonic,
    /// Priorities drawn at random under fixed priorities, from two thirds
    /// as many levels as tasks (so some are equal, and served in FIFO
    /// order) and whatever the deadlines, at 0.6 of the classic loads and
    /// implicit deadlines, over the classic shape, in turn
    /// with self-suspensions and with release jitter. Every shape above
    /// gives unique deadline-monotonic priorities: an analysis that leans
    /// on a task above having the shorter deadline or period (a lower
    /// task's jobs counted once in a window, a ceiling read off the
    /// deadlines), or on no two tasks being equal, shows only here.
    /// Added 2026-12-02: no shape had drawn either.
    Priorities,
    /// Resources of up to four units, each section asking for one to all
    /// of them, under the protocols that manage multi-unit resources (SRP
    /// on one CPU, MSRP, local and global); under the others, the classic
    /// shape. Nested sections in half the systems, local resources beside
    /// global ones in the other half. Added 2026-12-02: every shape above
    /// draws single-unit resources, so SRP's ceilings that move with the
    /// units left, and MSRP's queues where several holders run at once,
    /// had never been searched.
    Multiunit,
    /// Four to six CPUs (one CPU with eight to twelve tasks under the
    /// uniprocessor protocols), two or three tasks on each, one or two
    /// resources that nearly every task uses: long FIFO queues and many
    /// remote agents. Every shape above has two or three CPUs, where a
    /// queue holds at most two requests ahead of a job, so a bound that
    /// miscounts the requests ahead (per CPU against in all) or the
    /// remote CPUs can agree with every schedule of those sizes. Added
    /// 2026-12-02.
    Wide,
    /// Every dimension above drawn at once, each system its own draw: two
    /// to five CPUs, harmonic or log-uniform periods, deadline-monotonic
    /// or drawn priorities, single- or multi-unit resources, release
    /// jitter, self-suspensions, nesting, local resources, one to three
    /// requests per resource, and (under FP, a quarter of the systems)
    /// each CPU's lowest period cut to its bound as in the tight shape.
    /// The shapes above vary one or two things
    /// each; a bound that breaks only where two of them meet (jitter on a
    /// task that suspends inside a nested section, a tie between tasks of
    /// unrelated periods) shows only here. Added 2026-12-02.
    Combined,
    /// The suspending shape with a self-suspension at either end of a
    /// body: half the tasks start their jobs suspended, half end them
    /// suspended (drawn apart), half the lengths on a 100 us grid. Every
    /// shape above puts suspensions between segments only, never first or
    /// last. A job's completion after its last suspension is a zero-time
    /// step that still needs the CPU, and a job that starts suspended
    /// leaves its CPU to lower jobs at its own release: the simulator
    /// completed such a job only after the work of a job released at the
    /// instant its suspension ended until 2026-12-03 (found by `experiment
    /// exhaustive`, whose systems on a 1 ms grid have both), and no shape
    /// had searched the analyses on them. Added 2026-12-03.
    Edges,
    /// Each of the above in turn, system by system.
    All,
}

impl Shape {
    /// Every shape a user can name, [`Shape::All`] last.
    pub const NAMED: [Shape; 17] = [
        Shape::Classic,
        Shape::LocalGlobal,
        Shape::Suspending,
        Shape::Nested,
        Shape::Dense,
        Shape::Jitter,
        Shape::Crowded,
        Shape::Window,
        Shape::Reopened,
        Shape::Tight,
        Shape::Unharmonic,
        Shape::Priorities,
        Shape::Multiunit,
        Shape::Wide,
        Shape::Combined,
        Shape::Edges,
        Shape::All,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Classic => "classic",
            Shape::LocalGlobal => "local-global",
            Shape::Suspending => "suspending",
            Shape::Nested => "nested",
            Shape::Dense => "dense",
            Shape::Jitter => "jitter",
            Shape::Crowded => "crowded",
            Shape::Window => "window",
            Shape::Reopened => "reopened",
            Shape::Tight => "tight",
            Shape::Unharmonic => "unharmonic",
            Shape::Priorities => "priorities",
            Shape::Multiunit => "multiunit",
            Shape::Wide => "wide",
            Shape::Combined => "combined",
            Shape::Edges => "edges",
            Shape::All => "all",
        }
    }

    /// The shape system `i` is drawn from (`All` cycles through the rest).
    pub fn of(self, i: u64) -> Shape {
        match self {
            Shape::All => Shape::NAMED[(i % (Shape::NAMED.len() as u64 - 1)) as usize],
            s => s,
        }
    }

    /// System `i` of the stream under `p` and `sched`: what the soundness
    /// experiment checks, and what `bench search` measures the search on.
    pub fn system(self, p: Protocol, sched: Scheduler, seed: u64, i: u64) -> System {
        let c = self.config(p, sched, i);
        let mut sys = generate(&c, seed, i);
        let cut = match self.of(i) {
            Shape::Tight => true,
            // A quarter of the combined systems (bits the configuration
            // does not read).
            Shape::Combined => (spread(i) >> 17) & 3 == 0,
            _ => false,
        };
        if cut && sched == Scheduler::Fp {
            cut_lowest_periods(&mut sys, i);
        }
        if self.of(i) == Shape::Edges {
            suspend_at_the_ends(&mut sys, i, c.suspend_max, Time::from_us(100));
        }
        // Half the nested systems (bits the configuration does not read)
        // take their nested locks in the other order in every other task,
        // so that lock-order cycles form where the protocols accept them.
        if self.of(i) == Shape::Nested && (spread(i) >> 23) & 1 == 1 {
            let mut turned = sys.clone();
            for t in turned.tasks.iter_mut().skip(1).step_by(2) {
                for s in &mut t.body {
                    turn_outermost_pair(s);
                }
            }
            if !rtsync_model::validate(&turned).has_errors() {
                sys = turned;
            }
        }
        sys
    }

    /// The generator configuration of system `i` under `p` and `sched`.
    pub fn config(self, p: Protocol, sched: Scheduler, i: u64) -> GenConfig {
        let shape = self.of(i);
        // Varied across the stream: sizes, loads, deadlines. The divisor
        // is the cycle of `All` before the edges shape was added, so that
        // every named shape's stream stays as it was (the `all` stream
        // itself changed then: its cycle grew by one).
        let k = i / STREAM_CYCLE;
        let uni = p.is_uniprocessor();
        let cpus = if uni { 1 } else { 2 + (k % 2) as usize };
        let tasks = if uni {
            4 + (k % 4) as usize
        } else {
            3 * cpus + (k % 3) as usize
        };
        let mut c = GenConfig {
            cpus,
            scheduler: sched,
            protocol: p,
            tasks,
            utilization: if uni {
                0.4 + 0.1 * (k % 5) as f64
            } else {
                cpus as f64 * (0.2 + 0.1 * (k % 4) as f64)
            },
            utilizations: Utilizations::UUniFast,
            periods: Periods::Harmonic {
                min: Time::from_ms(10),
                max: Time::from_ms(80),
            },
            deadline_min: if k.is_multiple_of(2) { 1.0 } else { 0.7 },
            resources: if uni { 3 } else { 2 + (k % 2) as usize },
            access_prob: 0.5,
            cs_min: Time::from_us(50),
            cs_max: Time::from_us(1500),
            requests_max: 2,
            nest_prob: 0.0,
            partition: (!uni).then_some(Heuristic::WorstFit),
            local_resources: 0,
            local_cs_max: None,
            suspend_prob: 0.0,
            suspend_max: Time::from_ms(2),
            positions: Positions::Even,
            // Every third system of the stream serves its resources on
            // several CPUs (DPCP, DFLP).
            sync_spread: k % 3 == 1,
            jitter_max: 0.0,
            priority_levels: None,
            units_max: 1,
        };
        let nest = uni || p.allows_nested_global();
        match shape {
            Shape::Classic => c.nest_prob = if nest { 0.3 } else { 0.0 },
            Shape::LocalGlobal => {
                c.resources = if uni { 3 } else { 1 + (k % 2) as usize };
                c.local_resources = if uni { 0 } else { 2 };
                c.cs_max = Time::from_us(500);
                c.local_cs_max = Some(Time::from_ms(3));
                c.access_prob = 0.6;
                c.positions = Positions::Random;
            }
            Shape::Suspending | Shape::Edges => {
                c.suspend_prob = 0.5;
                c.positions = Positions::Random;
                c.local_resources = if uni { 0 } else { 1 };
            }
            Shape::Nested => {
                c.nest_prob = if p.allows_nesting() { 0.7 } else { 0.0 };
                if !nest {
                    c.local_resources = 2;
                }
                c.access_prob = 0.6;
            }
            Shape::Dense => {
                c.requests_max = 3;
                c.access_prob = 0.7;
                c.cs_min = Time::from_us(20);
                c.cs_max = Time::from_us(800);
                c.positions = Positions::Random;
                c.local_resources = if uni { 0 } else { 1 };
            }
            Shape::Jitter => {
                c.nest_prob = if nest { 0.3 } else { 0.0 };
                c.jitter_max = 0.5;
            }
            Shape::Crowded => {
                if !uni {
                    c.tasks = 4 * cpus;
                    c.utilization = cpus as f64 * (0.15 + 0.05 * (k % 4) as f64);
                }
                c.periods = Periods::Harmonic {
                    min: Time::from_ms(10),
                    max: Time::from_ms(160),
                };
                c.requests_max = 3;
                c.access_prob = 0.6;
                c.cs_max = Time::from_ms(1);
                c.positions = Positions::Random;
            }
            Shape::Window => {
                if !uni {
                    c.utilization = cpus as f64 * (0.1 + 0.05 * (k % 4) as f64);
                }
                c.periods = Periods::Harmonic {
                    min: Time::from_ms(10),
                    max: Time::from_ms(40),
                };
                c.deadline_min = 0.4;
                c.resources = 1 + (k % 2) as usize;
                c.access_prob = 0.7;
                c.cs_min = Time::from_us(10);
                c.cs_max = Time::from_ms(3);
                c.requests_max = 3;
                c.positions = Positions::Random;
            }
            Shape::Reopened | Shape::Tight => {
                c.periods = Periods::Harmonic {
                    min: Time::from_ms(10),
                    max: Time::from_ms(160),
                };
                c.suspend_prob = 0.8;
                c.suspend_max = Time::from_us(300);
                c.cs_min = Time::from_us(200);
                c.cs_max = Time::from_ms(4);
                c.requests_max = 3;
                c.access_prob = 0.5;
                c.positions = Positions::Random;
            }
            Shape::Unharmonic | Shape::Priorities => {
                if shape == Shape::Unharmonic {
                    c.periods = UNHARMONIC;
                } else if sched == Scheduler::Fp {
                    // Priorities that ignore the deadlines reject most
                    // systems at the classic loads; these keep about half
                    // schedulable, so that the search has systems to try.
                    drawn_priorities(&mut c, 0.6);
                    c.deadline_min = 1.0;
                }
                match k % 3 {
                    0 => c.nest_prob = if nest { 0.3 } else { 0.0 },
                    1 => {
                        c.suspend_prob = 0.5;
                        c.positions = Positions::Random;
                        c.local_resources = if uni { 0 } else { 1 };
                    }
                    _ => c.jitter_max = 0.5,
                }
            }
            Shape::Multiunit => {
                c.units_max = 4;
                c.access_prob = 0.6;
                c.positions = Positions::Random;
                if k.is_multiple_of(2) {
                    c.nest_prob = if nest { 0.3 } else { 0.0 };
                } else if !uni {
                    c.local_resources = 2;
                }
            }
            Shape::Wide => {
                if uni {
                    c.tasks = 8 + (k % 5) as usize;
                } else {
                    c.cpus = 4 + (k % 3) as usize;
                    c.tasks = 2 * c.cpus + (k % 2) as usize;
                    c.utilization = c.cpus as f64 * (0.15 + 0.05 * (k % 4) as f64);
                }
                c.resources = if uni { 2 } else { 1 + (k % 2) as usize };
                c.access_prob = 0.85;
                c.requests_max = 2;
                c.cs_max = Time::from_us(800);
                c.positions = Positions::Random;
                c.nest_prob = if nest { 0.3 } else { 0.0 };
            }
            Shape::Combined => {
                // A few bits of a hash of the index per dimension, so that
                // each system draws its own mixture.
                let h = spread(i);
                let bits = |from: u32, n: u32| (h >> from) & ((1 << n) - 1);
                if !uni {
                    c.cpus = 2 + bits(0, 2) as usize;
                    c.tasks = c.cpus * (2 + bits(2, 1) as usize) + bits(3, 1) as usize;
                    c.utilization = c.cpus as f64 * (0.15 + 0.05 * bits(4, 2) as f64);
                }
                if bits(6, 1) == 1 {
                    c.periods = UNHARMONIC;
                }
                if bits(7, 1) == 1 && sched == Scheduler::Fp {
                    drawn_priorities(&mut c, 0.7);
                }
                if bits(8, 1) == 1 {
                    c.units_max = 3;
                }
                if bits(9, 1) == 1 {
                    c.jitter_max = 0.5;
                }
                if bits(10, 1) == 1 {
                    c.suspend_prob = 0.5;
                    c.suspend_max = Time::from_ms(1);
                }
                if bits(11, 1) == 1 {
                    c.nest_prob = if p.allows_nesting() { 0.4 } else { 0.0 };
                    if !nest && !uni {
                        c.local_resources = 2;
                    }
                }
                if bits(12, 1) == 1 && !uni {
                    c.local_resources = c.local_resources.max(1);
                }
                c.requests_max = 1 + (bits(13, 2) % 3) as u32;
                c.access_prob = 0.4 + 0.1 * bits(15, 2) as f64;
                c.positions = Positions::Random;
            }
            Shape::All => unreachable!("resolved by Shape::of"),
        }
        c
    }
}

/// The divisor of a system's index into the stream's variation (sizes,
/// loads, deadlines): the fifteen shapes `All` cycled through when the
/// streams were fixed (2026-12-02).
const STREAM_CYCLE: u64 = 15;

/// [`Shape::Edges`]: each task, drawn apart from a stream of its own (the
/// bits of `spread(i ^ task)`), starts its body with a self-suspension
/// with probability one half and ends it with one with probability one
/// half, each lasting 1 ns to `max` (the shape's 2 ms), half of them
/// rounded up to `grid` (ends that meet other jobs' releases on the
/// search's coarser moves). A body already ending in a suspension is left
/// so at its end. `experiment exhaustive` draws it too, with its own
/// step as both.
pub(crate) fn suspend_at_the_ends(sys: &mut System, i: u64, max: Time, grid: Time) {
    let (max, grid) = (max.ns().max(1), grid.ns().max(1));
    for (k, t) in sys.tasks.iter_mut().enumerate() {
        let h = spread(i ^ (k as u64).wrapping_mul(0x9e37_79b9));
        let length = |bits: u64, round: bool| {
            let d = 1 + bits % max;
            Time::from_ns(if round { d.div_ceil(grid) * grid } else { d })
        };
        if h & 1 == 1 && !matches!(t.body.first(), Some(Segment::Suspend(_))) {
            t.body
                .insert(0, Segment::Suspend(length(h >> 8, (h >> 2) & 1 == 1)));
        }
        if (h >> 1) & 1 == 1 && !matches!(t.body.last(), Some(Segment::Suspend(_))) {
            t.body
                .push(Segment::Suspend(length(h >> 32, (h >> 3) & 1 == 1)));
        }
    }
}

/// The unharmonic shape's periods (the combined shape draws them too).
const UNHARMONIC: Periods = Periods::LogUniform {
    min: Time::from_ms(10),
    max: Time::from_ms(100),
};

/// The priorities shape's draw (the combined shape's too): two thirds as
/// many levels as tasks, at `load` times the configured utilization.
fn drawn_priorities(c: &mut GenConfig, load: f64) {
    c.priority_levels = Some((2 * c.tasks as u32 / 3).max(2));
    c.utilization *= load;
}

/// SplitMix64's finalizer: the bits of `i` spread over the whole word, so
/// that neighbouring indices draw unrelated mixtures.
fn spread(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A section and the first section nested in it trade resources: the
/// two are then taken in the other order, at the same lengths.
fn turn_outermost_pair(s: &mut Segment) {
    let Segment::Lock { resource, body, .. } = s else {
        return;
    };
    if let Some(Segment::Lock {
        resource: inner, ..
    }) = body.iter_mut().find(|b| matches!(b, Segment::Lock { .. }))
    {
        std::mem::swap(resource, inner);
    }
}

/// [`Shape::Tight`]: each CPU's lowest-priority task's period and
/// deadline cut to between 1 and 1.35 times its classic bound (drawn from
/// `i`, rounded up to 10 us), where it has one. Its own bound does not
/// read its period, so it stays schedulable; the others' may (job
/// windows count its jobs), and the experiment analyses the system
/// afresh.
fn cut_lowest_periods(sys: &mut System, i: u64) {
    let Ok(a) = rtsync_analysis::analyze(sys, &rtsync_analysis::Options::default()) else {
        return;
    };
    for c in 0..sys.platform.cpus {
        let lowest = (0..sys.tasks.len())
            .filter(|&k| sys.tasks[k].cpu.unwrap_or(0) == c)
            .min_by_key(|&k| sys.tasks[k].priority);
        let Some(k) = lowest else { continue };
        let Some(r) = a.result.tasks[k].response.bounded() else {
            continue;
        };
        let step = 10_000;
        let draw = (i.wrapping_mul(2_654_435_761).wrapping_add(k as u64 * 97)) % 1000;
        let cut = (r.ns() as f64 * (1.0 + 0.35 * draw as f64 / 1000.0)) as u64;
        let t = Time::from_ns(cut.div_ceil(step) * step);
        sys.tasks[k].period = t;
        sys.tasks[k].deadline = t;
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Shape {
    type Err = String;
    fn from_str(s: &str) -> Result<Shape, String> {
        Shape::NAMED
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Shape::NAMED.iter().map(|x| x.name()).collect();
                format!("unknown shape `{s}`; expected one of {}", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtsync_analysis::generate::generate;
    use rtsync_model::{System, validate};

    /// Every shape, under every protocol and scheduler it supports, gives
    /// systems the model accepts (a generator never writes an invalid
    /// spec), the local-global shape really puts local and global
    /// resources on one CPU, and some systems spread their synchronization
    /// CPUs.
    #[test]
    fn every_shape_generates_valid_systems() {
        let (mut mixed, mut spread) = (0, 0);
        for p in Protocol::ALL {
            for sched in [Scheduler::Fp, Scheduler::Edf] {
                if !p.supports(sched) {
                    continue;
                }
                for i in 0..40 {
                    let c = Shape::All.config(p, sched, i);
                    let sys = Shape::All.system(p, sched, 3, i);
                    let d = validate(&sys);
                    assert!(
                        !d.has_errors(),
                        "{p} {sched} shape {} system {i}: {:?}",
                        Shape::All.of(i),
                        d.errors().collect::<Vec<_>>()
                    );
                    let syncs: std::collections::BTreeSet<_> =
                        sys.resources.iter().filter_map(|r| r.sync_cpu).collect();
                    if syncs.len() > 1 {
                        spread += 1;
                    }
                    if Shape::All.of(i) == Shape::LocalGlobal && !p.is_uniprocessor() {
                        let locals = sys
                            .resources
                            .iter()
                            .filter(|r| r.name.contains('l'))
                            .count();
                        assert_eq!(locals, 2 * c.cpus, "{p}: two local resources per CPU");
                        mixed += 1;
                    }
                }
            }
        }
        assert!(mixed > 0);
        // DPCP and DFLP systems that serve their resources on several CPUs.
        assert!(spread > 0);
    }

    /// The nested shape draws lock-order cycles wherever the protocols
    /// defuse them (every protocol that prevents deadlock and nests, and
    /// the three mixes after their repair), none under PIP, and every
    /// system it draws is one the model accepts. Until 2026-12-03 every
    /// stream nested in increasing resource order, so no cycle was ever
    /// searched.
    #[test]
    fn the_nested_shape_draws_the_cycles_the_protocols_defuse() {
        use rtsync_analysis::generate::Mixing;
        use rtsync_model::lockorder::{Order, check};
        let cycles = |sys: &System| {
            let d = validate(sys);
            assert!(!d.has_errors(), "{:?}", d.errors().collect::<Vec<_>>());
            !matches!(check(sys, &rtsync_model::Facts::new(sys)), Order::Acyclic)
        };
        for p in Protocol::ALL {
            let n = (0..60)
                .filter(|&i| cycles(&Shape::Nested.system(p, Scheduler::Fp, 9, i)))
                .count();
            if p.prevents_deadlock() && p.allows_nesting() {
                assert!(n >= 3, "{p}: {n} of 60 nested systems with a cycle");
            } else {
                assert_eq!(n, 0, "{p}");
            }
        }
        for m in Mixing::ALL {
            for sched in [Scheduler::Fp, Scheduler::Edf] {
                if !m.supports(sched) {
                    continue;
                }
                let n = (0..60)
                    .filter(|&i| {
                        let mut sys = Shape::Nested.system(m.base(sched), sched, 9, i);
                        m.apply(&mut sys, 9, i);
                        cycles(&sys)
                    })
                    .count();
                assert!(n >= 3, "{m} {sched}: {n} of 60 nested systems with a cycle");
            }
        }
    }

    /// The three dimensions that no other shape varies are drawn where
    /// their shape says: periods that do not divide each other, priorities
    /// tied and against the deadlines' order (under FP only), sections
    /// holding several units (under SRP and MSRP only).
    #[test]
    fn the_unharmonic_priorities_and_multiunit_shapes_draw_what_they_name() {
        let draw = |shape: Shape, p: Protocol, sched: Scheduler| {
            (0..30).map(move |i| shape.system(p, sched, 5, i))
        };
        let apart = |sys: &System| {
            sys.tasks.iter().any(|a| {
                sys.tasks
                    .iter()
                    .any(|b| a.period < b.period && !(b.period.ns()).is_multiple_of(a.period.ns()))
            })
        };
        assert!(draw(Shape::Unharmonic, Protocol::Mpcp, Scheduler::Fp).all(|s| apart(&s)));
        assert!(!draw(Shape::Classic, Protocol::Mpcp, Scheduler::Fp).any(|s| apart(&s)));

        let (mut tied, mut inverted) = (0, 0);
        for sys in draw(Shape::Priorities, Protocol::FmlpL, Scheduler::Fp) {
            let t = &sys.tasks;
            let pairs = || {
                t.iter()
                    .enumerate()
                    .flat_map(|(k, a)| t[k + 1..].iter().map(move |b| (a, b)))
            };
            tied += usize::from(pairs().any(|(a, b)| a.priority == b.priority));
            inverted += usize::from(pairs().any(|(a, b)| {
                (a.priority > b.priority && a.deadline > b.deadline)
                    || (b.priority > a.priority && b.deadline > a.deadline)
            }));
        }
        assert!(
            tied > 10 && inverted > 10,
            "tied {tied}, inverted {inverted} of 30"
        );
        let dm = |sys: System| {
            let mut t = sys.tasks;
            t.sort_by_key(|x| std::cmp::Reverse(x.priority));
            t.windows(2)
                .all(|w| w[0].priority > w[1].priority && w[0].deadline <= w[1].deadline)
        };
        assert!(draw(Shape::Priorities, Protocol::FmlpL, Scheduler::Edf).all(dm));

        let multi = |sys: &System| {
            fn asks(body: &[rtsync_model::Segment]) -> bool {
                body.iter().any(|s| match s {
                    rtsync_model::Segment::Lock { units, body, .. } => *units > 1 || asks(body),
                    _ => false,
                })
            }
            sys.resources.iter().any(|r| r.units > 1) && sys.tasks.iter().any(|t| asks(&t.body))
        };
        for (p, sched) in [
            (Protocol::Srp, Scheduler::Fp),
            (Protocol::Srp, Scheduler::Edf),
            (Protocol::Msrp, Scheduler::Fp),
        ] {
            let n = draw(Shape::Multiunit, p, sched).filter(multi).count();
            assert!(n > 15, "{p} {sched}: {n} of 30 with multi-unit sections");
        }
        assert!(!draw(Shape::Multiunit, Protocol::Pcp, Scheduler::Fp).any(|s| multi(&s)));
    }

    /// The tight shape cuts each CPU's lowest task's period and deadline
    /// to between its bound and 1.35 times it (rounded up to 10 us), and
    /// that bound, which does not read the task's own period, stays.
    #[test]
    fn the_tight_shape_cuts_the_lowest_periods_to_their_bounds() {
        use rtsync_analysis::{Options, analyze};
        let mut cut = 0;
        for p in [Protocol::Pcp, Protocol::Srp, Protocol::Mpcp] {
            for i in 0..300 {
                if Shape::All.of(i) != Shape::Tight {
                    continue;
                }
                let drawn = generate(&Shape::All.config(p, Scheduler::Fp, i), 3, i);
                let sys = Shape::All.system(p, Scheduler::Fp, 3, i);
                let before = analyze(&drawn, &Options::default()).unwrap();
                let after = analyze(&sys, &Options::default()).unwrap();
                for c in 0..sys.platform.cpus {
                    let on: Vec<usize> = (0..sys.tasks.len())
                        .filter(|&k| sys.tasks[k].cpu.unwrap_or(0) == c)
                        .collect();
                    let Some(&k) = on.iter().min_by_key(|&&k| sys.tasks[k].priority) else {
                        continue;
                    };
                    let t = &sys.tasks[k];
                    let Some(r) = before.result.tasks[k].response.bounded() else {
                        assert_eq!(t.period, drawn.tasks[k].period, "{p} {i}: no bound, no cut");
                        continue;
                    };
                    cut += 1;
                    assert_eq!(t.period, t.deadline, "{p} {i}");
                    assert!(t.period >= r, "{p} {i}: {} below its bound {r}", t.period);
                    let most = Time::from_ns(r.ns() * 135 / 100 + 10_000);
                    assert!(t.period <= most, "{p} {i}: {} past 1.35 x {r}", t.period);
                    if p.is_uniprocessor() {
                        assert_eq!(after.result.tasks[k].response.bounded(), Some(r), "{p} {i}");
                    }
                }
            }
        }
        assert!(cut > 20, "{cut} periods cut");
    }

    #[test]
    fn names_round_trip() {
        for s in Shape::NAMED {
            assert_eq!(s.name().parse::<Shape>(), Ok(s));
        }
        assert!(
            "cubist"
                .parse::<Shape>()
                .unwrap_err()
                .contains("local-global")
        );
    }

    /// A fingerprint of systems drawn from each named shape: the stream
    /// a seed names must not move when a shape is added (saved seeds and
    /// the docs' runs are reproduced from it). The indices are ones where
    /// a cycle of 15 and one of 16 give different variations (`i / 15`
    /// against `i / 16`), so that a divisor that grew with the shapes
    /// shows.
    fn fingerprint(shapes: &[Shape]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &shape in shapes {
            for p in [Protocol::Pcp, Protocol::Mpcp, Protocol::Dpcp] {
                for i in [3u64, 15, 31, 47, 90] {
                    let sys = shape.system(p, Scheduler::Fp, 3, i);
                    for b in format!("{:?}", sys.tasks).bytes() {
                        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
                    }
                }
            }
        }
        h
    }

    /// Every shape named before the edges shape draws the systems it drew
    /// before it was added (the value was taken from the code before that
    /// change, 2026-12-03): only `all`'s cycle grew.
    #[test]
    fn adding_a_shape_keeps_the_named_streams() {
        let before: Vec<Shape> = Shape::NAMED
            .into_iter()
            .filter(|s| !matches!(s, Shape::All | Shape::Edges))
            .collect();
        assert_eq!(before.len(), 15);
        assert_eq!(fingerprint(&before), FINGERPRINT_2026_12_03);
    }

    /// The edges shape puts a suspension first in some bodies and last in
    /// others, with lengths on the 100 us grid and off it; the shapes it
    /// was added beside never do either.
    #[test]
    fn the_edges_shape_suspends_at_either_end() {
        let (mut first, mut last, mut grid, mut fine) = (0, 0, 0, 0);
        let mut count = |d: Time| {
            if d.ns().is_multiple_of(100_000) {
                grid += 1;
            } else {
                fine += 1;
            }
        };
        for p in [Protocol::Pip, Protocol::Mpcp, Protocol::Msrp] {
            for i in 0..20 {
                let sys = Shape::Edges.system(p, Scheduler::Fp, 4, i);
                assert!(!validate(&sys).has_errors(), "{p} {i}");
                for t in &sys.tasks {
                    if let Some(Segment::Suspend(d)) = t.body.first() {
                        first += 1;
                        count(*d);
                    }
                    if let Some(Segment::Suspend(d)) = t.body.last() {
                        last += 1;
                        count(*d);
                    }
                }
                for shape in [Shape::Suspending, Shape::Reopened, Shape::Combined] {
                    let other = shape.system(p, Scheduler::Fp, 4, i);
                    assert!(
                        other.tasks.iter().all(|t| !matches!(
                            (t.body.first(), t.body.last()),
                            (Some(Segment::Suspend(_)), _) | (_, Some(Segment::Suspend(_)))
                        )),
                        "{shape} {p} {i}"
                    );
                }
            }
        }
        assert!(first > 30 && last > 30, "first {first}, last {last}");
        assert!(grid > 10 && fine > 10, "grid {grid}, fine {fine}");
    }

    /// [`adding_a_shape_keeps_the_named_streams`]'s value.
    const FINGERPRINT_2026_12_03: u64 = 5_922_413_065_927_166_881;
}
