//! The fast-path gates: which CPUs' and resources' gates a decision
//! closed, and reopening them once nothing makes a fast grant unsafe.

use super::*;

/// What decides the fast path (module documentation of `domain`): who may
/// take which resource without the bookkeeping lock, at which priority,
/// through which gate.
pub(super) struct FastPaths {
    /// The gates of the fast path: one per system CPU, then one per
    /// resource (used by global resources with fast grants; the others
    /// stay closed).
    pub(super) gate: Vec<Gate>,
    /// Per resource: the gate its fast grants take.
    pub(super) fast_gate: Vec<usize>,
    /// `[t * resources + r]`: whether `t` may take `r` on the fast path.
    pub(super) fast: Vec<bool>,
    /// `[t * resources + r]`: on the fast path, the SCHED_FIFO priority
    /// `t` raises itself to before taking `r` (IPCP's ceiling, a
    /// non-preemptive section), or 0 for none.
    pub(super) fast_raise: Vec<i32>,
    /// Per task: its SCHED_FIFO priority holding nothing, which a raising
    /// fast section returns to.
    pub(super) base_fifo: Vec<i32>,
    /// Per resource: the CPU whose gate it closes while the machine holds
    /// it or a request waits for it: the CPU it is local to, or the one
    /// whose system ceiling it counts towards (DPCP's and DFLP's
    /// synchronization CPU, where local sections share the ceiling).
    pub(super) gate_of: Vec<Option<usize>>,
    /// Per CPU: the resources whose gate it is.
    pub(super) gated: Vec<Vec<usize>>,
}

impl Shared {
    /// The gates a slow operation of `t` on `r` must settle: its CPU's
    /// (SRP's start test reads its system ceiling), the one of the fast
    /// section `t` holds (known before it nests or waits), and `r`'s.
    pub(super) fn cpus(&self, t: Tid, r: Option<usize>) -> [usize; 3] {
        let own = self.home[t];
        let held = self.slots[t].fast_gate.load(Ordering::Relaxed);
        let held = held.checked_sub(1).unwrap_or(own);
        [own, held, r.map_or(own, |r| self.paths.fast_gate[r])]
    }

    /// Closes the gates `cpus`; a fast holder found in one is entered
    /// into the machine as holding its resource.
    pub(super) fn settle(&self, st: &mut State, cpus: [usize; 3]) {
        for c in cpus {
            if let Some(w) = self.paths.gate[c].close() {
                let (x, r) = gate::holder(w);
                // Nothing of this gate was in the machine when `x` took
                // `r`, and nothing has been since: the machine grants.
                let out = st.locks.lock(x, r, 1);
                debug_assert_eq!(out, Ok(Outcome::Granted), "settling {x} on {r}");
                // A raising fast holder raised itself before taking the
                // gate: that is its priority now.
                let raised = self.paths.fast_raise[self.pair(x, r)];
                if raised != 0 {
                    st.prio[x] = Some(raised);
                    st.mark(x);
                }
            }
        }
    }

    /// Opens the gates of `cpus` where the machine has nothing of the CPU
    /// any more: none of its gated resources is held or waited for, and
    /// no job there waits for SRP's start test. Then the machine would
    /// grant any of them to a thread that holds nothing, changing nothing
    /// else where [`fast_eligible`] said so.
    /// A resource's own gate opens when nobody holds or waits for it.
    pub(super) fn reopen(&self, st: &State, cpus: [usize; 3]) {
        if !self.opts.fast_path {
            return;
        }
        for (i, &c) in cpus.iter().enumerate() {
            if cpus[..i].contains(&c) {
                continue;
            }
            if let Some(r) = c.checked_sub(self.homed.len()) {
                // Only a gate some grant takes is opened (as at the start).
                // `r` is a unit: every resource of its group counts.
                let rules = &st.locks.config().rules;
                let in_unit = |x: usize| rules[x].unit == r;
                let used = (0..self.tasks.len()).any(|t| self.paths.fast[self.pair(t, r)]);
                let held =
                    || (0..rules.len()).any(|x| in_unit(x) && st.locks.holders(x).next().is_some());
                let waited = || (0..st.tid.len()).any(|x| st.locks.waiting(x).is_some_and(in_unit));
                if used && !held() && !waited() {
                    self.paths.gate[c].open();
                }
                continue;
            }
            let held = self.paths.gated[c]
                .iter()
                .any(|&r| st.locks.holders(r).next().is_some());
            let waited = || {
                (0..st.tid.len()).any(|x| {
                    st.locks
                        .waiting(x)
                        .is_some_and(|r| self.paths.gate_of[r] == Some(c))
                })
            };
            let starting = || self.homed[c].iter().any(|&x| st.starting[x]);
            if !held && !waited() && !starting() {
                self.paths.gate[c].open();
            }
        }
    }
}
