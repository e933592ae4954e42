//! The machine keeps three things incrementally for speed: effective
//! priorities and locations (only the threads a change can reach are
//! recomputed; [`Locks::verify`] recomputes everything from scratch after
//! every request, release, retry and cancellation here), the set of
//! threads that may differ from base and home, and SRP's system ceiling
//! per CPU (the start test of a job that holds nothing is one comparison).
//! Random request/release sequences over random resource usage (so that
//! ceilings differ) check them against references computed here from
//! scratch, from the public state and the configuration alone.

use proptest::prelude::*;
use rtsync_model::{Protocol, load_str};
use rtsync_protocols::{Arbitration, Config, Eff, Hold, Locks, Outcome, Tier};
use std::collections::HashMap;

const THREADS: usize = 5;
const RESOURCES: usize = 3;

/// Five tasks on `cpus` CPUs (thread i on CPU i % cpus, priority 5 - i),
/// three resources under `p`, each with `units` units (SRP only); task i
/// uses the resources of bit mask `uses[i]` (at least one), up to all
/// their units, so that ceilings differ and several sections can be open
/// at once under the ceiling protocols.
fn system(p: Protocol, cpus: usize, units: u32, uses: &[u8]) -> Locks {
    let mut src = format!("[platform]\ncpus = {cpus}\nprotocol = \"{}\"\n", p.name());
    for r in 0..RESOURCES {
        src += &format!("[[resource]]\nname = \"r{r}\"\n");
        if p == Protocol::Srp {
            src += &format!("units = {units}\n");
        }
        if p.needs_sync_cpu() {
            src += &format!("sync_cpu = {}\n", cpus - 1);
        }
    }
    for (t, &used) in uses.iter().enumerate().take(THREADS) {
        let n = if p == Protocol::Srp { units } else { 1 };
        let mask = used | 1 << (t % RESOURCES);
        let body: Vec<String> = (0..RESOURCES)
            .filter(|r| mask & 1 << r != 0)
            .map(|r| format!("{{ lock = \"r{r}\", units = {n}, hold = \"1ms\" }}"))
            .collect();
        src += &format!(
            "[[task]]\nname = \"t{t}\"\nperiod = \"100ms\"\npriority = {}\ncpu = {}\nbody = [{}]\n",
            THREADS - t,
            t % cpus,
            body.join(", ")
        );
    }
    let sys = load_str(&src, None)
        .map(|(s, _)| s)
        .unwrap_or_else(|d| panic!("{d}\n{src}"));
    let mut m = Locks::new(Config::new(&sys));
    for t in 0..THREADS {
        m.set_base(t, (THREADS - t) as u64, t as u64).unwrap();
    }
    m
}

/// Units each thread holds of each resource, kept by the test from the
/// machine's answers.
#[derive(Default)]
struct Held {
    units: HashMap<(usize, usize), u32>,
    /// Pending request per thread: `(resource, units)`.
    asked: HashMap<usize, (usize, u32)>,
    /// Open sections per thread, innermost last.
    stack: Vec<Vec<usize>>,
}

/// SRP's start test from scratch (Baker 1991): a job of `t` holding
/// nothing may start iff, for every stack resource of its CPU that some
/// thread holds, the ceiling for the units now free is below `t`'s level.
fn start_test(m: &Locks, held: &Held, t: usize) -> bool {
    let cfg = m.config();
    (0..RESOURCES).all(|r| {
        let rule = &cfg.rules[r];
        if rule.arbitration != Arbitration::Stack || rule.scope != cfg.home[t] {
            return true;
        }
        let taken: u32 = (0..THREADS)
            .map(|x| held.units.get(&(x, r)).copied().unwrap_or(0))
            .sum();
        taken == 0 || cfg.stack_ceiling(r, cfg.units[r] - taken) < cfg.level[t]
    })
}

fn check(m: &Locks, held: &Held, p: Protocol) {
    if let Err(e) = m.verify() {
        panic!("{p}: {e}");
    }
    // Where the woken ceiling waiters of a scope are alike and the
    // highest one's retry is futile, every one's is: each retried alone
    // is refused and moves no priority.
    for scope in 0..m.config().cpus {
        let woken: Vec<_> = m.ceiling_woken(scope).collect();
        let Some(&top) = woken.first() else {
            continue;
        };
        if !(m.ceiling_woken_alike(scope) && m.retry_is_futile(top)) {
            continue;
        }
        for &x in &woken {
            let mut alone = m.clone();
            assert_eq!(
                alone.retry(x),
                Ok(Outcome::Wait { spin: false }),
                "{p}: t{x} below futile t{top} would be granted"
            );
            for y in 0..THREADS {
                assert_eq!(
                    (alone.eff(y), alone.location(y)),
                    (m.eff(y), m.location(y)),
                    "{p}: t{x}'s retry below futile t{top} moves t{y}"
                );
            }
        }
    }
    for t in 0..THREADS {
        let base = Eff::normal(m.base(t), t as u64);
        assert!(m.eff(t) >= base, "{p}: t{t} below its base");
        // A holder runs at least at what each held section's rule gives.
        for &r in &held.stack[t] {
            let e = m.eff(t);
            let ok = match m.config().rules[r].holding {
                Hold::Base => true,
                Hold::Ceiling(c) => e.tier > Tier::Normal || e.key >= c,
                Hold::LocalCeiling => {
                    let c = m.config().local_ceiling[r][m.config().home[t]];
                    e.tier > Tier::Normal || e.key >= c
                }
                Hold::BoostRemote | Hold::BoostBase | Hold::BoostFifo => e.tier >= Tier::Boosted,
                Hold::NonPreemptive => e.tier == Tier::NonPreemptive,
            };
            assert!(ok, "{p}: t{t} holds r{r} below its rule: {e:?}");
        }
        let idle = held.stack[t].is_empty() && m.waiting(t).is_none();
        if idle {
            // Nothing held, nothing asked: nobody can raise it or move it.
            assert_eq!(m.eff(t), base, "{p}: t{t} holds nothing yet is raised");
            assert_eq!(
                m.location(t),
                m.config().home[t],
                "{p}: t{t} holds nothing yet is away from home"
            );
            assert_eq!(
                m.may_start(t),
                start_test(m, held, t),
                "{p}: SRP start test of t{t} differs from the reference"
            );
        }
    }
}

fn record_grant(held: &mut Held, t: usize, r: usize, units: u32) {
    *held.units.entry((t, r)).or_default() += units;
    held.stack[t].push(r);
}

fn run(p: Protocol, cpus: usize, units: u32, uses: &[u8], ops: &[(usize, usize, u32, bool)]) {
    let mut m = system(p, cpus, units, uses);
    let mut held = Held {
        stack: vec![Vec::new(); THREADS],
        ..Held::default()
    };
    check(&m, &held, p);
    for &(t, r, n, release) in ops {
        let n = n.clamp(1, m.config().units[r]);
        if m.woken(t) {
            // A retry said to be futile is refused and moves no priority
            // and no thread.
            let futile = m.retry_is_futile(t);
            let was: Vec<_> = (0..THREADS).map(|x| (m.eff(x), m.location(x))).collect();
            let out = m.retry(t);
            if futile {
                assert_eq!(
                    out,
                    Ok(Outcome::Wait { spin: false }),
                    "{p}: futile retry of t{t}"
                );
                let now: Vec<_> = (0..THREADS).map(|x| (m.eff(x), m.location(x))).collect();
                assert_eq!(was, now, "{p}: a futile retry of t{t} moved priorities");
            }
            if let Ok(Outcome::Granted) = out {
                let (r, n) = held.asked.remove(&t).unwrap();
                record_grant(&mut held, t, r, n);
            }
        } else if m.waiting(t).is_some() {
            if !release {
                continue;
            }
            // It gives up (a timeout): whoever it lent to takes it back.
            m.cancel(t).expect("a waiting thread cancels");
            held.asked.remove(&t);
        } else if release && let Some(&inner) = held.stack[t].last() {
            // Named one by one, or as a scope: the same release.
            let mut named = m.clone();
            let granted = named.unlock(t, inner).expect("innermost release");
            let mut handed = Vec::new();
            let woke = m
                .unlock_into(t, inner, &mut handed)
                .expect("innermost release");
            let ceiling_woken: Vec<_> = granted
                .iter()
                .filter(|g| !g.granted && m.ceiling_scope(g.thread).is_some())
                .map(|g| g.thread)
                .collect();
            assert_eq!(
                handed,
                granted
                    .iter()
                    .filter(|g| !ceiling_woken.contains(&g.thread))
                    .copied()
                    .collect::<Vec<_>>(),
                "{p}: hand-offs differ between the two forms of release"
            );
            match woke {
                None => assert!(
                    ceiling_woken.is_empty(),
                    "{p}: woken ceiling waiters, no scope"
                ),
                Some(scope) => {
                    let listed: Vec<_> = m.ceiling_woken(scope).collect();
                    assert!(!ceiling_woken.is_empty(), "{p}: a scope woke nobody");
                    for x in &ceiling_woken {
                        assert!(
                            listed.contains(x),
                            "{p}: t{x} named woken, not listed in {listed:?}"
                        );
                    }
                }
            }
            for x in 0..THREADS {
                assert_eq!(
                    (named.eff(x), named.woken(x), named.waiting(x)),
                    (m.eff(x), m.woken(x), m.waiting(x)),
                    "{p}: t{x} differs between the two forms of release"
                );
            }
            held.stack[t].pop();
            held.units.remove(&(t, inner));
            for g in granted.into_iter().filter(|g| g.granted) {
                let (r, n) = held.asked.remove(&g.thread).unwrap();
                assert_eq!(r, g.resource);
                record_grant(&mut held, g.thread, r, n);
            }
        } else if !held.stack[t].contains(&r) {
            match m.lock(t, r, n) {
                Ok(Outcome::Granted) => record_grant(&mut held, t, r, n),
                Ok(Outcome::Wait { .. }) => {
                    held.asked.insert(t, (r, n));
                }
                // Refused outright (a caller above a ceiling, a forbidden
                // nesting): nothing changed.
                Err(_) => {}
            }
        }
        check(&m, &held, p);
    }
    // Release everything still held, innermost first, until no one holds
    // or waits: then every thread is back at base, at home.
    for _ in 0..THREADS * RESOURCES * 4 {
        let Some(t) = (0..THREADS).find(|&t| !held.stack[t].is_empty()) else {
            break;
        };
        let inner = *held.stack[t].last().unwrap();
        let granted = m.unlock(t, inner).unwrap();
        held.stack[t].pop();
        held.units.remove(&(t, inner));
        for g in granted {
            if g.granted {
                let (r, n) = held.asked.remove(&g.thread).unwrap();
                record_grant(&mut held, g.thread, r, n);
            } else if let Ok(Outcome::Granted) = m.retry(g.thread) {
                let (r, n) = held.asked.remove(&g.thread).unwrap();
                record_grant(&mut held, g.thread, r, n);
            }
        }
        check(&m, &held, p);
    }
}

/// Which resources each task uses (bit masks; everything, often).
fn uses() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop_oneof![Just(7u8), 0u8..8], THREADS)
}

fn ops() -> impl Strategy<Value = Vec<(usize, usize, u32, bool)>> {
    prop::collection::vec(
        (
            0..THREADS,
            0..RESOURCES,
            1u32..=3,
            prop::bool::weighted(0.4),
        ),
        1..60,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn uniprocessor_protocols(p in prop::sample::select(vec![
        Protocol::Npcs, Protocol::Pip, Protocol::Pcp, Protocol::Ipcp, Protocol::Srp,
    ]), units in 1u32..=3, uses in uses(), ops in ops()) {
        run(p, 1, units, &uses, &ops);
    }

    #[test]
    fn multiprocessor_protocols(p in prop::sample::select(vec![
        Protocol::Mpcp, Protocol::Dpcp, Protocol::FmlpS, Protocol::FmlpL,
        Protocol::Dflp, Protocol::Msrp, Protocol::Mrsp,
    ]), uses in uses(), ops in ops()) {
        run(p, 2, 1, &uses, &ops);
    }
}
