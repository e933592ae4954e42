//! A shared memory mapping of a file descriptor, unmapped on drop: what a
//! shared-memory [`crate::region::Region`] lives in. Below the layout and
//! the segments ([`crate::shm`]) that open it.

use std::io;
use std::os::fd::RawFd;

/// A mapped range, unmapped on drop.
pub(crate) struct Mapping {
    ptr: *mut libc::c_void,
    len: usize,
}

impl Mapping {
    pub(crate) fn map(fd: RawFd, len: usize) -> io::Result<Mapping> {
        // SAFETY: a fresh shared mapping of `len` bytes of `fd`; the kernel
        // picks the address, and the size was checked against the file.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping { ptr, len })
    }

    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.ptr as *const u8
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `map` mapped, once.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}
