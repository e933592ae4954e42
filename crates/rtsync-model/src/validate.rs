//! Whole-system checks: the rules that no single field can break alone.
//!
//! Every check returns a diagnostic that names the place (through the
//! system's [`SourceMap`](crate::SourceMap)), says what is wrong and what to
//! write instead. Errors make a system unusable; warnings (utilization above
//! one, a WCET beyond the deadline) and notes (a lock-order cycle that the
//! protocol defuses) are reported beside it.

use crate::derived::Facts;
use crate::diag::{Diagnostic, Diagnostics};
use crate::system::{ResourceId, Segment, System, body_execution, keys};

/// Checks a system, returning every diagnostic.
pub fn validate(sys: &System) -> Diagnostics {
    let mut v = V {
        sys,
        out: Diagnostics::default(),
    };
    v.protocols();
    v.tasks();
    if !v.out.has_errors() {
        let facts = Facts::new(sys);
        v.placement(&facts);
        v.nesting(&facts);
        v.lock_order(&facts);
        v.utilization();
    }
    v.out
}

struct V<'a> {
    sys: &'a System,
    out: Diagnostics,
}

impl V<'_> {
    fn push(&mut self, d: Diagnostic) {
        // Every message names the file and the place: a caller that
        // validates a derived system (partitioned, protocol switched)
        // must not lose where its elements were written.
        let pos = self.sys.source.get(&d.key);
        let mut d = d.at(pos);
        d.file = self.sys.source.file.clone();
        self.out.push(d);
    }

    /// Where resource `r`'s protocol was written (its own line, or the
    /// platform's default), for messages that point at another resource.
    fn protocol_line(&self, r: usize) -> String {
        let sys = self.sys;
        sys.source
            .get(&keys::resource_field(&sys.resources[r].name, "protocol"))
            .or_else(|| sys.source.get("platform.protocol"))
            .map_or(String::new(), |p| format!(" (line {})", p.line))
    }

    fn protocols(&mut self) {
        let sys = self.sys;
        if let Err(refused) = sys.mix() {
            let (first, other) = (&sys.resources[refused.first], &sys.resources[refused.other]);
            let partners = crate::mix::partners(first.protocol);
            let instead = partners
                .iter()
                .map(|p| format!("\"{p}\""))
                .chain(std::iter::once(format!("\"{}\"", first.protocol)))
                .collect::<Vec<_>>()
                .join(" or ");
            self.push(
                Diagnostic::error(
                    keys::resource_field(&other.name, "protocol"),
                    format!(
                        "uses {} while resource \"{}\"{} uses {}: {}, so this system cannot be analysed",
                        other.protocol,
                        first.name,
                        self.protocol_line(refused.first),
                        first.protocol,
                        refused.accepted
                    ),
                )
                .hint(format!(
                    "write protocol = {instead} here, or give \"{}\" a protocol that goes with {} (docs/ANALYSIS.md, \"Mixing protocols\", lists the mixes)",
                    first.name, other.protocol
                )),
            );
        }
        for r in &sys.resources {
            if !r.protocol.supports(sys.platform.scheduler) {
                self.push(
                    Diagnostic::error(
                        keys::resource_field(&r.name, "protocol"),
                        format!(
                            "{} is not analysed under {} scheduling",
                            r.protocol, sys.platform.scheduler
                        ),
                    )
                    .hint(
                        "under edf use npcs, srp, msrp or fmlp-s; or switch to scheduler = \"fp\"",
                    ),
                );
            }
            if r.units > 1 && !r.protocol.allows_multi_unit() {
                self.push(
                    Diagnostic::error(
                        keys::resource_field(&r.name, "units"),
                        format!("{} units, but {} manages single-unit resources only", r.units, r.protocol),
                    )
                    .hint("use protocol = \"srp\" (or \"msrp\") for a multi-unit resource, or remove `units`"),
                );
            }
            if r.protocol.needs_sync_cpu() {
                match r.sync_cpu {
                    None => self.push(
                        Diagnostic::error(
                            keys::resource(&r.name),
                            format!("{} runs critical sections on a synchronization CPU, but none is given", r.protocol),
                        )
                        .hint(format!("add sync_cpu = {} (a CPU index below {})", sys.platform.cpus - 1, sys.platform.cpus)),
                    ),
                    Some(c) if c >= sys.platform.cpus => self.push(
                        Diagnostic::error(
                            keys::resource_field(&r.name, "sync_cpu"),
                            format!("synchronization CPU {c} does not exist: the platform has {} CPU(s)", sys.platform.cpus),
                        )
                        .hint(format!("write a CPU index from 0 to {}", sys.platform.cpus - 1)),
                    ),
                    _ => {}
                }
            } else if r.sync_cpu.is_some() {
                self.push(
                    Diagnostic::warning(
                        keys::resource_field(&r.name, "sync_cpu"),
                        format!(
                            "{} has no synchronization CPU; this value is ignored",
                            r.protocol
                        ),
                    )
                    .hint("remove sync_cpu, or use dpcp / dflp"),
                );
            }
        }
    }

    fn tasks(&mut self) {
        let sys = self.sys;
        for t in &sys.tasks {
            if t.deadline > t.period {
                self.push(
                    Diagnostic::error(
                        keys::task_field(&t.name, "deadline"),
                        format!("deadline {} is longer than the period {}", t.deadline, t.period),
                    )
                    .hint("rtsync analyses constrained deadlines (deadline <= period): shorten the deadline or lengthen the period"),
                );
            }
            if let Some(c) = t.cpu
                && c >= sys.platform.cpus
            {
                self.push(
                        Diagnostic::error(
                            keys::task_field(&t.name, "cpu"),
                            format!("CPU {c} does not exist: the platform has {} CPU(s)", sys.platform.cpus),
                        )
                        .hint(format!(
                            "write a CPU index from 0 to {}, raise [platform] cpus, or leave cpu out to let partitioning choose",
                            sys.platform.cpus - 1
                        )),
                    );
            }
            match body_execution(&t.body) {
                None => self.push(
                    Diagnostic::error(
                        keys::task_field(&t.name, "body"),
                        "total execution time overflows 64-bit nanoseconds",
                    )
                    .hint("the body's times add up to more than 584 years: check the units"),
                ),
                Some(c) if c > t.deadline => self.push(
                    Diagnostic::warning(
                        keys::task(&t.name),
                        format!(
                            "WCET {c} exceeds the deadline {}: the task cannot meet it",
                            t.deadline
                        ),
                    )
                    .hint("lengthen the deadline or shorten the body"),
                ),
                _ => {}
            }
            self.body(&t.name, &t.body, &mut Vec::new(), &mut Vec::new());
        }
    }

    /// Per-segment rules: no re-entrant locking, no suspension while holding
    /// a lock, units within the resource.
    fn body(
        &mut self,
        task: &str,
        body: &[Segment],
        path: &mut Vec<usize>,
        held: &mut Vec<ResourceId>,
    ) {
        for (i, s) in body.iter().enumerate() {
            path.push(i);
            match s {
                Segment::Suspend(_) if !held.is_empty() => self.push(
                    Diagnostic::error(
                        keys::segment(task, path),
                        format!("suspends while holding `{}`", self.sys.resources[*held.last().unwrap()].name),
                    )
                    .hint("move the suspension out of the critical section: a suspended holder makes every waiter's blocking unbounded by the analyses"),
                ),
                Segment::Lock { resource, units, body } => {
                    let r = &self.sys.resources[*resource];
                    if held.contains(resource) {
                        self.push(
                            Diagnostic::error(keys::segment(task, path), format!("locks `{}` again while already holding it", r.name))
                                .hint("locks are not re-entrant: remove the inner lock"),
                        );
                    }
                    if *units > r.units {
                        self.push(
                            Diagnostic::error(
                                format!("{}.units", keys::segment(task, path)),
                                format!("asks for {units} units of `{}`, which has {}", r.name, r.units),
                            )
                            .hint(format!("ask for at most {} units, or raise the resource's units", r.units)),
                        );
                    }
                    held.push(*resource);
                    self.body(task, body, path, held);
                    held.pop();
                }
                _ => {}
            }
            path.pop();
        }
    }

    /// Uniprocessor protocols may only share a resource among tasks of one
    /// CPU; the check runs on the tasks whose CPU is known.
    fn placement(&mut self, f: &Facts) {
        let sys = self.sys;
        for (r, res) in sys.resources.iter().enumerate() {
            let mut cpus: Vec<usize> = f.users(r).iter().filter_map(|&t| f.cpu_of[t]).collect();
            cpus.sort_unstable();
            cpus.dedup();
            if res.protocol.is_uniprocessor() && cpus.len() > 1 {
                let names: Vec<String> = f
                    .users(r)
                    .iter()
                    .map(|&t| {
                        format!(
                            "{} (cpu {})",
                            sys.tasks[t].name,
                            f.cpu_of[t].map_or("?".into(), |c| c.to_string())
                        )
                    })
                    .collect();
                self.push(
                    Diagnostic::error(
                        keys::resource(&res.name),
                        format!("{} is a uniprocessor protocol, but `{}` is used on CPUs {:?}: {}", res.protocol, res.name, cpus, names.join(", ")),
                    )
                    .hint("put its users on one CPU, or use a multiprocessor protocol (mpcp, dpcp, fmlp-s, fmlp-l, dflp, msrp, mrsp)"),
                );
            }
            if res.protocol.is_uniprocessor() && sys.platform.cpus > 1 && !f.partitioned {
                let unplaced = f
                    .users(r)
                    .iter()
                    .filter(|&&t| f.cpu_of[t].is_none())
                    .count();
                if unplaced > 0 && f.users(r).len() > 1 {
                    self.push(
                        Diagnostic::note(
                            keys::resource(&res.name),
                            format!("{} needs all users of `{}` on one CPU; partitioning will be asked to keep them together", res.protocol, res.name),
                        ),
                    );
                }
            }
        }
    }

    /// Nesting combinations the protocols forbid, alone or together
    /// ([`crate::nesting`], the rules' one home; here each is told in
    /// the spec's names, with what to do instead).
    fn nesting(&mut self, f: &Facts) {
        use crate::nesting::{Conflict, Side, conflict};
        let sys = self.sys;
        for &(outer, inner, t) in &f.nesting {
            let (o, i) = (&sys.resources[outer], &sys.resources[inner]);
            let task = &sys.tasks[t].name;
            let (so, si) = (Side::of(sys, f, outer), Side::of(sys, f, inner));
            let Some(c) = conflict(so, si) else { continue };
            let (message, hint) = match c {
                Conflict::SuspendsWhileKeepingCpu => {
                    let alt = if o.protocol.is_uniprocessor() {
                        "npcs, ipcp or srp".to_string()
                    } else {
                        format!("{}, as `{}` has", o.protocol, o.name)
                    };
                    (
                        format!(
                            "locks `{}` ({}, whose waiters suspend) while holding `{}` ({}, whose holder keeps its CPU): the spin or non-preemptive section would last across the suspension",
                            i.name, i.protocol, o.name, o.protocol
                        ),
                        format!(
                            "release `{}` before locking `{}`, nest them the other way round, or give `{}` a protocol that does not suspend ({})",
                            o.name, i.name, i.name, alt
                        ),
                    )
                }
                Conflict::SuspendsWhileHoldingStarts => (
                    format!(
                        "locks `{}` ({}, whose waiters suspend) while holding `{}` ({}, whose ceiling keeps jobs from starting): while the holder waits, a higher job held back at its start waits for every job that started before it, which no analysis here bounds",
                        i.name, i.protocol, o.name, o.protocol
                    ),
                    format!(
                        "release `{}` before locking `{}`, give `{}` a protocol that does not suspend (ipcp or srp), or `{}` a protocol that does not hold jobs back at their start (pip or ipcp)",
                        o.name, i.name, i.name, o.name
                    ),
                ),
                Conflict::NestedGlobal(p) => (
                    format!(
                        "locks `{}` while holding `{}`; {p} forbids nesting a global resource with another",
                        i.name, o.name
                    ),
                    format!(
                        "release `{}` before locking `{}`, merge the two into one resource, or use fmlp-s / fmlp-l, whose group locks allow nesting",
                        o.name, i.name
                    ),
                ),
                Conflict::Unnested(p) => (
                    format!(
                        "locks `{}` while holding `{}`; {p} forbids nesting its resources (a request made inside a section queues again behind every request issued since, which its analysis does not bound)",
                        i.name, o.name
                    ),
                    format!(
                        "release `{}` before locking `{}`, merge the two into one resource, or use dpcp, which nests resources served on one CPU",
                        o.name, i.name
                    ),
                ),
                Conflict::ServedApart => {
                    let place = |c: Option<usize>| match c {
                        Some(c) => format!("by the agents of CPU {c}"),
                        None => "on the job's own CPU".to_string(),
                    };
                    let fix = match so.serving {
                        Some(c) => {
                            format!("give `{}` sync_cpu = {c}, as `{}` has, ", i.name, o.name)
                        }
                        None => String::new(),
                    };
                    (
                        format!(
                            "locks `{}` (served {}) while holding `{}` (served {}): the holder of `{}` would wait off its CPU for `{}`, letting lower tasks there run and ask meanwhile, and hold `{}` for the wait too, which no analysis bounds",
                            i.name,
                            place(si.serving),
                            o.name,
                            place(so.serving),
                            o.name,
                            i.name,
                            o.name
                        ),
                        format!(
                            "{fix}release `{}` before locking `{}`, or merge the two into one resource",
                            o.name, i.name
                        ),
                    )
                }
                Conflict::CeilingTestMixed => (
                    format!(
                        "locks `{}` ({}) while holding `{}` ({}): PCP prevents deadlock only among resources that all pass its ceiling test, and a job that holds one taken past the test can deadlock with a job the test refuses",
                        i.name, si.family, o.name, so.family
                    ),
                    format!(
                        "give `{}` and `{}` the same protocol, or release `{}` before locking `{}`",
                        o.name, i.name, o.name, i.name
                    ),
                ),
            };
            self.push(Diagnostic::error(keys::task(task), message).hint(hint));
        }
    }

    /// A cycle in the order in which nested locks are taken can deadlock.
    /// A protocol that prevents deadlock (the ceiling protocols, SRP, NPCS,
    /// FMLP's group locks) does so among its own resources only: a cycle
    /// through one such protocol's resources is a note, a cycle through a
    /// PIP resource or through resources of two protocols an error (PCP's
    /// system ceiling does not see an IPCP resource, and FMLP-S's group
    /// lock does not cover an FMLP-L resource). A cycle through local
    /// NPCS, IPCP and SRP resources, a note otherwise, is an error where a
    /// job takes one of them while holding a resource that lends it a
    /// higher priority (docs/ANALYSIS.md, nesting rules).
    fn lock_order(&mut self, f: &Facts) {
        let sys = self.sys;
        use crate::lockorder::{Closes, Order};
        let (cycle, defused, closes) = match crate::lockorder::check(sys, f) {
            Order::Acyclic => return,
            Order::Defused(cycle) => (cycle, true, None),
            Order::Unsafe { cycle, closes } => (cycle, false, closes),
        };
        let family = |r: ResourceId| crate::mix::family(sys, r, f.global[r]);
        // How to give resource `r` a protocol that `does` what the cycle
        // needs: an interface's kind, or a plain resource's protocol.
        let remedy = |r: ResourceId, does: &str| {
            if sys.components.as_deref().is_some_and(|c| c.lowers_to(r)) {
                format!("a kind that {does} (fixed or fixed-npcs)")
            } else {
                format!("a protocol that {does} (ipcp, srp or npcs)")
            }
        };
        let names: Vec<&str> = cycle
            .iter()
            .map(|&r| sys.resources[r].name.as_str())
            .collect();
        let who: Vec<String> = cycle
            .windows(2)
            .map(|w| {
                let t = f
                    .nesting
                    .iter()
                    .find(|&&(a, b, _)| a == w[0] && b == w[1])
                    .map(|&(_, _, t)| t)
                    .unwrap();
                format!(
                    "{} takes {} then {}",
                    sys.tasks[t].name, sys.resources[w[0]].name, sys.resources[w[1]].name
                )
            })
            .collect();
        let msg = format!(
            "lock-order cycle {} ({})",
            names.join(" -> "),
            who.join("; ")
        );
        let key = keys::resource(&sys.resources[cycle[0]].name);
        let mut ps: Vec<_> = cycle.iter().map(|&r| sys.resources[r].protocol).collect();
        ps.sort_unstable();
        ps.dedup();
        // A cycle through a nesting `nesting` refuses is refused already:
        // no note that its protocol makes it harmless.
        let refused = cycle.windows(2).any(|w| {
            use crate::nesting::{Side, conflict};
            conflict(Side::of(sys, f, w[0]), Side::of(sys, f, w[1])).is_some()
        });
        if defused {
            if !refused {
                let why = match ps.as_slice() {
                    [_] => format!("{} prevents the deadlock it could cause", family(cycle[0])),
                    _ => "under NPCS, IPCP and SRP no job waits once it runs, so it cannot close"
                        .into(),
                };
                self.push(Diagnostic::note(key, format!("{msg}: {why}")));
            }
        } else if let Some(Closes::Lent {
            lender: l,
            resource: b,
            task: t,
        }) = closes
        {
            let lent = family(l);
            let remedy = remedy(l, "lends no priority");
            let (lender, b, t) = (
                &sys.resources[l].name,
                &sys.resources[b].name,
                &sys.tasks[t].name,
            );
            self.push(
                Diagnostic::error(
                    key,
                    format!(
                        "{msg}: a potential deadlock: {t} takes {b} while holding {lender} ({lent}), whose waiters lend {t} their priority, so it may run above {b}'s ceiling while another job holds {b}, and wait for it there"
                    ),
                )
                .hint(format!(
                    "take nested locks in one global order, release {lender} before taking the cycle's locks, or give {lender} {remedy}"
                )),
            );
        } else if let Some(Closes::Suspends { held, inner, task }) = closes {
            let waits = family(inner);
            let remedy = remedy(inner, "does not suspend its waiters");
            let (held, inner, t) = (
                &sys.resources[held].name,
                &sys.resources[inner].name,
                &sys.tasks[task].name,
            );
            self.push(
                Diagnostic::error(
                    key,
                    format!(
                        "{msg}: a potential deadlock: {t} may wait for {inner} ({waits}) while holding {held}; suspended there, it lets jobs at or below {held}'s ceiling run, take the cycle's other resources and wait for {held}"
                    ),
                )
                .hint(format!(
                    "take nested locks in one global order, take {inner} outside {held}, or give {inner} {remedy}"
                )),
            );
        } else if let [p] = ps.as_slice() {
            self.push(
                Diagnostic::error(key, format!("{msg}: a potential deadlock under {p}"))
                    .hint("take nested locks in one global order, or use pcp / ipcp / srp, which prevent this deadlock"),
            );
        } else {
            let names = ps
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(" and ");
            self.push(
                Diagnostic::error(
                    key,
                    format!("{msg}: a potential deadlock, as it goes through resources of {names} and no protocol prevents deadlock across another's resources"),
                )
                .hint("take nested locks in one global order, or give every resource of the cycle one protocol that prevents deadlock (pcp, ipcp, srp, npcs)"),
            );
        }
    }

    fn utilization(&mut self) {
        let sys = self.sys;
        let mut per_cpu = vec![0.0f64; sys.platform.cpus];
        let mut total = 0.0;
        for task in &sys.tasks {
            let u = task.utilization();
            total += u;
            if let Some(c) = task.cpu {
                per_cpu[c] += u;
            }
        }
        for (c, u) in per_cpu.iter().enumerate() {
            if *u > 1.0 {
                self.push(
                    Diagnostic::warning(
                        "platform",
                        format!(
                            "CPU {c} is loaded to {:.1}% utilization: it cannot be schedulable",
                            u * 100.0
                        ),
                    )
                    .hint("move tasks to other CPUs or lengthen their periods"),
                );
            }
        }
        if total > sys.platform.cpus as f64 {
            self.push(
                Diagnostic::warning(
                    "platform",
                    format!(
                        "total utilization {:.2} exceeds the {} CPU(s)",
                        total, sys.platform.cpus
                    ),
                )
                .hint("add CPUs or lighten the tasks"),
            );
        }
    }
}
