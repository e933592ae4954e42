"""A system described in Python, with dataclasses that mirror the spec
file's tables and keys (README.md, "Spec format"):

    from rtsync.spec import Compute, Lock, Platform, Resource, Spec, Task
    s = Spec(
        name="demo",
        platform=Platform(cpus=1, protocol="pcp"),
        resources=[Resource("A")],
        tasks=[
            Task("hi", period="5ms", body=[Compute("1ms"), Lock("A", hold="200us")]),
            Task("lo", period="20ms", body=[Lock("A", hold="2ms"), Compute("3ms")]),
        ],
    ).build()                               # an rtsync.System, checked as a file is

Times are strings with units ("10ms", "250us") or integer nanoseconds.
Fields left ``None`` are left out, so the spec's defaults apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

Time = Union[str, int]

__all__ = ["Compute", "Lock", "Platform", "Resource", "Segment", "Spec", "Suspend", "Task"]


def _time(t: Optional[Time]) -> Optional[str]:
    if t is None:
        return None
    return f"{t}ns" if isinstance(t, int) else t


def _drop_none(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


@dataclass
class Compute:
    """Execution for ``time``."""

    time: Time

    def to_dict(self) -> Dict[str, Any]:
        return {"compute": _time(self.time)}


@dataclass
class Suspend:
    """A self-suspension for ``time``."""

    time: Time

    def to_dict(self) -> Dict[str, Any]:
        return {"suspend": _time(self.time)}


@dataclass
class Lock:
    """A critical section on ``resource``: held for ``hold``, or running
    the nested ``body``; ``units`` of a multi-unit resource (SRP)."""

    resource: str
    hold: Optional[Time] = None
    body: Optional[List["Segment"]] = None
    units: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return _drop_none({
            "lock": self.resource,
            "hold": _time(self.hold),
            "body": None if self.body is None else [s.to_dict() for s in self.body],
            "units": self.units,
        })


Segment = Union[Compute, Suspend, Lock]


@dataclass
class Platform:
    """CPUs, the scheduler (``fp`` or ``edf``), and the protocol of every
    resource that names none."""

    cpus: int = 1
    scheduler: Optional[str] = None
    protocol: Optional[str] = None
    priorities: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return _drop_none({"cpus": self.cpus, "scheduler": self.scheduler, "protocol": self.protocol,
                           "priorities": self.priorities})


@dataclass
class Resource:
    """A shared resource; ``protocol`` overrides the platform's,
    ``sync_cpu`` is where DPCP and DFLP serve it."""

    name: str
    protocol: Optional[str] = None
    units: Optional[int] = None
    sync_cpu: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return _drop_none({"name": self.name, "protocol": self.protocol, "units": self.units,
                           "sync_cpu": self.sync_cpu})


@dataclass
class Task:
    """A periodic or sporadic task: its body of segments (or ``wcet``
    alone), period, deadline (the period unless given), priority (larger
    runs first; rate monotonic unless given), CPU, offset and jitter."""

    name: str
    period: Time
    body: Optional[List[Segment]] = None
    wcet: Optional[Time] = None
    deadline: Optional[Time] = None
    priority: Optional[int] = None
    cpu: Optional[int] = None
    offset: Optional[Time] = None
    jitter: Optional[Time] = None

    def to_dict(self) -> Dict[str, Any]:
        return _drop_none({
            "name": self.name, "period": _time(self.period),
            "body": None if self.body is None else [s.to_dict() for s in self.body],
            "wcet": _time(self.wcet), "deadline": _time(self.deadline), "priority": self.priority,
            "cpu": self.cpu, "offset": _time(self.offset), "jitter": _time(self.jitter),
        })


@dataclass
class Spec:
    """A whole system: ``build()`` checks it as a spec file is checked and
    returns an ``rtsync.System`` (raising ``rtsync.SpecError`` with the key
    at fault)."""

    platform: Platform = field(default_factory=Platform)
    tasks: List[Task] = field(default_factory=list)
    resources: List[Resource] = field(default_factory=list)
    name: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"platform": self.platform.to_dict(), "task": [t.to_dict() for t in self.tasks]}
        if self.name is not None:
            d["name"] = self.name
        if self.resources:
            d["resource"] = [r.to_dict() for r in self.resources]
        return d

    def build(self):
        from . import from_dict

        return from_dict(self.to_dict())
