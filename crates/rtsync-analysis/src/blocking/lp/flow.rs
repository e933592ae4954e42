//! The greedy optimum of a blocking LP whose constraints form a flow
//! network (the MPCP program, [`super::mpcp`]).
//!
//! Some programs give each variable pair a choice of *where* its units
//! count: an MPCP request that delays a job counts either against the
//! job's request it blocks directly or against the holder it preempts. A
//! unit then has to be routed: from its variable through one of the
//! constraint rows it may use to a sink, every row an arc whose capacity
//! is the row's bound. The amounts that the variables can carry together
//! are exactly the flows of that network, and those amounts form a
//! polymatroid (the rank of a set of variables is the minimum cut between
//! them and the sink, a submodular function). A linear objective over a
//! polymatroid is maximised by the greedy rule (Edmonds 1970): take the
//! variables heaviest first, each as far as it can go while the lighter
//! ones wait. "As far as it can go" is an augmenting-path max flow from
//! that variable's node, which may reroute the units of the heavier ones
//! but never lowers their amounts. With integer capacities the optimum
//! is integral, so it is also the optimum of the linear relaxation, which
//! is what the paper's LP asks for.

/// A flow network with integer capacities and one sink.
#[derive(Default)]
pub(crate) struct Network {
    /// Per node, the first of its arcs (`NONE` when it has none).
    first: Vec<usize>,
    /// Arcs in pairs: arc `2k` and its reverse `2k + 1`.
    arcs: Vec<Arc>,
    /// Per node, the arc a search reached it by (scratch), valid where
    /// `seen` holds the current search's stamp.
    via: Vec<usize>,
    /// Per node, the last search that reached it: no clearing per search.
    seen: Vec<u32>,
    /// The current search's stamp.
    stamp: u32,
    /// Per node, whether it is known not to reach the sink in the residual
    /// network. That never changes back: an augmenting path runs through
    /// nodes that reach the sink, so a node that reached none of them
    /// before reaches none after (the path's new reverse arcs leave its
    /// nodes only). Searches skip dead nodes, which makes the failing
    /// searches, one per variable that does not get all it wants, cost
    /// the arcs of the region they kill, once over the whole greedy.
    dead: Vec<bool>,
    /// The search's queue (scratch).
    queue: Vec<usize>,
}

struct Arc {
    to: usize,
    /// Residual capacity.
    cap: u64,
    /// The node's next arc.
    next: usize,
}

const NONE: usize = usize::MAX;

impl Network {
    /// A network of `nodes` nodes and no arcs.
    pub fn new(nodes: usize) -> Network {
        Network {
            first: vec![NONE; nodes],
            ..Network::default()
        }
    }

    /// Adds a node, returning it.
    pub fn node(&mut self) -> usize {
        self.first.push(NONE);
        self.first.len() - 1
    }

    /// Adds the arc `from -> to` with capacity `cap` (and its reverse,
    /// empty); a zero capacity adds nothing.
    pub fn arc(&mut self, from: usize, to: usize, cap: u64) {
        if cap == 0 {
            return;
        }
        // A new arc can revive a dead node.
        self.dead.fill(false);
        for (a, b, c) in [(from, to, cap), (to, from, 0)] {
            self.arcs.push(Arc {
                to: b,
                cap: c,
                next: self.first[a],
            });
            self.first[a] = self.arcs.len() - 1;
        }
    }

    /// Sends up to `want` units from `from` to `sink` along augmenting
    /// paths (shortest first), returning how many went. Units sent before
    /// from other nodes may be rerouted, never reduced.
    pub fn push(&mut self, from: usize, sink: usize, want: u64) -> u64 {
        let mut sent = 0;
        while sent < want {
            let Some(room) = self.path(from, sink) else {
                break;
            };
            let k = room.min(want - sent);
            let mut v = sink;
            while v != from {
                let a = self.via[v];
                self.arcs[a].cap -= k;
                self.arcs[a ^ 1].cap += k;
                v = self.arcs[a ^ 1].to;
            }
            sent += k;
        }
        sent
    }

    /// A breadth-first search from `from` to `sink` in the residual
    /// network, leaving the path in `via`: its least residual capacity,
    /// or `None` when the sink is out of reach.
    fn path(&mut self, from: usize, sink: usize) -> Option<u64> {
        let nodes = self.first.len();
        if self.seen.len() < nodes {
            self.via.resize(nodes, NONE);
            self.seen.resize(nodes, 0);
            self.dead.resize(nodes, false);
        }
        if self.dead[from] {
            return None;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        self.seen[from] = stamp;
        self.queue.clear();
        self.queue.push(from);
        let mut head = 0;
        while head < self.queue.len() && self.seen[sink] != stamp {
            let v = self.queue[head];
            head += 1;
            let mut a = self.first[v];
            while a != NONE {
                let w = self.arcs[a].to;
                if self.arcs[a].cap > 0 && self.seen[w] != stamp && !self.dead[w] {
                    self.seen[w] = stamp;
                    self.via[w] = a;
                    self.queue.push(w);
                }
                a = self.arcs[a].next;
            }
        }
        if self.seen[sink] != stamp {
            for &v in &self.queue {
                self.dead[v] = true;
            }
            return None;
        }
        let mut room = u64::MAX;
        let mut v = sink;
        while v != from {
            let a = self.via[v];
            room = room.min(self.arcs[a].cap);
            v = self.arcs[a ^ 1].to;
        }
        Some(room)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The case that needs rerouting: the heavy variable can use row A or
    /// row B (one unit each), the light one only A. Routing the heavy one
    /// through A first would leave the light one nothing; the augmenting
    /// path moves it to B.
    #[test]
    fn a_later_variable_reroutes_an_earlier_one() {
        let mut n = Network::new(5);
        let (heavy, light, a, b, sink) = (0, 1, 2, 3, 4);
        // Arcs are searched last-added first: the heavy unit goes via A.
        n.arc(heavy, b, 1);
        n.arc(heavy, a, 1);
        n.arc(light, a, 1);
        n.arc(a, sink, 1);
        n.arc(b, sink, 1);
        assert_eq!(n.push(heavy, sink, 1), 1);
        assert_eq!(n.push(light, sink, 5), 1);
        assert_eq!(n.push(heavy, sink, 5), 0, "both rows are full");
    }

    #[test]
    fn push_stops_at_the_cut() {
        let mut n = Network::new(3);
        n.arc(0, 1, 7);
        n.arc(1, 2, 4);
        assert_eq!(n.push(0, 2, 10), 4);
        assert_eq!(n.push(0, 2, 10), 0);
    }
}
