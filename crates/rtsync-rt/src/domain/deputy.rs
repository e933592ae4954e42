//! A task's place in the domain, lent to the thread that serves its
//! request (paper 001's components).
//!
//! A method's body is part of the requesting job: the lowering puts it in
//! the job's body, so a plain resource the method locks is locked *by the
//! job*, with the job's priority, waits and inheritance. On real threads
//! the method runs on a component thread while the requester's own thread
//! waits for the reply. The component thread therefore acts for the task
//! while it holds such a resource: for that stretch the domain's thread of
//! the task is the component thread (its priorities and inheritance are
//! carried out on it, the kernel's PI futexes record it as owner), and
//! then the task's place goes back to the thread that lent it (the
//! requester's own, or the component thread of an enclosing request).
//!
//! Only one thread acts for a task at a time: the lender waits for the
//! reply of the request that borrowed its place, and requests nest, so the
//! borrowings form a stack along the chain of requests. The hand-over of
//! a request and of its reply orders everything each of them did with the
//! task's slot.
//!
//! **The thread's own floor.** A component thread has a priority of its
//! own (a fixed interface's thread runs at the interface's ceiling or
//! given priority), which the task's decisions must not take it below: the
//! lowering holds the interface's section around the method, so the task
//! stays at least there while the method holds a plain resource. Every
//! priority carried out on the acting thread is the higher of the task's
//! decision and that floor ([`Slot::floor`]); the thread gets its own
//! priority back when it gives the place back.
//!
//! Where the thread serves a request ([`answering`]), it gives itself its
//! own priority back only after its reply: it answers at the task's
//! priority, as the requesting job would. A fixed interface's thread
//! also acts for the task through a whole method where the task may
//! inherit meanwhile (the runner decides: it holds a resource), since its
//! requesters wait on a plain futex that carries no priority.
//!
//! Not lent: a protocol that moves the holder's thread (DPCP's and DFLP's
//! migrations, MrsP's helping) would move the component thread away from
//! the CPU its interface is pinned to; such resources inside a method are
//! refused when the assembly is made (`component::plain_locks`).

use super::*;

/// No task: [`Shared::apply`] then carries out every decision at once,
/// the task's included (it is not the calling thread's own).
const NOBODY: Tid = Tid::MAX;

/// The right to act for task `t` of a domain, from another thread: made
/// by the task's thread ([`Binding::deputy`]), carried with its request,
/// used by the thread that serves it ([`Deputy::act`]).
#[derive(Clone)]
pub struct Deputy {
    sh: Arc<Shared>,
    t: Tid,
}

impl std::fmt::Debug for Deputy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deputy")
            .field("task", &self.sh.tasks[self.t])
            .finish()
    }
}

/// Who holds a task's place: its thread (as the domain and the kernel's
/// PI futexes know it) and that thread's floor.
struct Place {
    tid: Option<i32>,
    kernel_tid: i32,
    floor: i32,
}

impl Binding {
    /// The right to act for this task from the thread that will serve one
    /// of its requests.
    pub fn deputy(&self) -> Deputy {
        Deputy {
            sh: self.sh.clone(),
            t: self.t,
        }
    }
}

impl Deputy {
    /// The task this deputy acts for.
    pub fn task(&self) -> Tid {
        self.t
    }

    /// Runs `f` with the calling thread acting for the task: `lock` and
    /// `unlock` inside it are the task's, carried out on this thread. The
    /// thread that lent the place must be waiting meanwhile (for this
    /// thread's reply), and `f` must release whatever it locks.
    pub fn act<R>(&self, f: impl FnOnce(&Acting<'_>) -> R) -> Result<R, RtError> {
        let own = if self.sh.opts.realtime {
            sys::priority(0).map_err(|error| RtError::Os {
                what: "reading a component thread's own priority".into(),
                error,
            })?
        } else {
            None
        };
        let mine = Place {
            tid: Some(sys::gettid()),
            kernel_tid: sys::gettid(),
            floor: own.unwrap_or(0),
        };
        let lender = self.swap(mine, false)?;
        BOUND.with(|b| b.borrow_mut().push((self.sh.id, self.t)));
        let out = f(&Acting { d: self });
        BOUND.with(|b| {
            let mut b = b.borrow_mut();
            if let Some(k) = b.iter().rposition(|&(d, t)| d == self.sh.id && t == self.t) {
                b.remove(k);
            }
        });
        let back = self.swap(lender, true).map(drop);
        // The thread stays at the task's priority until its reply where a
        // component thread serves (`answering`): a fixed interface's thread
        // dropping to its own priority first could be preempted before
        // the reply by a job below the task (found with scenario
        // `comp-fixed-inherits`: X ran before the request's reply reached
        // the task inheriting from u).
        let restored = if !self.sh.opts.realtime {
            Ok(())
        } else if OWED.with(|o| o.get()) == Owed::Nothing {
            OWED.with(|o| o.set(Owed::Own(own)));
            Ok(())
        } else {
            set_own(own)
        };
        back.and(restored)?;
        Ok(out)
    }

    /// Points the task's slot at `to`'s thread and floor, and carries out
    /// the task's priority on that thread; returns what it pointed at.
    /// Taking the place (`back` false), the calling thread is `to`'s: it
    /// holds the bookkeeping lock as the task, and a decision for the task
    /// is carried out on it as it lets the lock go. Giving it back, `to` is
    /// the lender's: from the swap on, the calling thread is no longer the
    /// task's, so it is not lowered as the task, and the decision is
    /// carried out on the lender at once.
    fn swap(&self, to: Place, back: bool) -> Result<Place, RtError> {
        let (sh, t) = (&*self.sh, self.t);
        let slot = &sh.slots[t];
        let cpus = sh.cpus(t, None);
        // At the bookkeeping level as the task (the lender waits, outside
        // the lock).
        let mut st = sh.books(t)?;
        // A section the lender holds on the fast path enters the machine,
        // so that the task's priority is decided with it.
        sh.settle(&mut st, cpus);
        let was = Place {
            tid: std::mem::replace(&mut st.tid[t], to.tid),
            kernel_tid: sh.kernel.as_ref().map_or(0, |k| k.tid(t)),
            floor: slot.with_prio_lock(|| {
                if back {
                    slot.in_books.store(false, Ordering::Relaxed);
                }
                slot.floor.swap(to.floor, Ordering::Relaxed)
            }),
        };
        if let Some(k) = &sh.kernel {
            // The lender stays findable throughout, for a deadlock's
            // walk: listed before its task is bound to the other thread,
            // unlisted only after the task is bound back to it.
            if back {
                k.bound(t, to.kernel_tid);
                k.returned(t, to.kernel_tid);
            } else {
                k.lent(t, was.kernel_tid);
                k.bound(t, to.kernel_tid);
            }
        }
        if back {
            st.not_raised();
        }
        // Decisions still on their way to the other thread are stale.
        slot.epoch.next();
        st.prio[t] = None;
        st.mark(t);
        let out = sh.apply(&mut st, if back { NOBODY } else { t }, Phase::Raise);
        sh.reopen(&st, cpus);
        let done = sh.unlock(st);
        out.and(done)?;
        Ok(was)
    }
}

/// What a component thread owes itself after its reply ([`answering`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owed {
    /// Not answering a request: an act gives the thread its priority back
    /// at once.
    Outside,
    /// Answering, no act yet.
    Nothing,
    /// Answering: its own priority, after the reply.
    Own(Option<i32>),
}

thread_local! {
    static OWED: std::cell::Cell<Owed> = const { std::cell::Cell::new(Owed::Outside) };
}

fn set_own(own: Option<i32>) -> Result<(), RtError> {
    sys::set_priority(0, own).map_err(|error| RtError::Os {
        what: "giving a component thread its own priority back".into(),
        error,
    })
}

/// Runs `answer`, a component thread's serving of a request and its
/// reply, in which the thread may act for tasks, and only then gives the
/// thread its own priority back if an act took it: the thread replies at
/// the priority of the task it acted for, as the requester's job would.
pub(crate) fn answering<R>(answer: impl FnOnce() -> R) -> R {
    let outer = OWED.with(|o| o.replace(Owed::Nothing));
    let out = answer();
    if let Owed::Own(own) = OWED.with(|o| o.replace(outer)) {
        let _ = set_own(own);
    }
    out
}

/// The calling thread acting for a task ([`Deputy::act`]).
pub struct Acting<'a> {
    d: &'a Deputy,
}

impl Acting<'_> {
    /// Requests `units` of resource `r` for the task and waits for them
    /// ([`Binding::lock`]).
    pub fn lock(&self, r: usize, units: u32) -> Result<bool, RtError> {
        self.d.sh.acquire(self.d.t, r, units)
    }

    /// Releases resource `r`, the task's innermost section
    /// ([`Binding::unlock`]).
    pub fn unlock(&self, r: usize) -> Result<(), RtError> {
        self.d.sh.release(self.d.t, r, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `r` (IPCP) is `a`'s and `b`'s: its ceiling is `b`'s priority; `c`
    /// lies between.
    const SPEC: &str = r#"
name = "deputy"
[platform]
cpus = 1
[[resource]]
name = "r"
protocol = "ipcp"
[[task]]
name = "b"
period = "100ms"
priority = 3
body = [ { lock = "r", hold = "1ms" } ]
[[task]]
name = "c"
period = "100ms"
priority = 2
wcet = "1ms"
[[task]]
name = "a"
period = "100ms"
priority = 1
body = [ { lock = "r", hold = "1ms" } ]
"#;

    fn own() -> Option<i32> {
        sys::priority(0).expect("sched_getscheduler")
    }

    /// A thread of its own priority (`c`'s level, a fixed interface's
    /// thread) acting for `a`: inside `r` it runs at the ceiling, after it
    /// at its own priority rather than `a`'s base, and once it gives the
    /// place back it has its own priority and `a`'s thread `a`'s, on the
    /// fast path and through the machine with the log on.
    #[test]
    fn a_deputy_runs_at_the_task_s_priority_never_below_its_own_and_gives_both_back() {
        if let Err(why) = sys::probe_realtime() {
            eprintln!("skipped a_deputy_runs_at_the_task_s_priority: {why}");
            return;
        }
        let cpu = *sys::allowed_cpus().last().expect("a CPU");
        let (system, _) = rtsync_model::load_str(SPEC, None).expect("the spec loads");
        for record in [false, true] {
            let d = Domain::new(
                &system,
                Options {
                    cpu_map: Some(vec![cpu]),
                    record,
                    wait_limit: Duration::from_secs(5),
                    ..Options::default()
                },
            )
            .expect("a real-time domain");
            let level = |name: &str| d.fifo_priority(d.eff(d.task(name).unwrap()));
            let (la, lc, lb) = (level("a"), level("c"), level("b"));
            assert!(la < lc && lc < lb);
            let r = d.resource("r").unwrap();
            std::thread::scope(|s| {
                s.spawn(|| {
                    let a = d.bind("a").unwrap();
                    assert_eq!(own(), Some(la));
                    let deputy = a.deputy();
                    s.spawn(move || {
                        sys::set_priority(0, Some(lc)).unwrap();
                        deputy
                            .act(|x| {
                                x.lock(r, 1).unwrap();
                                assert_eq!(own(), Some(lb), "inside r (record {record})");
                                x.unlock(r).unwrap();
                                assert_eq!(own(), Some(lc), "after r (record {record})");
                            })
                            .unwrap();
                        assert_eq!(own(), Some(lc), "given back (record {record})");
                        sys::set_priority(0, None).unwrap();
                    })
                    .join()
                    .unwrap();
                    assert_eq!(own(), Some(la), "the task's own thread (record {record})");
                    // The place is the task's thread's again.
                    a.lock(r, 1).unwrap();
                    assert_eq!(own(), Some(lb));
                    a.unlock(r).unwrap();
                    assert_eq!(own(), Some(la));
                });
            });
            if record {
                let grants = d
                    .log()
                    .iter()
                    .filter(|e| matches!(e, Record::Granted { .. }))
                    .count();
                assert_eq!(grants, 2, "the deputy's grant and the thread's own");
            }
        }
    }
}
