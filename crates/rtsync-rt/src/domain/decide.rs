//! Carrying out the machine's decisions: priorities and CPUs applied to
//! the threads they concern (the caller's own last, after the
//! bookkeeping lock is released), MrsP's helping placements remade.

use super::*;

impl Shared {
    pub(super) fn refused(
        &self,
        t: Tid,
        r: Option<usize>,
        e: rtsync_protocols::LockError,
    ) -> RtError {
        RtError::Refused {
            task: self.tasks[t].clone(),
            resource: r.map(|r| self.resources[r].clone()),
            error: e,
        }
    }

    /// Carries out the machine's priorities and locations for every bound
    /// thread, in `phase` (raises and migrations, or lowerings). `me`'s
    /// own moves (and, in `LowerDeferOwn`, its lowering) wait in
    /// `st.own` until it lets the lock go ([`Decision`]). Logs changes of
    /// effective priority.
    pub(super) fn apply(&self, st: &mut State, me: Tid, phase: Phase) -> Result<(), RtError> {
        let n = st.tid.len();
        let mut changed = std::mem::take(&mut st.changed);
        st.locks.take_changed(&mut changed);
        changed.iter().for_each(|&t| st.mark(t));
        // Any change of priority may change which woken ceiling waiter
        // runs first, or make a futile retry useful (see `wake_next`).
        if phase == Phase::Raise && !changed.is_empty() {
            self.wake_all_next(st);
        }
        st.changed = changed;
        // A waiter whose priority rose above the one a release woke, the
        // units still free, retries too (the machine marked it woken).
        let mut rewoken = std::mem::take(&mut st.rewoken);
        st.locks.take_rewoken(&mut rewoken);
        rewoken.iter().for_each(|&t| self.wake(t));
        st.rewoken = rewoken;
        let helping = phase == Phase::Raise && self.helping;
        if helping {
            // A lent holder's priority follows its spinner's as well.
            (0..n).for_each(|t| st.mark(t));
            self.replan(st);
        }
        if phase == Phase::Raise && self.opts.record {
            for i in 0..st.pending.len() {
                let t = st.pending[i];
                let now = st.locks.eff(t).shown(self.base[t], false);
                if now != st.shown[t] {
                    st.shown[t] = now;
                    st.record(Entry::Priority(t, now));
                }
            }
        }
        let mut pending = std::mem::take(&mut st.pending);
        // In thread order, as the kernel sees the changes.
        pending.sort_unstable();
        let out = self.carry_out_pending(st, &pending, me, phase);
        let on = &st.pending_on;
        pending.retain(|&t| on[t]);
        st.pending = pending;
        out?;
        // The holders are in the spinners' places (or back home): a
        // spinner that lends now stops spinning, one lent back resumes.
        if helping {
            st.plan.lend.iter().for_each(|&s| self.wake(s));
        }
        Ok(())
    }

    /// [`Shared::apply`]'s decisions for the threads of `pending`.
    pub(super) fn carry_out_pending(
        &self,
        st: &mut State,
        pending: &[Tid],
        me: Tid,
        phase: Phase,
    ) -> Result<(), RtError> {
        for &t in pending {
            let Some(tid) = st.tid[t].filter(|_| self.opts.realtime) else {
                // Unbound, or nothing to carry out (not real-time).
                st.pending_on[t] = false;
                continue;
            };
            // A helping holder runs where the spinner is, at the higher
            // of the two priorities (the spinner's CPU is its now).
            let (eff, loc) = match st.lent[t] {
                Some(l) => (st.locks.eff(t).max(st.locks.eff(l.spinner)), l.cpu),
                None => (st.locks.eff(t), st.locks.location(t)),
            };
            let want = self.map.fifo(eff);
            let cpu = crate::placement::machine_cpu(&self.cpu_map, loc);
            let slot = &self.slots[t];
            let change = match (phase, st.prio[t]) {
                (_, None) => phase == Phase::Raise,
                (Phase::Raise, Some(p)) => want > p,
                (Phase::Lower | Phase::LowerDeferOwn, Some(p)) => want < p,
            };
            let prio = change.then(|| {
                st.prio[t] = Some(want);
                (want, slot.epoch.next())
            });
            let moves = phase == Phase::Raise && st.cpu[t] != Some(cpu);
            let cpu_to = moves.then(|| {
                st.cpu[t] = Some(cpu);
                (cpu, slot.cpu_epoch.next())
            });
            // Reconciled (or about to be, by its own decision): off the
            // list until something changes it again.
            if st.prio[t] == Some(want) && st.cpu[t] == Some(cpu) {
                st.pending_on[t] = false;
            }
            let d = Decision {
                t,
                tid,
                prio,
                cpu: cpu_to,
                lower: phase != Phase::Raise,
            };
            if t != me {
                self.carry_out(d)?;
                continue;
            }
            // Raising itself never stalls the caller (it runs);
            // moving itself or lowering itself at a release waits.
            let (now, later) = match phase {
                Phase::Raise => (Decision { cpu: None, ..d }, Decision { prio: None, ..d }),
                Phase::LowerDeferOwn => (Decision { prio: None, ..d }, d),
                Phase::Lower => (d, Decision { prio: None, ..d }),
            };
            self.carry_out(now)?;
            if later.prio.is_some() || later.cpu.is_some() {
                st.own = Some(match st.own {
                    Some(o) => o.then(later),
                    None => later,
                });
            }
        }
        Ok(())
    }

    /// Carries out a decision's parts that are still the newest, in the
    /// order that never leaves the thread waiting on the way.
    pub(super) fn carry_out(&self, d: Decision) -> Result<(), RtError> {
        if d.prio.is_none() && d.cpu.is_none() {
            return Ok(());
        }
        let slot = &self.slots[d.t];
        slot.prio_lock.lock();
        let prio = || match d.prio {
            Some((want, e)) if slot.epoch.is_newest(e) => self
                .set_applied(slot, d.tid, Some(want))
                .map_err(|error| RtError::Os {
                    what: format!(
                        "setting task `{}` to SCHED_FIFO priority {want}",
                        self.tasks[d.t]
                    ),
                    error,
                }),
            _ => Ok(()),
        };
        let cpu = || match d.cpu {
            Some((cpu, e)) if slot.cpu_epoch.is_newest(e) => {
                sys::move_thread(d.tid, cpu).map_err(|error| RtError::Os {
                    what: format!("pinning task `{}` to CPU {cpu}", self.tasks[d.t]),
                    error,
                })
            }
            _ => Ok(()),
        };
        let out = if d.lower {
            cpu().and_then(|_| prio())
        } else {
            prio().and_then(|_| cpu())
        };
        // SAFETY: locked above by this thread.
        unsafe { slot.prio_lock.unlock() };
        out
    }

    /// Remakes MrsP's helping placements ([`crate::helping::plan`]) from
    /// what the runtime knows now; leaves in `st.plan.lend` the spinners
    /// whose lending changed, to be woken once the holders have moved.
    ///
    /// Runs under the bookkeeping lock, so it works in `st.plan`'s
    /// storage, sized when the domain was made, and allocates nothing.
    pub(super) fn replan(&self, st: &mut State) {
        let n = st.tid.len();
        st.plan.lend.clear();
        // Nobody spins and nobody is lent: nothing to place (the common
        // case).
        if st.lent.iter().all(Option::is_none) && !(0..n).any(|t| st.locks.spinning(t)) {
            return;
        }
        let mut plan = std::mem::take(&mut st.plan);
        plan.runnable.clear();
        plan.runnable.extend((0..n).map(|t| {
            st.tid[t].is_some()
                && !st.starting[t]
                && match st.locks.waiting(t) {
                    Some(_) => st.locks.spinning(t),
                    None => st.active[t] || st.locks.holds_any(t),
                }
        }));
        helping::plan(&st.locks, &plan.runnable, &mut plan.slots, &mut plan.places);
        if plan.places != st.lent {
            self.lend(st, &mut plan);
        }
        st.plan = plan;
    }

    /// Carries out a new helping decision, `plan.places`: the spinners
    /// that begin or stop lending into `plan.lend`, the places into
    /// `st.lent` (the old ones into the plan's storage).
    fn lend(&self, st: &mut State, plan: &mut Plan) {
        let n = st.tid.len();
        let places = &plan.places;
        plan.lend.extend(
            (0..n).filter(|&s| helping::lending(places, s) != helping::lending(&st.lent, s)),
        );
        for (t, p) in places.iter().enumerate() {
            if let Some(l) = p
                && self.opts.record
                && st.lent[t] != *p
            {
                st.record(Entry::Helping(t, l.cpu));
            }
        }
        std::mem::swap(&mut st.lent, &mut plan.places);
    }

    /// The index of the pair (`t`, `r`) in the per-pair tables.
    #[inline]
    pub(super) fn pair(&self, t: Tid, r: usize) -> usize {
        t * self.resources.len() + r
    }

    /// The calling thread, task `t`, sets its own SCHED_FIFO priority on
    /// the fast path (one system call, like PRIO_PROTECT's).
    pub(super) fn set_own_priority(&self, t: Tid, p: i32) -> Result<(), RtError> {
        let slot = &self.slots[t];
        slot.with_prio_lock(|| self.set_applied(slot, 0, Some(p)))
            .map_err(|error| RtError::Os {
                what: format!(
                    "setting task `{}` to SCHED_FIFO priority {p}",
                    self.tasks[t]
                ),
                error,
            })
    }
}
