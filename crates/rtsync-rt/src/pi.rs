//! glibc mutexes, wrapped once: [`RawMutex`] with a chosen protocol
//! (none, `PTHREAD_PRIO_INHERIT`, `PTHREAD_PRIO_PROTECT` with a ceiling),
//! used as the peer in `rtsync bench locks`; and [`PiLock`], the lock
//! around the runtime's own bookkeeping, a `PRIO_INHERIT` mutex: on one CPU
//! a high-priority thread waiting for it lends its priority to the holder,
//! whatever the protocol of the resources it manages. Across CPUs that is
//! not enough, and the domain holds it above every task's priority
//! (`domain::books`).

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

unsafe extern "C" {
    // In glibc since 2.4; the libc crate does not declare it for Linux.
    fn pthread_mutexattr_setprioceiling(
        attr: *mut libc::pthread_mutexattr_t,
        prioceiling: libc::c_int,
    ) -> libc::c_int;
}

/// A glibc mutex with a priority protocol.
pub struct RawMutex {
    // Boxed: a pthread mutex must not move once initialised.
    raw: Box<UnsafeCell<libc::pthread_mutex_t>>,
}

// SAFETY: a pthread mutex is made to be shared between threads.
unsafe impl Send for RawMutex {}
unsafe impl Sync for RawMutex {}

impl RawMutex {
    /// `protocol` is `PTHREAD_PRIO_NONE`, `_INHERIT` or `_PROTECT`;
    /// `ceiling` is the SCHED_FIFO priority of a `_PROTECT` mutex.
    pub fn new(protocol: libc::c_int, ceiling: libc::c_int) -> std::io::Result<RawMutex> {
        let raw = Box::new(UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER));
        // SAFETY: attr is initialised before use and destroyed after; the
        // mutex lives in a Box that never moves.
        let r = unsafe {
            let mut attr: libc::pthread_mutexattr_t = std::mem::zeroed();
            libc::pthread_mutexattr_init(&mut attr);
            let mut r = libc::pthread_mutexattr_setprotocol(&mut attr, protocol);
            if r == 0 && protocol == libc::PTHREAD_PRIO_PROTECT {
                r = pthread_mutexattr_setprioceiling(&mut attr, ceiling);
            }
            if r == 0 {
                r = libc::pthread_mutex_init(raw.get(), &attr);
            }
            libc::pthread_mutexattr_destroy(&mut attr);
            r
        };
        if r != 0 {
            return Err(std::io::Error::from_raw_os_error(r));
        }
        Ok(RawMutex { raw })
    }

    /// Locks it (the calling thread's priority lent to the holder).
    pub fn lock(&self) {
        // SAFETY: the mutex is initialised.
        let r = unsafe { libc::pthread_mutex_lock(self.raw.get()) };
        assert_eq!(r, 0, "pthread_mutex_lock failed: {r}");
    }

    /// # Safety
    /// The calling thread holds the mutex.
    pub unsafe fn unlock(&self) {
        // SAFETY: the caller holds it.
        unsafe {
            libc::pthread_mutex_unlock(self.raw.get());
        }
    }
}

impl Drop for RawMutex {
    fn drop(&mut self) {
        // SAFETY: nobody holds it: a holder borrows it.
        unsafe {
            libc::pthread_mutex_destroy(self.raw.get());
        }
    }
}

/// A value behind a priority-inheritance mutex: the domain's bookkeeping
/// lock, so that a thread waiting for it lends its priority to the holder.
pub struct PiLock<T> {
    raw: RawMutex,
    value: UnsafeCell<T>,
}

// SAFETY: the mutex serialises every access to `value`.
unsafe impl<T: Send> Send for PiLock<T> {}
unsafe impl<T: Send> Sync for PiLock<T> {}

impl<T> PiLock<T> {
    /// A lock around `value`; fails where the C library cannot make a
    /// priority-inheritance mutex.
    pub fn new(value: T) -> std::io::Result<PiLock<T>> {
        let raw = RawMutex::new(libc::PTHREAD_PRIO_INHERIT, 0)?;
        Ok(PiLock {
            raw,
            value: UnsafeCell::new(value),
        })
    }

    /// Locks it; the guard unlocks on drop.
    pub fn lock(&self) -> PiGuard<'_, T> {
        self.raw.lock();
        PiGuard { lock: self }
    }
}

/// Access to a [`PiLock`]'s value while it is held.
pub struct PiGuard<'a, T> {
    lock: &'a PiLock<T>,
}

impl<T> PiGuard<'_, T> {
    /// Lets the lock go while `f` runs (a wait), and takes it again, also
    /// when `f` panics (so the guard's own release stays paired).
    pub fn unlocked<R>(&mut self, f: impl FnOnce() -> R) -> R {
        struct Relock<'a>(&'a RawMutex);
        impl Drop for Relock<'_> {
            fn drop(&mut self) {
                self.0.lock();
            }
        }
        // SAFETY: this guard holds the mutex; `Relock` takes it back
        // before the guard can be used or dropped again.
        unsafe { self.lock.raw.unlock() };
        let _relock = Relock(&self.lock.raw);
        f()
    }
}

impl<T> Deref for PiGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the mutex.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for PiGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the mutex, exclusively.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for PiGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: this guard locked it.
        unsafe { self.lock.raw.unlock() }
    }
}
