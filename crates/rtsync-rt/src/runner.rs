//! Runs a described system on real threads: one thread per task, bound to
//! its task in a [`Domain`], released on absolute timers; a body computes
//! by spinning on its own CPU-time clock (so a preempted computation takes
//! the same CPU time as an undisturbed one, as in the model), takes the
//! real locks, and self-suspends by sleeping.
//!
//! Every loop is bounded: releases stop at the end of the run, a
//! computation also stops at a wall-clock limit (its length plus the
//! run's duration), and lock waits at the domain's wait limit.

use crate::component::{Assembly, AssemblyOptions, Served};
use crate::domain::{Acting, Binding, Deputy, Domain, Options, Record};
use crate::error::RtError;
use crate::sys;
use rtsync_model::component::Request;
use rtsync_model::{Segment, System};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// How [`crate::run`] executes a system.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Releases stop this long after the start.
    pub duration: Duration,
    /// First release of each task after the start (missing: the task's
    /// own `offset` from the spec, 0 by default).
    pub offsets: Vec<Duration>,
    /// At most this many jobs per task.
    pub max_jobs: Option<u64>,
    /// The domain's options (real-time or not, the CPU map, recording).
    pub domain: Options,
    /// Lock the process's memory first (`mlockall`).
    pub lock_memory: bool,
    /// Time every lock and unlock call as its caller sees it and return
    /// them ([`TaskRun::calls`]): two more clock reads per section, no
    /// other change to the path a lock takes.
    pub time_calls: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            duration: Duration::from_secs(1),
            offsets: Vec::new(),
            max_jobs: None,
            domain: Options::default(),
            lock_memory: false,
            time_calls: false,
        }
    }
}

/// One task's measurements, in the form analysis and simulation report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskRun {
    /// The task.
    pub name: String,
    /// Jobs completed.
    pub jobs: u64,
    /// Longest response (release to completion), if a job completed.
    pub max_response: Option<Duration>,
    /// Mean response, if a job completed.
    pub mean_response: Option<Duration>,
    /// Longest time one job spent waiting for locks (including the SRP
    /// start test), with the waits of the component threads acting for
    /// it in its requests (a plain resource a method locks for the task).
    pub max_blocking: Duration,
    /// Jobs that completed after their deadline.
    pub misses: u64,
    /// With [`RunOptions::time_calls`], every lock and unlock call, in
    /// order.
    pub calls: Vec<LockCall>,
}

/// One section's lock and unlock calls, timed by their caller: the lock
/// from the call to the grant (a wait included, where it waited; the
/// migration to a synchronization CPU included, under DPCP and DFLP),
/// the unlock from the call to its return (the migration back included).
/// The migrations the calling thread made of itself inside each call are
/// timed apart too ([`crate::sys::time_own_moves`]): zero where it did
/// not move itself (no migration, or another thread moved it while it
/// waited).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockCall {
    /// The resource.
    pub resource: usize,
    /// The lock call's duration.
    pub lock: Duration,
    /// The unlock call's duration.
    pub unlock: Duration,
    /// Inside the lock call, the time the caller spent moving itself.
    pub lock_move: Duration,
    /// Inside the unlock call, the time the caller spent moving itself.
    pub unlock_move: Duration,
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// Per task, in the system's order.
    pub tasks: Vec<TaskRun>,
    /// Grants, releases, priority changes and job ends, in order, with
    /// their time since the domain was made (when the domain records).
    pub log: Vec<(Duration, Record)>,
    /// Completions of each task's first job, in order: `(task, time since
    /// the start)`.
    pub first_completions: Vec<(String, Duration)>,
    /// Which paths the locks took: whether PIP ran on the kernel's PI
    /// futex, and how many grants took the fast path (no bookkeeping
    /// lock), so a check can say which path it exercised.
    pub kernel_pi: bool,
    /// Grants that took the fast path.
    pub fast_grants: u64,
    /// Where the system has components: each request's service by a
    /// component thread, in the order services began (when the domain
    /// records or traces).
    pub served: Vec<Served>,
    /// Where the system has components: requests that found their
    /// interface's pool busy (the analyzer's sizes rule them out).
    pub pool_overflows: u64,
    /// Where the system has components: each interface and its threads.
    pub component_threads: Vec<(String, usize)>,
}

/// The calling thread's CPU time.
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is valid and writable.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Spins until this thread has used `d` of CPU time, or until `limit`.
fn compute(d: Duration, limit: Instant) {
    let until = cpu_time() + d;
    let mut i = 0u32;
    while cpu_time() < until {
        i = i.wrapping_add(1);
        if i.is_multiple_of(64) && Instant::now() >= limit {
            return;
        }
    }
}

fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

struct Job<'a> {
    b: &'a Binding,
    limit: Instant,
    blocked: Duration,
    /// With [`RunOptions::time_calls`], where the calls go.
    calls: Option<&'a mut Vec<LockCall>>,
    /// The components serving the task's requests, if the system has any.
    asm: Option<&'a Arc<Assembly>>,
    /// Sections the task's own code holds now.
    holding: u32,
}

impl Job<'_> {
    /// Runs `body`, whose first segment has preorder number `pre` in the
    /// task's lowered body; `reqs` are the requests made in it, in order.
    fn body(&mut self, body: &[Segment], pre: usize, reqs: &[Request]) -> Result<(), RtError> {
        let mut walk = Walk::new(body, pre, reqs, self.asm);
        while let Some(step) = walk.next() {
            match step {
                Step::Call(r, segs) => {
                    let asm = self.asm.expect("requests are walked only with an assembly");
                    let outer = Enclosing {
                        holds: self.holding > 0,
                        ..Enclosing::default()
                    };
                    // The threads acting for the task waited for it.
                    self.blocked += serve(asm, self.b.deputy(), outer, r, segs, self.limit)?;
                }
                Step::Segment(s, pre, inner) => match s {
                    Segment::Compute(t) => compute(Duration::from_nanos(t.ns()), self.limit),
                    Segment::Suspend(t) => std::thread::sleep(Duration::from_nanos(t.ns())),
                    Segment::Lock {
                        resource,
                        units,
                        body,
                    } => {
                        let timed = self.calls.is_some();
                        if timed {
                            sys::take_own_moves();
                        }
                        let t0 = Instant::now();
                        self.b.lock(*resource, *units)?;
                        let lock = t0.elapsed();
                        let lock_move = sys::take_own_moves();
                        self.blocked += lock;
                        self.holding += 1;
                        let r = self.body(body, pre + 1, inner);
                        self.holding -= 1;
                        if timed {
                            sys::take_own_moves();
                        }
                        let t1 = timed.then(Instant::now);
                        self.b.unlock(*resource)?;
                        if let (Some(calls), Some(t1)) = (self.calls.as_deref_mut(), t1) {
                            let unlock = t1.elapsed();
                            calls.push(LockCall {
                                resource: *resource,
                                lock,
                                unlock,
                                lock_move,
                                unlock_move: sys::take_own_moves(),
                            });
                        }
                        r?;
                    }
                },
            }
        }
        Ok(())
    }
}

/// The exclusive interfaces whose sections enclose a method, as the
/// lowering has the requesting job hold them: their resources, outermost
/// first, and how many of them a component thread acting for the task
/// further out holds in the lock domain already; and whether the task
/// holds a resource in the lock domain there (in its own code, or a
/// plain section a thread acting for it further out holds), through
/// which it may inherit while the method runs.
#[derive(Clone, Default)]
struct Enclosing {
    held: Vec<usize>,
    taken: usize,
    holds: bool,
}

impl Enclosing {
    /// What a request made from inside these sections sees: with
    /// `acting`, every interface here is held in the domain, and so is a
    /// plain resource.
    fn inner(&self, acting: bool) -> Enclosing {
        Enclosing {
            held: self.held.clone(),
            taken: if acting { self.held.len() } else { self.taken },
            holds: self.holds || acting,
        }
    }
}

/// Runs `f` in the sections of the interfaces `take` for the task, taken
/// in the lock domain by the thread acting for it (`a`), outermost first,
/// and released after, innermost first.
fn inside<T>(
    a: &Acting<'_>,
    take: &[usize],
    f: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    for (k, &res) in take.iter().enumerate() {
        if let Err(e) = a.lock(res, 1) {
            for &back in take[..k].iter().rev() {
                let _ = a.unlock(back);
            }
            return Err(e.to_string());
        }
    }
    let out = f();
    let released = (take.iter().rev())
        .try_for_each(|&res| a.unlock(res))
        .map_err(|e| e.to_string());
    // The method's own failure first, as it says more.
    let v = out?;
    released.map(|()| v)
}

/// Requests `r` from the calling thread (a task's, or a component
/// thread's for a nested request, inside the interfaces of `outer`): the
/// method's segments run on one of the interface's threads, which acts
/// for the task (`deputy`) while it holds a plain resource. Answers how
/// long the threads acting for the task waited for locks inside it
/// (nested requests included): the task's blocking, though its own
/// thread only waited for the reply.
fn serve(
    asm: &Arc<Assembly>,
    deputy: Deputy,
    mut outer: Enclosing,
    r: &Request,
    segs: &[Segment],
    limit: Instant,
) -> Result<Duration, RtError> {
    let (segs, pre, inner) = method_body(asm, r, segs);
    let (segs, inner) = (segs.to_vec(), inner.to_vec());
    let f = &asm.components().interfaces[r.interface];
    if let Some(res) = f.resource.filter(|_| f.kind.exclusive()) {
        outer.held.push(res);
    }
    // A fixed interface's thread acts for the task through the whole
    // method where the task may inherit meanwhile: nothing else carries
    // its priority there (scenario `comp-fixed-inherits`). So does the
    // thread of an interface that is a resource of the lock domain, which
    // it takes there for the task (the last of `outer`'s).
    let whole = (outer.holds && asm.single(r.interface)) || asm.waits_in_domain(r.interface);
    let on = asm.clone();
    let out = asm.call(r.interface, move || -> Result<Duration, String> {
        if !whole {
            return method(&on, &deputy, None, &outer, &segs, pre, &inner, limit);
        }
        deputy
            .act(|a| {
                inside(a, &outer.held[outer.taken..], || {
                    let all = outer.inner(true);
                    method(&on, &deputy, Some(a), &all, &segs, pre, &inner, limit)
                })
            })
            .map_err(|e| e.to_string())?
    });
    let failed = |e: String| {
        // Named only when it failed: a request's path makes no string.
        RtError::Component(format!("request {}: {e}", asm.components().label(r)))
    };
    match out {
        Ok(Ok(waited)) => Ok(waited),
        Ok(Err(e)) => Err(failed(e)),
        Err(e) => Err(failed(e.to_string())),
    }
}

/// Runs a method's segments (the first with preorder number `pre`,
/// `inner` the requests in them) on the component thread serving the
/// request, inside the interfaces of `outer`. A plain resource is the
/// requesting task's to lock: the outermost one makes this thread act for
/// the task (`acting` inside it), as the lowering has the job itself lock
/// it, and the thread first takes the enclosing interfaces in the lock
/// domain for the task (those no thread acting further out holds), so
/// that the task's priority there is the one the lowering gives it: a
/// fixed interface's, which a plain resource's holder then inherits
/// (scenario `comp-plain-fixed-wait`). Nobody else asks the domain for
/// an interface (its requests queue at the interface's threads), so
/// taking one never waits.
#[allow(clippy::too_many_arguments)]
fn method(
    on: &Arc<Assembly>,
    deputy: &Deputy,
    acting: Option<&Acting<'_>>,
    outer: &Enclosing,
    segs: &[Segment],
    pre: usize,
    inner: &[Request],
    limit: Instant,
) -> Result<Duration, String> {
    let mut walk = Walk::new(segs, pre, inner, Some(on));
    let mut waited = Duration::ZERO;
    while let Some(step) = walk.next() {
        match step {
            Step::Call(r, segs) => {
                let outer = outer.inner(acting.is_some());
                waited +=
                    serve(on, deputy.clone(), outer, r, segs, limit).map_err(|e| e.to_string())?;
            }
            Step::Segment(Segment::Compute(t), ..) => compute(Duration::from_nanos(t.ns()), limit),
            Step::Segment(Segment::Suspend(t), ..) => {
                std::thread::sleep(Duration::from_nanos(t.ns()))
            }
            Step::Segment(
                Segment::Lock {
                    resource,
                    units,
                    body,
                },
                pre,
                inner,
            ) => {
                let section = |a: &Acting<'_>| -> Result<Duration, String> {
                    let t0 = Instant::now();
                    a.lock(*resource, *units).map_err(|e| e.to_string())?;
                    let lock = t0.elapsed();
                    let out = method(on, deputy, Some(a), outer, body, pre + 1, inner, limit);
                    let released = a.unlock(*resource).map_err(|e| e.to_string());
                    let inside = out?;
                    released.map(|()| lock + inside)
                };
                waited += match acting {
                    Some(a) => section(a)?,
                    None => deputy
                        .act(|a| inside(a, &outer.held[outer.taken..], || section(a)))
                        .map_err(|e| e.to_string())??,
                };
            }
        }
    }
    Ok(waited)
}

/// The method's own segments inside request `r`'s lowered ones, their
/// first preorder number and the requests nested in them: an exclusive
/// interface's section is the interface itself (its threads take it), so
/// its body is the method; a propagated method is its segments in place.
fn method_body<'a>(
    asm: &Assembly,
    r: &'a Request,
    segs: &'a [Segment],
) -> (&'a [Segment], usize, &'a [Request]) {
    let exclusive = asm.components().interfaces[r.interface].kind.exclusive();
    match segs {
        [Segment::Lock { body, .. }] if exclusive => (body, r.segments.start + 1, &r.inner),
        _ => (segs, r.segments.start, &r.inner),
    }
}

/// One step of a body: a request (with its lowered segments), or a
/// segment outside every request (with its preorder number and the
/// requests inside it).
enum Step<'a> {
    Call(&'a Request, &'a [Segment]),
    Segment(&'a Segment, usize, &'a [Request]),
}

/// Walks a lowered body, finding the requests in it by their preorder
/// ranges (`Request::segments`).
struct Walk<'a> {
    body: &'a [Segment],
    i: usize,
    pre: usize,
    reqs: &'a [Request],
    next: usize,
    components: bool,
}

impl<'a> Walk<'a> {
    fn new(
        body: &'a [Segment],
        pre: usize,
        reqs: &'a [Request],
        asm: Option<&Arc<Assembly>>,
    ) -> Self {
        Walk {
            body,
            i: 0,
            pre,
            reqs,
            next: 0,
            components: asm.is_some(),
        }
    }

    fn next(&mut self) -> Option<Step<'a>> {
        if self.components
            && let Some(r) = self.reqs.get(self.next)
            && r.segments.start == self.pre
        {
            // The request's segments: as many as its range covers.
            let mut j = self.i;
            let mut end = self.pre;
            while end < r.segments.end {
                end += preorder_size(&self.body[j]);
                j += 1;
            }
            let segs = &self.body[self.i..j];
            self.i = j;
            self.pre = end;
            self.next += 1;
            return Some(Step::Call(r, segs));
        }
        let s = self.body.get(self.i)?;
        let pre = self.pre;
        // The requests inside a section are its own to walk.
        let size = preorder_size(s);
        let first = self.next;
        while self.components
            && self
                .reqs
                .get(self.next)
                .is_some_and(|r| r.segments.start < pre + size)
        {
            self.next += 1;
        }
        self.i += 1;
        self.pre += size;
        Some(Step::Segment(s, pre, &self.reqs[first..self.next]))
    }
}

/// Segments in `s`'s preorder: itself and everything nested in it.
fn preorder_size(s: &Segment) -> usize {
    match s {
        Segment::Lock { body, .. } => 1 + body.iter().map(preorder_size).sum::<usize>(),
        _ => 1,
    }
}

/// Stack each task thread touches before its first job when memory is
/// locked: a job's body recurses once per nested section, a few hundred
/// bytes a level, so 256 KiB is far more than any spec needs.
const STACK_PREFAULT: usize = 256 * 1024;

/// Runs `sys` (validated, partitioned, fixed priorities).
pub fn run(sys: &System, opts: &RunOptions) -> Result<RunResult, RtError> {
    if opts.lock_memory {
        crate::sys::lock_memory().map_err(|e| RtError::Os {
            what: "locking memory (mlockall)".into(),
            error: e,
        })?;
    }
    let domain = Domain::new(sys, opts.domain.clone())?;
    // Components serve the requests on threads of their own; the log's
    // times begin where the domain's do.
    let asm = match &sys.components {
        Some(_) => Some(Arc::new(Assembly::new(
            sys,
            &AssemblyOptions {
                realtime: opts.domain.realtime,
                cpu_map: opts.domain.cpu_map.clone(),
                wait_limit: opts.domain.wait_limit,
                log: opts.domain.record || opts.domain.trace,
                start: Some(domain.made()),
            },
        )?)),
        None => None,
    };
    let n = sys.tasks.len();
    // The task threads agree on the start among themselves: the last to
    // be bound (already at its real-time priority, so no background load
    // delays it) sets it, a little ahead so that every first release is
    // still in the future when the others wake.
    let ready = Arc::new(Barrier::new(n));
    let start_slot = Arc::new(std::sync::OnceLock::<Instant>::new());
    let go = Arc::new(Barrier::new(n));
    let mut handles = Vec::new();
    for (t, task) in sys.tasks.iter().enumerate() {
        let (d, ready, go, start_slot, asm) = (
            domain.clone(),
            ready.clone(),
            go.clone(),
            start_slot.clone(),
            asm.clone(),
        );
        let requests: Vec<Request> = (sys.components.as_ref())
            .map(|c| c.requests[t].clone())
            .unwrap_or_default();
        let task = task.clone();
        let offset = opts
            .offsets
            .get(t)
            .copied()
            .unwrap_or(Duration::from_nanos(task.offset.ns()));
        let (duration, max_jobs) = (opts.duration, opts.max_jobs.unwrap_or(u64::MAX));
        let (lock_memory, time_calls) = (opts.lock_memory, opts.time_calls);
        handles.push(std::thread::spawn(move || {
            if lock_memory {
                crate::sys::prefault_stack(STACK_PREFAULT);
            }
            sys::time_own_moves(time_calls);
            let bound = d.bind(&task.name);
            if let Some(a) = &asm {
                a.enter(t);
            }
            if ready.wait().is_leader() {
                let _ = start_slot.set(Instant::now() + Duration::from_millis(20));
            }
            go.wait();
            let b = bound?;
            let start = *start_slot.get().expect("start set before go");
            let end = start + duration;
            let limit = end + duration;
            let period = Duration::from_nanos(task.period.ns());
            let deadline = Duration::from_nanos(task.deadline.ns());
            let mut run = TaskRun {
                name: task.name.clone(),
                ..TaskRun::default()
            };
            let mut first = None;
            let mut sum = Duration::ZERO;
            let mut release = start + offset;
            let mut calls = Vec::new();
            while release < end && run.jobs < max_jobs {
                sleep_until(release);
                let mut job = Job {
                    b: &b,
                    limit,
                    blocked: Duration::ZERO,
                    calls: time_calls.then_some(&mut calls),
                    asm: asm.as_ref(),
                    holding: 0,
                };
                let t0 = Instant::now();
                b.job_begin()?;
                job.blocked += t0.elapsed();
                job.body(&task.body, 0, &requests)?;
                b.job_end()?;
                let done = Instant::now();
                let response = done - release;
                if first.is_none() {
                    first = Some(done - start);
                }
                run.jobs += 1;
                sum += response;
                run.max_response = Some(run.max_response.map_or(response, |m| m.max(response)));
                run.max_blocking = run.max_blocking.max(job.blocked);
                if response > deadline {
                    run.misses += 1;
                }
                release += period;
            }
            // Off the real-time level before anything else: unbinding and
            // the thread's exit (its stack unmapped and unlocked) took
            // about 1.7 ms at the task's priority, and delayed a lower task
            // whose last job was still running (found by `rtsync demo`: a
            // 500 ms run measured 5.67 ms where 520 ms measured 4.0 ms).
            // (Lowering one's own policy needs no privilege.)
            let _ = crate::sys::set_priority(crate::sys::gettid(), None);
            if run.jobs > 0 {
                run.mean_response = Some(sum / run.jobs as u32);
            }
            run.calls = calls;
            drop(b);
            Ok::<_, RtError>((run, first))
        }));
    }
    let mut tasks = Vec::new();
    let mut firsts = Vec::new();
    let mut err = None;
    for h in handles {
        match h.join() {
            Ok(Ok((run, first))) => {
                if let Some(f) = first {
                    firsts.push((run.name.clone(), f));
                }
                tasks.push(run);
            }
            Ok(Err(e)) => err = err.or(Some(e)),
            Err(_) => {
                err = err.or(Some(RtError::Os {
                    what: "a task thread panicked".into(),
                    error: std::io::Error::other("panic"),
                }))
            }
        }
    }
    if let Some(e) = err {
        return Err(e);
    }
    firsts.sort_by_key(|&(_, f)| f);
    let mut log = domain.timed_log();
    let (mut served, mut pool_overflows, mut component_threads) = (Vec::new(), 0, Vec::new());
    if let Some(a) = &asm {
        // An exclusive interface's grants are its threads': merged in
        // time order, in place of the domain's own (where a component
        // thread acting for a task takes the interface there too, around
        // a plain section, never waiting: `method`), but for an interface
        // that is a resource of the domain, whose grants are the
        // domain's.
        let interfaces = &a.components().interfaces;
        log.retain(|(_, e)| match e {
            Record::Granted { resource, .. } | Record::Released { resource, .. } => {
                !(interfaces.iter().enumerate())
                    .any(|(i, f)| &f.name == resource && !a.waits_in_domain(i))
            }
            _ => true,
        });
        for (at, e) in a.events() {
            if let crate::component::Event::Grant {
                task, interface, ..
            } = e
            {
                log.push((
                    at,
                    Record::Granted {
                        task: task.to_string(),
                        resource: a.components().interfaces[interface].name.clone(),
                    },
                ));
            }
        }
        log.sort_by_key(|e| e.0);
        served = a.served();
        pool_overflows = (0..interfaces.len()).map(|i| a.overflows(i)).sum();
        component_threads = (interfaces.iter().enumerate())
            .map(|(i, f)| (f.name.clone(), a.threads(i)))
            .collect();
    }
    Ok(RunResult {
        tasks,
        log,
        served,
        pool_overflows,
        component_threads,
        first_completions: firsts,
        kernel_pi: domain.kernel_pi(),
        fast_grants: (0..sys.tasks.len()).map(|t| domain.fast_grants(t)).sum(),
    })
}
