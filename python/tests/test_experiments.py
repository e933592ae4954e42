"""Experiments from Python: shards merge to the single run's bytes, on
any executor; Ray on a local cluster when one is up."""

import concurrent.futures
import json
import os
import shutil
import subprocess

import pytest

import rtsync
from rtsync import experiments

SPEC = dict(protocols=["mpcp", "dpcp"], analysis="both", sets=17, cpus=2, tasks=6, from_=0.5, to=1.9, step=0.35)


def test_shards_merge_to_the_single_runs_files():
    whole = experiments.schedulability(**SPEC)
    assert whole.shards == 1
    assert len(whole.cells) == 5 * 4, "5 points, mpcp and dpcp with their LP curves"
    assert 0 < whole.ratio("dpcp", 1.9) < 1 or 0 < whole.ratio("mpcp", 1.9) < 1
    for n in (2, 3, 7, 85):
        assert experiments.schedulability(shards=n, **SPEC).files == whole.files, n


def test_a_retried_shard_gives_the_same_bytes_and_order_does_not_matter():
    spec = experiments.sweep_spec(**SPEC)
    parts = [experiments.run_shard("schedulability", spec, i, 4) for i in range(4)]
    assert experiments.run_shard("schedulability", spec, 2, 4) == parts[2]
    shuffled = [parts[3], parts[1], parts[0], parts[2], parts[1]]
    assert experiments.merge(shuffled).files == experiments.merge(parts).files


def test_merge_refuses_a_missing_shard():
    spec = experiments.sweep_spec(**SPEC)
    parts = [experiments.run_shard("schedulability", spec, i, 3) for i in (0, 2)]
    with pytest.raises(ValueError, match="missing shard"):
        experiments.merge(parts)


def test_a_thread_pool_executor_gives_the_same_result():
    whole = experiments.schedulability(**SPEC)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        r = experiments.schedulability(executor=pool, shards=5, **SPEC)
    assert r.files == whole.files and r.shards == 5


def test_the_python_result_is_the_command_lines(tmp_path, root):
    """The same sweep through `rtsync experiment schedulability` writes
    the same bytes (when the binary is built)."""
    exe = os.environ.get("RTSYNC_BIN") or root / "target" / "release" / "rtsync"
    if not os.path.exists(exe):
        pytest.skip(f"{exe} not built (cargo build --release, or RTSYNC_BIN=path)")
    out = tmp_path / "cli"
    subprocess.run(
        [str(exe), "experiment", "schedulability", "--protocols", "mpcp,dpcp", "--analysis", "both", "--sets", "17",
         "--cpus", "2", "--tasks", "6", "--from", "0.5", "--to", "1.9", "--step", "0.35", "--out", str(out)],
        check=True, capture_output=True)
    r = experiments.schedulability(**SPEC)
    for name, text in r.files.items():
        assert (out / name).read_text() == text, name


def test_soundness_in_shards():
    spec = dict(protocol="msrp", systems=12, search_budget=800, seed=3)
    whole = experiments.soundness(**spec)
    assert whole.cases[0]["drawn"] == "msrp" and whole.cases[0]["schedulable"] > 0
    assert whole.violations == []
    assert experiments.soundness(shards=4, **spec).files == whole.files


def test_bad_descriptions_raise_before_any_shard_runs():
    with pytest.raises(ValueError, match="unknown field `cpu`"):
        experiments.schedulability(cpu=2)
    with pytest.raises(ValueError, match="--from <= --to"):
        experiments.schedulability(from_=2.0, to=1.0)
    with pytest.raises(ValueError, match="unknown protocol"):
        experiments.soundness(protocol="mcpp")


def test_the_module_command_writes_the_files(tmp_path):
    import sys

    out = tmp_path / "m"
    r = subprocess.run([sys.executable, "-m", "rtsync", "sweep", "--protocols", "mpcp", "--sets", "5", "--cpus", "2",
                        "--tasks", "6", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (out / "schedulability.csv").read_text().startswith("utilization,protocol")
    parts = tmp_path / "p"
    for i in range(2):
        subprocess.run([sys.executable, "-m", "rtsync", "sweep", "--shard", f"{i}/2", "--protocols", "mpcp",
                        "--sets", "5", "--cpus", "2", "--tasks", "6", "--out", str(parts)], check=True,
                       capture_output=True)
    merged = tmp_path / "merged"
    subprocess.run([sys.executable, "-m", "rtsync", "merge", str(parts), "--out", str(merged)], check=True,
                   capture_output=True)
    assert (merged / "schedulability.csv").read_bytes() == (out / "schedulability.csv").read_bytes()
    bad = subprocess.run([sys.executable, "-m", "rtsync", "sweep", "--cpu", "2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown field `cpu`" in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "rtsync", "sweep", "--shard", "2/2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "0 <= I < N" in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "rtsync", "merge", str(tmp_path / "none.json")], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "cannot read" in bad.stderr and "Traceback" not in bad.stderr


def _ray_address():
    """The local Ray cluster CI starts (`ray start --head`), if any."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return None
    return os.environ.get("RTSYNC_RAY_ADDRESS")


@pytest.mark.skipif(_ray_address() is None,
                    reason="no Ray cluster: pip install ray, `ray start --head --num-cpus 2`, "
                           "then RTSYNC_RAY_ADDRESS=auto (CI does)")
def test_on_a_ray_cluster_the_result_is_the_single_machines():
    import ray

    ray.init(address=_ray_address(), ignore_reinit_error=True, log_to_driver=False)
    try:
        assert ray.cluster_resources().get("CPU", 0) >= 2, "two worker processes"
        whole = experiments.schedulability(**SPEC)
        for n in (3, 8):
            r = experiments.schedulability(executor=ray, shards=n, **SPEC)
            assert r.files == whole.files and r.shards == n
        sound = dict(protocol="msrp", systems=12, search_budget=800, seed=3)
        assert experiments.soundness(executor="ray", shards=3, **sound).files == experiments.soundness(**sound).files
    finally:
        ray.shutdown()
