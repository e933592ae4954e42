//! `rtsync bench locks`: what each protocol costs on real SCHED_FIFO
//! threads, beside glibc's mutexes measured in the same run, and the
//! overhead profile that `analyze --overheads` and `simulate --overheads`
//! read.
//!
//! Four parts, each in its module: the uncontended path
//! (`uncontended`), the contended hand-off against 1..64 waiters
//! (`handoff`), the kernel's own costs (context switch, release,
//! migration: `kernel`), and the size of a lock's state. Figures are
//! min / median / p99 / max as paper 001 (Table 2) and paper 004 (Fig. 2)
//! give them; ratios are medians over a peer's median of the same run.

pub(crate) mod handoff;
mod kernel;
pub(crate) mod stats;
mod uncontended;

use crate::Error;
use rtsync_analysis::overheads::{LockCost, Profile};
use rtsync_model::Time;
use rtsync_rt::sys;
use std::path::PathBuf;
use std::time::Duration;
use uncontended::Class;

pub struct Config {
    /// Batches of 64 uncontended pairs per lock.
    pub samples: usize,
    /// Hand-off rounds per lock and waiter count.
    pub rounds: usize,
    /// The largest waiter count (powers of two up to it).
    pub max_waiters: usize,
    /// Where to write the overhead profile.
    pub profile: PathBuf,
}

/// A system of one resource `A` under `p` on `cpus` CPUs (synchronization
/// CPU 1 where the protocol needs one), used by every task of `tasks`:
/// `(name, priority, cpu)`, each with one 10 us section.
fn one_resource(
    p: rtsync_model::Protocol,
    cpus: usize,
    tasks: &[(String, u32, usize)],
) -> rtsync_model::System {
    let sync = if p.needs_sync_cpu() {
        "sync_cpu = 1\n"
    } else {
        ""
    };
    let mut src = format!(
        "[platform]\ncpus = {cpus}\nprotocol = \"{}\"\n[[resource]]\nname = \"A\"\n{sync}",
        p.name()
    );
    for (name, prio, cpu) in tasks {
        src += &format!(
            "[[task]]\nname = \"{name}\"\nperiod = \"100ms\"\npriority = {prio}\ncpu = {cpu}\n\
             body = [ {{ lock = \"A\", hold = \"10us\" }} ]\n"
        );
    }
    rtsync_model::load_str(&src, None)
        .map(|(s, _)| s)
        .unwrap_or_else(|d| panic!("bench system: {d}\n{src}"))
}

fn ns(x: f64) -> Time {
    Time::from_ns(x.max(0.0).round() as u64)
}

fn row4(name: &str, s: &[f64; 4]) -> String {
    format!(
        "{:<22} {:>9.0} {:>9.0} {:>9.0} {:>9.0}",
        name, s[0], s[1], s[2], s[3]
    )
}

/// The overhead profile from measured kernel costs and uncontended lock
/// costs: the p99 of each (`[min, median, p99, max]` summaries), and each
/// protocol's growth per waiter from `per_waiter` (ns).
fn profile_of(
    cs: &[f64; 4],
    rel: &[f64; 4],
    mig: Option<&[f64; 4]>,
    unc: &[uncontended::Row],
    per_waiter: impl Fn(rtsync_model::Protocol) -> f64,
) -> Profile {
    let mut profile = Profile {
        context_switch: ns(cs[2]),
        release: ns(rel[2]),
        timer: Time::ZERO,
        migration: mig.map_or(Time::ZERO, |m| ns(m[2])),
        ..Profile::default()
    };
    for r in unc {
        let Some(p) = r.protocol else { continue };
        profile.protocols.insert(
            p,
            LockCost {
                lock: ns(r.lock[2]),
                unlock: ns(r.unlock[2]),
                per_waiter: ns(per_waiter(p)),
            },
        );
    }
    profile
}

/// The rows of several rounds of the uncontended measurement as one:
/// each summary the rounds' `stats::robust` (the rounds list the same
/// locks in the same order).
fn robust_rows(
    rounds: impl Iterator<Item = Result<Vec<uncontended::Row>, String>>,
) -> Result<Vec<uncontended::Row>, String> {
    let rounds: Vec<Vec<uncontended::Row>> = rounds.collect::<Result<_, _>>()?;
    let mut out = rounds.first().cloned().ok_or("no rounds")?;
    for (k, row) in out.iter_mut().enumerate() {
        let of = |f: fn(&uncontended::Row) -> [f64; 4]| {
            stats::robust(&rounds.iter().map(|r| f(&r[k])).collect::<Vec<_>>())
        };
        row.pair = of(|r| r.pair);
        row.lock = of(|r| r.lock);
        row.unlock = of(|r| r.unlock);
        if row.peer.is_some() {
            row.peer = Some(of(|r| r.peer.unwrap_or_default()));
        }
    }
    Ok(out)
}

/// What this machine costs and how noisy it is, measured quickly (about a
/// second) for `rtsync demo`: the overhead profile the analysis charges
/// (p99 of each cost; no per-waiter growth, which needs the hand-off
/// bench) and the worst timer lateness seen, the noise a measured
/// response can carry beyond its bound.
pub struct MachineCosts {
    pub profile: Profile,
    /// The latest an absolute timer woke a SCHED_FIFO thread, of 300 (in
    /// three rounds of 100; the profile's release cost is the median of
    /// the rounds' p99s, `stats::robust`).
    pub worst_timer_lateness: Time,
    /// The longest a SCHED_FIFO thread spinning alone on a CPU was kept
    /// off it (`kernel::held_off`, [`HELD_OFF_PROBE`] on each CPU measured): the
    /// evidence a `>` mark's legend cites for time the hypervisor took.
    /// It does not widen the noise a mark allows: a short probe sees
    /// some of the host's interruptions, not their worst.
    pub worst_held_off: Time,
}

/// Where a measured worst response stands against its bound on this
/// machine: the one rule `rtsync demo` and `rtsync run` mark their
/// measured cells by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Against {
    /// At or below the bound.
    Within,
    /// Above it by no more than the noise measured: the worst timer
    /// lateness plus what the hypervisor took during the run from the
    /// CPUs the task depends on (a virtual machine's real-time threads
    /// are not always on a real CPU).
    Noise,
    /// Above it by more: a cost the analysis does not charge here
    /// (interrupts, caches), time the hypervisor took that its counter
    /// did not show ([`MachineCosts::above_explained`]), or a defect.
    Above,
}

impl MachineCosts {
    /// How `measured` stands against `bound` with `stolen` taken during
    /// the run from the CPUs the task depends on
    /// (`rtsync_experiment::as_it_runs::Stolen::reaching`).
    pub fn judge(&self, measured: Time, bound: Time, stolen: Time) -> Against {
        if measured <= bound {
            Against::Within
        } else if measured
            <= bound
                .saturating_add(self.worst_timer_lateness)
                .saturating_add(stolen)
        {
            Against::Noise
        } else {
            Against::Above
        }
    }

    /// [`MachineCosts::judge`] for a measured worst and the time the
    /// hypervisor took from the CPUs the task depends on, with the mark a
    /// table shows after the value: nothing within the bound, ` ~` within
    /// the noise, ` >` beyond it, each followed by ` +stolen X` where the
    /// hypervisor took some. `rtsync run` and `rtsync demo` mark their
    /// measured cells with it, and explain the marks with
    /// [`MachineCosts::noise_explained`] and [`MachineCosts::above_explained`].
    pub fn mark(&self, measured: Duration, bound: Time, stolen: Duration) -> (Against, String) {
        let ns = |d: Duration| Time::from_ns(d.as_nanos().min(u64::MAX as u128) as u64);
        let a = self.judge(ns(measured), bound, ns(stolen));
        let sign = match a {
            Against::Within => return (a, String::new()),
            Against::Noise => "~",
            Against::Above => ">",
        };
        let note = if stolen.is_zero() {
            String::new()
        } else {
            format!(" +stolen {}", rtsync_report::table::duration(stolen))
        };
        (a, format!(" {sign}{note}"))
    }

    /// What a ` ~` mark says, for the legend under a table of measured
    /// worsts ([`MachineCosts::mark`]).
    pub fn noise_explained(&self) -> String {
        format!(
            "above the bound by no more than this machine's measured noise: the worst timer lateness, {}, \
             plus what the hypervisor took during the run from the CPUs the task depends on (its own, and \
             those joined to it by a shared resource), shown as +stolen. A virtual machine's real-time \
             threads are not always on a real CPU.",
            self.worst_timer_lateness
        )
    }

    /// Why a bound that charges these costs can pass a deadline here and
    /// not on another run: for the legend under a bound table with a miss.
    /// The costs are what the calibration measured a moment before (each
    /// job's release at the timer lateness's p99, each migration at its
    /// p99), and on a loaded or virtual machine they move from minute to
    /// minute; the line names them, so that a reader can tell a system
    /// that misses from a machine that was noisy when it was measured.
    pub fn charged_explained(&self) -> String {
        format!(
            "These bounds charge this machine's costs as measured just before (each job's release {}, each migration {}): \
             on a loaded or virtual machine they change from run to run, and a system can miss on a noisy run and pass on a calm one.",
            self.profile.release, self.profile.migration
        )
    }

    /// What a ` >` mark says ([`MachineCosts::mark`]), for the legend
    /// under a table of measured worsts; `uncounted`: the steal counter's
    /// tick where a CPU of the run has a steal clock (`Stolen::uncounted`),
    /// which the allowance for stolen time cannot include. Where the
    /// calibration saw a spinning real-time thread kept off its CPU for a
    /// millisecond or more ([`MachineCosts::worst_held_off`]), it says so:
    /// what a newcomer needs to tell this machine's host from a defect.
    pub fn above_explained(&self, uncounted: Option<Duration>) -> String {
        let unseen = uncounted.map_or(String::new(), |tick| {
            let seen = if self.worst_held_off >= Time::from_ms(1) {
                format!(
                    "; measured here: a real-time thread spinning alone on a CPU for {} was kept off it for up to {} at once, \
                     far longer than an interrupt takes",
                    rtsync_report::table::duration(HELD_OFF_PROBE),
                    self.worst_held_off
                )
            } else {
                String::new()
            };
            format!(
                ", or time the hypervisor took uncounted (/proc/stat counts it in ticks of {}, so up to a tick \
                 per CPU goes unseen: a VM's host can take a running real-time thread's CPU for milliseconds with no \
                 tick counted{seen})",
                rtsync_report::table::duration(tick)
            )
        });
        format!(
            "above the bound by more than the noise measured: a cost the analysis does not charge here \
             (interrupts, caches){unseen}, or a defect"
        )
    }
}

/// How long the calibration spins a real-time thread alone on each CPU
/// it measures to see the host's interruptions ([`MachineCosts::worst_held_off`]).
pub const HELD_OFF_PROBE: Duration = Duration::from_millis(200);

pub fn quick_costs() -> Result<MachineCosts, String> {
    let cpus = sys::allowed_cpus();
    let cpu = *cpus.last().ok_or("no CPU allowed")?;
    let other = (cpus.len() > 1).then(|| cpus[0]);
    std::thread::spawn(move || {
        let unc = robust_rows((0..3).map(|_| uncontended::measure(7, cpu, other)))?;
        // Each kernel cost in short rounds (`stats::robust`): a burst
        // of the hypervisor in one round is noise, not the cost.
        let rounds = |f: &dyn Fn() -> Result<[f64; 4], String>| {
            (0..3)
                .map(|_| f())
                .collect::<Result<Vec<_>, _>>()
                .map(|r| stats::robust(&r))
        };
        let cs = rounds(&|| kernel::context_switch(cpu, 170))?;
        let rel = rounds(&|| kernel::release(cpu, 100, Duration::from_micros(500)))?;
        let mig = match other {
            Some(o) => Some(rounds(&|| kernel::migration(cpu, o, 100))?),
            None => None,
        };
        let mut held_off = Duration::ZERO;
        for c in std::iter::once(cpu).chain(other) {
            held_off = held_off.max(kernel::held_off(c, HELD_OFF_PROBE)?);
        }
        Ok(MachineCosts {
            profile: profile_of(&cs, &rel, mig.as_ref(), &unc, |_| 0.0),
            worst_timer_lateness: ns(rel[3]),
            worst_held_off: Time::from_ns(held_off.as_nanos().min(u64::MAX as u128) as u64),
        })
    })
    .join()
    .unwrap_or_else(|_| Err("a measuring thread panicked".into()))
}

pub fn run(c: Config) -> Result<(), Error> {
    if c.samples < 10 {
        return Err(Error::BadInput(
            "--ops must be at least 1000 (10 batches of 64 pairs)".into(),
        ));
    }
    if c.rounds < 5 {
        return Err(Error::BadInput("--rounds must be at least 5".into()));
    }
    if !(1..=64).contains(&c.max_waiters) {
        return Err(Error::BadInput(
            "--max-waiters must be within 1..=64".into(),
        ));
    }
    if let Err(why) = sys::probe_realtime() {
        return Err(Error::Environment(format!(
            "{why}\n  (bench locks measures on SCHED_FIFO threads)"
        )));
    }
    let cpus = sys::allowed_cpus();
    let cpu = *cpus.last().unwrap();
    let other = (cpus.len() > 1).then(|| cpus[0]);
    let ks: Vec<usize> = (0..7)
        .map(|i| 1usize << i)
        .filter(|&k| k <= c.max_waiters)
        .collect();
    println!(
        "rtsync bench locks: SCHED_FIFO threads on CPU {cpu}{}; ns; ratios are medians over the peer's median in this run\n",
        other.map_or(String::new(), |o| format!(
            " (and CPU {o} where two are needed)"
        ))
    );
    if other.is_none() {
        println!(
            "(one CPU allowed: the multiprocessor protocols and the cross-CPU hand-off are left out)\n"
        );
    }
    let bar = indicatif::ProgressBar::new(handoff::count(&ks, other.is_some()) + 2);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .expect("static template"),
    );
    let (samples, rounds) = (c.samples, c.rounds);
    let b2 = bar.clone();
    let measured = std::thread::spawn(move || {
        b2.set_message("uncontended");
        let unc = uncontended::measure(samples, cpu, other)?;
        let mixed = uncontended::measure_mixed(samples, cpu, other)?;
        b2.inc(1);
        b2.set_message("kernel costs");
        let cs = kernel::context_switch(cpu, 2000)?;
        let rel = kernel::release(cpu, 300, Duration::from_millis(1))?;
        let mig = match other {
            Some(o) => Some((
                kernel::migration(cpu, o, 300)?,
                kernel::sync_section(cpu, o, 300)?,
            )),
            None => None,
        };
        b2.inc(1);
        let hand = handoff::measure(rounds, &ks, cpu, other, |name| {
            b2.set_message(format!("hand-off: {name}"));
            b2.inc(1);
        })?;
        Ok::<_, String>((unc, mixed, cs, rel, mig, hand))
    })
    .join()
    .unwrap_or_else(|_| Err("a bench thread panicked".into()));
    bar.finish_and_clear();
    let (unc, mixed, cs, rel, mig, hand) = match measured {
        Ok(m) => m,
        Err(e) => return Err(Error::Environment(e)),
    };

    // Uncontended.
    println!(
        "Uncontended lock+unlock (batches of 64 pairs; lock and unlock p99 each timed alone; \
         each ratio against the peer's batches interleaved with the lock's)"
    );
    println!(
        "{:<22} {:>9} {:>9} {:>9} {:>9}  {:>8} {:>8}  {:<18}",
        "lock", "min", "median", "p99", "max", "lock p99", "unl p99", "vs peer"
    );
    for r in &unc {
        let ratio = r.peer.map_or(f64::NAN, |p| r.pair[1] / p[1]);
        let vs = match r.class {
            Class::Peer => String::new(),
            Class::Unchanged => format!("{ratio:.2}x PI (fast)"),
            Class::Raises(false) => format!("{ratio:.2}x PROTECT"),
            Class::Raises(true) => format!("{ratio:.2}x PROTECT (fast)"),
            Class::Migrates => "migrates".to_string(),
        };
        println!(
            "{}  {:>8.0} {:>8.0}  {vs}",
            row4(&r.name, &r.pair),
            r.lock[2],
            r.unlock[2]
        );
    }
    println!(
        "Targets: no priority change (fast) within 1.5x PI; a priority change within 1.0x PROTECT.\n"
    );

    // A protocol per resource.
    println!(
        "A protocol per resource: the uncontended lock+unlock of A beside a resource B of another \n\
         protocol, against the same lock with B under A's protocol (batches interleaved)"
    );
    println!(
        "{:<22} {:>9} {:>9} {:>9} {:>9}  {:>9}  {:<8}",
        "lock", "min", "median", "p99", "max", "single", "vs single"
    );
    for r in &mixed {
        println!(
            "{}  {:>9.0}  {:.2}x",
            row4(&r.name, &r.mixed),
            r.single[1],
            r.mixed[1] / r.single[1]
        );
    }
    println!("Target: within 1.1x the same lock in a single-protocol system.\n");

    // Hand-off.
    println!("Contended hand-off: holder's unlock to the first waiter running with the lock");
    println!(
        "{:<22} {:>9} {:>9} {:>9} {:>9}  {:>8}",
        "lock, waiters", "min", "median", "p99", "max", "vs peer"
    );
    let mut flat = Vec::new();
    for s in &hand {
        let peer = hand
            .iter()
            .find(|p| p.protocol.is_none() && p.cross == s.cross)
            .map(|p| &p.points);
        for (k, st) in &s.points {
            let vs = match peer.and_then(|pts| pts.iter().find(|(pk, _)| pk == k)) {
                Some((_, p)) if s.protocol.is_some() => format!("{:.2}x", st[1] / p[1]),
                _ => String::new(),
            };
            let place = if s.cross { "x-cpu" } else { "1 cpu" };
            println!("{}  {vs:>8}", row4(&format!("{} {place}, {k}", s.name), st));
        }
        if let (Some(first), Some(last)) = (s.points.first(), s.points.last())
            && last.0 > first.0
        {
            flat.push((s, first, last));
        }
    }
    println!("Targets: PIP within 1.2x the PI futex; 1 to 64 waiters within 1.2x.");
    for (s, first, last) in &flat {
        let place = if s.cross { "x-cpu" } else { "1 cpu" };
        println!(
            "  {} {place}: median with {} waiters / with {}: {:.2}x",
            s.name,
            last.0,
            first.0,
            last.1[1] / first.1[1]
        );
    }
    println!();

    // Kernel costs.
    println!("Kernel costs");
    println!(
        "{:<22} {:>9} {:>9} {:>9} {:>9}",
        "", "min", "median", "p99", "max"
    );
    println!("{}", row4("context switch", &cs));
    println!("{}", row4("release (timer late)", &rel));
    if let Some((m, _)) = &mig {
        println!("{}", row4("migration", m));
    }
    println!();
    if let Some((_, (by_move, by_agent))) = &mig {
        println!("A DPCP/DFLP section (empty) on the synchronization CPU, there and back");
        println!("{}", row4("caller migrates", by_move));
        println!("{}", row4("agent thread", by_agent));
        println!(
            "agent / migration (medians): {:.2}x; the runtime migrates the caller\n",
            by_agent[1] / by_move[1]
        );
    }

    // State size.
    let unit = rtsync_protocols::Locks::RESOURCE_STATE_BYTES;
    let gate = rtsync_rt::domain::GATE_BYTES;
    println!(
        "Lock state: {} bytes per resource ({unit} in the machine, 1 inconsistency flag, \
         {gate} for a global resource's own fast-path gate) + {gate} per CPU (its gate); \
         a Mutex<()> handle {} bytes; glibc's pthread_mutex_t {} bytes. Target: within 64.\n",
        unit + 1 + gate,
        std::mem::size_of::<rtsync_rt::Mutex<()>>(),
        std::mem::size_of::<libc::pthread_mutex_t>()
    );

    // The profile.
    let profile = profile_of(&cs, &rel, mig.as_ref().map(|(m, _)| m), &unc, |p| {
        flat.iter()
            .find(|(s, _, _)| s.protocol == Some(p))
            .map_or(0.0, |(_, first, last)| {
                (last.1[1] - first.1[1]) / (last.0 - first.0) as f64
            })
    });
    let text = format!(
        "# Overhead profile measured by `rtsync bench locks` on this machine:\n\
         # p99 of each operation (lock and unlock timed alone, a context switch as half a\n\
         # futex round trip on one CPU, a release as the lateness of an absolute timer,\n\
         # a migration as half a round trip of sched_setaffinity); per_waiter is the\n\
         # growth of the median hand-off per queued waiter (0 where not measured).\n\
         # Read by: rtsync analyze --overheads FILE, rtsync simulate --overheads FILE.\n{}",
        profile.to_toml()
    );
    if let Err(e) = std::fs::write(&c.profile, text) {
        return Err(Error::BadInput(format!(
            "cannot write {}: {e}",
            c.profile.display()
        )));
    }
    println!(
        "Wrote the overhead profile to {} (p99 values): rtsync analyze --overheads {}",
        c.profile.display(),
        c.profile.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three rounds of the uncontended measurement, a burst in the second
    /// round's lock times: the merged row keeps the calm rounds' p99 and
    /// the burst's maximum, row by row in the rounds' order.
    #[test]
    fn a_burst_in_one_round_of_lock_times_is_not_the_lock_cost() {
        let row = |name: &str, lock: [f64; 4]| uncontended::Row {
            name: name.into(),
            protocol: None,
            class: uncontended::Class::Peer,
            pair: [10.0, 20.0, 30.0, 40.0],
            peer: None,
            lock,
            unlock: [5.0, 6.0, 7.0, 8.0],
        };
        let calm = vec![
            row("a", [10.0, 20.0, 30.0, 40.0]),
            row("b", [1.0, 2.0, 3.0, 4.0]),
        ];
        let burst = vec![
            row("a", [10.0, 20.0, 9e6, 1e7]),
            row("b", [1.0, 2.0, 3.0, 4.0]),
        ];
        let rounds = [calm.clone(), burst, calm].map(Ok);
        let merged = robust_rows(rounds.into_iter()).unwrap();
        assert_eq!(merged.len(), 2);
        assert_eq!(
            (merged[0].name.as_str(), merged[0].lock),
            ("a", [10.0, 20.0, 30.0, 1e7])
        );
        assert_eq!(merged[1].lock, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(merged[0].unlock, [5.0, 6.0, 7.0, 8.0]);
    }

    /// The legend under a bound table with a miss names the release and
    /// migration costs the bounds charged.
    #[test]
    fn the_miss_legend_names_the_costs_charged() {
        let c = MachineCosts {
            profile: Profile {
                release: Time::from_us(1_208),
                migration: Time::from_us(95),
                ..Profile::default()
            },
            worst_timer_lateness: Time::from_us(1_700),
            worst_held_off: Time::ZERO,
        };
        let line = c.charged_explained();
        assert!(
            line.contains("release 1.208ms") && line.contains("migration 95us"),
            "{line}"
        );
    }

    /// The `>` legend cites the calibration's held-off time where the run
    /// has a steal clock and the probe saw a millisecond or more; on
    /// bare metal (no steal clock) or where the probe saw less, it does
    /// not.
    #[test]
    fn the_above_legend_cites_the_measured_held_off_time() {
        let c = |held: Time| MachineCosts {
            profile: Profile::default(),
            worst_timer_lateness: Time::from_us(100),
            worst_held_off: held,
        };
        let tick = Some(Duration::from_millis(10));
        let vm = c(Time::from_us(2_420)).above_explained(tick);
        assert!(vm.contains("kept off it for up to 2.42ms"), "{vm}");
        assert!(
            vm.contains("ticks of 10.000ms") && vm.ends_with("or a defect"),
            "{vm}"
        );
        assert!(
            !c(Time::from_us(400))
                .above_explained(tick)
                .contains("kept off")
        );
        let metal = c(Time::from_us(2_420)).above_explained(None);
        assert!(
            !metal.contains("kept off") && !metal.contains("ticks"),
            "{metal}"
        );
    }

    /// A 10 ms bound on a machine whose worst timer lateness was 1 ms: at
    /// or below the bound is within; up to 11 ms is noise; past it only
    /// by as much as the hypervisor stole from the task's CPU, noise too;
    /// beyond, above.
    #[test]
    fn a_measured_worst_is_judged_against_the_bound_and_the_noise() {
        let c = MachineCosts {
            profile: Profile::default(),
            worst_timer_lateness: Time::from_ms(1),
            worst_held_off: Time::ZERO,
        };
        let (bound, none) = (Time::from_ms(10), Time::ZERO);
        assert_eq!(c.judge(Time::from_ms(10), bound, none), Against::Within);
        assert_eq!(c.judge(Time::from_us(10_500), bound, none), Against::Noise);
        assert_eq!(c.judge(Time::from_ms(11), bound, none), Against::Noise);
        assert_eq!(c.judge(Time::from_us(11_500), bound, none), Against::Above);
        assert_eq!(
            c.judge(Time::from_us(11_500), bound, Time::from_ms(1)),
            Against::Noise
        );
        assert_eq!(
            c.judge(Time::from_us(12_001), bound, Time::from_ms(1)),
            Against::Above
        );
        // The marks a table shows.
        let us = Duration::from_micros;
        assert_eq!(
            c.mark(us(9_000), bound, us(0)),
            (Against::Within, String::new())
        );
        assert_eq!(
            c.mark(us(10_500), bound, us(0)),
            (Against::Noise, " ~".into())
        );
        assert_eq!(c.mark(us(11_500), bound, us(1_000)).1, " ~ +stolen 1.000ms");
        assert_eq!(
            c.mark(us(11_500), bound, us(0)),
            (Against::Above, " >".into())
        );
        // The legends name the lateness allowed, and where a CPU has a
        // steal clock the tick that can go uncounted.
        let legend = c.noise_explained();
        assert!(legend.contains("lateness, 1ms,"), "{legend}");
        let tick = us(10_000);
        assert!(c.above_explained(Some(tick)).contains("ticks of 10.000ms"));
        assert!(!c.above_explained(None).contains("uncounted"));
    }
}
