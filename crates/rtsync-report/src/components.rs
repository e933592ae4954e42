//! The analyzer's view of a component spec (paper 001): per interface its
//! protocol, ceiling and floor, thread pool and callers, and each task's
//! request chains.

use crate::Table;
use rtsync_analysis::components::Paper001;
use rtsync_model::System;
use rtsync_model::component::{Components, Request};

/// The interfaces table and the request chains, for `rtsync check`.
pub fn components(sys: &System, c: &Components) -> String {
    let mut out = format!(
        "\ncomponents: {} interface(s) (paper 001); ceiling and floor: the highest and lowest priority a request reaching the interface carries; threads: its pool\n\n",
        c.interfaces.len()
    );
    let mut t = Table::new(&[
        "interface",
        "protocol",
        "ceiling",
        "floor",
        "threads",
        "nest",
        "methods",
        "requested by",
    ])
    .left(0)
    .left(1)
    .left(5)
    .left(6)
    .left(7);
    for (i, f) in c.interfaces.iter().enumerate() {
        let callers: Vec<&str> = c.callers[i]
            .iter()
            .map(|&t| sys.tasks[t].name.as_str())
            .collect();
        let protocol = match f.priority {
            Some(p) => format!("{} at {p}", f.kind.name()),
            None => f.kind.name().to_string(),
        };
        let reached = !callers.is_empty();
        let show = |p| {
            if reached {
                Components::show(p)
            } else {
                "-".into()
            }
        };
        t.row(vec![
            f.name.clone(),
            protocol,
            show(c.ceiling[i]),
            show(c.floor[i]),
            if reached {
                c.pool[i].to_string()
            } else {
                "-".into()
            },
            if c.nest[i] { "yes" } else { "-" }.into(),
            f.methods.join(" "),
            if reached {
                callers.join(" ")
            } else {
                "(none)".into()
            },
        ]);
    }
    out.push_str(&t.render());
    out.push_str("\nrequest chains (outermost first):\n");
    for (ti, task) in sys.tasks.iter().enumerate() {
        let rs = &c.requests[ti];
        if rs.is_empty() {
            continue;
        }
        let mut lines = Vec::new();
        for r in rs {
            chain_lines(c, r, &mut Vec::new(), &mut lines);
        }
        for l in lines {
            out.push_str(&format!("  {}: {l}\n", task.name));
        }
    }
    out
}

/// One line per leaf of the request tree under `r`.
fn chain_lines(c: &Components, r: &Request, path: &mut Vec<String>, out: &mut Vec<String>) {
    path.push(c.label(r));
    if r.inner.is_empty() {
        out.push(path.join(" -> "));
    }
    for i in &r.inner {
        chain_lines(c, i, path, out);
    }
    path.pop();
}

/// In place of [`paper001`] for a system that also shares resources
/// other than interfaces (`outside`,
/// [`rtsync_analysis::components::outside_the_model`]): why its terms are
/// not shown.
pub fn paper001_outside(sys: &System, outside: &[usize]) -> String {
    let names: Vec<String> = outside
        .iter()
        .map(|&r| format!("`{}`", sys.resources[r].name))
        .collect();
    format!(
        "\npaper 001's analysis (Sect. 3.2) is not shown: its model shares data only through interfaces, and this system also locks {} (its bound would leave out their blocking; rtsync's bounds above count it)\n",
        names.join(", ")
    )
}

/// Paper 001's terms per task (Eq. 7's WCET, Eqs. 5 and 6's blocking,
/// the response time with them) and Eq. 4's verdict.
pub fn paper001(sys: &System, p: &Paper001, with_overheads: bool) -> String {
    let mut out = String::from(
        "\npaper 001's analysis (Sect. 3.2): WCET by Eq. 7, blocking by Eqs. 5-6 (PIP interfaces: once per lower task), response time with these terms\n",
    );
    if !with_overheads {
        out.push_str("(no [component] overheads in the profile: request costs are 0; `--overheads FILE` adds them)\n");
    }
    out.push('\n');
    let mut t = Table::new(&[
        "task",
        "prio",
        "period",
        "wcet (Eq. 7)",
        "blocking",
        "response",
        "verdict",
    ])
    .left(0)
    .left(6);
    for (i, task) in sys.tasks.iter().enumerate() {
        t.row(vec![
            task.name.clone(),
            task.priority.to_string(),
            task.period.to_string(),
            p.wcet[i].to_string(),
            p.blocking[i].to_string(),
            p.response[i].map_or("> deadline".into(), |r| r.to_string()),
            if p.response[i].is_some() {
                "ok"
            } else {
                "MISS"
            }
            .into(),
        ]);
    }
    out.push_str(&t.render());
    let eq4 = match &p.hyperbolic {
        Ok(Ok(())) => "holds for every task".to_string(),
        Ok(Err(i)) => format!("fails for `{}`", sys.tasks[*i].name),
        Err(why) => format!("does not apply: {why}"),
    };
    out.push_str(&format!(
        "  Eq. 4 (hyperbolic bound, non-unique priorities): {eq4}\n"
    ));
    out
}
