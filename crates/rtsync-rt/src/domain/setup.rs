//! Setting a domain up: the machine, the priority map, the CPU map, the
//! fast-path gates and which path each resource may take, the kernel's
//! PI words for the resources it can run.

use super::*;

impl Domain {
    /// A domain for `sys` (validated and partitioned, fixed priorities).
    pub fn new(sys: &System, opts: Options) -> Result<Domain, RtError> {
        if sys.platform.scheduler != Scheduler::Fp {
            return Err(RtError::NotFixedPriority);
        }
        if opts.realtime {
            sys::probe_realtime().map_err(RtError::NotRealTime)?;
        }
        let cfg = Config::new(sys);
        let map = PrioMap::new(&cfg).map_err(RtError::Levels)?;
        let cpus = sys.platform.cpus.max(1);
        let cpu_map = match &opts.cpu_map {
            Some(m) => m.clone(),
            None => sys::allowed_cpus(),
        };
        if opts.realtime && cpu_map.len() < cpus {
            return Err(RtError::Cpus {
                needed: cpus,
                available: cpu_map,
            });
        }
        // Inheritance bounds the wait for the bookkeeping lock on one
        // machine CPU; across several a holder must not be preempted
        // (`books`).
        let machine: std::collections::BTreeSet<usize> = (0..cpus)
            .map(|c| crate::placement::machine_cpu(&cpu_map, c))
            .collect();
        let books_level = (opts.realtime && machine.len() > 1).then(|| map.books());
        let n = sys.tasks.len();
        let nr = sys.resources.len();
        let base: Vec<u64> = cfg.level.iter().map(|&l| l as u64).collect();
        let home: Vec<usize> = cfg.home.clone();
        let mut homed = vec![Vec::new(); cpus];
        for (t, &c) in home.iter().enumerate() {
            homed[c].push(t);
        }
        let mut locks = Locks::new(cfg);
        for (t, &b) in base.iter().enumerate() {
            locks
                .set_base(t, b, t as u64)
                .map_err(|error| RtError::Refused {
                    task: sys.tasks[t].name.clone(),
                    resource: None,
                    error,
                })?;
        }
        let gate_of: Vec<Option<usize>> = locks.config().rules.iter().map(gate_of).collect();
        let mut gated = vec![Vec::new(); cpus];
        for (r, g) in gate_of.iter().enumerate() {
            if let Some(c) = *g {
                gated[c].push(r);
            }
        }
        let helping = locks.config().rules.iter().any(|r| r.helping);
        let mut probe = locks.clone();
        // A raising fast section changes the thread's priority by itself,
        // unseen by the machine: only where priorities are applied and
        // not logged (a log must show every change where it happened).
        let raising = opts.realtime && !opts.record;
        let (mut fast, mut fast_raise) = (vec![false; n * nr], vec![0; n * nr]);
        if opts.fast_path && n < gate::FIELD && nr <= gate::FIELD {
            for i in 0..n * nr {
                match fast_eligible(&mut probe, i / nr, i % nr) {
                    Some(None) => fast[i] = true,
                    Some(Some(e)) if raising => {
                        fast[i] = true;
                        fast_raise[i] = map.fifo(e);
                    }
                    _ => {}
                }
            }
        }
        let base_fifo = (0..n).map(|t| map.fifo(locks.eff(t))).collect();
        // The gate each resource's fast grants take: its CPU's, or its own
        // (after the CPUs' in `gate`), open while anyone may take it fast.
        // A resource of a nesting group (FMLP) takes its group's gate: the
        // group is what is locked, and only its representative resource
        // (the unit) may be taken fast. With a gate of its own, a slow
        // request for another member did not settle the unit's gate, and
        // the machine granted the group to it beside a fast holder (found
        // by tests/stress.rs under FMLP-S).
        let unit_of: Vec<usize> = locks.config().rules.iter().map(|r| r.unit).collect();
        let fast_gate: Vec<usize> = (0..nr)
            .map(|r| gate_of[unit_of[r]].unwrap_or(cpus + unit_of[r]))
            .collect();
        let own_gate_used = |r: usize| (0..n).any(|t| fast[t * nr + r]);
        let gate = (0..cpus + nr)
            .map(|g| {
                let open = g < cpus || gate_of[g - cpus].is_none() && own_gate_used(g - cpus);
                Gate::new(open)
            })
            .collect();
        let nesting = rtsync_model::Facts::new(sys).nesting;
        let kernel = kernel_pi::resources(locks.config(), &nesting, &opts)
            .map(|on| kernel_pi::KernelPi::new(n, on));
        let shown = (0..n).map(|t| locks.eff(t).shown(base[t], false)).collect();
        let state = State {
            locks,
            tid: vec![None; n],
            prio: vec![None; n],
            cpu: vec![None; n],
            shown,
            starting: vec![false; n],
            active: vec![false; n],
            lent: vec![None; n],
            plan: Plan::new(n, homed.len()),
            own: None,
            // Sized for every thread at once, so that the bookkeeping
            // lock's sections never grow them.
            pending: Vec::with_capacity(n),
            pending_on: vec![false; n],
            changed: Vec::with_capacity(n),
            rewoken: Vec::with_capacity(n),
            granted: Vec::with_capacity(n),
            signaled: Vec::with_capacity(n),
            seq: n as u64,
            // Its first chunk and a spare made and touched here, so that
            // recording neither allocates nor faults a page in under the
            // lock (`journal`).
            log: if opts.record {
                Journal::new(opts.log_chunk, (Duration::ZERO, Entry::Completed(0)))
            } else {
                Journal::off()
            },
            made: Instant::now(),
        };
        Ok(Domain {
            sh: Arc::new(Shared {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                state: PiLock::new(state).map_err(mutex_init)?,
                slots: (0..n)
                    .map(|_| {
                        Ok(Slot {
                            wake: AtomicU32::new(0),
                            depth: AtomicU32::new(0),
                            fast: AtomicU64::new(0),
                            fast_gate: AtomicUsize::new(0),
                            epoch: Epoch::default(),
                            cpu_epoch: Epoch::default(),
                            prio_lock: RawMutex::new(libc::PTHREAD_PRIO_INHERIT, 0)
                                .map_err(mutex_init)?,
                            applied: AtomicI32::new(0),
                            floor: AtomicI32::new(0),
                            in_books: AtomicBool::new(false),
                            trace: std::sync::Mutex::new(if opts.trace {
                                Journal::new(opts.log_chunk, (Instant::now(), Traced::Completed))
                            } else {
                                Journal::off()
                            }),
                        })
                    })
                    .collect::<Result<_, RtError>>()?,
                books_level,
                map,
                cpu_map,
                opts,
                tasks: sys.tasks.iter().map(|t| t.name.clone()).collect(),
                resources: sys.resources.iter().map(|r| r.name.clone()).collect(),
                units: sys.resources.iter().map(|r| r.units.max(1)).collect(),
                base,
                inconsistent: (0..nr).map(|_| AtomicBool::new(false)).collect(),
                paths: FastPaths {
                    gate,
                    fast_gate,
                    fast,
                    fast_raise,
                    base_fifo,
                    gate_of,
                    gated,
                },
                home,
                homed,
                helping,
                kernel,
            }),
        })
    }
}

/// Whether `t`'s outermost request of one unit of `r`, with nothing else
/// of its CPU (or, for a global resource, nothing of `r`) known to the
/// machine, would be granted with no change but the holder and perhaps
/// `t`'s own priority: the resource is local to `t`'s CPU or global,
/// locked by itself (no group), its sections run where the caller is, and
/// a scratch machine grants it without moving `t`. `Some(None)`: the priority stays; `Some(Some(e))`: the grant
/// raises `t` to `e`. `probe` is a machine with nothing held; the request
/// is released again.
pub(super) fn fast_eligible(probe: &mut Locks, t: Tid, r: usize) -> Option<Option<Eff>> {
    let rule = &probe.config().rules[r];
    if rule.unit != r || rule.domain.is_some() || rule.global && gate_of(rule).is_some() {
        return None;
    }
    if !rule.global && rule.scope != probe.config().home[t] {
        return None;
    }
    let (eff, loc) = (probe.eff(t), probe.location(t));
    if !matches!(probe.lock(t, r, 1), Ok(Outcome::Granted)) {
        return None;
    }
    let (held_eff, held_loc) = (probe.eff(t), probe.location(t));
    let _ = probe.unlock(t, r);
    (held_loc == loc).then_some((held_eff != eff).then_some(held_eff))
}

/// The CPU whose gate a resource closes while the machine holds it or a
/// request waits for it: the CPU it is local to, or the one whose system
/// ceiling it counts towards (DPCP's and DFLP's synchronization CPU,
/// where local sections share the ceiling). `None`: a global resource
/// arbitrated by its own queue, which has a gate of its own instead.
pub(super) fn gate_of(rule: &rtsync_protocols::Rule) -> Option<usize> {
    let ceiling = matches!(rule.arbitration, Arbitration::Ceiling | Arbitration::Stack);
    (!rule.global || ceiling).then_some(rule.scope)
}

/// A priority-inheritance mutex the C library could not make.
pub(super) fn mutex_init(error: std::io::Error) -> RtError {
    RtError::Os {
        what: "pthread_mutex_init(PTHREAD_PRIO_INHERIT)".into(),
        error,
    }
}
