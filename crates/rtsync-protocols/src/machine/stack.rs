//! Stack arbitration (`Arbitration::Stack`, Baker's SRP 1991): the start
//! test that keeps a job from starting while a resource it may need is
//! short, so that a request always finds its units.

use super::*;

impl Locks {
    /// SRP's start test (Baker 1991, Theorem 3's premise): a job of `t`
    /// may start (or, after a self-suspension, resume) only when its
    /// preemption level is strictly above the ceiling of every resource on
    /// its CPU that another thread holds. Always true for protocols without
    /// stack arbitration.
    #[inline]
    pub fn may_start(&self, t: Tid) -> bool {
        if !self.stack {
            return true;
        }
        if self.threads[t].held.is_empty() {
            let level = self.cfg.level[t];
            return self.system_ceiling[self.cfg.home[t]].is_none_or(|c| c < level);
        }
        self.stack_admits(t)
    }

    /// The start test in full, for a job that itself holds units (it
    /// resumes from a self-suspension inside a section): its own units
    /// count as free.
    pub(super) fn stack_admits(&self, t: Tid) -> bool {
        let cpu = self.cfg.home[t];
        let level = self.cfg.level[t];
        for (r, rule) in self.cfg.rules.iter().enumerate() {
            if rule.arbitration != Arbitration::Stack || rule.scope != cpu || rule.unit != r {
                continue;
            }
            let u = &self.units[r];
            if u.holders.is_empty() {
                continue;
            }
            let mut free = u.free;
            let mut others = false;
            for &(h, n) in &u.holders {
                if h == t {
                    free += n;
                } else {
                    others = true;
                }
            }
            if others && self.cfg.stack_ceiling(r, free) >= level {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::machine;
    use rtsync_model::Protocol;

    #[test]
    fn a_job_starts_only_above_the_ceiling_of_what_others_hold() {
        // Baker's start test: t0 (1) holds r0, used by t1 (3); t2 (2) uses
        // nothing and t3 (4) is above every user.
        let mut m = machine(
            Protocol::Srp,
            1,
            1,
            &[(1, 0, &[&[0]]), (3, 0, &[&[0]]), (2, 0, &[]), (4, 0, &[])],
        );
        assert!((0..4).all(|t| m.may_start(t)));
        m.lock(0, 0, 1).unwrap();
        assert!(!m.may_start(1), "a user of the held resource waits");
        assert!(!m.may_start(2), "so does any job at or below the ceiling");
        assert!(m.may_start(3));
        assert!(m.may_start(0), "the holder itself");
        m.unlock(0, 0).unwrap();
        assert!(m.may_start(1) && m.may_start(2));
    }
}
