//! MrsP's helping on real threads (Burns and Wellings 2013, "A
//! schedulability compatible multiprocessor resource sharing protocol",
//! ECRTS, Section 4): a waiter that spins for a global resource lends its
//! CPU to the resource's holder while the holder is preempted on its own,
//! so a request waits for at most one section per other CPU, preemptions
//! of the holders included.
//!
//! Linux does not tell a user-space runtime that a thread was preempted,
//! so the runtime decides as the simulator's dispatcher does, from what it
//! knows: on each CPU, the thread that runs is the runnable one of highest
//! effective priority located there (a job in progress, a holder, a
//! spinner; not a thread asleep on a lock, not one held back by SRP's
//! start test). Where that thread is a spinner whose resource's holder
//! runs nowhere, the holder runs on the spinner's CPU in its place. The
//! decision is remade at every event that can change it (a job begins or
//! ends, a request waits, is granted or withdrawn, a section ends), always
//! under the bookkeeping lock, by the thread causing the event: a job that
//! begins is the preemptor, and it moves the holder it preempts.
//!
//! What the runtime cannot see, it does not act on: a preemptor that never
//! marks its jobs ([`crate::Binding::job_begin`]) or a thread outside the
//! domain leaves its victim unhelped, as if the protocol had no helping:
//! the holder still finishes, only later.

use rtsync_protocols::{Locks, Tid};

/// A holder running on a spinner's CPU in the spinner's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lent {
    /// The system CPU it runs on.
    pub cpu: usize,
    /// The spinner whose CPU it is.
    pub spinner: Tid,
}

/// Which holders run in which spinners' places, given which threads are
/// runnable (`runnable[t]`). `out[t]` is `t`'s place, `None` for every
/// thread that runs (or waits) where the machine locates it. Ties of
/// effective priority go to the lower thread index, as in the simulator.
pub(crate) fn plan(locks: &Locks, runnable: &[bool], cpus: usize, out: &mut [Option<Lent>]) {
    out.fill(None);
    let mut on: Vec<Option<Tid>> = vec![None; cpus];
    for (t, _) in runnable.iter().enumerate().filter(|&(_, &r)| r) {
        let cpu = locks.location(t);
        let e = locks.eff(t);
        if on[cpu].is_none_or(|b| e > locks.eff(b)) {
            on[cpu] = Some(t);
        }
    }
    for cpu in 0..cpus {
        let Some(s) = on[cpu] else { continue };
        if !locks.spinning(s) {
            continue;
        }
        let Some(h) = locks.helpee(s) else { continue };
        // The holder must be able to run (not itself waiting) and run
        // nowhere now; one spinner's CPU is enough.
        if runnable[h] && locks.waiting(h).is_none() && !on.contains(&Some(h)) {
            on[cpu] = Some(h);
            out[h] = Some(Lent { cpu, spinner: s });
        }
    }
}

/// Whether `t` lends its CPU to a holder under `places`.
pub(crate) fn lending(places: &[Option<Lent>], t: Tid) -> bool {
    places.iter().flatten().any(|l| l.spinner == t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtsync_protocols::{Config, Outcome};

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
        let cfg = Config::new(&sys);
        let mut locks = Locks::new(cfg);
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

    /// The placements with exactly `runnable` able to run.
    fn placed(locks: &Locks, runnable: &[Tid]) -> Vec<Option<Lent>> {
        let runnable: Vec<bool> = (0..5).map(|t| runnable.contains(&t)).collect();
        let mut out = vec![None; 5];
        plan(locks, &runnable, 3, &mut out);
        out
    }

    #[test]
    fn a_preempted_holder_runs_on_the_spinners_cpu() {
        let mut m = machine("mrsp");
        assert_eq!(m.lock(A, 0, 1), Ok(Outcome::Granted));
        assert_eq!(m.lock(B, 0, 1), Ok(Outcome::Wait { spin: true }));
        // H runs on CPU 0: A is preempted, B spins on CPU 1.
        let out = placed(&m, &[H, A, B]);
        assert_eq!(out[A], Some(Lent { cpu: 1, spinner: B }));
        assert!(lending(&out, B));
        assert!(!lending(&out, A));
        assert_eq!(out.iter().flatten().count(), 1);
    }

    #[test]
    fn a_holder_that_runs_at_home_is_not_moved() {
        let mut m = machine("mrsp");
        m.lock(A, 0, 1).unwrap();
        m.lock(B, 0, 1).unwrap();
        // H has no job in progress: A runs on CPU 0.
        let out = placed(&m, &[A, B]);
        assert_eq!(out, vec![None; 5]);
    }

    #[test]
    fn the_first_running_spinner_lends_and_only_one() {
        let mut m = machine("mrsp");
        m.lock(A, 0, 1).unwrap();
        m.lock(C, 0, 1).unwrap();
        m.lock(B, 0, 1).unwrap();
        let out = placed(&m, &[H, A, B, C]);
        assert_eq!(out[A], Some(Lent { cpu: 1, spinner: B }));
        assert!(!lending(&out, C));
    }

    #[test]
    fn a_spinner_preempted_on_its_own_cpu_cannot_lend() {
        let mut m = machine("mrsp");
        m.lock(A, 0, 1).unwrap();
        m.lock(B, 0, 1).unwrap();
        // D (4) runs on CPU 1 above B's spinning (local ceiling 1).
        let out = placed(&m, &[H, A, B, D]);
        assert_eq!(out, vec![None; 5]);
        // Then a spinner on another CPU that does run lends instead.
        m.lock(C, 0, 1).unwrap();
        let out = placed(&m, &[H, A, B, C, D]);
        assert_eq!(out[A], Some(Lent { cpu: 2, spinner: C }));
        assert!(!lending(&out, B));
    }

    #[test]
    fn a_holder_that_cannot_run_is_not_moved() {
        let mut m = machine("mrsp");
        m.lock(A, 0, 1).unwrap();
        m.lock(B, 0, 1).unwrap();
        let out = placed(&m, &[H, B]);
        assert_eq!(out, vec![None; 5]);
    }

    #[test]
    fn protocols_without_helping_never_move_a_holder() {
        for p in ["msrp", "fmlp-s"] {
            let mut m = machine(p);
            m.lock(A, 0, 1).unwrap();
            assert!(matches!(m.lock(B, 0, 1), Ok(Outcome::Wait { spin: true })));
            let out = placed(&m, &[H, A, B]);
            assert_eq!(out, vec![None; 5], "{p}");
        }
    }
}
