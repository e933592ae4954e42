//! Effective priorities and places: what a thread's rules give it (its
//! own holds), what blocked waiters lend it (inheritance, transitively),
//! and the refresh that brings both up to date for exactly the threads a
//! change can reach.

use super::*;

impl Marks {
    pub(super) fn new(n: usize) -> Marks {
        Marks {
            // Room for every thread: marking never allocates.
            list: Vec::with_capacity(n),
            on: vec![false; n],
        }
    }

    #[inline]
    pub(super) fn insert(&mut self, t: Tid) {
        if !self.on[t] {
            self.on[t] = true;
            self.list.push(t);
        }
    }

    pub(super) fn clear(&mut self) {
        for &t in &self.list {
            self.on[t] = false;
        }
        self.list.clear();
    }
}

impl Locks {
    pub(super) fn compute_location(&self, t: Tid) -> Cpu {
        let th = &self.threads[t];
        th.waiting
            .as_ref()
            .map(|w| w.resource)
            .into_iter()
            .chain(th.held.iter().rev().map(|h| h.resource))
            .find_map(|r| self.cfg.rules[r].domain)
            .unwrap_or(self.cfg.home[t])
    }

    /// The thread that keeps waiting thread `t` waiting: the holder of the
    /// resource (the longest-waiting holder of a multi-unit one), or, for
    /// a ceiling refusal, the holder of the system ceiling.
    pub(super) fn blocker(&self, t: Tid) -> Option<Tid> {
        let w = self.threads[t]
            .waiting
            .as_ref()
            .filter(|w| !self.is_woken(w))?;
        self.blocking(t, w)
    }

    /// Whom `t`'s request `w` waits for, were it refused now.
    pub(super) fn blocking(&self, t: Tid, w: &Waiting) -> Option<Tid> {
        let rule = &self.cfg.rules[w.resource];
        if let Some(&(h, _)) = self.units[rule.unit].holders.first() {
            return Some(h);
        }
        if rule.arbitration == Arbitration::Ceiling {
            return self.ceiling_holder(rule.scope, t).map(|(_, h)| h);
        }
        None
    }

    /// The priority a rule's `Hold` gives thread `t`.
    /// `issued` orders FIFO boosting; `granted` orders sections boosted to
    /// one key.
    pub(super) fn hold_eff(
        &self,
        t: Tid,
        hold: Hold,
        r: ResourceId,
        issued: u64,
        granted: u64,
    ) -> Eff {
        let th = &self.threads[t];
        let normal = Eff::normal(th.base, th.seq);
        match hold {
            Hold::Base => normal,
            Hold::Ceiling(c) => Eff::normal(th.base.max(c), th.seq),
            Hold::LocalCeiling => {
                let c = self.cfg.local_ceiling[r][self.cfg.home[t]];
                Eff::normal(th.base.max(c), th.seq)
            }
            Hold::BoostRemote => Eff {
                tier: Tier::Boosted,
                key: self.cfg.remote_ceiling[r][self.cfg.home[t]],
                seq: Reverse(granted),
            },
            Hold::BoostBase => Eff {
                tier: Tier::Boosted,
                key: th.base,
                seq: Reverse(th.seq),
            },
            Hold::BoostFifo => Eff {
                tier: Tier::Boosted,
                key: 0,
                seq: Reverse(issued),
            },
            Hold::NonPreemptive => Eff {
                tier: Tier::NonPreemptive,
                key: th.base,
                seq: Reverse(th.seq),
            },
        }
    }

    /// The priority `t` has of its own: its base, raised by the rules of
    /// what it holds and of what it waits for.
    pub(super) fn own_eff(&self, t: Tid) -> Eff {
        let th = &self.threads[t];
        let mut e = Eff::normal(th.base, th.seq);
        for h in &th.held {
            let rule: &Rule = &self.cfg.rules[h.resource];
            e = e.max(self.hold_eff(t, rule.holding, h.resource, h.issued, h.granted));
        }
        if let Some(w) = &th.waiting {
            let rule = &self.cfg.rules[w.resource];
            e = e.max(self.hold_eff(t, rule.waiting, w.resource, w.issued, w.issued));
        }
        e
    }

    /// Whether `w` lends its priority to whoever blocks it: it waits (not
    /// woken to retry) under a rule that inherits.
    #[inline]
    pub(super) fn lends(&self, w: Tid) -> bool {
        self.threads[w]
            .waiting
            .as_ref()
            .is_some_and(|x| !self.is_woken(x) && self.cfg.rules[x.resource].inherit)
    }

    /// The highest `(tier, key)` lent to `x` by the threads it blocks
    /// whose rule inherits: the waiters queued on a unit it is the first
    /// holder of (the head, where the queue is in priority order), and
    /// the ceiling-refused waiters of a scope where it holds the system
    /// ceiling (or their own resource).
    pub(super) fn lent_to(&self, x: Tid) -> Option<(Tier, u64)> {
        let mut best: Option<(Tier, u64)> = None;
        let mut lend = |w: Tid| {
            let e = self.threads[w].eff;
            if best.is_none_or(|b| (e.tier, e.key) > b) {
                best = Some((e.tier, e.key));
            }
        };
        let held = &self.threads[x].held;
        for (i, h) in held.iter().enumerate() {
            if !h.owns {
                continue;
            }
            let rule = &self.cfg.rules[h.resource];
            let u = &self.units[rule.unit];
            if u.holders.first().is_some_and(|&(f, _)| f == x) {
                let sorted =
                    self.priority_ordered(rule.unit) && !self.unsorted.contains(&rule.unit);
                for &w in &u.queue {
                    let inherits = self.lends(w);
                    if inherits && w != x {
                        lend(w);
                        if sorted {
                            break; // the highest inheriting waiter
                        }
                    }
                }
            }
            let scope = rule.scope;
            let seen = held[..i].iter().any(|p| {
                p.owns
                    && self.cfg.rules[p.resource].arbitration == Arbitration::Ceiling
                    && self.cfg.rules[p.resource].scope == scope
            });
            if rule.arbitration != Arbitration::Ceiling || seen {
                continue;
            }
            for &(_, Reverse(w)) in &self.ceiling[scope].refused.list {
                let inherits = self.lends(w);
                if inherits && self.blocker(w) == Some(x) {
                    lend(w);
                }
            }
        }
        best
    }

    /// Brings effective priorities and locations up to date after a
    /// change. Only the dirty threads (whose own state, or whose set of
    /// blocked waiters, changed) and the holders they lend to, along
    /// blocking chains, can change; every other thread's priority depends
    /// on unchanged threads alone and stays. The affected ones are reset
    /// to their own priority, then inheritance is passed along until
    /// nothing changes (at most one pass per link: the least fixed point,
    /// as from scratch, even around a deadlock cycle). Queues in priority
    /// order are re-sorted where an affected waiter sits. The result is
    /// the same as recomputing everything ([`Locks::verify`] checks it).
    pub(super) fn refresh(&mut self) {
        // The affected set: dirty threads and the chains above them.
        let mut affected = std::mem::replace(&mut self.affected, Marks::new(0));
        for i in 0..self.dirty.list.len() {
            let mut cur = self.dirty.list[i];
            for _ in 0..=self.threads.len() {
                if affected.on[cur] {
                    break;
                }
                affected.on[cur] = true;
                affected.list.push(cur);
                let inherits = self.lends(cur);
                if !inherits {
                    break;
                }
                match self.blocker(cur) {
                    Some(b) if b != cur => cur = b,
                    _ => break,
                }
            }
        }
        self.dirty.clear();
        let mut before = std::mem::take(&mut self.before);
        before.clear();
        let mut inherit = false;
        for &t in &affected.list {
            before.push((self.threads[t].eff, self.loc[t]));
            self.threads[t].eff = self.own_eff(t);
            self.loc[t] = self.compute_location(t);
            let th = &self.threads[t];
            inherit |= !th.held.is_empty();
            // A queued waiter's priority orders its queue.
            if let Some(w) = th.waiting.as_ref().filter(|w| !self.is_woken(w)) {
                let unit = self.cfg.rules[w.resource].unit;
                if self.priority_ordered(unit) {
                    self.mark_unsorted(unit);
                }
            }
        }
        if inherit {
            // Inheritance is transitive; at most one pass per link of the
            // longest chain, and one more to see nothing change.
            for _ in 0..=affected.list.len() {
                let mut changed = false;
                for &b in &affected.list {
                    let Some((tier, key)) = self.lent_to(b) else {
                        continue;
                    };
                    let be = &mut self.threads[b].eff;
                    if (tier, key) > (be.tier, be.key) {
                        // The holder runs at the waiter's priority, in its
                        // own place among equals.
                        be.tier = tier;
                        be.key = key;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        for (i, &t) in affected.list.iter().enumerate() {
            let (e, was) = (self.threads[t].eff, before[i].0);
            if (e.tier, e.key) > (was.tier, was.key) {
                self.wake_raised(t);
            }
        }
        let mut unsorted = std::mem::take(&mut self.unsorted);
        for &u in &unsorted {
            let mut q = std::mem::take(&mut self.units[u].queue);
            // Stable: equal keys keep arrival order (keys are unique
            // anyway: they end with the request's issue number).
            q.sort_by_key(|&w| Reverse(self.queue_key(w)));
            self.units[u].queue = q;
        }
        unsorted.clear();
        self.unsorted = unsorted;
        for (i, &t) in affected.list.iter().enumerate() {
            if before[i] != (self.threads[t].eff, self.loc[t]) {
                self.changed.insert(t);
                if before[i].0 != self.threads[t].eff {
                    self.rerank(t);
                }
            }
        }
        affected.clear();
        self.affected = affected;
        self.before = before;
        if self.stack {
            self.system_ceiling.fill(None);
            for (r, rule) in self.cfg.rules.iter().enumerate() {
                if rule.arbitration != Arbitration::Stack
                    || rule.unit != r
                    || self.units[r].holders.is_empty()
                {
                    continue;
                }
                let c = self.cfg.stack_ceiling(r, self.units[r].free);
                let s = &mut self.system_ceiling[rule.scope];
                *s = Some(s.map_or(c, |x| x.max(c)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::machine;
    use super::*;
    use rtsync_model::Protocol;

    #[test]
    fn inheritance_is_transitive_and_undone_at_the_release() {
        // PIP: t0 (1) holds r0; t1 (2) holds r1 and waits for r0; t2 (3)
        // waits for r1: t0 runs at 3 through t1.
        let mut m = machine(
            Protocol::Pip,
            1,
            2,
            &[(1, 0, &[&[0]]), (2, 0, &[&[1, 0]]), (3, 0, &[&[1]])],
        );
        m.lock(0, 0, 1).unwrap();
        m.lock(1, 1, 1).unwrap();
        assert!(matches!(m.lock(1, 0, 1), Ok(Outcome::Wait { .. })));
        assert!(matches!(m.lock(2, 1, 1), Ok(Outcome::Wait { .. })));
        assert_eq!(m.blocker(2), Some(1));
        assert_eq!(m.blocker(1), Some(0));
        assert_eq!((m.eff(0).key, m.eff(1).key), (3, 3));
        m.unlock(0, 0).unwrap();
        assert_eq!(m.eff(0), m.own_eff(0));
        assert_eq!(m.eff(0).key, 1);
    }

    #[test]
    fn a_global_section_runs_boosted_and_a_dpcp_section_runs_on_its_sync_cpu() {
        let mut m = machine(Protocol::Mpcp, 2, 1, &[(1, 0, &[&[0]]), (2, 1, &[&[0]])]);
        m.lock(0, 0, 1).unwrap();
        assert_eq!(m.eff(0).tier, Tier::Boosted);
        m.unlock(0, 0).unwrap();
        assert_eq!(m.eff(0).tier, Tier::Normal);

        let mut m = machine(Protocol::Dpcp, 2, 1, &[(1, 0, &[&[0]]), (2, 0, &[&[0]])]);
        assert_eq!(m.location(0), 0);
        m.lock(0, 0, 1).unwrap();
        assert_eq!((m.location(0), m.compute_location(0)), (1, 1));
        m.unlock(0, 0).unwrap();
        assert_eq!(m.location(0), 0);
    }
}
