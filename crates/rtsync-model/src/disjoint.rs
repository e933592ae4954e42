//! Disjoint sets over `0..n` (union-find): the groups rtsync derives by
//! joining things that share something, resources nested in one another
//! (FMLP's group locks, [`crate::Facts::group`]), tasks that share a
//! resource (the synchronization-aware partitioning's bundles), CPUs that
//! share a resource (whose lost time reaches one another's tasks). Each
//! set is represented by its smallest member, so the groups come out the
//! same whatever order the joins are made in.

/// Disjoint sets over `0..n`, each at first alone.
#[derive(Clone, Debug)]
pub struct Disjoint {
    parent: Vec<usize>,
}

impl Disjoint {
    /// `n` sets of one member each.
    pub fn new(n: usize) -> Disjoint {
        Disjoint {
            parent: (0..n).collect(),
        }
    }

    /// The smallest member of `x`'s set (halving the path on the way).
    pub fn root(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the sets of `a` and `b`.
    pub fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.parent[a.max(b)] = a.min(b);
    }

    /// Each member's set, as its smallest member.
    pub fn roots(&mut self) -> Vec<usize> {
        (0..self.parent.len()).map(|x| self.root(x)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Joined in any order, a chain of joins ends in one set named by its
    /// smallest member; members never joined stay alone.
    #[test]
    fn joined_members_share_the_smallest_root() {
        for order in [[(4, 2), (2, 6), (6, 1)], [(6, 1), (2, 6), (4, 2)]] {
            let mut d = Disjoint::new(8);
            for (a, b) in order {
                d.join(a, b);
            }
            assert_eq!(d.roots(), vec![0, 1, 1, 3, 1, 5, 1, 7]);
        }
    }
}
