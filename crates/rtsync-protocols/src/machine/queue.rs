//! Queue arbitration (`Arbitration::Queue`): a request is granted when
//! enough units are free and no queued waiter outranks it; otherwise it
//! waits in the resource's queue, in FIFO or priority order, and a
//! release serves the queue (hand-off) or wakes its head (PIP's release).

use super::*;

impl Locks {
    /// Whether a new request of `t` for `units` of `unit`, a queue without
    /// hand-off (PIP), is granted at once: the units are free and no
    /// waiter still queued outranks `t`.
    ///
    /// Without hand-off a release wakes the top waiter and takes it out of
    /// the queue; the units stay free until it runs and retries. Meanwhile
    /// the waiters still queued are lower than the woken one, and the
    /// running requester is at least as high as every ready job of its CPU,
    /// so it takes the free units, as Sha, Rajkumar and Lehoczky's PIP
    /// gives a free semaphore to the job that asks (Linux rt-mutexes reach
    /// the same by lock stealing). Refusing it because the queue is not
    /// empty made it wait for units nobody holds: no holder inherits, and
    /// any middle-priority job runs ahead of it (unbounded inversion, found
    /// by the soundness search at 2.5 times PIP's bound).
    pub(super) fn free_for(&self, t: Tid, unit: usize, units: u32) -> bool {
        let u = &self.units[unit];
        if u.free < units {
            return false;
        }
        let mine = (self.threads[t].eff.tier, self.threads[t].eff.key);
        u.queue.iter().all(|&w| {
            let e = self.threads[w].eff;
            (e.tier, e.key) <= mine
        })
    }

    /// `t`'s priority rose: where it waits, still queued, for units of a
    /// queue without hand-off that are free and held by nobody, it is
    /// woken to retry as a release wakes the top waiter ([`Locks::take_rewoken`]).
    /// A release's wakes leave the units free until the woken waiter
    /// retries; one still queued that now outranks it would otherwise
    /// wait for units nobody holds, lending to nobody.
    pub(super) fn wake_raised(&mut self, t: Tid) {
        let Some(w) = self.threads[t]
            .waiting
            .as_ref()
            .filter(|w| !self.is_woken(w))
        else {
            return;
        };
        let rule = &self.cfg.rules[w.resource];
        let u = &self.units[rule.unit];
        if rule.handoff
            || !matches!(rule.arbitration, Arbitration::Queue(_))
            || !u.holders.is_empty()
            || u.free < w.units
        {
            return;
        }
        let unit = rule.unit;
        self.units[unit].queue.retain(|&x| x != t);
        if let Some(w) = self.threads[t].waiting.as_mut() {
            w.woken = true;
        }
        self.rewoken.push(t);
    }

    pub(super) fn mark_unsorted(&mut self, unit: usize) {
        if !self.unsorted.contains(&unit) {
            self.unsorted.push(unit);
        }
    }

    /// Whether `unit`'s queue is kept in priority order (its head is the
    /// next waiter served and the highest one).
    pub(super) fn priority_ordered(&self, unit: usize) -> bool {
        matches!(
            self.cfg.rules[unit].arbitration,
            Arbitration::Queue(Order::Priority) | Arbitration::Stack
        )
    }

    /// Grants queued requests of `unit` while they fit: FIFO takes the
    /// head, priority order the highest effective priority (earliest
    /// request among equals). A waiter that does not fit stops the scan, so
    /// a large request is not overtaken forever.
    /// Without hand-off, the chosen waiter leaves the queue woken (see
    /// [`crate::Rule::handoff`]) and the scan stops.
    pub(super) fn serve_queue(
        &mut self,
        unit: usize,
        order: Order,
        handoff: bool,
        granted: &mut Vec<Granted>,
    ) {
        loop {
            let q = &self.units[unit].queue;
            if q.is_empty() {
                return;
            }
            // A priority-ordered queue is kept sorted (see `refresh`),
            // unless an append or a priority change since is pending.
            let pick = match order {
                Order::Priority if self.unsorted.contains(&unit) => {
                    let mut best = 0;
                    for i in 1..q.len() {
                        if self.queue_key(q[i]) > self.queue_key(q[best]) {
                            best = i;
                        }
                    }
                    best
                }
                Order::Fifo | Order::Priority => 0,
            };
            let w = q[pick];
            // Every queued thread waits (it is queued only by `enqueue`
            // and leaves the queue before its request ends); one that
            // did not would only be dropped from the queue.
            let Some(wt) = self.threads[w].waiting.clone() else {
                self.units[unit].queue.remove(pick);
                continue;
            };
            if self.units[unit].free < wt.units {
                return;
            }
            self.units[unit].queue.remove(pick);
            if !handoff {
                if let Some(x) = self.threads[w].waiting.as_mut() {
                    x.woken = true;
                }
                granted.push(Granted {
                    thread: w,
                    resource: wt.resource,
                    granted: false,
                });
                return;
            }
            self.take(w, wt.resource, wt.units, wt.issued);
            granted.push(Granted {
                thread: w,
                resource: wt.resource,
                granted: true,
            });
        }
    }

    pub(super) fn queue_key(&self, t: Tid) -> (Tier, u64, Reverse<u64>) {
        let th = &self.threads[t];
        let issued = th.waiting.as_ref().map_or(u64::MAX, |w| w.issued);
        (th.eff.tier, th.eff.key, Reverse(issued))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::machine;
    use super::*;
    use rtsync_model::Protocol;

    /// t0 holds r0 on CPU 0; t1 (priority 1) then t2 (priority 3) ask for
    /// it from CPU 1 and wait.
    fn contended(p: Protocol) -> Locks {
        let mut m = machine(
            p,
            2,
            1,
            &[(2, 0, &[&[0]]), (1, 1, &[&[0]]), (3, 1, &[&[0]])],
        );
        assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted));
        assert!(matches!(m.lock(1, 0, 1), Ok(Outcome::Wait { .. })));
        assert!(matches!(m.lock(2, 0, 1), Ok(Outcome::Wait { .. })));
        m
    }

    #[test]
    fn a_fifo_queue_serves_in_request_order_and_a_priority_queue_by_priority() {
        // FMLP-L and MrsP queue in FIFO order, MPCP by priority; all hand
        // the resource over at the release.
        for (p, first) in [
            (Protocol::FmlpL, 1),
            (Protocol::Mrsp, 1),
            (Protocol::Mpcp, 2),
        ] {
            let mut m = contended(p);
            let g = m.unlock(0, 0).unwrap();
            assert_eq!(g.len(), 1, "{p}");
            assert_eq!((g[0].thread, g[0].granted), (first, true), "{p}");
            assert_eq!(m.holders(0).collect::<Vec<_>>(), vec![first], "{p}");
            let next = m.unlock(first, 0).unwrap();
            assert_eq!(next[0].thread, 3 - first, "{p}");
        }
    }

    #[test]
    fn without_hand_off_the_release_wakes_the_top_waiter_and_a_higher_request_may_take_first() {
        // PIP on one CPU: t0 holds, t1 waits; the release only wakes t1.
        let mut m = machine(
            Protocol::Pip,
            1,
            1,
            &[(1, 0, &[&[0]]), (2, 0, &[&[0]]), (3, 0, &[&[0]])],
        );
        m.lock(0, 0, 1).unwrap();
        assert!(matches!(m.lock(1, 0, 1), Ok(Outcome::Wait { spin: false })));
        let g = m.unlock(0, 0).unwrap();
        assert_eq!((g[0].thread, g[0].granted), (1, false));
        assert!(m.free_for(2, 0, 1));
        // t2, higher and running first, takes the free unit (Sha et al.'s
        // release; Linux's lock stealing); t1's retry then waits again.
        assert_eq!(m.lock(2, 0, 1), Ok(Outcome::Granted));
        assert!(matches!(m.retry(1), Ok(Outcome::Wait { .. })));
        assert!(!m.free_for(1, 0, 1));
    }

    /// PIP without hand-off: `a` (priority 1) releases r0 and the top
    /// waiter `w` (3) is woken, the units left free until it retries; `v`
    /// (2), still queued for r0 and holding r1, then inherits 5 from `h`,
    /// which asks for r1. `v` is above the woken `w` and waits for units
    /// nobody holds: lending to nobody, it would let every job between 3
    /// and 5 run ahead of it (the soundness search's seed-61 PIP system,
    /// the simulator's invariant). The machine wakes it to retry, and the
    /// retry takes r0.
    #[test]
    fn a_queued_waiter_raised_above_the_woken_one_is_woken() {
        let mut m = machine(
            Protocol::Pip,
            1,
            2,
            &[
                (1, 0, &[&[0]]),
                (2, 0, &[&[1, 0]]),
                (3, 0, &[&[0]]),
                (5, 0, &[&[1]]),
            ],
        );
        let (a, v, w, h) = (0, 1, 2, 3);
        assert_eq!(m.lock(a, 0, 1), Ok(Outcome::Granted));
        assert_eq!(m.lock(v, 1, 1), Ok(Outcome::Granted));
        assert!(matches!(m.lock(v, 0, 1), Ok(Outcome::Wait { .. })));
        assert!(matches!(m.lock(w, 0, 1), Ok(Outcome::Wait { .. })));
        let woken = m.unlock(a, 0).unwrap();
        assert_eq!(woken.len(), 1);
        assert_eq!((woken[0].thread, woken[0].granted), (w, false));
        let mut out = Vec::new();
        m.take_rewoken(&mut out);
        assert!(out.is_empty(), "nobody rose yet");
        assert!(!m.woken(v));
        assert!(matches!(m.lock(h, 1, 1), Ok(Outcome::Wait { .. })));
        assert_eq!(m.eff(v).key, 5, "v inherits from h");
        m.take_rewoken(&mut out);
        assert_eq!(out, [v]);
        assert!(m.woken(v));
        assert_eq!(m.retry(v), Ok(Outcome::Granted));
        // The woken `w`, retrying after, waits again (v holds r0 now).
        assert!(matches!(m.retry(w), Ok(Outcome::Wait { .. })));
    }

    /// A waiter whose priority rises while its resource is held stays
    /// queued: the holder inherits, as PIP says.
    #[test]
    fn a_raised_waiter_of_a_held_resource_stays_queued() {
        let mut m = machine(
            Protocol::Pip,
            1,
            2,
            &[(1, 0, &[&[0]]), (2, 0, &[&[1, 0]]), (5, 0, &[&[1]])],
        );
        let (a, v, h) = (0, 1, 2);
        assert_eq!(m.lock(a, 0, 1), Ok(Outcome::Granted));
        assert_eq!(m.lock(v, 1, 1), Ok(Outcome::Granted));
        assert!(matches!(m.lock(v, 0, 1), Ok(Outcome::Wait { .. })));
        assert!(matches!(m.lock(h, 1, 1), Ok(Outcome::Wait { .. })));
        let mut out = Vec::new();
        m.take_rewoken(&mut out);
        assert!(out.is_empty());
        assert!(!m.woken(v));
        assert_eq!(m.eff(a).key, 5, "through v, a inherits h's priority");
    }
}
