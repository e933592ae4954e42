//! What the analyzer derives from the request trees and the tasks'
//! priorities: each interface's ceiling and floor, its callers, whether it
//! needs `nest`, and the size of its thread pool (paper 001, Sects. 4.2,
//! 4.3 and 5, Fig. 3).

use super::{Components, Interface, Kind, Request, TOP};
use crate::system::Priority;

/// The priority a request made while serving a request of `i` carries,
/// given the highest one (`carried`) that reached `i` on this chain and
/// `i`'s ceiling so far: a propagated handler passes its requester's on;
/// an inherited one passes what it may have inherited, up to its ceiling
/// (step 16 of Fig. 4: the current inherited priority); a fixed one its
/// thread's (Sect. 4.1); an NPCS one the top.
fn passed_on(i: &Interface, carried: Priority, ceiling: Priority) -> Priority {
    match i.kind {
        Kind::Propagated => carried,
        Kind::Inherited => carried.max(ceiling),
        Kind::Fixed => i.priority.unwrap_or(ceiling).max(ceiling),
        Kind::FixedNpcs => TOP,
    }
}

/// The lowest priority such a request carries (for `p_min`).
fn passed_on_low(i: &Interface, carried: Priority, ceiling: Priority) -> Priority {
    match i.kind {
        Kind::Propagated | Kind::Inherited => carried,
        Kind::Fixed => i.priority.unwrap_or(ceiling).max(ceiling),
        Kind::FixedNpcs => TOP,
    }
}

/// Fills the derived per-interface facts of `c` for tasks of these
/// priorities.
pub(super) fn derive(c: &mut Components, priority: &[Priority]) {
    let n = c.interfaces.len();
    c.ceiling = vec![0; n];
    c.floor = vec![Priority::MAX; n];
    // A fixed point: a ceiling can rise a chain further down (an
    // inherited or fixed interface passes its ceiling on); every pass
    // that changes anything raises a ceiling, and they are bounded.
    loop {
        let mut changed = false;
        for (t, rs) in c.requests.iter().enumerate() {
            let p = priority[t];
            walk_ceiling(
                &c.interfaces,
                rs,
                p,
                p,
                &mut c.ceiling,
                &mut c.floor,
                &mut changed,
            );
        }
        if !changed {
            break;
        }
    }
    for f in &mut c.floor {
        if *f == Priority::MAX {
            *f = 0;
        }
    }
    c.callers = vec![Vec::new(); n];
    c.nest = vec![false; n];
    for (t, rs) in c.requests.iter().enumerate() {
        visit(rs, &mut Vec::new(), &mut |r, held| {
            if c.callers[r.interface].last() != Some(&t) {
                c.callers[r.interface].push(t);
            }
            if held
                .iter()
                .any(|&h| c.interfaces[h].kind == Kind::Inherited)
            {
                c.nest[r.interface] = true;
            }
        });
    }
    c.pool = (0..n).map(|i| pool_size(c, i)).collect();
}

#[allow(clippy::too_many_arguments)]
fn walk_ceiling(
    ifs: &[Interface],
    rs: &[Request],
    high: Priority,
    low: Priority,
    ceiling: &mut [Priority],
    floor: &mut [Priority],
    changed: &mut bool,
) {
    for r in rs {
        let i = r.interface;
        if high > ceiling[i] {
            ceiling[i] = high;
            *changed = true;
        }
        if low < floor[i] {
            floor[i] = low;
            *changed = true;
        }
        let (h, l) = (
            passed_on(&ifs[i], high, ceiling[i]),
            passed_on_low(&ifs[i], low, ceiling[i]),
        );
        walk_ceiling(ifs, &r.inner, h, l, ceiling, floor, changed);
    }
}

/// Calls `f` on every request with the interfaces held above it (the
/// chain's ancestors), outermost first.
fn visit<'a>(rs: &'a [Request], above: &mut Vec<usize>, f: &mut impl FnMut(&'a Request, &[usize])) {
    for r in rs {
        f(r, above);
        above.push(r.interface);
        visit(&r.inner, above, f);
        above.pop();
    }
}

/// The threads interface `i` needs. A task has one job at a time (the
/// analyzer refuses deadlines past the period for tasks that request),
/// so one control flow: it is in `i` at most as many times at once as
/// one of its chains enters `i` (recursion through propagated
/// interfaces). Requests that hold an exclusive interface upstream are
/// limited further: two of them can be in `i` together only if they hold
/// different ones, so those of all tasks together number at most the
/// distinct outermost exclusive interfaces held. A fixed interface has
/// one thread; `nest` needs one more.
fn pool_size(c: &Components, i: usize) -> u32 {
    if c.interfaces[i].kind.single_thread() {
        return 1;
    }
    // Per task: the most nested entries into `i` on one chain, whether
    // some entry holds nothing exclusive, and the outermost exclusive
    // interfaces its entries hold.
    let mut free = 0u32;
    let mut held_tasks = 0u32;
    let mut held_by: Vec<(usize, u32)> = Vec::new();
    for rs in &c.requests {
        let mut depth_max = 0u32;
        let mut unheld = false;
        let mut outer: Vec<(usize, u32)> = Vec::new();
        entries(rs, i, &mut Vec::new(), 0, &mut |depth, held| {
            depth_max = depth_max.max(depth);
            match held.iter().find(|&&h| c.interfaces[h].kind.exclusive()) {
                None => unheld = true,
                Some(&e) => match outer.iter_mut().find(|x| x.0 == e) {
                    Some(x) => x.1 = x.1.max(depth),
                    None => outer.push((e, depth)),
                },
            }
        });
        if depth_max == 0 {
            continue;
        }
        if unheld {
            free += depth_max;
        } else {
            held_tasks += depth_max;
            for (e, d) in outer {
                match held_by.iter_mut().find(|x| x.0 == e) {
                    Some(x) => x.1 = x.1.max(d),
                    None => held_by.push((e, d)),
                }
            }
        }
    }
    let by_interface: u32 = held_by.iter().map(|x| x.1).sum();
    free + held_tasks.min(by_interface) + c.nest[i] as u32
}

/// Calls `f(depth, held)` for every entry of the chains in `rs` into
/// interface `i`: `depth` counts the entries into `i` on the chain so far
/// (this one included), `held` the interfaces above it other than `i`.
fn entries(
    rs: &[Request],
    i: usize,
    above: &mut Vec<usize>,
    depth: u32,
    f: &mut impl FnMut(u32, &[usize]),
) {
    for r in rs {
        let d = depth + (r.interface == i) as u32;
        if r.interface == i {
            let held: Vec<usize> = above.iter().copied().filter(|&h| h != i).collect();
            f(d, &held);
        }
        above.push(r.interface);
        entries(&r.inner, i, above, d, f);
        above.pop();
    }
}
