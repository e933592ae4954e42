//! A task body flattened into the operations a job executes in order.

use rtsync_model::{ResourceId, Segment, Time};

/// One step of a task's flattened program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Execute this long.
    Compute(Time),
    /// Self-suspend this long.
    Suspend(Time),
    /// Request units of a resource.
    Lock(ResourceId, u32),
    /// Release a resource.
    Unlock(ResourceId),
}

/// The operations of a body, sections opened and closed around their
/// contents.
pub fn flatten(body: &[Segment]) -> Vec<Op> {
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// The worst-case duration of each timed operation of `body`
/// (computations and self-suspensions), in program order: what a plan's
/// `exec` lists are indexed by ([`crate::plan::TaskPlan::exec`]).
pub fn timed_worst(body: &[Segment]) -> Vec<Time> {
    flatten(body)
        .into_iter()
        .filter_map(|op| match op {
            Op::Compute(w) | Op::Suspend(w) => Some(w),
            Op::Lock(..) | Op::Unlock(_) => None,
        })
        .collect()
}

/// For each operation of [`flatten`]`(body)`, the preorder number
/// ([`rtsync_model::preorder`]) of the segment it belongs to (a section's
/// lock and unlock both belong to the section).
pub fn segment_numbers(body: &[Segment]) -> Vec<usize> {
    fn walk(body: &[Segment], next: &mut usize, out: &mut Vec<usize>) {
        for s in body {
            let me = *next;
            *next += 1;
            out.push(me);
            if let Segment::Lock { body, .. } = s {
                walk(body, next, out);
                out.push(me);
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut 0, &mut out);
    out
}

fn walk(body: &[Segment], out: &mut Vec<Op>) {
    for s in body {
        match s {
            Segment::Compute(t) => out.push(Op::Compute(*t)),
            Segment::Suspend(t) => out.push(Op::Suspend(*t)),
            Segment::Lock {
                resource,
                units,
                body,
            } => {
                out.push(Op::Lock(*resource, *units));
                walk(body, out);
                out.push(Op::Unlock(*resource));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_sections_close_in_reverse_order() {
        let body = vec![
            Segment::Compute(Time::from_us(1)),
            Segment::Lock {
                resource: 0,
                units: 1,
                body: vec![Segment::Lock {
                    resource: 1,
                    units: 2,
                    body: vec![Segment::Compute(Time::from_us(2))],
                }],
            },
        ];
        assert_eq!(
            flatten(&body),
            vec![
                Op::Compute(Time::from_us(1)),
                Op::Lock(0, 1),
                Op::Lock(1, 2),
                Op::Compute(Time::from_us(2)),
                Op::Unlock(1),
                Op::Unlock(0),
            ]
        );
        // Compute 0, section 1 (lock, unlock), section 2 inside, compute 3.
        assert_eq!(segment_numbers(&body), vec![0, 1, 2, 3, 2, 1]);
        let pre = rtsync_model::preorder(&body);
        assert!(matches!(pre[3], Segment::Compute(t) if *t == Time::from_us(2)));
    }
}
