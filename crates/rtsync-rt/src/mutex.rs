//! `Mutex<T>`: data owned by one resource of a domain, reached only
//! through a guard, under the domain's protocol.
//!
//! Like `std::sync::Mutex`, it owns its data; unlike it, the protocol and
//! its parameters (ceilings, synchronization CPU, FIFO or priority order)
//! come from the system description the domain was built from, and a
//! refusal is an error, not a panic: a caller above the ceiling, a
//! forbidden nesting, a thread that is not one of the system's tasks.
//!
//! Robustness: an owner that panics inside its section, or whose thread
//! ends while holding, leaves the resource marked inconsistent; the next
//! acquirer gets the guard inside [`Fail::Inconsistent`] and decides
//! (repair and [`Guard::mark_consistent`], or give up). As with a robust
//! pthread mutex, nothing deadlocks on a dead owner.

use crate::domain::{Domain, bound_task};
use crate::error::RtError;
use rtsync_protocols::Tid;
use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Data owned by one resource of a domain: reached through a guard that
/// [`Mutex::lock`] returns once the resource's protocol grants it, and
/// released, as the protocol rules, when the guard drops.
pub struct Mutex<T> {
    domain: Domain,
    r: usize,
    value: UnsafeCell<T>,
}

// SAFETY: the protocol grants the resource to one thread at a time (the
// machine's unit count; a mutex refuses multi-unit resources), and only the
// guard of the granted thread reaches the value.
unsafe impl<T: Send> Send for Mutex<T> {}
unsafe impl<T: Send> Sync for Mutex<T> {}

/// Why `lock` did not simply succeed.
pub enum Fail<'a, T> {
    /// The lock is held, but a previous owner panicked or died inside: the
    /// data may be inconsistent.
    Inconsistent(Guard<'a, T>),
    /// The request was refused, timed out or would deadlock; nothing is
    /// held.
    Error(RtError),
}

impl<T> fmt::Debug for Fail<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Inconsistent(_) => write!(f, "Inconsistent(..)"),
            Fail::Error(e) => write!(f, "Error({e:?})"),
        }
    }
}

impl<T> fmt::Display for Fail<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Inconsistent(g) => write!(
                f,
                "`{}`: a previous owner panicked or ended inside its section; the data may be inconsistent",
                g.mutex.domain.sh.resource_name(g.mutex.r)
            ),
            Fail::Error(e) => write!(f, "{e}"),
        }
    }
}

impl<T> From<RtError> for Fail<'_, T> {
    fn from(e: RtError) -> Self {
        Fail::Error(e)
    }
}

impl<T> Mutex<T> {
    /// The data `value`, guarded by the resource named `resource` of
    /// `domain` (a single-unit resource).
    pub fn new(domain: &Domain, resource: &str, value: T) -> Result<Mutex<T>, RtError> {
        Mutex::at(domain, domain.resource(resource)?, value)
    }

    /// [`Mutex::new`] for the resource of index `r` (in range).
    pub(crate) fn at(domain: &Domain, r: usize, value: T) -> Result<Mutex<T>, RtError> {
        let units = domain.sh.resource_units(r);
        if units != 1 {
            return Err(RtError::MultiUnit {
                resource: domain.sh.resource_name(r).into(),
                units,
            });
        }
        Ok(Mutex {
            domain: domain.clone(),
            r,
            value: UnsafeCell::new(value),
        })
    }

    /// Acquires the resource for the calling thread's task, waiting as the
    /// protocol says.
    pub fn lock(&self) -> Result<Guard<'_, T>, Fail<'_, T>> {
        let sh = &self.domain.sh;
        let Some(t) = bound_task(sh.id()) else {
            return Err(Fail::Error(RtError::NotBound {
                resource: sh.resource_name(self.r).into(),
            }));
        };
        let inconsistent = sh.acquire(t, self.r, 1)?;
        let g = Guard {
            mutex: self,
            t,
            repaired: false,
            _not_send: PhantomData,
        };
        if inconsistent {
            return Err(Fail::Inconsistent(g));
        }
        Ok(g)
    }

    /// The data, the mutex consumed.
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }

    /// The domain this mutex belongs to.
    pub fn domain(&self) -> &Domain {
        &self.domain
    }
}

/// Access to a [`Mutex`]'s data; releasing it follows the protocol.
pub struct Guard<'a, T> {
    mutex: &'a Mutex<T>,
    t: Tid,
    repaired: bool,
    _not_send: PhantomData<*const ()>,
}

impl<T: fmt::Debug> fmt::Debug for Guard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Guard").field(&**self).finish()
    }
}

impl<T> Guard<'_, T> {
    /// Declares the data consistent again (after repairing it); the next
    /// owner is no longer warned.
    pub fn mark_consistent(&mut self) {
        self.repaired = true;
    }
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard's task holds the resource exclusively.
        unsafe { &*self.mutex.value.get() }
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as above, and the guard is borrowed mutably.
        unsafe { &mut *self.mutex.value.get() }
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        let mark = if std::thread::panicking() {
            Some(true)
        } else if self.repaired {
            Some(false)
        } else {
            None
        };
        // A release can fail only on misuse the guard rules out (releases
        // out of order need two guards dropped out of order; the machine
        // refuses, and the section stays held until the outer one goes).
        let _ = self.mutex.domain.sh.release(self.t, self.mutex.r, mark);
    }
}

/// A shared handle, for threads that each lock it.
pub type SharedMutex<T> = Arc<Mutex<T>>;
