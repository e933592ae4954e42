//! Cycles in the lock-order graph (an edge `a -> b` when some task locks
//! `b` while holding `a`): the potential deadlocks of nested locking, and
//! which of them the protocols defuse ([`check`], the one home of that
//! decision: validation words it, the generators' repairs read it).

use crate::derived::Facts;
use crate::system::{ResourceId, System, TaskId};

/// Where a system's lock order stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// No cycle.
    Acyclic,
    /// Every cycle is defused by the protocols: one of them, as a closed
    /// walk `[r0, r1, ..., r0]`.
    Defused(Vec<ResourceId>),
    /// A cycle that can close (a potential deadlock), as a closed walk,
    /// and, where its resources would otherwise defuse it, what lets it
    /// close.
    Unsafe {
        /// The cycle, as a closed walk.
        cycle: Vec<ResourceId>,
        /// Why resources that never let a job wait once it runs do here.
        closes: Option<Closes>,
    },
}

/// What lets a cycle through NPCS, IPCP or SRP resources close: a job that
/// runs while a holder of one of them cannot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closes {
    /// `task` asks for `resource` while holding `lender`, whose waiters
    /// lend it their priority: above `resource`'s ceiling, it preempts a
    /// holder of `resource` and waits for it.
    Lent {
        /// The resource whose waiters lend their priority.
        lender: ResourceId,
        /// The cycle's resource asked for.
        resource: ResourceId,
        /// The task that asks.
        task: TaskId,
    },
    /// `task` asks for `inner`, whose waiters suspend, while holding
    /// `held`: suspended there, it lets jobs at or below `held`'s ceiling
    /// run, take the cycle's other resources and wait for `held`.
    Suspends {
        /// The cycle's resource held.
        held: ResourceId,
        /// The resource whose waiters suspend, asked for inside it.
        inner: ResourceId,
        /// The task that asks.
        task: TaskId,
    },
}

/// Whether `sys`'s lock order can deadlock. A protocol that prevents
/// deadlock (the ceiling protocols, SRP, NPCS, FMLP's group locks) does so
/// among its own resources only, so a cycle is defused when every edge on
/// it joins two resources of one such protocol, or two local NPCS, IPCP
/// or SRP resources (on one CPU a job under these never waits once it
/// runs). The second argument assumes a job runs at most at the ceilings:
/// while it holds a resource whose waiters lend it their priority (PIP,
/// or any protocol that suspends outside PCP's ceiling test, whose own
/// inheritance Sha, Rajkumar and Lehoczky's Theorem 10 covers), it can
/// preempt the holder of a resource it then asks for, where that holder
/// can be preempted (not NPCS), and wait for it: such an edge defuses
/// nothing (found through a component topology, 2026-12-03). Nor does an
/// edge into a resource whose holder may suspend while holding it (a PIP
/// request inside an IPCP section): suspended, it lets a job at or below
/// the ceiling run, take another of the cycle's resources and ask for it
/// (found by the `nested` shape's cycles in the uniprocessor mix, seed
/// 361, 2026-12-03).
pub fn check(sys: &System, f: &Facts) -> Order {
    let mut edges: Vec<(ResourceId, ResourceId)> =
        f.nesting.iter().map(|&(a, b, _)| (a, b)).collect();
    edges.sort_unstable();
    edges.dedup();
    let n = sys.resources.len();
    let Some(any) = find_cycle(n, &edges) else {
        return Order::Acyclic;
    };
    let family = |r: ResourceId| crate::mix::family(sys, r, f.global[r]);
    let immediate = |r: ResourceId| !f.global[r] && family(r).never_waits();
    let lends = |r: ResourceId| family(r).suspends() && !family(r).ceiling_tested();
    let closes = |a: ResourceId, b: ResourceId| -> Option<Closes> {
        if !(immediate(a) && immediate(b)) || family(b).keeps_cpu() {
            return None;
        }
        let lent = f
            .nesting
            .iter()
            .filter(|&&(x, y, _)| x == a && y == b)
            .find_map(|&(_, _, t)| {
                f.nesting
                    .iter()
                    .find(|&&(l, y, u)| y == b && u == t && lends(l))
                    .map(|&(lender, resource, task)| Closes::Lent {
                        lender,
                        resource,
                        task,
                    })
            });
        lent.or_else(|| {
            f.nesting
                .iter()
                .find(|&&(x, s, _)| x == b && family(s).suspends())
                .map(|&(held, inner, task)| Closes::Suspends { held, inner, task })
        })
    };
    let safe = |a: ResourceId, b: ResourceId| {
        if immediate(a) && immediate(b) {
            closes(a, b).is_none()
        } else {
            family(a) == family(b) && family(a).prevents_deadlock()
        }
    };
    edges
        .iter()
        .filter(|&&(a, b)| !safe(a, b))
        .find_map(|&(a, b)| {
            cycle_through(n, &edges, (a, b)).map(|cycle| Order::Unsafe {
                cycle,
                closes: closes(a, b),
            })
        })
        .unwrap_or(Order::Defused(any))
}

/// Returns one cycle as a closed walk `[r0, r1, ..., r0]`, or `None`.
pub fn find_cycle(nodes: usize, edges: &[(usize, usize)]) -> Option<Vec<usize>> {
    let mut adj = vec![Vec::new(); nodes];
    for &(a, b) in edges {
        adj[a].push(b);
    }
    for list in &mut adj {
        list.sort_unstable();
        list.dedup();
    }
    // Iterative three-colour DFS.
    #[derive(Clone, Copy, PartialEq)]
    enum C {
        White,
        Grey,
        Black,
    }
    let mut colour = vec![C::White; nodes];
    for root in 0..nodes {
        if colour[root] != C::White {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        colour[root] = C::Grey;
        while let Some(&mut (n, ref mut next)) = stack.last_mut() {
            if let Some(&m) = adj[n].get(*next) {
                *next += 1;
                match colour[m] {
                    C::White => {
                        colour[m] = C::Grey;
                        stack.push((m, 0));
                    }
                    C::Grey => {
                        // The grey nodes are exactly the stack: the cycle is
                        // the stack from `m` up, closed by the back edge.
                        let from = stack.iter().position(|&(x, _)| x == m).unwrap();
                        let mut cycle: Vec<usize> = stack[from..].iter().map(|&(x, _)| x).collect();
                        cycle.push(m);
                        return Some(cycle);
                    }
                    C::Black => {}
                }
            } else {
                colour[n] = C::Black;
                stack.pop();
            }
        }
    }
    None
}

/// Returns a cycle that takes the edge `a -> b`, as a closed walk
/// `[a, b, ..., a]` through the fewest resources, or `None` when no path
/// leads from `b` back to `a`.
pub fn cycle_through(
    nodes: usize,
    edges: &[(usize, usize)],
    (a, b): (usize, usize),
) -> Option<Vec<usize>> {
    let mut adj = vec![Vec::new(); nodes];
    for &(x, y) in edges {
        adj[x].push(y);
    }
    // Breadth first from `b`: the first time `a` is reached, the path is
    // a shortest one.
    let mut from = vec![usize::MAX; nodes];
    from[b] = b;
    let mut queue = std::collections::VecDeque::from([b]);
    while let Some(n) = queue.pop_front() {
        if n == a {
            let mut path = vec![a];
            let mut x = a;
            while x != b {
                x = from[x];
                path.push(x);
            }
            path.push(a);
            path.reverse();
            return Some(path);
        }
        for &m in &adj[n] {
            if from[m] == usize::MAX {
                from[m] = n;
                queue.push_back(m);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_closed_walk(c: &[usize], edges: &[(usize, usize)]) -> bool {
        c.len() >= 2
            && c[0] == *c.last().unwrap()
            && c.windows(2).all(|w| edges.contains(&(w[0], w[1])))
    }

    #[test]
    fn finds_two_and_three_cycles() {
        let e = [(0, 1), (1, 0)];
        assert!(is_closed_walk(&find_cycle(2, &e).unwrap(), &e));
        let e = [(0, 1), (1, 2), (2, 0), (3, 0)];
        let c = find_cycle(4, &e).unwrap();
        assert!(is_closed_walk(&c, &e), "{c:?}");
        assert_eq!(c.len(), 4);
    }

    #[test]
    fn a_cycle_through_an_edge_takes_that_edge_and_closes() {
        // Two cycles share node 0: 0-1-0 and 0-2-3-0.
        let e = [(0, 1), (1, 0), (0, 2), (2, 3), (3, 0)];
        assert_eq!(cycle_through(4, &e, (2, 3)), Some(vec![2, 3, 0, 2]));
        assert_eq!(cycle_through(4, &e, (0, 1)), Some(vec![0, 1, 0]));
        assert_eq!(cycle_through(3, &[(0, 1), (1, 2)], (1, 2)), None);
    }

    #[test]
    fn acyclic_graphs_have_none() {
        assert_eq!(find_cycle(3, &[(0, 1), (1, 2), (0, 2)]), None);
        assert_eq!(find_cycle(0, &[]), None);
    }

    proptest::proptest! {
        #[test]
        fn any_reported_cycle_is_real(edges in proptest::collection::vec((0usize..6, 0usize..6), 0..12)) {
            if let Some(c) = find_cycle(6, &edges) {
                proptest::prop_assert!(is_closed_walk(&c, &edges));
            } else {
                // No cycle: a topological order exists (Kahn).
                let mut indeg = [0usize; 6];
                let mut uniq = edges.clone(); uniq.sort(); uniq.dedup();
                for &(_, b) in &uniq { indeg[b] += 1; }
                let mut q: Vec<usize> = (0..6).filter(|&n| indeg[n] == 0).collect();
                let mut seen = 0;
                while let Some(n) = q.pop() {
                    seen += 1;
                    for &(a, b) in &uniq { if a == n { indeg[b] -= 1; if indeg[b] == 0 { q.push(b); } } }
                }
                proptest::prop_assert_eq!(seen, 6);
            }
        }
    }
}
