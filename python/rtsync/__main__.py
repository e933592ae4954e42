"""``python -m rtsync``: experiments from the command line, on this
machine, on a Ray cluster, or as shards for a batch scheduler.

    python -m rtsync sweep --cpus 4 --tasks 16 --protocols mpcp,dpcp --sets 1000 --out sweep
    python -m rtsync sweep --ray auto --shards 32 ... --out sweep        # on a running Ray cluster
    python -m rtsync sweep --shard 3/32 ... --out parts                  # one shard, for Slurm
    python -m rtsync merge parts --out sweep
    python -m rtsync soundness --protocol mpcp --systems 2000 --ray auto --out soundness

Options not listed below are passed to the description as ``--key value``
(``--access-prob 0.5`` is the shape's ``access_prob``), as ``rtsync
experiment schedulability --help`` lists them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

from . import experiments

_LISTS = {"protocols", "mixes"}
_FLAGS = {"edf", "components"}


def _value(k: str, v: str) -> Any:
    if k in _LISTS:
        return [x for x in v.split(",") if x]
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def _spec(rest: List[str]) -> Dict[str, Any]:
    spec: Dict[str, Any] = {}
    i = 0
    while i < len(rest):
        a = rest[i]
        if not a.startswith("--"):
            raise SystemExit(f"error: unexpected `{a}`; options are written --name value")
        key = a[2:].replace("-", "_")
        if "=" in key:
            key, v = key.split("=", 1)
            i += 1
        elif key in _FLAGS:
            spec[key] = True
            i += 1
            continue
        elif i + 1 < len(rest):
            v = rest[i + 1]
            i += 2
        else:
            raise SystemExit(f"error: --{key} needs a value")
        spec["from_" if key == "from" else key] = _value(key, v)
    return spec


def main(argv: List[str] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m rtsync", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("sweep", "soundness"):
        cli = "schedulability" if name == "sweep" else "soundness"
        s = sub.add_parser(
            name, help=f"the {'schedulability sweep' if name == 'sweep' else 'soundness experiment'}",
            epilog=f"The experiment's own options follow, as `rtsync experiment {cli} --help` lists them "
                   f"(e.g. {'--cpus 4 --tasks 16 --protocols mpcp,dpcp --sets 500' if name == 'sweep' else '--protocol mpcp --systems 500 --search-budget 20000'}).")
        s.add_argument("--ray", metavar="ADDRESS", help="run the shards on this Ray cluster (auto: the local one)")
        s.add_argument("--shards", type=int, help="how many shards (default: twice the cluster's CPUs on Ray)")
        s.add_argument("--shard", metavar="I/N", help="run only this shard and write its part file into --out")
        s.add_argument("--out", default="sweep" if name == "sweep" else "soundness", help="output folder")
    m = sub.add_parser("merge", help="add part files up into the experiment's files")
    m.add_argument("parts", nargs="+", help="part files or folders of them")
    m.add_argument("--out", default=None, help="output folder")
    args, rest = p.parse_known_args(argv)
    try:
        if args.cmd == "merge":
            files = []
            for x in args.parts:
                if os.path.isdir(x):
                    files += sorted(os.path.join(x, f) for f in os.listdir(x)
                                    if f.startswith("part-") and f.endswith(".json"))
                else:
                    files.append(x)
            texts = [open(f, encoding="utf-8").read() for f in files]
            r = experiments.merge(texts)
            out = args.out or ("sweep" if r.experiment == "schedulability" else "soundness")
        else:
            kind = "schedulability" if args.cmd == "sweep" else "soundness"
            spec = _spec(rest)
            build = experiments.sweep_spec if kind == "schedulability" else experiments.soundness_spec
            if args.shard:
                try:
                    i, n = (int(x) for x in args.shard.split("/"))
                    if not 0 <= i < n:
                        raise ValueError
                except ValueError:
                    raise ValueError(f"expected a shard as I/N with 0 <= I < N (for example 0/4), got `{args.shard}`")
                text = experiments.run_shard(kind, build(**spec), i, n)
                os.makedirs(args.out, exist_ok=True)
                path = os.path.join(args.out, f"part-{i}-of-{n}.json")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                print(f"wrote {path}; when all {n} are there: python -m rtsync merge {args.out} --out DIR")
                return 0
            run = experiments.schedulability if kind == "schedulability" else experiments.soundness
            executor = "ray" if args.ray else None
            progress = (lambda d, n: print(f"\r{d}/{n} shards", end="", file=sys.stderr, flush=True)) \
                if sys.stderr.isatty() else None
            r = run(executor=executor, shards=args.shards, address=args.ray, progress=progress, **spec)
            if progress:
                print(file=sys.stderr)
            out = args.out
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: cannot read {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    print(r)
    for path in r.write(out):
        print(f"wrote {path}")
    return 1 if r.violations else 0


if __name__ == "__main__":
    sys.exit(main())
