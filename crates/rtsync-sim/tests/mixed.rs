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
/// the interaction term `fmlp.rs` charges.
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
    assert!(
        r[3] > Time::from_ms(4) && r[3] <= b[3],
        "{} vs bound {}",
        r[3],
        b[3]
    );
}
