//! The fast-path gates: which CPUs' and resources' gates a decision
//! closed, and reopening them once nothing makes a fast grant unsafe.

use super::*;

impl Shared {
    /// The gates a slow operation of `t` on `r` must settle: its CPU's
    /// (SRP's start test reads its system ceiling), the one of the fast
    /// section `t` holds (known before it nests or waits), and `r`'s.
    pub(super) fn cpus(&self, t: Tid, r: Option<usize>) -> [usize; 3] {
        let own = self.home[t];
        let held = self.slots[t].fast_gate.load(Ordering::Relaxed);
        let held = held.checked_sub(1).unwrap_or(own);
        [own, held, r.map_or(own, |r| self.fast_gate[r])]
    }

    /// Closes the gates `cpus`; a fast holder found in one is entered
    /// into the machine as holding its resource.
    pub(super) fn settle(&self, st: &mut State, cpus: [usize; 3]) {
        for c in cpus {
            if let Some(w) = self.gate[c].close() {
                let (x, r) = gate::holder(w);
                // Nothing of this gate was in the machine when `x` took
                // `r`, and nothing has been since: the machine grants.
                let out = st.locks.lock(x, r, 1);
                debug_assert_eq!(out, Ok(Outcome::Granted), "settling {x} on {r}");
                // A raising fast holder raised itself before taking the
                // gate: that is its priority now.
                let raised = self.fast_raise[self.pair(x, r)];
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
                let used = (0..self.tasks.len()).any(|t| self.fast[self.pair(t, r)]);
                let held =
                    || (0..rules.len()).any(|x| in_unit(x) && st.locks.holders(x).next().is_some());
                let waited = || (0..st.tid.len()).any(|x| st.locks.waiting(x).is_some_and(in_unit));
                if used && !held() && !waited() {
                    self.gate[c].open();
                }
                continue;
            }
            let held = self.gated[c]
                .iter()
                .any(|&r| st.locks.holders(r).next().is_some());
            let waited = || {
                (0..st.tid.len()).any(|x| {
                    st.locks
                        .waiting(x)
                        .is_some_and(|r| self.gate_of[r] == Some(c))
                })
            };
            let starting = || self.homed[c].iter().any(|&x| st.starting[x]);
            if !held && !waited() && !starting() {
                self.gate[c].open();
            }
        }
    }
}
