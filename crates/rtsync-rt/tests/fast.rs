//! The fast path: an outermost uncontended lock is a compare-and-swap on
//! its CPU's gate, taken exactly where the machine's grant would change
//! nothing but the holder; contention, nesting and robustness enter the
//! machine with the fast holder made known first. Logic only (no
//! SCHED_FIFO), so these run everywhere; `tests/protocols.rs` checks the
//! kernel's priorities with a fast holder.

mod common;

use common::{domain_of, last_cpu, realtime, system, system_unchecked, unrecorded, wait_until};
use rtsync_model::Protocol;
use rtsync_protocols::LockError;
use rtsync_rt::{Domain, Fail, Mutex, Options, RtError};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

/// T (priority 2) and H (priority 3) both use A; on two CPUs for the
/// multiprocessor protocols (A is global), on one otherwise.
fn pair(p: Protocol) -> String {
    let cpus = if p.is_uniprocessor() { 1 } else { 2 };
    let sync = if p.needs_sync_cpu() {
        "sync_cpu = 1\n"
    } else {
        ""
    };
    format!(
        "[platform]\ncpus = {cpus}\nprotocol = \"{}\"\n[[resource]]\nname = \"A\"\n{sync}\
         [[task]]\nname = \"T\"\nperiod = \"10ms\"\npriority = 2\ncpu = 0\nbody = [ {{ lock = \"A\", hold = \"10us\" }} ]\n\
         [[task]]\nname = \"H\"\nperiod = \"10ms\"\npriority = 3\ncpu = {}\nbody = [ {{ lock = \"A\", hold = \"10us\" }} ]\n",
        p.name(),
        cpus - 1
    )
}

fn logic(src: &str, fast_path: bool) -> Domain {
    Domain::new(
        &system(src),
        Options {
            realtime: false,
            wait_limit: Duration::from_secs(5),
            fast_path,
            ..Options::default()
        },
    )
    .unwrap()
}

#[test]
fn the_fast_path_is_taken_where_a_grant_changes_nothing_but_the_holder() {
    for p in Protocol::ALL {
        // Which protocols leave T's priority and place alone when it takes
        // a free A below H's ceiling: PIP (inherits only from waiters), PCP
        // (the ceiling decides, it raises nothing), SRP (the system ceiling
        // is not the job's priority), MrsP (A's ceiling among CPU 0's
        // users is T's own priority; A is global, with a gate of its own).
        // IPCP and NPCS raise T, MPCP and FMLP-L boost it, MSRP and FMLP-S
        // make it non-preemptive: on the fast path only where priorities
        // are applied (tests/protocols.rs); DPCP and DFLP move it.
        let expected = matches!(
            p,
            Protocol::Pip | Protocol::Pcp | Protocol::Srp | Protocol::Mrsp
        );
        let d = logic(&pair(p), true);
        let (t, a) = (d.task("T").unwrap(), d.resource("A").unwrap());
        assert_eq!(d.fast_path(t, a), expected, "{p}");
        let b = d.bind("T").unwrap();
        for _ in 0..10 {
            b.lock(a, 1).unwrap();
            b.unlock(a).unwrap();
        }
        assert_eq!(d.fast_grants(t), if expected { 10 } else { 0 }, "{p}");
        drop(b);
        // Off by option: every grant goes through the machine.
        let d = logic(&pair(p), false);
        assert!(!d.fast_path(t, a), "{p}");
    }
}

#[test]
fn ipcp_takes_the_fast_path_only_for_the_user_at_the_ceiling() {
    let d = logic(&pair(Protocol::Ipcp), true);
    let a = d.resource("A").unwrap();
    // H's priority is A's ceiling: raising H to it changes nothing.
    assert!(d.fast_path(d.task("H").unwrap(), a));
    assert!(!d.fast_path(d.task("T").unwrap(), a));
}

#[test]
fn contention_enters_the_fast_holder_into_the_machine() {
    let d = logic(&pair(Protocol::Pip), true);
    let (t, h) = (d.task("T").unwrap(), d.task("H").unwrap());
    let m = Arc::new(Mutex::new(&d, "A", 0u32).unwrap());
    let bt = d.bind("T").unwrap();
    let g = m.lock().unwrap();
    assert_eq!(d.fast_grants(t), 1);
    let base = d.eff(t);
    let waiter = {
        let (d, m) = (d.clone(), m.clone());
        std::thread::spawn(move || {
            let _b = d.bind("H").unwrap();
            *m.lock().unwrap() += 1;
            d.fast_grants(d.task("H").unwrap())
        })
    };
    wait_until("H waits for A", || d.waiting(h).is_some());
    // H's request made T's section known; T inherits H's priority.
    assert!(d.eff(t) > base);
    assert_eq!(d.eff(t).key, d.eff(h).key);
    drop(g);
    // H was served through the machine, not the fast path.
    assert_eq!(waiter.join().unwrap(), 0);
    assert_eq!(d.waiting(h), None);
    // With nothing left in the machine, the gate is open again.
    drop(m.lock().unwrap());
    assert_eq!(d.fast_grants(t), 2);
    drop(bt);
}

#[test]
fn a_nested_request_makes_the_outer_fast_section_known() {
    let src = r#"
[platform]
cpus = 1
protocol = "pcp"
[[resource]]
name = "A"
[[resource]]
name = "B"
[[task]]
name = "T"
period = "10ms"
priority = 1
body = [ { lock = "A", body = [ { lock = "B", hold = "10us" } ] } ]
[[task]]
name = "H"
period = "10ms"
priority = 3
body = [ { lock = "B", hold = "10us" } ]
"#;
    let d = logic(src, true);
    let (t, h) = (d.task("T").unwrap(), d.task("H").unwrap());
    let (a, b) = (d.resource("A").unwrap(), d.resource("B").unwrap());
    let bt = d.bind("T").unwrap();
    bt.lock(a, 1).unwrap();
    bt.lock(b, 1).unwrap();
    assert_eq!(d.fast_grants(t), 1, "only the outer section is fast");
    // The machine knows the outer section: releasing it first is refused
    // as out of order (not as a resource T does not hold).
    match bt.unlock(a) {
        Err(RtError::Refused {
            error: LockError::NotInnermost { .. },
            ..
        }) => {}
        other => panic!("expected NotInnermost, got {other:?}"),
    }
    bt.unlock(b).unwrap();
    bt.unlock(a).unwrap();
    // H alone: fast again, now that the CPU is quiet.
    let d2 = d.clone();
    std::thread::spawn(move || {
        let _b = d2.bind("H").unwrap();
        let bh = Mutex::new(&d2, "B", ()).unwrap();
        drop(bh.lock().unwrap());
    })
    .join()
    .unwrap();
    assert_eq!(d.fast_grants(h), 1);
}

#[test]
fn a_panic_in_a_fast_section_leaves_the_data_marked() {
    let d = logic(&pair(Protocol::Pip), true);
    let m = Arc::new(Mutex::new(&d, "A", 7u32).unwrap());
    let (d2, m2) = (d.clone(), m.clone());
    let r = std::thread::spawn(move || {
        let _b = d2.bind("T").unwrap();
        let mut g = m2.lock().unwrap();
        assert_eq!(d2.fast_grants(d2.task("T").unwrap()), 1);
        *g = 8;
        panic!("inside the section");
    })
    .join();
    assert!(r.is_err());
    let _bh = d.bind("H").unwrap();
    match m.lock() {
        Err(Fail::Inconsistent(mut g)) => {
            assert_eq!(*g, 8);
            g.mark_consistent();
        }
        other => panic!("expected Inconsistent, got {other:?}"),
    }
    // Repaired: the next owner is not warned, and takes the fast path.
    let before = d.fast_grants(d.task("H").unwrap());
    assert!(m.lock().is_ok());
    assert_eq!(d.fast_grants(d.task("H").unwrap()), before + 1);
}

/// Mutual exclusion with fast and slow paths mixed, under true parallelism
/// (logic only: the threads run on different cores at once, far harsher
/// than one CPU's preemptions): three tasks on one system CPU; each
/// iteration takes A alone (fast where the gate is open), or A then B
/// nested (the nested request settles the CPU), or B alone. A section
/// checks that nobody else is inside and that its read-modify-write is not
/// lost.
#[test]
fn fast_and_slow_sections_exclude_each_other() {
    for proto in ["pip", "pcp", "srp"] {
        let src = format!(
            r#"
[platform]
cpus = 1
protocol = "{proto}"
[[resource]]
name = "A"
[[resource]]
name = "B"
[[task]]
name = "T1"
period = "10ms"
priority = 1
body = [ {{ lock = "A", body = [ {{ lock = "B", hold = "10us" }} ] }} ]
[[task]]
name = "T2"
period = "10ms"
priority = 2
body = [ {{ lock = "A", body = [ {{ lock = "B", hold = "10us" }} ] }} ]
[[task]]
name = "T3"
period = "10ms"
priority = 3
body = [ {{ lock = "A", body = [ {{ lock = "B", hold = "10us" }} ] }} ]
"#
        );
        let d = domain_of(&system(&src), false, &[last_cpu()]);
        struct Cell {
            inside: AtomicBool,
            count: AtomicU32,
        }
        let cells = Arc::new([
            Cell {
                inside: AtomicBool::new(false),
                count: AtomicU32::new(0),
            },
            Cell {
                inside: AtomicBool::new(false),
                count: AtomicU32::new(0),
            },
        ]);
        const ITER: u32 = 3000;
        let enter = |c: &Cell| {
            assert!(
                !c.inside.swap(true, Ordering::SeqCst),
                "two sections at once"
            );
            let v = c.count.load(Ordering::Relaxed);
            std::hint::spin_loop();
            c.count.store(v + 1, Ordering::Relaxed);
        };
        let leave = |c: &Cell| c.inside.store(false, Ordering::SeqCst);
        let threads: Vec<_> = ["T1", "T2", "T3"]
            .into_iter()
            .enumerate()
            .map(|(k, name)| {
                let (d, cells) = (d.clone(), cells.clone());
                std::thread::spawn(move || {
                    let b = d.bind(name).unwrap();
                    let (ra, rb) = (d.resource("A").unwrap(), d.resource("B").unwrap());
                    let mut expect = [0u32; 2];
                    for i in 0..ITER {
                        match (i + k as u32) % 3 {
                            0 => {
                                b.lock(ra, 1).unwrap();
                                enter(&cells[0]);
                                leave(&cells[0]);
                                b.unlock(ra).unwrap();
                                expect[0] += 1;
                            }
                            1 => {
                                b.lock(ra, 1).unwrap();
                                enter(&cells[0]);
                                b.lock(rb, 1).unwrap();
                                enter(&cells[1]);
                                leave(&cells[1]);
                                b.unlock(rb).unwrap();
                                leave(&cells[0]);
                                b.unlock(ra).unwrap();
                                expect[0] += 1;
                                expect[1] += 1;
                            }
                            _ => {
                                b.lock(rb, 1).unwrap();
                                enter(&cells[1]);
                                leave(&cells[1]);
                                b.unlock(rb).unwrap();
                                expect[1] += 1;
                            }
                        }
                    }
                    (expect, d.fast_grants(b.task()))
                })
            })
            .collect();
        let mut total = [0u32; 2];
        let mut fast = 0;
        for t in threads {
            let (e, f) = t.join().unwrap();
            total[0] += e[0];
            total[1] += e[1];
            fast += f;
        }
        assert_eq!(
            cells[0].count.load(Ordering::SeqCst),
            total[0],
            "{proto}: A"
        );
        assert_eq!(
            cells[1].count.load(Ordering::SeqCst),
            total[1],
            "{proto}: B"
        );
        // Both paths were exercised.
        assert!(fast > 0, "{proto}: no fast grant");
        assert!(
            fast < (total[0] + total[1]) as u64,
            "{proto}: no slow grant"
        );
        // Everything released: the machine holds nothing.
        for t in 0..3 {
            assert_eq!(d.waiting(t), None);
        }
    }
}

/// A gate closes for every resource whose state the machine's grant on
/// that CPU reads: here a DPCP section on synchronization CPU 1, held by
/// a task of CPU 0, raises CPU 1's PCP system ceiling, so T's request of
/// its local PCP resource must be refused, not taken on the fast path.
/// (The validator allows one protocol per system; the runtime does not
/// rely on it.)
#[test]
fn a_remote_section_counting_towards_a_ceiling_closes_the_gate() {
    let src = r#"
[platform]
cpus = 2
[[resource]]
name = "A"
protocol = "pcp"
[[resource]]
name = "D"
protocol = "dpcp"
sync_cpu = 1
[[task]]
name = "Z"
period = "10ms"
priority = 5
cpu = 0
body = [ { lock = "D", hold = "10us" } ]
[[task]]
name = "T"
period = "10ms"
priority = 2
cpu = 1
body = [ { lock = "A", hold = "10us" }, { lock = "D", hold = "10us" } ]
"#;
    let d = Domain::new(
        &system_unchecked(src),
        Options {
            realtime: false,
            wait_limit: Duration::from_secs(5),
            ..Options::default()
        },
    )
    .unwrap();
    let (t, a, dd) = (
        d.task("T").unwrap(),
        d.resource("A").unwrap(),
        d.resource("D").unwrap(),
    );
    assert!(d.fast_path(t, a));
    let bz = d.bind("Z").unwrap();
    bz.lock(dd, 1).unwrap();
    let d2 = d.clone();
    let user = std::thread::spawn(move || {
        let b = d2.bind("T").unwrap();
        b.lock(a, 1).unwrap();
        b.unlock(a).unwrap();
        d2.fast_grants(t)
    });
    wait_until("T is refused A", || d.waiting(t) == Some(a));
    bz.unlock(dd).unwrap();
    assert_eq!(user.join().unwrap(), 0);
}

/// A global resource's own gate: fast sections on two CPUs and slow ones
/// (a caller below its CPU's local ceiling is raised, so it goes through
/// the machine), all truly parallel, exclude each other; a waiter from
/// the other CPU makes the fast holder known and is handed the resource.
#[test]
fn a_global_resources_gate_excludes_fast_and_slow_sections() {
    let src = r#"
[platform]
cpus = 2
protocol = "mrsp"
[[resource]]
name = "A"
[[task]]
name = "T1"
period = "10ms"
priority = 2
cpu = 0
body = [ { lock = "A", hold = "10us" } ]
[[task]]
name = "T2"
period = "10ms"
priority = 3
cpu = 1
body = [ { lock = "A", hold = "10us" } ]
[[task]]
name = "T3"
period = "10ms"
priority = 1
cpu = 1
body = [ { lock = "A", hold = "10us" } ]
"#;
    // Three threads on two cores: a spinner whose holder the OS has
    // descheduled sleeps after 100 us instead of burning 50 ms.
    let d = Domain::new(
        &system(src),
        Options {
            realtime: false,
            wait_limit: Duration::from_secs(5),
            spin_limit: Duration::from_micros(100),
            ..Options::default()
        },
    )
    .unwrap();
    let a = d.resource("A").unwrap();
    let task = |n: &str| d.task(n).unwrap();
    assert!(d.fast_path(task("T1"), a) && d.fast_path(task("T2"), a));
    assert!(
        !d.fast_path(task("T3"), a),
        "T3 is raised to CPU 1's ceiling"
    );
    let inside = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU32::new(0));
    const ITER: u32 = 20_000;
    let start = Arc::new(std::sync::Barrier::new(3));
    let threads: Vec<_> = ["T1", "T2", "T3"]
        .into_iter()
        .map(|name| {
            let (d, inside, count) = (d.clone(), inside.clone(), count.clone());
            let start = start.clone();
            std::thread::spawn(move || {
                let b = d.bind(name).unwrap();
                start.wait();
                for _ in 0..ITER {
                    b.lock(a, 1).unwrap();
                    assert!(!inside.swap(true, Ordering::SeqCst), "two sections at once");
                    let v = count.load(Ordering::Relaxed);
                    std::hint::spin_loop();
                    count.store(v + 1, Ordering::Relaxed);
                    inside.store(false, Ordering::SeqCst);
                    b.unlock(a).unwrap();
                }
                d.fast_grants(b.task())
            })
        })
        .collect();
    let fast: Vec<u64> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(count.load(Ordering::SeqCst), 3 * ITER);
    // T1 and T2 took A fast, T3 always through the machine (how often a
    // fast attempt met a holder depends on the machine's load: the
    // deterministic case follows).
    assert!(fast[0] > 0 && fast[1] > 0, "fast grants: {fast:?}");
    assert_eq!(fast[2], 0);

    // A waiter from CPU 1 while T1 holds A on the fast path.
    let b1 = d.bind("T1").unwrap();
    b1.lock(a, 1).unwrap();
    let t2 = {
        let d = d.clone();
        std::thread::spawn(move || {
            let b = d.bind("T2").unwrap();
            b.lock(a, 1).unwrap();
            b.unlock(a).unwrap();
        })
    };
    wait_until("T2 waits", || d.waiting(task("T2")).is_some());
    // The machine knows T1 holds A: T2 spins behind it.
    assert_eq!(d.waiting(task("T2")), Some(a));
    b1.unlock(a).unwrap();
    t2.join().unwrap();
    assert_eq!(d.waiting(task("T2")), None);
}

/// FMLP locks a nesting group: A and B (B nested in A somewhere) are one
/// unit. While a fast holder holds A, a request for B must wait: the slow
/// path settles the group's gate, not a gate of B's own. (Found by
/// tests/stress.rs: the machine granted the group beside the fast holder.)
#[test]
fn a_fast_holder_of_a_group_excludes_the_other_members() {
    let Some(_rt) = realtime("a_fast_holder_of_a_group_excludes_the_other_members") else {
        return;
    };
    for p in ["fmlp-s", "fmlp-l"] {
        // Two CPUs: A and B are global, each with a queue of its own.
        let src = format!(
            "[platform]\ncpus = 2\nprotocol = \"{p}\"\n[[resource]]\nname = \"A\"\n[[resource]]\nname = \"B\"\n\
             [[task]]\nname = \"T\"\nperiod = \"10ms\"\npriority = 2\ncpu = 0\nbody = [ {{ lock = \"A\", body = [ {{ lock = \"B\", hold = \"10us\" }} ] }} ]\n\
             [[task]]\nname = \"U\"\nperiod = \"10ms\"\npriority = 1\ncpu = 1\nbody = [ {{ lock = \"B\", hold = \"10us\" }} ]\n"
        );
        let cpus = rtsync_rt::sys::allowed_cpus();
        let d = unrecorded(&src, &[cpus[0], *cpus.last().unwrap()]);
        let (t, a, b) = (
            d.task("T").unwrap(),
            d.resource("A").unwrap(),
            d.resource("B").unwrap(),
        );
        assert!(d.fast_path(t, a), "{p}: A (the group's unit) is fast");
        let bt = d.bind("T").unwrap();
        bt.lock(a, 1).unwrap();
        assert_eq!(d.fast_grants(t), 1, "{p}");
        let got = Arc::new(AtomicBool::new(false));
        let u = {
            let (d, got) = (d.clone(), got.clone());
            std::thread::spawn(move || {
                let bu = d.bind("U").unwrap();
                bu.lock(b, 1).unwrap();
                got.store(true, Ordering::SeqCst);
                bu.unlock(b).unwrap();
            })
        };
        std::thread::sleep(Duration::from_millis(30));
        assert!(
            !got.load(Ordering::SeqCst),
            "{p}: B granted while A's group was held"
        );
        bt.unlock(a).unwrap();
        wait_until("U is granted B", || got.load(Ordering::SeqCst));
        u.join().unwrap();
    }
}
