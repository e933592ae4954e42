//! Channels between processes: a sealed memfd, served by name.
//!
//! Why a memfd and not `shm_open`: a peer that can write a POSIX shared
//! memory object can also `ftruncate` it, and every process that still maps
//! the truncated pages dies of SIGBUS on its next access. A memfd sealed
//! with `F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL` can never change size,
//! so the real-time side's mapping stays valid whatever the peer does. The
//! opener checks the seals before it maps anything.
//!
//! Naming: [`Segment::publish`] serves the descriptor on a Unix socket
//! `<dir>/<name>.sock`, where `<dir>` is `$XDG_RUNTIME_DIR/rtsync` or
//! `/tmp/rtsync-<uid>`, created mode 0700 (the socket itself is 0600), so
//! by default only the same user can open the channel. [`Segment::open`]
//! connects and receives the descriptor (`SCM_RIGHTS`). A process that
//! forks can also hand the descriptor down ([`Segment::fd`],
//! [`Segment::from_fd`]).
//!
//! The first cache line is a header: magic, version, kind, capacity,
//! element size and alignment and a layout hash. Opening with another
//! element type, capacity or kind is an [`OpenError::Mismatch`] that says
//! what the segment holds. After opening, nothing in the segment is
//! trusted: each side computes every index from its own layout, copies
//! with atomic word accesses, and checks the counters it reads (see each
//! channel's module), so a hostile peer can make it read wrong values but
//! not crash, block, loop or leave the segment.

use std::ffi::CString;
use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::element::Element;
use crate::mapping::Mapping;
use crate::region::{Kind, LINE_WORDS, Layout, Region};

/// "RTSYNCCH" as a little-endian word.
const MAGIC: u64 = u64::from_le_bytes(*b"RTSYNCCH");
/// Layout version; bumped whenever the segment layout changes (2: the
/// non-real-time side's record, for a peer that restarts).
pub const VERSION: u64 = 2;
const HEADER_WORDS: usize = LINE_WORDS;

/// Why a segment could not be created, published or opened.
#[derive(Debug)]
pub enum OpenError {
    /// A system call failed; `what` says which step.
    Io {
        /// The step (`memfd_create`, `mmap`, ...).
        what: String,
        /// The system's error.
        source: io::Error,
    },
    /// The name is not usable as a channel name.
    BadName(String),
    /// The descriptor is not a memfd sealed against resizing.
    NotSealed,
    /// The segment is smaller than its layout needs.
    TooSmall {
        /// Its size in bytes.
        have: u64,
        /// The bytes its layout needs.
        need: u64,
    },
    /// The first word is not rtsync's magic.
    NotAChannel,
    /// Made by another layout version.
    Version {
        /// The version in the segment's header.
        found: u64,
        /// This library's ([`VERSION`]).
        expected: u64,
    },
    /// Holds another kind, capacity or element type.
    Mismatch {
        /// What the segment holds (kind, capacity, element).
        found: String,
        /// What the opener asked for.
        expected: String,
    },
    /// The other side stayed in the middle of an operation that a side
    /// taking over must wait for.
    Stalled(&'static str),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Io { what, source } => write!(f, "{what}: {source}"),
            OpenError::BadName(n) => write!(
                f,
                "channel name {n:?} is not valid: use 1 to 64 of A-Z a-z 0-9 . _ - \
                 (or an absolute socket path)"
            ),
            OpenError::NotSealed => f.write_str(
                "the descriptor received is not a memfd sealed against resizing; a peer could \
                 shrink it and crash this process, so it was not mapped",
            ),
            OpenError::TooSmall { have, need } => write!(
                f,
                "the segment has {have} bytes but its layout needs {need}: it was not made by \
                 rtsync-channels or is damaged"
            ),
            OpenError::NotAChannel => f.write_str(
                "the segment does not start with the rtsync channel magic: it is not a channel \
                 or its header was overwritten",
            ),
            OpenError::Version { found, expected } => write!(
                f,
                "the segment has layout version {found}, this build reads version {expected}: \
                 build both programs against the same rtsync-channels"
            ),
            OpenError::Mismatch { found, expected } => write!(
                f,
                "the segment holds {found}, but {expected} was asked for: open it with the \
                 creator's element type, capacity and kind"
            ),
            OpenError::Stalled(what) => write!(
                f,
                "{what}: is its process stopped (SIGSTOP, a debugger)? Attach again once it runs"
            ),
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> OpenError {
    let what = what.into();
    move |source| OpenError::Io { what, source }
}

fn last_os(what: &str) -> OpenError {
    OpenError::Io {
        what: what.to_string(),
        source: io::Error::last_os_error(),
    }
}

fn describe(kind: Option<Kind>, capacity: u64, size: u64, align: u64) -> String {
    let kind = kind.map_or("an unknown kind".to_string(), |k| k.name().to_string());
    format!("a {kind} channel of capacity {capacity} with {size}-byte elements (align {align})")
}

/// A channel's shared segment. Attach one side with the channel's
/// `attach` (for example `qrtr::Reader::attach(&segment)`).
pub struct Segment<T> {
    region: Arc<Region>,
    fd: OwnedFd,
    publisher: Option<Publisher>,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element> Segment<T> {
    fn layout(kind: Kind, capacity: u64) -> Layout {
        Layout::new::<T>(kind, capacity, HEADER_WORDS)
    }

    /// Creates a zeroed, sealed segment for a `kind` channel of `capacity`
    /// elements (`capacity` is ignored for latest-value kinds).
    pub fn create(kind: Kind, capacity: u64) -> Result<Segment<T>, OpenError> {
        let layout = Self::layout(kind, capacity);
        let bytes = layout.total_words * 8;
        let name = CString::new(format!("rtsync-{}", kind.name())).expect("no NUL");
        // SAFETY: plain system call with a valid C string.
        let raw = unsafe {
            libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING)
        };
        if raw < 0 {
            return Err(last_os("memfd_create"));
        }
        // SAFETY: `raw` is a descriptor we just opened and now own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: plain system calls on our descriptor.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), bytes as libc::off_t) } != 0 {
            return Err(last_os("ftruncate of the new segment"));
        }
        let seals = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, seals) } != 0 {
            return Err(last_os("sealing the new segment"));
        }
        let mapping = Mapping::map(fd.as_raw_fd(), bytes).map_err(io_err("mmap"))?;
        let region = Region::shm(layout, mapping);
        let header = [
            MAGIC,
            VERSION,
            kind as u64,
            layout.capacity,
            layout.elem_size as u64,
            layout.elem_align as u64,
            layout.slot_words as u64,
            layout.hash(VERSION),
            layout.total_words as u64,
        ];
        for (word, value) in region.words().iter().zip(header) {
            word.store(value, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(Segment {
            region: Arc::new(region),
            fd,
            publisher: None,
            _t: PhantomData,
        })
    }

    /// Maps a segment from a descriptor (received by [`Segment::open`], or
    /// inherited across `fork`), checking seals, size and header against
    /// the `kind`, `capacity` and `T` the caller expects.
    pub fn from_fd(fd: OwnedFd, kind: Kind, capacity: u64) -> Result<Segment<T>, OpenError> {
        let layout = Self::layout(kind, capacity);
        // SAFETY: plain system call on a descriptor we own.
        let seals = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) };
        if seals < 0 || seals & libc::F_SEAL_SHRINK == 0 {
            return Err(OpenError::NotSealed);
        }
        let file = std::fs::File::from(fd.try_clone().map_err(io_err("dup"))?);
        let have = file.metadata().map_err(io_err("fstat"))?.size();
        let need = (layout.total_words * 8) as u64;
        if have < (HEADER_WORDS * 8) as u64 {
            return Err(OpenError::TooSmall { have, need });
        }
        let mapping =
            Mapping::map(fd.as_raw_fd(), have.min(need) as usize).map_err(io_err("mmap"))?;
        // Read the header through a header-only view first.
        let words = mapping.len() / 8;
        // SAFETY: the mapping is `len` bytes, page aligned, and only ever
        // accessed through atomics.
        let header: &[std::sync::atomic::AtomicU64] = unsafe {
            std::slice::from_raw_parts(mapping.as_ptr() as *const _, words.min(HEADER_WORDS))
        };
        let h = |i: usize| header[i].load(std::sync::atomic::Ordering::Relaxed);
        if h(0) != MAGIC {
            return Err(OpenError::NotAChannel);
        }
        if h(1) != VERSION {
            return Err(OpenError::Version {
                found: h(1),
                expected: VERSION,
            });
        }
        if h(7) != layout.hash(VERSION) {
            return Err(OpenError::Mismatch {
                found: describe(Kind::from_u64(h(2)), h(3), h(4), h(5)),
                expected: describe(
                    Some(kind),
                    layout.capacity,
                    layout.elem_size as u64,
                    layout.elem_align as u64,
                ),
            });
        }
        if have < need {
            return Err(OpenError::TooSmall { have, need });
        }
        Ok(Segment {
            region: Arc::new(Region::shm(layout, mapping)),
            fd,
            publisher: None,
            _t: PhantomData,
        })
    }

    /// Opens the segment published under `name` (a channel name, or an
    /// absolute socket path).
    pub fn open(name: &str, kind: Kind, capacity: u64) -> Result<Segment<T>, OpenError> {
        let path = socket_path(name)?;
        let stream = UnixStream::connect(&path)
            .map_err(io_err(format!("connecting to {}", path.display())))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .map_err(io_err("socket timeout"))?;
        let fd = recv_fd(&stream).map_err(io_err(format!(
            "receiving the segment from {}",
            path.display()
        )))?;
        Self::from_fd(fd, kind, capacity)
    }

    /// Serves this segment under `name` until the segment is dropped;
    /// returns the socket path.
    pub fn publish(&mut self, name: &str) -> Result<PathBuf, OpenError> {
        let path = socket_path(name)?;
        let publisher = Publisher::start(&path, self.fd.try_clone().map_err(io_err("dup"))?)?;
        self.publisher = Some(publisher);
        Ok(path)
    }

    /// The segment's descriptor (to pass to a child process).
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// The kind the segment holds.
    pub fn kind(&self) -> Kind {
        self.region.layout.kind
    }

    /// Size of the mapping in bytes.
    pub fn bytes(&self) -> usize {
        self.region.words().len() * 8
    }

    pub(crate) fn region_for(&self, kind: Kind) -> Result<Arc<Region>, OpenError> {
        let layout = self.region.layout;
        if layout.kind != kind {
            return Err(OpenError::Mismatch {
                found: describe(
                    Some(layout.kind),
                    layout.capacity,
                    layout.elem_size as u64,
                    layout.elem_align as u64,
                ),
                expected: format!("a {kind} side"),
            });
        }
        Ok(self.region.clone())
    }
}

/// Where `name` is served: an absolute path as given, or
/// `<runtime dir>/<name>.sock` in a directory only this user can enter.
pub fn socket_path(name: &str) -> Result<PathBuf, OpenError> {
    if name.starts_with('/') {
        return Ok(PathBuf::from(name));
    }
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && !name.starts_with('.');
    if !ok {
        return Err(OpenError::BadName(name.to_string()));
    }
    let dir = match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d).join("rtsync"),
        // SAFETY: getuid cannot fail.
        _ => PathBuf::from(format!("/tmp/rtsync-{}", unsafe { libc::getuid() })),
    };
    private_dir(&dir)?;
    Ok(dir.join(format!("{name}.sock")))
}

/// Creates `dir` mode 0700, or checks that an existing one is ours and
/// closed to others.
fn private_dir(dir: &Path) -> Result<(), OpenError> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let meta = std::fs::metadata(dir).map_err(io_err(format!("stat {}", dir.display())))?;
            // SAFETY: getuid cannot fail.
            let uid = unsafe { libc::getuid() };
            if meta.uid() != uid || meta.permissions().mode() & 0o077 != 0 {
                return Err(OpenError::Io {
                    what: format!(
                        "{} is not a private directory of this user (owner {}, mode {:o}); \
                         remove it or set XDG_RUNTIME_DIR",
                        dir.display(),
                        meta.uid(),
                        meta.permissions().mode() & 0o777
                    ),
                    source: io::Error::from(io::ErrorKind::PermissionDenied),
                });
            }
            Ok(())
        }
        Err(e) => Err(OpenError::Io {
            what: format!("creating {}", dir.display()),
            source: e,
        }),
    }
}

/// A thread that hands the descriptor to every process that connects.
struct Publisher {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Publisher {
    fn start(path: &Path, fd: OwnedFd) -> Result<Publisher, OpenError> {
        if path.exists() {
            if UnixStream::connect(path).is_ok() {
                return Err(OpenError::Io {
                    what: format!("{} is already served by another process", path.display()),
                    source: io::Error::from(io::ErrorKind::AddrInUse),
                });
            }
            // A socket left by a process that died.
            let _ = std::fs::remove_file(path);
        }
        let listener =
            UnixListener::bind(path).map_err(io_err(format!("binding {}", path.display())))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(io_err(format!("chmod 0600 {}", path.display())))?;
        listener
            .set_nonblocking(true)
            .map_err(io_err("non-blocking listener"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("rtsync-publish".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let _ = stream.set_nonblocking(false);
                            let _ = send_fd(&stream, fd.as_raw_fd());
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(5)),
                    }
                }
            })
            .map_err(io_err("spawning the publisher thread"))?;
        Ok(Publisher {
            path: path.to_path_buf(),
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

const CMSG_SPACE: usize = 64;

/// A one-byte message with room for one descriptor in its control data:
/// what both ends of the descriptor hand-over exchange. Runs `f` on it.
fn with_message<R>(f: impl FnOnce(&mut libc::msghdr) -> io::Result<R>) -> io::Result<R> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr() as *mut _,
        iov_len: 1,
    };
    let mut control = [0u64; CMSG_SPACE / 8];
    // SAFETY: msghdr is plain data; the pointers set here point to the live
    // locals above, with their lengths, for the duration of `f`.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut _;
    msg.msg_controllen = CMSG_SPACE as _;
    f(&mut msg)
}

fn send_fd(stream: &UnixStream, fd: RawFd) -> io::Result<()> {
    with_message(|msg| {
        // SAFETY: the cmsg macros stay within the message's control buffer,
        // which is large enough for one descriptor.
        unsafe {
            msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) as _;
            let cmsg = libc::CMSG_FIRSTHDR(msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg) as *mut RawFd, fd);
            if libc::sendmsg(stream.as_raw_fd(), msg, libc::MSG_NOSIGNAL) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    })
}

fn recv_fd(stream: &UnixStream) -> io::Result<OwnedFd> {
    with_message(|msg| {
        // SAFETY: as in `send_fd`; the received descriptor is checked for
        // level and type before it is taken.
        unsafe {
            if libc::recvmsg(stream.as_raw_fd(), msg, libc::MSG_CMSG_CLOEXEC) < 0 {
                return Err(io::Error::last_os_error());
            }
            let cmsg = libc::CMSG_FIRSTHDR(msg);
            if cmsg.is_null()
                || (*cmsg).cmsg_level != libc::SOL_SOCKET
                || (*cmsg).cmsg_type != libc::SCM_RIGHTS
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the server sent no descriptor",
                ));
            }
            let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg) as *const RawFd);
            Ok(OwnedFd::from_raw_fd(fd))
        }
    })
}
