//! The few Linux calls the runtime makes, each wrapped once, with errors
//! that say what failed and why.
//!
//! Threads are addressed by their kernel thread id (`gettid`): a priority
//! or affinity change for another thread (a lock holder inheriting a
//! waiter's priority) is one `sched_setscheduler` or `sched_setaffinity`
//! on that id.

use std::io;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// Forks seen by this process's children: a child's threads have new ids,
/// so an id cached before the fork is stale there.
static FORKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

extern "C" fn forked() {
    FORKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

thread_local! {
    /// The thread's id and the fork generation it was read in.
    static TID: std::cell::Cell<(u64, i32)> = const { std::cell::Cell::new((u64::MAX, 0)) };
}

/// The calling thread's kernel id. glibc's `gettid` is a system call
/// each time (about 0.1 us on a VM, on every request a component thread
/// hands over); the id is read once per thread and kept, and read again in
/// a forked child.
pub fn gettid() -> i32 {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        // SAFETY: registers a handler that only bumps an atomic counter
        // (async-signal-safe, as a child handler must be).
        unsafe { libc::pthread_atfork(None, None, Some(forked)) };
    });
    let generation = FORKS.load(std::sync::atomic::Ordering::Relaxed);
    TID.with(|c| {
        let (g, tid) = c.get();
        if g == generation {
            return tid;
        }
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        c.set((generation, tid));
        tid
    })
}

/// Puts thread `tid` under SCHED_FIFO at `prio` (1..=99), or back under
/// SCHED_OTHER with `None`. One system call.
pub fn set_priority(tid: i32, prio: Option<i32>) -> io::Result<()> {
    let (policy, p) = match prio {
        Some(p) => (libc::SCHED_FIFO, p),
        None => (libc::SCHED_OTHER, 0),
    };
    let param = libc::sched_param { sched_priority: p };
    // SAFETY: param is a valid sched_param for the duration of the call.
    let r = unsafe { libc::sched_setscheduler(tid, policy, &param) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Thread `tid`'s SCHED_FIFO priority, or `None` when it is not under
/// SCHED_FIFO.
pub fn priority(tid: i32) -> io::Result<Option<i32>> {
    // SAFETY: sched_getscheduler reads only its argument.
    let policy = unsafe { libc::sched_getscheduler(tid) };
    if policy < 0 {
        return Err(io::Error::last_os_error());
    }
    if policy != libc::SCHED_FIFO {
        return Ok(None);
    }
    let mut param = libc::sched_param { sched_priority: 0 };
    // SAFETY: param is valid and writable.
    if unsafe { libc::sched_getparam(tid, &mut param) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Some(param.sched_priority))
}

/// Thread `tid`'s *effective* real-time priority, inheritance included
/// (which `sched_getparam` does not show): the kernel's `prio` from
/// `/proc/self/task/<tid>/stat`, as a SCHED_FIFO priority, or `None` for
/// a thread running under a normal policy.
pub fn effective_priority(tid: i32) -> io::Result<Option<i32>> {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat"))?;
    parse_effective(&stat)
        .ok_or_else(|| io::Error::other(format!("unreadable /proc/self/task/{tid}/stat")))
}

/// The 18th field of a `stat` line (after the command's closing
/// parenthesis, which may itself hold spaces): `-1 - p` for real-time
/// priority `p`, `20 + nice` otherwise.
fn parse_effective(stat: &str) -> Option<Option<i32>> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let prio: i32 = rest.split_whitespace().nth(15)?.parse().ok()?;
    Some((prio < 0).then_some(-1 - prio))
}

/// Pins thread `tid` to one CPU. One system call.
pub fn set_cpu(tid: i32, cpu: usize) -> io::Result<()> {
    // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET stays in
    // bounds for cpu < CPU_SETSIZE, checked first.
    unsafe {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

thread_local! {
    /// While this thread's own moves are timed ([`time_own_moves`]), the
    /// time it spent in them since [`take_own_moves`] last read it.
    static OWN_MOVES: std::cell::Cell<Option<std::time::Duration>> =
        const { std::cell::Cell::new(None) };
}

/// Starts (`true`) or stops timing the calling thread's moves of itself
/// between CPUs ([`move_thread`] on its own id): the migration a
/// synchronization protocol makes inside a lock or unlock call, which a
/// caller's clock reads around the call cannot tell from the rest
/// (paper 003 Fig. 5 measures it apart). Off, moving costs one
/// thread-local read more.
pub fn time_own_moves(on: bool) {
    OWN_MOVES.with(|m| m.set(on.then_some(std::time::Duration::ZERO)));
}

/// The time the calling thread spent moving itself since the last call
/// (zero when its moves are not timed); starts the count again.
pub fn take_own_moves() -> std::time::Duration {
    OWN_MOVES.with(|m| match m.get() {
        Some(d) => {
            m.set(Some(std::time::Duration::ZERO));
            d
        }
        None => std::time::Duration::ZERO,
    })
}

/// [`set_cpu`], timed when it moves the calling thread and its moves are
/// timed. Moving itself, a thread returns from `sched_setaffinity` on the
/// new CPU: the call's duration is the migration.
pub fn move_thread(tid: i32, cpu: usize) -> io::Result<()> {
    match OWN_MOVES.with(|m| m.get()) {
        Some(sum) if tid == gettid() => {
            let t0 = std::time::Instant::now();
            let r = set_cpu(tid, cpu);
            let took = t0.elapsed();
            OWN_MOVES.with(|m| m.set(Some(sum + took)));
            r
        }
        _ => set_cpu(tid, cpu),
    }
}

/// The CPUs this process may run on.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: set is valid and writable; CPU_ISSET stays in bounds.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return vec![0];
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Locks the process's memory (no page faults in a real-time section).
pub fn lock_memory() -> io::Result<()> {
    // MCL_ONFAULT (Linux 4.4): lock pages as they are touched instead of
    // faulting in every mapping now. Without it, the allocator's reserved
    // arena (mimalloc reserves 1 GiB of address space up front) became 1 GiB
    // of locked memory: `rtsync run` and `demo` peaked at 1.1 GB. The pages
    // a task touches while it runs stay locked; its stack is touched ahead
    // by [`prefault_stack`], so no page fault lands inside a job.
    // SAFETY: no pointers.
    if unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE | libc::MCL_ONFAULT) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Touches `bytes` of the calling thread's stack below this frame, so that
/// with memory locked on fault those pages are resident (and locked)
/// before the first job runs: the real-time wiki's "prefault the stack".
#[inline(never)]
pub fn prefault_stack(bytes: usize) {
    fn touch(left: usize) {
        let mut page = [0u8; 4096];
        // SAFETY: a volatile write to a local array, so it is not elided.
        unsafe { std::ptr::write_volatile(page.as_mut_ptr(), 1) };
        std::hint::black_box(&page);
        if left > page.len() {
            touch(left - page.len());
        }
    }
    touch(bytes);
}

/// Whether CPU `cpu` has a steal clock in `sample` ([`steal_per_cpu`]):
/// its counter has moved since boot. The kernel keeps steal in
/// nanoseconds but /proc/stat shows it in whole ticks ([`steal_tick`], 10
/// ms at the usual USER_HZ of 100), each reading rounded down, so on such
/// a CPU up to a tick of steal between two readings goes uncounted: on
/// the development VM a SCHED_FIFO thread spinning for 0.6 s lost up to
/// 3.2 ms at once while the counter did not move. A CPU whose counter
/// never moved (bare metal, a hypervisor that reports none) has none.
pub fn steal_clock(sample: &Option<Vec<std::time::Duration>>, cpu: usize) -> bool {
    sample
        .as_ref()
        .and_then(|s| s.get(cpu))
        .is_some_and(|s| !s.is_zero())
}

/// One tick of /proc/stat's counters (`1 / CLK_TCK` s).
pub fn steal_tick() -> std::time::Duration {
    std::time::Duration::from_nanos(1_000_000_000 / clock_ticks())
}

/// Ticks per second of /proc/stat's counters.
fn clock_ticks() -> u64 {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64
}

/// Time the hypervisor took from CPU `cpu` between two samples of
/// [`steal_per_cpu`] as the counter shows it, in whole ticks (zero
/// where either could not be read; where the CPU has a [`steal_clock`],
/// up to a tick more can have gone uncounted).
pub fn steal_between(
    before: &Option<Vec<std::time::Duration>>,
    after: &Option<Vec<std::time::Duration>>,
    cpu: usize,
) -> std::time::Duration {
    match (before, after) {
        (Some(b), Some(a)) => (a.get(cpu).zip(b.get(cpu)))
            .map_or(std::time::Duration::ZERO, |(x, y)| x.saturating_sub(*y)),
        _ => std::time::Duration::ZERO,
    }
}

/// Time the hypervisor took from each CPU so far (the `steal` column of
/// /proc/stat, in clock ticks of 1/100 s), indexed by CPU number; `None`
/// where /proc/stat cannot be read. Sampled before and after a run, it
/// says how much of a virtual CPU was not there.
pub fn steal_per_cpu() -> Option<Vec<std::time::Duration>> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    Some(parse_steal(&text))
}

fn parse_steal(stat: &str) -> Vec<std::time::Duration> {
    let hz = clock_ticks();
    let mut out = Vec::new();
    for line in stat.lines() {
        let mut f = line.split_whitespace();
        let Some(cpu) = f.next().and_then(|n| n.strip_prefix("cpu")) else {
            continue;
        };
        let Ok(c) = cpu.parse::<usize>() else {
            continue; // the all-CPU line
        };
        // user nice system idle iowait irq softirq steal
        let ticks = f.nth(7).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
        if out.len() <= c {
            out.resize(c + 1, std::time::Duration::ZERO);
        }
        out[c] = std::time::Duration::from_nanos(ticks * 1_000_000_000 / hz);
    }
    out
}

/// Whether this process may use SCHED_FIFO, tried on a short-lived thread
/// so the caller's own policy is untouched. `Err` says what is missing.
pub fn probe_realtime() -> Result<(), String> {
    let tried = std::thread::spawn(|| set_priority(gettid(), Some(1)))
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("probe thread panicked")));
    match tried {
        Ok(()) => Ok(()),
        Err(e) => Err(format!(
            "this process may not use SCHED_FIFO ({e}); run as root, grant CAP_SYS_NICE \
             (`setcap cap_sys_nice+ep <binary>`), or raise the `rtprio` limit \
             (`ulimit -r 99`, /etc/security/limits.conf); inside a container, \
             start it with --cap-add=SYS_NICE"
        )),
    }
}

/// Whether the kernel's RT throttling is on (a runaway SCHED_FIFO thread
/// cannot take a CPU entirely). `None` when it cannot be read.
pub fn rt_throttling() -> Option<(i64, i64)> {
    let read = |p: &str| -> Option<i64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    Some((
        read("/proc/sys/kernel/sched_rt_runtime_us")?,
        read("/proc/sys/kernel/sched_rt_period_us")?,
    ))
}

/// Sleeps while `*word == expected`, up to `timeout` (forever with
/// `None`). Returns early on a wake, a changed word or a signal; callers
/// recheck their condition.
pub fn futex_wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) {
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: d.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let tsp = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: word is a valid, aligned u32 for the duration of the call;
    // FUTEX_WAIT only reads it.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            tsp,
        );
    }
}

/// Wakes up to `n` threads sleeping on `word`.
pub fn futex_wake(word: &AtomicU32, n: i32) {
    // SAFETY: as above; FUTEX_WAKE does not touch the word.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            n,
        );
    }
}

/// `FUTEX_LOCK_PI` on `word` (a PI futex: 0 free, else the owner's thread
/// id, with `FUTEX_WAITERS` while the kernel queues waiters): sleeps in
/// the kernel's priority-ordered queue, the owner inheriting the caller's
/// priority (transitively along a chain of PI futexes), until the owner's
/// `FUTEX_UNLOCK_PI` hands the word over, or until `deadline`
/// (`CLOCK_REALTIME`, as the call takes it). `Err(errno)`: `ETIMEDOUT`,
/// `EDEADLK` (the wait would close a cycle of owners), `ESRCH` (the owner
/// named in the word no longer exists).
pub fn futex_lock_pi(word: &AtomicU32, deadline: &libc::timespec) -> Result<(), i32> {
    // SAFETY: word is a valid, aligned u32 for the duration of the call;
    // the kernel reads and writes it atomically under the futex protocol.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_LOCK_PI | libc::FUTEX_PRIVATE_FLAG,
            0,
            deadline as *const libc::timespec,
        )
    };
    errno_of(r)
}

/// `FUTEX_UNLOCK_PI` on `word`, which the caller owns: in one call the
/// kernel names the highest-priority waiter as owner, wakes it, and ends
/// the caller's inheritance through it (a higher locker that comes first
/// may still steal the lock: see `domain::kernel_pi`).
pub fn futex_unlock_pi(word: &AtomicU32) -> Result<(), i32> {
    // SAFETY: as for `futex_lock_pi`.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_UNLOCK_PI | libc::FUTEX_PRIVATE_FLAG,
        )
    };
    errno_of(r)
}

/// How [`pi_lock`] got a PI futex word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PiTaken {
    /// It was free: one compare-and-swap, no system call.
    Free,
    /// After waiting in the kernel's queue (the owner inheriting).
    Waited,
    /// Its owner had gone without releasing it: taken over; what it
    /// guarded may be inconsistent.
    OwnerDied,
}

/// Locks PI futex word `word` for thread `tid`: a compare-and-swap where
/// it is free, else `FUTEX_LOCK_PI` until `limit` has passed. `Err`:
/// `ETIMEDOUT`, `EDEADLK` (the wait would close a cycle of owners), or
/// another errno of the call.
pub fn pi_lock(word: &AtomicU32, tid: u32, limit: Duration) -> Result<PiTaken, i32> {
    use std::sync::atomic::Ordering::{Acquire, Relaxed};
    if word.compare_exchange(0, tid, Acquire, Relaxed).is_ok() {
        return Ok(PiTaken::Free);
    }
    let start = std::time::Instant::now();
    let deadline = realtime_after(limit);
    loop {
        // A call refused at once (below) is retried only within the
        // limit: nothing here loops unbounded.
        if start.elapsed() >= limit {
            return Err(libc::ETIMEDOUT);
        }
        match futex_lock_pi(word, &deadline) {
            Ok(()) => return Ok(PiTaken::Waited),
            Err(libc::EINTR) | Err(libc::EAGAIN) => continue,
            Err(libc::ESRCH) => {
                // The word names a thread that is gone without releasing
                // it: take it over.
                let seen = word.load(Relaxed);
                if seen != 0
                    && seen & libc::FUTEX_WAITERS == 0
                    && word.compare_exchange(seen, tid, Acquire, Relaxed).is_ok()
                {
                    return Ok(PiTaken::OwnerDied);
                }
                if word.compare_exchange(0, tid, Acquire, Relaxed).is_ok() {
                    return Ok(PiTaken::Waited);
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// Unlocks PI futex word `word`, which thread `tid` (the caller) owns: a
/// compare-and-swap where nobody waits, else `FUTEX_UNLOCK_PI` (the
/// kernel hands it to the top waiter and ends the caller's inheritance).
pub fn pi_unlock(word: &AtomicU32, tid: u32) -> Result<(), i32> {
    use std::sync::atomic::Ordering::{Relaxed, Release};
    if word.compare_exchange(tid, 0, Release, Relaxed).is_ok() {
        return Ok(());
    }
    futex_unlock_pi(word)
}

/// `CLOCK_REALTIME` now plus `after`, the absolute form `FUTEX_LOCK_PI`
/// takes.
pub fn realtime_after(after: Duration) -> libc::timespec {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: now is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) };
    let ns = now.tv_nsec as u64 + after.subsec_nanos() as u64;
    libc::timespec {
        tv_sec: now
            .tv_sec
            .saturating_add(after.as_secs().min(i64::MAX as u64 / 2) as libc::time_t)
            .saturating_add((ns / 1_000_000_000) as libc::time_t),
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    }
}

/// A raw system call's result: `Ok` for 0, else the thread's errno.
fn errno_of(r: libc::c_long) -> Result<(), i32> {
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's moves of itself are timed while it asks, and only
    /// those: moving another thread, or moving while not timing, adds
    /// nothing. Needs two allowed CPUs (not real-time).
    #[test]
    fn own_moves_are_timed_apart() {
        let cpus = allowed_cpus();
        if cpus.len() < 2 {
            eprintln!("skipped: one CPU allowed, nothing to move between");
            return;
        }
        std::thread::spawn(move || {
            let me = gettid();
            set_cpu(me, cpus[0]).unwrap();
            assert_eq!(take_own_moves(), Duration::ZERO, "not timing");
            time_own_moves(true);
            move_thread(me, cpus[1]).unwrap();
            let moved = take_own_moves();
            assert!(moved > Duration::ZERO);
            assert_eq!(take_own_moves(), Duration::ZERO, "taken");
            // Another thread's move is not this thread's.
            let (tx, rx) = std::sync::mpsc::channel();
            let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
            let other = std::thread::spawn(move || {
                tx.send(gettid()).unwrap();
                let _ = stop_rx.recv();
            });
            move_thread(rx.recv().unwrap(), cpus[0]).unwrap();
            assert_eq!(take_own_moves(), Duration::ZERO);
            stop_tx.send(()).unwrap();
            other.join().unwrap();
            time_own_moves(false);
            move_thread(me, cpus[0]).unwrap();
            assert_eq!(take_own_moves(), Duration::ZERO, "stopped");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn effective_priority_is_the_eighteenth_field() {
        // A real-time thread at 10 shows -11; a normal one 20 + nice.
        let rt = "123 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 -11 0 1 0";
        assert_eq!(parse_effective(rt), Some(Some(10)));
        let normal = "9 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 20 0 1 0";
        assert_eq!(parse_effective(normal), Some(None));
        assert_eq!(parse_effective("garbage"), None);
        assert_eq!(effective_priority(gettid()).unwrap(), None);
    }

    #[test]
    fn steal_is_the_eighth_column_per_cpu() {
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
        let stat = "cpu  10 0 5 100 0 0 0 300 0 0\n\
                    cpu0 5 0 2 50 0 0 0 100 0 0\n\
                    cpu1 5 0 3 50 0 0 0 200 0 0\n\
                    intr 12345\n";
        let s = parse_steal(stat);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].as_nanos() as u64, 100 * 1_000_000_000 / hz);
        assert_eq!(s[1].as_nanos() as u64, 200 * 1_000_000_000 / hz);
        assert!(steal_per_cpu().is_some_and(|v| !v.is_empty()));
    }

    /// A CPU whose counter has moved since boot has a steal clock, one
    /// whose counter never moved (or that a sample lacks) has none.
    #[test]
    fn a_cpu_has_a_steal_clock_once_its_counter_moved() {
        let ms = std::time::Duration::from_millis;
        let sample = Some(vec![ms(0), ms(70)]);
        assert!(!steal_clock(&sample, 0));
        assert!(steal_clock(&sample, 1));
        assert!(!steal_clock(&sample, 2));
        assert!(!steal_clock(&None, 1));
        assert!(steal_tick() > std::time::Duration::ZERO);
    }
}
