//! The discrete-event kernel: per-CPU preemptive scheduling of one thread
//! per task, driving the protocol machine of `rtsync-protocols`.
//!
//! Time advances from event to event (an arrival, a release after jitter,
//! the end of a computation or a self-suspension). Between events nothing
//! changes but the progress of the running computations. At each instant
//! the kernel *settles*: it dispatches the highest effective priority on
//! every CPU, lets each running thread execute its zero-time operations (a
//! request, a release, the end of its job) — requests are issued only by a
//! thread that is running, as on a real CPU — and dispatches again, until
//! nothing changes.

use crate::options::{Arrivals, Exec, Options};
use crate::program::{Op, flatten, segment_numbers};
use crate::result::{Blocking, Deadlock, Overload, SimResult, TaskStats, Violation};
use crate::serve::Serving;
use crate::trace::{Event, Mark, MarkKind, Recording, State};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rtsync_model::{Cpu, Protocol, Scheduler, System, Time};
use rtsync_protocols::{Arbitration, Config, Eff, Locks, Outcome, Ready, Slot, Tid, Tier};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::fmt;

/// Why a system cannot be simulated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// A task has no CPU on a multiprocessor.
    Unplaced {
        /// The task.
        task: String,
    },
    /// The protocol has no meaning under the scheduler.
    Unsupported {
        /// The protocol.
        protocol: Protocol,
        /// The scheduler.
        scheduler: Scheduler,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Unplaced { task } => write!(
                f,
                "task `{task}` has no CPU; give it `cpu = N` or let `rtsync analyze` partition the system first"
            ),
            SimError::Unsupported {
                protocol,
                scheduler,
            } => write!(
                f,
                "{protocol} is defined for fixed priorities only, not {scheduler}; under edf use npcs, srp, msrp or fmlp-s"
            ),
        }
    }
}

impl std::error::Error for SimError {}

/// Where a simulated thread stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ThreadState {
    /// No job.
    Idle,
    /// Wants the CPU to compute (or to issue its next operation).
    Ready,
    /// Busy-waits for a lock.
    Spinning,
    /// Suspended waiting for a lock.
    Waiting,
    /// Self-suspended until the given time.
    Suspended(Time),
}

/// What a timer does when it fires. Ends of self-suspensions due at an
/// instant are handled first, and settled, then the others in this order
/// (then by thread index): arrivals before releases, so that a job
/// arriving now is in the backlog before anything starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    /// The thread's next arrival.
    Arrival,
    /// A job arrived earlier is released now (after its jitter).
    Release,
    /// A self-suspension ends.
    Resume,
}

#[derive(Clone, Debug)]
struct Job {
    arrival: Time,
    deadline: Time,
    blocking: Blocking,
}

/// A task's thread in the simulation: its state, its place in its
/// program, its current job and its backlog.
#[derive(Clone, Debug)]
struct SimThread {
    st: ThreadState,
    pc: usize,
    /// What is left of the current computation or suspension.
    remaining: Time,
    /// The operation at `pc` is a computation (kept by `load_op`: the
    /// hottest question of the kernel, asked without decoding the program).
    computing: bool,
    /// SRP: the job passed its start test (reset by a self-suspension).
    started: bool,
    job: Option<Job>,
    /// Arrived jobs not yet started: `(arrival, release, job index)`.
    backlog: VecDeque<(Time, Time, u64)>,
    next_arrival: Time,
    /// Jobs arrived so far (the index of the next one).
    arrived: u64,
    /// Where it runs now.
    on: Option<Cpu>,
    /// Drawn durations of the current job's timed operations.
    times: Vec<Time>,
    /// The current job has run (its requests to components are sent from
    /// then on: a job issues a request only while it runs).
    ran: bool,
}

/// What the simulation measured of one task so far.
#[derive(Clone, Debug, Default)]
struct TaskTally {
    jobs: u64,
    max_response: Option<Time>,
    worst_arrival: Option<Time>,
    sum_response: u128,
    max_blocking: Blocking,
    misses: u64,
}

/// One simulation run.
pub struct Sim<'a> {
    sys: &'a System,
    opts: Options,
    locks: Locks,
    progs: Vec<Vec<Op>>,
    th: Vec<SimThread>,
    home: Vec<Cpu>,
    running: Vec<Option<Tid>>,
    now: Time,
    rng: ChaCha8Rng,
    seq: u64,
    acc: Vec<TaskTally>,
    /// Units of each resource inside a section, counted by the kernel from
    /// the operations it executed (independently of the machine).
    inside: Vec<u32>,
    events: u64,
    rec: Option<Recording>,
    shown_eff: Vec<Option<Eff>>,
    violations: Vec<Violation>,
    deadlock: Option<Deadlock>,
    overload: Option<Overload>,
    edf: bool,
    /// Threads with a job, in no particular order: every per-instant scan
    /// visits these only (a 16-task system has a handful at a time).
    active: Vec<Tid>,
    /// Pending timers, earliest first. Stale entries (a resume of a thread
    /// that is no longer suspended) are checked and dropped when due.
    timers: BinaryHeap<Reverse<(Time, Timer, Tid)>>,
    /// The timed operations' worst-case durations, per task (`Exec::Wcet`
    /// copies these instead of drawing).
    worst: Vec<Vec<Time>>,
    /// Scratch: timers due now; what runs on each CPU (the machine's
    /// decision, helping included), the next assignment.
    due: Vec<(Timer, Tid)>,
    /// Something that can change the dispatch happened since the last one.
    dirty: bool,
    /// Scratch for the waiters the machine woke by a priority rise.
    rewoken: Vec<Tid>,
    slots: Vec<Slot>,
    next: Vec<Option<Tid>>,
    /// Component threads (component specs only): who serves each request.
    serving: Option<Serving<'a>>,
}

/// Simulates `sys` (validated, partitioned) and returns per-task results,
/// with the recording when `opts.record` is set.
pub fn simulate(sys: &System, opts: &Options) -> Result<(SimResult, Option<Recording>), SimError> {
    let mut sim = Sim::new(sys, opts.clone())?;
    sim.run();
    Ok(sim.finish())
}

impl<'a> Sim<'a> {
    /// A simulation of `sys` ready to run (`Sim::run`).
    pub fn new(sys: &'a System, opts: Options) -> Result<Sim<'a>, SimError> {
        if sys.platform.cpus > 1
            && let Some(t) = sys.tasks.iter().find(|t| t.cpu.is_none())
        {
            return Err(SimError::Unplaced {
                task: t.name.clone(),
            });
        }
        let edf = sys.platform.scheduler == Scheduler::Edf;
        if let Some(p) = sys
            .resources
            .iter()
            .map(|r| r.protocol)
            .find(|p| edf && !p.supports(Scheduler::Edf))
        {
            return Err(SimError::Unsupported {
                protocol: p,
                scheduler: Scheduler::Edf,
            });
        }
        let cfg = Config::new(sys);
        let home = cfg.home.clone();
        let n = sys.tasks.len();
        let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
        let th: Vec<SimThread> = sys
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| SimThread {
                st: ThreadState::Idle,
                pc: 0,
                remaining: Time::ZERO,
                computing: false,
                started: false,
                job: None,
                backlog: VecDeque::new(),
                next_arrival: match &opts.plan {
                    Some(plan) => plan.task(i).offset,
                    None => opts
                        .offsets
                        .get(i)
                        .copied()
                        .unwrap_or(t.offset)
                        .saturating_add(match opts.arrivals {
                            Arrivals::Periodic => Time::ZERO,
                            Arrivals::Sporadic { .. } => {
                                Time::from_ns(rng.random_range(0..t.period.ns().max(1)))
                            }
                        }),
                },
                arrived: 0,
                on: None,
                times: Vec::new(),
                ran: false,
            })
            .collect();
        let progs: Vec<Vec<Op>> = sys.tasks.iter().map(|t| flatten(&t.body)).collect();
        let segs: Vec<Vec<usize>> = sys.tasks.iter().map(|t| segment_numbers(&t.body)).collect();
        let serving = Serving::new(sys, &progs, &segs);
        let worst = progs
            .iter()
            .map(|p| {
                p.iter()
                    .map(|op| match *op {
                        Op::Compute(w) | Op::Suspend(w) => w,
                        _ => Time::ZERO,
                    })
                    .collect()
            })
            .collect();
        let timers = th
            .iter()
            .enumerate()
            .map(|(t, x)| Reverse((x.next_arrival, Timer::Arrival, t)))
            .collect();
        Ok(Sim {
            sys,
            locks: Locks::new(cfg),
            progs,
            worst,
            timers,
            active: Vec::with_capacity(n),
            due: Vec::new(),
            dirty: true,
            rewoken: Vec::new(),
            th,
            home,
            running: vec![None; sys.platform.cpus],
            now: Time::ZERO,
            rng,
            seq: 0,
            acc: vec![TaskTally::default(); n],
            inside: vec![0; sys.resources.len()],
            events: 0,
            rec: opts.record.then(Recording::default),
            shown_eff: vec![None; n],
            violations: Vec::new(),
            deadlock: None,
            overload: None,
            edf,
            slots: vec![Slot::default(); sys.platform.cpus],
            next: vec![None; sys.platform.cpus],
            serving,
            opts,
        })
    }

    /// Runs to the horizon, a deadlock, a broken invariant or the event
    /// limit, whichever comes first.
    pub fn run(&mut self) {
        let mut tick = 0u32;
        self.timers();
        loop {
            self.settle();
            if self.deadlock.is_some() || self.overload.is_some() || !self.violations.is_empty() {
                return;
            }
            if self.events >= self.opts.max_events {
                return;
            }
            tick = tick.wrapping_add(1);
            if let Some(p) = &self.opts.progress
                && tick.is_multiple_of(1024)
            {
                p.store(self.now.ns(), std::sync::atomic::Ordering::Relaxed);
            }
            let next = self.next_event();
            let until = next.min(self.opts.horizon);
            self.advance(until);
            if next > self.opts.horizon {
                return;
            }
            // What is due at this instant from before it (ends of
            // computations and the zero-time operations after them: a
            // completion, a release, a request) happens before what
            // arrives at it. Response-time analysis counts the work
            // released in `[0, R)`: a job whose work is done at `R` has
            // completed at `R`, whatever is released at `R`. Firing the
            // timers first let such a release preempt the job's
            // zero-time completion, above its exact bound (found by the
            // soundness search on component topologies, whose round
            // times and harmonic periods make such instants common).
            self.settle();
            if self.deadlock.is_some() || !self.violations.is_empty() {
                return;
            }
            self.timers();
        }
    }

    /// The results, and the recording when asked for.
    pub fn finish(mut self) -> (SimResult, Option<Recording>) {
        if let Some(s) = &mut self.serving {
            s.close(self.now, self.rec.as_mut());
        }
        // Jobs whose deadline passed unfinished count as misses.
        for t in 0..self.th.len() {
            let late = self.th[t]
                .job
                .as_ref()
                .is_some_and(|j| j.deadline < self.now) as u64
                + self.th[t]
                    .backlog
                    .iter()
                    .filter(|&&(a, _, _)| a.saturating_add(self.sys.tasks[t].deadline) < self.now)
                    .count() as u64;
            self.acc[t].misses += late;
        }
        let tasks = self
            .sys
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let a = &self.acc[i];
                TaskStats {
                    name: t.name.clone(),
                    cpu: self.home[i],
                    jobs: a.jobs,
                    max_response: a.max_response,
                    worst_arrival: a.worst_arrival,
                    mean_response: (a.jobs > 0)
                        .then(|| Time::from_ns((a.sum_response / a.jobs as u128) as u64)),
                    max_blocking: a.max_blocking,
                    misses: a.misses,
                }
            })
            .collect();
        (
            SimResult {
                tasks,
                end: self.now,
                events: self.events,
                deadlock: self.deadlock,
                violations: self.violations,
                overload: self.overload,
            },
            self.rec,
        )
    }

    fn name(&self, t: Tid) -> String {
        self.sys.tasks[t].name.clone()
    }

    fn res_name(&self, r: usize) -> String {
        self.sys.resources[r].name.clone()
    }

    fn emit(&mut self, e: impl FnOnce(&Self) -> Event) {
        if self.rec.is_none() {
            return;
        }
        let ev = e(self);
        if let Some(r) = &mut self.rec {
            r.events.push(ev);
        }
    }

    fn mark(&mut self, task: Tid, t: Time, kind: MarkKind) {
        if let Some(r) = &mut self.rec {
            r.marks.push(Mark { t, task, kind });
        }
    }

    fn draw(&mut self, worst: Time) -> Time {
        match self.opts.exec {
            Exec::Wcet => worst,
            Exec::Random if worst.is_zero() => worst,
            Exec::Random => Time::from_ns(self.rng.random_range(1..=worst.ns())),
        }
    }

    /// `t`'s arrival due now: the job enters the backlog (released now, or
    /// later after its jitter) and the next arrival is scheduled.
    fn arrival(&mut self, t: Tid) {
        let task = &self.sys.tasks[t];
        let a = self.th[t].next_arrival;
        let k = self.th[t].arrived;
        let (jitter, gap) = match &self.opts.plan {
            Some(plan) => {
                let p = plan.task(t);
                (
                    p.jitter(k).min(task.jitter),
                    task.period.saturating_add(p.delay(k)),
                )
            }
            None => {
                let jitter = if task.jitter.is_zero() {
                    Time::ZERO
                } else {
                    Time::from_ns(self.rng.random_range(0..=task.jitter.ns()))
                };
                let gap = match self.opts.arrivals {
                    Arrivals::Periodic => task.period,
                    Arrivals::Sporadic { spread } => {
                        let extra =
                            (task.period.ns() as f64 * spread * self.rng.random::<f64>()) as u64;
                        task.period.saturating_add(Time::from_ns(extra))
                    }
                };
                (jitter, gap)
            }
        };
        let next = a.saturating_add(gap);
        let release = a.saturating_add(jitter);
        self.th[t].arrived += 1;
        self.th[t].next_arrival = next;
        self.th[t].backlog.push_back((a, release, k));
        if self.th[t].backlog.len() > self.opts.max_backlog && self.overload.is_none() {
            self.overload = Some(Overload {
                at: self.now,
                task: task.name.clone(),
                backlog: self.th[t].backlog.len(),
            });
        }
        self.timers.push(Reverse((next, Timer::Arrival, t)));
        if release > self.now {
            self.timers.push(Reverse((release, Timer::Release, t)));
        }
        self.start_job(t);
    }

    /// Starts the next job of an idle thread if it has been released.
    fn start_job(&mut self, t: Tid) {
        if !matches!(self.th[t].st, ThreadState::Idle) {
            return;
        }
        let Some(&(arrival, release, k)) = self.th[t].backlog.front() else {
            return;
        };
        if release > self.now {
            return;
        }
        self.th[t].backlog.pop_front();
        let task = &self.sys.tasks[t];
        let deadline = arrival.saturating_add(task.deadline);
        let mut times = std::mem::take(&mut self.th[t].times);
        times.clear();
        if let Some(plan) = &self.opts.plan {
            // A plan numbers the timed operations only (computations and
            // self-suspensions, as the search and `--plan` files do), not
            // the locks and unlocks between them.
            let p = plan.task(t);
            let mut o = 0;
            times.extend(self.worst[t].iter().zip(&self.progs[t]).map(|(&w, op)| {
                if matches!(op, Op::Compute(_) | Op::Suspend(_)) {
                    o += 1;
                    p.exec(k, o - 1, w)
                } else {
                    w
                }
            }));
        } else if self.opts.exec == Exec::Wcet {
            times.extend_from_slice(&self.worst[t]);
        } else {
            for i in 0..self.worst[t].len() {
                let d = self.draw(self.worst[t][i]);
                times.push(d);
            }
        }
        self.seq += 1;
        let key = Self::key(self.edf, task.priority, deadline);
        self.locks
            .set_base(t, key, self.seq)
            .expect("thread index in range");
        let th = &mut self.th[t];
        th.times = times;
        th.job = Some(Job {
            arrival,
            deadline,
            blocking: Blocking::default(),
        });
        th.pc = 0;
        th.remaining = Time::ZERO;
        th.started = false;
        th.ran = false;
        th.st = ThreadState::Ready;
        self.active.push(t);
        self.dirty = true;
        self.load_op(t);
        self.events += 1;
        self.emit(|s| Event::Release {
            t: s.now,
            task: s.name(t),
            deadline,
        });
        self.mark(t, arrival, MarkKind::Release);
        self.mark(t, deadline, MarkKind::Deadline);
    }

    /// The scheduling key of a job: its priority under FP, its absolute
    /// deadline (earlier is higher) under EDF.
    fn key(edf: bool, priority: u32, deadline: Time) -> u64 {
        if edf {
            u64::MAX - deadline.ns()
        } else {
            priority as u64
        }
    }

    /// Makes `t`, suspended until now (a self-suspension's end, or a
    /// wait for a lock that a release or a raise ended), ready. A thread
    /// that wakes joins the tail of its priority level, as under
    /// SCHED_FIFO, where the runtime's threads run: it loses every tie
    /// with the ready jobs of its level, even those released after it.
    /// So it never preempts a holder raised to its level (a ceiling is
    /// reached, not passed): with the job's old release order a resuming
    /// job preempted such a holder under MrsP and spun on the holder's
    /// own CPU forever (found by the soundness search, self-suspending
    /// shape); and a job a lock release wakes queues behind an equal
    /// released while it waited (`scenarios/pip-equal-wake.toml`, where
    /// the runtime's threads did so and the simulator ran the woken job
    /// first). The analysis charges equal priorities to each other both
    /// ways, so either order is within the bounds.
    fn wake(&mut self, t: Tid) {
        self.th[t].st = ThreadState::Ready;
        self.seq += 1;
        let key = self.key_of(t);
        self.locks
            .set_base(t, key, self.seq)
            .expect("thread index in range");
    }

    /// The scheduling key of `t`'s current job.
    fn key_of(&self, t: Tid) -> u64 {
        let deadline = self.th[t].job.as_ref().map_or(Time::MAX, |j| j.deadline);
        Self::key(self.edf, self.sys.tasks[t].priority, deadline)
    }

    /// Sets `remaining` for the operation at `pc`.
    fn load_op(&mut self, t: Tid) {
        let th = &mut self.th[t];
        th.remaining = th.times.get(th.pc).copied().unwrap_or(Time::ZERO);
        th.computing = matches!(self.progs[t].get(th.pc), Some(Op::Compute(_)));
        if self.serving.is_some() {
            self.track(t);
        }
    }

    /// Follows `t`'s requests to component threads after its job moved.
    fn track(&mut self, t: Tid) {
        let th = &self.th[t];
        let pc = (th.job.is_some() && th.ran).then_some(th.pc);
        let Some(s) = &mut self.serving else { return };
        if let Err(v) = s.moved(t, pc, self.now, self.rec.as_mut())
            && self.opts.check
        {
            self.violate(v);
        }
    }

    /// Fires the timers due now: ends of self-suspensions first, settled
    /// (dispatched, with the zero-time operations after them) before the
    /// arrivals and releases after jitter due at the same instant.
    ///
    /// A suspension that ends at `t` is due from before `t`, as a
    /// computation that ends there is (see [`Sim::run`]): a job whose
    /// body ends with a suspension has completed at `t`, whatever is
    /// released at `t`. Firing every timer together let a higher job
    /// released at the instant a job's last suspension ended take the CPU
    /// from its zero-time completion, which then waited out the new
    /// jobs' work (12 ms against a bound of 8 ms, found by `rtsync
    /// experiment exhaustive`: a job of `{ suspend }, { lock }, { suspend
    /// }` on one CPU, every period a multiple of 8 ms).
    fn timers(&mut self) {
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        while let Some(&Reverse((at, kind, t))) = self.timers.peek() {
            if at > self.now {
                break;
            }
            self.timers.pop();
            due.push((kind, t));
        }
        due.sort_unstable();
        let mut resumed = false;
        for &(kind, t) in &due {
            if kind == Timer::Resume {
                resumed |= self.resume(t);
            }
        }
        if resumed {
            self.settle();
        }
        for &(kind, t) in &due {
            match kind {
                Timer::Arrival => self.arrival(t),
                Timer::Release => self.start_job(t),
                Timer::Resume => {}
            }
        }
        self.due = due;
    }

    /// Ends `t`'s self-suspension, if it is due now; whether it was.
    fn resume(&mut self, t: Tid) -> bool {
        if !matches!(self.th[t].st, ThreadState::Suspended(until) if until <= self.now) {
            return false;
        }
        let th = &mut self.th[t];
        th.started = false;
        th.pc += 1;
        self.load_op(t);
        self.wake(t);
        self.dirty = true;
        self.events += 1;
        self.emit(|s| Event::Resume {
            t: s.now,
            task: s.name(t),
        });
        true
    }

    /// The earliest instant at which something happens: the next timer, or
    /// the end of a running computation.
    fn next_event(&self) -> Time {
        let mut next = self
            .timers
            .peek()
            .map_or(Time::MAX, |&Reverse((at, _, _))| at);
        for &t in self.running.iter().flatten() {
            let th = &self.th[t];
            if th.computing && matches!(th.st, ThreadState::Ready) {
                next = next.min(self.now.saturating_add(th.remaining));
            }
        }
        next
    }

    /// Moves time to `to`: running computations progress, spinners spin,
    /// waiting jobs accumulate blocking.
    fn advance(&mut self, to: Time) {
        let dt = to.saturating_sub(self.now);
        if dt.is_zero() {
            self.now = to;
            return;
        }
        for i in 0..self.active.len() {
            let t = self.active[i];
            let (st, on) = (self.th[t].st, self.th[t].on);
            let Some(job) = &self.th[t].job else { continue };
            let home = self.home[t];
            let mut b = job.blocking;
            match (st, on) {
                (ThreadState::Ready, Some(_)) => {
                    self.th[t].remaining = self.th[t].remaining.saturating_sub(dt);
                    if self.locks.location(t) != home {
                        b.remote = b.remote.saturating_add(dt);
                    }
                }
                (ThreadState::Spinning, Some(_)) => b.spin = b.spin.saturating_add(dt),
                (ThreadState::Suspended(_), _) => {}
                _ => {
                    // Pending: ready, spinning while preempted, or waiting
                    // for a lock.
                    let lower = self.running[home]
                        .is_some_and(|x| x != t && self.locks.base(x) < self.locks.base(t));
                    if lower {
                        b.local = b.local.saturating_add(dt);
                    } else if matches!(st, ThreadState::Waiting) || self.locks.location(t) != home {
                        b.remote = b.remote.saturating_add(dt);
                    }
                }
            }
            if let Some(job) = &mut self.th[t].job {
                job.blocking = b;
            }
            if self.rec.is_some() {
                let state = self.shown_state(t, st, on);
                if let Some(r) = &mut self.rec {
                    r.extend(t, self.now, to, state);
                }
            }
        }
        self.now = to;
    }

    /// What the chart shows for `t` (only computed when recording).
    fn shown_state(&self, t: Tid, st: ThreadState, on: Option<Cpu>) -> State {
        let waiting = self.locks.waiting(t).unwrap_or(0);
        match (st, on) {
            (ThreadState::Ready, Some(cpu)) => State::Run {
                cpu,
                resource: self.locks.held(t).last(),
            },
            (ThreadState::Spinning, Some(cpu)) => State::Spin {
                cpu,
                resource: waiting,
            },
            (ThreadState::Suspended(_), _) => State::Suspended,
            // A spinner not running: preempted, or its CPU lent to the
            // holder (MrsP helping).
            (ThreadState::Waiting | ThreadState::Spinning, _) => {
                State::Blocked { resource: waiting }
            }
            _ => State::Ready,
        }
    }

    /// Dispatches and executes zero-time operations until nothing changes.
    /// Operations due at the same instant on different CPUs run in order of
    /// effective priority, one at a time with a dispatch in between, so
    /// that simultaneity never favours a CPU by its number (a boosted
    /// agent's retry goes before a lower job's new request).
    fn settle(&mut self) {
        for _round in 0..100_000 {
            // An instant reached by the end of a computation changes
            // nothing the dispatcher reads until that thread steps.
            if self.dirty {
                // Waiters the machine woke because their priority rose
                // (no release: `Locks::take_rewoken`) retry as the ones a
                // release wakes do.
                self.locks.take_rewoken(&mut self.rewoken);
                for i in 0..self.rewoken.len() {
                    let t = self.rewoken[i];
                    if self.th[t].st == ThreadState::Waiting {
                        self.wake(t);
                    }
                }
                self.dispatch();
                self.dirty = false;
            }
            let mut pick: Option<Tid> = None;
            for cpu in 0..self.running.len() {
                let Some(t) = self.running[cpu] else { continue };
                if !matches!(self.th[t].st, ThreadState::Ready) || !self.zero_time_op(t) {
                    continue;
                }
                if pick.is_none_or(|p| self.locks.eff(t) > self.locks.eff(p)) {
                    pick = Some(t);
                }
            }
            let Some(t) = pick else {
                if self.opts.check {
                    self.check();
                }
                self.show_priorities();
                return;
            };
            self.step(t);
            if self.deadlock.is_some() || !self.violations.is_empty() {
                return;
            }
        }
        self.violate("no progress after 100000 operations at one instant".into());
    }

    /// Whether `t`'s next operation takes no time (or its computation is
    /// done).
    fn zero_time_op(&self, t: Tid) -> bool {
        let th = &self.th[t];
        !th.computing || th.remaining.is_zero()
    }

    /// Whether `y`, ready or spinning, may run now: in progress, or past
    /// SRP's start rule (the test, and no refused job of its CPU before
    /// it; [`Locks::held_back`]).
    fn may_run(&self, y: Tid) -> bool {
        match ready(&self.th, &self.locks, y) {
            Ready::Runs => true,
            Ready::Starts => !self.locks.held_back(
                self.active.iter().copied(),
                |t| ready(&self.th, &self.locks, t),
                y,
            ),
            Ready::No | Ready::Refused => false,
        }
    }

    /// Chooses the thread on every CPU ([`Locks::dispatch`], MrsP helping
    /// included) among the ready and spinning threads (SRP: a job that has
    /// not started must pass the start test, and starts only above every
    /// refused one of its CPU), and records what changed.
    fn dispatch(&mut self) {
        let mut next = std::mem::take(&mut self.next);
        let th = &self.th;
        let locks = &self.locks;
        locks.dispatch(
            self.active.iter().copied(),
            |t| ready(th, locks, t),
            &mut self.slots,
        );
        for (cpu, slot) in self.slots.iter().enumerate() {
            next[cpu] = slot.runs;
        }
        for (cpu, &task) in next.iter().enumerate() {
            if task != self.running[cpu] {
                self.events += 1;
                if let Some(t) = task {
                    self.th[t].started = true;
                }
                let help = self.slots[cpu].lent_by.is_some();
                self.emit(|s| Event::Dispatch {
                    t: s.now,
                    cpu,
                    task: task.map(|t| s.name(t)),
                    helping: help,
                });
            }
        }
        for t in self.running.iter().flatten() {
            self.th[*t].on = None;
        }
        for (cpu, t) in next.iter().enumerate() {
            if let Some(t) = *t {
                self.th[t].on = Some(cpu);
                if !self.th[t].ran {
                    self.th[t].ran = true;
                    if self.serving.is_some() {
                        self.track(t);
                    }
                }
            }
        }
        self.next = std::mem::replace(&mut self.running, next);
    }

    /// Executes `t`'s zero-time operation at `pc`. Marks the dispatch dirty
    /// unless only `t`'s place in its program moved (a computation ended
    /// and the next operation is still `t`'s to issue on the same CPU).
    fn step(&mut self, t: Tid) {
        let pc = self.th[t].pc;
        let Some(&op) = self.progs[t].get(pc) else {
            self.dirty = true;
            self.complete(t);
            return;
        };
        self.events += 1;
        match op {
            Op::Compute(_) => {
                debug_assert!(self.th[t].remaining.is_zero());
                self.th[t].pc += 1;
                self.load_op(t);
            }
            Op::Suspend(_) => {
                let d = self.th[t].remaining;
                if d.is_zero() {
                    self.th[t].pc += 1;
                    self.load_op(t);
                } else {
                    self.dirty = true;
                    let until = self.now.saturating_add(d);
                    self.th[t].st = ThreadState::Suspended(until);
                    self.timers.push(Reverse((until, Timer::Resume, t)));
                    self.emit(|s| Event::Suspend {
                        t: s.now,
                        task: s.name(t),
                        until,
                    });
                }
            }
            Op::Lock(r, units) => {
                self.dirty = true;
                let outcome = if self.locks.woken(t) {
                    // A ceiling-refused request woken by a release.
                    self.locks.retry(t)
                } else {
                    self.emit(|s| Event::Request {
                        t: s.now,
                        task: s.name(t),
                        resource: s.res_name(r),
                        units,
                    });
                    self.locks.lock(t, r, units)
                };
                match outcome {
                    Ok(Outcome::Granted) => self.entered(t, r, units),
                    Ok(Outcome::Wait { spin }) => {
                        self.th[t].st = if spin {
                            ThreadState::Spinning
                        } else {
                            ThreadState::Waiting
                        };
                        self.emit(|s| Event::Wait {
                            t: s.now,
                            task: s.name(t),
                            resource: s.res_name(r),
                            spin,
                        });
                        if let Some(cycle) = self.locks.wait_cycle(t) {
                            let cycle: Vec<(String, String)> = cycle
                                .iter()
                                .map(|&(x, r)| (self.name(x), self.res_name(r)))
                                .collect();
                            self.emit(|s| Event::Deadlock {
                                t: s.now,
                                cycle: cycle.clone(),
                            });
                            self.deadlock = Some(Deadlock {
                                at: self.now,
                                cycle,
                            });
                        }
                    }
                    Err(e) => self.violate(format!("{}: {e}", self.name(t))),
                }
            }
            Op::Unlock(r) => {
                self.dirty = true;
                let units = self.units_at_lock(t, r);
                self.emit(|s| Event::Unlock {
                    t: s.now,
                    task: s.name(t),
                    resource: s.res_name(r),
                });
                self.inside[r] -= units;
                self.th[t].pc += 1;
                self.load_op(t);
                match self.locks.unlock(t, r) {
                    Ok(woken) => {
                        for g in woken {
                            if self.th[g.thread].st == ThreadState::Waiting {
                                self.wake(g.thread);
                            } else {
                                // A spinner granted where it spins keeps
                                // its place: it never left the CPU.
                                self.th[g.thread].st = ThreadState::Ready;
                            }
                            if g.granted {
                                let u = match self.progs[g.thread][self.th[g.thread].pc] {
                                    Op::Lock(_, u) => u,
                                    _ => 1,
                                };
                                self.entered(g.thread, g.resource, u);
                            }
                        }
                    }
                    Err(e) => self.violate(format!("{}: {e}", self.name(t))),
                }
            }
        }
    }

    /// The units of `t`'s section on `r` being closed.
    fn units_at_lock(&self, t: Tid, r: usize) -> u32 {
        let pc = self.th[t].pc;
        let mut depth = 0i32;
        for i in (0..pc).rev() {
            match self.progs[t][i] {
                Op::Unlock(x) if x == r => depth += 1,
                Op::Lock(x, u) if x == r => {
                    if depth == 0 {
                        return u;
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        1
    }

    /// `t` was granted `units` of `r`: it enters the section.
    fn entered(&mut self, t: Tid, r: usize, units: u32) {
        self.inside[r] += units;
        self.th[t].pc += 1;
        self.load_op(t);
        self.emit(|s| Event::Granted {
            t: s.now,
            task: s.name(t),
            resource: s.res_name(r),
        });
        if self.opts.check && self.inside[r] > self.sys.resources[r].units.max(1) {
            self.violate(format!(
                "mutual exclusion broken: {} units of `{}` (which has {}) are held at once",
                self.inside[r],
                self.res_name(r),
                self.sys.resources[r].units
            ));
        }
    }

    fn complete(&mut self, t: Tid) {
        self.events += 1;
        if let Err(e) = self.locks.job_done(t) {
            self.violate(format!("{} ended its job: {e}", self.name(t)));
        }
        let job = self.th[t].job.take().expect("a running thread has a job");
        let response = self.now.saturating_sub(job.arrival);
        let a = &mut self.acc[t];
        a.jobs += 1;
        if a.max_response.is_none_or(|m| response > m) {
            a.max_response = Some(response);
            a.worst_arrival = Some(job.arrival);
        }
        a.sum_response += response.ns() as u128;
        a.max_blocking = a.max_blocking.max(job.blocking);
        let missed = self.now > job.deadline;
        if missed {
            a.misses += 1;
        }
        self.th[t].st = ThreadState::Idle;
        if self.serving.is_some() {
            self.track(t);
        }
        if let Some(i) = self.active.iter().position(|&x| x == t) {
            self.active.swap_remove(i);
        }
        self.emit(|s| Event::Complete {
            t: s.now,
            task: s.name(t),
            response,
        });
        self.mark(t, self.now, MarkKind::Complete);
        if missed {
            let deadline = job.deadline;
            self.emit(|s| Event::Miss {
                t: s.now,
                task: s.name(t),
                deadline,
            });
            self.mark(t, self.now, MarkKind::Miss);
        }
        self.start_job(t);
    }

    fn violate(&mut self, what: String) {
        self.violations.push(Violation { at: self.now, what });
    }

    /// The scheduling invariant, checked independently of the dispatcher's
    /// choice: a thread of lower base priority may run while a
    /// higher-priority thread of its CPU is ready only as the protocol
    /// allows it — it holds or requests a resource, or the waiting job has
    /// not passed SRP's start test. And a waiter (suspended or spinning)
    /// for a queue-arbitrated resource that nobody holds is below a
    /// waiter a release woke to retry it: without hand-off (PIP) the woken
    /// top waiter leaves the queue and the lower ones wait for its retry,
    /// but a waiter above every woken one lends its priority to nobody,
    /// so any job may run ahead of it (the PIP defect the soundness search
    /// found fails here at once).
    fn check(&mut self) {
        for i in 0..self.active.len() {
            let t = self.active[i];
            if !matches!(self.th[t].st, ThreadState::Waiting | ThreadState::Spinning)
                || self.locks.woken(t)
            {
                continue;
            }
            let Some(r) = self.locks.waiting(t) else {
                continue;
            };
            let queued = matches!(
                self.locks.config().rules[r].arbitration,
                Arbitration::Queue(_)
            );
            if !queued || self.locks.holders(r).next().is_some() {
                continue;
            }
            let rank = |x: Tid| {
                let e = self.locks.eff(x);
                (e.tier, e.key)
            };
            let woken_top = self
                .active
                .iter()
                .filter(|&&x| self.locks.woken(x) && self.locks.waiting(x) == Some(r))
                .map(|&x| rank(x))
                .max();
            if woken_top.is_none_or(|w| rank(t) > w) {
                self.violate(format!(
                    "{} waits for {}, which nobody holds, above every waiter woken to take it",
                    self.name(t),
                    self.res_name(r)
                ));
                return;
            }
        }
        for cpu in 0..self.running.len() {
            let Some(x) = self.running[cpu] else {
                // An idle CPU with a ready, admissible thread located there.
                if let Some(&y) = self.active.iter().find(|&&y| {
                    self.th[y].st == ThreadState::Ready
                        && self.th[y].on.is_none()
                        && self.locks.location(y) == cpu
                        && self.may_run(y)
                }) {
                    self.violate(format!(
                        "CPU {cpu} idles while {} is ready there",
                        self.name(y)
                    ));
                }
                continue;
            };
            let excused = self.locks.holds_any(x)
                || self.locks.waiting(x).is_some()
                || self.locks.eff(x).tier != Tier::Normal;
            if excused {
                continue;
            }
            for &y in &self.active {
                if y == x
                    || !matches!(self.th[y].st, ThreadState::Ready | ThreadState::Spinning)
                    || self.th[y].on.is_some()
                    || self.locks.location(y) != cpu
                    || !self.may_run(y)
                {
                    continue;
                }
                if self.locks.base(y) > self.locks.base(x) {
                    self.violate(format!(
                        "{} runs on CPU {cpu} while {}, of higher priority and holding nothing in its way, is ready",
                        self.name(x),
                        self.name(y)
                    ));
                    return;
                }
            }
        }
    }

    /// Records effective-priority changes for the trace and the chart.
    fn show_priorities(&mut self) {
        if self.rec.is_none() {
            return;
        }
        for t in 0..self.th.len() {
            if self.th[t].job.is_none() {
                self.shown_eff[t] = None;
                continue;
            }
            let e = self.locks.eff(t);
            let base = self.locks.base(t);
            let shown = self.shown_eff[t];
            if shown != Some(e) {
                let was_raised = shown.is_some_and(|s| s.tier != Tier::Normal || s.key != base);
                let raised = e.tier != Tier::Normal || e.key != base;
                self.shown_eff[t] = Some(e);
                // The same label again (a raised job resuming from a
                // self-suspension takes a new place in its level) is no
                // change to show.
                let same =
                    shown.is_some_and(|s| s.shown(base, self.edf) == e.shown(base, self.edf));
                if (raised || was_raised) && !same {
                    let label = e.label(base, self.edf);
                    self.emit(|s| Event::Priority {
                        t: s.now,
                        task: s.name(t),
                        priority: label.clone(),
                    });
                    self.mark(t, self.now, MarkKind::Priority(label));
                }
            }
        }
    }
}

/// Where thread `t` stands for the placement decision ([`Ready`]): a job
/// that has not started must pass SRP's start test.
fn ready(th: &[SimThread], locks: &Locks, t: Tid) -> Ready {
    if !matches!(th[t].st, ThreadState::Ready | ThreadState::Spinning) {
        Ready::No
    } else if th[t].started {
        Ready::Runs
    } else if locks.may_start(t) {
        Ready::Starts
    } else {
        Ready::Refused
    }
}
