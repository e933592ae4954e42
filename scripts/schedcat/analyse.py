"""Runs SchedCAT's analyses on task sets that rtsync hands over, timing them.

`rtsync bench analysis --schedcat DIR` starts this script with the port
that `build.sh` made in DIR, writes the sets as JSON on its standard input
and reads the answers as JSON on its standard output. Nothing here decides
a bound: every number comes from SchedCAT's own bound functions and its
uniprocessor response-time analysis, driven the way SchedCAT's own tests
drive them (tests/fp_blocking.py): start from R = C, apply the bounds,
bound every partition's response times, repeat until no response time
changes.

Input:
  {"analyses": ["mpcp", ...], "repeat": 1,
   "sets": [{"cpus": 4,
             "sync": [cpu of resource 0, ...],       (DPCP, DFLP)
             "tasks": [{"period": ns, "deadline": ns, "cost": ns,
                        "cpu": 0, "requests": [[resource, count, longest ns]]},
                       ...]}]}                        (highest priority first)
Output:
  {"analyses": {"mpcp": {"seconds": s, "set_seconds": [s per set, ...],
                 "sets": [{"schedulable": true,
                 "tasks": [{"response": ns or null, "blocking": ns,
                            "remote": ns}]}]}}}

"seconds" covers the analysis alone, all repeats ("set_seconds": each
set's fastest repeat): the task objects are
built before the clock starts (SchedCAT changes them in place, so each
repeat gets its own), as rtsync's side builds its systems before its clock.
"""

import json
import sys
import time
from collections import defaultdict

import schedcat.locking.bounds as lb
import schedcat.model.resources as resources
import schedcat.model.tasks as tasks
import schedcat.sched.fp as fp

MAX_ROUNDS = 100


def build(spec):
    """SchedCAT's model of one set: tasks in priority order, partitions."""
    ts = tasks.TaskSystem()
    for t in spec["tasks"]:
        st = tasks.SporadicTask(t["cost"], t["period"], t["deadline"])
        st.partition = t["cpu"]
        ts.append(st)
    ts.assign_ids()
    resources.initialize_resource_model(ts)
    lb.assign_fp_preemption_levels(ts)
    for st, t in zip(ts, spec["tasks"]):
        for res, count, length in t["requests"]:
            req = st.resmodel[res]
            req.max_writes = count
            req.max_write_length = length
            req.max_reads = 0
            req.max_read_length = 0
        st.uninflated_cost = st.cost
    parts = defaultdict(tasks.TaskSystem)
    for st in ts:
        parts[st.partition].append(st)
    return ts, list(parts.values())


def msrp(ts, spec):
    lb.apply_msrp_bounds(ts, spec["cpus"])


def sync_map(spec):
    return {r: cpu for r, cpu in enumerate(spec.get("sync", []))}


BOUNDS = {
    "mpcp": lambda ts, spec: lb.apply_mpcp_bounds(ts),
    "dpcp": lambda ts, spec: lb.apply_dpcp_bounds(ts, sync_map(spec)),
    "fmlp+": lambda ts, spec: lb.apply_part_fmlp_bounds(ts, preemptive=True),
    "msrp": msrp,
    "lp-mpcp": lambda ts, spec: lb.apply_lp_mpcp_bounds(ts),
    "lp-dpcp": lambda ts, spec: lb.apply_lp_dpcp_bounds(ts, sync_map(spec)),
    "lp-fmlp+": lambda ts, spec: lb.apply_lp_part_fmlp_bounds(ts),
    "lp-dflp": lambda ts, spec: lb.apply_lp_dflp_bounds(ts, sync_map(spec)),
    "lp-msrp": lambda ts, spec: lb.apply_pfp_lp_msrp_bounds(ts),
}


def analyse(name, ts, parts, spec):
    """SchedCAT's verdict after the iteration of tests/fp_blocking.py."""
    apply = BOUNDS[name]
    for t in ts:
        t.response_time = t.cost
        t.response_old = None
    for _ in range(MAX_ROUNDS):
        for t in ts:
            t.cost = t.uninflated_cost
            t.response_old = t.response_time
        apply(ts, spec)
        for part in parts:
            if not fp.is_schedulable(1, part):
                return False
        if all(t.response_time == t.response_old for t in ts):
            return True
    return False


def row(t, ok):
    blocked = getattr(t, "blocked", 0)
    remote = getattr(t, "suspended", None)
    if remote is None:
        remote = getattr(t, "remote_blocking", 0)
    return {
        "response": int(t.response_time) if ok else None,
        "blocking": int(blocked),
        "remote": int(remote),
    }


def main():
    job = json.load(sys.stdin)
    repeat = max(1, int(job.get("repeat", 1)))
    out = {}
    for name in job["analyses"]:
        if name not in BOUNDS:
            sys.exit(f"analyse.py: no SchedCAT analysis named {name!r}; known: {sorted(BOUNDS)}")
        if name.startswith("lp-") and not lb.lp_cpp_available:
            sys.exit("analyse.py: this SchedCAT build has no LP solver (GLPK); rebuild with libglpk-dev")
        models = [[build(s) for s in job["sets"]] for _ in range(repeat)]
        verdicts = []
        # Each set's own time too (its fastest repeat), for the time by
        # verdict; the two clock reads per set cost well under 0.1% of
        # the shortest set's analysis.
        per_set = [float("inf")] * len(job["sets"])
        clock = time.perf_counter
        t0 = clock()
        for rep in models:
            verdicts = []
            for k, ((ts, parts), spec) in enumerate(zip(rep, job["sets"])):
                s0 = clock()
                verdicts.append(analyse(name, ts, parts, spec))
                per_set[k] = min(per_set[k], clock() - s0)
        seconds = clock() - t0
        sets = []
        for (ts, _), ok in zip(models[-1], verdicts):
            sets.append({"schedulable": ok, "tasks": [row(t, ok) for t in ts]})
        out[name] = {"seconds": seconds, "set_seconds": per_set, "sets": sets}
    json.dump({"analyses": out}, sys.stdout)


if __name__ == "__main__":
    main()
