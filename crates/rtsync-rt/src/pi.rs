//! The lock around the runtime's own bookkeeping: a glibc mutex with
//! `PTHREAD_PRIO_INHERIT`, so that the bookkeeping's short critical
//! sections cannot themselves cause an unbounded priority inversion (a
//! high-priority thread waiting for it lends its priority to the holder,
//! whatever the protocol of the resources it manages).

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

pub struct PiLock<T> {
    // Boxed: a pthread mutex must not move once initialised.
    raw: Box<UnsafeCell<libc::pthread_mutex_t>>,
    value: UnsafeCell<T>,
}

// SAFETY: the mutex serialises every access to `value`.
unsafe impl<T: Send> Send for PiLock<T> {}
unsafe impl<T: Send> Sync for PiLock<T> {}

impl<T> PiLock<T> {
    pub fn new(value: T) -> PiLock<T> {
        let raw = Box::new(UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER));
        // SAFETY: attr is initialised before use and destroyed after; the
        // mutex lives in a Box that never moves.
        unsafe {
            let mut attr: libc::pthread_mutexattr_t = std::mem::zeroed();
            libc::pthread_mutexattr_init(&mut attr);
            libc::pthread_mutexattr_setprotocol(&mut attr, libc::PTHREAD_PRIO_INHERIT);
            let r = libc::pthread_mutex_init(raw.get(), &attr);
            libc::pthread_mutexattr_destroy(&mut attr);
            assert_eq!(r, 0, "pthread_mutex_init(PRIO_INHERIT) failed: {r}");
        }
        PiLock {
            raw,
            value: UnsafeCell::new(value),
        }
    }

    pub fn lock(&self) -> PiGuard<'_, T> {
        // SAFETY: the mutex is initialised; a guard unlocks it exactly once.
        let r = unsafe { libc::pthread_mutex_lock(self.raw.get()) };
        assert_eq!(r, 0, "pthread_mutex_lock failed: {r}");
        PiGuard { lock: self }
    }
}

impl<T> Drop for PiLock<T> {
    fn drop(&mut self) {
        // SAFETY: no guard outlives the lock.
        unsafe {
            libc::pthread_mutex_destroy(self.raw.get());
        }
    }
}

pub struct PiGuard<'a, T> {
    lock: &'a PiLock<T>,
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
        unsafe {
            libc::pthread_mutex_unlock(self.lock.raw.get());
        }
    }
}
