//! The bookkeeping lock as a task's thread holds it: above every task's
//! priority where the domain spans more than one CPU.
//!
//! The machine's state sits behind one lock that the slow operations of
//! every CPU take. Priority inheritance bounds the wait for it on one CPU
//! (a waiter lends its priority, the holder runs next), but not across
//! CPUs: a holder preempted on CPU 0 by the jobs of CPU 0 above it keeps
//! a waiter of CPU 1 waiting through CPU 0's busy period, whatever the
//! waiter lends (the holder still cannot preempt equal or higher jobs of
//! CPU 0). That is the remote blocking the multiprocessor protocols exist
//! to bound, and they bound it the same way: MPCP (Rajkumar 1990) and
//! the FMLP (Block et al. 2007) boost a holder of a global resource above
//! every normal priority. The bookkeeping lock is such a resource, so a
//! task's thread takes it at [`PrioMap::books`], above every level a task
//! runs at: a holder runs until it lets the lock go, and a waiter waits
//! at most for the other CPUs' bookkeeping sections, a few microseconds
//! each (an overhead, in `rtsync bench locks`' figures).
//!
//! Found by `rtsync run` on the bundled example folded onto two CPUs:
//! under DPCP the lowest task of CPU 1 responded in 33 ms against an
//! 18.35 ms bound (the simulator, 16.8 ms), waiting at its job's start for
//! the lock held by a low task of CPU 0 that CPU 0's higher jobs had
//! preempted. Raised, it responds within its bound.
//!
//! A thread lowers itself when it lets the lock go, to the priority the
//! runtime last decided for it ([`Slot::applied`]): a decision made for
//! it meanwhile, by itself or by another thread, is recorded there and
//! not applied, so that none lowers a holder or a thread about to hold.
//! On one CPU, and where priorities are not applied, inheritance is
//! enough and the lock is taken as it is.
//!
//! [`PrioMap::books`]: crate::prio::PrioMap::books

use super::*;
use std::io;
use std::ops::{Deref, DerefMut};

/// The bookkeeping lock held by a task's thread. Let go (the holder's own
/// decision carried out, the holder lowered from the bookkeeping level)
/// by [`Books::finish`], or on drop.
pub(super) struct Books<'a> {
    guard: Option<PiGuard<'a, State>>,
    sh: &'a Shared,
    /// The holder's task, where it holds the lock at the bookkeeping level.
    raised: Option<Tid>,
}

impl Shared {
    /// Takes the bookkeeping lock for task `me`, from `me`'s own thread.
    pub(super) fn books(&self, me: Tid) -> Result<Books<'_>, RtError> {
        let raised = self.raise_for_books(me)?;
        Ok(Books {
            guard: Some(self.state.lock()),
            sh: self,
            raised,
        })
    }

    /// Takes the bookkeeping lock for task `me` even where the raise
    /// fails (then at the thread's own priority): for a thread leaving the
    /// domain, which must release what it holds whatever else went wrong.
    pub(super) fn books_anyway(&self, me: Tid) -> Books<'_> {
        let raised = self.raise_for_books(me).unwrap_or(None);
        Books {
            guard: Some(self.state.lock()),
            sh: self,
            raised,
        }
    }

    /// Runs `f` on the machine's state under the bookkeeping lock, for a
    /// query from any thread ([`Domain::eff`], [`Domain::log`], ...).
    /// Where the domain spans CPUs the caller holds the lock at the
    /// bookkeeping level, as a task's thread does (module documentation):
    /// a monitoring thread preempted on its CPU while holding it would
    /// otherwise keep the tasks of the other CPUs waiting through that
    /// CPU's busy period, whatever they lend it. A thread bound to a task
    /// here takes the lock as that task ([`Shared::books_anyway`]); a
    /// thread bound to no task of any domain is raised and gets its own
    /// policy and priority back after; one bound elsewhere, whose
    /// priority another domain decides, and one the kernel refuses the
    /// raise, take it as they are.
    ///
    /// [`Domain::eff`]: super::Domain::eff
    /// [`Domain::log`]: super::Domain::log
    pub(super) fn observe<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        if let Some(me) = bound_task(self.id) {
            let mut st = self.books_anyway(me);
            let out = f(&st);
            let _ = st.finish();
            return out;
        }
        let before = self
            .books_level
            .filter(|_| !bound_anywhere())
            .and_then(|level| {
                let before = sys::priority(0).ok()?;
                sys::set_priority(0, Some(level)).ok()?;
                Some(before)
            });
        let out = f(&self.state.lock());
        if let Some(before) = before {
            let _ = sys::set_priority(0, before);
        }
        out
    }

    /// Raises the calling thread, `me`'s, to the bookkeeping level where
    /// the domain has one; returns whether it did (a failed raise leaves
    /// the thread as it was, decisions for it applied again).
    fn raise_for_books(&self, me: Tid) -> Result<Option<Tid>, RtError> {
        let Some(level) = self.books_level else {
            return Ok(None);
        };
        let slot = &self.slots[me];
        slot.with_prio_lock(|| {
            slot.in_books.store(true, Ordering::Relaxed);
            let out = sys::set_priority(0, Some(level));
            if out.is_err() {
                slot.in_books.store(false, Ordering::Relaxed);
            }
            out
        })
        .map_err(|error| RtError::Os {
            what: format!(
                "raising task `{}` to SCHED_FIFO priority {level} for the runtime's bookkeeping",
                self.tasks[me]
            ),
            error,
        })?;
        Ok(Some(me))
    }

    /// Lowers the calling thread, `me`'s, from the bookkeeping level to
    /// the priority last decided for it.
    fn lower_from_books(&self, me: Tid) -> Result<(), RtError> {
        let slot = &self.slots[me];
        slot.with_prio_lock(|| {
            slot.in_books.store(false, Ordering::Relaxed);
            sys::set_priority(0, slot.floored(slot.applied.load(Ordering::Relaxed)))
        })
        .map_err(|error| RtError::Os {
            what: format!(
                "lowering task `{}` from the runtime's bookkeeping level",
                self.tasks[me]
            ),
            error,
        })
    }

    /// Sets the priority of `tid`, the thread of `slot` (`None`:
    /// SCHED_OTHER), with `slot.prio_lock` held: recorded as its applied
    /// priority, and carried out now unless the thread is at the
    /// bookkeeping level (it lowers itself to it when it lets the lock go).
    pub(super) fn set_applied(&self, slot: &Slot, tid: i32, prio: Option<i32>) -> io::Result<()> {
        slot.applied.store(prio.unwrap_or(0), Ordering::Relaxed);
        if slot.in_books.load(Ordering::Relaxed) {
            return Ok(());
        }
        sys::set_priority(tid, slot.floored(prio.unwrap_or(0)))
    }

    /// Lets the bookkeeping lock go, then carries out the caller's own
    /// decision that waited for it and lowers the caller from the
    /// bookkeeping level.
    pub(super) fn unlock(&self, mut st: Books<'_>) -> Result<(), RtError> {
        st.finish()
    }

    /// Runs `f` with the bookkeeping lock let go (a wait: at the priority
    /// decided for the caller, not the bookkeeping level), the caller's
    /// own decision carried out first; takes the lock again after.
    pub(super) fn unlocked<R>(
        &self,
        st: &mut Books<'_>,
        f: impl FnOnce() -> R,
    ) -> Result<R, RtError> {
        let raised = st.raised;
        let guard = st.guard.as_mut().expect("the bookkeeping lock is held");
        let own = guard.own.take();
        let spare = guard.log_wants_spare();
        guard.unlocked(|| {
            // Before a wait that may be long, as at `finish`.
            if let Some(chunk) = spare {
                self.refill_log(chunk);
            }
            own.map_or(Ok(()), |d| self.carry_out(d))?;
            if let Some(me) = raised {
                self.lower_from_books(me)?;
            }
            let out = f();
            if let Some(me) = raised {
                self.raise_for_books(me)?;
            }
            Ok(out)
        })
    }
}

impl Slot {
    /// The priority to set the thread to for decision `p` (0: SCHED_OTHER):
    /// not below its floor ([`Slot::floor`]).
    fn floored(&self, p: i32) -> Option<i32> {
        let p = p.max(self.floor.load(Ordering::Relaxed));
        (p > 0).then_some(p)
    }

    /// Runs `f` with the thread's own lock held (the lock that orders the
    /// system calls carrying out its decisions).
    pub(super) fn with_prio_lock<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Unlock<'a>(&'a RawMutex);
        impl Drop for Unlock<'_> {
            fn drop(&mut self) {
                // SAFETY: locked below by this thread, before `f` ran.
                unsafe { self.0.unlock() }
            }
        }
        self.prio_lock.lock();
        let _unlock = Unlock(&self.prio_lock);
        f()
    }
}

impl Books<'_> {
    /// The holder is no longer the task it took the lock as (a deputy
    /// giving the task's place back, `deputy`): it is not lowered as the
    /// task when it lets the lock go.
    pub(super) fn not_raised(&mut self) {
        self.raised = None;
    }

    /// Lets the lock go, carries out the holder's own decision, and
    /// lowers the holder from the bookkeeping level (in that order: the
    /// holder's own move is made at the bookkeeping level, so that it
    /// never waits on the way).
    pub(super) fn finish(&mut self) -> Result<(), RtError> {
        let Some(mut guard) = self.guard.take() else {
            return Ok(());
        };
        let own = guard.own.take();
        let spare = guard.log_wants_spare();
        drop(guard);
        if let Some(chunk) = spare {
            self.sh.refill_log(chunk);
        }
        let done = own.map_or(Ok(()), |d| self.sh.carry_out(d));
        let lowered = self
            .raised
            .take()
            .map_or(Ok(()), |me| self.sh.lower_from_books(me));
        done.and(lowered)
    }
}

impl Drop for Books<'_> {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl Deref for Books<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        self.guard.as_ref().expect("the bookkeeping lock is held")
    }
}

impl DerefMut for Books<'_> {
    fn deref_mut(&mut self) -> &mut State {
        self.guard.as_mut().expect("the bookkeeping lock is held")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// CPU 0 holds `a` (lowest) and `hog` (above it), CPU 1 `b`.
    const SPEC: &str = r#"
name = "books"
[platform]
cpus = 2
protocol = "mpcp"
[[resource]]
name = "r"
[[task]]
name = "a"
period = "100ms"
priority = 1
cpu = 0
body = [ { lock = "r", hold = "1ms" } ]
[[task]]
name = "hog"
period = "100ms"
priority = 3
cpu = 0
body = [ { compute = "40ms" } ]
[[task]]
name = "b"
period = "100ms"
priority = 2
cpu = 1
body = [ { lock = "r", hold = "1ms" } ]
"#;

    /// Two machine CPUs this process may use, where SCHED_FIFO is
    /// permitted; otherwise says why the test skips.
    fn two_cpus(test: &str) -> Option<[usize; 2]> {
        if let Err(why) = sys::probe_realtime() {
            eprintln!("skipped {test}: {why}");
            return None;
        }
        match sys::allowed_cpus()[..] {
            [.., x, y] => Some([x, y]),
            _ => {
                eprintln!("skipped {test}: it needs two CPUs");
                None
            }
        }
    }

    fn domain(cpus: [usize; 2]) -> Domain {
        let (sys, _) = rtsync_model::load_str(SPEC, None).expect("the spec loads");
        Domain::new(
            &sys,
            Options {
                cpu_map: Some(cpus.to_vec()),
                wait_limit: Duration::from_secs(5),
                ..Options::default()
            },
        )
        .expect("a real-time domain")
    }

    fn own_priority() -> Option<i32> {
        sys::priority(0).expect("sched_getscheduler")
    }

    /// Across two machine CPUs, a holder runs above every level a task
    /// runs at; a decision made for it meanwhile waits, and it comes down
    /// to that decision when it lets the lock go. On one machine CPU the
    /// lock is taken at the thread's own priority.
    #[test]
    fn a_holder_runs_above_every_task_and_comes_down_to_its_decided_priority() {
        let Some([x, y]) = two_cpus("a_holder_runs_above_every_task") else {
            return;
        };
        for (cpus, spans) in [([x, y], true), ([y, y], false)] {
            let d = domain(cpus);
            std::thread::scope(|s| {
                s.spawn(|| {
                    let b = d.bind("a").unwrap();
                    let sh = &d.sh;
                    let base = own_priority();
                    assert_eq!(base, Some(d.fifo_priority(d.eff(b.task()))));
                    let mut st = sh.books(b.task()).unwrap();
                    if !spans {
                        assert_eq!(own_priority(), base, "one machine CPU: no raise");
                        return;
                    }
                    let level = own_priority().unwrap();
                    assert_eq!(level, sh.map.books());
                    // Above the non-preemptive level, the highest a task
                    // runs at.
                    let np = d.fifo_priority(Eff {
                        tier: rtsync_protocols::Tier::NonPreemptive,
                        ..Eff::normal(0, 0)
                    });
                    assert!(level > np, "bookkeeping at {level}, non-preemptive at {np}");
                    // Another decision for this thread: recorded, not
                    // applied while it holds.
                    let slot = &sh.slots[b.task()];
                    slot.with_prio_lock(|| sh.set_applied(slot, sys::gettid(), Some(np)))
                        .unwrap();
                    assert_eq!(own_priority(), Some(level));
                    st.finish().unwrap();
                    assert_eq!(own_priority(), Some(np));
                });
            });
        }
    }

    /// A query holds the bookkeeping lock at the bookkeeping level where
    /// the domain spans CPUs, whoever asks: an unbound thread (a monitor)
    /// gets its own policy back after, a task's thread the priority
    /// decided for its task. On one machine CPU nobody is raised.
    #[test]
    fn a_query_holds_the_lock_at_the_bookkeeping_level() {
        let Some([x, y]) = two_cpus("a_query_holds_the_lock_at_the_bookkeeping_level") else {
            return;
        };
        for (cpus, spans) in [([x, y], true), ([y, y], false)] {
            let d = domain(cpus);
            let level = spans.then(|| d.sh.map.books());
            std::thread::scope(|s| {
                s.spawn(|| {
                    assert_eq!(own_priority(), None, "a fresh thread is SCHED_OTHER");
                    assert_eq!(d.sh.observe(|_| own_priority()), level, "unbound");
                    assert_eq!(own_priority(), None, "its own policy back");
                    // The public queries take the same path.
                    let _ = d.eff(0);
                    let _ = d.log();
                    assert_eq!(own_priority(), None);
                });
                s.spawn(|| {
                    let b = d.bind("b").unwrap();
                    let decided = own_priority();
                    assert_eq!(decided, Some(d.fifo_priority(d.eff(b.task()))));
                    let inside = d.sh.observe(|_| own_priority());
                    assert_eq!(inside, level.or(decided), "bound");
                    assert_eq!(own_priority(), decided, "back to its decided priority");
                });
            });
        }
    }

    /// A raise the kernel refuses (here a level outside SCHED_FIFO's
    /// range) is an error that names it, and leaves the thread out of the
    /// bookkeeping level: decisions for it are applied again. A thread
    /// leaving the domain takes the lock anyway, to release what it holds.
    #[test]
    fn a_refused_raise_is_an_error_and_leaves_the_thread_as_it_was() {
        let Some(cpus) = two_cpus("a_refused_raise_is_an_error") else {
            return;
        };
        let mut d = domain(cpus);
        Arc::get_mut(&mut d.sh).expect("not shared yet").books_level = Some(1000);
        std::thread::scope(|s| {
            s.spawn(|| {
                let Err(e) = d.bind("a") else {
                    panic!("the raise is refused");
                };
                assert!(e.to_string().contains("bookkeeping"), "{e}");
                let slot = &d.sh.slots[0];
                assert!(!slot.in_books.load(Ordering::Relaxed));
                let st = d.sh.books_anyway(0);
                assert!(st.raised.is_none());
                drop(st);
                assert!(!slot.in_books.load(Ordering::Relaxed));
            });
        });
    }

    /// The inversion the bookkeeping level removes: `a` holds the lock on
    /// CPU 0 when `hog`, above it there, is released for 40 ms; `b` on
    /// CPU 1 then starts a job, which takes the lock. Inheritance alone
    /// left `a` preempted (it inherits `b`'s priority, below `hog`'s), so
    /// `b` waited out `hog`'s 40 ms; at the bookkeeping level `hog` waits
    /// for `a`'s 3 ms in the lock instead.
    #[test]
    fn a_holder_preempted_on_its_cpu_no_longer_stalls_another_cpu() {
        let Some(cpus) = two_cpus("a_holder_preempted_on_its_cpu") else {
            return;
        };
        let d = domain(cpus);
        let (to_hog, hog_rx) = mpsc::channel::<()>();
        let (to_b, b_rx) = mpsc::channel::<()>();
        let (bound_tx, bound_rx) = mpsc::channel::<()>();
        let d = &d;
        let bound_b = bound_tx.clone();
        let waited = std::thread::scope(|s| {
            let hog = s.spawn(move || {
                let _b = d.bind("hog").unwrap();
                bound_tx.send(()).unwrap();
                hog_rx.recv().unwrap();
                let t0 = Instant::now();
                while t0.elapsed() < Duration::from_millis(40) {
                    std::hint::spin_loop();
                }
            });
            let b = s.spawn(move || {
                let b = d.bind("b").unwrap();
                bound_b.send(()).unwrap();
                b_rx.recv().unwrap();
                // Long enough for `hog` to have preempted `a`, were it
                // able to.
                std::thread::sleep(Duration::from_millis(2));
                let t0 = Instant::now();
                b.job_begin().unwrap();
                let waited = t0.elapsed();
                b.job_end().unwrap();
                waited
            });
            bound_rx.recv().unwrap();
            bound_rx.recv().unwrap();
            s.spawn(move || {
                let a = d.bind("a").unwrap();
                let st = d.sh.books(a.task()).unwrap();
                // `b` first: once `hog` runs, `a` would not get to it.
                to_b.send(()).unwrap();
                to_hog.send(()).unwrap();
                let t0 = Instant::now();
                while t0.elapsed() < Duration::from_millis(3) {
                    std::hint::spin_loop();
                }
                drop(st);
            });
            hog.join().unwrap();
            b.join().unwrap()
        });
        assert!(
            waited < Duration::from_millis(20),
            "b waited {waited:?} for the bookkeeping lock: its holder was preempted on another CPU"
        );
    }
}
