//! The slow path: requests and releases through the machine under the
//! bookkeeping lock, and the fast path's compare-and-swap where the
//! resource's gate is open.

use super::*;

impl Shared {
    /// Requests `units` of `r` for `t` and waits until granted. Returns
    /// whether the resource was marked inconsistent.
    pub(crate) fn acquire(&self, t: Tid, r: usize, units: u32) -> Result<bool, RtError> {
        let out = self.acquire_any(t, r, units);
        if out.is_ok() {
            self.trace(t, Traced::Granted(r));
        }
        out
    }

    /// With [`Options::trace`], appends `ev` to `t`'s own trace, now.
    #[inline]
    pub(super) fn trace(&self, t: Tid, ev: Traced) {
        if self.opts.trace {
            let trace = &self.slots[t].trace;
            let lock = || trace.lock().unwrap_or_else(|e| e.into_inner());
            let mut v = lock();
            v.push((Instant::now(), ev));
            let spare = v.wants_spare().then(|| v.chunk());
            drop(v);
            // The append took the spare chunk: the next is made outside
            // the trace's lock, which a reader may be waiting for.
            if let Some(chunk) = spare {
                let made = journal::fresh(chunk, (Instant::now(), ev));
                let unused = lock().give_spare(made);
                drop(unused);
            }
        }
    }

    /// [`Shared::acquire`] on whichever path fits: the kernel's PI futex,
    /// the fast path, or the machine.
    pub(super) fn acquire_any(&self, t: Tid, r: usize, units: u32) -> Result<bool, RtError> {
        if let Some(k) = &self.kernel {
            if k.runs(r) {
                return self.kernel_acquire(k, t, r, units);
            }
            if let Some(held) = k.held(t).next_back() {
                return Err(self.undeclared(t, r, held));
            }
        }
        let slot = &self.slots[t];
        // The priority this thread raised itself to for a fast attempt.
        let mut raise = 0;
        if units == 1 && self.paths.fast[self.pair(t, r)] && slot.depth.load(Ordering::Relaxed) == 0
        {
            let g = self.paths.fast_gate[r];
            let gate = &self.paths.gate[g];
            let me = gate::word(t, r);
            // IPCP's immediate ceiling: raised before the section is
            // entered, so it never runs below it. Nobody else decides
            // this thread's priority meanwhile: it holds and waits for
            // nothing the machine knows.
            raise = self.paths.fast_raise[self.pair(t, r)];
            if raise != 0 {
                self.set_own_priority(t, raise)?;
            }
            // Recording: the log must show the grant where it happened.
            let mut st = self.opts.record.then(|| self.books(t)).transpose()?;
            if gate.take(me) {
                slot.depth.store(1, Ordering::Relaxed);
                slot.fast_gate.store(g + 1, Ordering::Relaxed);
                let n = slot.fast.load(Ordering::Relaxed);
                slot.fast.store(n + 1, Ordering::Relaxed);
                return Ok(match st.as_mut() {
                    Some(st) => self.granted(st, t, r),
                    None => self.inconsistent[r].load(Ordering::Relaxed),
                });
            }
        }
        let cpus = self.cpus(t, Some(r));
        let mut st = self.books(t)?;
        if raise != 0 {
            // Raised for a fast grant the gate then refused.
            st.prio[t] = Some(raise);
            st.mark(t);
        }
        self.settle(&mut st, cpus);
        let out = self.acquire_locked(&mut st, t, r, units);
        self.reopen(&st, cpus);
        let done = self.unlock(st);
        let out = out.and_then(|inconsistent| done.map(|()| inconsistent));
        if out.is_ok() {
            let d = slot.depth.load(Ordering::Relaxed);
            slot.depth.store(d + 1, Ordering::Relaxed);
        }
        out
    }

    /// The machine's part of [`Shared::acquire`], with the CPUs concerned
    /// settled; the bookkeeping lock is let go only while waiting.
    pub(super) fn acquire_locked(
        &self,
        st: &mut Books<'_>,
        t: Tid,
        r: usize,
        units: u32,
    ) -> Result<bool, RtError> {
        let out = st
            .locks
            .lock(t, r, units)
            .map_err(|e| self.refused(t, Some(r), e))?;
        let spin = match out {
            Outcome::Granted => {
                self.apply(st, t, Phase::Raise)?;
                return Ok(self.granted(st, t, r));
            }
            Outcome::Wait { spin } => spin,
        };
        if let Some(cycle) = st.locks.wait_cycle(t) {
            let _ = st.locks.cancel(t);
            let cycle = cycle
                .iter()
                .map(|&(x, r)| (self.tasks[x].clone(), self.resources[r].clone()))
                .collect();
            return Err(RtError::Deadlock { cycle });
        }
        // The holder inherits (or the waiter moves, or is made
        // non-preemptive to spin) before the waiter sleeps; a waiter that
        // raised itself for a fast grant the gate refused comes down
        // (itself, once it lets the lock go: a releaser must not lower
        // every such waiter while its successor waits for the lock).
        self.apply(st, t, Phase::Raise)?;
        self.apply(st, t, Phase::LowerDeferOwn)?;
        let start = Instant::now();
        let deadline = start + self.opts.wait_limit;
        loop {
            let seen = self.slots[t].wake.load(Ordering::Acquire);
            // A spinner whose CPU runs the holder sleeps until lent back.
            let spin = spin && !helping::lending(&st.lent, t);
            self.unlocked(st, || self.sleep(t, seen, spin, deadline))?;
            if st.locks.waiting(t).is_none() {
                // Handed over by the release that woke us.
                return Ok(self.granted(st, t, r));
            }
            if st.locks.woken(t) {
                // Woken to compete again (PIP, PCP, SRP: no hand-over);
                // the next ceiling-woken waiter follows once this one
                // has had its turn.
                let scope = st.locks.ceiling_scope(t);
                let out = st.locks.retry(t).map_err(|e| self.refused(t, Some(r), e));
                self.forget_woken(st, t, scope);
                let out = out?;
                self.apply(st, t, Phase::Raise)?;
                if out == Outcome::Granted {
                    return Ok(self.granted(st, t, r));
                }
                continue;
            }
            if Instant::now() >= deadline {
                let _ = st.locks.cancel(t);
                self.apply(st, t, Phase::Raise)?;
                self.apply(st, t, Phase::Lower)?;
                return Err(RtError::Timeout {
                    task: self.tasks[t].clone(),
                    resource: self.resources[r].clone(),
                    waited: start.elapsed(),
                });
            }
        }
    }

    pub(super) fn granted(&self, st: &mut Books<'_>, t: Tid, r: usize) -> bool {
        if self.opts.record {
            st.record(Entry::Granted(t, r));
        }
        self.inconsistent[r].load(Ordering::Relaxed)
    }

    /// Releases `r`, `t`'s innermost section; `inconsistent` marks its
    /// data as possibly broken (the owner panicked or died inside), and
    /// `Some(false)` clears the mark (the owner restored it).
    pub(crate) fn release(
        &self,
        t: Tid,
        r: usize,
        inconsistent: Option<bool>,
    ) -> Result<(), RtError> {
        // Before the release: whoever is granted next traces after it.
        self.trace(t, Traced::Released(r));
        if let Some(k) = &self.kernel
            && k.runs(r)
        {
            return self.kernel_release(k, t, r, inconsistent);
        }
        let slot = &self.slots[t];
        if inconsistent.is_none() && self.paths.fast[self.pair(t, r)] {
            let gate = &self.paths.gate[self.paths.fast_gate[r]];
            let mut st = self.opts.record.then(|| self.books(t)).transpose()?;
            if gate.give_back(gate::word(t, r)) {
                slot.depth.store(0, Ordering::Relaxed);
                slot.fast_gate.store(0, Ordering::Relaxed);
                if self.paths.fast_raise[self.pair(t, r)] != 0 {
                    // Lowered last, the section closed: as a releaser.
                    self.set_own_priority(t, self.paths.base_fifo[t])?;
                }
                if let Some(st) = st.as_mut() {
                    st.record(Entry::Released(t, r));
                }
                return Ok(());
            }
        }
        let cpus = self.cpus(t, Some(r));
        let mut st = self.books(t)?;
        self.settle(&mut st, cpus);
        let out = self.release_locked(&mut st, t, r, inconsistent);
        self.reopen(&st, cpus);
        let done = self.unlock(st);
        out?;
        let d = slot.depth.load(Ordering::Relaxed).saturating_sub(1);
        slot.depth.store(d, Ordering::Relaxed);
        if d == 0 {
            // The outermost section, the only one that can be fast.
            slot.fast_gate.store(0, Ordering::Relaxed);
        }
        done
    }

    /// The machine's part of [`Shared::release`].
    pub(super) fn release_locked(
        &self,
        st: &mut Books<'_>,
        t: Tid,
        r: usize,
        inconsistent: Option<bool>,
    ) -> Result<(), RtError> {
        // The grants go into the state's own vector, sized for every
        // thread: nothing allocates under the bookkeeping lock.
        let mut handed = std::mem::take(&mut st.granted);
        let out = match st.locks.unlock_into(t, r, &mut handed) {
            Ok(_) => self.grant_and_lower(st, t, r, inconsistent, &handed),
            Err(e) => Err(self.refused(t, Some(r), e)),
        };
        st.granted = handed;
        out
    }

    /// The rest of [`Shared::release_locked`], once the machine has let
    /// `r` go and granted `handed`.
    fn grant_and_lower(
        &self,
        st: &mut Books<'_>,
        t: Tid,
        r: usize,
        inconsistent: Option<bool>,
        handed: &[rtsync_protocols::Granted],
    ) -> Result<(), RtError> {
        if let Some(m) = inconsistent {
            self.inconsistent[r].store(m, Ordering::Relaxed);
        }
        if self.opts.record {
            st.record(Entry::Released(t, r));
        }
        self.apply(st, t, Phase::Raise)?;
        for g in handed {
            self.wake(g.thread);
        }
        // The release may let a woken ceiling waiter of its scope through,
        // those it woke now or earlier ones left asleep.
        let scope = st.locks.config().rules[r].scope;
        self.wake_next(st, scope);
        for x in 0..st.starting.len() {
            if st.starting[x] {
                self.wake(x);
            }
        }
        self.apply(st, t, Phase::LowerDeferOwn)
    }
}
