//! The machine's invariants, checked against a recomputation from
//! scratch: used by the tests and the simulator's checked mode.

use super::*;

impl Locks {
    /// Checks the incrementally kept state against a recomputation from
    /// scratch: every effective priority and location (own priority, then
    /// inheritance along the blocking relation over all threads until
    /// nothing changes), priority-ordered queues sorted, and the lists of
    /// ceiling-refused waiters. For tests; quadratic in the threads.
    pub fn verify(&self) -> Result<(), String> {
        let n = self.threads.len();
        let mut eff: Vec<Eff> = (0..n).map(|t| self.own_eff(t)).collect();
        for _ in 0..=n {
            let mut changed = false;
            for w in 0..n {
                let inherits = self.lends(w);
                let Some(b) = self.blocker(w).filter(|&b| inherits && b != w) else {
                    continue;
                };
                let we = eff[w];
                if (we.tier, we.key) > (eff[b].tier, eff[b].key) {
                    eff[b].tier = we.tier;
                    eff[b].key = we.key;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (t, &e) in eff.iter().enumerate() {
            if self.threads[t].eff != e {
                return Err(format!(
                    "thread {t}: effective priority {:?}, from scratch {e:?}",
                    self.threads[t].eff
                ));
            }
            let loc = self.compute_location(t);
            if self.loc[t] != loc {
                return Err(format!(
                    "thread {t}: on CPU {}, from scratch {loc}",
                    self.loc[t]
                ));
            }
        }
        for (u, unit) in self.units.iter().enumerate() {
            if self.priority_ordered(u) && !self.unsorted.contains(&u) {
                let keys: Vec<_> = unit.queue.iter().map(|&w| self.queue_key(w)).collect();
                if keys.windows(2).any(|k| k[0] < k[1]) {
                    return Err(format!(
                        "unit {u}: queue {:?} out of priority order",
                        unit.queue
                    ));
                }
            }
        }
        for t in 0..n {
            let Some(w) = &self.threads[t].waiting else {
                continue;
            };
            let rule = &self.cfg.rules[w.resource];
            let ceiling = rule.arbitration == Arbitration::Ceiling;
            let woken = self.is_woken(w);
            let c = &self.ceiling[rule.scope];
            let rank = (self.threads[t].eff, Reverse(t));
            for (name, list, on) in [
                ("refused", &c.refused.list, ceiling && !woken),
                ("woken", &c.woken.list, ceiling && woken),
            ] {
                let listed = list.iter().find(|x| x.1.0 == t);
                if listed.is_some() != on {
                    return Err(format!(
                        "thread {t}: ceiling-{name} {on}, listed {}",
                        listed.is_some()
                    ));
                }
                if listed.is_some_and(|x| *x != rank) {
                    return Err(format!(
                        "thread {t}: listed as {listed:?} among the ceiling-{name}, ranks {rank:?}"
                    ));
                }
            }
        }
        for (scope, c) in self.ceiling.iter().enumerate() {
            for (name, ranked) in [("refused", &c.refused), ("woken", &c.woken)] {
                let list = &ranked.list;
                let mut asks: Vec<(Ask, u32)> = Vec::new();
                let mut holding = 0;
                for &(_, Reverse(t)) in list {
                    if let Some(w) = &self.threads[t].waiting {
                        match asks.iter_mut().find(|a| a.0 == (w.resource, w.units)) {
                            Some(a) => a.1 += 1,
                            None => asks.push(((w.resource, w.units), 1)),
                        }
                    }
                    holding += u32::from(!self.threads[t].held.is_empty());
                }
                let mut kept = ranked.asks.clone();
                kept.sort_unstable();
                asks.sort_unstable();
                if (kept, ranked.holding) != (asks.clone(), holding) {
                    return Err(format!(
                        "scope {scope}: ceiling-{name} summary {:?} holding {}, from scratch {asks:?} holding {holding}",
                        ranked.asks, ranked.holding
                    ));
                }
                if list.windows(2).any(|x| x[0] >= x[1]) {
                    return Err(format!(
                        "scope {scope}: ceiling-{name} {list:?} out of order"
                    ));
                }
                let wrong = list.iter().find(|x| {
                    let t = x.1.0;
                    self.threads[t].waiting.as_ref().is_none_or(|w| {
                        self.cfg.rules[w.resource].scope != scope
                            || self.is_woken(w) != (name == "woken")
                    })
                });
                if let Some(x) = wrong {
                    return Err(format!(
                        "scope {scope}: {x:?} listed among the ceiling-{name}"
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::machine;
    use super::*;
    use rtsync_model::Protocol;

    #[test]
    fn a_consistent_machine_verifies_and_a_wrong_priority_is_caught() {
        let mut m = machine(Protocol::Pip, 1, 1, &[(1, 0, &[&[0]]), (2, 0, &[&[0]])]);
        m.lock(0, 0, 1).unwrap();
        m.lock(1, 0, 1).unwrap();
        assert_eq!(m.verify(), Ok(()));
        // The holder should inherit 2; claim it runs at its base.
        m.threads[0].eff = Eff::normal(1, 0);
        assert!(m.verify().is_err());
    }
}
