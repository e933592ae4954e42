//! A thread bound to a task: its jobs' beginnings and ends, its requests
//! and releases by index, and what dropping it releases.

use super::*;

impl Binding {
    /// The task this thread is bound to (its index in the system).
    pub fn task(&self) -> Tid {
        self.t
    }

    /// Starts a job: the task's next job gets its place among equal
    /// priorities, and under SRP it waits until its preemption level
    /// passes the system ceiling (Baker 1991: a job that starts never
    /// blocks afterwards).
    pub fn job_begin(&self) -> Result<(), RtError> {
        let cpus = self.sh.cpus(self.t, None);
        let mut st = self.sh.books(self.t)?;
        self.sh.settle(&mut st, cpus);
        let out = self.start(&mut st);
        self.sh.reopen(&st, cpus);
        let done = self.sh.unlock(st);
        out.and(done)
    }

    pub(super) fn start(&self, st: &mut Books<'_>) -> Result<(), RtError> {
        st.seq += 1;
        let seq = st.seq;
        let base = self.sh.base[self.t];
        st.locks
            .set_base(self.t, base, seq)
            .map_err(|e| self.sh.refused(self.t, None, e))?;
        let deadline = Instant::now() + self.sh.opts.wait_limit;
        while !st.locks.may_start(self.t) {
            if Instant::now() >= deadline {
                st.starting[self.t] = false;
                return Err(RtError::Timeout {
                    task: self.sh.tasks[self.t].clone(),
                    resource: "(SRP start test)".into(),
                    waited: self.sh.opts.wait_limit,
                });
            }
            st.starting[self.t] = true;
            let seen = self.sh.slots[self.t].wake.load(Ordering::Acquire);
            self.sh
                .unlocked(st, || self.sh.sleep(self.t, seen, false, deadline))?;
        }
        st.starting[self.t] = false;
        st.active[self.t] = true;
        // The new job may preempt a holder that a spinner elsewhere can
        // run (MrsP's helping).
        self.rehelp(st)
    }

    /// Carries out MrsP's helping after a job began or ended, or a
    /// thread left the domain.
    pub(super) fn rehelp(&self, st: &mut Books<'_>) -> Result<(), RtError> {
        if !self.sh.helping {
            return Ok(());
        }
        self.sh.apply(st, self.t, Phase::Raise)?;
        self.sh.apply(st, self.t, Phase::Lower)
    }

    /// Ends a job: it must hold nothing.
    pub fn job_end(&self) -> Result<(), RtError> {
        self.sh.trace(self.t, Traced::Completed);
        if let Some(k) = &self.sh.kernel {
            self.sh.kernel_job_end(k, self.t)?;
        }
        let cpus = self.sh.cpus(self.t, None);
        let mut st = self.sh.books(self.t)?;
        self.sh.settle(&mut st, cpus);
        let done = st.locks.job_done(self.t);
        self.sh.reopen(&st, cpus);
        done.map_err(|e| self.sh.refused(self.t, None, e))?;
        st.active[self.t] = false;
        if self.sh.opts.record {
            st.record(Entry::Completed(self.t));
        }
        // The holder this job preempted may be running in a spinner's
        // place: it comes home (MrsP's helping).
        let out = self.rehelp(&mut st);
        let done = self.sh.unlock(st);
        out.and(done)
    }

    /// Requests `units` of resource `r` (by index) and waits for them.
    /// Returns whether a previous owner left the resource inconsistent.
    pub fn lock(&self, r: usize, units: u32) -> Result<bool, RtError> {
        self.sh.acquire(self.t, r, units)
    }

    /// Releases resource `r`, which must be the innermost section held.
    pub fn unlock(&self, r: usize) -> Result<(), RtError> {
        self.sh.release(self.t, r, None)
    }
}

impl Drop for Binding {
    fn drop(&mut self) {
        // Robustness: whatever the task still holds is released, innermost
        // first, and marked inconsistent for the next owner; a pending
        // request is withdrawn. Nobody waits forever on a dead owner.
        if let Some(k) = &self.sh.kernel {
            let held: Vec<usize> = k.held(self.t).collect();
            for &r in held.iter().rev() {
                let _ = self.sh.kernel_release(k, self.t, r, Some(true));
            }
            k.bound(self.t, 0);
        }
        let cpus = self.sh.cpus(self.t, None);
        let held: Vec<usize> = {
            let mut st = self.sh.books_anyway(self.t);
            self.sh.settle(&mut st, cpus);
            let scope = st.locks.ceiling_scope(self.t);
            let _ = st.locks.cancel(self.t);
            self.sh.forget_woken(&mut st, self.t, scope);
            st.starting[self.t] = false;
            st.active[self.t] = false;
            st.locks.held(self.t).collect()
        };
        for &r in held.iter().rev() {
            let _ = self.sh.release(self.t, r, Some(true));
        }
        let mut st = self.sh.books_anyway(self.t);
        let slot = &self.sh.slots[self.t];
        // Decisions still on their way for this thread are stale now.
        slot.epoch.next();
        slot.cpu_epoch.next();
        if let Some(tid) = st.tid[self.t].take()
            && self.sh.opts.realtime
        {
            slot.prio_lock.lock();
            let _ = self.sh.set_applied(slot, tid, None);
            // SAFETY: locked just above by this thread.
            unsafe { slot.prio_lock.unlock() };
        }
        st.prio[self.t] = None;
        st.cpu[self.t] = None;
        // A holder this thread lent its CPU to goes back.
        let _ = self.rehelp(&mut st);
        self.sh.reopen(&st, cpus);
        let _ = self.sh.unlock(st);
        self.sh.slots[self.t].depth.store(0, Ordering::Relaxed);
        self.sh.slots[self.t].fast_gate.store(0, Ordering::Relaxed);
        let id = self.sh.id;
        BOUND.with(|b| b.borrow_mut().retain(|&(d, _)| d != id));
    }
}
