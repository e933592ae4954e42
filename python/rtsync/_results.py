"""Typed results: what the Rust core returns as JSON, as Python objects.

Times are integers in nanoseconds, as in every rtsync file; `ms` helpers
convert for reading. Each result's ``repr`` is a small table a person can
read in a notebook or a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


def _ms(ns: Optional[int]) -> str:
    return "-" if ns is None else f"{ns / 1e6:.3f}"


def _table(head: List[str], rows: List[List[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


@dataclass(frozen=True)
class Blocking:
    """A task's blocking terms (ns); ``None`` where past the deadline."""

    local: Optional[int]
    remote: Optional[int]
    spin: Optional[int]
    overhead: Optional[int]
    unbounded_reason: Optional[str] = None


@dataclass(frozen=True)
class TaskBound:
    """One task's analysis: blocking and response-time bound."""

    name: str
    cpu: Optional[int]
    priority: Optional[int]
    period: int
    deadline: int
    wcet: int
    blocking: Blocking
    response: Optional[int]
    """The bound in ns; ``None`` when there is none (see ``response_kind``)."""
    response_kind: str
    """``bounded``, ``exceeds`` (past the deadline) or ``unbounded``."""
    slack: Optional[int]
    schedulable: bool


@dataclass(frozen=True)
class Analysis:
    """What ``rtsync.analyze`` found: the verdict, the test that decided
    it, and per task its bound. ``raw`` is the JSON document of
    docs/analysis-json.md."""

    verdict: str
    decided_by: Optional[str]
    protocol: Optional[str]
    scheduler: str
    analysis: str
    tasks: List[TaskBound]
    raw: Dict[str, Any] = field(repr=False)

    @property
    def schedulable(self) -> bool:
        return self.verdict == "schedulable"

    def task(self, name: str) -> TaskBound:
        """The task called ``name``."""
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(f"no task {name!r}; the tasks are {[t.name for t in self.tasks]}")

    def __repr__(self) -> str:
        rows = [
            [t.name, str(t.cpu), _ms(t.blocking.local), _ms(t.blocking.remote), _ms(t.blocking.spin),
             _ms(t.response) if t.response_kind == "bounded" else t.response_kind, _ms(t.deadline),
             "ok" if t.schedulable else "MISS"]
            for t in self.tasks
        ]
        head = ["task", "cpu", "local ms", "remote ms", "spin ms", "response ms", "deadline ms", ""]
        return (f"<rtsync.Analysis: {self.verdict} ({self.protocol or 'no resources'}, "
                f"{self.scheduler}, decided by {self.decided_by})>\n" + _table(head, rows))

    @classmethod
    def _from(cls, doc: Dict[str, Any]) -> "Analysis":
        r = doc["result"]
        tasks = []
        for t in r["tasks"]:
            b = t["blocking"]
            resp = t["response"]
            tasks.append(TaskBound(
                name=t["name"], cpu=t.get("cpu"), priority=t.get("priority"), period=t["period"],
                deadline=t["deadline"], wcet=t["wcet"],
                blocking=Blocking(b.get("local"), b.get("remote"), b.get("spin"), b.get("overhead"),
                                  b.get("unbounded_reason")),
                response=resp.get("ns") if resp["kind"] == "bounded" else None,
                response_kind=resp["kind"], slack=t.get("slack"),
                schedulable=t.get("verdict") == "schedulable",
            ))
        return cls(verdict=r["verdict"], decided_by=r.get("decided_by"), protocol=r.get("protocol"),
                   scheduler=r["scheduler"], analysis=r.get("analysis", "classic"), tasks=tasks, raw=doc)


@dataclass(frozen=True)
class TaskRun:
    """One task in a simulation: jobs completed, worst and mean response."""

    name: str
    cpu: int
    jobs: int
    max_response: Optional[int]
    mean_response: Optional[int]
    misses: int
    raw: Dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Simulation:
    """What ``rtsync.simulate`` found. ``trace`` is the list of events (one
    dict per event, as ``rtsync simulate --trace`` writes them) when asked
    for, else ``None``."""

    end: int
    events: int
    tasks: List[TaskRun]
    deadlock: Optional[Dict[str, Any]]
    violations: List[Dict[str, Any]]
    trace: Optional[List[Dict[str, Any]]] = field(repr=False)

    def task(self, name: str) -> TaskRun:
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(f"no task {name!r}; the tasks are {[t.name for t in self.tasks]}")

    def trace_array(self):
        """The trace as a NumPy structured array: time (ns), event kind,
        task index (-1 where none), CPU (-1 where none)."""
        import numpy as np

        if self.trace is None:
            raise ValueError("no trace recorded: simulate(..., trace=True)")
        names = {t.name: i for i, t in enumerate(self.tasks)}
        dtype = np.dtype([("t", "u8"), ("kind", "U16"), ("task", "i4"), ("cpu", "i4")])
        rows = []
        for e in self.trace:
            task = e.get("task")
            if isinstance(task, str):
                task = names.get(task, -1)
            cpu = e.get("cpu")
            rows.append((e.get("t", 0), e["event"], -1 if task is None else task, -1 if cpu is None else cpu))
        return np.array(rows, dtype=dtype)

    def __repr__(self) -> str:
        rows = [[t.name, str(t.cpu), str(t.jobs), _ms(t.max_response), _ms(t.mean_response), str(t.misses)]
                for t in self.tasks]
        head = ["task", "cpu", "jobs", "worst ms", "mean ms", "misses"]
        state = "deadlock" if self.deadlock else ("VIOLATIONS" if self.violations else "ok")
        return (f"<rtsync.Simulation: {_ms(self.end)} ms simulated, {self.events} events, {state}>\n"
                + _table(head, rows))

    @classmethod
    def _from(cls, doc: Dict[str, Any]) -> "Simulation":
        r = doc["result"]
        tasks = [TaskRun(name=t["name"], cpu=t["cpu"], jobs=t["jobs"], max_response=t.get("max_response"),
                         mean_response=t.get("mean_response"), misses=t.get("misses", 0), raw=t)
                 for t in r["tasks"]]
        return cls(end=r["end"], events=r["events"], tasks=tasks, deadlock=r.get("deadlock"),
                   violations=r.get("violations", []), trace=doc.get("trace"))


@dataclass(frozen=True)
class Check:
    """What ``rtsync.check`` found: the derived facts as ``rtsync check``
    prints them, and the loader's warnings."""

    report: str
    warnings: List[Dict[str, Any]]

    def __repr__(self) -> str:
        w = "".join(f"\nwarning: {x['key']}: {x['message']}" for x in self.warnings if x["severity"] == "warning")
        return self.report.rstrip() + w


@dataclass(frozen=True)
class Cell:
    """One point of one curve of a schedulability sweep."""

    utilization: float
    curve: str
    systems: int
    schedulable: int

    @property
    def ratio(self) -> float:
        return self.schedulable / self.systems if self.systems else 0.0


@dataclass(frozen=True)
class ExperimentResult:
    """A whole experiment's outcome: its files (name to text, as the
    command line writes them) and its figures."""

    experiment: str
    files: Dict[str, str] = field(repr=False)
    cells: List[Cell] = field(default_factory=list)
    cases: List[Dict[str, Any]] = field(default_factory=list)
    shards: int = 1

    def write(self, folder) -> List[str]:
        """Writes the files into ``folder`` (created); returns their paths."""
        import os

        os.makedirs(folder, exist_ok=True)
        out = []
        for name, text in sorted(self.files.items()):
            path = os.path.join(folder, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            out.append(path)
        return out

    def ratio(self, curve: str, utilization: float) -> float:
        """The share of systems of ``curve`` found schedulable at ``utilization``."""
        for c in self.cells:
            if c.curve == curve and abs(c.utilization - utilization) < 1e-9:
                return c.ratio
        raise KeyError(f"no cell {curve!r} at U = {utilization}")

    @property
    def violations(self) -> List[str]:
        return [v for c in self.cases for v in c["violations"]]

    def __repr__(self) -> str:
        if self.experiment == "schedulability":
            curves = list(dict.fromkeys(c.curve for c in self.cells))
            points = list(dict.fromkeys(c.utilization for c in self.cells))
            by = {(c.utilization, c.curve): c for c in self.cells}
            rows = [[f"{u:g}"] + [f"{100 * by[(u, k)].ratio:.1f}%" for k in curves] for u in points]
            return (f"<rtsync.ExperimentResult schedulability: {len(curves)} curves, {len(points)} points, "
                    f"{self.shards} shard(s)>\n" + _table(["U"] + curves, rows))
        rows = [[c["drawn"], c["scheduler"], str(c["systems"]), str(c["schedulable"]), str(len(c["violations"])),
                 "-" if c["tightness_max"] is None else f"{c['tightness_max']:.3f}"] for c in self.cases]
        return (f"<rtsync.ExperimentResult soundness: {len(self.violations)} violation(s), {self.shards} shard(s)>\n"
                + _table(["drawn", "sched", "systems", "schedulable", "violations", "tightness max"], rows))

    @classmethod
    def _from(cls, doc: Dict[str, Any]) -> "ExperimentResult":
        fig = doc["figures"]
        cells = [Cell(c["utilization"], c["curve"], c["systems"], c["schedulable"]) for c in fig.get("cells", [])]
        return cls(experiment=fig["experiment"], files=doc["files"], cells=cells, cases=fig.get("cases", []),
                   shards=doc["shards"])
