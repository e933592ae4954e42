"""SchedCAT's shapes over rtsync, for porting a SchedCAT script.

SchedCAT (Brandenburg's Schedulability test Collection And Toolkit)
describes a task set as ``SporadicTask(exec_cost, period, deadline)``
objects in a ``TaskSystem`` (a list; list order is priority order, first
highest), each with a ``partition`` and a resource model filled by
``initialize_resource_model`` and ``t.resmodel[res_id].add_request(length)``.
This module takes those same shapes and answers with rtsync's analysis:

    from rtsync.schedcat import SporadicTask, TaskSystem, initialize_resource_model, is_schedulable
    ts = TaskSystem([SporadicTask(2000, 10000), SporadicTask(5000, 40000)])
    ts.assign_ids()
    initialize_resource_model(ts)
    ts[0].resmodel[0].add_request(100)
    ts[1].resmodel[0].add_request(300)
    for t, cpu in zip(ts, [0, 1]):
        t.partition = cpu
    is_schedulable(ts, "mpcp")                 # True or False
    ts[0].response_time, ts[0].blocked         # set, as SchedCAT's apply_*_bounds set them

Times are integers in ``time_unit`` (microseconds unless told). Each task
runs its requests one after another, the execution spread evenly around
them, one request per section (SchedCAT's model has no order or nesting;
rtsync's bounds for these protocols do not depend on where a section
sits). A resource with ``sync_cpu`` set (DPCP, DFLP) is served there.
docs/PYTHON.md has the porting table.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional

from . import Analysis, analyze, from_dict

__all__ = [
    "ResourceRequirement", "SporadicTask", "TaskSystem", "apply_bounds", "initialize_resource_model",
    "is_schedulable", "to_system",
]

_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


class ResourceRequirement:
    """What a task asks of one resource: how many requests, how long the
    longest (SchedCAT's ``ResourceRequirement``; reads count as writes)."""

    def __init__(self, res_id, num_writes=0, write_length=0, num_reads=0, read_length=0):
        self.res_id = res_id
        self.max_writes = num_writes
        self.max_write_length = write_length
        self.max_reads = num_reads
        self.max_read_length = read_length

    @property
    def max_requests(self) -> int:
        return self.max_writes + self.max_reads

    @property
    def max_length(self) -> int:
        return max(self.max_write_length, self.max_read_length)

    def add_request(self, length, read=False) -> None:
        if read:
            self.max_reads += 1
            self.max_read_length = max(self.max_read_length, length)
        else:
            self.max_writes += 1
            self.max_write_length = max(self.max_write_length, length)

    def add_read_request(self, length) -> None:
        self.add_request(length, True)

    def add_write_request(self, length) -> None:
        self.add_request(length, False)


class _Requirements(dict):
    def __missing__(self, key):
        self[key] = ResourceRequirement(key)
        return self[key]


def initialize_resource_model(taskset: Iterable["SporadicTask"]) -> None:
    """Gives every task an empty resource model, ``t.resmodel``."""
    for t in taskset:
        t.resmodel = _Requirements()


class SporadicTask:
    """A sporadic task: worst-case execution ``exec_cost`` every ``period``,
    relative ``deadline`` (the period unless given)."""

    def __init__(self, exec_cost, period, deadline=None, id=None):
        self.cost = exec_cost
        self.period = period
        self.deadline = period if deadline is None else deadline
        self.id = id
        self.partition: Optional[int] = None
        self.response_time = None
        self.blocked = None
        self.suspended = None

    def utilization(self) -> float:
        return self.cost / self.period

    def __repr__(self) -> str:
        return f"SporadicTask({self.cost}, {self.period}, {self.deadline})"


class TaskSystem(list):
    """A list of tasks, highest priority first."""

    def assign_ids(self) -> None:
        for i, t in enumerate(self):
            t.id = i + 1

    def sort_by_period(self) -> None:
        self.sort(key=lambda t: t.period)

    def sort_by_deadline(self) -> None:
        self.sort(key=lambda t: t.deadline)

    def utilization(self) -> float:
        return sum(t.utilization() for t in self)


def to_system(ts: TaskSystem, protocol: str, cpus: Optional[int] = None, time_unit: str = "us",
              sync_cpu: Optional[Dict[int, int]] = None):
    """The rtsync system for a SchedCAT-shaped task set: list order gives
    the priorities, ``t.partition`` the CPU, ``t.resmodel`` the sections,
    every resource under ``protocol``; ``sync_cpu`` maps resources to the
    CPUs that serve them (DPCP, DFLP)."""
    if time_unit not in _UNITS:
        raise ValueError(f"time_unit must be one of {sorted(_UNITS)}, got {time_unit!r}")
    unit = _UNITS[time_unit]
    ns = lambda x: f"{int(round(x * unit))}ns"
    if any(t.partition is None for t in ts):
        raise ValueError("every task needs a partition (t.partition = cpu), as SchedCAT's partitioned tests do")
    cpus = cpus if cpus is not None else 1 + max(t.partition for t in ts)
    res_ids = sorted({r for t in ts for r, req in getattr(t, "resmodel", {}).items() if req.max_requests > 0})
    resources = []
    for r in res_ids:
        entry = {"name": f"R{r}"}
        if sync_cpu and r in sync_cpu:
            entry["sync_cpu"] = sync_cpu[r]
        resources.append(entry)
    tasks = []
    n = len(ts)
    for k, t in enumerate(ts):
        sections = []
        for r in res_ids:
            req = getattr(t, "resmodel", {}).get(r)
            if req is not None and req.max_requests > 0:
                sections += [(r, req.max_length)] * req.max_requests
        rest = t.cost - sum(length for _, length in sections)
        if rest < 0:
            raise ValueError(f"task {k} ({t!r}): its requests ({t.cost - rest}) exceed its execution cost")
        body = []
        gaps = len(sections) + 1
        for j in range(gaps):
            share = rest * (j + 1) // gaps - rest * j // gaps
            if share > 0:
                body.append({"compute": ns(share)})
            if j < len(sections):
                r, length = sections[j]
                body.append({"lock": f"R{r}", "hold": ns(length)})
        tasks.append({
            "name": f"T{t.id if t.id is not None else k + 1}",
            "period": ns(t.period),
            "deadline": ns(t.deadline),
            "priority": n - k,
            "cpu": t.partition,
            "body": body,
        })
    spec = {"name": "schedcat", "platform": {"cpus": cpus, "protocol": protocol}, "task": tasks}
    if resources:
        spec["resource"] = resources
    return from_dict(spec)


def apply_bounds(ts: TaskSystem, protocol: str, cpus: Optional[int] = None, time_unit: str = "us",
                 sync_cpu: Optional[Dict[int, int]] = None, analysis: str = "classic") -> Analysis:
    """rtsync's analysis of the task set under ``protocol``; sets each
    task's ``response_time``, ``blocked`` (local plus spin blocking) and
    ``suspended`` (remote blocking) in ``time_unit``, where bounded, as
    SchedCAT's ``apply_*_bounds`` do. Returns the whole analysis."""
    a = analyze(to_system(ts, protocol, cpus, time_unit, sync_cpu), test="rta", analysis=analysis)
    unit = _UNITS[time_unit]
    for t, b in zip(ts, a.tasks):
        t.response_time = None if b.response is None else b.response / unit
        parts = [b.blocking.local, b.blocking.spin]
        t.blocked = None if None in parts else sum(parts) / unit
        t.suspended = None if b.blocking.remote is None else b.blocking.remote / unit
    return a


def is_schedulable(ts: TaskSystem, protocol: str, cpus: Optional[int] = None, time_unit: str = "us",
                   sync_cpu: Optional[Dict[int, int]] = None, analysis: str = "classic") -> bool:
    """Whether every task meets its deadline under ``protocol`` by rtsync's
    response-time analysis with blocking."""
    return apply_bounds(ts, protocol, cpus, time_unit, sync_cpu, analysis).schedulable
