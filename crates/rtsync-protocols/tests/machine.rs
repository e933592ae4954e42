//! The lock machine driven directly, without a kernel: misuse is an error
//! (never a panic), and the core rules (transitive inheritance, queue
//! order, group locks, SRP's per-need ceilings, PCP's ceiling refusal) hold.

use rtsync_model::nesting::Conflict;
use rtsync_model::{Protocol, load_str};
use rtsync_protocols::{Arbitration, Config, Eff, Hold, LockError, Locks, Outcome, Tier, Wait};

/// A machine for `tasks` = `(name, priority, cpu, resources used)` with
/// every resource under `p`. Resources are named r0, r1, ...
fn machine(p: Protocol, cpus: usize, resources: usize, tasks: &[(u32, usize, &[usize])]) -> Locks {
    let mut src = format!("[platform]\ncpus = {cpus}\nprotocol = \"{}\"\n", p.name());
    for r in 0..resources {
        src += &format!("[[resource]]\nname = \"r{r}\"\n");
        if p.needs_sync_cpu() {
            src += &format!("sync_cpu = {}\n", cpus - 1);
        }
    }
    for (i, (prio, cpu, uses)) in tasks.iter().enumerate() {
        let body: Vec<String> = uses
            .iter()
            .map(|r| format!("{{ lock = \"r{r}\", hold = \"1ms\" }}"))
            .collect();
        src += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"100ms\"\npriority = {prio}\ncpu = {cpu}\nbody = [{}]\n",
            body.join(", ")
        );
    }
    let sys = load_str(&src, None)
        .map(|(s, _)| s)
        .unwrap_or_else(|d| panic!("{d}\n{src}"));
    let mut m = Locks::new(Config::new(&sys));
    for (i, (prio, _, _)) in tasks.iter().enumerate() {
        m.set_base(i, *prio as u64, i as u64).unwrap();
    }
    m
}

#[test]
fn misuse_is_reported_not_panicked() {
    let mut m = machine(Protocol::Pip, 1, 2, &[(2, 0, &[0, 1]), (1, 0, &[0, 1])]);
    assert_eq!(
        m.unlock(0, 0),
        Err(LockError::NotOwner {
            thread: 0,
            resource: 0
        })
    );
    assert!(matches!(m.lock(9, 0, 1), Err(LockError::Unknown { .. })));
    assert!(matches!(m.lock(0, 9, 1), Err(LockError::Unknown { .. })));
    assert!(matches!(m.lock(0, 0, 0), Err(LockError::Units { .. })));
    assert!(matches!(m.lock(0, 0, 2), Err(LockError::Units { .. })));
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted));
    assert_eq!(
        m.lock(0, 0, 1),
        Err(LockError::Recursive {
            thread: 0,
            resource: 0
        })
    );
    assert_eq!(m.lock(0, 1, 1), Ok(Outcome::Granted));
    assert_eq!(
        m.unlock(0, 0),
        Err(LockError::NotInnermost {
            thread: 0,
            resource: 0,
            innermost: 1
        })
    );
    assert!(m.job_done(0).is_err(), "a job may not end holding locks");
    assert_eq!(m.lock(1, 0, 1), Ok(Outcome::Wait { spin: false }));
    assert!(matches!(
        m.lock(1, 1, 1),
        Err(LockError::AlreadyWaiting { .. })
    ));
    assert!(matches!(m.retry(0), Err(LockError::NothingToRetry { .. })));
    // Every message names what went wrong.
    let msg = LockError::NotOwner {
        thread: 3,
        resource: 4,
    }
    .to_string();
    assert!(msg.contains('3') && msg.contains('4'), "{msg}");
}

#[test]
fn mpcp_refuses_nested_global_sections() {
    // r0 and r1 are both used on CPUs 0 and 1: global.
    let mut m = machine(Protocol::Mpcp, 2, 2, &[(2, 0, &[0, 1]), (1, 1, &[0, 1])]);
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted));
    assert_eq!(
        m.lock(0, 1, 1),
        Err(LockError::ForbiddenNesting {
            thread: 0,
            resource: 1,
            held: 0,
            rule: Conflict::NestedGlobal(Protocol::Mpcp),
        })
    );
}

#[test]
fn pcp_refuses_a_user_above_the_ceiling() {
    // t1 (priority 9) does not use r0: its ceiling is 2.
    let mut m = machine(Protocol::Pcp, 1, 2, &[(2, 0, &[0]), (9, 0, &[1])]);
    assert_eq!(
        m.lock(1, 0, 1),
        Err(LockError::AboveCeiling {
            thread: 1,
            resource: 0
        })
    );
}

#[test]
fn pip_inheritance_is_transitive() {
    // t2 (1) holds r1; t1 (2) holds r0 and waits for r1; t0 (3) waits for r0.
    let mut m = machine(
        Protocol::Pip,
        1,
        2,
        &[(3, 0, &[0]), (2, 0, &[0, 1]), (1, 0, &[1])],
    );
    assert_eq!(m.lock(2, 1, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(1, 0, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(1, 1, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.eff(2).key, 2, "t2 inherits t1's priority");
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.eff(1).key, 3, "t1 inherits t0's priority");
    assert_eq!(m.eff(2).key, 3, "and passes it on to t2");
    assert_eq!(m.wait_cycle(0), None);
    // t2 releases: PIP wakes t1 (no hand-off), and the chain dissolves.
    let woken = m.unlock(2, 1).unwrap();
    assert_eq!(woken.len(), 1);
    assert!(!woken[0].granted && woken[0].thread == 1);
    assert_eq!(m.eff(2).key, 1);
    assert_eq!(m.retry(1), Ok(Outcome::Granted));
}

#[test]
fn fifo_protocols_serve_in_request_order_priority_protocols_by_priority() {
    for (p, first) in [(Protocol::FmlpL, 1usize), (Protocol::Mpcp, 2usize)] {
        // t0 holds r0; t1 (priority 1) then t2 (priority 5) request it.
        let mut m = machine(p, 3, 1, &[(3, 0, &[0]), (1, 1, &[0]), (5, 2, &[0])]);
        assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted));
        assert_eq!(m.lock(1, 0, 1), Ok(Outcome::Wait { spin: false }));
        assert_eq!(m.lock(2, 0, 1), Ok(Outcome::Wait { spin: false }));
        let g = m.unlock(0, 0).unwrap();
        assert_eq!(g.len(), 1, "{p}");
        assert!(g[0].granted, "{p} hands over");
        assert_eq!(g[0].thread, first, "{p}");
        // The new holder is boosted either way.
        assert_eq!(m.eff(first).tier, Tier::Boosted, "{p}");
    }
}

#[test]
fn fmlp_group_lock_grants_inner_sections_of_a_held_group() {
    let src = r#"
[platform]
cpus = 2
protocol = "fmlp-s"
[[resource]]
name = "a"
[[resource]]
name = "b"
[[task]]
name = "x"
period = "10ms"
cpu = 0
body = [ { lock = "a", body = [ { lock = "b", hold = "1ms" } ] } ]
[[task]]
name = "y"
period = "10ms"
cpu = 1
body = [ { lock = "b", hold = "1ms" } ]
"#;
    let sys = load_str(src, None).unwrap().0;
    let mut m = Locks::new(Config::new(&sys));
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted));
    // b is in a's group: y must spin although b itself is not locked.
    assert_eq!(m.lock(1, 1, 1), Ok(Outcome::Wait { spin: true }));
    assert_eq!(m.eff(1).tier, Tier::NonPreemptive);
    assert_eq!(
        m.lock(0, 1, 1),
        Ok(Outcome::Granted),
        "inner section of a held group"
    );
    assert_eq!(
        m.unlock(0, 1),
        Ok(vec![]),
        "releasing the inner section frees nothing"
    );
    let g = m.unlock(0, 0).unwrap();
    assert!(g.len() == 1 && g[0].thread == 1 && g[0].granted);
}

#[test]
fn srp_start_test_uses_the_ceiling_for_the_units_left() {
    let src = r#"
[platform]
cpus = 1
protocol = "srp"
[[resource]]
name = "r"
units = 3
[[task]]
name = "hi"
period = "10ms"
priority = 3
body = [ { lock = "r", units = 2, hold = "1ms" } ]
[[task]]
name = "mid"
period = "20ms"
priority = 2
body = [ { lock = "r", units = 1, hold = "1ms" } ]
[[task]]
name = "lo"
period = "40ms"
priority = 1
body = [ { lock = "r", units = 3, hold = "1ms" } ]
"#;
    let sys = load_str(src, None).unwrap().0;
    let mut m = Locks::new(Config::new(&sys));
    for t in 0..3 {
        m.set_base(t, 3 - t as u64, t as u64).unwrap();
    }
    // lo takes 1 unit: 2 free; only lo itself needs more than 2.
    assert_eq!(m.lock(2, 0, 1), Ok(Outcome::Granted));
    assert!(m.may_start(0) && m.may_start(1));
    // mid takes 1 more: 1 free; hi (needs 2) may not start, nor mid again.
    assert_eq!(m.lock(1, 0, 1), Ok(Outcome::Granted));
    assert!(!m.may_start(0));
    let _ = m.unlock(1, 0).unwrap();
    assert!(m.may_start(0));
    // A thread's own units never block its own start test.
    assert!(m.may_start(2));
}

#[test]
fn dpcp_sections_run_on_the_synchronization_cpu_boosted() {
    let mut m = machine(Protocol::Dpcp, 2, 1, &[(2, 0, &[0]), (1, 1, &[0])]);
    assert_eq!(m.location(0), 0);
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted));
    let sync = m.config().rules[0]
        .domain
        .expect("a DPCP resource has a sync CPU");
    assert_eq!(m.location(0), sync);
    assert!(
        m.eff(0) > Eff::normal(u64::MAX, 0),
        "agents run above every normal priority"
    );
    m.unlock(0, 0).unwrap();
    assert_eq!(m.location(0), 0);
}

#[test]
fn a_cancelled_wait_returns_the_lent_priority_and_leaves_the_queue() {
    // t2 (low) holds r0; t0 (high) waits and lends its priority; t1 waits
    // behind it. t0 gives up: t2 drops to t1's priority, and t1 is the one
    // served at the release.
    let mut m = machine(
        Protocol::Pip,
        1,
        1,
        &[(3, 0, &[0]), (2, 0, &[0]), (1, 0, &[0])],
    );
    assert_eq!(m.lock(2, 0, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.lock(1, 0, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.eff(2).key, 3);
    assert_eq!(m.cancel(0), Ok(0));
    assert_eq!(m.waiting(0), None);
    assert_eq!(m.eff(2).key, 2);
    assert_eq!(m.cancel(0), Err(LockError::NothingToRetry { thread: 0 }));
    let woken = m.unlock(2, 0).unwrap();
    assert_eq!(woken.len(), 1);
    assert_eq!(woken[0].thread, 1);
}

/// PCP, one CPU: H (priority 1) holds r0, used up to priority 3; M
/// (priority 4, above that ceiling) takes r1, whose ceiling is 5; W
/// (priority 3) asks for r0 and is refused. It lends its 3 to H, the
/// holder of r0 (not to M, the system ceiling's holder). M's release
/// wakes W to compete again: woken, W blocks nobody, and H must fall back
/// to its base at once although H itself did nothing.
#[test]
fn a_release_elsewhere_that_wakes_a_ceiling_waiter_takes_back_its_loan() {
    let mut m = machine(
        Protocol::Pcp,
        1,
        2,
        &[(1, 0, &[0]), (4, 0, &[1]), (3, 0, &[0]), (5, 0, &[1])],
    );
    let (h, mid, w) = (0, 1, 2);
    assert_eq!(m.lock(h, 0, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(mid, 1, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(w, 0, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.eff(h).key, 3, "W lends to the holder of its resource");
    assert_eq!(m.eff(mid).key, 4);
    let woken = m.unlock(mid, 1).unwrap();
    assert_eq!(woken.len(), 1);
    assert_eq!((woken[0].thread, woken[0].granted), (w, false));
    assert_eq!(
        m.eff(h),
        Eff::normal(1, h as u64),
        "the loan ends with the wait"
    );
    m.verify().unwrap();
    // W retries: r0 is still H's, so W is refused and lends again.
    assert_eq!(m.retry(w), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.eff(h).key, 3);
    m.verify().unwrap();
}

/// A release wakes every ceiling-refused waiter of its CPU at once; a
/// woken waiter whose retry would only be refused again, lending to a
/// thread already at or above it, may be left asleep. Below such a
/// waiter, another may still need its turn: here `x` waits for a resource
/// held by `c`, who runs below `x` once `x` no longer lends to it, so
/// the woken waiters are not alike, and `x`'s retry is not futile.
#[test]
fn a_futile_top_ceiling_waiter_does_not_speak_for_unlike_ones_below() {
    // b (5) uses r0, r2; t (4) uses r0; x (3) uses r1; c (1) uses r1.
    let (b, t, x, c) = (0, 1, 2, 3);
    let mut m = machine(
        Protocol::Pcp,
        1,
        3,
        &[(5, 0, &[0, 2]), (4, 0, &[0]), (3, 0, &[1]), (1, 0, &[1])],
    );
    assert_eq!(m.lock(c, 1, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(b, 0, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(b, 2, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(t, 0, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.lock(x, 1, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.eff(c).key, 3, "c inherits x's priority");
    let mut handed = Vec::new();
    let woke = m.unlock_into(b, 2, &mut handed).unwrap();
    assert!(handed.is_empty());
    assert_eq!(woke, Some(0));
    assert!(m.woken(t) && m.woken(x));
    assert_eq!(m.ceiling_woken(0).collect::<Vec<_>>(), vec![t, x]);
    assert_eq!(m.eff(c).key, 1, "woken, x lends nothing");
    assert!(m.retry_is_futile(t), "t would wait again for b, above it");
    assert!(!m.retry_is_futile(x), "x would lend to c, below it");
    assert!(!m.ceiling_woken_alike(0));
    assert_eq!(m.retry(x), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.eff(c).key, 3, "x's retry made c inherit again");
    m.verify().unwrap();
}

/// The same, with every woken waiter asking for what the top one asks
/// for and holding nothing: alike, and all futile with the top.
#[test]
fn alike_ceiling_waiters_are_futile_with_the_top_one() {
    let (b, t, x) = (0, 1, 2);
    let mut m = machine(
        Protocol::Pcp,
        1,
        3,
        &[(5, 0, &[0, 2]), (4, 0, &[0]), (3, 0, &[0])],
    );
    assert_eq!(m.lock(b, 0, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(b, 2, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(x, 0, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.lock(t, 0, 1), Ok(Outcome::Wait { spin: false }));
    let woke = m.unlock_into(b, 2, &mut Vec::new()).unwrap();
    assert_eq!(woke, Some(0));
    // Highest first, whatever the order of their requests.
    assert_eq!(m.ceiling_woken(0).collect::<Vec<_>>(), vec![t, x]);
    assert!(m.ceiling_woken_alike(0));
    assert!(m.retry_is_futile(t) && m.retry_is_futile(x));
    // Once b lets r0 go, the top one would be granted.
    m.unlock_into(b, 0, &mut Vec::new()).unwrap();
    assert!(!m.retry_is_futile(t));
    assert_eq!(m.retry(t), Ok(Outcome::Granted));
    // Now x would wait for t, above it.
    assert!(m.retry_is_futile(x));
    m.verify().unwrap();
}

/// PIP without hand-off: a release wakes the top waiter to compete again,
/// it does not reserve the resource for the waiters still queued. A
/// higher-priority job that runs first takes the free resource. (Found by
/// the soundness search: the machine made the job wait for a free
/// resource because a lower waiter was still queued; nobody held it, so
/// nobody inherited, and a middle job ran ahead: 2.5 times PIP's bound.)
#[test]
fn pip_a_free_resource_goes_to_the_running_requester() {
    // t0 (4) nests r1 in r0, then locks r1 again; t1 (3), t2 (2) and t3
    // (1) use r1.
    let mut m = machine(
        Protocol::Pip,
        1,
        2,
        &[(4, 0, &[0, 1]), (3, 0, &[1]), (2, 0, &[1]), (1, 0, &[1])],
    );
    assert_eq!(m.lock(3, 1, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(2, 1, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.lock(1, 1, 1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(0, 1, 1), Ok(Outcome::Wait { spin: false }));
    // t3 releases r1: t0 (top) woken, retries and takes it.
    let woken = m.unlock(3, 1).unwrap();
    assert_eq!((woken[0].thread, woken[0].granted), (0, false));
    assert_eq!(m.retry(0), Ok(Outcome::Granted));
    // t0 releases r1 (inner) and r0: t1 woken (it does not run yet), t2
    // still queued.
    let woken = m.unlock(0, 1).unwrap();
    assert_eq!((woken[0].thread, woken[0].granted), (1, false));
    m.unlock(0, 0).unwrap();
    // t0 asks for r1 again: it is free and t0 outranks t2, so t0 takes it.
    assert_eq!(m.lock(0, 1, 1), Ok(Outcome::Granted));
    // t1's retry waits for t0, and t1 and t2 lend t0 nothing above its own.
    assert_eq!(m.retry(1), Ok(Outcome::Wait { spin: false }));
    assert_eq!(m.eff(0).key, 4);
    // t0's release wakes t1, the top of the two.
    let woken = m.unlock(0, 1).unwrap();
    assert_eq!((woken[0].thread, woken[0].granted), (1, false));
    assert_eq!(m.retry(1), Ok(Outcome::Granted));
}

/// What each protocol's rule says about waiting, as the papers define it:
/// waiters of a global resource spin under FMLP-S (Block et al. 2007),
/// MSRP (Gai et al. 2001) and MrsP (Burns and Wellings 2013), and suspend
/// under the others; only PIP's rule is a plain priority-inheritance
/// mutex, which the runtime may leave to the kernel's PI futex. Kernels
/// and benches read these from the rules, never from protocol names.
#[test]
fn rules_say_who_spins_and_which_the_kernel_can_implement() {
    for p in Protocol::ALL {
        let (cpus, cpu_b) = if p.is_uniprocessor() { (1, 0) } else { (2, 1) };
        let m = machine(p, cpus, 1, &[(2, 0, &[0]), (1, cpu_b, &[0])]);
        let rule = &m.config().rules[0];
        let spins = matches!(p, Protocol::FmlpS | Protocol::Msrp | Protocol::Mrsp);
        assert_eq!(rule.wait == Wait::Spin, spins, "{p}");
        assert_eq!(rule.is_inheritance_mutex(0), p == Protocol::Pip, "{p}");
        // The analysis's view of the same protocol agrees with its rule.
        if p.suspends() {
            assert_eq!(rule.wait, Wait::Suspend, "{p}");
        }
        let moves = if rule.domain.is_some() {
            2
        } else {
            rule.helping as u64
        };
        assert_eq!(p.migrations(), moves, "{p}");
        // A holder that keeps its CPU: non-preemptive or spinning.
        let keeps = rule.wait == Wait::Spin || rule.holding == Hold::NonPreemptive;
        assert_eq!(p.keeps_cpu(), keeps, "{p}");
        // A start test (SRP's) where the rule arbitrates by the stack.
        assert_eq!(
            p.tests_start(),
            rule.arbitration == Arbitration::Stack,
            "{p}"
        );
        // The local protocol a multiprocessor protocol prescribes gives
        // its local resources the very same rule, which is why a spec may
        // name either (`rtsync_model::mix`).
        if let Some(local) = p.local_protocol() {
            let users: &[(u32, usize, &[usize])] = &[(2, 0, &[0]), (1, 0, &[0])];
            let ours = machine(p, 2, 1, users).config().rules[0].clone();
            let theirs = machine(local, 2, 1, users).config().rules[0].clone();
            assert_eq!(ours, theirs, "{p} local vs {local}");
        }
    }
}

/// A protocol per resource: FMLP short resource r0 and long resource r1
/// (Block et al. 2007), used apart by the spec. A short section keeps its
/// CPU, so a long request inside it (which may suspend) is refused at run
/// time as validation refuses it in a spec; the other way round, a short
/// request inside a long section, spins while the long one is held.
#[test]
fn a_suspending_request_inside_a_section_that_keeps_its_cpu_is_refused() {
    let src = "[platform]\ncpus = 2\n\
[[resource]]\nname = \"r0\"\nprotocol = \"fmlp-s\"\n\
[[resource]]\nname = \"r1\"\nprotocol = \"fmlp-l\"\n\
[[task]]\nname = \"t0\"\nperiod = \"100ms\"\npriority = 2\ncpu = 0\nbody = [ { lock = \"r0\", hold = \"1ms\" }, { lock = \"r1\", hold = \"1ms\" } ]\n\
[[task]]\nname = \"t1\"\nperiod = \"100ms\"\npriority = 1\ncpu = 1\nbody = [ { lock = \"r0\", hold = \"1ms\" }, { lock = \"r1\", hold = \"1ms\" } ]\n";
    let sys = load_str(src, None).unwrap_or_else(|d| panic!("{d}")).0;
    let mut m = Locks::new(Config::new(&sys));
    m.set_base(0, 2, 0).unwrap();
    m.set_base(1, 1, 1).unwrap();
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted));
    assert_eq!(
        m.lock(0, 1, 1),
        Err(LockError::ForbiddenNesting {
            thread: 0,
            resource: 1,
            held: 0,
            rule: Conflict::SuspendsWhileKeepingCpu,
        })
    );
    m.unlock(0, 0).unwrap();
    // Short inside long: t1 holds r0, so t0 (holding r1, boosted) spins
    // non-preemptively for it.
    assert_eq!(m.lock(1, 0, 1), Ok(Outcome::Granted));
    assert_eq!(m.lock(0, 1, 1), Ok(Outcome::Granted));
    assert_eq!(m.eff(0).tier, Tier::Boosted);
    assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Wait { spin: true }));
    assert_eq!(m.eff(0).tier, Tier::NonPreemptive);
}

/// PCP's ceiling test prevents deadlock only among resources that all pass
/// it: a PCP request while holding a PIP resource (or the reverse) is
/// refused at run time, as validation refuses it in a spec.
#[test]
fn pcp_nested_with_another_protocol_is_refused() {
    let src = "[platform]\ncpus = 1\n\
[[resource]]\nname = \"r0\"\nprotocol = \"pip\"\n\
[[resource]]\nname = \"r1\"\nprotocol = \"pcp\"\n\
[[task]]\nname = \"t0\"\nperiod = \"100ms\"\npriority = 2\nbody = [ { lock = \"r0\", hold = \"1ms\" }, { lock = \"r1\", hold = \"1ms\" } ]\n";
    let sys = load_str(src, None).unwrap_or_else(|d| panic!("{d}")).0;
    let mut m = Locks::new(Config::new(&sys));
    m.set_base(0, 2, 0).unwrap();
    for (first, second) in [(0, 1), (1, 0)] {
        assert_eq!(m.lock(0, first, 1), Ok(Outcome::Granted));
        assert_eq!(
            m.lock(0, second, 1),
            Err(LockError::ForbiddenNesting {
                thread: 0,
                resource: second,
                held: first,
                rule: Conflict::CeilingTestMixed,
            })
        );
        m.unlock(0, first).unwrap();
    }
}
