//! PIP on the kernel's PI futex (`Options::kernel_pi`): the path is taken
//! exactly where it fits; the kernel hands a released resource to the
//! highest-priority waiter and lends priorities along a chain of holders,
//! which these tests read from `/proc` (`sched_getparam` does not show a
//! boost); the runtime's own checks, the wait limit and mutual exclusion
//! hold on this path too. Real-time: each test skips, saying why, where
//! SCHED_FIFO is not permitted. Every thread runs on one CPU and every
//! wait is bounded (the domain's wait limit, `wait_until`).

mod common;

use common::{last_cpu, system, wait_until};
use rtsync_protocols::LockError;
use rtsync_rt::{Binding, Domain, Options, RtError, sys};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex as StdMutex, mpsc};
use std::time::Duration;

/// Three tasks on one CPU over `A` and `B`, PIP, with these bodies.
fn three(l: &str, m: &str, h: &str, prio: [u32; 3]) -> String {
    mixed(l, m, h, prio, "pip")
}

/// [`three`] with `B` under `b_protocol` (`A` stays PIP).
fn mixed(l: &str, m: &str, h: &str, prio: [u32; 3], b_protocol: &str) -> String {
    format!(
        r#"
[platform]
cpus = 1
protocol = "pip"
[[resource]]
name = "A"
[[resource]]
name = "B"
protocol = "{b_protocol}"
[[task]]
name = "L"
period = "100ms"
priority = {}
body = {l}
[[task]]
name = "M"
period = "100ms"
priority = {}
body = {m}
[[task]]
name = "H"
period = "100ms"
priority = {}
body = {h}
"#,
        prio[0], prio[1], prio[2]
    )
}

/// A, then B, one after the other (no nesting).
const A_THEN_B: &str = r#"[ { lock = "A", hold = "1ms" }, { lock = "B", hold = "1ms" } ]"#;

const USES_A: &str = r#"[ { lock = "A", hold = "1ms" } ]"#;
const USES_B: &str = r#"[ { lock = "B", hold = "1ms" } ]"#;
const B_THEN_A: &str = r#"[ { lock = "B", body = [ { lock = "A", hold = "1ms" } ] } ]"#;

fn kernel_domain(src: &str, wait_limit: Duration) -> Domain {
    let d = Domain::new(
        &system(src),
        Options {
            cpu_map: Some(vec![last_cpu()]),
            wait_limit,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(d.kernel_pi(), "a real-time PIP domain with no log");
    d
}

/// The calling thread's effective SCHED_FIFO priority, boosts included:
/// `/proc`'s priority field is `-1 - rt_priority` for a real-time thread.
fn effective_fifo() -> i32 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let prio: i32 = after.split(' ').nth(15).unwrap().parse().unwrap();
    -1 - prio
}

/// The calling thread's SCHED_FIFO priority as bound (no boost).
fn base_fifo() -> i32 {
    sys::priority(sys::gettid()).unwrap().unwrap()
}

/// Binds `task` on a new thread that takes `first` (and then `second`,
/// nested, if given), notes its name in `order` once it holds them all,
/// and lets go.
fn requester(
    d: &Domain,
    task: &'static str,
    first: &'static str,
    second: Option<&'static str>,
    order: &Arc<StdMutex<Vec<&'static str>>>,
) -> std::thread::JoinHandle<Result<i32, String>> {
    let (d, order) = (d.clone(), order.clone());
    std::thread::spawn(move || {
        let b = d.bind(task).map_err(|e| e.to_string())?;
        let r1 = d.resource(first).unwrap();
        b.lock(r1, 1).map_err(|e| e.to_string())?;
        if let Some(s) = second {
            b.lock(d.resource(s).unwrap(), 1)
                .map_err(|e| e.to_string())?;
        }
        order.lock().unwrap().push(task);
        if let Some(s) = second {
            b.unlock(d.resource(s).unwrap())
                .map_err(|e| e.to_string())?;
        }
        b.unlock(r1).map_err(|e| e.to_string())?;
        Ok(base_fifo())
    })
}

/// L holds A, waits until `waiters` are queued (and a little longer, for
/// them to be asleep in the kernel), reads its effective priority, lets A
/// go, and reads it again once it runs. Returns (during, after, base).
fn hold_while_queued(
    d: &Domain,
    waiters: &'static [&'static str],
) -> (mpsc::Receiver<()>, std::thread::JoinHandle<(i32, i32, i32)>) {
    let (held_tx, held_rx) = mpsc::channel();
    let d = d.clone();
    let h = std::thread::spawn(move || {
        let l: Binding = d.bind("L").unwrap();
        let a = d.resource("A").unwrap();
        l.lock(a, 1).unwrap();
        held_tx.send(()).unwrap();
        wait_until("every waiter is queued", || {
            waiters
                .iter()
                .all(|w| d.waiting(d.task(w).unwrap()).is_some())
        });
        std::thread::sleep(Duration::from_millis(5));
        let during = effective_fifo();
        l.unlock(a).unwrap();
        (during, effective_fifo(), base_fifo())
    });
    (held_rx, h)
}

#[test]
fn the_path_is_taken_only_where_it_fits() {
    let Some(_rt) = common::realtime("the_path_is_taken_only_where_it_fits") else {
        return;
    };
    let src = three(USES_A, USES_A, USES_A, [1, 2, 3]);
    let with = |o: Options| {
        Domain::new(
            &system(&src),
            Options {
                cpu_map: Some(vec![last_cpu()]),
                ..o
            },
        )
        .unwrap()
        .kernel_pi()
    };
    assert!(with(Options::default()));
    assert!(!with(Options {
        record: true,
        ..Options::default()
    }));
    assert!(!with(Options {
        kernel_pi: false,
        ..Options::default()
    }));
    assert!(!with(Options {
        realtime: false,
        ..Options::default()
    }));
    let pcp = src.replace("\"pip\"", "\"pcp\"");
    let d = Domain::new(
        &system(&pcp),
        Options {
            cpu_map: Some(vec![last_cpu()]),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(!d.kernel_pi(), "PCP needs the machine's ceilings");
}

#[test]
fn in_a_mix_only_pip_resources_nested_with_pip_alone_take_the_kernel() {
    let Some(_rt) =
        common::realtime("in_a_mix_only_pip_resources_nested_with_pip_alone_take_the_kernel")
    else {
        return;
    };
    let domain = |src: &str| {
        Domain::new(
            &system(src),
            Options {
                cpu_map: Some(vec![last_cpu()]),
                ..Options::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let on = |d: &Domain| -> Vec<bool> {
        ["A", "B"]
            .iter()
            .map(|r| d.on_kernel(d.resource(r).unwrap()))
            .collect()
    };
    // Side by side: A on the kernel, B (IPCP) in the machine.
    let d = domain(&mixed(USES_A, A_THEN_B, USES_B, [1, 2, 3], "ipcp"));
    assert_eq!(on(&d), [true, false]);
    assert!(d.kernel_pi());
    // A declared inside B: both in the machine, which sees the whole
    // chain of inheritance.
    let d = domain(&mixed(USES_A, B_THEN_A, USES_B, [1, 2, 3], "ipcp"));
    assert_eq!(on(&d), [false, false]);
    assert!(!d.kernel_pi());
    // A nested with C (PIP) only, but C nested inside B (IPCP): the
    // closure takes A off too.
    let src = mixed(USES_A, B_THEN_A, USES_B, [1, 2, 3], "pip")
        .replacen(
            "[[task]]",
            "[[resource]]\nname = \"C\"\nprotocol = \"ipcp\"\n[[task]]",
            1,
        )
        .replace(
            r#"body = [ { lock = "B", hold = "1ms" } ]"#,
            r#"body = [ { lock = "C", body = [ { lock = "B", hold = "1ms" } ] } ]"#,
        );
    let d = domain(&src);
    assert_eq!(on(&d), [false, false], "{src}");
}

#[test]
fn in_a_mix_the_kernel_still_hands_over_and_boosts() {
    let Some(_rt) = common::realtime("in_a_mix_the_kernel_still_hands_over_and_boosts") else {
        return;
    };
    // M also takes B (IPCP, in the machine) after A: A stays the kernel's.
    let q = queue_in(
        &mixed(USES_A, A_THEN_B, USES_A, [1, 2, 3], "ipcp"),
        ("A", None),
        "A",
    );
    let [l, _, h] = q.base;
    assert_eq!(q.order, ["H", "M"]);
    assert_eq!(q.during, h, "L runs at H's priority while H waits");
    assert_eq!(q.after, l, "the release ends L's boost");
}

#[test]
fn an_undeclared_nesting_across_the_paths_is_refused() {
    let Some(_rt) = common::realtime("an_undeclared_nesting_across_the_paths_is_refused") else {
        return;
    };
    for b_protocol in ["ipcp", "pcp", "npcs"] {
        let d = kernel_domain(
            &mixed(A_THEN_B, USES_A, USES_B, [1, 2, 3], b_protocol),
            Duration::from_secs(5),
        );
        let l = d.bind("L").unwrap();
        let (a, b) = (d.resource("A").unwrap(), d.resource("B").unwrap());
        let undeclared = |e: Result<bool, RtError>| match e {
            Err(RtError::UndeclaredNesting {
                task,
                resource,
                held,
            }) => (task, resource, held),
            other => panic!("{b_protocol}: expected UndeclaredNesting, got {other:?}"),
        };
        let names = |t: &str, r: &str, h: &str| (t.to_string(), r.to_string(), h.to_string());
        // The machine's B inside the kernel's A.
        l.lock(a, 1).unwrap();
        assert_eq!(
            undeclared(l.lock(b, 1)),
            names("L", "B", "A"),
            "{b_protocol}"
        );
        l.unlock(a).unwrap();
        // The kernel's A inside the machine's B (taken on the fast path,
        // named by its gate).
        l.lock(b, 1).unwrap();
        let err = l.lock(a, 1);
        assert_eq!(undeclared(err), names("L", "A", "B"), "{b_protocol}");
        l.unlock(b).unwrap();
        // Nothing was left behind: both are free and the job ends clean.
        assert_eq!(l.lock(a, 1).ok(), Some(false));
        l.unlock(a).unwrap();
        assert_eq!(l.lock(b, 1).ok(), Some(false));
        l.unlock(b).unwrap();
        l.job_end().unwrap();
    }
}

/// What one queueing scenario shows: the order in which M and H got
/// everything they asked for, L's effective priority while they waited
/// and after its release, L's, M's and H's own priorities.
struct Queued {
    order: Vec<&'static str>,
    during: i32,
    after: i32,
    base: [i32; 3],
}

/// L holds A; M asks for `m` (then its nested second) and is queued;
/// then H asks for `h`.
fn queue_behind_l(
    bodies: [&str; 3],
    m: (&'static str, Option<&'static str>),
    h: &'static str,
) -> Queued {
    queue_in(&three(bodies[0], bodies[1], bodies[2], [1, 2, 3]), m, h)
}

/// [`queue_behind_l`] in the system `src`.
fn queue_in(src: &str, m: (&'static str, Option<&'static str>), h: &'static str) -> Queued {
    let d = kernel_domain(src, Duration::from_secs(5));
    let order = Arc::new(StdMutex::new(Vec::new()));
    let (held, l) = hold_while_queued(&d, &["M", "H"]);
    held.recv().unwrap();
    let mt = requester(&d, "M", m.0, m.1, &order);
    let waits_for = d.resource(m.1.unwrap_or(m.0)).unwrap();
    wait_until("M waits", || {
        d.waiting(d.task("M").unwrap()) == Some(waits_for)
    });
    let ht = requester(&d, "H", h, None, &order);
    let (during, after, l_base) = l.join().unwrap();
    let h_base = ht.join().unwrap().unwrap();
    let m_base = mt.join().unwrap().unwrap();
    let order = order.lock().unwrap().clone();
    Queued {
        order,
        during,
        after,
        base: [l_base, m_base, h_base],
    }
}

#[test]
fn a_release_hands_over_to_the_highest_waiter_and_ends_the_boost() {
    let Some(_rt) =
        common::realtime("a_release_hands_over_to_the_highest_waiter_and_ends_the_boost")
    else {
        return;
    };
    // M queues first: a FIFO hand-over would pick it.
    let q = queue_behind_l([USES_A, USES_A, USES_A], ("A", None), "A");
    let [l, _, h] = q.base;
    assert_eq!(q.order, ["H", "M"]);
    assert!(l < h);
    assert_eq!(q.during, h, "L runs at H's priority while H waits");
    assert_eq!(q.after, l, "the release ends L's boost");
}

#[test]
fn a_chain_of_holders_inherits_transitively() {
    let Some(_rt) = common::realtime("a_chain_of_holders_inherits_transitively") else {
        return;
    };
    // L holds A; M holds B and waits for A; H waits for B: L runs at H's
    // priority through M.
    let q = queue_behind_l([USES_A, B_THEN_A, USES_B], ("B", Some("A")), "B");
    let [l, m, h] = q.base;
    assert!(l < m && m < h);
    assert_eq!(q.during, h, "H's priority reaches L through M");
    assert_eq!(q.after, l);
    assert_eq!(q.order, ["M", "H"]);
}

#[test]
fn a_wait_past_the_limit_is_withdrawn() {
    let Some(_rt) = common::realtime("a_wait_past_the_limit_is_withdrawn") else {
        return;
    };
    let d = kernel_domain(
        &three(USES_A, USES_A, USES_A, [1, 2, 3]),
        Duration::from_millis(30),
    );
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (held_tx, held_rx) = mpsc::channel::<()>();
    let l = {
        let d = d.clone();
        std::thread::spawn(move || {
            let l = d.bind("L").unwrap();
            let a = d.resource("A").unwrap();
            l.lock(a, 1).unwrap();
            held_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            l.unlock(a).unwrap();
        })
    };
    held_rx.recv().unwrap();
    let h = d.bind("H").unwrap();
    let a = d.resource("A").unwrap();
    match h.lock(a, 1) {
        Err(RtError::Timeout {
            task,
            resource,
            waited,
        }) => {
            assert_eq!((task.as_str(), resource.as_str()), ("H", "A"));
            assert!(waited >= Duration::from_millis(29), "{waited:?}");
        }
        other => panic!("expected Timeout, got {other:?}"),
    }
    assert_eq!(d.waiting(d.task("H").unwrap()), None, "withdrawn");
    go_tx.send(()).unwrap();
    l.join().unwrap();
    assert_eq!(h.lock(a, 1).ok(), Some(false), "free again, consistent");
    h.unlock(a).unwrap();
    let ht = d.task("H").unwrap();
    assert_eq!(d.fast_grants(ht), 1, "only the uncontended grant is fast");
}

#[test]
fn misuse_is_refused_as_on_the_machine() {
    let Some(_rt) = common::realtime("misuse_is_refused_as_on_the_machine") else {
        return;
    };
    let d = kernel_domain(
        &three(B_THEN_A, USES_A, USES_A, [1, 2, 3]),
        Duration::from_secs(5),
    );
    let l = d.bind("L").unwrap();
    let (a, b) = (d.resource("A").unwrap(), d.resource("B").unwrap());
    let refused = |e: Result<bool, RtError>| match e {
        Err(RtError::Refused { error, .. }) => error,
        other => panic!("expected a refusal, got {other:?}"),
    };
    let refused_release = |e: Result<(), RtError>| match e {
        Err(RtError::Refused { error, .. }) => error,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(matches!(
        refused(l.lock(a, 2)),
        LockError::Units { asked: 2, .. }
    ));
    l.lock(b, 1).unwrap();
    assert!(matches!(refused(l.lock(b, 1)), LockError::Recursive { .. }));
    l.lock(a, 1).unwrap();
    assert!(matches!(
        refused_release(l.unlock(b)),
        LockError::NotInnermost { innermost, .. } if innermost == a
    ));
    assert!(matches!(
        refused_release(l.job_end()),
        LockError::NotOwner { .. }
    ));
    l.unlock(a).unwrap();
    l.unlock(b).unwrap();
    assert!(matches!(
        refused_release(l.unlock(b)),
        LockError::NotOwner { .. }
    ));
    l.job_end().unwrap();
}

/// Three equal-priority tasks on one CPU take A alone, or B then A
/// nested, yielding inside their sections so that the others run and
/// queue in the kernel; a section checks that nobody else is inside and
/// that its read-modify-write is not lost.
#[test]
fn sections_exclude_each_other() {
    let Some(_rt) = common::realtime("sections_exclude_each_other") else {
        return;
    };
    let src = three(B_THEN_A, B_THEN_A, B_THEN_A, [2, 2, 2]);
    let d = kernel_domain(&src, Duration::from_secs(5));
    const ITER: u32 = 2000;
    let inside = Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
    let count = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
    let threads: Vec<_> = ["L", "M", "H"]
        .into_iter()
        .enumerate()
        .map(|(k, name)| {
            let (d, inside, count) = (d.clone(), inside.clone(), count.clone());
            std::thread::spawn(move || {
                let b = d.bind(name).unwrap();
                let (ra, rb) = (d.resource("A").unwrap(), d.resource("B").unwrap());
                let enter = |c: usize| {
                    assert!(
                        !inside[c].swap(true, Ordering::SeqCst),
                        "two sections at once"
                    );
                    let v = count[c].load(Ordering::Relaxed);
                    std::thread::yield_now();
                    count[c].store(v + 1, Ordering::Relaxed);
                };
                let leave = |c: usize| inside[c].store(false, Ordering::SeqCst);
                for i in 0..ITER {
                    if (i as usize + k).is_multiple_of(2) {
                        b.lock(ra, 1).unwrap();
                        enter(0);
                        leave(0);
                        b.unlock(ra).unwrap();
                    } else {
                        b.lock(rb, 1).unwrap();
                        enter(1);
                        b.lock(ra, 1).unwrap();
                        enter(0);
                        leave(0);
                        b.unlock(ra).unwrap();
                        leave(1);
                        b.unlock(rb).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // Every iteration enters A; every other one (ITER is even) enters B.
    assert_eq!(count[0].load(Ordering::Relaxed), 3 * ITER);
    assert_eq!(count[1].load(Ordering::Relaxed), 3 * ITER / 2);
}

/// In a mixed system: A (PIP) on the kernel's futex and B (PCP) in the
/// machine, each taken alone, in turn, by three equal-priority tasks that
/// yield inside their sections; neither path lets two sections in at once
/// or loses an update.
#[test]
fn mixed_sections_exclude_each_other() {
    let Some(_rt) = common::realtime("mixed_sections_exclude_each_other") else {
        return;
    };
    let src = mixed(A_THEN_B, A_THEN_B, A_THEN_B, [2, 2, 2], "pcp");
    let d = kernel_domain(&src, Duration::from_secs(5));
    let (ra, rb) = (d.resource("A").unwrap(), d.resource("B").unwrap());
    assert!(d.on_kernel(ra) && !d.on_kernel(rb));
    const ITER: u32 = 2000;
    let inside = Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
    let count = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
    let threads: Vec<_> = ["L", "M", "H"]
        .into_iter()
        .map(|name| {
            let (d, inside, count) = (d.clone(), inside.clone(), count.clone());
            std::thread::spawn(move || {
                let b = d.bind(name).unwrap();
                for _ in 0..ITER {
                    for (c, r) in [(0, ra), (1, rb)] {
                        b.lock(r, 1).unwrap();
                        assert!(!inside[c].swap(true, Ordering::SeqCst), "two in {c}");
                        let v = count[c].load(Ordering::Relaxed);
                        std::thread::yield_now();
                        count[c].store(v + 1, Ordering::Relaxed);
                        inside[c].store(false, Ordering::SeqCst);
                        b.unlock(r).unwrap();
                    }
                }
                b.job_end().unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(count[0].load(Ordering::Relaxed), 3 * ITER);
    assert_eq!(count[1].load(Ordering::Relaxed), 3 * ITER);
}
