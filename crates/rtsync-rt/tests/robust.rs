//! Misuse is an error that names the task and resource; an owner that
//! panics or ends inside its section leaves the data marked inconsistent
//! and never a deadlock. These run without SCHED_FIFO (the protocol's
//! decisions alone), so they run everywhere; the PIP ones run again on
//! the kernel's PI futex (`Options::kernel_pi`: real-time, no log) where
//! SCHED_FIFO is permitted.

mod common;

use common::{domain_of, last_cpu, system_unchecked, wait_until};
use rtsync_protocols::LockError;
use rtsync_rt::{Domain, Options};
use rtsync_rt::{Fail, Mutex, RtError};
use std::sync::Arc;
use std::time::Duration;

const TWO: &str = r#"
[platform]
cpus = 1
protocol = "PROTO"
[[resource]]
name = "A"
[[resource]]
name = "B"
[[task]]
name = "H"
period = "100ms"
priority = 3
body = [ { lock = "A", body = [ { lock = "B", hold = "1ms" } ] } ]
[[task]]
name = "L"
period = "100ms"
priority = 1
body = [ { lock = "B", body = [ { lock = "A", hold = "1ms" } ] } ]
[[task]]
name = "X"
period = "100ms"
priority = 5
body = [ { compute = "1ms" } ]
"#;

/// The PIP system on each runtime path: the machine without SCHED_FIFO,
/// and, where SCHED_FIFO is permitted, the kernel's PI futex; with the
/// real-time tests' hold on the machine, for the caller to keep.
fn two_pip(test: &str) -> (Option<common::RealTime>, Vec<Domain>) {
    let mut out = vec![two("pip")];
    let held = common::realtime(&format!("{test} on the kernel's PI futex"));
    if held.is_some() {
        let d = Domain::new(
            &system_unchecked(&TWO.replace("PROTO", "pip")),
            Options {
                cpu_map: Some(vec![last_cpu()]),
                wait_limit: Duration::from_secs(5),
                ..Options::default()
            },
        )
        .unwrap();
        assert!(d.kernel_pi(), "a real-time PIP domain with no log");
        out.push(d);
    }
    (held, out)
}

fn two(proto: &str) -> rtsync_rt::Domain {
    // Opposite lock orders: the validator rejects this under PIP (a
    // potential deadlock); the runtime must refuse the deadlock itself
    // when a program does it anyway.
    domain_of(
        &system_unchecked(&TWO.replace("PROTO", proto)),
        false,
        &[last_cpu()],
    )
}

#[test]
fn a_thread_that_is_no_task_is_told_to_bind() {
    let d = two("pip");
    let a = Mutex::new(&d, "A", ()).unwrap();
    match a.lock() {
        Err(Fail::Error(RtError::NotBound { resource })) => assert_eq!(resource, "A"),
        other => panic!("expected NotBound, got {other:?}"),
    }
    let e = a.lock().unwrap_err().to_string();
    assert!(e.contains("Domain::bind"), "{e}");
    assert!(matches!(
        d.bind("nobody"),
        Err(RtError::Unknown { what: "task", .. })
    ));
    assert!(matches!(
        Mutex::new(&d, "Z", ()),
        Err(RtError::Unknown {
            what: "resource",
            ..
        })
    ));
}

#[test]
fn one_thread_per_task() {
    let d = two("pip");
    let _h = d.bind("H").unwrap();
    assert!(matches!(d.bind("L"), Err(RtError::AlreadyBound { .. })));
    let d2 = d.clone();
    let other = std::thread::spawn(move || d2.bind("H").map(|_| ()))
        .join()
        .unwrap();
    assert!(matches!(other, Err(RtError::AlreadyBound { .. })));
}

#[test]
fn a_caller_above_the_ceiling_is_refused() {
    // X (priority 5) uses neither resource: under PCP, A's ceiling is 3.
    let d = two("pcp");
    let a = Mutex::new(&d, "A", ()).unwrap();
    let _x = d.bind("X").unwrap();
    match a.lock() {
        Err(Fail::Error(RtError::Refused {
            task,
            resource,
            error: LockError::AboveCeiling { .. },
        })) => {
            assert_eq!(task, "X");
            assert_eq!(resource.as_deref(), Some("A"));
        }
        other => panic!("expected AboveCeiling, got {other:?}"),
    }
}

#[test]
fn pip_deadlock_is_refused_not_entered() {
    let (_rt, domains) = two_pip("pip_deadlock_is_refused_not_entered");
    for d in domains {
        deadlock_refused(d);
    }
}

fn deadlock_refused(d: Domain) {
    // H holds A and wants B; L holds B and wants A: the second request
    // would close the cycle and is refused; after it, the first completes.
    let a = Arc::new(Mutex::new(&d, "A", ()).unwrap());
    let b = Arc::new(Mutex::new(&d, "B", ()).unwrap());
    let _l = d.bind("L").unwrap();
    let gb = b.lock().unwrap();
    let h = {
        let (d, a, b) = (d.clone(), a.clone(), b.clone());
        std::thread::spawn(move || {
            let _h = d.bind("H").unwrap();
            let _ga = a.lock().unwrap();
            b.lock().map(|_| ()).map_err(|e| e.to_string())
        })
    };
    let ht = d.task("H").unwrap();
    wait_until("H waits for B", || d.waiting(ht).is_some());
    match a.lock() {
        Err(Fail::Error(RtError::Deadlock { cycle })) => {
            let names: Vec<String> = cycle.iter().map(|(t, r)| format!("{t}>{r}")).collect();
            assert_eq!(names, ["L>A", "H>B"]);
        }
        other => panic!("expected Deadlock, got {other:?}"),
    }
    drop(gb);
    assert_eq!(h.join().unwrap(), Ok(()));
}

#[test]
fn a_mutex_over_a_multi_unit_resource_is_refused() {
    let src = r#"
[platform]
cpus = 1
protocol = "srp"
[[resource]]
name = "buffers"
units = 3
[[task]]
name = "T"
period = "100ms"
priority = 1
body = [ { lock = "buffers", units = 2, hold = "1ms" } ]
"#;
    let d = common::domain(src, false, &[last_cpu()]);
    match Mutex::new(&d, "buffers", ()) {
        Err(RtError::MultiUnit { resource, units }) => {
            assert_eq!((resource.as_str(), units), ("buffers", 3))
        }
        Err(e) => panic!("expected MultiUnit, got {e}"),
        Ok(_) => panic!("expected MultiUnit, got a mutex"),
    }
}

/// One resource `A` used by `L` and `H` under `p`: on one CPU for a
/// uniprocessor protocol, on two CPUs (A global; CPU 1 synchronizes where
/// the protocol needs it) otherwise.
fn pair(p: rtsync_model::Protocol, realtime: bool) -> Domain {
    let (cpus, h_cpu) = if p.is_uniprocessor() { (1, 0) } else { (2, 1) };
    let sync = if p.needs_sync_cpu() {
        "sync_cpu = 1\n"
    } else {
        ""
    };
    let src = format!(
        "[platform]\ncpus = {cpus}\nprotocol = \"{}\"\n[[resource]]\nname = \"A\"\n{sync}\
         [[task]]\nname = \"H\"\nperiod = \"100ms\"\npriority = 3\ncpu = {h_cpu}\n\
         body = [ {{ lock = \"A\", hold = \"1ms\" }} ]\n\
         [[task]]\nname = \"L\"\nperiod = \"100ms\"\npriority = 1\ncpu = 0\n\
         body = [ {{ lock = \"A\", hold = \"1ms\" }} ]\n",
        p.name()
    );
    if !realtime {
        return domain_of(&common::system(&src), false, &[last_cpu()]);
    }
    // The paths users get: real-time, no recording (fast paths and the
    // kernel's PI futex on), the two tasks on two machine CPUs where the
    // protocol spans two, so that a spinning waiter never starves the
    // owner it waits for.
    let map = rtsync_rt::placement::default_map(cpus_of(&src), &rtsync_rt::sys::allowed_cpus());
    Domain::new(
        &common::system(&src),
        Options {
            cpu_map: Some(map),
            wait_limit: Duration::from_secs(5),
            ..Options::default()
        },
    )
    .unwrap()
}

fn cpus_of(src: &str) -> usize {
    if src.contains("cpus = 2") { 2 } else { 1 }
}

/// Owner death under every protocol: the owner's thread ends inside its
/// section (the low-level interface lets it end holding: unbinding
/// releases) or panics there, while the other task waits (suspended,
/// spinning or queued at a synchronization CPU, as the protocol has it);
/// the waiter gets the resource, is told the data may be inconsistent,
/// repairs it and the next lock is not warned; nothing deadlocks; the
/// waiter is waiting for nothing afterwards. PIP's real-time domain is
/// the kernel's PI futex.
#[test]
fn every_protocol_tells_the_next_owner_when_its_owner_dies() {
    let mut paths = vec![false];
    let held = common::realtime("owner death on the default real-time paths");
    if held.is_some() && rtsync_rt::sys::allowed_cpus().len() >= 2 {
        paths.push(true);
    }
    for (p, realtime) in rtsync_model::Protocol::ALL
        .into_iter()
        .flat_map(|p| paths.iter().map(move |&r| (p, r)))
    {
        for panics in [false, true] {
            let d = pair(p, realtime);
            if realtime && p == rtsync_model::Protocol::Pip {
                assert!(d.kernel_pi(), "a real-time PIP domain with no log");
            }
            let a = Arc::new(Mutex::new(&d, "A", 0u32).unwrap());
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let (held_tx, held_rx) = std::sync::mpsc::channel::<()>();
            let owner = {
                let (d, a) = (d.clone(), a.clone());
                std::thread::spawn(move || {
                    let l = d.bind("L").unwrap();
                    if panics {
                        let mut g = a.lock().unwrap();
                        *g = 7;
                        held_tx.send(()).unwrap();
                        rx.recv().unwrap();
                        panic!("owner fails inside its section");
                    }
                    l.lock(d.resource("A").unwrap(), 1).unwrap();
                    held_tx.send(()).unwrap();
                    rx.recv().unwrap();
                    // The thread ends: `l` drops with A still held.
                })
            };
            held_rx.recv().unwrap();
            let waiter = {
                let (d, a) = (d.clone(), a.clone());
                std::thread::spawn(move || {
                    let _h = d.bind("H").unwrap();
                    let seen = match a.lock() {
                        Err(Fail::Inconsistent(mut g)) => {
                            let seen = *g;
                            *g = 0;
                            g.mark_consistent();
                            seen
                        }
                        other => return Err(format!("{other:?}")),
                    };
                    // Repaired: the next owner is not warned.
                    match a.lock() {
                        Ok(g) if *g == 0 => Ok(seen),
                        other => Err(format!("after the repair: {other:?}")),
                    }
                })
            };
            let ht = d.task("H").unwrap();
            wait_until(&format!("{p}: H waits for A"), || d.waiting(ht).is_some());
            tx.send(()).unwrap();
            let _ = owner.join();
            let got = waiter.join().expect("the waiter ran to the end");
            let want = if panics { 7 } else { 0 };
            assert_eq!(
                got,
                Ok(want),
                "{p} (real-time: {realtime}), owner {}",
                if panics { "panicked" } else { "ended" }
            );
            assert!(d.waiting(ht).is_none(), "{p}: H still waits");
        }
    }
}

/// FMLP short resource S and long resource L, used apart by the spec.
const FMLP_MIX: &str = r#"
[platform]
cpus = 2
[[resource]]
name = "S"
protocol = "fmlp-s"
[[resource]]
name = "L"
protocol = "fmlp-l"
[[task]]
name = "a"
period = "100ms"
priority = 2
cpu = 0
body = [ { lock = "S", hold = "1ms" }, { lock = "L", hold = "1ms" } ]
[[task]]
name = "b"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "S", hold = "1ms" }, { lock = "L", hold = "1ms" } ]
"#;

/// A program that nests a long request (which may suspend) inside a
/// short, non-preemptive section is refused with the reason, on the
/// recorded path and on the default one (fast path, real time where
/// permitted); a short request inside a long section is granted.
#[test]
fn a_suspending_request_inside_a_non_preemptive_section_is_refused() {
    let mut domains = vec![domain_of(&common::system(FMLP_MIX), false, &[last_cpu()])];
    let held = common::realtime("the refused nesting on the default path");
    if held.is_some() {
        domains.push(common::unrecorded(FMLP_MIX, &[last_cpu(), last_cpu()]));
    }
    for d in domains {
        let s = Mutex::new(&d, "S", ()).unwrap();
        let l = Mutex::new(&d, "L", ()).unwrap();
        let _a = d.bind("a").unwrap();
        {
            let _in_s = s.lock().unwrap();
            match l.lock() {
                Err(Fail::Error(RtError::Refused {
                    task,
                    resource,
                    error: LockError::ForbiddenNesting { .. },
                })) => {
                    assert_eq!(task, "a");
                    assert_eq!(resource.as_deref(), Some("L"));
                }
                other => panic!("expected ForbiddenNesting, got {other:?}"),
            }
        }
        let _in_l = l.lock().unwrap();
        let _in_s = s.lock().unwrap();
    }
}
