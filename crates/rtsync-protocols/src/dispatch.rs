//! Which thread runs on each CPU: the one placement decision that the
//! simulator's dispatcher and the Linux runtime's MrsP helping both make.
//!
//! On each CPU runs the runnable thread of highest effective priority
//! located there ([`Locks::location`]: its home CPU, or the synchronization
//! CPU of a DPCP or DFLP section); ties go to the lower thread index. Then
//! MrsP's helping (Burns and Wellings 2013, Section 4): where the chosen
//! thread is a spinner whose resource's holder can run but runs nowhere
//! (it is preempted on its own CPU), the holder runs on the spinner's CPU
//! in its place, so that a request waits for at most one section per other
//! CPU. One spinner's CPU is enough: a holder is lent to the first such
//! CPU in index order.
//!
//! Under SRP a job that has not started may start only when it has the
//! highest priority among the active jobs of its CPU *and* passes the
//! start test (Baker 1991, Sec. 4): while the highest such job is refused
//! by the system ceiling, no job below it starts either, and the jobs in
//! progress (the ceiling's holder among them) run. Under EDF that is not
//! the same as taking the best job that passes the test: a job with a
//! later deadline but a higher preemption level than the refused one
//! would pass it, and run ahead of the refused job's deadline.
//!
//! The kernels differ only in what they know is runnable (the simulator
//! from its thread states, the runtime from the jobs its threads marked),
//! so they pass that in; the decision itself is written here once.

use crate::machine::{Locks, Tid};

/// Where a thread stands for the placement decision, as its kernel
/// knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ready {
    /// It cannot run now (asleep on a lock, suspended, no job).
    No,
    /// It can run: a job in progress, ready or spinning.
    Runs,
    /// A job that has not started and passes SRP's start test
    /// ([`Locks::may_start`]; every job under the other protocols).
    Starts,
    /// A job that has not started and is refused by the start test.
    Refused,
}

/// What runs on one CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    /// The thread that runs there, if any.
    pub runs: Option<Tid>,
    /// The spinner whose CPU this is, when `runs` is a holder running in
    /// its place (MrsP helping).
    pub lent_by: Option<Tid>,
    /// SRP's gate there: the first job in priority order that the start
    /// test refused, below which no job started.
    pub gate: Option<Tid>,
}

impl Locks {
    /// Whether `a` goes before `b` on a CPU: higher effective priority,
    /// ties to the lower thread index.
    fn before(&self, a: Tid, b: Tid) -> bool {
        let (ea, eb) = (self.eff(a), self.eff(b));
        ea > eb || (ea == eb && a < b)
    }

    /// Whether `t`, a job that has not started, is held back by a refused
    /// job of its CPU that goes before it (the module's doc): SRP's start
    /// rule in full, for a kernel's own checks of what [`Locks::dispatch`]
    /// chose.
    pub fn held_back(
        &self,
        threads: impl IntoIterator<Item = Tid>,
        ready: impl Fn(Tid) -> Ready,
        t: Tid,
    ) -> bool {
        self.stack
            && threads.into_iter().any(|r| {
                ready(r) == Ready::Refused
                    && self.location(r) == self.location(t)
                    && self.before(r, t)
            })
    }

    /// Fills `slots` (one per CPU) with what runs where.
    ///
    /// `threads` are the threads to consider (any order; a kernel passes
    /// those with a job in progress), `ready(t)` where `t` stands
    /// ([`Ready`]). A job that has not started runs only above every
    /// refused one of its CPU (the module's doc). A holder is moved to a
    /// spinner's CPU only if it can run and waits for nothing itself.
    pub fn dispatch(
        &self,
        threads: impl IntoIterator<Item = Tid> + Clone,
        ready: impl Fn(Tid) -> Ready,
        slots: &mut [Slot],
    ) {
        slots.fill(Slot::default());
        // Per CPU, the best refused job: none below it may start. Only
        // SRP refuses a start, so only SRP walks the threads twice. The
        // gates live in the slots: the caller's storage, so that the
        // runtime's helping decision, made under its bookkeeping lock,
        // allocates nothing.
        if self.stack {
            for t in threads.clone() {
                if ready(t) == Ready::Refused {
                    let g = &mut slots[self.location(t)].gate;
                    if g.is_none_or(|b| self.before(t, b)) {
                        *g = Some(t);
                    }
                }
            }
        }
        for t in threads {
            let loc = self.location(t);
            let open = || slots[loc].gate.is_none_or(|g| self.before(t, g));
            match ready(t) {
                Ready::Runs => {}
                Ready::Starts if open() => {}
                _ => continue,
            }
            let slot = &mut slots[loc];
            if slot.runs.is_none_or(|b| self.before(t, b)) {
                slot.runs = Some(t);
            }
        }
        if !self.helping {
            return;
        }
        for cpu in 0..slots.len() {
            let Some(s) = slots[cpu].runs else { continue };
            let Some(h) = self.helpee(s) else { continue };
            if ready(h) == Ready::Runs
                && self.waiting(h).is_none()
                && !slots.iter().any(|x| x.runs == Some(h))
            {
                slots[cpu].runs = Some(h);
                slots[cpu].lent_by = Some(s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Outcome};

    /// A holds G on CPU 0 at priority 1; H (5) shares CPU 0; B (1) and
    /// C (3) use G from CPUs 1 and 2; D (4) shares CPU 1 with B.
    fn machine(protocol: &str) -> Locks {
        let text = format!(
            r#"
[platform]
cpus = 3
protocol = "{protocol}"
[[resource]]
name = "G"
[[task]]
name = "H"
period = "100ms"
priority = 5
cpu = 0
wcet = "3ms"
[[task]]
name = "A"
period = "100ms"
priority = 1
cpu = 0
body = [ {{ lock = "G", hold = "3ms" }} ]
[[task]]
name = "B"
period = "100ms"
priority = 1
cpu = 1
body = [ {{ lock = "G", hold = "1ms" }} ]
[[task]]
name = "C"
period = "100ms"
priority = 3
cpu = 2
body = [ {{ lock = "G", hold = "1ms" }} ]
[[task]]
name = "D"
period = "100ms"
priority = 4
cpu = 1
wcet = "1ms"
"#
        );
        let (sys, _) = rtsync_model::load_str(&text, None).unwrap_or_else(|d| panic!("{d}"));
        let mut locks = Locks::new(Config::new(&sys));
        for t in 0..5 {
            let base = locks.config().level[t] as u64;
            locks.set_base(t, base, t as u64).unwrap();
        }
        locks
    }

    const H: Tid = 0;
    const A: Tid = 1;
    const B: Tid = 2;
    const C: Tid = 3;
    const D: Tid = 4;

    /// What runs on each CPU with exactly `runnable` able to run, the
    /// threads considered in `order`.
    fn placed(locks: &Locks, runnable: &[Tid], order: &[Tid]) -> Vec<Slot> {
        let mut slots = vec![Slot::default(); 3];
        locks.dispatch(
            order.iter().copied(),
            |t| {
                if runnable.contains(&t) {
                    Ready::Runs
                } else {
                    Ready::No
                }
            },
            &mut slots,
        );
        slots
    }

    fn runs(t: Tid) -> Slot {
        Slot {
            runs: Some(t),
            ..Slot::default()
        }
    }

    fn lent(h: Tid, s: Tid) -> Slot {
        Slot {
            runs: Some(h),
            lent_by: Some(s),
            ..Slot::default()
        }
    }

    /// SRP under EDF (Baker 1991's start rule; `edf-srp-blocking-points`):
    /// `a` (deadline 4ms, the highest preemption level) uses nothing; `b` (6ms) and `c` (20ms)
    /// share R, which `c` holds. A later job of `a` (its absolute
    /// deadline after `b`'s) passes the start test, `b` is refused: `a`
    /// may not start ahead of `b`, so `c`, in progress, runs and frees R.
    /// Once `b` is no longer refused (R free), `b` runs first.
    #[test]
    fn no_job_starts_below_a_refused_one() {
        // The analysis tests' example, whose bounds the dispatch must keep.
        let (sys, _) = rtsync_model::load_str(
            include_str!("../../rtsync-analysis/tests/data/edf-srp-blocking-points.toml"),
            None,
        )
        .unwrap_or_else(|d| panic!("{d}"));
        let (a, b, c) = (0, 1, 2);
        let mut m = Locks::new(Config::new(&sys));
        // EDF keys: the earlier absolute deadline the larger; `b` (due at
        // 6ms) before the later job of `a` (due at 8ms) before `c` (20ms).
        for (t, key) in [(a, 2), (b, 3), (c, 1)] {
            m.set_base(t, key, t as u64).unwrap();
        }
        assert_eq!(m.lock(c, 0, 1), Ok(Outcome::Granted));
        assert!(m.may_start(a) && !m.may_start(b), "the test alone admits a");
        let ready = |t: Tid| match t {
            0 => Ready::Starts,
            1 => Ready::Refused,
            _ => Ready::Runs,
        };
        let mut slots = vec![Slot::default(); 1];
        m.dispatch([a, b, c], ready, &mut slots);
        // `b`, refused, gates the CPU: `a`, below it, does not start.
        let gated = Slot {
            gate: Some(b),
            ..runs(c)
        };
        assert_eq!(slots, vec![gated]);
        assert!(m.held_back([a, b, c], ready, a));
        m.unlock(c, 0).unwrap();
        assert!(m.may_start(b));
        let ready = |t: Tid| if t == c { Ready::Runs } else { Ready::Starts };
        m.dispatch([a, b, c], ready, &mut slots);
        assert_eq!(slots, vec![runs(b)]);
        assert!(!m.held_back([a, b, c], ready, a));
    }

    #[test]
    fn the_highest_runnable_thread_runs_on_each_cpu_whatever_the_scan_order() {
        let m = machine("mrsp");
        for order in [[H, A, B, C, D], [D, C, B, A, H]] {
            let s = placed(&m, &[H, A, B, C, D], &order);
            assert_eq!(s, vec![runs(H), runs(D), runs(C)]);
            // Nothing runnable on a CPU leaves it idle.
            let s = placed(&m, &[A, C], &order);
            assert_eq!(s, vec![runs(A), Slot::default(), runs(C)]);
        }
    }

    #[test]
    fn a_preempted_holder_runs_on_the_spinners_cpu() {
        let mut m = machine("mrsp");
        assert_eq!(m.lock(A, 0, 1), Ok(Outcome::Granted));
        assert_eq!(m.lock(B, 0, 1), Ok(Outcome::Wait { spin: true }));
        // H runs on CPU 0: A is preempted, B spins on CPU 1.
        let s = placed(&m, &[H, A, B], &[H, A, B]);
        assert_eq!(s, vec![runs(H), lent(A, B), Slot::default()]);
    }

    #[test]
    fn a_holder_that_runs_at_home_is_not_moved() {
        let mut m = machine("mrsp");
        m.lock(A, 0, 1).unwrap();
        m.lock(B, 0, 1).unwrap();
        // H has no job in progress: A runs on CPU 0.
        let s = placed(&m, &[A, B], &[A, B]);
        assert_eq!(s, vec![runs(A), runs(B), Slot::default()]);
    }

    #[test]
    fn the_first_running_spinner_lends_and_only_one() {
        let mut m = machine("mrsp");
        m.lock(A, 0, 1).unwrap();
        m.lock(C, 0, 1).unwrap();
        m.lock(B, 0, 1).unwrap();
        let s = placed(&m, &[H, A, B, C], &[C, B, A, H]);
        assert_eq!(s, vec![runs(H), lent(A, B), runs(C)]);
    }

    #[test]
    fn a_spinner_preempted_on_its_own_cpu_cannot_lend() {
        let mut m = machine("mrsp");
        m.lock(A, 0, 1).unwrap();
        m.lock(B, 0, 1).unwrap();
        // D (4) runs on CPU 1 above B's spinning (local ceiling 1).
        let s = placed(&m, &[H, A, B, D], &[H, A, B, D]);
        assert_eq!(s, vec![runs(H), runs(D), Slot::default()]);
        // Then a spinner on another CPU that does run lends instead.
        m.lock(C, 0, 1).unwrap();
        let s = placed(&m, &[H, A, B, C, D], &[H, A, B, C, D]);
        assert_eq!(s, vec![runs(H), runs(D), lent(A, C)]);
    }

    #[test]
    fn a_holder_that_cannot_run_is_not_moved() {
        let mut m = machine("mrsp");
        m.lock(A, 0, 1).unwrap();
        m.lock(B, 0, 1).unwrap();
        let s = placed(&m, &[H, B], &[H, A, B]);
        assert_eq!(s, vec![runs(H), runs(B), Slot::default()]);
    }

    #[test]
    fn protocols_without_helping_never_move_a_holder() {
        for p in ["msrp", "fmlp-s"] {
            let mut m = machine(p);
            m.lock(A, 0, 1).unwrap();
            assert!(matches!(m.lock(B, 0, 1), Ok(Outcome::Wait { spin: true })));
            let s = placed(&m, &[H, A, B], &[H, A, B]);
            assert!(s.iter().all(|x| x.lent_by.is_none()), "{p}");
            assert_eq!(s[1], runs(B), "{p}");
        }
    }
}
