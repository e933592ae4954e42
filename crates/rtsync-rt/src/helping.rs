//! MrsP's helping on real threads (Burns and Wellings 2013, "A
//! schedulability compatible multiprocessor resource sharing protocol",
//! ECRTS, Section 4): a waiter that spins for a global resource lends its
//! CPU to the resource's holder while the holder is preempted on its own,
//! so a request waits for at most one section per other CPU, preemptions
//! of the holders included.
//!
//! Linux does not tell a user-space runtime that a thread was preempted,
//! so the runtime decides as the simulator's dispatcher does, with the
//! same decision ([`rtsync_protocols::Locks::dispatch`]), from what it
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

use rtsync_protocols::{Locks, Ready, Slot, Tid};

/// A holder running on a spinner's CPU in the spinner's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lent {
    /// The system CPU it runs on.
    pub cpu: usize,
    /// The spinner whose CPU it is.
    pub spinner: Tid,
}

/// The storage of the helping decision, sized when the domain is made:
/// the decision is remade under the bookkeeping lock, where a real-time
/// thread must not wait for the allocator.
#[derive(Default)]
pub(crate) struct Plan {
    /// Per thread, whether it can run ([`plan`]'s `runnable`).
    pub runnable: Vec<bool>,
    /// Per thread, its place as decided ([`plan`]'s `out`).
    pub places: Vec<Option<Lent>>,
    /// Per system CPU, what runs there.
    pub slots: Vec<Slot>,
    /// The spinners that began or stopped lending at the last decision.
    pub lend: Vec<Tid>,
}

impl Plan {
    /// Room for `threads` threads on `cpus` CPUs.
    pub fn new(threads: usize, cpus: usize) -> Plan {
        Plan {
            runnable: Vec::with_capacity(threads),
            places: vec![None; threads],
            slots: vec![Slot::default(); cpus],
            lend: Vec::with_capacity(threads),
        }
    }
}

/// Which holders run in which spinners' places, given which threads are
/// runnable (`runnable[t]`), on the CPUs of `slots`. `out[t]` is `t`'s
/// place, `None` for every thread that runs (or waits) where the machine
/// locates it.
pub(crate) fn plan(locks: &Locks, runnable: &[bool], slots: &mut [Slot], out: &mut [Option<Lent>]) {
    out.fill(None);
    locks.dispatch(
        0..runnable.len(),
        |t| if runnable[t] { Ready::Runs } else { Ready::No },
        slots,
    );
    for (cpu, slot) in slots.iter().enumerate() {
        if let (Some(h), Some(spinner)) = (slot.runs, slot.lent_by) {
            out[h] = Some(Lent { cpu, spinner });
        }
    }
}

/// Whether `t` lends its CPU to a holder under `places`.
pub(crate) fn lending(places: &[Option<Lent>], t: Tid) -> bool {
    places.iter().flatten().any(|l| l.spinner == t)
}
