//! Component specs (paper 001): the analyzer's ceilings and pool sizes on
//! the paper's own figures, the lowering of requests into critical
//! sections (compared with the same system written by hand), the cycle
//! rules on the method-level call graph, and an error, with its place, for
//! everything a user can get wrong.

use rtsync_model::component::{Components, Kind, TOP};
use rtsync_model::{Diagnostics, Protocol, Severity, System, load_file, load_str};
use std::path::Path;

fn example(name: &str) -> System {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    load_file(&path).unwrap_or_else(|d| panic!("{d}")).0
}

fn comps(sys: &System) -> &Components {
    sys.components.as_deref().expect("a component spec")
}

fn pool(sys: &System, name: &str) -> u32 {
    let c = comps(sys);
    c.pool[c.interface(name).unwrap()]
}

fn load(src: &str) -> (System, Diagnostics) {
    load_str(src, None).unwrap_or_else(|d| panic!("{d}"))
}

/// The errors a spec gets, each as "line: message".
fn errors(src: &str) -> Vec<String> {
    match load_str(src, None) {
        Ok(_) => Vec::new(),
        Err(d) => d
            .errors()
            .map(|e| format!("{}: {}", e.pos.map_or(0, |p| p.line), e.message))
            .collect(),
    }
}

fn has_error(src: &str, line: usize, needle: &str) {
    let errs = errors(src);
    assert!(
        errs.iter()
            .any(|e| e.starts_with(&format!("{line}: ")) && e.contains(needle)),
        "expected an error at line {line} containing {needle:?}, got {errs:#?}"
    );
}

/// Paper 001, Fig. 3 caption: "Passive component A's CPI is used by
/// active components 1 and 2 so a pool of 2 threads waits on the
/// underlying endpoint. Passive component B's CPI is used by both of
/// component A's CPI threads and by active component 3, so it has 3
/// threads for 3 tasks."
#[test]
fn fig3_pools_are_the_papers() {
    let sys = example("camkes-fig3.toml");
    assert_eq!(pool(&sys, "A.work"), 2);
    assert_eq!(pool(&sys, "B.work"), 3);
    let c = comps(&sys);
    // No inherited interface upstream: no `nest` thread.
    assert!(c.nest.iter().all(|&n| !n));
}

/// Paper 001, Fig. 2: the reentrant interface serves both active
/// components (2 threads); lock A too (both may wait in it); lock B is
/// requested only by lock A's holder (1) and needs `nest` (1 more): an
/// inherited interface is upstream (Sect. 4.2, "CPIs providing the nest
/// method require an additional thread").
#[test]
fn fig2_pools_count_the_holder_once_and_add_nest() {
    let sys = example("camkes-fig2.toml");
    assert_eq!(pool(&sys, "Resource.serve"), 2);
    assert_eq!(pool(&sys, "LockA.guard"), 2);
    assert_eq!(pool(&sys, "LockB.guard"), 2);
    let c = comps(&sys);
    let b = c.interface("LockB.guard").unwrap();
    let a = c.interface("LockA.guard").unwrap();
    assert!(c.nest[b] && !c.nest[a]);
}

/// Fig. 7 (configuration 1 of Table 3): D is reached by holders of A and
/// of B, each at most one at a time: 2 requests, plus `nest`.
#[test]
fn fig7_shared_propagated_interface_below_two_locks() {
    let sys = example("camkes-fig7.toml");
    assert_eq!(pool(&sys, "A.cpi"), 2);
    assert_eq!(pool(&sys, "D.cpi"), 3);
    assert_eq!(pool(&sys, "C.cpi"), 2);
    let c = comps(&sys);
    let d = c.interface("D.cpi").unwrap();
    // A holder of A may inherit t1's priority (4) and pass it down (Fig.
    // 4, step 16): D's pool must wait at 4; t4 (1) reaches it too.
    assert_eq!((c.ceiling[d], c.floor[d]), (4, 1));
    assert_eq!(c.callers[d].len(), 4);
}

const FIG2_BY_HAND: &str = r#"
[platform]
cpus = 1
priorities = "rm"
[[resource]]
name = "LockA.guard"
protocol = "pip"
[[resource]]
name = "LockB.guard"
protocol = "pip"
[[task]]
name = "active1"
period = "10ms"
body = [ { compute = "1ms" }, { compute = "100us" },
         { lock = "LockA.guard", body = [ { compute = "300us" }, { lock = "LockB.guard", hold = "150us" } ] },
         { compute = "100us" }, { compute = "500us" } ]
[[task]]
name = "active2"
period = "25ms"
body = [ { compute = "2ms" }, { compute = "200us" }, { compute = "100us" },
         { lock = "LockA.guard", body = [ { compute = "300us" }, { lock = "LockB.guard", hold = "150us" } ] },
         { compute = "100us" }, { compute = "1ms" } ]
"#;

/// A propagated request is its method's body inline; an inherited one a
/// PIP section over the method's body, nested requests inside.
#[test]
fn lowering_is_the_system_written_by_hand() {
    let sys = example("camkes-fig2.toml");
    let (hand, _) = load(FIG2_BY_HAND);
    assert_eq!(sys.tasks.len(), hand.tasks.len());
    for (a, b) in sys.tasks.iter().zip(&hand.tasks) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.priority, b.priority);
        assert_eq!(a.body, b.body, "{}", a.name);
    }
    let protocols: Vec<(&str, Protocol)> = sys
        .resources
        .iter()
        .map(|r| (r.name.as_str(), r.protocol))
        .collect();
    assert_eq!(
        protocols,
        [
            ("LockA.guard", Protocol::Pip),
            ("LockB.guard", Protocol::Pip)
        ]
    );
}

/// Three tasks and interfaces: `L` (1) requests the fixed interface `F`,
/// whose method requests the propagated `P`; `H` (5) requests `P` too.
fn fixed_spec(f_protocol: &str, f_priority: &str, p_protocol: &str) -> String {
    format!(
        r#"
[platform]
cpus = 1
[[component]]
name = "F"
uses = ["P.i"]
[[component.interface]]
name = "i"
protocol = "{f_protocol}"
{f_priority}
methods.run = [ {{ compute = "100us" }}, {{ call = "P.i" }} ]
[[component]]
name = "P"
[[component.interface]]
name = "i"
protocol = "{p_protocol}"
methods.run = [ {{ compute = "50us" }} ]
[[task]]
name = "L"
period = "10ms"
priority = 1
uses = ["F.i"]
body = [ {{ call = "F.i" }} ]
[[task]]
name = "H"
period = "10ms"
priority = 5
uses = ["P.i"]
body = [ {{ call = "P.i" }} ]
"#
    )
}

/// Sect. 4.1: a fixed interface's downstream request carries the priority
/// of its thread, not of the originating task.
#[test]
fn a_fixed_interface_passes_its_own_priority_down() {
    let (sys, _) = load(&fixed_spec("fixed", "priority = 9", "propagated"));
    let c = comps(&sys);
    let (f, p) = (c.interface("F.i").unwrap(), c.interface("P.i").unwrap());
    assert_eq!(c.ceiling[f], 1, "only L requests F");
    assert_eq!(c.ceiling[p], 9, "F's thread runs at 9");
    assert_eq!(c.floor[p], 5, "H requests P at 5");
    // The given priority is the lowered IPCP resource's ceiling.
    let r = c.interfaces[f].resource.unwrap();
    assert_eq!(rtsync_model::Facts::new(&sys).ceiling[r], 9);
    assert_eq!(pool(&sys, "F.i"), 1);
    // Without a given priority the thread runs at the ceiling, 1.
    let (sys, _) = load(&fixed_spec("fixed", "", "propagated"));
    let c = comps(&sys);
    assert_eq!(c.ceiling[c.interface("P.i").unwrap()], 5);
}

/// A component spec is written in its lowered form (`--save`, `rtsync
/// generate`): a fixed interface at a given priority is written as its
/// resource's `ceiling`, and the written spec loads back to the same
/// system, the same ceiling included (before, the given priority was
/// lost and the written resource's ceiling was its one user's, 1). A
/// `ceiling` below the users' is raised to theirs; a bad one is refused
/// with its place.
#[test]
fn a_given_priority_is_written_as_the_resource_s_ceiling_and_read_back() {
    let (sys, _) = load(&fixed_spec("fixed", "priority = 9", "propagated"));
    let written = rtsync_model::to_toml(&sys);
    assert!(
        written.contains("name = \"F.i\"\nprotocol = \"ipcp\"\nceiling = 9\n"),
        "{written}"
    );
    let (back, _) = load(&written);
    let mut lowered = sys.clone();
    lowered.components = None;
    let mut back_cmp = back.clone();
    back_cmp.source = lowered.source.clone();
    assert_eq!(back_cmp, lowered);
    let r = back.resources.iter().position(|r| r.name == "F.i").unwrap();
    assert_eq!(rtsync_model::Facts::new(&back).ceiling[r], 9);
    // Given below the users' ceiling: the users' (5, H's).
    let low = "[[resource]]\nname = \"r\"\nprotocol = \"pcp\"\nceiling = 2\n[[task]]\nname = \"H\"\nperiod = \"10ms\"\npriority = 5\nbody = [ { lock = \"r\", hold = \"1ms\" } ]\n";
    let (sys, _) = load(low);
    assert_eq!(rtsync_model::Facts::new(&sys).ceiling[0], 5);
    has_error(
        &low.replace("ceiling = 2", "ceiling = -1"),
        4,
        "the ceiling is -1",
    );
}

#[test]
fn below_a_non_preemptive_interface_requests_carry_the_top_priority() {
    let (sys, _) = load(&fixed_spec("fixed-npcs", "", "propagated"));
    let c = comps(&sys);
    assert_eq!(c.ceiling[c.interface("P.i").unwrap()], TOP);
    assert_eq!(Components::show(TOP), "top");
    assert_eq!(c.interfaces[0].kind, Kind::FixedNpcs);
    // An inherited (suspending) interface requested from a
    // non-preemptive one is refused: the section would suspend.
    let errs = errors(&fixed_spec("fixed-npcs", "", "inherited"));
    assert!(
        errs.iter().any(|e| e.contains("F.i") && e.contains("P.i")),
        "{errs:#?}"
    );
}

#[test]
fn a_fixed_priority_below_a_caller_is_refused() {
    let src = fixed_spec("fixed", "priority = 3", "propagated").replace(
        "uses = [\"P.i\"]\nbody = [ { call = \"P.i\" } ]",
        "uses = [\"P.i\", \"F.i\"]\nbody = [ { call = \"P.i\" }, { call = \"F.i\" } ]",
    );
    has_error(&src, 10, "fixed priority 3, below the priority 5");
}

/// Paper 001's footnote 7: X's interface `a` requests Y, Y's requests
/// X's *other* interface `b`: the components' connections form a cycle,
/// the requests do not. Accepted; requesting `a` back is a cycle, and so,
/// for a propagated interface requested by method, is requesting the same
/// method back (another method is not: beyond the paper, which reads
/// connections only).
#[test]
fn cycles_are_found_on_requests_not_connections() {
    let spec = |back: &str, protocol: &str, extra: &str| {
        format!(
            r#"
[platform]
cpus = 1
[[component]]
name = "X"
uses = ["Y.i"]
[[component.interface]]
name = "a"
protocol = "{protocol}"
{extra}
methods.start = [ {{ compute = "10us" }}, {{ call = "Y.i.forward" }} ]
methods.finish = [ {{ compute = "10us" }} ]
[[component.interface]]
name = "b"
protocol = "inherited"
methods.finish = [ {{ compute = "10us" }} ]
[[component]]
name = "Y"
uses = ["X.a", "X.b"]
[[component.interface]]
name = "i"
protocol = "propagated"
methods.forward = [ {{ compute = "10us" }}, {{ call = "{back}" }} ]
[[task]]
name = "T"
period = "10ms"
uses = ["X.a"]
body = [ {{ call = "X.a.start" }} ]
"#
        )
    };
    let (sys, _) = load(&spec("X.b.finish", "inherited", ""));
    assert_eq!(comps(&sys).chains(0).len(), 3);
    // Another method of a propagated interface: no cycle either.
    let (sys, _) = load(&spec("X.a.finish", "propagated", ""));
    assert_eq!(comps(&sys).chains(0).len(), 3);
    // Back into an exclusive interface, by any method: it waits for
    // itself.
    has_error(
        &spec("X.a.finish", "inherited", ""),
        23,
        "X.a.start -> Y.i.forward -> X.a.finish",
    );
    has_error(&spec("X.a.start", "fixed", ""), 23, "deadlock");
    // Through propagated ones only: a bound on the recursion is needed...
    has_error(
        &spec("X.a.start", "propagated", ""),
        23,
        "through propagated interfaces",
    );
    let d = load_str(&spec("X.a.start", "propagated", ""), None).unwrap_err();
    assert!(
        d.errors()
            .any(|e| e.hint.as_deref().unwrap_or("").contains("recursion = N"))
    );
    // ... and, given, the chain is expanded that deep, with a warning.
    let (sys, diags) = load(&spec("X.a.start", "propagated", "recursion = 3"));
    assert!(
        diags
            .iter()
            .any(|d| d.severity == Severity::Warning && d.message.contains("at most 3"))
    );
    // X.a.start runs 3 times nested, Y.i.forward 3 times: 6 x 10us.
    let wcet = rtsync_model::Facts::new(&sys).tasks[0].wcet;
    assert_eq!(wcet, rtsync_model::Time::from_us(60));
    assert_eq!(
        pool(&sys, "X.a"),
        3,
        "one job is in X.a three times at once"
    );
}

const BASE: &str = r#"
[platform]
cpus = 1
[[component]]
name = "S"
[[component.interface]]
name = "api"
protocol = "propagated"
methods.get = [ { compute = "10us" } ]
methods.put = [ { compute = "20us" } ]
[[task]]
name = "T"
period = "10ms"
uses = ["S.api"]
body = [ { call = "S.api.get" } ]
"#;

#[test]
fn every_mistake_gets_its_line_and_a_hint() {
    // Line numbers count from the opening newline of BASE.
    has_error(
        &BASE.replace("S.api.get\"", "S.api.fetch\""),
        15,
        "has no method `fetch`",
    );
    has_error(
        &BASE.replace("S.api.get\"", "S.api\""),
        15,
        "several methods",
    );
    has_error(
        &BASE.replace("S.api.get\"", "Q.api.get\""),
        15,
        "there is no interface `Q.api`",
    );
    has_error(
        &BASE.replace("S.api.get\"", "S.api.get.now\""),
        15,
        "not component.interface.method",
    );
    has_error(
        &BASE.replace("uses = [\"S.api\"]", "uses = []"),
        15,
        "has no connection",
    );
    has_error(
        &BASE.replace("uses = [\"S.api\"]", "uses = [\"S.apx\"]"),
        14,
        "which is no interface",
    );
    has_error(
        &BASE.replace("\"propagated\"", "\"shared\""),
        8,
        "unknown interface protocol `shared`",
    );
    has_error(
        &BASE.replace(
            "protocol = \"propagated\"",
            "protocol = \"propagated\"\npriority = 4",
        ),
        9,
        "a priority is given",
    );
    has_error(
        &BASE.replace(
            "protocol = \"propagated\"",
            "protocol = \"propagated\"\nthreads = 0",
        ),
        9,
        "outside 1..=1000000",
    );
    has_error(
        &BASE.replace("[ { compute = \"20us\" } ]", "[ ]"),
        10,
        "empty body",
    );
    has_error(
        &BASE.replace(
            "period = \"10ms\"",
            "period = \"10ms\"\ndeadline = \"20ms\"",
        ),
        14,
        "its jobs may overlap",
    );
    // A method requesting an interface its component has no connection
    // to: the hint names the component's `uses`.
    let src = BASE.replace(
        "methods.put = [ { compute = \"20us\" } ]",
        "methods.put = [ { call = \"S.api.get\" } ]",
    ) + "[[task]]\nname = \"U\"\nperiod = \"10ms\"\nuses = [\"S.api\"]\nbody = [ { call = \"S.api.put\" } ]\n";
    has_error(
        &src,
        10,
        "method `S.api.put` requests `S.api` but has no connection",
    );
    let d = load_str(&src, None).unwrap_err();
    let e = d
        .errors()
        .find(|e| e.message.contains("no connection"))
        .unwrap();
    assert!(
        e.hint
            .as_deref()
            .unwrap()
            .contains("`uses` of component `S`"),
        "{e:?}"
    );
}

#[test]
fn too_small_a_pool_and_callers_on_two_cpus_are_refused() {
    let two = BASE.replace(
        "protocol = \"propagated\"",
        "protocol = \"propagated\"\nthreads = 1",
    ) + "[[task]]\nname = \"U\"\nperiod = \"10ms\"\nuses = [\"S.api\"]\nbody = [ { call = \"S.api.put\" } ]\n";
    has_error(
        &two,
        9,
        "has 1 thread(s); 2 request(s) can be in it at once",
    );
    let cpus = two
        .replace("cpus = 1", "cpus = 2")
        .replace("threads = 1\n", "")
        .replace("name = \"T\"\n", "name = \"T\"\ncpu = 0\n")
        .replace("name = \"U\"\n", "name = \"U\"\ncpu = 1\n");
    has_error(&cpus, 7, "requested by tasks on different CPUs");
}

#[test]
fn plain_tasks_and_locks_mix_with_components() {
    let src = BASE.replace(
        "[[task]]",
        "[[resource]]\nname = \"R\"\nprotocol = \"pcp\"\n[[task]]",
    ) + "[[task]]\nname = \"Plain\"\nperiod = \"20ms\"\nbody = [ { lock = \"R\", hold = \"1ms\" } ]\n";
    let (sys, _) = load(&src);
    assert_eq!(
        sys.resources.len(),
        1,
        "a propagated interface is no resource"
    );
    assert!(comps(&sys).requests[1].is_empty());
    // A resource named like an exclusive interface is refused.
    let clash = src
        .replace("name = \"R\"", "name = \"S.api\"")
        .replace("lock = \"R\"", "lock = \"S.api\"")
        .replace("\"propagated\"", "\"inherited\"");
    let errs = errors(&clash);
    assert!(
        errs.iter()
            .any(|e| e.contains("a resource is named `S.api`")),
        "{errs:#?}"
    );
}

/// Each request names the segments that serve it in the lowered body
/// (preorder numbers): an exclusive interface's section and everything in
/// it, a propagated method's body in place, after whatever came before
/// (a plain section with a `hold`, which is two segments).
#[test]
fn requests_say_which_segments_serve_them() {
    let src = r#"
[platform]
cpus = 1
[[resource]]
name = "R"
protocol = "pip"
[[component]]
name = "P"
uses = ["L.api"]
[[component.interface]]
name = "api"
protocol = "propagated"
methods.go = [ { compute = "150us" }, { call = "L.api" }, { compute = "50us" } ]
[[component]]
name = "L"
[[component.interface]]
name = "api"
protocol = "inherited"
methods.go = [ { compute = "70us" } ]
[[task]]
name = "t"
period = "10ms"
uses = ["P.api", "L.api"]
body = [ { lock = "R", hold = "1ms" }, { call = "P.api" }, { lock = "R", body = [ { call = "L.api" } ] } ]
"#;
    let (sys, _) = load(src);
    let c = comps(&sys);
    let segs = rtsync_model::preorder(&sys.tasks[0].body);
    // R(0) hold(1) | P: 150us(2) L(3) 70us(4) 50us(5) | R(6) L(7) 70us(8)
    assert_eq!(segs.len(), 9);
    let top = &c.requests[0];
    assert_eq!(top.len(), 2);
    assert_eq!(c.label(&top[0]), "P.api.go");
    assert_eq!(top[0].segments, 2..6);
    assert_eq!(top[0].inner[0].segments, 3..5);
    assert_eq!(c.label(&top[1]), "L.api.go");
    assert_eq!(top[1].segments, 7..9);
    let l = c.interfaces[c.interface("L.api").unwrap()].resource;
    for r in [&top[0].inner[0], &top[1]] {
        assert!(
            matches!(segs[r.segments.start], rtsync_model::Segment::Lock { resource, .. } if Some(*resource) == l)
        );
    }
    assert_eq!(
        *segs[2],
        rtsync_model::Segment::Compute(rtsync_model::Time::from_us(150))
    );
    // On the paper's figures too: each exclusive request's range is its
    // whole section.
    for ex in ["camkes-fig2.toml", "camkes-fig3.toml", "camkes-fig7.toml"] {
        let sys = example(ex);
        let c = comps(&sys);
        for (t, task) in sys.tasks.iter().enumerate() {
            let segs = rtsync_model::preorder(&task.body);
            for chain in c.chains(t) {
                let r = chain.last().unwrap();
                let f = &c.interfaces[r.interface];
                if let Some(res) = f.resource {
                    let rtsync_model::Segment::Lock { resource, body, .. } = segs[r.segments.start]
                    else {
                        panic!("{ex}: {} starts no section", c.label(r))
                    };
                    assert_eq!(*resource, res);
                    assert_eq!(r.segments.len(), 1 + rtsync_model::preorder(body).len());
                }
            }
        }
    }
}

/// `include` reads components from other files (relative to the spec);
/// a mistake there is reported in that file, at its line; an included
/// file with anything but components, or one that cannot be read, is
/// refused at the spec's `include` line.
#[test]
fn components_can_be_included_from_other_files() {
    let dir = std::env::temp_dir().join(format!("rtsync-include-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    let lib = "# shared interfaces\n[[component]]\nname = \"S\"\n[[component.interface]]\nname = \"api\"\nprotocol = \"inherited\"\nmethods.go = [ { compute = \"1ms\" } ]\n";
    std::fs::write(dir.join("lib/shared.toml"), lib).unwrap();
    let spec = "include = [\"lib/shared.toml\"]\n[platform]\ncpus = 1\n[[task]]\nname = \"a\"\nperiod = \"10ms\"\nuses = [\"S.api\"]\nbody = [ { call = \"S.api\" } ]\n[[task]]\nname = \"b\"\nperiod = \"20ms\"\nuses = [\"S.api\"]\nbody = [ { call = \"S.api\" } ]\n";
    std::fs::write(dir.join("main.toml"), spec).unwrap();
    let (sys, _) = load_file(&dir.join("main.toml")).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(pool(&sys, "S.api"), 2);
    assert_eq!(sys.resources[0].protocol, Protocol::Pip);
    // A mistake in the included file: its name and its own line (6).
    std::fs::write(
        dir.join("lib/shared.toml"),
        lib.replace("\"inherited\"", "\"shared\""),
    )
    .unwrap();
    let d = load_file(&dir.join("main.toml")).unwrap_err();
    let e = d
        .errors()
        .find(|e| e.message.contains("unknown interface protocol"))
        .unwrap();
    assert!(e.file.as_deref().unwrap().ends_with("shared.toml"), "{d}");
    assert_eq!(e.pos.map(|p| p.line), Some(6), "{d}");
    assert!(e.message.contains("unknown interface protocol `shared`"));
    // The one mistake, not a cascade: the tasks' uses and requests of the
    // refused interface are no further errors.
    assert_eq!(d.errors().count(), 1, "{d}");
    // Anything but components is refused.
    std::fs::write(
        dir.join("lib/shared.toml"),
        format!("{lib}[[task]]\nname = \"x\"\nperiod = \"1ms\"\nwcet = \"1us\"\n"),
    )
    .unwrap();
    let d = load_file(&dir.join("main.toml")).unwrap_err();
    assert!(
        d.to_string()
            .contains("has `task`: an included file holds [[component]] tables only"),
        "{d}"
    );
    // A missing file, at the spec's line 1.
    std::fs::remove_file(dir.join("lib/shared.toml")).unwrap();
    let d = load_file(&dir.join("main.toml")).unwrap_err();
    let e = d.errors().next().unwrap();
    assert!(
        e.file.as_deref().unwrap().ends_with("main.toml") && e.pos.map(|p| p.line) == Some(1),
        "{d}"
    );
    assert!(e.message.contains("cannot read included file"), "{d}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A request of an interface whose only method was refused (an empty
/// body) names no method, and the interface then lists none: the refusal
/// is the one error, not followed by "which has several methods" with an
/// empty list.
#[test]
fn a_refused_method_is_one_error() {
    let src = BASE
        .replace("methods.put = [ { compute = \"20us\" } ]\n", "")
        .replace("[ { compute = \"10us\" } ]", "[ ]")
        .replace("S.api.get\"", "S.api\"");
    let d = load_str(&src, None).unwrap_err();
    let errors: Vec<String> = d.errors().map(|e| e.message.clone()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("empty body"), "{errors:?}");
}
