//! Hand-worked examples: each expected value is derived in the comment
//! beside it from the equation the module cites, not read off the code.

mod common;
use common::*;
use rtsync_analysis::{
    BoundForm, Delay, Options, Profile, Response, Test, TestSelection, Verdict, analyze,
};
use rtsync_model::{Protocol, Time};

/// Burns and Wellings, *Real-Time Systems and Programming Languages*,
/// Sec. 11.5 (response-time analysis example): (C, T) = (3, 7), (3, 12),
/// (5, 20) give R = 3, 6, 20.
#[test]
fn rta_textbook_example() {
    let s = sys(r#"
[[task]]
name = "a"
period = "7ms"
wcet = "3ms"
[[task]]
name = "b"
period = "12ms"
wcet = "3ms"
[[task]]
name = "c"
period = "20ms"
wcet = "5ms"
"#);
    let r = run(&s);
    let got: Vec<Time> = r.tasks.iter().map(|t| bounded(t.response)).collect();
    assert_eq!(
        got,
        vec![Time::from_ms(3), Time::from_ms(6), Time::from_ms(20)]
    );
    assert_eq!(r.verdict, Verdict::Schedulable);
    // U = 3/7 + 3/12 + 5/20 = 0.929 > 3(2^{1/3} - 1) = 0.780: LL rejects,
    // and (10/7)(15/12)(25/20) = 2.23 > 2: the hyperbolic bound rejects too,
    // while RTA accepts; the system verdict comes from RTA.
    let by = |t: Test| r.tests.iter().find(|o| o.test == t).unwrap().verdict;
    assert_eq!(by(Test::LiuLayland), Verdict::NotSchedulable);
    assert_eq!(by(Test::Hyperbolic), Verdict::NotSchedulable);
    assert_eq!(r.decided_by, Some(Test::Rta));
}

/// Release jitter: task b (C 2, T 10, J 3) above c (C 4, T 20). For c:
/// w = 4 + ceil((w + 3)/10) 2 -> w = 6 (ceil(9/10) = 1), R_c = 6;
/// R_b = J + C = 5.
#[test]
fn rta_with_release_jitter() {
    let s = sys(r#"
[[task]]
name = "b"
period = "10ms"
jitter = "3ms"
wcet = "2ms"
[[task]]
name = "c"
period = "20ms"
wcet = "4ms"
"#);
    let r = run(&s);
    assert_eq!(bounded(task(&r, "b").response), Time::from_ms(5));
    assert_eq!(bounded(task(&r, "c").response), Time::from_ms(6));
    // With J = 7: (w + 7)/10 for w = 6 gives 2 jobs: w = 4 + 4 = 8 -> 2 jobs -> 8.
    let s2 = sys(r#"
[[task]]
name = "b"
period = "10ms"
jitter = "7ms"
wcet = "2ms"
[[task]]
name = "c"
period = "20ms"
wcet = "4ms"
"#);
    assert_eq!(bounded(task(&run(&s2), "c").response), Time::from_ms(8));
}

/// Self-suspension, both forms (`data/suspension-forms.toml`), Chen et
/// al. 2019: `t1` (C 2, T 10), `h` (1.5ms, suspends 0.5ms, 1.5ms; T 20),
/// `l` (C 11, T 100), by priority. R_h: 3 + 0.5 + ⌈w/10⌉ 2 = 5.5ms, so
/// `h`'s jitter is R_h - C_h = 2.5ms. For `l`, suspension as jitter:
/// `w = 11 + ⌈w/10⌉ 2 + ⌈(w + 2.5)/20⌉ 3` climbs 16, 18, 21, 23: 23ms
/// (the jitter gives `h` a second job); suspension as execution:
/// `w = 11 + ⌈w/10⌉ 2 + ⌈w/20⌉ (3 + 0.5)` climbs 16.5, 18.5: 18.5ms. The
/// smaller is kept: R_l = 18.5ms. Either form without the suspension
/// (no jitter, or `h` charged 3ms a job) would give 18ms, and the jitter
/// form alone 23ms.
#[test]
fn suspension_is_charged_as_jitter_or_as_execution_whichever_is_smaller() {
    let r = run(&sys(include_str!("data/suspension-forms.toml")));
    assert_eq!(bounded(task(&r, "h").response), us(5500));
    assert_eq!(bounded(task(&r, "l").response), us(18_500));
}

/// The same three tasks (`data/suspension-forms.toml`) on CPU 0 of a DPCP
/// system whose one resource serves a fourth task on CPU 1: the
/// job-window engine then solves both forms at each look (the
/// suspension-oblivious one after the jitter one, only up to its answer),
/// and must still keep the oblivious 18.5ms for `l`. The verdict alone,
/// as sweeps and the speed bench ask for it, takes the same path: `l`
/// meets a deadline of 18.5ms and misses one of 18.4ms (the jitter
/// form's 23ms would miss both).
#[test]
fn the_job_window_engine_keeps_the_smaller_suspension_form() {
    let src = include_str!("data/suspension-forms.toml")
        .replace("[[task]]", "[[task]]\ncpu = 0")
        .replace("wcet = \"11ms\"", "wcet = \"11ms\"\ndeadline = \"DL\"");
    let head = r#"
[platform]
cpus = 3
protocol = "dpcp"
[[resource]]
name = "G"
sync_cpu = 2
[[task]]
name = "z"
period = "50ms"
priority = 4
cpu = 1
body = [ { lock = "G", hold = "1ms" } ]
"#;
    let with = |dl: &str| sys(&format!("{head}{}", src.replace("DL", dl)));
    let r = run(&with("100ms"));
    assert_eq!(bounded(task(&r, "h").response), us(5500));
    assert_eq!(bounded(task(&r, "l").response), us(18_500));
    let opts = Options {
        tests: TestSelection::Rta,
        first_miss: true,
        ..Options::default()
    };
    let v = |dl: &str| rtsync_analysis::verdict(&with(dl), &opts).unwrap();
    assert_eq!(v("18500us"), Verdict::Schedulable);
    assert_eq!(v("18400us"), Verdict::NotSchedulable);
}

/// PIP blocks a job at most once per lower job and at most once per
/// resource, whichever is fewer (Sha, Rajkumar, Lehoczky 1990, Thms 5
/// and 6; `data/pip-once-per-resource.toml`): `mid` and `lo` both hold R
/// (2 and 3ms) below `hi`. Per job 2 + 3 = 5ms, per resource 3ms: `hi`'s
/// local blocking is 3ms, R_hi = 1 + 3 = 4ms. `mid`: `lo`'s 3ms, and
/// `hi` once in `w = 2 + 3 + ⌈w/20⌉ 1`: 6ms.
#[test]
fn pip_blocks_at_most_once_per_resource() {
    let r = run(&sys(include_str!("data/pip-once-per-resource.toml")));
    let hi = task(&r, "hi");
    assert_eq!(hi.blocking.local, Time::from_ms(3));
    assert_eq!(bounded(hi.response), Time::from_ms(4));
    assert_eq!(bounded(task(&r, "mid").response), Time::from_ms(6));
}

/// pip-chained.toml: ctrl (prio 3, C 2.5) uses bus and log; comms (prio 2,
/// C 4) holds bus 2ms; logger (prio 1, C 6) holds log 3ms.
/// PIP (Sha et al. Thm 6): ctrl can be blocked by both lower jobs, once
/// each: B = min(2 + 3, 2 + 3) = 5ms; R = 2.5 + 5 = 7.5ms.
/// comms: only logger is lower; log's ceiling (3) >= 2: B = 3;
/// w = 4 + 3 + ceil(w/10) 2.5 = 9.5ms.
/// PCP / IPCP (Thm 12): ctrl blocked once, by the longest: 3ms -> 5.5ms.
/// NPCS: ctrl blocked by the longest lower section, 3ms -> 5.5ms.
#[test]
fn pip_chained_versus_ceiling_protocols() {
    let s = example("pip-chained.toml");
    let pip = run(&s);
    assert_eq!(task(&pip, "ctrl").blocking.local, Time::from_ms(5));
    assert_eq!(bounded(task(&pip, "ctrl").response), us(7500));
    assert_eq!(task(&pip, "comms").blocking.local, Time::from_ms(3));
    assert_eq!(bounded(task(&pip, "comms").response), us(9500));
    // logger: 6 + ceil(w/10) 2.5 + ceil(w/20) 4 -> 12.5 -> 15 -> 15.
    assert_eq!(bounded(task(&pip, "logger").response), Time::from_ms(15));
    for p in [Protocol::Pcp, Protocol::Ipcp, Protocol::Npcs, Protocol::Srp] {
        let r = run(&s.with_protocol(p));
        assert_eq!(task(&r, "ctrl").blocking.local, Time::from_ms(3), "{p}");
        assert_eq!(bounded(task(&r, "ctrl").response), us(5500), "{p}");
    }
}

/// PIP transitive blocking (`data/pip-transitive-chain.toml`): hi locks
/// A; mid locks A and, nested inside, B; lo locks B for 4ms. Without the
/// closure of ceilings over nesting, B's ceiling (mid's priority 2) is
/// below hi's, and lo would not count for hi; but lo can block mid inside
/// A, which blocks hi: hi's bound must include lo's 4ms section. B_hi =
/// min(jobs: mid 3ms (A section incl. nested B) + lo 4ms, resources: A
/// 3ms + B 4ms) = 7ms, R_hi = 1 + 7 = 8ms (rtsync-sim's search reaches
/// it, `a_chain_of_lower_holders_is_searched_in_order`).
#[test]
fn pip_transitive_blocking_through_nesting() {
    let s = sys(include_str!("data/pip-transitive-chain.toml"));
    let r = run(&s);
    assert_eq!(task(&r, "hi").blocking.local, Time::from_ms(7));
    assert_eq!(bounded(task(&r, "hi").response), Time::from_ms(8));
    // PCP blocks hi once: the longest section with ceiling >= 3: A (3ms).
    // B's ceiling is 2, below hi: lo cannot block hi under PCP.
    let p = run(&s.with_protocol(Protocol::Pcp));
    assert_eq!(task(&p, "hi").blocking.local, Time::from_ms(3));
}

/// Two lower holders in turn (`data/pip-two-holders-in-turn.toml`): hi
/// (C 0.4ms) locks A, then B; mid holds A 2ms, lo B 3ms. PIP (Sha et al.
/// 1990, Thm 5): per job, mid's 2 + lo's 3; per resource, A's longest
/// lower section 2 + B's 3: B_hi = 5ms, R_hi = 5.4ms (rtsync-sim's search
/// reaches it, `a_chain_of_lower_holders_is_searched_in_order`). mid: lo's
/// B (ceiling 3 >= 2), 3ms; w = 2.3 + 3 + ceil(w/20) 0.4 = 5.7ms. Under
/// PCP hi meets one of the two: 3.4ms.
#[test]
fn pip_two_lower_holders_in_turn() {
    let s = sys(include_str!("data/pip-two-holders-in-turn.toml"));
    let r = run(&s);
    assert_eq!(task(&r, "hi").blocking.local, Time::from_ms(5));
    assert_eq!(bounded(task(&r, "hi").response), us(5400));
    assert_eq!(bounded(task(&r, "mid").response), us(5700));
    let pcp = run(&s.with_protocol(Protocol::Pcp));
    assert_eq!(bounded(task(&pcp, "hi").response), us(3400));
}

/// A chain of two lower holders under a uniprocessor mix
/// (`data/mix-pip-chain-through-ipcp.toml`, `blocking::mix`): lo holds A
/// (PIP, users hi and lo: ceiling 3) for 2.1ms with P (IPCP, users mid
/// and lo: ceiling 2) inside; mid holds P for 0.05ms. P's ceiling closed
/// over nesting is A's, 3: mid, lent hi's priority through lo, reaches
/// hi. With a PIP resource in the mix the per-job sum holds (point 3):
/// B_hi = lo's longest reaching section, A 2.1ms, + mid's, P 0.05ms =
/// 2.15ms; R_hi = 0.1 + 0.1 + 2.15 = 2.35ms. mid: lo's A (ceiling 3 >=
/// 2), 2.1ms; w = 0.55 + 2.1 + ceil(w/40) 0.2 = 2.85ms. Under IPCP alone
/// hi would meet one section, the longest (2.1ms): 2.3ms.
#[test]
fn mix_blocks_through_a_chain_of_lower_holders() {
    let s = sys(include_str!("data/mix-pip-chain-through-ipcp.toml"));
    let r = run(&s);
    assert_eq!(task(&r, "hi").blocking.local, us(2150));
    assert_eq!(bounded(task(&r, "hi").response), us(2350));
    assert_eq!(task(&r, "mid").blocking.local, us(2100));
    assert_eq!(bounded(task(&r, "mid").response), us(2850));
    let ipcp = run(&s.with_protocol(Protocol::Ipcp));
    assert_eq!(bounded(task(&ipcp, "hi").response), us(2300));
}

/// A holder suspended inside an IPCP section, no lock-order cycle
/// (`data/mix-holder-suspended-inside-ipcp.toml`, `blocking::mix`): A
/// (IPCP, users M and J: ceiling 4), B (PIP, users J and L: ceiling 2,
/// closed over nesting inside A: 4). A PIP resource in the mix: the
/// per-job sum (point 3). M: N has no section, J's A 2ms (with B
/// inside), L's B 3ms: B_M = 5ms, R_M = 1 + 5 = 6ms. N: the same two
/// (both reach 3): 5ms, w = 5 + 5 + ceil(w/100) 1 = 11ms. J: L's B
/// (reach 4 >= 2), 3ms; w = 2 + 3 + 1 + 5 = 11ms. L: 3 + 1 + 5 + 2 =
/// 11ms. While J waits inside A, L inherits its priority as it runs, A's
/// ceiling, which point 1 needs (N would otherwise run inside M's wait;
/// scenario mix-pip-inside-ipcp.toml checks the inheritance).
#[test]
fn mix_a_holder_suspended_inside_an_ipcp_section() {
    let r = run(&sys(include_str!(
        "data/mix-holder-suspended-inside-ipcp.toml"
    )));
    assert_eq!(task(&r, "M").blocking.local, Time::from_ms(5));
    for (t, ms) in [("M", 6), ("N", 11), ("J", 11), ("L", 11)] {
        assert_eq!(bounded(task(&r, t).response), Time::from_ms(ms), "{t}");
    }
    assert_eq!(task(&r, "J").blocking.local, Time::from_ms(3));
}

/// NPCS blocks even tasks that share nothing (npcs-simple.toml): watchdog
/// (200us, 2ms) waits for reader's 800us section: R = 1ms.
#[test]
fn npcs_blocks_unrelated_tasks() {
    let r = run(&example("npcs-simple.toml"));
    assert_eq!(task(&r, "watchdog").blocking.local, us(800));
    assert_eq!(bounded(task(&r, "watchdog").response), Time::from_ms(1));
    // Under IPCP the flash ceiling is writer's priority (2): watchdog (3) is
    // never blocked.
    let i = run(&example("npcs-simple.toml").with_protocol(Protocol::Ipcp));
    assert_eq!(task(&i, "watchdog").blocking.local, Time::ZERO);
}

/// Each self-suspension gives lower-priority work a new chance to block.
/// hi: 1ms, suspend 2ms, 1ms; lo holds R 3ms; PCP, hi uses R (1ms section
/// inside its first compute). B = 2 x 3ms = 6ms; R = 2 + 2 + 6 = 10ms.
#[test]
fn self_suspension_multiplies_local_blocking() {
    let s = sys(r#"
[platform]
protocol = "pcp"
[[resource]]
name = "R"
[[task]]
name = "hi"
period = "20ms"
body = [ { lock = "R", hold = "1ms" }, { suspend = "2ms" }, { compute = "1ms" } ]
[[task]]
name = "lo"
period = "50ms"
body = [ { lock = "R", hold = "3ms" } ]
"#);
    let r = run(&s);
    assert_eq!(task(&r, "hi").blocking.local, Time::from_ms(6));
    assert_eq!(bounded(task(&r, "hi").response), Time::from_ms(10));
}

const MP: &str = r#"
[platform]
cpus = 3
protocol = "PROTO"
[[resource]]
name = "G"
sync_cpu = 2
[[task]]
name = "t1"
period = "10ms"
priority = 2
cpu = 0
body = [ { compute = "1ms" }, { lock = "G", hold = "1ms" }, { compute = "1ms" } ]
[[task]]
name = "t3"
period = "40ms"
priority = 1
cpu = 0
body = [ { lock = "G", hold = "2ms" } ]
[[task]]
name = "t2"
period = "20ms"
priority = 3
cpu = 1
body = [ { lock = "G", hold = "500us" } ]
"#;

/// MPCP (Lakshmanan et al. 2009, Eqs. 3-6). For t1 on G: no lower
/// request of another CPU (t3, on t1's CPU, never holds G when t1 asks
/// for it: it would run boosted, above t1; Eq. 4 counts its 2ms: w = 3ms);
/// t2 (higher) adds (ceil(w/20) + 1) 0.5ms: w = 2 x 0.5 = 1ms (stable).
/// Local: t3's 2ms global section at release and at t1's resumption
/// after its request: 2 x 2 = 4ms. R = 3 (C) + 1 + 4 = 8ms.
#[test]
fn mpcp_hand_worked() {
    let r = run(&sys(&MP.replace("PROTO", "mpcp")));
    let t1 = task(&r, "t1");
    assert_eq!(t1.blocking.remote, Time::from_ms(1));
    assert_eq!(t1.blocking.local, Time::from_ms(4));
    assert_eq!(bounded(t1.response), Time::from_ms(8));
    // t2: lower requests t1 1ms and t3 2ms -> 2ms; R = 0.5 + 2 = 2.5ms.
    assert_eq!(bounded(task(&r, "t2").response), us(2500));
}

/// MPCP, a higher task with several requests per job
/// (`data/mpcp-higher-requests.toml`). `a` (CPU 0, priority 2) computes
/// 1ms and holds G 1ms; `h` (CPU 1, priority 3) holds G twice, 1ms each.
/// `a`'s wait on G: no lower user, and `h` above with `(⌈W / 100⌉ + 1) ·
/// N_{h,G} · L'` = 2 x 2 x 1ms: W = 4ms (one request per job would give
/// 2ms). R_a = 2 + 4 = 6ms. `h`: each request waits for `a`'s one lower
/// section, 1ms: remote 2ms, R_h = 4ms.
#[test]
fn mpcp_counts_every_request_of_a_higher_task() {
    let r = run(&sys(include_str!("data/mpcp-higher-requests.toml")));
    assert_blocking(&r, "a", [4, 0, 6]);
    assert_blocking(&r, "h", [2, 0, 4]);
}

/// MPCP correction 6 (`data/mpcp-higher-holder-at-home.toml`): `i` (CPU
/// 0, priority 2, T 20) holds G 1ms then computes 2ms; `h` above it on
/// CPU 0 (T 10) computes 1ms then holds G 1ms; `y` (CPU 1, lowest, T 10)
/// computes 1ms then holds G 1ms.
/// `i`'s wait on G: `y`'s 1ms (lower, another CPU) plus `h`'s
/// `(⌈W / 10⌉ + 1) · 1ms`: W = 3ms. Of those, `h`'s two sections run on
/// CPU 0 and are `h`'s interference in `i`'s equation: remote 3 - 2 =
/// 1ms. `h`: W = `y`'s 1ms (no higher user), and locally `i`'s global
/// section at its release and at its resumption: 2 x 1 = 2ms; R_h = 2 +
/// 1 + 2 = 5ms, jitter 3ms towards `i`. R_i: w = 3 + 1 + ⌈(w + 3) / 10⌉ ·
/// 2 = 6ms (suspension as execution: 4 + ⌈w / 10⌉ · 3 = 7ms). With the
/// whole wait charged: 3 + 3 + 2 · 2 = 10ms, and 9ms as execution.
/// `y`: no lower user; `i` and `h` above it, `(⌈W / 20⌉ + 1)` and
/// `(⌈W / 10⌉ + 1)` requests of 1ms: W = 2 + 2 = 4ms, neither on `y`'s
/// CPU; R_y = 2 + 4 = 6ms.
#[test]
fn mpcp_charges_a_higher_holder_of_the_jobs_cpu_once() {
    let r = run(&sys(include_str!("data/mpcp-higher-holder-at-home.toml")));
    assert_blocking(&r, "i", [1, 0, 6]);
    assert_blocking(&r, "h", [1, 2, 5]);
    assert_blocking(&r, "y", [4, 0, 6]);
}

/// MPCP, the holder's section preempted on its own CPU
/// (`data/mpcp-holder-preempted-by-a-granted-section.toml`, Lakshmanan
/// et al. 2009 Eq. 3 with `L'`): `T` (CPU 0) asks for G, held by `x`
/// (CPU 1, lowest). Keys on CPU 1: G's remote ceiling is `T`'s 4, G2's is
/// `z`'s 6 (its user on another CPU), so `y`'s 2ms section on G2 can run
/// inside `x`'s: L'(x on G) = 1 + 2 = 3ms. W_T = max_lower L' = 3ms (no
/// user of G above `T`), none of it on `T`'s CPU: remote 3ms, and R_T =
/// 0.2 + 3 = 3.2ms (rtsync-sim's search reaches it,
/// `a_holder_preempted_on_its_cpu_is_searched_in_order`). Without the
/// preemption term it would be 1.2ms. Under FMLP+ (`blocking::fmlp_l`,
/// fixed form: one section of each task of another CPU that uses G or
/// shares a CPU with one, boosted ahead in issue order): `x`'s 1ms and
/// `y`'s 2ms (CPU 1 hosts `x`); `z`'s CPU hosts no user of G. W = 3ms,
/// R_T = 3.2ms, the same schedule.
#[test]
fn mpcp_a_holder_is_preempted_by_a_section_granted_on_its_cpu() {
    let s = sys(include_str!(
        "data/mpcp-holder-preempted-by-a-granted-section.toml"
    ));
    for p in [Protocol::Mpcp, Protocol::FmlpL] {
        let r = run(&s.with_protocol(p));
        let t = task(&r, "T");
        assert_eq!(t.blocking.remote, Time::from_ms(3), "{p}");
        assert_eq!(t.blocking.local, Time::ZERO, "{p}");
        assert_eq!(bounded(t.response), us(3200), "{p}");
    }
}

/// DPCP on sync CPU 2. t1's request, per request: own 1ms + one lower
/// (t3, 2ms; G's ceiling 3 >= 2) + t2 (ceil(w/20) + 1) 0.5 -> w = 3 + 1 =
/// 4ms. Job window (SchedCAT's form): own 1ms, one lower 2ms (one request)
/// and t2's jobs overlapping t1's window, ceil((R_1 + R_2)/20) x 0.5ms. t2
/// alone on CPU 1 runs nothing outside its section; its request waits for
/// one lower section at G's ceiling (t3's 2ms): R_2 = 0.5 + 2 = 2.5ms. With
/// R_1 = 2 + 3.5 = 5.5ms, ceil(8/20) = 1 job: 3.5ms, the smaller form, and
/// the iteration from R = C settles there. R = 2 + 3.5 = 5.5ms.
#[test]
fn dpcp_hand_worked() {
    let r = run(&sys(&MP.replace("PROTO", "dpcp")));
    let t1 = task(&r, "t1");
    assert_eq!(t1.blocking.remote, us(3500));
    assert_eq!(bounded(t1.response), us(5500));
    assert_eq!(bounded(task(&r, "t2").response), us(2500));
}

/// The agents' work on a synchronization CPU enters a hosted task's window
/// with the requesting task's response time as jitter (`⌈(w + R_x)/T_x⌉ L_x`),
/// so the hosted task's bound must follow R_x up even when R_x is found
/// after it (here x is the lowest priority and is analysed last).
/// x (CPU 1, under y: C 3, T 5) runs 1ms and one 1ms section on CPU 0:
/// its request waits for nobody, W = 1ms; own demand 2ms;
/// R_x: w = 2 + ceil(w/5) 3 -> 5 -> 5. a (CPU 0, C 6, T 20) suffers x's
/// 1ms section with jitter 5: w = 6 + ceil((6 + 5)/10) 1 = 8, and
/// ceil((8 + 5)/10) = 2 keeps it at 8. With x's first estimate (its own
/// 2ms) a would stop at 7: not a bound.
#[test]
fn agent_load_follows_the_requesting_tasks_response() {
    let r = run(&sys(r#"
[platform]
cpus = 2
protocol = "dpcp"
[[resource]]
name = "r"
sync_cpu = 0
[[task]]
name = "a"
period = "20ms"
priority = 3
cpu = 0
body = [ { compute = "6ms" } ]
[[task]]
name = "y"
period = "5ms"
priority = 2
cpu = 1
body = [ { compute = "3ms" } ]
[[task]]
name = "x"
period = "10ms"
priority = 1
cpu = 1
body = [ { compute = "1ms" }, { lock = "r", hold = "1ms" } ]
"#));
    assert_eq!(task(&r, "x").blocking.remote, Time::from_ms(1));
    assert_eq!(bounded(task(&r, "x").response), Time::from_ms(5));
    assert_eq!(bounded(task(&r, "a").response), Time::from_ms(8));
}

/// DPCP on the synchronization CPU: `h` (1ms, top priority) shares CPU 1
/// with `l`, whose two 1ms sections of R (served on CPU 1) its agents run
/// above every task, and with `m`, whose one 0.8ms section is served
/// there too; `g` on CPU 0 holds R 0.5ms every 50ms. `h` never suspends,
/// so it arrives once: a lower task issues a request only while it runs,
/// which it does not while `h` is ready, nor while an agent serves
/// another (agents run above every task), so at most one section of `l`
/// and `m` together is in progress while `h` is pending, the longer,
/// 1ms, however long the window. (Brandenburg 2013's LP constrains each
/// lower task alone, as SchedCAT's `lp_dpcp.cpp` applies it: 1 + 0.8ms.)
/// `g`'s agent work is periodic: `⌈(w + R_g)/50⌉ 0.5ms` = 0.5ms. R_h =
/// 1 + 1 + 0.5 = 2.5ms, where one section per lower task gave 3.3ms and
/// the periodic charge of their whole jobs 4.3ms. The simulator's search
/// reaches the 2.5ms and no more (rtsync-sim's
/// `a_lower_local_task_delays_a_dpcp_job_once_per_arrival`).
#[test]
fn a_lower_local_task_delays_a_job_by_one_section_per_arrival() {
    let src = |dl: &str| {
        include_str!("data/dpcp-lower-agents.toml")
            .replace("deadline = \"10ms\"", &format!("deadline = \"{dl}\""))
    };
    let r = run(&sys(&src("10ms")));
    assert_eq!(bounded(task(&r, "h").response), us(2500));
    let opts = Options {
        tests: TestSelection::Rta,
        first_miss: true,
        ..Options::default()
    };
    let v = |dl: &str| rtsync_analysis::verdict(&sys(&src(dl)), &opts).unwrap();
    assert_eq!(v("2500us"), Verdict::Schedulable);
    assert_eq!(v("2400us"), Verdict::NotSchedulable);
}

/// The cap on lower tasks' agents is for tasks of the job's own CPU: `x`
/// is below `i` but runs on CPU 0, so its two 1ms sections of B, served
/// on `i`'s CPU 1, are agent work that `x` issues while `i` is ready
/// (`x` runs elsewhere): both can fall in `i`'s window, the periodic
/// charge of `x`'s job, 2ms. `z`, below `i` on its CPU, is capped: one
/// 0.3ms section. R_i = 1 + 2 + 0.3 = 3.3ms. (`x`'s own CPU serves A, so
/// `x` has work "at home" too; taking it for a lower task of `i`'s CPU
/// dropped its 2ms and gave 1.3ms, while the simulator's search finds
/// `i` at 3.23ms: rtsync-sim's `a_lower_task_of_another_cpu_is_charged_in_full`.)
#[test]
fn a_lower_task_of_another_cpu_is_charged_in_full() {
    let r = run(&sys(include_str!("data/dpcp-remote-lower-agents.toml")));
    assert_eq!(bounded(task(&r, "i").response), Time::from_us(3300));
}

/// A task on a DPCP synchronization CPU suffers the agents' work, which
/// the utilization bounds cannot express: they must not apply there.
/// CPU 1 serves r; b (6ms every 10ms) runs there. a's 4ms section runs on
/// CPU 1 above b; a's response is 1 + 4 = 5ms, so its agent has jitter
/// 5ms: b's window w = 6 + 4·⌈(w + 5)/10⌉ gives 6 + 8 = 14ms > 10ms, a
/// miss (two sections of a can fall in one window of b: one at the end of
/// a job released 5ms late, one at the start of the next). Alone on its
/// CPU with U = 0.6 and no local blocking, b passes both utilization
/// bounds; before they learnt of agents, the hyperbolic bound called this
/// system schedulable (found by the property test
/// `bounds_imply_rta_and_ll_implies_hyperbolic`).
#[test]
fn utilization_bounds_do_not_apply_on_a_synchronization_cpu_with_tasks() {
    let r = run(&sys(r#"
[platform]
cpus = 2
protocol = "dpcp"
[[resource]]
name = "r"
sync_cpu = 1
[[task]]
name = "a"
period = "10ms"
priority = 2
cpu = 0
body = [ { compute = "1ms" }, { lock = "r", hold = "4ms" } ]
[[task]]
name = "b"
period = "10ms"
priority = 1
cpu = 1
body = [ { compute = "6ms" } ]
"#));
    assert_eq!(bounded(task(&r, "a").response), Time::from_ms(5));
    assert_eq!(task(&r, "b").verdict, Verdict::NotSchedulable);
    utilization_bounds_refused(&r, "CPU 1", "task a");
}

/// Both utilization bounds report themselves not applicable, naming the
/// CPU and the task whose sections its agents run; the system's verdict is
/// the response-time analysis's miss.
fn utilization_bounds_refused(r: &rtsync_analysis::SystemResult, cpu: &str, task: &str) {
    for t in [Test::LiuLayland, Test::Hyperbolic] {
        let o = r.tests.iter().find(|o| o.test == t).unwrap();
        assert_eq!(o.verdict, Verdict::NotApplicable, "{t:?}");
        let why = o.detail.as_deref().unwrap();
        assert!(why.contains(cpu) && why.contains(task), "{why}");
    }
    assert_eq!(r.verdict, Verdict::NotSchedulable);
}

/// The agents of a synchronization CPU run the sections of its own tasks
/// too, above every task there: `h` (1ms every 3ms) can wait for `l`'s
/// 2.5ms section, begun just before `h`'s release, and respond at 3.5ms,
/// past its deadline, while CPU 1's utilization (1/3 + 3.5/100 = 0.37)
/// passes both utilization bounds, whose task model has no such blocking.
/// They must not apply (found by `bounds_imply_rta_and_ll_implies_hyperbolic`
/// once the partitioning put tasks on synchronization CPUs).
#[test]
fn utilization_bounds_do_not_apply_where_agents_run_a_lower_tasks_sections() {
    let r = run(&sys(r#"
[platform]
cpus = 2
protocol = "dpcp"
[[resource]]
name = "r"
sync_cpu = 1
[[task]]
name = "u"
period = "10ms"
priority = 3
cpu = 0
wcet = "1ms"
[[task]]
name = "h"
period = "3ms"
priority = 2
cpu = 1
wcet = "1ms"
[[task]]
name = "l"
period = "100ms"
priority = 1
cpu = 1
body = [ { compute = "1ms" }, { lock = "r", hold = "2500us" } ]
"#));
    assert_eq!(task(&r, "h").verdict, Verdict::NotSchedulable);
    utilization_bounds_refused(&r, "CPU 1", "task l");
}

/// DFLP: FIFO, one section of every other task: t1 waits t3 2ms + t2 0.5ms
/// and runs its own 1ms: W = 3.5ms; R = 2 + 3.5 = 5.5ms.
#[test]
fn dflp_hand_worked() {
    let r = run(&sys(&MP.replace("PROTO", "dflp")));
    assert_eq!(task(&r, "t1").blocking.remote, us(3500));
    assert_eq!(bounded(task(&r, "t1").response), us(5500));
}

/// DPCP and DFLP run each section on the synchronization CPU while the job
/// suspends, so a job waits for *each* of its sections as it is. `a`
/// (CPU 0) locks G for 1ms and then for 3ms; `b` (CPU 1, lower priority)
/// holds G for 2ms, once per job; CPU 2 serves G. DPCP, per request: its
/// own section plus one lower section (b's 2ms, G's ceiling is a's
/// priority): (1 + 2) + (3 + 2) = 8ms; the job window, one section of b
/// in the window (b's period 100ms), caps it at 1 + 3 + 2 = 6ms. DFLP,
/// per request: its own section plus one section of every other task
/// there (b's 2ms): the same 8ms, and no job-window form in the classic
/// analysis. Counting the task's longest section for each request (3ms
/// twice) gave 8 and 10ms.
#[test]
fn distributed_protocols_wait_for_each_section_as_it_is() {
    let text = r#"
[platform]
cpus = 3
protocol = "PROTO"
[[resource]]
name = "G"
sync_cpu = 2
[[task]]
name = "a"
period = "20ms"
priority = 2
cpu = 0
body = [ { lock = "G", hold = "1ms" }, { compute = "1ms" }, { lock = "G", hold = "3ms" } ]
[[task]]
name = "b"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "G", hold = "2ms" } ]
"#;
    for (p, want) in [("dpcp", 6), ("dflp", 8)] {
        let r = run(&sys(&text.replace("PROTO", p)));
        let a = task(&r, "a");
        assert_eq!(a.blocking.remote, Time::from_ms(want), "{p}");
        // Execution 1ms on its CPU, and the wait.
        assert_eq!(bounded(a.response), Time::from_ms(1 + want), "{p}");
    }
}

/// DPCP and DFLP, a task whose only request is served on its own CPU does not
/// suspend: its section runs there, as an agent, at a priority above
/// every task's, and the tasks below it are charged for that section
/// through the agents' interference. G is synchronized on CPU 0. `h`
/// (CPU 0) computes 1ms and holds G for 1ms; `r` (CPU 1) computes 1ms and
/// holds G for 2ms; `l` (CPU 0) computes 3ms.
///
/// `R_h = 4ms` (its 2ms, and `r`'s 2ms section run on CPU 0 once);
/// `r` waits 3ms (its 2ms section, and one of `h`'s 1ms sections: in its
/// job's window, `⌈(4 + 4) / 10⌉`, under DPCP; the one FIFO predecessor
/// under DFLP): `R_r = 4ms`. DFLP also charged `h`'s request `r`'s 2ms
/// section in the wait, beside the agents' interference: `R_h = 6ms`. For `l`:
/// `w = 3 + ⌈w / 10⌉ · 1 (h's execution, no jitter) + ⌈(w + 4) / 10⌉ · 1
/// (h's section, an agent) + ⌈(w + 4) / 20⌉ · 2 (r's section)`:
/// 3 → 7 → 8 → 8, so `R_l = 8ms` (the search finds 7ms). Counting `h`'s
/// section as a suspension gave `h` a jitter of 3ms and, suspension as
/// execution, `h` 2ms per job beside the agent's 1ms: 9ms both ways.
#[test]
fn a_request_served_on_the_own_cpu_is_no_suspension() {
    let text = r#"
[platform]
cpus = 2
protocol = "PROTO"
[[resource]]
name = "G"
sync_cpu = 0
[[task]]
name = "h"
period = "10ms"
priority = 3
cpu = 0
body = [ { compute = "1ms" }, { lock = "G", hold = "1ms" } ]
[[task]]
name = "r"
period = "20ms"
priority = 2
cpu = 1
body = [ { compute = "1ms" }, { lock = "G", hold = "2ms" } ]
[[task]]
name = "l"
period = "50ms"
priority = 1
cpu = 0
body = [ { compute = "3ms" } ]
"#;
    for p in ["dpcp", "dflp"] {
        let r = run(&sys(&text.replace("PROTO", p)));
        // h's request waits for its own section alone in its blocking
        // term; r's section, run on CPU 0, is interference.
        assert_eq!(task(&r, "h").blocking.remote, Time::from_ms(1), "{p}");
        assert_eq!(bounded(task(&r, "h").response), Time::from_ms(4), "{p}");
        assert_eq!(bounded(task(&r, "r").response), Time::from_ms(4), "{p}");
        assert_eq!(bounded(task(&r, "l").response), Time::from_ms(8), "{p}");
    }
}

/// FMLP-S and MSRP: non-preemptive FIFO spin, one request per other CPU.
/// t1 (CPU 0) spins for CPU 1's 0.5ms section (CPU 0's other user, t3, is
/// not counted: it cannot spin while t1 runs non-preemptively... but it
/// can hold G when t1 arrives, which is local blocking): spin = 0.5ms.
/// Local: t3's spin (0.5ms, for CPU 1) + its 2ms section = 2.5ms.
/// R = 3 + 0.5 + 2.5 = 6ms.
#[test]
fn spin_protocols_hand_worked() {
    for p in ["fmlp-s", "msrp"] {
        let r = run(&sys(&MP.replace("PROTO", p)));
        let t1 = task(&r, "t1");
        assert_eq!(t1.blocking.spin, us(500), "{p}");
        assert_eq!(t1.blocking.local, us(2500), "{p}");
        assert_eq!(bounded(t1.response), Time::from_ms(6), "{p}");
    }
}

/// MrsP (Burns and Wellings 2013): G is used on 2 CPUs, longest section
/// 2ms: each access costs e = 2 x 2 = 4ms. t1 pays 4ms per access (3ms
/// beyond its own 1ms section: spin), and can be blocked by t3's access
/// (local ceiling of G on CPU 0 is 2 >= t1's priority): 4ms.
/// R = 3 + 3 + 4 = 10ms.
#[test]
fn mrsp_hand_worked() {
    let r = run(&sys(&MP.replace("PROTO", "mrsp")));
    let t1 = task(&r, "t1");
    assert_eq!(t1.blocking.spin, Time::from_ms(3));
    assert_eq!(t1.blocking.local, Time::from_ms(4));
    assert_eq!(bounded(t1.response), Time::from_ms(10));
}

/// DPCP, a request served on the job's own CPU: a (CPU 0, which serves r)
/// holds r 1ms; b (CPU 1) holds it 3ms, on CPU 0. b's request: own 3ms +
/// a's agent section; per request (ceil(W/20) + 1) x 1ms -> 5ms, job window
/// ceil((R_b + R_a)/20) x 1ms -> 4ms: R_b = 4ms. a's request waits for its
/// own section alone (1ms): b's agent section on CPU 0 is interference in
/// a's window, ceil((w + R_b)/10) x 3ms: w = 2 + 1 + 3 = 6ms, and
/// ceil((6 + 4)/10) = 1 keeps it there; ceil((4 + 6)/20) = 1 job of a in
/// b's window. Before issue 28 a's request also waited for b's section (a
/// lower section at r's ceiling): counted twice, R_a = 12ms.
#[test]
fn dpcp_request_on_the_own_cpu_waits_for_its_own_section() {
    let r = run(&sys(r#"
[platform]
cpus = 2
protocol = "dpcp"
[[resource]]
name = "r"
sync_cpu = 0
[[task]]
name = "a"
period = "20ms"
priority = 2
cpu = 0
body = [ { compute = "2ms" }, { lock = "r", hold = "1ms" } ]
[[task]]
name = "b"
period = "10ms"
priority = 1
cpu = 1
body = [ { lock = "r", hold = "3ms" } ]
"#));
    assert_eq!(task(&r, "a").blocking.remote, Time::from_ms(1));
    assert_eq!(bounded(task(&r, "a").response), Time::from_ms(6));
    assert_eq!(bounded(task(&r, "b").response), Time::from_ms(4));
}

/// FMLP-L (FMLP+ with issue-time boosting order). Fixed form: t1's
/// request is delayed by one section of every other task that uses G or
/// shares a CPU with a user: t3 (2ms) + t2 (0.5ms) = 2.5ms; local: t3's
/// section at release and after the request, 2 x 2 = 4ms; 6.5ms in all.
/// Job window (Brandenburg 2011, Sec. 6.4.3): one job of t3 and of t2
/// overlaps t1's window (checked below), each with one request: direct
/// blocking D_0 = 1 (t3), D_1 = 1 (t2). Remote: CPU 1 contends for G once,
/// so t2 contributes min(1, 1) = 1 section: 0.5ms. Local: t1 resumes at
/// most min(1, 2) + 1 = 2 times, but t3 has one request in the window:
/// 2ms. 2.5ms < 6.5ms, so R_1 = 3 + 0.5 + 2 = 5.5ms. t3 (under t1, whose
/// suspension makes it jitter R_1 - C_1 = 2.5ms): 2 + 0.5 (t2) +
/// ceil((w + 2.5)/10) 3 -> 5.5ms; R_1 + R_3 = 11ms < 40ms: one job of t3.
#[test]
fn fmlp_l_hand_worked() {
    let r = run(&sys(&MP.replace("PROTO", "fmlp-l")));
    let t1 = task(&r, "t1");
    assert_eq!(t1.blocking.remote, us(500));
    assert_eq!(t1.blocking.local, Time::from_ms(2));
    assert_eq!(bounded(t1.response), us(5500));
    assert_eq!(bounded(task(&r, "t3").response), us(5500));
}

/// Asserts task `name`'s remote and local blocking and its response
/// bound, in milliseconds.
fn assert_blocking(
    r: &rtsync_analysis::SystemResult,
    name: &str,
    [remote, local, response]: [u64; 3],
) {
    let t = task(r, name);
    assert_eq!(t.blocking.remote, Time::from_ms(remote), "{name}: remote");
    assert_eq!(t.blocking.local, Time::from_ms(local), "{name}: local");
    assert_eq!(
        bounded(t.response),
        Time::from_ms(response),
        "{name}: response"
    );
}

/// FMLP-L job window, the remote term's count `min(D_c, I_c)`
/// (`data/fmlp-l-remote-count.toml`, which the simulator's search tries
/// too: `rtsync-sim/tests/soundness.rs`). `a` (CPU 0) requests G once and
/// K once; `b` and `c` (CPU 1) each hold G 1ms and
/// their own H 2ms; `z` (CPU 0, below `a`) holds L 3ms. All periods are
/// 100ms, so every task has one job in `a`'s window.
/// Direct blocking from CPU 1: `b` and `c` each have one G request queued
/// ahead of one of `a`'s, `D_1 = min(1, 1) + min(1, 1) = 2`, but CPU 1
/// contends only for G, which `a` requests once: `I_1 = 1`. So each task
/// of CPU 1 charges its `min(2, 1) = 1` longest section (H, 2ms): remote
/// 4ms (charging both sections of each, as `D_1` alone would, gives 6ms).
/// Local: `a` resumes `min(2, 2) + 1 = 3` times, `z` has one section: 3ms.
/// The fixed form is larger: G's wait is every section of CPUs 0 and 1
/// but `a`'s, 3 + 2 + 2 = 7ms, K's (CPU 0 alone) 3ms, and `z` at each of
/// 3 points 9ms: 19ms against the window's 7ms. R_a = 2 + 4 + 3 = 9ms.
#[test]
fn fmlp_l_remote_count_is_capped_by_the_contended_requests() {
    let r = run(&sys(include_str!("data/fmlp-l-remote-count.toml")));
    assert_blocking(&r, "a", [4, 3, 9]);
}

/// FMLP-L job window, the direct-blocking count and the resumptions
/// (`data/fmlp-l-direct-count.toml`). `a` (CPU 0) requests G once and K twice (`N_a = 3`); `b` (CPU 1) holds G
/// three times and K once, 2ms each; `z` (CPU 0, below `a`) holds L four
/// times, 1ms each. Periods 100ms: one job each in `a`'s window.
/// `D_1 = min(3, N_{a,G} = 1) + min(1, N_{a,K} = 2) = 2`: `b`'s three G
/// requests can be ahead of only `a`'s one (uncapped, 4). CPU 1 contends
/// for both groups, `I_1 = 3`, so `b` charges its `min(2, 3) = 2` longest
/// sections: remote 4ms (with `D_1` uncapped, 3 sections, 6ms). `a` waits
/// at most `Σ D_c = 2` times, so it resumes `min(3, 2) + 1 = 3` times and
/// `z` charges three of its sections: local 3ms (`N_a + 1` resumptions
/// would give 4ms, leaving out the release 2ms). The fixed form: G's and
/// K's waits are each every section of CPUs 0 and 1 but `a`'s, 1 + 2 =
/// 3ms, 9ms for three requests, and `z`'s 1ms at 4 points: 13ms against
/// 7ms. R_a = 3 + 4 + 3 = 10ms.
#[test]
fn fmlp_l_direct_blocking_and_resumptions_are_capped() {
    let r = run(&sys(include_str!("data/fmlp-l-direct-count.toml")));
    assert_blocking(&r, "a", [4, 3, 10]);
}

/// FMLP-L job window, a remote task with several jobs in the window
/// (`data/fmlp-l-remote-jobs.toml`). `a` (CPU 0, T 100ms) requests G three times, 1ms each; `b` (CPU 1, T 4ms)
/// requests G once, 1ms. `b`: its one request waits for one of `a`'s
/// (both forms: 1ms), R_b = 2ms. `a`: `b` has `⌈(R_a + 2) / 4⌉` jobs in
/// its window, each with one request: `D_1 = min(jobs, 3)` sections of
/// `b`, 1ms each, so `R_a = 3 + min(⌈(R_a + 2) / 4⌉, 3) · 1ms`, least at
/// 5ms (`⌈7 / 4⌉ = 2`): remote 2ms (charging `b` one job in the window
/// would give 1ms). The fixed form charges `b`'s section per request,
/// 3ms, more. R_a = 5ms.
#[test]
fn fmlp_l_counts_every_job_of_a_remote_task_in_the_window() {
    let r = run(&sys(include_str!("data/fmlp-l-remote-jobs.toml")));
    assert_eq!(bounded(task(&r, "b").response), Time::from_ms(2));
    assert_blocking(&r, "a", [2, 0, 5]);
}

/// FMLP-L, three jobs of one remote task meeting three requests of one
/// job (`data/fmlp-l-carry-in.toml`). `a` (CPU 0, T 100ms) requests G
/// three times, 1ms sections, 2.25ms of computation between; `b` (CPU 1,
/// T 4ms) requests G once, 1ms. R_b = 1 + 1 = 2ms (one of `a`'s sections
/// ahead). `a`'s job window: `b` has `⌈(R_a + 2) / 4⌉` jobs, `D_1 =
/// min(jobs, 3)`, so `R_a = 7.5 + min(⌈(R_a + 2) / 4⌉, 3) · 1ms`: 7.5 →
/// ⌈9.5/4⌉ = 3 → 10.5 → ⌈12.5/4⌉ = 4, capped at 3 → 10.5ms. The fixed
/// form charges `b`'s section per request, 3ms too. A schedule reaches
/// it: `b` locks just before `a`'s release, and each of its next two
/// jobs, released late by its sporadic delay, just before one of `a`'s
/// later requests (4.25 and 8.5ms in: each at least 4ms after the one
/// before). The simulator's search finds it (rtsync-sim `soundness.rs`).
/// Counting the window's jobs with a floor, `⌊(R_a + R_b) / T_b⌋`, would
/// stop at 9.5ms (`⌊11.5/4⌋ = 2`).
#[test]
fn fmlp_l_three_jobs_of_a_remote_task_meet_three_requests() {
    let r = run(&sys(include_str!("data/fmlp-l-carry-in.toml")));
    assert_eq!(bounded(task(&r, "b").response), Time::from_ms(2));
    let a = task(&r, "a");
    assert_eq!(a.blocking.remote, Time::from_ms(3));
    assert_eq!(a.blocking.local, Time::ZERO);
    assert_eq!(bounded(a.response), Time::from_us(10_500));
}

/// The FMLP with short and long resources, a job that self-suspends
/// (`data/fmlp-mixed-suspensions.toml`). `H` (CPU 0, top priority)
/// computes 0.5ms, suspends 1ms, twice, and computes 0.5ms; `L` (CPU 0,
/// below) holds the short resource S three times, 1ms each, 0.2ms apart;
/// R and Q share the long LG on CPU 1, which makes the system mixed. `H`
/// requests nothing, so it resumes `0 + 2 + 1 = 3` times (its release and
/// two suspensions), and at each `L` may be inside a non-preemptive short
/// section (spin 0: nobody else uses S): local 3 · 1ms. R_H = 1.5 + 2
/// (suspended) + 3 = 6.5ms. Charging the short section once, as at the
/// release alone, would give 4.5ms; the simulator's search finds 5.5ms
/// (L trimmed to lock just before `H` resumes).
#[test]
fn fmlp_mixed_short_sections_block_at_every_resumption() {
    let r = run(&sys(include_str!("data/fmlp-mixed-suspensions.toml")));
    let h = task(&r, "H");
    assert_eq!(h.blocking.remote, Time::ZERO);
    assert_eq!(h.blocking.local, Time::from_ms(3));
    assert_eq!(bounded(h.response), Time::from_us(6_500));
}

/// Paper 003's Table I application under DPCP: H0's request on r3 (sync
/// CPU 3) waits for one lower section (the L tasks' 400us; every ceiling is
/// 5) and for H1 and H2 (priority 5, equal counts as higher). Per request,
/// each (ceil(w/20) + 1) x 150us: w = 150 + 400 + 2 x 2 x 150 = 1150us. Job
/// window: each ceil((R_H0 + R_Hx)/20) x 150us, one job each while the
/// windows stay under 20ms (the H tasks are alike: R = 1.5 + 0.85 =
/// 2.35ms each, 4.7ms together): 150 + 400 + 2 x 150 = 850us.
#[test]
fn table1_dpcp_request_bound() {
    let r = run(&example("rtems-table1.toml"));
    assert_eq!(task(&r, "H0").blocking.remote, us(850));
    assert_eq!(bounded(task(&r, "H0").response), us(1500 + 850));
}

/// DPCP job window, the lower sections (`data/dpcp-lower-sections.toml`).
/// G and H are served on CPU 2. `a` (CPU 0, priority 10) requests G
/// twice, 1ms each; `h` (CPU 1, 20) holds G 1ms; `z` (CPU 1, 5) holds G
/// twice, 2ms each; `y` (CPU 1, 4) holds H 3ms. G's ceiling is 20, H's 4.
/// All periods 100ms: one job of each in any window here. Per request:
/// `W = 1 + 2 (z, the one lower section whose ceiling reaches 10) +
/// (⌈W / 100⌉ + 1) · 1 (h) = 5ms`, 10ms for both. Job window: own
/// sections 2ms, `h`'s one job 1ms, and one lower section per request of
/// `a`, longest first among those whose resource's ceiling reaches 10:
/// not `y`'s H (ceiling 4, below `a`: PCP among the agents never lets it
/// block `a`'s requests), so both of `z`'s, 4ms. 7ms < 10ms: R_a = 7ms
/// (all of `a`'s work runs on CPU 2). One lower section per job in place
/// of per request would give 5ms, and `y`'s H let in 8ms.
#[test]
fn dpcp_job_window_charges_one_reachable_lower_section_per_request() {
    let r = run(&sys(include_str!("data/dpcp-lower-sections.toml")));
    assert_blocking(&r, "a", [7, 0, 7]);
    assert_eq!(bounded(task(&r, "h").response), Time::from_ms(3));
}

/// DPCP job window, job counts (`data/dpcp-window-jobs.toml`). G on CPU 2;
/// `a` (CPU 0, priority 10, T 100ms) requests it three times, 1ms each;
/// `h` (CPU 1, 20, T 10ms) once, 1ms; `z` (CPU 1, 5, T 10ms) once, 2ms.
/// `h`: one lower section (`z`'s 2ms) in both forms: R_h = 3ms. `z`: per
/// request `2 + (⌈W/10⌉ + 1) · 1 + (⌈W/100⌉ + 1) · 3 = 10ms`; job window
/// `2 + ⌈(R_z + 3)/10⌉ · 1 + ⌈(R_z + R_a)/100⌉ · 3 = 6ms`: R_z = 6ms.
/// `a`'s job window: `3 + ⌈(R_a + 3)/10⌉ · 1 + min(⌈(R_a + 6)/10⌉, 3) ·
/// 2ms`, which is 6 up to R_a = 4, 8 up to 7 and 9 up to 14: least fixed
/// point 9ms, where `h` has two jobs (its carry-in `R_h` counted) and `z`
/// two, each with a section that can block one of `a`'s requests. Per
/// request: `1 + 2 + (⌈W/10⌉ + 1) · 1 = 5ms`, 15ms for three. R_a = 9ms;
/// without the carry-in 8ms, with one job of `z` 6ms.
#[test]
fn dpcp_job_window_counts_the_jobs_in_the_window() {
    let r = run(&sys(include_str!("data/dpcp-window-jobs.toml")));
    assert_eq!(bounded(task(&r, "h").response), Time::from_ms(3));
    assert_eq!(bounded(task(&r, "z").response), Time::from_ms(6));
    assert_blocking(&r, "a", [9, 0, 9]);
}

/// The same file under `--analysis fixed`: each request's wait on its
/// own, no job window. `h`: 3ms as before. `z`: its 2ms section and
/// `W = (⌈W/10⌉ + 1) · 1 + (⌈W/100⌉ + 1) · 3`, from 4 to 8ms: R_z = 10ms,
/// its deadline (the job window's 6ms left 4ms). `a`: per request its
/// 1ms, `z`'s 2ms as the lower section and `(⌈W/10⌉ + 1) · 1` of `h`, `W
/// = 4ms`: 5ms each, 15ms for the three, where the job window gave 9ms.
#[test]
fn dpcp_fixed_forms_charge_each_request_apart() {
    let o = Options {
        form: BoundForm::Fixed,
        ..Options::default()
    };
    let s = sys(include_str!("data/dpcp-window-jobs.toml"));
    let r = analyze(&s, &o).unwrap().result;
    assert_eq!(bounded(task(&r, "h").response), Time::from_ms(3));
    assert_eq!(bounded(task(&r, "z").response), Time::from_ms(10));
    assert_blocking(&r, "a", [15, 0, 15]);
}

/// DPCP, a per-request wait past the deadline
/// (`data/dpcp-window-past-per-request.toml`). G on CPU 2; `h` (CPU 0,
/// priority 20, T 20ms) holds it 5ms; `l` (CPU 1, 10, T 30ms, D 10ms)
/// computes 1ms and holds it 1ms. `h`: its section and `l`'s as the one
/// lower section, R_h = 6ms. `l` per request: `W = 1 + (⌈W/20⌉ + 1) · 5
/// = 11ms`, past D = 10ms. Job window: `1 + ⌈(R_l + 6)/20⌉ · 5 = 6ms` up
/// to R_l = 14ms, so R_l = 1 + 6 = 7ms: `l` released as `h`'s section
/// starts waits all of it, which the simulator reaches. The window bounds
/// the wait on its own; before 2026-12-01 a per-request wait past the
/// deadline kept its CPU's wait unbounded and `l` was refused. SchedCAT's
/// `dpcp` gives the same 6ms and 7ms on this file (measured through
/// `scripts/schedcat/build.sh`'s port; the case was found side by side on
/// random shapes).
#[test]
fn dpcp_job_window_bounds_a_wait_the_per_request_form_cannot() {
    let r = run(&sys(include_str!("data/dpcp-window-past-per-request.toml")));
    assert_eq!(bounded(task(&r, "h").response), Time::from_ms(6));
    assert_blocking(&r, "l", [6, 0, 7]);
}

/// DFLP and DPCP, a lower task's agents on the job's CPU
/// (`data/dflp-lower-agents-capped.toml`). `i` (CPU 0) computes 1.5ms and
/// asks for s, served on CPU 1 for 1ms: two arrivals (release and
/// resumption). `x`, below it on CPU 0 every 4.4ms, holds q 2ms, served on
/// CPU 0 by agents above every task. `x`: its 2ms and `i`'s 1.5ms, R_x =
/// 3.5ms. `i`: `w = 1.5 + 1 + min(2 · 2, ⌈(w + 3.5)/4.4⌉ · 2)`: at w =
/// 2.5, two jobs of `x` (4ms) against the cap (4ms), 6.5; at 6.5 three
/// jobs (6ms) against 4ms: R_i = 6.5ms. Before 2026-12-02 the cap was
/// taken only where it was at most one job's work (2ms), so the three
/// jobs were charged: `2.5 + 6 = 8.5ms`. Released 1ns after `x`'s
/// request, `i` waits 2ms for it, computes, and resumes at 4.5ms into the
/// agent of `x`'s next job (released at 4.4ms): 6.4ms less 1ns, which
/// rtsync-sim's `a_lower_tasks_agents_are_capped_at_every_step` searches
/// out (a sporadic `x` released at 4.5ms less a nanosecond reaches the
/// bound).
#[test]
fn a_lower_tasks_agents_are_capped_at_every_step() {
    let text = include_str!("data/dflp-lower-agents-capped.toml");
    for protocol in ["dflp", "dpcp"] {
        let r = run(&sys(&text.replace("\"dflp\"", &format!("\"{protocol}\""))));
        assert_eq!(bounded(task(&r, "x").response), us(3_500), "{protocol}");
        assert_eq!(bounded(task(&r, "i").response), us(6_500), "{protocol}");
    }
}

/// DPCP, a lower agent holding the requested resource nested
/// (`data/dpcp-nested-lower-agent.toml`). `h` computes 100us and asks for
/// q (600us, served on CPU 1); `l`, below it, holds p 100us and q inside
/// it 200us, both served on CPU 1. Per request: `W = 600 + 200` (the
/// longest lower section on q, whose ceiling is `h`'s priority; p's is
/// `l`'s, below). Job window: its own 600us, no task above, and one lower
/// section per request on a resource whose ceiling reaches `h`: `l`'s
/// 200us on q, nested or not: 800us. `R_h = 100 + 800 = 900us`. Before
/// 2026-12-02 the job window took `l`'s *outermost* section on q, which it
/// has none of, and gave 700us; rtsync-sim's test of the same name
/// searches the schedule out.
#[test]
fn dpcp_a_lower_agent_holding_the_resource_nested() {
    let s = sys(include_str!("data/dpcp-nested-lower-agent.toml"));
    for form in [BoundForm::Classic, BoundForm::Lp] {
        let opts = Options {
            form,
            ..Options::default()
        };
        let r = analyze(&s, &opts).unwrap().result;
        assert_eq!(bounded(task(&r, "h").response), us(900), "{form:?}");
    }
}

/// DFLP and DPCP, a lower task's longest request instances
/// (`data/dflp-lower-instances.toml`). `i` computes 1.5ms and asks for s
/// (1ms, served on CPU 1): two arrivals. `x`, below it, has sections of
/// 2, 0.5 and 0.5ms served on CPU 0 by agents above every task, and one
/// job in the window (period 100ms). At most one of its requests is in
/// progress at each arrival: the two longest instances, 2 + 0.5ms, so
/// `R_i = 1.5 + 1 + 2.5 = 5ms`. The coarser charges: `2 · 2 = 4ms` and
/// the job's 3ms, whose smaller gave 5.5ms before 2026-12-02. `i`
/// released as `x`'s first request starts, and resuming as `x` asks for
/// its second after computing 1ms, ends at 5ms less a little, which
/// rtsync-sim's `a_lower_tasks_longest_instances_are_charged` searches
/// out (4.97ms).
#[test]
fn a_lower_tasks_longest_instances_are_charged() {
    let text = include_str!("data/dflp-lower-instances.toml");
    for protocol in ["dflp", "dpcp"] {
        let r = run(&sys(&text.replace("\"dflp\"", &format!("\"{protocol}\""))));
        assert_eq!(bounded(task(&r, "i").response), us(5_000), "{protocol}");
    }
}

/// DPCP, a higher agent whose section holds another served on the same
/// CPU (`data/dpcp-nested-load.toml`): `x`'s r1 section (3ms) holds r2
/// for 1ms of it, both served on CPU 2, so `x`'s agents work 3ms a job
/// there, not 4. `i`'s r2 request: per request `W = 1 + (⌈W/10⌉ + 1) · 3
/// = 7ms`, job window `1 + 1 · 3 = 4ms` (one job of `x` in `i`'s window);
/// R_i = 1 + 4 = 5ms, which rtsync-sim's search reaches to the
/// nanosecond. Counting the nested section again gave 6ms.
#[test]
fn dpcp_a_section_nested_on_the_same_cpu_is_the_agents_work_once() {
    let r = run(&sys(include_str!("data/dpcp-nested-load.toml")));
    assert_eq!(
        task(&r, "i").blocking.remote,
        Delay::Bounded(Time::from_ms(4))
    );
    assert_eq!(bounded(task(&r, "i").response), Time::from_ms(5));
    assert_eq!(bounded(task(&r, "x").response), Time::from_ms(4));
}

/// MPCP, a task above with sections of two lengths on one global resource
/// (`data/mpcp-section-lengths.toml`): `x` (T 20ms) holds g 1ms and then
/// 3ms a job. `i`'s wait charges each job of `x` its two sections at their
/// own lengths, `W = (⌈W/20⌉ + 1) · (1 + 3) = 8ms` (one job, plus the one
/// the classic count adds), so R_i = 1 + 1 + 8 = 10ms. Each at `x`'s
/// longest (`N · cs`, 6ms a job) gave W = 12ms, R_i = 14ms.
#[test]
fn mpcp_a_wait_charges_each_section_at_its_own_length() {
    let r = run(&sys(include_str!("data/mpcp-section-lengths.toml")));
    assert_eq!(
        task(&r, "i").blocking.remote,
        Delay::Bounded(Time::from_ms(8))
    );
    assert_eq!(bounded(task(&r, "i").response), Time::from_ms(10));
}

/// MSRP, the LP's joint spin bound beside a suspending job above
/// (`data/msrp-lp-suspending-above.toml`). g is global; a request spins
/// for one section of the other CPU: `h`'s and `i`'s for `x`'s 1ms, `x`'s
/// for 1ms. `h` (CPU 0, T 10ms): 3ms of execution and 1ms of spin, a
/// 0.5ms suspension, and at each of its two arrivals `i`'s spin and
/// section (1.5ms): R_h = 4 + 0.5 + 3 = 7.5ms. Classic, `i`: its 2.5ms and
/// 1ms of spin, 3.5ms; `h` by form 1, `⌈(w + 3.5)/10⌉ · 4` (jitter R_h -
/// C_h), or form 2, `⌈w/10⌉ · 4.5` (its suspension too): 3.5 + 4 = 7.5,
/// then form 1 counts two jobs (8) and form 2 one (4.5): R_i = 8ms. The
/// LP's joint bound counts the jobs of `h` that can spin in `i`'s window
/// with `h`'s response as jitter, `⌈(w + 7.5)/10⌉` = 2, so three local
/// requests against `x`'s three or more instances: 3ms, with `h` charged
/// its execution alone (form 1 `⌈(w + 4.5)/10⌉ · 3`, form 2 3.5): 5.5 +
/// 3 = 8.5, then 5.5 + 3.5 = 9ms. Both bound `i`'s response; before
/// 2026-12-02 the LP form gave 9ms, above the classic 8ms, which the
/// LP form promises never to be. It now solves the classic demand too
/// where a job above suspends and keeps the smaller, and `i`'s row then
/// shows the classic terms (spin 1ms, as the classic form's row), not the
/// joint bound's 3ms that did not decide it.
#[test]
fn an_lp_bound_never_exceeds_the_classic_one_where_a_job_above_suspends() {
    let s = sys(include_str!("data/msrp-lp-suspending-above.toml"));
    for form in [BoundForm::Classic, BoundForm::Lp] {
        let r = analyze(
            &s,
            &Options {
                form,
                ..Options::default()
            },
        )
        .unwrap()
        .result;
        assert_eq!(bounded(task(&r, "h").response), us(7_500), "{form:?}");
        assert_eq!(
            bounded(task(&r, "i").response),
            Time::from_ms(8),
            "{form:?}"
        );
        assert_eq!(
            task(&r, "i").blocking.spin,
            Delay::Bounded(Time::from_ms(1)),
            "{form:?}"
        );
    }
}

/// FP, the suspension-oblivious form once a job above resumes into a
/// lower section (`data/oblivious-reopened-ipcp.toml`, one CPU, IPCP; the
/// DPCP twin below). `h` (T 24ms) computes 4ms, suspends twice (10us
/// each) and locks r0 (ceiling 3); `x` (below `i`) holds r0 6ms twice.
/// `h`: three arrivals, each blocked by one of `x`'s sections: B_h = 18ms,
/// R_h = 4 + 0.02 + 18 = 22.02ms. `i` (C 9ms, its own arrival blocked
/// once): form 1, `h` with jitter R_h - C_h = 18.02ms: `w = 9 + 6 +
/// ⌈(w + 18.02)/24⌉ · 4` = 19, then 23 (two jobs), then 23. Form 2
/// charged `h` its execution and suspension alone, `9 + 6 + ⌈w/24⌉ ·
/// 4.02 = 19.02ms`, below the schedule `h` and `x` at 0, `i` at 6.04ms
/// (22.962ms, rtsync-sim's soundness test): each of `x`'s sections starts
/// as `h` suspends and holds it back once it resumes, which pushes `h`'s
/// job into `i`'s window beside `h`'s next. Form 2 now charges `h` the
/// sections it can meet, `min(B_h, resumptions · B_i) = min(18, 2 · 6)`
/// (two suspensions; an IPCP lock never suspends; `B_i`, a section that
/// blocks `i` once, bounds any that holds back `h`): `9 + 6 + ⌈w/24⌉ ·
/// 16.02`, 31.02 and above, past form 1: R_i = 23ms.
#[test]
fn oblivious_form_charges_a_suspending_jobs_blocking_ipcp() {
    let r = run(&sys(include_str!("data/oblivious-reopened-ipcp.toml")));
    assert_eq!(task(&r, "h").blocking.local, Time::from_ms(18));
    assert_eq!(bounded(task(&r, "h").response), us(22_020));
    assert_eq!(bounded(task(&r, "i").response), Time::from_ms(23));
}

/// FP, the suspension-oblivious form where the section that holds back a
/// resumed job above is the analysed task's own previous job's
/// (`data/oblivious-previous-job.toml`, one CPU, IPCP). `i` is the lowest
/// task (C 13.002ms, two 6ms sections on r0), so `B_i = 0` and form 2
/// charges `h` (C 4ms, two 10us suspensions) `4.02 + min(B_h, 2 · B_i) =
/// 4.02ms` a job: `w = 13.002 + ⌈w/24⌉ · 4.02 = 17.022ms`. Form 1, `h`
/// with jitter `R_h - C_h = 22.02 - 4 = 18.02` (`B_h`: three arrivals,
/// each one of `i`'s 6ms sections, 18ms): `13.002 + ⌈(w + 18.02)/24⌉ · 4`
/// = 21.002ms. So R_i = 17.022ms, which the busy-window argument allows
/// only because it is within `i`'s period (docs/ANALYSIS.md, "Forms 1
/// and 2 task by task"); rtsync-sim's soundness test searches it with the
/// period at the bound.
#[test]
fn oblivious_form_needs_no_charge_for_the_previous_jobs_sections() {
    let r = run(&sys(include_str!("data/oblivious-previous-job.toml")));
    assert_eq!(task(&r, "i").blocking.local, Time::ZERO);
    assert_eq!(task(&r, "h").blocking.local, Time::from_ms(18));
    assert_eq!(bounded(task(&r, "h").response), us(22_020));
    assert_eq!(bounded(task(&r, "i").response), us(17_022));
}

/// DPCP, the agents' form of the case above
/// (`data/oblivious-reopened-dpcp.toml`): `h`'s two sections run on CPU
/// 1 (10us each), `x`'s two 6ms sections on CPU 0, `h` and `i`'s CPU,
/// above every task. `h`: its execution and remote 20us, and `x`'s agents,
/// one section per arrival (three) capped by their 12ms per job: R_h =
/// 4.02 + 12 = 16.02ms. `i`: one of `x`'s sections at its arrival; form 1
/// with `h`'s jitter 16.02 - 4 = 12.02: `w = 9 + 6 + ⌈(w + 12.02)/24⌉ · 4`
/// = 19, then 23, then 23. Form 2 charged `h` 4.02ms a job, 19.02ms (the
/// same schedule gives 22.962ms); now 4.02 plus `x`'s sections at `h`'s
/// two resumptions, 12ms: `9 + 6 + ⌈w/24⌉ · 16.02` = 31.02, past form 1.
/// R_i = 23ms.
#[test]
fn oblivious_form_charges_a_suspending_jobs_blocking_dpcp() {
    let r = run(&sys(include_str!("data/oblivious-reopened-dpcp.toml")));
    assert_eq!(bounded(task(&r, "h").response), us(16_020));
    assert_eq!(bounded(task(&r, "i").response), Time::from_ms(23));
}

/// DPCP per request, the lower blocker (`data/dpcp-request-blocker.toml`):
/// as `dpcp-lower-sections` but `a` computes 10ms and requests G once,
/// and `h` (T 4ms) holds G 500us. Per request: `W = 1 + 2 (z; not y's H,
/// ceiling 4) + (⌈W/4⌉ + 1) · 0.5 = 4ms`. The job window counts `h`'s
/// ⌈(R_a + 2.5)/4⌉ = 5 jobs over `a`'s 14ms window, 5.5ms, so the per
/// request form is kept: remote 4ms, R_a = 10 + 4 = 14ms (with `y`'s 3ms
/// as the blocker, 5.5ms). `h`: one lower section, R_h = 2.5ms.
#[test]
fn dpcp_request_waits_for_one_lower_section_whose_ceiling_reaches_it() {
    let r = run(&sys(include_str!("data/dpcp-request-blocker.toml")));
    assert_blocking(&r, "a", [4, 0, 14]);
    assert_eq!(bounded(task(&r, "h").response), us(2500));
}

/// EDF + SRP, processor demand (hand-worked): a (C 1, D = T 4) and b
/// (C 2, D 6, T 8) share R; b holds it 1.5ms. At L = 4: demand 1 + B 1.5
/// = 2.5 <= 4; at L = 6: 1 + 2 + 1.5 = 4.5 <= 6: schedulable. With b's
/// section 3.5ms (C 3.5): at L = 4, 1 + 3.5 > 4 fails, and Baker's test
/// fails too (1/4 + 3.5/4 > 1).
#[test]
fn edf_demand_and_baker_by_hand() {
    let spec = |cs: &str, c_rest: &str| {
        format!(
            r#"
[platform]
scheduler = "edf"
protocol = "srp"
[[resource]]
name = "R"
[[task]]
name = "a"
period = "4ms"
body = [ {{ compute = "500us" }}, {{ lock = "R", hold = "500us" }} ]
[[task]]
name = "b"
period = "8ms"
deadline = "6ms"
body = [ {{ lock = "R", hold = "{cs}" }}{c_rest} ]
"#
        )
    };
    let ok = run(&sys(&spec("1.5ms", r#", { compute = "500us" }"#)));
    assert_eq!(ok.verdict, Verdict::Schedulable);
    assert_eq!(task(&ok, "a").blocking.local, us(1500));
    assert!(
        ok.tests.iter().all(|t| t.verdict == Verdict::Schedulable),
        "{:?}",
        ok.tests
    );
    let bad = run(&sys(&spec("3.5ms", "")));
    assert_eq!(bad.verdict, Verdict::NotSchedulable);
    demand_fails_at(&bad, "4ms");
    assert_eq!(verdict_of(&bad, Test::EdfBaker), Verdict::NotSchedulable);
}

/// The verdict of one test of `r`.
fn verdict_of(r: &rtsync_analysis::SystemResult, test: Test) -> Verdict {
    r.tests.iter().find(|t| t.test == test).unwrap().verdict
}

/// `r`'s EDF demand test rejects, at the point `L = at`.
fn demand_fails_at(r: &rtsync_analysis::SystemResult, at: &str) {
    let demand = r.tests.iter().find(|t| t.test == Test::EdfDemand).unwrap();
    assert_eq!(demand.verdict, Verdict::NotSchedulable, "{demand:?}");
    let detail = demand.detail.as_deref().unwrap_or_default();
    assert!(detail.contains(&format!("L = {at}")), "{demand:?}");
}

/// EDF + SRP, the blocking term at each point (Baker 1991; Spuri 1996;
/// `data/edf-srp-blocking-points.toml`):
/// at `L` only a job with deadline at most `L` can be blocked, by at most
/// its own blocking `B_i`. `a` (C 1.5, D = T 4) uses no resource; `b`
/// (C 0.5, D = T 6) and `c` (D = T 20) share R, which `c` holds 3ms.
/// R's ceiling is `b`'s preemption level, below `a`'s: `B_a = 0`, `B_b =
/// 3ms`. At L = 4: 1.5 + 0 <= 4 (charging `b`'s 3ms there, 4.5, would
/// fail); L = 6: 1.5 + 0.5 + 3 = 5; L = 8: 3 + 0.5 + 3 = 6.5; L = 12:
/// 4.5 + 1 + 3 = 8.5; L = 16: 6 + 1 + 3 = 10; L = 18: 6 + 1.5 + 3 = 10.5;
/// L = 20: 7.5 + 1.5 + 3 + 3 = 15: schedulable, and Baker's density test
/// agrees (0.375; 0.458 + 3/6; 0.608).
#[test]
fn edf_demand_charges_the_blocking_of_jobs_due_by_the_point() {
    let r = run(&sys(include_str!("data/edf-srp-blocking-points.toml")));
    assert_eq!(task(&r, "a").blocking.local, Time::ZERO);
    assert_eq!(task(&r, "b").blocking.local, Time::from_ms(3));
    assert_eq!(verdict_of(&r, Test::EdfDemand), Verdict::Schedulable);
    assert_eq!(verdict_of(&r, Test::EdfBaker), Verdict::Schedulable);
}

/// EDF with release jitter: a job released up to `J` late still has its
/// deadline `D` after its arrival, so its demand is due `D - J` after its
/// release and the points are `D - J + kT`. One task, C 3, D = T 10, J 8:
/// at L = 2 the demand is 3 > 2 (its response is up to 8 + 3 = 11ms).
/// Checking at `D + kT` alone would find 3 <= 10 and pass.
#[test]
fn edf_demand_points_move_earlier_by_the_jitter() {
    let r = run(&sys(r#"
[platform]
scheduler = "edf"
[[task]]
name = "a"
period = "10ms"
jitter = "8ms"
wcet = "3ms"
"#));
    assert_eq!(r.verdict, Verdict::NotSchedulable);
    demand_fails_at(&r, "2ms");
}

/// EDF + SRP with release jitter, `k` (C 4, D 10, J 5, T 100) beside
/// `b` (C 3, all of it on R; D 8, T 100). `b`'s preemption level is the
/// higher, so the classic term gives `k` no blocking, and the demand test
/// passed (L = 8: 4 + 3 <= 8). But `k` arriving at 0 is released at 5
/// with deadline 10, and `b` arriving at 4.9 holds R from 4.9 with
/// deadline 12.9: R's ceiling, `b`'s level, is above `k`'s, so `k` waits
/// until 7.9 and ends at 11.9 (the simulator's search: 12ms). A job
/// blocks `k`'s when its relative deadline exceeds `D_k - J_k` = 5: `b`'s
/// 8 does, B_k = 3, and at L = 5 (k's window) 4 + 3 = 7 > 5. Without the
/// jitter the system passes (the twin below).
const EDF_JITTER_SECTION: &str = include_str!("data/edf-jitter-section.toml");

/// EDF + SRP with release jitter, the jobs that run whole while a job is
/// kept from starting: `k` (C 2.5, the last 100us on R; D 10, J 5), `y`
/// (C 5, no resource; D 8) and `z` (2.6 then 500us on R; D 20), periods
/// 100. R's ceiling is `k`'s level. `z` arrives at 0 and locks R at 2.6;
/// `y` arrives at 3 (level above R's ceiling: it starts, deadline 11);
/// `k` arrives at 0.5 and is released at 5.5 with deadline 10.5, the
/// earliest, but R's ceiling keeps it from starting: `y` runs to 8, `z`'s
/// section to 8.1, and `k` ends at 10.6, past its deadline (the search:
/// 13ms). One section (B_k = 500us) is not all: `y`, whose deadline
/// 8 lies between `D_k - J_k` = 5 and `D_k` = 10, ran whole, Q_k = 5. At
/// L = 5: 2.5 + 0.5 + 5 = 8 > 5. Without Q the points pass (L = 5: 3;
/// L = 8: 2.5 + 5 + 0.5 = 8; L = 10: 8; L = 20: 11.1), and so does the
/// system without jitter.
const EDF_JITTER_STACK: &str = include_str!("data/edf-jitter-stack.toml");

#[test]
fn edf_jitter_lets_a_higher_level_section_block() {
    let r = run(&sys(EDF_JITTER_SECTION));
    assert_eq!(task(&r, "k").blocking.local, Time::from_ms(3));
    demand_fails_at(&r, "5ms");
    let calm = run(&sys(&EDF_JITTER_SECTION.replace("jitter = \"5ms\"", "")));
    assert_eq!(task(&calm, "k").blocking.local, Time::ZERO);
    assert_eq!(verdict_of(&calm, Test::EdfDemand), Verdict::Schedulable);
}

#[test]
fn edf_jitter_charges_the_jobs_that_run_whole_above_a_held_back_one() {
    let r = run(&sys(EDF_JITTER_STACK));
    assert_eq!(task(&r, "k").blocking.local, Time::from_us(500));
    demand_fails_at(&r, "5ms");
    let calm = run(&sys(&EDF_JITTER_STACK.replace("jitter = \"5ms\"", "")));
    assert_eq!(verdict_of(&calm, Test::EdfDemand), Verdict::Schedulable);
    // Under NPCS no job is kept from starting: the same shape is one
    // section (z's 500us, its deadline after k's window) and passes.
    let np = run(&sys(&EDF_JITTER_STACK.replace("\"srp\"", "\"npcs\"")));
    assert_eq!(verdict_of(&np, Test::EdfDemand), Verdict::Schedulable);
}

/// `EDF_JITTER_STACK` with `r` of two units: `k` takes both, `y` (D 8)
/// one after 4.9 ms of its 5, `z` one. `z` arrives at 0 and holds a unit
/// from 2.6; `y` arrives at 3 and, with a unit free, `r`'s ceiling is the
/// level of the only task that needs more than one, `k`'s (D 10), below
/// `y`'s: `y` starts above the held section, runs to 7.9 and takes the
/// free unit to 8. `k`, arriving at 0.5 and released at 5.5 (deadline
/// 10.5, the earliest), is kept from starting until `z`'s section ends at
/// 8.1, and ends at 10.6. So `y` ran whole, as in `EDF_JITTER_STACK`, but
/// `r`'s highest ceiling is `y`'s own level, so the term for jobs that
/// run whole (those with a level above the lowest ceiling that holds `k`
/// back) left it out, and the test accepted the system. That ceiling is
/// `r`'s with `z`'s unit held, `k`'s level: Q_k = 5 ms, and at L = 5 the
/// demand is 2.5 + 0.5 + 5 = 8 > 5. With `r` of one unit, `y` cannot
/// start above `z`'s section, and the system is schedulable (its twin in
/// rtsync-sim's soundness tests holds under the search).
const EDF_JITTER_MULTIUNIT: &str = include_str!("data/edf-jitter-multiunit.toml");

#[test]
fn edf_jitter_charges_a_job_that_starts_above_a_section_leaving_units_free() {
    let r = run(&sys(EDF_JITTER_MULTIUNIT));
    assert_eq!(task(&r, "k").blocking.local, Time::from_us(500));
    demand_fails_at(&r, "5ms");
    let calm = run(&sys(&EDF_JITTER_MULTIUNIT.replace("jitter = \"5ms\"", "")));
    assert_eq!(verdict_of(&calm, Test::EdfDemand), Verdict::Schedulable);
    let single = EDF_JITTER_MULTIUNIT
        .replace("units = 2\n", "")
        .replace("units = 2, ", "");
    assert_ne!(single, EDF_JITTER_MULTIUNIT);
    let single = run(&sys(&single));
    assert_eq!(verdict_of(&single, Test::EdfDemand), Verdict::Schedulable);
}

/// EDF + NPCS with two self-suspending tasks: `x` (1ms, suspend 3ms,
/// 1ms; D 9.5) and `a` (the same body; D 14) beside `l` (D 90), whose
/// job runs three 2ms sections 2.9ms apart (all periods 100). `l` arrives
/// at 0 and holds r from 0.9; `a` arrives at 1 and waits to 2.9, runs to
/// 3.9 and suspends to 6.9; `l` locks again at 6.8, so `a` resumes into
/// its section, and `x`, arriving at 6.9 (deadline 16.4), waits with it to
/// 8.8; `a` runs to 9.8, `x` to 10.8 and suspends to 13.8; `l` locks at
/// 13.7 and `x` ends at 15.7 + 1 = 16.7, past its deadline. One window
/// (`a`'s and `x`'s jobs) was blocked three times: at its start and at
/// each resumption. The old term, `max_k (S_k + 1)·B_k` = 2 x 2ms,
/// passed (L = 9.5: 5 + 4 <= 9.5; L = 14: 10 + 4 <= 14); the window's
/// arrivals charge (1 + 1 + 1) x 2ms: at L = 14, 10 + 6 > 14. With `a`'s
/// deadline 16 it passes (16 <= 16), and with `a` not suspending, the
/// window's arrivals are two: L = 14, 7 + 4 <= 14 (`a` then 3ms).
const EDF_SUSPENSIONS: &str = include_str!("data/edf-suspensions.toml");

#[test]
fn edf_every_resumption_in_the_window_reopens_blocking() {
    let r = run(&sys(EDF_SUSPENSIONS));
    // Each task's own term is unchanged: one section per arrival.
    assert_eq!(task(&r, "x").blocking.local, Time::from_ms(4));
    assert_eq!(task(&r, "a").blocking.local, Time::from_ms(4));
    demand_fails_at(&r, "14ms");
    assert_eq!(verdict_of(&r, Test::EdfBaker), Verdict::NotSchedulable);
    let later = run(&sys(&EDF_SUSPENSIONS.replace("\"14ms\"", "\"16ms\"")));
    assert_eq!(verdict_of(&later, Test::EdfDemand), Verdict::Schedulable);
    let one = EDF_SUSPENSIONS.replacen(
        r#"{ compute = "1ms" }, { suspend = "3ms" }, { compute = "1ms" } ]
[[task]]
name = "l""#,
        r#"{ compute = "3ms" } ]
[[task]]
name = "l""#,
        1,
    );
    assert_ne!(one, EDF_SUSPENSIONS);
    let one = run(&sys(&one));
    assert_eq!(task(&one, "a").blocking.local, Time::from_ms(2));
    assert_eq!(verdict_of(&one, Test::EdfDemand), Verdict::Schedulable);
}

/// EDF + NPCS, the job a resumption meets can be of any task: `k` (1ms,
/// suspend 8ms, 1ms; D 13, T 100) and `j` (a 2ms section; D 4, T 10.5).
/// `j`'s relative deadline is the shorter, so no job of `j` counts as
/// lower than `k`'s and the classic term is zero: L = 4: 2; L = 13: 10 +
/// 2 = 12; L = 14.5: 10 + 4 = 14, all pass. But `j`'s job arriving at
/// 10.5, while `k` (released at 0, after `j`'s first job, at 2) is
/// suspended, is due at 14.5, after `k`'s 13: it runs, non-preemptively,
/// to 12.5, across `k`'s resumption at 11, and `k` ends at 13.5. At a
/// resumption any other task's job can be the one due after the window:
/// `late_k` = 2ms, and at L = 13: 10 + 2 + 1 x 2 = 14 > 13. With `j`'s
/// period 20 and `k`'s deadline 14 it passes (L = 14: 10 + 2 + 2).
const EDF_SUSPENSION_LATE: &str = include_str!("data/edf-suspension-late.toml");

#[test]
fn edf_a_resumption_meets_the_section_of_any_task_due_after_the_window() {
    let r = run(&sys(EDF_SUSPENSION_LATE));
    assert_eq!(task(&r, "k").blocking.local, Time::ZERO);
    demand_fails_at(&r, "13ms");
    let calm = EDF_SUSPENSION_LATE
        .replace("\"10500us\"", "\"20ms\"")
        .replace("\"13ms\"", "\"14ms\"");
    let calm = run(&sys(&calm));
    assert_eq!(verdict_of(&calm, Test::EdfDemand), Verdict::Schedulable);
}

/// EDF response-time bounds (Spuri 1996) on the bundled
/// `srp-edf-multiunit` example: audio (C 1, D 4, T 5), video (C 3.5, D =
/// T 16), storage (C 4.5, D = T 40); storage's 1ms `dma` section blocks
/// the other two (B 1) from before a window shorter than 40. Longest busy
/// period: 1 + 1 + 3.5 + 4.5 = 10 -> 11 -> 12 (three audio jobs). Audio
/// at its first point (a = 0, d = 4): W = 1 + 1 = 2, R = 2; at a = 5 and
/// 10 the busy period has ended (W = 3, 4). Video at a = 0 (d = 16): W =
/// 3.5 + 1 = 4.5 -> + audio's 1 -> 5.5 -> two audio jobs: 6.5, R = 6.5;
/// at a = 3: R = 3.5. Storage at a = 0 (d = 40): no job is due after 40,
/// so nothing blocks (Baruah's `B(L)`; each task's own term would charge
/// audio's 1 and give 12): 4.5 -> + audio 1 + video 3.5 = 9 -> two audio
/// jobs: 10, R = 10. The simulator's search reaches all three (tests in
/// `rtsync-sim`).
#[test]
fn edf_response_bounds_by_hand() {
    let r = run(&example("srp-edf-multiunit.toml"));
    let got: Vec<Time> = r.tasks.iter().map(|t| bounded(t.response)).collect();
    assert_eq!(got, [us(2000), us(6500), us(10_000)]);
}

/// A CPU that Baker's test accepts is schedulable where the demand test
/// rejects it (`data/edf-baker-alone.toml`: the two charge blocking
/// differently, Baker's through the task that closes each window), and
/// every row says so: a bound within the deadline, not a miss.
#[test]
fn edf_a_cpu_baker_accepts_is_schedulable() {
    let r = run(&sys(include_str!("data/edf-baker-alone.toml")));
    assert_eq!(verdict_of(&r, Test::EdfDemand), Verdict::NotSchedulable);
    assert_eq!(verdict_of(&r, Test::EdfBaker), Verdict::Schedulable);
    assert_eq!(r.verdict, Verdict::Schedulable);
    for t in &r.tasks {
        assert!(bounded(t.response) <= t.deadline, "{}", t.name);
    }
}

/// Utilization bounds (Sha et al. Thm 16; paper 001 Eqs. 2-4), PCP.
/// a: T 10, C 5.9 (uses R 100us); b: T 25, C 5.5; c: T 100, holds R for y.
/// R's ceiling is a's priority, so c blocks both a and b: B_a = B_b = y.
/// Hyperbolic for b: (0.59 + 1)(5.5/25 + y/25 + 1) <= 2 needs y <= 0.947ms:
/// y = 0.5ms gives 1.59 x 1.24 = 1.972 (passes), y = 2ms gives
/// 1.59 x 1.30 = 2.067 (fails). LL for b: 0.59 + 0.22 + y/25 against
/// 2(2^{1/2} - 1) = 0.828: y = 0.5ms gives 0.83 (fails already).
/// RTA for y = 2ms: w_b = 5.5 + 2 + ceil(w/10) 5.9 -> 13.4 -> 19.3 <= 25:
/// schedulable, so the verdict then comes from RTA alone.
#[test]
fn liu_layland_and_hyperbolic_by_hand() {
    let spec = |y: &str| {
        format!(
            r#"
[platform]
protocol = "pcp"
[[resource]]
name = "R"
[[task]]
name = "a"
period = "10ms"
body = [ {{ lock = "R", hold = "100us" }}, {{ compute = "5.8ms" }} ]
[[task]]
name = "b"
period = "25ms"
wcet = "5.5ms"
[[task]]
name = "c"
period = "100ms"
body = [ {{ lock = "R", hold = "{y}" }} ]
"#
        )
    };
    let o = |t| Options {
        tests: t,
        ..Options::default()
    };
    let verdict = |y: &str, t| analyze(&sys(&spec(y)), &o(t)).unwrap().result.verdict;
    assert_eq!(
        verdict("500us", TestSelection::Hyperbolic),
        Verdict::Schedulable
    );
    assert_eq!(verdict("500us", TestSelection::Ll), Verdict::NotSchedulable);
    assert_eq!(
        verdict("2ms", TestSelection::Hyperbolic),
        Verdict::NotSchedulable
    );
    let r = analyze(&sys(&spec("2ms")), &o(TestSelection::All))
        .unwrap()
        .result;
    assert_eq!(bounded(task(&r, "b").response), us(19_300));
    assert_eq!(r.verdict, Verdict::Schedulable);
    assert_eq!(r.decided_by, Some(Test::Rta));
}

/// Paper 001 Eq. 4 with equal priorities and unequal periods is unsound
/// (see bounds::hyperbolic): B (50ms of 100ms) and A (1ms of 10ms) at one
/// priority pass `1.5 x 1.1 <= 2`, yet A can wait 50ms. rtsync reports
/// the bound not applicable, and RTA finds the miss.
#[test]
fn eq4_counterexample_is_refused() {
    let s = sys(r#"
[[task]]
name = "A"
period = "10ms"
priority = 1
wcet = "1ms"
[[task]]
name = "B"
period = "100ms"
priority = 1
wcet = "50ms"
"#);
    let r = run(&s);
    let hb = r.tests.iter().find(|t| t.test == Test::Hyperbolic).unwrap();
    assert_eq!(hb.verdict, Verdict::NotApplicable, "{hb:?}");
    assert_eq!(r.verdict, Verdict::NotSchedulable);
    assert!(matches!(task(&r, "A").response, Response::Exceeds(_)));
}

/// Overhead charging: PCP, profile release 1us, timer 0, context switch
/// 2us, pcp lock 300ns, unlock 250ns, per_waiter 50ns. hi: 1ms + R 1ms;
/// lo: R 3ms; R has 2 users (1 waiter at most).
/// hi's WCET: 2ms + (1 + 2 x 2)us per job + 0.3us lock + 2 x 2us (PCP
/// suspends: switches) + 0.25 + 0.05us unlock = 2ms + 9.6us.
/// lo's section grows by 0.3us (unlock + per waiter): hi's blocking is
/// 3.0003ms.
#[test]
fn overheads_are_charged_as_documented() {
    let s = sys(r#"
[platform]
protocol = "pcp"
[[resource]]
name = "R"
[[task]]
name = "hi"
period = "10ms"
body = [ { compute = "1ms" }, { lock = "R", hold = "1ms" } ]
[[task]]
name = "lo"
period = "50ms"
body = [ { lock = "R", hold = "3ms" } ]
"#);
    let p = Profile::from_toml(
        "release = \"1us\"\ncontext_switch = \"2us\"\n[protocol.pcp]\nlock = \"300ns\"\nunlock = \"250ns\"\nper_waiter = \"50ns\"\n",
        None,
    )
    .unwrap();
    let r = analyze(
        &s,
        &Options {
            overheads: Some(p.clone()),
            ..Options::default()
        },
    )
    .unwrap()
    .result;
    let hi = task(&r, "hi");
    assert_eq!(hi.wcet, Time::from_ns(2_009_600));
    assert_eq!(hi.blocking.overhead, Time::from_ns(9_600));
    assert_eq!(hi.blocking.local, Time::from_ns(3_000_300));
    // The profile writes back to the same values.
    assert_eq!(Profile::from_toml(&p.to_toml(), None).unwrap(), p);
    // With a component table too (written by `rtsync bench components`).
    let mut q = p.clone();
    q.component.pip_locked = Time::from_ns(4_100);
    q.component.nest = Time::from_ns(900);
    assert_eq!(Profile::from_toml(&q.to_toml(), None).unwrap(), q);
    assert_ne!(q.to_toml(), p.to_toml());
}

#[test]
fn bad_overhead_profiles_are_explained() {
    let e = Profile::from_toml("context_switch = \"2 parsecs\"\n", Some("o.toml")).unwrap_err();
    assert!(
        e.to_string().contains("context_switch") && e.to_string().contains("unit"),
        "{e}"
    );
    let e = Profile::from_toml("[protocol.pcx]\nlock = \"1us\"\n", None).unwrap_err();
    assert!(e.to_string().contains("pcx"), "{e}");
    let e = Profile::from_toml("contxt_switch = \"1us\"\n", None).unwrap_err();
    assert!(e.to_string().contains("contxt_switch"), "{e}");
}

/// A system that cannot meet a deadline reports the bound past it and the
/// first failing task.
#[test]
fn overloaded_system_reports_exceeds() {
    let s = sys(
        "[[task]]\nname = \"a\"\nperiod = \"10ms\"\nwcet = \"6ms\"\n[[task]]\nname = \"b\"\nperiod = \"10ms\"\nwcet = \"6ms\"\n",
    );
    let r = run(&s);
    assert_eq!(r.verdict, Verdict::NotSchedulable);
    assert!(matches!(task(&r, "b").response, Response::Exceeds(_)));
    assert_eq!(task(&r, "b").slack, None);
}

/// EDF decides per CPU. CPU 0 has a horizon too long for the demand test
/// (t1: 99ns every 100ns; t2: 10ms by 1s every 1000s: U = 0.99001, horizon
/// about 1s, 10^7 points) but passes Baker's test (density 0.99 + 0.01 = 1).
/// CPU 1 passes the demand test (L = 1ms: 1ms; L = 2ms: 2ms) but fails
/// Baker's (1 + 0.5 > 1). Each CPU is schedulable by one of the tests, so
/// every task is, and one CPU's inconclusive test must not taint the other.
#[test]
fn edf_tests_decide_per_cpu() {
    let s = sys(r#"
[platform]
cpus = 2
scheduler = "edf"
[[task]]
name = "t1"
period = "100ns"
cpu = 0
wcet = "99ns"
[[task]]
name = "t2"
period = "1000s"
deadline = "1s"
cpu = 0
wcet = "10ms"
[[task]]
name = "a"
period = "10ms"
deadline = "1ms"
cpu = 1
wcet = "1ms"
[[task]]
name = "b"
period = "10ms"
deadline = "2ms"
cpu = 1
wcet = "1ms"
"#);
    let r = run(&s);
    for t in &r.tasks {
        assert_eq!(
            t.verdict,
            Verdict::Schedulable,
            "{}: {}",
            t.name,
            t.response
        );
    }
    let demand = r.tests.iter().find(|t| t.test == Test::EdfDemand).unwrap();
    assert_eq!(demand.verdict, Verdict::Schedulable, "{demand:?}");
    assert!(
        demand.detail.as_deref().unwrap().contains("CPU 0"),
        "{demand:?}"
    );
    assert_eq!(r.verdict, Verdict::Schedulable);
    // Without the Baker rescue on CPU 0 (t2 heavier: density above 1) the
    // demand test cannot decide CPU 0: not applicable, not "fails".
    let s2 = sys(r#"
[platform]
scheduler = "edf"
[[task]]
name = "t1"
period = "100ns"
wcet = "99ns"
[[task]]
name = "t2"
period = "1000s"
deadline = "1s"
wcet = "10.5ms"
"#);
    let r2 = run(&s2);
    let demand = r2.tests.iter().find(|t| t.test == Test::EdfDemand).unwrap();
    assert_eq!(demand.verdict, Verdict::NotApplicable, "{demand:?}");
}
