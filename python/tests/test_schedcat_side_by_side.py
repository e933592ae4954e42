"""SchedCAT itself beside rtsync.schedcat, on task sets built with
SchedCAT's own classes: the layer reads them as they are (a SchedCAT
script changes its analysis call, not its model), and rtsync's bounds
are at most SchedCAT's on every set both accept, its verdicts never
stricter. This test found rtsync's last DPCP gap (a task whose requests
are all served on its own CPU counted as suspending, its sections charged
twice in the suspension-as-execution form: fp.rs, `Engine::suspension`). Runs where RTSYNC_SCHEDCAT names SchedCAT's Python 3 port
(scripts/schedcat/build.sh); skips with a message otherwise."""

import os
import random
import sys

import pytest

from rtsync import schedcat as layer

PORT = os.environ.get("RTSYNC_SCHEDCAT")
pytestmark = pytest.mark.skipif(
    not PORT, reason="RTSYNC_SCHEDCAT unset: build SchedCAT's port with scripts/schedcat/build.sh and point to it")


def schedcat():
    sys.path.insert(0, PORT)
    import schedcat.locking.bounds as lb
    import schedcat.model.resources as resources
    import schedcat.model.tasks as tasks
    import schedcat.sched.fp as fp

    return tasks, resources, lb, fp


def random_set(tasks, resources, lb, rng, cpus=2, n=6, nres=2):
    """Rate-monotonic tasks on `cpus` CPUs (round robin), microseconds."""
    periods = sorted(rng.choice([5000, 10000, 20000, 25000, 40000, 50000, 100000]) for _ in range(n))
    ts = tasks.TaskSystem()
    for k, p in enumerate(periods):
        t = tasks.SporadicTask(rng.randint(p // 20, p // 6), p)
        t.partition = k % cpus
        ts.append(t)
    ts.assign_ids()
    resources.initialize_resource_model(ts)
    lb.assign_fp_preemption_levels(ts)
    for t in ts:
        for r in range(nres):
            if rng.random() < 0.5:
                for _ in range(rng.randint(1, 2)):
                    t.resmodel[r].add_request(rng.randint(20, 300))
        # The requests run within the task's execution, as in SchedCAT.
        held = sum(q.max_requests * q.max_length for q in t.resmodel.values())
        t.cost = max(t.cost, held + 10)
    return ts


def schedcat_verdict(ts, lb, fp, apply):
    """SchedCAT's verdict and response times under `apply` (one of its
    apply_*_bounds), iterated as its tests do (tests/fp_blocking.py;
    scripts/schedcat/analyse.py)."""
    for t in ts:
        t.uninflated_cost = t.cost
        t.response_time = t.cost
    parts = {}
    for t in ts:
        parts.setdefault(t.partition, type(ts)()).append(t)
    try:
        for _ in range(100):
            old = [t.response_time for t in ts]
            for t in ts:
                t.cost = t.uninflated_cost
            apply(ts)
            if not all(fp.is_schedulable(1, part) for part in parts.values()):
                return False, None
            if [t.response_time for t in ts] == old:
                return True, [t.response_time for t in ts]
        return False, None
    finally:
        for t in ts:
            t.cost = t.uninflated_cost


def sync(cpus):
    """DPCP's resources spread over the CPUs, which host tasks too: some
    requests are served on their own CPU."""
    return {r: r % cpus for r in range(8)}


# The protocols whose bounds rtsync claims at most SchedCAT's. MPCP joined
# when rtsync's protocol took Lakshmanan et al.'s per-CPU remote ceilings,
# which SchedCAT's bound assumes (docs/ANALYSIS.md, MPCP correction 3).
CASES = {
    "mpcp": lambda lb, m: (lambda ts: lb.apply_mpcp_bounds(ts)),
    "msrp": lambda lb, m: (lambda ts: lb.apply_msrp_bounds(ts, m)),
    "fmlp-l": lambda lb, m: (lambda ts: lb.apply_part_fmlp_bounds(ts)),
    "dpcp": lambda lb, m: (lambda ts: lb.apply_dpcp_bounds(ts, sync(m))),
}

# (CPUs, tasks, resources): the shapes searched.
SHAPES = [(2, 6, 2), (3, 9, 3), (4, 12, 4), (2, 4, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("protocol", sorted(CASES))
def test_rtsync_reads_schedcat_task_sets_and_is_never_looser(protocol, shape):
    cpus, n, nres = shape
    tasks, resources, lb, fp = schedcat()
    apply = CASES[protocol](lb, cpus)
    rng = random.Random(2026 + n)
    both = 0
    for k in range(150):
        ts = random_set(tasks, resources, lb, rng, cpus=cpus, n=n, nres=nres)
        ok_sc, resp_sc = schedcat_verdict(ts, lb, fp, apply)
        # The SchedCAT objects themselves, as a ported script passes them.
        a = layer.apply_bounds(ts, protocol, sync_cpu=sync(cpus) if protocol == "dpcp" else None)
        assert not (ok_sc and not a.schedulable), f"set {k}: SchedCAT accepts, rtsync rejects\n{a}"
        if ok_sc:
            both += 1
            for t, r_sc, b in zip(ts, resp_sc, a.tasks):
                assert b.response is not None and b.response / 1000 <= r_sc, (k, t, b.response, r_sc)
    assert both > 5, f"only {both} sets accepted by both: nothing compared"
