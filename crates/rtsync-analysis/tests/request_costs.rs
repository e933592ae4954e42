//! Paper 001's request costs charged in the verdict: the overhead profile
//! writes each request's call and reply into the lowered system
//! (`Profile::inflate`), so the analysis, the simulator and `rtsync run`
//! charge what `rtsync analyze` prints in paper 001's terms. Before, the
//! profile's `[component]` table reached only that printed table, and the
//! verdict (and the exit code) ignored it.

use rtsync_analysis::components::{self, Overheads};
use rtsync_analysis::generate::components::component_system;
use rtsync_analysis::overheads::Profile;
use rtsync_model::component::{Components, Request};
use rtsync_model::{Segment, System, Time, load_str, preorder};

fn us(n: u64) -> Time {
    Time::from_us(n)
}

fn load(src: &str) -> System {
    load_str(src, None).unwrap_or_else(|d| panic!("{d}")).0
}

fn profile(o: Overheads) -> Profile {
    Profile {
        component: o,
        ..Profile::default()
    }
}

/// The compute time of the segments `range` numbers in `body`'s preorder
/// (sections count through their bodies' computes, once).
fn computed(body: &[Segment], range: std::ops::Range<usize>) -> Time {
    let segs = preorder(body);
    range
        .map(|k| match segs[k] {
            Segment::Compute(t) => *t,
            _ => Time::ZERO,
        })
        .fold(Time::ZERO, |a, b| a.saturating_add(b))
}

/// What a request and every request inside it cost, call and reply.
fn costs_within(c: &Components, o: &Overheads, r: &Request) -> Time {
    let depth = |r: &Request| {
        fn d(r: &Request) -> u32 {
            r.inner.iter().map(|i| 1 + d(i)).max().unwrap_or(0)
        }
        d(r)
    };
    (r.inner.iter()).map(|x| costs_within(c, o, x)).fold(
        o.request(c.interfaces[r.interface].kind, depth(r)),
        |a, b| a.saturating_add(b),
    )
}

/// Checks, request by request, that the charged system still says where
/// each request runs: an exclusive request's segments are its
/// interface's section, whole; every request's segments hold what they
/// held before plus its own and its nested requests' costs, and lie
/// within its parent's.
fn check_placed(before: &System, after: &System, o: &Overheads) {
    let (cb, ca) = (
        before.components.as_deref().unwrap(),
        after.components.as_deref().unwrap(),
    );
    for (t, (rb, ra)) in cb.requests.iter().zip(&ca.requests).enumerate() {
        let p = Placed {
            t,
            before,
            after,
            c: ca,
            o,
        };
        p.each(rb, ra, None);
    }
}

/// One task's requests before and after charging.
struct Placed<'a> {
    t: usize,
    before: &'a System,
    after: &'a System,
    c: &'a Components,
    o: &'a Overheads,
}

impl Placed<'_> {
    fn each(&self, rb: &[Request], ra: &[Request], parent: Option<std::ops::Range<usize>>) {
        let t = self.t;
        assert_eq!(rb.len(), ra.len());
        for (b, a) in rb.iter().zip(ra) {
            let name = &self.before.tasks[t].name;
            let segs = preorder(&self.after.tasks[t].body);
            let iface = &self.c.interfaces[a.interface];
            if let Some(res) = iface.resource {
                let Segment::Lock { resource, body, .. } = segs[a.segments.start] else {
                    panic!("{name}: {} does not start at its lock", iface.name)
                };
                assert_eq!(*resource, res, "{name}: {}", iface.name);
                assert_eq!(a.segments.len(), 1 + preorder(body).len());
            }
            if let Some(p) = &parent {
                assert!(
                    p.start <= a.segments.start && a.segments.end <= p.end,
                    "{name}: {} at {:?} outside its parent's {p:?}",
                    iface.name,
                    a.segments
                );
            }
            assert_eq!(
                computed(&self.after.tasks[t].body, a.segments.clone()),
                computed(&self.before.tasks[t].body, b.segments.clone())
                    .saturating_add(costs_within(self.c, self.o, b)),
                "{name}: {} charged {:?} from {:?}",
                iface.name,
                a.segments,
                b.segments
            );
            self.each(&b.inner, &a.inner, Some(a.segments.clone()));
        }
    }
}

fn spread() -> Overheads {
    Overheads {
        prop_call: us(11),
        prop_reply: us(7),
        fix_call: us(13),
        fix_reply: us(5),
        pip_unlocked: us(17),
        pip_locked: us(19),
        pip_reply: us(3),
        queue: us(2),
        nest: us(23),
    }
}

/// On random topologies of every kind (nested requests, pools,
/// exclusive interfaces below propagated ones and the reverse): each
/// task's charged WCET is paper 001's Eq. 7 (the profile holds request
/// costs only), and every request is placed where its segments went.
#[test]
fn random_topologies_charge_eq7_and_keep_their_requests_placed() {
    let o = spread();
    let p = profile(o);
    for i in 0..150 {
        let (sys, spec) = component_system(29, i).expect("a loadable draw");
        let c = sys.components.as_deref().unwrap();
        let charged = p.inflate(&sys);
        assert!(!rtsync_model::validate(&charged).has_errors(), "{spec}");
        let eq7 = components::analyse(&sys, c, &o).wcet;
        let f = rtsync_model::Facts::new(&charged);
        let wcet: Vec<Time> = f.tasks.iter().map(|t| t.wcet).collect();
        assert_eq!(wcet, eq7, "{spec}");
        check_placed(&sys, &charged, &o);
    }
}

/// Requests that begin and end together: a propagated method made only
/// of requests (Q: its first segment is E's, its last E's again, X's
/// section between), an exclusive method ending in a propagated request
/// (X), and the task's body starting with one. Each request's call comes
/// before those it contains and its reply after theirs.
#[test]
fn requests_sharing_their_first_or_last_segment_are_placed() {
    let src = r#"
[platform]
cpus = 1
[[component]]
name = "E"
[[component.interface]]
name = "i"
protocol = "propagated"
methods.run = [ { compute = "10us" } ]
[[component]]
name = "X"
uses = ["E.i"]
[[component.interface]]
name = "i"
protocol = "inherited"
methods.run = [ { compute = "100us" }, { call = "E.i" } ]
[[component]]
name = "Q"
uses = ["E.i", "X.i"]
[[component.interface]]
name = "i"
protocol = "propagated"
methods.run = [ { call = "E.i" }, { call = "X.i" }, { call = "E.i" } ]
[[task]]
name = "a"
period = "10ms"
priority = 2
uses = ["E.i", "X.i", "Q.i"]
body = [ { call = "Q.i" }, { call = "X.i" }, { compute = "1ms" }, { call = "E.i" } ]
[[task]]
name = "b"
period = "20ms"
priority = 1
uses = ["X.i"]
body = [ { call = "X.i" } ]
"#;
    let sys = load(src);
    let o = spread();
    let charged = profile(o).inflate(&sys);
    check_placed(&sys, &charged, &o);
    let c = sys.components.as_deref().unwrap();
    let eq7 = components::analyse(&sys, c, &o).wcet;
    let f = rtsync_model::Facts::new(&charged);
    let wcet: Vec<Time> = f.tasks.iter().map(|t| t.wcet).collect();
    assert_eq!(wcet, eq7);
    // X's section holds its call (max(17, 19 + 2 + 1 · 23) = 44 us),
    // 100 us, E's call, body and reply (28 us) and its reply (3 us).
    let x = c.interface("X.i").unwrap();
    let res = c.interfaces[x].resource.unwrap();
    let longest = (f.sections(1).iter())
        .filter(|s| s.resource == res)
        .map(|s| s.length)
        .max();
    assert_eq!(longest, Some(us(175)));
    // Task a's body, charged: Q's call, E's call, E, E's reply, X's
    // section, E's call, E, E's reply, Q's reply; then X's section, 1 ms,
    // E's call, E, E's reply.
    let top: Vec<String> = (charged.tasks[0].body.iter())
        .map(|s| match s {
            Segment::Compute(t) => t.to_string(),
            Segment::Lock { .. } => "X".into(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        top,
        [
            "11us", "11us", "10us", "7us", "X", "11us", "10us", "7us", "7us", "X", "1ms", "11us",
            "10us", "7us"
        ]
    );
}
