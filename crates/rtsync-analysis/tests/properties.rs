//! Property tests over random systems from the generators.

mod common;
use proptest::prelude::*;
use rtsync_analysis::generate::{GenConfig, Periods, Utilizations, generate};
use rtsync_analysis::{
    BoundForm, Delay, Heuristic, Options, Profile, Response, SystemResult, Test, TestSelection,
    Verdict, analyze, analyze_result, verdict,
};
use rtsync_model::{Protocol, Scheduler, Segment, System, Time, load_str, to_toml};

fn config(p: Protocol, cpus: usize, tasks: usize, util: f64, res: usize, nest: f64) -> GenConfig {
    GenConfig {
        cpus,
        protocol: p,
        scheduler: if p.supports(Scheduler::Fp) {
            Scheduler::Fp
        } else {
            Scheduler::Edf
        },
        tasks,
        utilization: util,
        utilizations: Utilizations::UUniFast,
        periods: Periods::LogUniform {
            min: Time::from_ms(2),
            max: Time::from_ms(200),
        },
        resources: res,
        access_prob: 0.5,
        cs_min: Time::from_us(50),
        cs_max: Time::from_us(2000),
        requests_max: 2,
        nest_prob: if p.is_uniprocessor() || p.allows_nested_global() {
            nest
        } else {
            0.0
        },
        partition: Some(if p.is_uniprocessor() {
            Heuristic::SyncAware
        } else {
            Heuristic::WorstFit
        }),
        ..GenConfig::default()
    }
}

/// A random system under `p`: one CPU for uniprocessor protocols.
fn system(p: Protocol, seed: u64, tasks: usize, util: f64, res: usize) -> System {
    let cpus = if p.is_uniprocessor() {
        1
    } else {
        2 + (seed % 3) as usize
    };
    let u = if p.is_uniprocessor() {
        util
    } else {
        util * cpus as f64 * 0.8
    };
    generate(
        &config(p, cpus, tasks, u.min(tasks as f64 * 0.9), res, 0.3),
        seed,
        0,
    )
}

fn run(s: &System) -> SystemResult {
    analyze(s, &Options::default())
        .unwrap_or_else(|d| panic!("{d}\n{}", to_toml(s)))
        .result
}

/// Orders bounds: any finite bound < past the deadline < unbounded.
fn key(r: Response) -> (u8, Time) {
    match r {
        Response::Bounded(t) => (0, t),
        Response::Exceeds(_) => (1, Time::ZERO),
        Response::Unbounded => (2, Time::ZERO),
    }
}

/// Lengthens the `which`-th critical section (any nesting level) by `extra`.
fn lengthen(s: &System, which: usize, extra: Time) -> Option<System> {
    fn walk(body: &mut [Segment], k: &mut usize, extra: Time) -> bool {
        for seg in body {
            if let Segment::Lock { body, .. } = seg {
                if *k == 0 {
                    body.push(Segment::Compute(extra));
                    return true;
                }
                *k -= 1;
                if walk(body, k, extra) {
                    return true;
                }
            }
        }
        false
    }
    let mut out = s.clone();
    let mut k = which;
    for t in &mut out.tasks {
        if walk(&mut t.body, &mut k, extra) {
            return Some(out);
        }
    }
    None
}

fn protocol() -> impl Strategy<Value = Protocol> {
    proptest::sample::select(Protocol::ALL.to_vec())
}

/// A placed system with several requests per job; for DPCP and DFLP
/// the synchronization CPUs are spread by `spread`, hosting tasks too.
fn windowed_system(p: Protocol, seed: u64, util: f64, spread: u64) -> System {
    let mut s = system(p, seed, 10, util, 4);
    if matches!(p, Protocol::Dpcp | Protocol::Dflp) {
        let cpus = s.platform.cpus;
        for (r, res) in s.resources.iter_mut().enumerate() {
            res.sync_cpu = Some((spread >> (2 * r)) as usize % cpus);
        }
    }
    rtsync_analysis::place(&s, Heuristic::WorstFit)
        .unwrap()
        .into_owned()
}

/// A [`windowed_system`] under a protocol with job windows (DPCP or
/// FMLP+), drawn.
fn job_window_system() -> impl Strategy<Value = System> {
    (any::<bool>(), any::<u64>(), 0.3f64..1.0, any::<u64>()).prop_map(
        |(fmlp, seed, util, spread)| {
            let p = if fmlp {
                Protocol::FmlpL
            } else {
                Protocol::Dpcp
            };
            windowed_system(p, seed, util, spread)
        },
    )
}

/// Every task's LP bound in `placed` is at most its classic one.
fn lp_at_most_classic(placed: &System) -> Result<(), TestCaseError> {
    let classic = rtsync_analysis::Context::new(placed);
    let lp = rtsync_analysis::Context::with_form(placed, BoundForm::Lp);
    let c = rtsync_analysis::fp::analyse(&classic, false).responses;
    let l = rtsync_analysis::fp::analyse(&lp, false).responses;
    for (i, (a, b)) in l.iter().zip(&c).enumerate() {
        prop_assert!(
            key(*a) <= key(*b),
            "task {}: LP {:?} above classic {:?}\n{}",
            i,
            a,
            b,
            to_toml(placed)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, .. ProptestConfig::default() })]

    /// Every generated system validates and survives a trip through the
    /// spec writer unchanged.
    #[test]
    fn generated_systems_validate_and_round_trip(p in protocol(), seed in any::<u64>(), cpus in 1usize..5) {
        // Every protocol on one to four CPUs (uniprocessor protocols get
        // per-CPU resources from the generator).
        let s = generate(&config(p, cpus, 8, 0.6 * cpus as f64, 3, 0.3), seed, 0);
        let d = rtsync_model::validate(&s);
        prop_assert!(!d.has_errors(), "{}", d);
        let (back, _) = load_str(&to_toml(&s), None).map_err(|d| TestCaseError::fail(d.to_string()))?;
        let (mut a, mut b) = (back, s.clone());
        a.source = Default::default();
        b.source = Default::default();
        prop_assert_eq!(a, b);
    }

    /// Whatever nesting, local resources and suspensions are asked for,
    /// the generator either refuses the configuration or writes a system
    /// that validates and analyses: it never writes a spec `check` would
    /// refuse (it once nested global MPCP sections with `--nest-prob`).
    #[test]
    fn the_generator_never_writes_an_invalid_system(
        p in protocol(), seed in any::<u64>(), cpus in 1usize..5,
        nest in 0.0f64..=1.0, locals in 0usize..3, suspend in 0.0f64..0.5,
    ) {
        let mut c = config(p, cpus, 8, 0.6 * cpus as f64, 3, 0.0);
        c.nest_prob = nest;
        c.local_resources = locals;
        c.suspend_prob = suspend;
        c.access_prob = 0.8;
        c.requests_max = 3;
        let refused = rtsync_analysis::generate::check_config(&c);
        prop_assume!(refused.is_ok());
        let s = generate(&c, seed, 0);
        let d = rtsync_model::validate(&s);
        prop_assert!(!d.has_errors(), "{}\n{}", d, to_toml(&s));
        prop_assert!(analyze(&s, &Options::default()).is_ok());
    }

    /// A protocol that forbids nesting global resources refuses a nesting
    /// probability without local resources, and one that nests nothing
    /// (DFLP) refuses it always; each says what to do instead.
    #[test]
    fn nesting_without_local_resources_is_refused_where_forbidden(p in protocol(), locals in 0usize..3) {
        let mut c = config(p, 2, 8, 1.0, 3, 0.0);
        c.nest_prob = 0.2;
        c.local_resources = locals;
        let r = rtsync_analysis::generate::check_config(&c);
        if !p.allows_nesting() {
            let e = r.unwrap_err();
            prop_assert!(e.contains("forbids nesting its resources") && e.contains("dpcp"), "{}", e);
        } else if p.is_uniprocessor() || p.allows_nested_global() || locals > 0 {
            prop_assert!(r.is_ok());
        } else {
            let e = r.unwrap_err();
            prop_assert!(e.contains("--local-resources") && e.contains("fmlp-s"), "{}", e);
        }
    }

    /// More blocking never makes a system more schedulable: lengthening any
    /// critical section never lowers any task's bound, under every protocol.
    #[test]
    fn more_blocking_never_helps(p in protocol(), seed in any::<u64>(), which in 0usize..16, extra_us in 1u64..3000) {
        let s = system(p, seed, 6, 0.55, 3);
        let Some(worse) = lengthen(&s, which, Time::from_us(extra_us)) else { return Ok(()) };
        let (a, b) = (run(&s), run(&worse));
        for (x, y) in a.tasks.iter().zip(&b.tasks) {
            prop_assert!(key(x.response) <= key(y.response), "{p}: task {} {} -> {}", x.name, x.response, y.response);
            // Execution plus blocking never shrinks. (Blocking alone may: MrsP
            // counts as spin only the part of an access beyond the job's own
            // section, so lengthening that section moves time from spin to
            // execution.)
            let (dx, dy) = (Delay::Bounded(x.wcet).plus(x.blocking.total()), Delay::Bounded(y.wcet).plus(y.blocking.total()));
            prop_assert!(dx <= dy, "{p}: task {} demand {} -> {} ({:?} -> {:?})", x.name, dx, dy, x.blocking, y.blocking);
        }
        if b.verdict == Verdict::Schedulable {
            prop_assert_eq!(a.verdict, Verdict::Schedulable);
        }
    }

    /// PCP and IPCP block no longer than PIP, and NPCS no shorter than
    /// IPCP, task by task, on one CPU (nesting included).
    #[test]
    fn uniprocessor_blocking_order(seed in any::<u64>(), n in 2usize..9, res in 1usize..5) {
        let s = system(Protocol::Pip, seed, n, 0.5, res);
        let b = |p: Protocol| -> Vec<Delay> { run(&s.with_protocol(p)).tasks.iter().map(|t| t.blocking.local).collect() };
        let (pip, pcp, ipcp, npcs) = (b(Protocol::Pip), b(Protocol::Pcp), b(Protocol::Ipcp), b(Protocol::Npcs));
        for i in 0..n {
            prop_assert!(pcp[i] <= pip[i] && ipcp[i] <= pip[i], "task {i}: pcp {} ipcp {} pip {}", pcp[i], ipcp[i], pip[i]);
            prop_assert!(npcs[i] >= ipcp[i], "task {i}: npcs {} ipcp {}", npcs[i], ipcp[i]);
        }
    }

    /// Anything the Liu-Layland or hyperbolic bound accepts, RTA accepts
    /// (implicit deadlines, unique priorities), and the hyperbolic bound
    /// accepts everything Liu-Layland accepts, under every FP protocol.
    #[test]
    fn bounds_imply_rta_and_ll_implies_hyperbolic(p in protocol(), seed in any::<u64>(), util in 0.2f64..0.9) {
        let s = system(p, seed, 5, util, 2);
        prop_assume!(s.platform.scheduler == Scheduler::Fp);
        let r = run(&s);
        let v = |t: Test| r.tests.iter().find(|o| o.test == t).unwrap().verdict;
        let (rta, ll, hb) = (v(Test::Rta), v(Test::LiuLayland), v(Test::Hyperbolic));
        if ll == Verdict::Schedulable {
            prop_assert_eq!(hb, Verdict::Schedulable, "{}", to_toml(&s));
        }
        if ll == Verdict::Schedulable || hb == Verdict::Schedulable {
            prop_assert_eq!(rta, Verdict::Schedulable, "{}", to_toml(&s));
        }
    }

    /// The verdict-only mode (stop at the first miss, demands computed
    /// only as far as needed) gives the verdict of the full analysis, and
    /// the same bounds when it finds no miss.
    #[test]
    fn verdict_mode_agrees_with_the_full_analysis(p in protocol(), seed in any::<u64>(), util in 0.4f64..1.1) {
        let s = system(p, seed, 8, util, 3);
        let full = run(&s);
        let quick = analyze(&s, &Options { tests: TestSelection::Rta, first_miss: true, ..Options::default() })
            .unwrap().result;
        let rta = |r: &SystemResult| r.tests.iter().find(|o| o.test == Test::Rta || o.test == Test::EdfDemand).unwrap().verdict;
        prop_assert_eq!(rta(&full), rta(&quick), "{}", to_toml(&s));
        // `verdict` (no result rows) says the same, in verdict mode and not.
        let o = Options { tests: TestSelection::Rta, first_miss: true, ..Options::default() };
        prop_assert_eq!(verdict(&s, &o).unwrap(), rta(&full));
        prop_assert_eq!(verdict(&s, &Options { first_miss: false, ..o }).unwrap(), rta(&full));
        if rta(&full) == Verdict::Schedulable {
            for (x, y) in full.tasks.iter().zip(&quick.tasks) {
                prop_assert_eq!(x.response, y.response, "{}", &x.name);
            }
        }
    }

    /// The order in which a spec lists its tasks changes no bound: the
    /// system-wide fixed point is the least one whichever task is looked
    /// at first.
    #[test]
    fn task_order_changes_no_bound(p in protocol(), seed in any::<u64>(), util in 0.4f64..1.0) {
        let s = system(p, seed, 8, util, 3);
        let mut shuffled = s.clone();
        shuffled.tasks.reverse();
        let (a, b) = (run(&s), run(&shuffled));
        for x in &a.tasks {
            let y = b.tasks.iter().find(|y| y.name == x.name).unwrap();
            prop_assert_eq!(x.response, y.response, "{}: {}", &x.name, to_toml(&s));
            prop_assert_eq!(x.blocking, y.blocking, "{}", &x.name);
        }
    }

    /// The facts' priority order, which the analyses walk instead of
    /// sorting: every task once, highest priority first, equal priorities
    /// (made here by halving) in spec order; each CPU's list is that
    /// order restricted to the CPU. Spreading the priorities far apart
    /// takes the comparison sort instead of the counting sort.
    #[test]
    fn the_priority_order_is_total_and_per_cpu_lists_follow_it(p in protocol(), seed in any::<u64>(), halve in any::<bool>(), spread in any::<bool>()) {
        let mut s = system(p, seed, 10, 0.6, 3);
        for t in &mut s.tasks {
            if halve {
                t.priority = t.priority.div_ceil(2);
            }
            if spread {
                t.priority = t.priority.saturating_mul(40_000_000);
            }
        }
        let f = rtsync_model::Facts::new(&s);
        let mut seen = f.by_priority.clone();
        seen.sort_unstable();
        prop_assert_eq!(seen, (0..s.tasks.len()).collect::<Vec<_>>());
        for w in f.by_priority.windows(2) {
            let (a, b) = (&s.tasks[w[0]], &s.tasks[w[1]]);
            prop_assert!(a.priority > b.priority || a.priority == b.priority && w[0] < w[1]);
        }
        for c in 0..f.cpus {
            let want: Vec<usize> = f.by_priority.iter().copied().filter(|&t| f.cpu_of[t] == Some(c)).collect();
            prop_assert_eq!(f.on_cpu(c), &want[..]);
        }
    }

    /// Every resource's remote ceiling on every CPU (MPCP's boosting key)
    /// is its definition: the highest priority among its users not on
    /// that CPU, raised to a given ceiling, 0 without such users; with
    /// some tasks left unplaced (elsewhere from every CPU).
    #[test]
    fn remote_ceilings_follow_their_definition(p in protocol(), seed in any::<u64>(), unplace in any::<u16>(), given in prop::option::of(1u32..40)) {
        let mut s = system(p, seed, 10, 0.6, 3);
        for (k, t) in s.tasks.iter_mut().enumerate() {
            if unplace >> (k % 16) & 1 == 1 && s.platform.cpus > 1 {
                t.cpu = None;
            }
        }
        s.resources[0].ceiling = given;
        let f = rtsync_model::Facts::new(&s);
        for r in 0..f.n_resources {
            for c in 0..f.cpus {
                let want = f.users(r).iter().filter(|&&t| f.cpu_of[t] != Some(c)).map(|&t| f.priority[t]).max()
                    .map_or(0, |p| s.resources[r].ceiling.map_or(p, |g| p.max(g)));
                prop_assert_eq!(f.remote_ceiling(r, c), want, "resource {} CPU {}", r, c);
            }
        }
    }

    /// Charging overheads never improves a bound.
    #[test]
    fn overheads_never_help(p in protocol(), seed in any::<u64>(), cs_ns in 0u64..5000, lock_ns in 0u64..3000) {
        let s = system(p, seed, 6, 0.5, 3);
        let profile = Profile::from_toml(&format!(
            "context_switch = \"{cs_ns}ns\"\nrelease = \"500ns\"\nmigration = \"3us\"\n[protocol.{p}]\nlock = \"{lock_ns}ns\"\nunlock = \"{lock_ns}ns\"\nper_waiter = \"10ns\"\n"), None).unwrap();
        let plain = run(&s);
        let charged = analyze(&s, &Options { overheads: Some(profile), ..Options::default() }).unwrap().result;
        for (x, y) in plain.tasks.iter().zip(&charged.tasks) {
            prop_assert!(key(x.response) <= key(y.response), "{p}: {} {} -> {}", x.name, x.response, y.response);
            prop_assert!(y.wcet >= x.wcet);
        }
    }

    /// The job-window forms (DPCP, FMLP+; issue 28) only ever lower a
    /// bound: every task's response under the refined iteration is at most
    /// its response under the fixed forms alone, with synchronization CPUs
    /// that host tasks (own-CPU requests) and several requests per job.
    #[test]
    fn job_windows_never_raise_a_bound(placed in job_window_system()) {
        let cx = rtsync_analysis::Context::new(&placed);
        let refined = rtsync_analysis::fp::analyse(&cx, false).responses;
        let fixed = rtsync_analysis::fp::analyse_fixed(&cx);
        for (i, (a, b)) in refined.iter().zip(&fixed).enumerate() {
            prop_assert!(key(*a) <= key(*b), "task {}: job windows {:?} above fixed {:?}\n{}", i, a, b, to_toml(&placed));
        }
    }

    /// `--analysis fixed` is the fixed forms alone: through the public
    /// entry points, every task's bound and the verdict are those of the
    /// fixed-form iteration ([`rtsync_analysis::fp::analyse_fixed`]), not
    /// the job windows' (which the test above puts at or below them), and
    /// the verdict-only path answers the same.
    #[test]
    fn the_fixed_analysis_is_the_fixed_forms_alone(placed in job_window_system()) {
        let want = rtsync_analysis::fp::analyse_fixed(&rtsync_analysis::Context::new(&placed));
        let o = Options { tests: TestSelection::Rta, form: BoundForm::Fixed, ..Options::default() };
        let got = analyze_result(&placed, &o).unwrap();
        for (i, (t, w)) in got.tasks.iter().zip(&want).enumerate() {
            prop_assert_eq!(key(t.response), key(*w), "task {}\n{}", i, to_toml(&placed));
        }
        let first = verdict(&placed, &Options { first_miss: true, ..o }).unwrap();
        prop_assert_eq!(first, got.verdict);
    }

    /// The LP bounds (issue 28) only ever lower a bound: with
    /// `--analysis lp` every task's response is at most its classic one,
    /// so the LP form accepts every system the classic form accepts.
    #[test]
    fn lp_bounds_never_exceed_classic(
        p in prop::sample::select(
            Protocol::ALL.into_iter().filter(|&p| rtsync_analysis::blocking::has_lp_form(p)).collect::<Vec<_>>()
        ),
        seed in any::<u64>(),
        util in 0.3f64..1.0,
        spread in any::<u64>(),
    ) {
        let placed = windowed_system(p, seed, util, spread);
        lp_at_most_classic(&placed)?;
        let classic = rtsync_analysis::Context::new(&placed);
        let lp = rtsync_analysis::Context::with_form(&placed, BoundForm::Lp);
        if rtsync_analysis::fp::schedulable(&classic) {
            prop_assert!(rtsync_analysis::fp::schedulable(&lp));
        }
    }

    /// The same with jobs that self-suspend: a joint spin bound counts a
    /// suspending job above with its response as jitter, where the forms
    /// may charge that task its jobs released in the window alone, so the
    /// engine keeps the classic demand's answer where it is smaller
    /// (`fp::Engine::response`; found on the soundness stream's `tight`
    /// shape, `data/msrp-lp-suspending-above.toml` worked by hand).
    #[test]
    fn lp_bounds_never_exceed_classic_where_jobs_suspend(
        p in prop::sample::select(
            Protocol::ALL.into_iter().filter(|&p| rtsync_analysis::blocking::has_lp_form(p)).collect::<Vec<_>>()
        ),
        seed in any::<u64>(),
        util in 0.3f64..0.9,
    ) {
        let cpus = 2 + (seed % 2) as usize;
        let c = GenConfig {
            suspend_prob: 0.6,
            suspend_max: Time::from_us(500),
            ..config(p, cpus, 4 * cpus, util * cpus as f64, 2, 0.0)
        };
        let placed = rtsync_analysis::place(&generate(&c, seed, 0), Heuristic::WorstFit)
            .unwrap()
            .into_owned();
        lp_at_most_classic(&placed)?;
    }

    /// Generation is reproducible: the same seed and index give the same
    /// system, and different indices give different ones.
    #[test]
    fn generation_is_seeded(seed in any::<u64>()) {
        let c = GenConfig::default();
        prop_assert_eq!(generate(&c, seed, 3), generate(&c, seed, 3));
        prop_assert_ne!(generate(&c, seed, 3).tasks, generate(&c, seed, 4).tasks);
    }

    /// Jitter changes nothing else: the system with `jitter_max` has the
    /// tasks of the one without, each released at most that share of its
    /// slack late, and about half of them not at all.
    #[test]
    fn jitter_is_drawn_beside_the_same_tasks(seed in any::<u64>(), share in 0.05f64..1.0) {
        let plain = GenConfig { tasks: 40, utilization: 2.0, ..GenConfig::default() };
        let jittered = GenConfig { jitter_max: share, ..plain.clone() };
        let (a, b) = (generate(&plain, seed, 1), generate(&jittered, seed, 1));
        let mut late = 0;
        for (x, y) in a.tasks.iter().zip(&b.tasks) {
            prop_assert_eq!(x.jitter, Time::ZERO);
            let slack = y.deadline.saturating_sub(rtsync_model::body_execution(&y.body).unwrap());
            prop_assert!(y.jitter.ns() as f64 <= slack.ns() as f64 * share + 0.5);
            late += usize::from(!y.jitter.is_zero());
            let mut y = y.clone();
            y.jitter = Time::ZERO;
            prop_assert_eq!(x, &y);
        }
        // Each task is jittered with probability one half, so `late` is
        // Binomial(40, 1/2): outside 5..=35 with probability 2e-7 per
        // case, 3e-5 per run of the 160 cases. The bound was 8..=32 (4e-5
        // per case, a false alarm in 0.7% of runs) until CI met 33 (seed
        // 13118601496963801281); a generator that jitters all tasks or
        // none still fails it.
        prop_assert!((5..=35).contains(&late), "{} of 40 jittered", late);
    }

    /// Drawn priorities change nothing but the priorities: the tasks (and
    /// their CPUs) are the deadline-monotonic system's, every priority is
    /// within `1..=k`, and with 40 tasks on `k` of 4 to 30 levels some are
    /// equal and some task sits above one with a shorter deadline, which
    /// deadline-monotonic priorities never give.
    #[test]
    fn drawn_priorities_are_drawn_beside_the_same_tasks(seed in any::<u64>(), k in 4u32..30) {
        let plain = GenConfig { tasks: 40, utilization: 2.0, deadline_min: 0.5, ..GenConfig::default() };
        let drawn = GenConfig { priority_levels: Some(k), ..plain.clone() };
        let (a, b) = (generate(&plain, seed, 1), generate(&drawn, seed, 1));
        let (mut tied, mut inverted) = (false, false);
        for (x, y) in a.tasks.iter().zip(&b.tasks) {
            prop_assert!((1..=k).contains(&y.priority));
            let mut y2 = y.clone();
            y2.priority = x.priority;
            prop_assert_eq!(x, &y2);
            for z in &b.tasks {
                tied |= !std::ptr::eq(y, z) && y.priority == z.priority;
                inverted |= y.priority > z.priority && y.deadline > z.deadline;
            }
        }
        prop_assert!(tied && inverted, "tied {} inverted {}", tied, inverted);
        let mut dm = a.tasks.clone();
        dm.sort_by_key(|t| std::cmp::Reverse(t.priority));
        let monotonic = dm.windows(2).all(|w| w[0].priority > w[1].priority && w[0].deadline <= w[1].deadline);
        prop_assert!(monotonic, "the plain system's priorities are deadline-monotonic and unique");
        let none = GenConfig { priority_levels: Some(0), ..plain };
        prop_assert!(rtsync_analysis::generate::check_config(&none).is_err(), "zero levels refused");
    }
}

/// The EDF demand test never rejects what Baker's density test accepts
/// on systems without blocking (where Baker's condition is the density
/// test over the windows `D - J`, which implies the demand criterion),
/// with release jitter on every other system.
#[test]
fn baker_accept_implies_demand_accept_without_resources() {
    for seed in 0..300u64 {
        let mut c = config(Protocol::Srp, 1, 6, 0.7, 0, 0.0);
        c.deadline_min = 0.5;
        c.scheduler = Scheduler::Edf;
        c.jitter_max = if seed % 2 == 0 { 0.0 } else { 0.5 };
        let s = generate(&c, seed, 0);
        let r = analyze(
            &s,
            &Options {
                tests: TestSelection::Edf,
                ..Options::default()
            },
        )
        .unwrap()
        .result;
        let v = |t: Test| r.tests.iter().find(|o| o.test == t).unwrap().verdict;
        if v(Test::EdfBaker) == Verdict::Schedulable {
            assert_eq!(
                v(Test::EdfDemand),
                Verdict::Schedulable,
                "seed {seed}\n{}",
                to_toml(&s)
            );
        }
    }
}

/// Under EDF a self-suspension can only cost: the same system with every
/// suspension folded into computation (the same demand, the window
/// blocked once, at its start) is accepted wherever the system is, under
/// NPCS and SRP. It fails where the resumptions' charge falls below the
/// one-arrival term (a cap that binds too early, a horizon cut short by
/// the resumptions' growth, a `late` term read with fewer jobs than the
/// classic one). On these 300 seeds the demand test accepts 135 of the
/// suspending systems and 176 of their folded twins; the test asserts
/// both sides are non-vacuous.
#[test]
fn edf_suspension_never_helps_the_demand_test() {
    fn fold(body: &mut [Segment]) {
        for s in body {
            match s {
                Segment::Suspend(t) => *s = Segment::Compute(*t),
                Segment::Lock { body, .. } => fold(body),
                _ => {}
            }
        }
    }
    let (mut accepted, mut costly) = (0, 0);
    for seed in 0..300u64 {
        let p = if seed % 2 == 0 {
            Protocol::Npcs
        } else {
            Protocol::Srp
        };
        let mut c = config(p, 1, 6, 0.5, 2, 0.0);
        c.scheduler = Scheduler::Edf;
        c.suspend_prob = 0.5;
        c.suspend_max = Time::from_ms(2);
        let s = generate(&c, seed, 0);
        if !s
            .tasks
            .iter()
            .any(|t| t.body.iter().any(|x| matches!(x, Segment::Suspend(_))))
        {
            continue;
        }
        let mut folded = s.clone();
        for t in &mut folded.tasks {
            fold(&mut t.body);
        }
        let demand = |s: &System| {
            let r = analyze(
                s,
                &Options {
                    tests: TestSelection::Edf,
                    ..Options::default()
                },
            )
            .unwrap()
            .result;
            r.tests
                .iter()
                .find(|o| o.test == Test::EdfDemand)
                .unwrap()
                .verdict
        };
        let folded_ok = demand(&folded) == Verdict::Schedulable;
        if demand(&s) == Verdict::Schedulable {
            accepted += 1;
            assert!(folded_ok, "seed {seed}\n{}", to_toml(&s));
        } else if folded_ok {
            costly += 1;
        }
    }
    assert!(
        accepted >= 30,
        "only {accepted} suspending systems accepted"
    );
    assert!(costly >= 10, "suspensions cost only {costly} systems");
}

/// Under EDF every row agrees with the verdict: a schedulable system's
/// tasks all have a bound within their deadline (Spuri's, or the deadline
/// itself), and a rejected one has a task past it. Baker's test and the
/// demand test charge blocking differently where tasks self-suspend and
/// jitter, so either can pass alone; the rows once followed the demand
/// test only and printed every task as a miss under "verdict:
/// schedulable (decided by edf-baker)" (a system of this stream, now in
/// `data/edf-baker-alone.toml`).
#[test]
fn edf_rows_agree_with_the_verdict() {
    let mut rejected = 0;
    for seed in 0..2000u64 {
        let c = GenConfig {
            cpus: 1,
            scheduler: Scheduler::Edf,
            protocol: Protocol::Npcs,
            tasks: 5,
            utilization: 0.5,
            periods: Periods::LogUniform {
                min: Time::from_ms(2),
                max: Time::from_ms(50),
            },
            deadline_min: 0.7,
            resources: 2,
            access_prob: 0.6,
            cs_min: Time::from_us(100),
            cs_max: Time::from_ms(2),
            requests_max: 2,
            suspend_prob: 0.5,
            suspend_max: Time::from_ms(3),
            jitter_max: if seed % 2 == 0 { 0.5 } else { 0.0 },
            ..GenConfig::default()
        };
        let s = generate(&c, seed, 0);
        let r = analyze(&s, &Options::default()).unwrap().result;
        match r.verdict {
            Verdict::Schedulable => {
                for t in &r.tasks {
                    let b = t.response.bounded();
                    assert!(
                        b.is_some_and(|b| b <= t.deadline),
                        "seed {seed}: {} {}",
                        t.name,
                        t.response
                    );
                }
            }
            _ => {
                rejected += 1;
                assert!(
                    r.tasks.iter().any(|t| t.response.bounded().is_none()),
                    "seed {seed}"
                );
            }
        }
    }
    assert!(
        (200..1800).contains(&rejected),
        "{rejected} of 2000 rejected"
    );
}
