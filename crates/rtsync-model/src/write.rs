//! Writing a system back as a TOML spec, in the form the loader reads:
//! `load_str(&to_toml(&s))` gives back `s` (positions aside). Generated
//! systems are saved this way. A component spec is written in its
//! lowered form (its requests as the sections they mean,
//! `crate::component`), without the request structure.

use crate::system::{Segment, System};
use std::fmt::Write;

/// Renders `sys` as a spec. Times keep their exact nanosecond values.
pub fn to_toml(sys: &System) -> String {
    let mut o = String::new();
    if let Some(n) = &sys.name {
        let _ = writeln!(o, "name = {}\n", quote(n));
    }
    let _ = writeln!(
        o,
        "[platform]\ncpus = {}\nscheduler = \"{}\"",
        sys.platform.cpus, sys.platform.scheduler
    );
    for r in &sys.resources {
        let _ = write!(
            o,
            "\n[[resource]]\nname = {}\nprotocol = \"{}\"\n",
            quote(&r.name),
            r.protocol
        );
        if r.units != 1 {
            let _ = writeln!(o, "units = {}", r.units);
        }
        if let Some(c) = r.sync_cpu {
            let _ = writeln!(o, "sync_cpu = {c}");
        }
        if let Some(c) = r.ceiling {
            let _ = writeln!(o, "ceiling = {c}");
        }
    }
    for t in &sys.tasks {
        let _ = write!(
            o,
            "\n[[task]]\nname = {}\nperiod = \"{}\"\n",
            quote(&t.name),
            t.period
        );
        if t.deadline != t.period {
            let _ = writeln!(o, "deadline = \"{}\"", t.deadline);
        }
        if !t.offset.is_zero() {
            let _ = writeln!(o, "offset = \"{}\"", t.offset);
        }
        if !t.jitter.is_zero() {
            let _ = writeln!(o, "jitter = \"{}\"", t.jitter);
        }
        let _ = writeln!(o, "priority = {}", t.priority);
        if let Some(c) = t.cpu {
            let _ = writeln!(o, "cpu = {c}");
        }
        o.push_str("body = [\n");
        for s in &t.body {
            o.push_str("  ");
            segment(&mut o, sys, s);
            o.push_str(",\n");
        }
        o.push_str("]\n");
    }
    o
}

fn segment(o: &mut String, sys: &System, s: &Segment) {
    match s {
        Segment::Compute(c) => {
            let _ = write!(o, "{{ compute = \"{c}\" }}");
        }
        Segment::Suspend(c) => {
            let _ = write!(o, "{{ suspend = \"{c}\" }}");
        }
        Segment::Lock {
            resource,
            units,
            body,
        } => {
            let _ = write!(o, "{{ lock = {}", quote(&sys.resources[*resource].name));
            if *units != 1 {
                let _ = write!(o, ", units = {units}");
            }
            if let [Segment::Compute(c)] = body.as_slice() {
                let _ = write!(o, ", hold = \"{c}\" }}");
            } else {
                o.push_str(", body = [");
                for (i, b) in body.iter().enumerate() {
                    if i > 0 {
                        o.push_str(", ");
                    }
                    segment(o, sys, b);
                }
                o.push_str("] }");
            }
        }
    }
}

fn quote(s: &str) -> String {
    let mut q = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(q, "\\u{:04X}", c as u32);
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}
