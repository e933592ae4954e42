//! Paper 001's equations worked by hand: Eq. 7's WCET with overheads,
//! Eq. 5's blocking by a fixed and a propagated interface, Eq. 8's PIP
//! overhead with a chain below, the response times and Eq. 4; and
//! rtsync's own verdict charging the same request costs.

use rtsync_analysis::analyze::{Options, analyze};
use rtsync_analysis::components::{Overheads, analyse};
use rtsync_analysis::overheads::Profile;
use rtsync_analysis::result::{Delay, Response, Verdict};
use rtsync_model::{System, Time, load_str};

fn us(n: u64) -> Time {
    Time::from_us(n)
}

fn load(src: &str) -> System {
    load_str(src, None).unwrap_or_else(|d| panic!("{d}")).0
}

/// F (fixed, 1 ms) serves t1 (3) and t3 (1); P (propagated, 2 ms) serves
/// t2 (2) and t3.
const THREE: &str = r#"
[platform]
cpus = 1
[[component]]
name = "F"
[[component.interface]]
name = "i"
protocol = "fixed"
methods.run = [ { compute = "1ms" } ]
[[component]]
name = "P"
[[component.interface]]
name = "i"
protocol = "propagated"
methods.run = [ { compute = "2ms" } ]
[[task]]
name = "t1"
period = "10ms"
priority = 3
uses = ["F.i"]
body = [ { compute = "1ms" }, { call = "F.i" } ]
[[task]]
name = "t2"
period = "20ms"
priority = 2
uses = ["P.i"]
body = [ { compute = "2ms" }, { call = "P.i" } ]
[[task]]
name = "t3"
period = "40ms"
priority = 1
uses = ["F.i", "P.i"]
body = [ { compute = "3ms" }, { call = "F.i" }, { call = "P.i" } ]
"#;

fn profile(o: Overheads) -> Profile {
    Profile {
        component: o,
        ..Profile::default()
    }
}

fn costs() -> Overheads {
    Overheads {
        prop_call: us(10),
        prop_reply: us(5),
        fix_call: us(20),
        fix_reply: us(10),
        ..Overheads::default()
    }
}

#[test]
fn eq7_eq5_and_the_response_times_by_hand() {
    let sys = load(THREE);
    let c = sys.components.as_deref().unwrap();
    let a = analyse(&sys, c, &costs());
    // Eq. 7: procedures plus one overhead per request.
    // t1: 1 + 1 ms + (20 + 10) us; t2: 2 + 2 ms + (10 + 5) us;
    // t3: 3 + 1 + 2 ms + 30 + 15 us.
    assert_eq!(a.wcet, [us(2030), us(4015), us(6045)]);
    // B(F) = C_fix + C(F) = 30 us + 1 ms; B(P) = max(10, 5) us.
    let (f, p) = (c.interface("F.i").unwrap(), c.interface("P.i").unwrap());
    assert_eq!(a.interface_blocking[f], us(1030));
    assert_eq!(a.interface_blocking[p], us(10));
    // Eq. 5: t1 (3): F (p_min 1 < 3 <= p_max 3) -> 1030; P (p_max 2) not.
    // t2 (2): F and P both qualify: max 1030. t3: nobody lower.
    assert_eq!(a.blocking, [us(1030), us(1030), Time::ZERO]);
    // R1 = 2030 + 1030; R2 = 4015 + 1030 + 2030 = 7075;
    // R3: 6045 + 2*2030 + 4015 = 14120 (12090 -> 14120 -> stable).
    assert_eq!(
        a.response,
        [Some(us(3060)), Some(us(7075)), Some(us(14120))]
    );
    // Eq. 4: 1.306; 1.203 * 1.25225 = 1.5065; 1.203 * 1.20075 * 1.151125
    // = 1.6628: all at most 2.
    assert_eq!(a.hyperbolic, Ok(Ok(())));
}

#[test]
fn a_higher_overhead_fails_eq4_where_it_should() {
    // A fixed request costing 2.6 ms each way: t1's factor alone is
    // (1 + 1 + 5.2 ms + B 6.2 ms) / 10 ms + 1 = 2.34 > 2.
    let sys = load(THREE);
    let c = sys.components.as_deref().unwrap();
    let o = Overheads {
        fix_call: us(2600),
        fix_reply: us(2600),
        ..costs()
    };
    let a = analyse(&sys, c, &o);
    assert_eq!(a.hyperbolic, Ok(Err(0)));
    assert_eq!(a.response[0], None, "7.2 + 6.2 ms > 10 ms");
}

/// Eq. 8: a request to an inherited interface costs
/// `max(C^unlocked, C^locked + C^locked(c) + l(c) C_up)` plus its reply,
/// `l(c)` the longest chain below it.
#[test]
fn eq8_charges_the_chain_below_an_inherited_interface() {
    let src = r#"
[platform]
cpus = 1
[[component]]
name = "A"
uses = ["B.i"]
[[component.interface]]
name = "i"
protocol = "inherited"
methods.run = [ { compute = "100us" }, { call = "B.i" } ]
[[component]]
name = "B"
[[component.interface]]
name = "i"
protocol = "inherited"
methods.run = [ { compute = "50us" } ]
[[task]]
name = "H"
period = "10ms"
priority = 2
uses = ["A.i"]
body = [ { call = "A.i" } ]
[[task]]
name = "L"
period = "20ms"
priority = 1
uses = ["A.i"]
body = [ { call = "A.i" } ]
"#;
    let sys = load(src);
    let c = sys.components.as_deref().unwrap();
    let o = Overheads {
        pip_unlocked: us(4),
        pip_locked: Time::from_ns(4100),
        pip_reply: us(3),
        queue: Time::from_ns(500),
        nest: us(5),
        ..Overheads::default()
    };
    // A: l = 1, max(4, 4.1 + 0.5 + 5) + 3 = 12.6 us; B: l = 0,
    // max(4, 4.6) + 3 = 7.6 us.
    assert_eq!(
        o.request(rtsync_model::component::Kind::Inherited, 1),
        Time::from_ns(12_600)
    );
    let a = analyse(&sys, c, &o);
    assert_eq!(a.wcet[0], Time::from_ns(150_000 + 12_600 + 7_600));
    // H is blocked once by L's whole request: 150 us and both overheads.
    assert_eq!(a.blocking, [Time::from_ns(170_200), Time::ZERO]);
}

/// Eq. 4 extends Bini's bound, which assumes rate-monotonic priorities:
/// with t3 (40 ms) above t1 (10 ms) it does not apply, and says why.
#[test]
fn eq4_is_not_applied_to_priorities_that_are_not_rate_monotonic() {
    let src = THREE
        .replace("priority = 3", "priority = 9")
        .replace("priority = 1", "priority = 3")
        .replace("priority = 9", "priority = 1");
    let sys = load(&src);
    let c = sys.components.as_deref().unwrap();
    let a = analyse(&sys, c, &costs());
    match a.hyperbolic {
        Err(why) => assert!(why.contains("not rate-monotonic"), "{why}"),
        other => panic!("expected not applicable, got {other:?}"),
    }
}

/// rtsync's own verdict charges the same request costs (the overhead
/// profile writes them into the lowered system, `Profile::inflate`;
/// `tests/request_costs.rs` checks where, on random topologies). By hand,
/// with `costs()`: the WCETs are Eq. 7's (2030, 4015, 6045 us); F's
/// section, call and reply inside, is 1030 us, and t3 blocks t1 and t2 by
/// it (IPCP, ceiling 3); P's transitions run at the requester's priority
/// in rtsync's runtime, so they block nobody (Eq. 5 charges them at the
/// pool's ceiling, 10 us, below F's 1030 here). R1 = 2030 + 1030 = 3060;
/// R2 = 4015 + 1030 + 2030 = 7075; R3 = 6045 + 2 · 2030 + 4015 = 14120:
/// paper 001's three numbers.
#[test]
fn the_verdict_charges_the_request_costs_by_hand() {
    let sys = load(THREE);
    let o = costs();
    let opts = Options {
        overheads: Some(profile(o)),
        ..Options::default()
    };
    let a = analyze(&sys, &opts).expect("analysable");
    let wcet: Vec<Time> = a.result.tasks.iter().map(|t| t.wcet).collect();
    assert_eq!(wcet, [us(2030), us(4015), us(6045)]);
    let local: Vec<Delay> = a.result.tasks.iter().map(|t| t.blocking.local).collect();
    assert_eq!(
        local,
        [
            Delay::Bounded(us(1030)),
            Delay::Bounded(us(1030)),
            Delay::ZERO
        ]
    );
    let r: Vec<Response> = a.result.tasks.iter().map(|t| t.response).collect();
    assert_eq!(
        r,
        [
            Response::Bounded(us(3060)),
            Response::Bounded(us(7075)),
            Response::Bounded(us(14120))
        ]
    );
    let p = analyse(&sys, sys.components.as_deref().unwrap(), &o);
    let paper: Vec<Response> = (p.response.iter())
        .map(|r| Response::Bounded(r.unwrap()))
        .collect();
    assert_eq!(paper, r, "paper 001's terms agree on this system");
}

/// The verdict follows the costs: a fixed request of 2.6 ms each way
/// puts t1 past its deadline (7.2 + 6.2 ms > 10 ms), where before the
/// profile changed only the table printed below the verdict.
#[test]
fn costs_can_fail_the_verdict() {
    let sys = load(THREE);
    let o = Overheads {
        fix_call: us(2600),
        fix_reply: us(2600),
        ..Overheads::default()
    };
    let free = analyze(&sys, &Options::default()).expect("analysable");
    assert_eq!(free.result.verdict, Verdict::Schedulable);
    let opts = Options {
        overheads: Some(profile(o)),
        ..Options::default()
    };
    let a = analyze(&sys, &opts).expect("analysable");
    assert_eq!(a.result.verdict, Verdict::NotSchedulable);
    assert!(matches!(a.result.tasks[0].response, Response::Exceeds(_)));
}
