//! Ceiling arbitration (`Arbitration::Ceiling`, the original PCP of Sha,
//! Rajkumar and Lehoczky 1990, and DPCP's agents): a request is granted
//! only above the ceiling of every resource of its scope held by another
//! thread; refused requests wait per scope, ranked, and are all woken by a
//! release in the scope (one counter marks them woken, so a release costs
//! the same however many wait).

use super::*;

impl CeilingWaiters {
    /// Room for every user of the scope's resources (`units`) to wait,
    /// refused or woken: a wait or a release there never allocates.
    pub(super) fn sized(units: &[ResourceId], cfg: &Config) -> CeilingWaiters {
        let users = units.iter().map(|&r| cfg.users[r]).sum::<usize>();
        let ranked = || Ranked {
            list: Vec::with_capacity(users.min(cfg.threads())),
            asks: Vec::with_capacity(units.len()),
            holding: 0,
        };
        CeilingWaiters {
            refused: ranked(),
            woken: ranked(),
            wakes: 0,
        }
    }
}

impl Ranked {
    pub(super) fn insert(&mut self, x: Rank, ask: Ask, holds: bool) {
        let at = self.list.partition_point(|y| *y < x);
        self.list.insert(at, x);
        match self.asks.iter_mut().find(|a| a.0 == ask) {
            Some(a) => a.1 += 1,
            None => self.asks.push((ask, 1)),
        }
        self.holding += u32::from(holds);
    }

    /// Removes `t` (searched from the top, where retries come from).
    pub(super) fn remove(&mut self, t: Tid, ask: Ask, holds: bool) -> bool {
        let Some(i) = self.list.iter().rposition(|x| x.1.0 == t) else {
            return false;
        };
        self.list.remove(i);
        if let Some(a) = self.asks.iter().position(|a| a.0 == ask) {
            self.asks[a].1 -= 1;
            if self.asks[a].1 == 0 {
                self.asks.swap_remove(a);
            }
        }
        self.holding -= u32::from(holds);
        true
    }

    /// Moves every entry of `other` here.
    pub(super) fn absorb(&mut self, other: &mut Ranked) {
        if self.list.is_empty() {
            std::mem::swap(self, other);
            return;
        }
        // Two sorted runs: the stable sort merges them in one pass.
        self.list.append(&mut other.list);
        self.list.sort();
        for (ask, n) in other.asks.drain(..) {
            match self.asks.iter_mut().find(|a| a.0 == ask) {
                Some(a) => a.1 += n,
                None => self.asks.push((ask, n)),
            }
        }
        self.holding += std::mem::take(&mut other.holding);
    }
}

impl Locks {
    /// Marks the threads that block ceiling-refused waiters of `scope`
    /// (every holder of a ceiling-arbitrated unit there) for
    /// recomputation: a grant or release there can move the system
    /// ceiling, and with it whom those waiters lend their priority to.
    pub(super) fn touch_ceiling_holders(&mut self, scope: Cpu) {
        if self.ceiling[scope].refused.list.is_empty() {
            return;
        }
        for &u in &self.ceiling_units[scope] {
            for &(h, _) in &self.units[u].holders {
                self.dirty.insert(h);
            }
        }
    }

    /// Whether `t` has a woken request to retry.
    #[inline]
    pub fn woken(&self, t: Tid) -> bool {
        self.threads[t]
            .waiting
            .as_ref()
            .is_some_and(|w| self.is_woken(w))
    }

    /// Whether a request is woken: chosen from its queue without
    /// hand-off, or refused by a ceiling before the last release of its
    /// scope.
    #[inline]
    pub(super) fn is_woken(&self, w: &Waiting) -> bool {
        w.woken || {
            let rule = &self.cfg.rules[w.resource];
            rule.arbitration == Arbitration::Ceiling && w.batch != self.ceiling[rule.scope].wakes
        }
    }

    /// The woken ceiling waiters of `scope` that have not retried yet,
    /// highest effective priority first (the lower thread first among
    /// equals).
    pub fn ceiling_woken(&self, scope: Cpu) -> impl Iterator<Item = Tid> + '_ {
        self.ceiling
            .get(scope)
            .into_iter()
            .flat_map(|c| c.woken.list.iter().rev().map(|x| x.1.0))
    }

    /// Whether the woken ceiling waiters of `scope` all ask for the same
    /// resource and units and hold nothing. Then, if the highest one's
    /// retry is futile ([`Locks::retry_is_futile`]), so is every other's:
    /// the resource is held (by one of the others, whom they all wait
    /// for), or it is free and the highest is refused by a system ceiling
    /// that none of them holds, which refuses the lower ones as well and
    /// makes them wait for the same holder.
    pub fn ceiling_woken_alike(&self, scope: Cpu) -> bool {
        self.ceiling
            .get(scope)
            .is_none_or(|c| c.woken.asks.len() <= 1 && c.woken.holding == 0)
    }

    /// The number of ceiling scopes (CPUs, and synchronization CPUs).
    pub fn scopes(&self) -> usize {
        self.ceiling.len()
    }

    /// The scope of `t`'s woken ceiling request, if it has one.
    pub fn ceiling_scope(&self, t: Tid) -> Option<Cpu> {
        let w = self.threads[t].waiting.as_ref()?;
        let rule = &self.cfg.rules[w.resource];
        (rule.arbitration == Arbitration::Ceiling && self.is_woken(w)).then_some(rule.scope)
    }

    /// Whether retrying `t`'s woken ceiling request now would change
    /// nothing but the request's own list: it would be refused again and
    /// wait suspended, and whom it would wait for already runs at or above
    /// its priority (or its rule does not inherit), so nobody's priority
    /// would move. Until a release in its scope or a change of priority,
    /// such a retry stays futile, so a kernel may leave the thread asleep
    /// instead of waking it to find that out.
    pub fn retry_is_futile(&self, t: Tid) -> bool {
        let Some(w) = self.threads[t].waiting.as_ref() else {
            return false;
        };
        let rule = &self.cfg.rules[w.resource];
        if rule.arbitration != Arbitration::Ceiling || rule.wait != Wait::Suspend {
            return false;
        }
        if self.ceiling_admits(t, w.resource, w.units) {
            return false;
        }
        let e = self.threads[t].eff;
        if !rule.inherit {
            return true;
        }
        self.blocking(t, w).is_some_and(|b| {
            let be = self.threads[b].eff;
            (be.tier, be.key) >= (e.tier, e.key)
        })
    }

    /// Wakes the ceiling-refused requests of `scope`: any release there
    /// may lower the system ceiling, and the woken threads compete again
    /// by priority when they run. One more wake counted marks them all
    /// woken, and their list joins the woken list; where `named`, they
    /// are also named in thread order, as the kernel's dispatcher would
    /// find them. Returns whether any was woken.
    pub(super) fn wake_ceiling(&mut self, scope: Cpu, named: Option<&mut Vec<Granted>>) -> bool {
        if self.ceiling[scope].refused.list.is_empty() {
            return false;
        }
        // The holders they lent to lose it.
        self.touch_ceiling_holders(scope);
        let c = &mut self.ceiling[scope];
        c.wakes += 1;
        if let Some(granted) = named {
            let start = granted.len();
            for &(_, Reverse(x)) in &c.refused.list {
                // Every refused thread waits (see `enqueue`).
                let Some(w) = self.threads[x].waiting.as_ref() else {
                    continue;
                };
                granted.push(Granted {
                    thread: x,
                    resource: w.resource,
                    granted: false,
                });
            }
            granted[start..].sort_unstable_by_key(|g| g.thread);
        }
        let CeilingWaiters { refused, woken, .. } = c;
        woken.absorb(refused);
        true
    }

    /// The list that ranks ceiling waiter `t` (refused or woken), with
    /// its request and whether it holds something; `None` when `t` does
    /// not wait under a ceiling rule.
    pub(super) fn ranked_of(&mut self, t: Tid) -> Option<(&mut Ranked, Ask, bool)> {
        let th = &self.threads[t];
        let w = th.waiting.as_ref()?;
        let rule = &self.cfg.rules[w.resource];
        if rule.arbitration != Arbitration::Ceiling {
            return None;
        }
        let woken = self.is_woken(w);
        let (ask, holds) = ((w.resource, w.units), !th.held.is_empty());
        let c = &mut self.ceiling[rule.scope];
        Some((
            if woken { &mut c.woken } else { &mut c.refused },
            ask,
            holds,
        ))
    }

    /// Ceiling waiter `t` let its last section go (the machine allows a
    /// waiter to release; a kernel's waiter is asleep): its list no longer
    /// counts it among those holding something.
    pub(super) fn recount_holding(&mut self, t: Tid) {
        if let Some((list, _, _)) = self.ranked_of(t) {
            list.holding -= 1;
        }
    }

    /// Moves ceiling waiter `t`, whose priority changed, to its new place
    /// in its list.
    pub(super) fn rerank(&mut self, t: Tid) {
        let rank = (self.threads[t].eff, Reverse(t));
        if let Some((list, ask, holds)) = self.ranked_of(t)
            && list.remove(t, ask, holds)
        {
            list.insert(rank, ask, holds);
        }
    }

    /// The highest ceiling among ceiling-arbitrated resources of `scope`
    /// held by threads other than `t`, with the thread holding it.
    pub(super) fn ceiling_holder(&self, scope: Cpu, t: Tid) -> Option<(u64, Tid)> {
        let mut best: Option<(u64, Tid)> = None;
        for &r in &self.ceiling_units[scope] {
            let rule = &self.cfg.rules[r];
            for &(h, _) in &self.units[r].holders {
                if h != t && best.is_none_or(|(c, _)| rule.ceiling > c) {
                    best = Some((rule.ceiling, h));
                }
            }
        }
        best
    }

    /// PCP's test for `t` asking `units` of ceiling-arbitrated `r`: they
    /// are free, and `t`'s priority is above the system ceiling of the
    /// sections others hold in `r`'s scope.
    pub(super) fn ceiling_admits(&self, t: Tid, r: ResourceId, units: u32) -> bool {
        let rule = &self.cfg.rules[r];
        self.units[rule.unit].free >= units
            && self.threads[t].eff.key > self.system_ceiling(rule.scope, t)
    }

    pub(super) fn system_ceiling(&self, scope: Cpu, t: Tid) -> u64 {
        self.ceiling_holder(scope, t).map_or(0, |(c, _)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::machine;
    use super::*;
    use rtsync_model::Protocol;

    #[test]
    fn pcp_refuses_a_free_resource_below_the_system_ceiling_and_the_holder_inherits() {
        // t0 (1) holds r0, whose ceiling is t2's priority (3); t1 (2) asks
        // for r1, which is free: refused, as 2 is not above the ceiling 3.
        let mut m = machine(
            Protocol::Pcp,
            1,
            2,
            &[(1, 0, &[&[0]]), (2, 0, &[&[1]]), (3, 0, &[&[0], &[1]])],
        );
        m.lock(0, 0, 1).unwrap();
        assert!(!m.ceiling_admits(1, 1, 1));
        assert!(matches!(m.lock(1, 1, 1), Ok(Outcome::Wait { spin: false })));
        assert_eq!(m.ceiling_holder(0, 1).map(|(_, h)| h), Some(0));
        // The blocker runs at the priority of the job it blocks.
        assert_eq!(m.eff(0).key, 2);
        assert_eq!(m.ceiling_scope(1), None, "refused, not yet woken");
        // The release wakes the refused request; it is granted on retry.
        let g = m.unlock(0, 0).unwrap();
        assert_eq!((g[0].thread, g[0].granted), (1, false));
        assert!(m.woken(1));
        assert_eq!(m.ceiling_scope(1), Some(0));
        assert_eq!(m.retry(1), Ok(Outcome::Granted));
        assert_eq!(m.eff(0).key, 1);
    }

    #[test]
    fn a_thread_above_every_ceiling_is_admitted_while_others_hold() {
        // t0 (1) and t1 (2) use r0 (ceiling 2); t2 (5) alone uses r1.
        let mut m = machine(
            Protocol::Pcp,
            1,
            2,
            &[(1, 0, &[&[0]]), (2, 0, &[&[0]]), (5, 0, &[&[1]])],
        );
        m.lock(0, 0, 1).unwrap();
        assert_eq!(m.system_ceiling(0, 2), 2);
        assert_eq!(m.system_ceiling(0, 0), 0, "its own hold does not count");
        assert!(m.ceiling_admits(2, 1, 1));
        assert_eq!(m.lock(2, 1, 1), Ok(Outcome::Granted));
        // Now t1 faces the ceiling of both holds.
        assert_eq!(m.system_ceiling(0, 1), 5);
    }
}
