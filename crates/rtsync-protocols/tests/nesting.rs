//! Validation and the protocol core apply the same nesting rules: for every
//! pair of protocols, each side local or global, a spec whose only fault
//! is one nesting is refused by validation exactly where the core refuses
//! that nested request at run time. A rule stated in one place and not the
//! other would let a program lock what no analysis covers, or refuse what
//! a checked spec allows.

use rtsync_model::{Protocol, parse_str, validate};
use rtsync_protocols::{Config, LockError, Locks, Outcome};

/// Resources A (outer, under `po`) and B (inner, under `pi`) on two CPUs;
/// t0 on CPU 0 locks A, then B, `nested` inside A or one after the other;
/// tA and tB use A and B from CPU 1 where that side is global, else from
/// CPU 0.
fn spec(po: Protocol, pi: Protocol, ga: bool, gb: bool, nested: bool) -> String {
    let mut s = String::from("[platform]\ncpus = 2\n");
    for (name, p) in [("A", po), ("B", pi)] {
        s += &format!(
            "[[resource]]\nname = \"{name}\"\nprotocol = \"{}\"\n",
            p.name()
        );
        if p.needs_sync_cpu() {
            s += "sync_cpu = 1\n";
        }
    }
    let body = if nested {
        "[ { lock = \"A\", body = [ { compute = \"100us\" }, { lock = \"B\", hold = \"100us\" } ] } ]"
    } else {
        "[ { lock = \"A\", hold = \"100us\" }, { lock = \"B\", hold = \"100us\" } ]"
    };
    s += &format!(
        "[[task]]\nname = \"t0\"\nperiod = \"100ms\"\npriority = 3\ncpu = 0\nbody = {body}\n"
    );
    for (name, r, prio, global) in [("tA", "A", 2, ga), ("tB", "B", 1, gb)] {
        s += &format!(
            "[[task]]\nname = \"{name}\"\nperiod = \"100ms\"\npriority = {prio}\ncpu = {}\nbody = [ {{ lock = \"{r}\", hold = \"100us\" }} ]\n",
            global as usize
        );
    }
    s
}

#[test]
fn validation_and_the_core_refuse_the_same_nestings() {
    let (mut compared, mut refused) = (0, 0);
    let mut disagree = Vec::new();
    for po in Protocol::ALL {
        for pi in Protocol::ALL {
            for (ga, gb) in [(false, false), (false, true), (true, false), (true, true)] {
                // Only where the spec is valid without the nesting: then a
                // refusal of the nested spec is a nesting rule's.
                let apart = spec(po, pi, ga, gb, false);
                let Ok(sys) = parse_str(&apart, None) else {
                    continue;
                };
                if validate(&sys).has_errors() {
                    continue;
                }
                let src = spec(po, pi, ga, gb, true);
                let sys = parse_str(&src, None).unwrap_or_else(|d| panic!("{d}\n{src}"));
                let by_validation = validate(&sys).has_errors();
                let mut m = Locks::new(Config::new(&sys));
                for t in 0..3 {
                    m.set_base(t, 3 - t as u64, t as u64).unwrap();
                }
                assert_eq!(m.lock(0, 0, 1), Ok(Outcome::Granted), "{po} A");
                let by_core = match m.lock(0, 1, 1) {
                    Err(LockError::ForbiddenNesting { .. }) => true,
                    Ok(_) => false,
                    Err(e) => panic!("{po} holding, {pi} asked: {e}"),
                };
                compared += 1;
                refused += by_core as usize;
                if by_validation != by_core {
                    disagree.push(format!(
                        "{pi} ({}) inside {po} ({}): validation {}, core {}",
                        if gb { "global" } else { "local" },
                        if ga { "global" } else { "local" },
                        if by_validation { "refuses" } else { "allows" },
                        if by_core { "refuses" } else { "allows" },
                    ));
                }
            }
        }
    }
    assert!(
        disagree.is_empty(),
        "{} of {compared} disagree:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
    // The comparison reached both answers, many times each (69 pairs of
    // sides make an accepted mix on their own; 32 nest wrongly).
    assert!(
        compared > 60 && refused > 20 && compared - refused > 20,
        "{compared} compared, {refused} refused"
    );
}
