//! Mixed systems (a protocol per resource): schedules worked out by hand
//! that show why each interaction term of the mixed bounds is there, the
//! simulator reproducing them, and the bounds holding against them and
//! against the search.

mod common;

use common::{bounds, run_plan, sys};
use rtsync_model::Time;
use rtsync_sim::Plan;
use rtsync_sim::search::{SearchOptions, search};

fn responses(s: &rtsync_model::System, offsets: Vec<Time>) -> Vec<Time> {
    let res = run_plan(s, Plan::offsets(offsets));
    res.tasks.iter().map(|t| t.max_response.unwrap()).collect()
}

/// PCP and IPCP on one CPU. `i` takes B (IPCP) then C (PCP); `m` holds B
/// 2 ms, `l` holds C 3 ms.
const PCP_IPCP: &str = r#"
[platform]
cpus = 1
[[resource]]
name = "B"
protocol = "ipcp"
[[resource]]
name = "C"
protocol = "pcp"
[[task]]
name = "i"
period = "50ms"
priority = 3
body = [ { lock = "B", hold = "1ms" }, { lock = "C", hold = "1ms" } ]
[[task]]
name = "m"
period = "60ms"
priority = 2
body = [ { lock = "B", hold = "2ms" } ]
[[task]]
name = "l"
period = "70ms"
priority = 1
body = [ { lock = "C", hold = "3ms" } ]
"#;

/// By hand: `l` locks C at 0 (PCP raises nothing uncontended). `m`
/// preempts at 0.5 and locks B: IPCP grants without looking at PCP's
/// system ceiling, raising `m` to 3. `i` arrives at 1 and waits (3 is not
/// above 3) until `m` releases at 2.5; holds B 2.5-3.5, then asks for C,
/// held by `l`: `l` inherits and runs its 2.5 ms left, to 6; `i` holds C
/// 6-7. Response 6 ms: blocked by two lower jobs, past the single-blocking
/// bound of either protocol alone (2 + 3 = 5 ms), within the mix's
/// per-job sum (2 + 2 + 3 = 7 ms).
#[test]
fn pcp_beside_ipcp_blocks_twice() {
    let s = sys(PCP_IPCP);
    let b = bounds(&s);
    assert_eq!(b[0], Time::from_ms(7));
    let r = responses(&s, vec![Time::from_ms(1), Time::from_us(500), Time::ZERO]);
    assert_eq!(r[0], Time::from_ms(6));
    // The search finds a schedule past the single-blocking bound on its
    // own, and none past the mix's bound.
    let mut single = b.clone();
    single[0] = Time::from_ms(5);
    let opts = SearchOptions {
        budget: 100_000,
        ..SearchOptions::default()
    };
    let found = search(&s, &single, &opts);
    assert!(
        found.findings.iter().any(|f| f.task == Some(0)),
        "search missed the double blocking"
    );
    let found = search(&s, &b, &opts);
    assert!(found.findings.is_empty(), "{:?}", found.findings);
}

/// FMLP short and long on three CPUs. `h` (CPU 0) and `x` (CPU 1) and `i`
/// (CPU 2) use the long resource L; `y` (CPU 0, below `h`) holds the short
/// resource S for 3 ms, non-preemptively.
const FMLP_NP: &str = r#"
[platform]
cpus = 3
[[resource]]
name = "S"
protocol = "fmlp-s"
[[resource]]
name = "L"
protocol = "fmlp-l"
[[task]]
name = "h"
period = "50ms"
priority = 2
cpu = 0
body = [ { lock = "L", hold = "1ms" } ]
[[task]]
name = "y"
period = "50ms"
priority = 1
cpu = 0
body = [ { lock = "S", hold = "3ms" } ]
[[task]]
name = "x"
period = "50ms"
priority = 1
cpu = 1
body = [ { lock = "L", hold = "2ms" } ]
[[task]]
name = "i"
period = "50ms"
priority = 1
cpu = 2
body = [ { lock = "L", hold = "1ms" } ]
"#;

/// By hand: `x` locks L at 0 (boosted, to 2). `h` asks at 0.5 and
/// suspends; `y` runs and enters S at 0.6, non-preemptive to 3.6. `i` asks
/// at 1.5, behind `h`. At 2 L passes to `h`, which cannot run before `y`
/// leaves S at 3.6: `h` holds L 3.6-4.6, `i` 4.6-5.6. Response 4.1 ms,
/// above what the long sections ahead of it give alone (`i` 1 + `h` 1 +
/// `x` 2 = 4 ms): the non-preemptive short section on the holder's CPU is
/// the interaction term `fmlp.rs` charges. The bound, by hand: `i`'s own
/// 1 ms section, and its wait: the long sections of `x` (2 ms) and `h`
/// (1 ms), `y`'s 3 ms stretch before `h` (the longest on CPU 0 of a task
/// other than `h`), none before `x`, alone on CPU 1: 7 ms.
#[test]
fn a_short_section_delays_a_long_holder_on_its_cpu() {
    let s = sys(FMLP_NP);
    let b = bounds(&s);
    let r = responses(
        &s,
        vec![
            Time::from_us(500),
            Time::from_us(600),
            Time::ZERO,
            Time::from_us(1500),
        ],
    );
    assert_eq!(r[3], Time::from_us(4100));
    assert_eq!(b[3], Time::from_ms(7));
    assert!(
        r[3] > Time::from_ms(4) && r[3] <= b[3],
        "{} vs bound {}",
        r[3],
        b[3]
    );
}

/// FMLP short and long, the holder queued ahead on the requester's own
/// CPU. CPU 0: `h` (3) holds L 2 ms; `i` (2) computes 1 us, then holds L
/// 1 ms; `x` (1) holds S 1 ms three times, computing 3.997 ms and then
/// 0.999 ms between. `r` (CPU 1) holds L 4 ms; `r2` (CPU 2) holds L 1 ms.
const FMLP_OWN_CPU: &str = r#"
[platform]
cpus = 3
[[resource]]
name = "S"
protocol = "fmlp-s"
[[resource]]
name = "L"
protocol = "fmlp-l"
[[task]]
name = "h"
period = "100ms"
priority = 3
cpu = 0
body = [ { lock = "L", hold = "2ms" } ]
[[task]]
name = "i"
period = "100ms"
priority = 2
cpu = 0
body = [ { compute = "1us" }, { lock = "L", hold = "1ms" } ]
[[task]]
name = "x"
period = "100ms"
priority = 1
cpu = 0
body = [ { lock = "S", hold = "1ms" }, { compute = "3997us" }, { lock = "S", hold = "1ms" }, { compute = "999us" }, { lock = "S", hold = "1ms" } ]
[[task]]
name = "r"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "L", hold = "4ms" } ]
[[task]]
name = "r2"
period = "100ms"
priority = 1
cpu = 2
body = [ { lock = "L", hold = "1ms" } ]
"#;

/// By hand (ms): `x` enters S at 0, non-preemptive to 1; `h` and `i`,
/// released at 0.001, wait for it. `r` locks L at 0.999, to 4.999. At 1
/// `h` asks for L and suspends; `r2` asks at 1.0005; `i` computes and
/// asks at 1.001: queue `r`, `h`, `r2`, `i`. `x` computes to 4.998 and
/// enters S to 5.998: `h`, granted at 4.999, holds L 5.998-7.998, its
/// job done; `r2` holds it 7.998-8.998 on CPU 2 while `x` computes to
/// 8.997 and enters S to 9.997; `i`, granted at 8.998, holds L from 9.997
/// to 10.997. Response 10.996 ms: three stretches of `x`, one at `i`'s
/// release, one at its grant, and one before `h`, the holder of `i`'s
/// own CPU queued ahead of it. The bound, by hand: `i`'s 1.001 ms, its
/// wait (`r`'s 4 ms and `r2`'s 1 ms sections, alone on their CPUs, and
/// `x`'s 1 ms stretch before `h`: 6 ms), `h`'s 2 ms as interference, and
/// a stretch of `x` at each of `i`'s two arrivals (release and grant):
/// 11.001 ms. Without the stretch before `h`, 10.001 ms: below this
/// schedule. The search finds it on its own (its queue in issue order,
/// `Searcher::fifo_queues`); before that step, it did not, here or in
/// 60,000 random mixed systems at 300,000 events each.
#[test]
fn a_short_section_delays_a_holder_of_the_requesters_cpu() {
    let s = sys(FMLP_OWN_CPU);
    let b = bounds(&s);
    assert_eq!(b[1], Time::from_us(11_001));
    let r = responses(
        &s,
        vec![
            Time::from_us(1),
            Time::from_us(1),
            Time::ZERO,
            Time::from_us(999),
            Time::from_ns(1_000_500),
        ],
    );
    assert_eq!(r[1], Time::from_us(10_996));
    assert!(r[1] > Time::from_us(10_001), "{}", r[1]);
    // The bound without the stretch before `h`.
    search_breaks_only(&s, &b, 1, Time::from_us(10_001));
}

/// The search (300,000 events) breaks `task`'s bound planted at `below`,
/// a value some schedule passes, and no bound of `bounds`.
fn search_breaks_only(s: &rtsync_model::System, bounds: &[Time], task: usize, below: Time) {
    let opts = SearchOptions {
        budget: 300_000,
        ..SearchOptions::default()
    };
    let mut planted = bounds.to_vec();
    planted[task] = below;
    let found = search(s, &planted, &opts);
    assert!(
        found.findings.iter().any(|f| f.task == Some(task)),
        "search missed a schedule of task {task} past {below}"
    );
    let found = search(s, bounds, &opts);
    assert!(found.findings.is_empty(), "{:?}", found.findings);
}

/// [`FMLP_OWN_CPU`] with a second holder of `i`'s CPU (`g`, above `h`)
/// in place of the third CPU's `r2`: two holders of `i`'s CPU queued
/// ahead, one user of another CPU (`r`).
const FMLP_OWN_RUN: &str = r#"
[platform]
cpus = 2
[[resource]]
name = "S"
protocol = "fmlp-s"
[[resource]]
name = "L"
protocol = "fmlp-l"
[[task]]
name = "g"
period = "100ms"
priority = 4
cpu = 0
body = [ { lock = "L", hold = "1ms" } ]
[[task]]
name = "h"
period = "100ms"
priority = 3
cpu = 0
body = [ { lock = "L", hold = "2ms" } ]
[[task]]
name = "i"
period = "100ms"
priority = 2
cpu = 0
body = [ { compute = "1us" }, { lock = "L", hold = "1ms" } ]
[[task]]
name = "x"
period = "100ms"
priority = 1
cpu = 0
body = [ { lock = "S", hold = "1ms" }, { compute = "3997us" }, { lock = "S", hold = "1ms" }, { compute = "999us" }, { lock = "S", hold = "1ms" } ]
[[task]]
name = "r"
period = "100ms"
priority = 1
cpu = 1
body = [ { lock = "L", hold = "4ms" } ]
"#;

/// By hand (ms): `x` enters S at 0, non-preemptive to 1; `g`, `h` and
/// `i`, released at 0.001, wait for it. `r` locks L at 0.999, to 4.999.
/// At 1 `g` and `h` ask for L and suspend; `i` computes and asks at
/// 1.001: queue `r`, `g`, `h`, `i`. `x` computes to 4.998 and enters S
/// to 5.998: `g`, granted at 4.999, holds L 5.998-6.998; `h`, granted
/// at `g`'s release, holds it 6.998-8.998, and `i` 8.998-9.998: each
/// follows a holder of CPU 0, boosted from its grant to its release,
/// so no section of `x` starts before their grants. Response 9.997 ms:
/// one stretch of `x` before the run of `g` and `h`. Whatever the
/// queue's order, a holder of CPU 0 is held back only right after `r`,
/// the one user of another CPU. The bound, by hand: `i`'s 1.001 ms,
/// `g`'s 1 and `h`'s 2 as interference, its wait (`r`'s 4 ms and one
/// stretch of `x`, 1 ms, for the run: 5 ms) and a stretch of `x` at
/// each of `i`'s two arrivals: 11.001 ms. Until 2026-12-03 each of `g`
/// and `h` was charged a stretch: 12.001 ms. The search finds a
/// schedule past this one with its whole run of the target's CPU
/// (`Searcher::fifo_queues`); before that, 300,000 events found 9 ms,
/// its queues putting one task of that CPU ahead of the target.
#[test]
fn holders_of_one_cpu_in_a_row_are_held_back_once() {
    let s = sys(FMLP_OWN_RUN);
    let b = bounds(&s);
    assert_eq!(b[2], Time::from_us(11_001));
    let r = responses(
        &s,
        vec![
            Time::from_us(1),
            Time::from_us(1),
            Time::from_us(1),
            Time::ZERO,
            Time::from_us(999),
        ],
    );
    assert_eq!(r[2], Time::from_us(9_997));
    search_breaks_only(&s, &b, 2, Time::from_us(9_997));
}
