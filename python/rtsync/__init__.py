"""rtsync from Python: locking protocols for real-time systems, analysed,
simulated and compared.

    import rtsync
    s = rtsync.load("examples/pcp-nested.toml")      # or rtsync.loads(text), rtsync.from_dict(d)
    a = rtsync.analyze(s)                              # every test, per-task blocking and bounds
    print(a)                                           # a table
    sim = rtsync.simulate(s, horizon="2s", trace=True)
    sets = rtsync.generate(count=10, cpus=4, tasks=16, utilization=2.0, protocol="mpcp")
    r = rtsync.experiments.schedulability(protocols=["mpcp", "dpcp"], sets=100)
    r.write("sweep")                                   # schedulability.csv and .svg, as the CLI writes them

The computing is done by rtsync's Rust crates with the interpreter lock
released, so threads sweeping in parallel use every core. A description
rtsync refuses raises ``SpecError`` with ``line``, ``column`` and ``key``.
SchedCAT users: ``rtsync.schedcat`` has its shapes (docs/PYTHON.md).
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _rtsync
from ._results import Analysis, Blocking, Cell, Check, ExperimentResult, Simulation, TaskBound, TaskRun
from ._rtsync import SpecError, System

__all__ = [
    "Analysis", "Blocking", "Cell", "Check", "ExperimentResult", "Simulation", "SpecError", "System",
    "TaskBound", "TaskRun", "analyze", "check", "experiments", "from_dict", "generate", "load", "loads",
    "partition", "protocols", "simulate", "spec", "__version__",
]

__version__ = _rtsync.version()

PathLike = Union[str, "os.PathLike[str]"]


def load(path: PathLike) -> System:
    """Loads and validates a spec file (TOML). Raises ``SpecError``."""
    return _rtsync.load(os.fspath(path))


def loads(text: str, file: Optional[str] = None) -> System:
    """Parses and validates a spec's text; ``file`` names it in errors."""
    return _rtsync.loads(text, file)


def _plain(x: Any) -> Any:
    if hasattr(x, "to_dict") and dataclasses.is_dataclass(x):
        return x.to_dict()
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(x).items() if v is not None}
    if isinstance(x, Mapping):
        return {k: _plain(v) for k, v in x.items() if v is not None}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def from_dict(spec: Any) -> System:
    """A system from a dictionary (or dataclasses, ``rtsync.spec``'s or
    your own) with the spec file's keys: ``{"platform": {...},
    "resource": [...], "task": [...]}``. It is checked exactly as a file
    is; ``None`` values are left out."""
    return _rtsync.from_json(json.dumps(_plain(spec)))


def check(system: System, partition: str = "wfd") -> Check:
    """What ``rtsync check`` prints (ceilings, local and global resources,
    levels) and the loader's warnings."""
    return Check(report=_rtsync.check(system, partition), warnings=json.loads(system.warnings_json))


def analyze(
    system: System,
    test: str = "all",
    protocol: Optional[str] = None,
    overheads: Optional[PathLike] = None,
    analysis: str = "classic",
    partition: str = "wfd",
) -> Analysis:
    """Runs the schedulability tests (``rta``, ``edf``, ``ll``,
    ``hyperbolic`` or ``all``) with every blocking term; ``protocol`` puts
    every resource under it first; ``overheads`` is an overhead profile
    (a path, or its TOML text); ``analysis`` is ``fixed`` (each request's
    bound on its own, no job windows: the fastest), ``classic`` (the
    default, lowered by the job windows) or ``lp`` (also the LP bounds)."""
    if protocol is not None:
        system = system.with_protocol(protocol)
    return Analysis._from(json.loads(_rtsync.analyze(system, test, _text(overheads), analysis, partition)))


def simulate(
    system: System,
    horizon: str = "1s",
    seed: int = 0,
    exec: str = "wcet",
    arrivals: str = "periodic",
    trace: bool = False,
    protocol: Optional[str] = None,
    partition: str = "wfd",
) -> Simulation:
    """Simulates the system event by event up to ``horizon``; ``exec`` is
    ``wcet`` or ``random``, ``arrivals`` ``periodic`` or ``sporadic``; with
    ``trace`` every event is kept (``Simulation.trace``, ``trace_array()``)."""
    if protocol is not None:
        system = system.with_protocol(protocol)
    return Simulation._from(json.loads(_rtsync.simulate(system, horizon, seed, exec, arrivals, trace, partition)))


def partition(system: System, heuristic: str = "wfd") -> System:
    """The system placed on its CPUs by ``wfd``, ``ffd``, ``bfd`` or ``sync``."""
    return _rtsync.partition(system, heuristic)


def generate(
    count: int = 10,
    seed: int = 1,
    utilization: float = 2.0,
    protocol: str = "mpcp",
    first: int = 0,
    **shape: Any,
) -> List[System]:
    """``count`` random systems, as ``rtsync generate`` draws them: the
    same seed and shape give the same systems. ``shape`` takes the shape
    options of ``rtsync generate --help`` with underscores (``cpus``,
    ``tasks``, ``resources``, ``access_prob``, ``cs="10us,100us"``,
    ``periods="log-uniform:10ms,1s"``, ...)."""
    return _rtsync.generate(json.dumps(shape), protocol, utilization, count, seed, first)


def protocols() -> List[str]:
    """The protocols rtsync implements."""
    return list(_rtsync.protocols())


def _text(overheads: Optional[PathLike]) -> Optional[str]:
    """An overhead profile's text: read from the path given, or the text
    itself where no such file exists and it reads as TOML."""
    if overheads is None:
        return None
    s = os.fspath(overheads)
    if os.path.isfile(s):
        with open(s, encoding="utf-8") as f:
            return f.read()
    if "\n" in s or "=" in s:
        return s
    raise FileNotFoundError(f"no overhead profile at {s!r} (write one with `rtsync bench locks --profile FILE`)")


from . import experiments, spec  # noqa: E402  (need the names above)
