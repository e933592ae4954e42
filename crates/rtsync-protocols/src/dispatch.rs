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
//! The kernels differ only in what they know is runnable (the simulator
//! from its thread states, the runtime from the jobs its threads marked),
//! so they pass that in; the decision itself is written here once.

use crate::machine::{Locks, Tid};

/// What runs on one CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    /// The thread that runs there, if any.
    pub runs: Option<Tid>,
    /// The spinner whose CPU this is, when `runs` is a holder running in
    /// its place (MrsP helping).
    pub lent_by: Option<Tid>,
}

impl Locks {
    /// Fills `slots` (one per CPU) with what runs where.
    ///
    /// `threads` are the threads to consider (any order; a kernel passes
    /// those with a job in progress), `runnable(t)` whether `t` can run now:
    /// ready or spinning, not asleep on a lock, and (for a job that has not
    /// started) past SRP's start test ([`Locks::may_start`]). A holder is
    /// moved to a spinner's CPU only if it is runnable and waits for
    /// nothing itself.
    pub fn dispatch(
        &self,
        threads: impl IntoIterator<Item = Tid>,
        runnable: impl Fn(Tid) -> bool,
        slots: &mut [Slot],
    ) {
        slots.fill(Slot::default());
        for t in threads {
            if !runnable(t) {
                continue;
            }
            let slot = &mut slots[self.location(t)];
            let e = self.eff(t);
            if slot.runs.is_none_or(|b| {
                let be = self.eff(b);
                e > be || (e == be && t < b)
            }) {
                slot.runs = Some(t);
            }
        }
        if !self.helping {
            return;
        }
        for cpu in 0..slots.len() {
            let Some(s) = slots[cpu].runs else { continue };
            let Some(h) = self.helpee(s) else { continue };
            if runnable(h) && self.waiting(h).is_none() && !slots.iter().any(|x| x.runs == Some(h))
            {
                slots[cpu] = Slot {
                    runs: Some(h),
                    lent_by: Some(s),
                };
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
        locks.dispatch(order.iter().copied(), |t| runnable.contains(&t), &mut slots);
        slots
    }

    fn runs(t: Tid) -> Slot {
        Slot {
            runs: Some(t),
            lent_by: None,
        }
    }

    fn lent(h: Tid, s: Tid) -> Slot {
        Slot {
            runs: Some(h),
            lent_by: Some(s),
        }
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
