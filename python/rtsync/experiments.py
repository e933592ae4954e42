"""Experiments over many random systems, on this machine or a cluster.

``schedulability`` compares protocols by the share of random systems each
analysis accepts, over a range of utilizations; ``soundness`` searches the
simulator for schedules that break a bound. Both split into shards: shard
``i`` of ``n`` is a fixed, consecutive range of the experiment's systems,
and every system depends only on its number and the description, so the
merged result is byte for byte the single-machine one, whatever ``n``, and
a retried shard gives the same bytes (docs/SWEEPS.md).

``executor`` says where the shards run:

- ``None``: here, as one shard, on every core;
- ``"ray"`` or the ``ray`` module: one Ray task per shard (``ray.init``
  is called if it was not: pass ``address`` to join a running cluster);
- any ``concurrent.futures.Executor``: one submitted call per shard.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional, Sequence

from . import _rtsync
from ._results import ExperimentResult

__all__ = ["merge", "run_shard", "schedulability", "soundness", "sweep_spec", "soundness_spec"]

_SWEEP_KEYS = {"protocols", "mixes", "to", "step", "sets", "seed", "analysis", "overheads"}


def sweep_spec(**kw: Any) -> Dict[str, Any]:
    """The description of a schedulability sweep from keyword arguments:
    ``protocols``, ``mixes``, ``from_`` (``from`` is a Python keyword),
    ``to``, ``step``, ``sets``, ``seed``, ``analysis`` (``classic``, ``lp``,
    ``both``, ``fixed`` or ``all``), ``overheads`` (a profile's path or TOML text), and the
    shape's options as ``rtsync generate`` names them (``cpus``, ``tasks``,
    ``resources``, ``cs``, ...). An unknown name raises ``ValueError``."""
    spec: Dict[str, Any] = {"shape": {}}
    for k, v in kw.items():
        if v is None:
            continue
        if k == "from_":
            spec["from"] = v
        elif k == "overheads":
            from . import _text

            spec["overheads"] = _text(v)
        elif k in _SWEEP_KEYS:
            spec[k] = list(v) if k in ("protocols", "mixes") else v
        else:
            spec["shape"][k] = v
    return spec


def soundness_spec(**kw: Any) -> Dict[str, Any]:
    """The description of a soundness run: ``systems``, ``protocol``,
    ``mix``, ``components``, ``seed``, ``edf``, ``shape`` (``classic``,
    ``local-global``, ``suspending``, ``nested``, ``dense``, ``jitter``,
    ``crowded``, ``all``),
    ``search_budget``, ``analysis``, ``save`` (a folder for the systems
    that break a bound), ``overheads`` (an overhead profile's path: the
    charged bounds checked on the charged systems)."""
    return {k: v for k, v in kw.items() if v is not None}


def run_shard(kind: str, spec: Dict[str, Any], index: int, count: int) -> str:
    """Runs shard ``index`` of ``count`` here and returns its part file's
    text (what ``rtsync experiment ... --shard index/count`` writes)."""
    return _rtsync.run_shard(kind, json.dumps(spec), index, count)


def merge(parts: Sequence[str]) -> ExperimentResult:
    """Adds part files' texts up (all shards of one experiment, in any
    order; a shard given twice must be identical)."""
    return ExperimentResult._from(json.loads(_rtsync.merge(list(parts))))


def _is_ray(executor: Any) -> bool:
    return executor == "ray" or getattr(executor, "__name__", None) == "ray"


def _run(kind: str, spec: Dict[str, Any], executor: Any, shards: Optional[int],
         address: Optional[str], progress: Optional[Callable[[int, int], None]]) -> ExperimentResult:
    jobs = _rtsync.experiment_jobs(kind, json.dumps(spec))  # raises on a bad description, before any shard
    if executor is None:
        n = shards or 1
        parts = []
        for i in range(n):
            parts.append(run_shard(kind, spec, i, n))
            if progress:
                progress(i + 1, n)
        return merge(parts)
    if _is_ray(executor):
        import ray

        if not ray.is_initialized():
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        n = shards or max(1, 2 * int(ray.cluster_resources().get("CPU", 1)))
        n = max(1, min(n, jobs))
        task = ray.remote(max_retries=3)(run_shard)
        pending = [task.remote(kind, spec, i, n) for i in range(n)]
        refs = list(pending)
        done = 0
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            done += len(ready)
            if progress:
                progress(done, n)
        return merge(ray.get(refs))
    # A concurrent.futures.Executor.
    n = shards or 4
    n = max(1, min(n, jobs))
    futures = [executor.submit(run_shard, kind, spec, i, n) for i in range(n)]
    parts = []
    for k, f in enumerate(futures):
        parts.append(f.result())
        if progress:
            progress(k + 1, n)
    return merge(parts)


def schedulability(executor: Any = None, shards: Optional[int] = None, address: Optional[str] = None,
                   progress: Optional[Callable[[int, int], None]] = None, **spec: Any) -> ExperimentResult:
    """The share of random systems each protocol's analysis accepts, per
    total utilization (``rtsync experiment schedulability``). Keyword
    arguments as ``sweep_spec``; ``executor``, ``shards`` and ``address``
    as the module says; ``progress(done, total)`` is called per shard."""
    return _run("schedulability", sweep_spec(**spec), executor, shards, address, progress)


def soundness(executor: Any = None, shards: Optional[int] = None, address: Optional[str] = None,
              progress: Optional[Callable[[int, int], None]] = None, **spec: Any) -> ExperimentResult:
    """The soundness experiment (``rtsync experiment soundness``): keyword
    arguments as ``soundness_spec``; ``result.violations`` lists every
    broken bound, with what reproduces it."""
    return _run("soundness", soundness_spec(**spec), executor, shards, address, progress)
