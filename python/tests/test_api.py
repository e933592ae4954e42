"""The Python API on the bundled examples and hand-worked systems."""

import json
import threading

import pytest

import rtsync


def test_load_analyze_and_repr(examples):
    s = rtsync.load(examples / "pcp-nested.toml")
    assert (s.name, s.cpus, s.scheduler) == ("pcp-nested", 1, "fp")
    assert s.task_names == ["high", "mid", "low"]
    a = rtsync.analyze(s)
    # Hand-worked (PCP, one outermost section): high is blocked once, by
    # low's longest outermost section reaching its ceiling, 400us + 200us.
    assert a.task("high").blocking.local == 600_000
    assert a.task("high").response == 1_600_000
    assert a.schedulable and a.decided_by == "rta"
    text = repr(a)
    assert "schedulable" in text and "high" in text and "1.600" in text
    with pytest.raises(KeyError, match="the tasks are"):
        a.task("nobody")


def test_a_protocol_switch_changes_the_bound(examples):
    s = rtsync.load(examples / "pcp-nested.toml")
    # Under PIP the opposite nesting orders can deadlock: refused, with the key.
    with pytest.raises(rtsync.SpecError) as e:
        rtsync.analyze(s, protocol="pip")
    assert "deadlock" in str(e.value).lower()
    npcs = rtsync.analyze(s, protocol="npcs")
    # Under NPCS high waits for low's whole outermost section: 400 + 200 us.
    assert npcs.task("high").blocking.local == 600_000


def test_a_test_for_the_other_scheduler_is_refused(examples):
    # The EDF tests say nothing of a system scheduled by fixed priority,
    # the utilization bounds nothing of one under EDF: refused, as
    # `rtsync analyze` refuses them, where the tests that fit decide.
    fp = rtsync.load(examples / "pcp-nested.toml")
    edf = rtsync.load(examples / "srp-edf-multiunit.toml")
    with pytest.raises(ValueError, match="does not apply.*fixed priority"):
        rtsync.analyze(fp, test="edf")
    with pytest.raises(ValueError, match="does not apply.*rate-monotonic"):
        rtsync.analyze(edf, test="ll")
    assert rtsync.analyze(fp, test="rta").schedulable
    assert rtsync.analyze(edf, test="edf").schedulable


def test_the_fixed_analysis_leaves_out_the_job_windows():
    # The Rust tests' hand-worked dpcp-window-jobs.toml: `a` asks for G
    # (served on CPU 2) three times. Per request it waits 4ms beside its
    # own 1ms, 15ms for the three; the job window counts the requests of
    # the jobs in its window instead, 9ms.
    d = {
        "name": "window",
        "platform": {"cpus": 3, "protocol": "dpcp"},
        "resource": [{"name": "G", "sync_cpu": 2}],
        "task": [
            {"name": "a", "period": "100ms", "priority": 10, "cpu": 0,
             "body": [{"lock": "G", "hold": "1ms"}] * 3},
            {"name": "h", "period": "10ms", "priority": 20, "cpu": 1, "body": [{"lock": "G", "hold": "1ms"}]},
            {"name": "z", "period": "10ms", "priority": 5, "cpu": 1, "body": [{"lock": "G", "hold": "2ms"}]},
        ],
    }
    s = rtsync.from_dict(d)
    fixed = rtsync.analyze(s, test="rta", analysis="fixed")
    assert fixed.task("a").response == 15_000_000 and fixed.analysis == "fixed"
    classic = rtsync.analyze(s, test="rta")
    assert classic.task("a").response == 9_000_000 and classic.analysis == "classic"
    with pytest.raises(ValueError, match="fixed, classic or lp"):
        rtsync.analyze(s, analysis="tight")


def test_spec_errors_carry_line_column_and_key():
    text = 'name = "x"\n[platform]\ncpus = 1\n[[task]]\nname = "a"\nperiod = "10ms"\nbody = [ { compute = "20qs" } ]\n'
    with pytest.raises(rtsync.SpecError) as e:
        rtsync.loads(text, "mine.toml")
    err = e.value
    assert isinstance(err, ValueError)
    assert (err.line, err.column) == (7, 22)
    assert err.key == 'task "a".body[0].compute'
    assert "unit" in err.hint
    assert err.file == "mine.toml"
    assert err.diagnostics[0]["severity"] == "error"
    assert "mine.toml:7:22" in str(err)


def test_from_dict_is_checked_like_a_file():
    d = {
        "name": "d",
        "platform": {"cpus": 1, "protocol": "pcp"},
        "resource": [{"name": "A"}],
        "task": [
            {"name": "hi", "period": "5ms", "body": [{"compute": "1ms"}, {"lock": "A", "hold": "200us"}]},
            {"name": "lo", "period": "20ms", "body": [{"lock": "A", "hold": "2ms"}, {"compute": "3ms"}]},
        ],
    }
    a = rtsync.analyze(rtsync.from_dict(d))
    # hi: 1.2ms own + 2ms of lo's section = 3.2ms.
    assert a.task("hi").response == 3_200_000
    d["task"][0]["body"][1]["lock"] = "B"
    with pytest.raises(rtsync.SpecError) as e:
        rtsync.from_dict(d)
    assert "B" in str(e.value) and e.value.key.startswith('task "hi"')


def test_check_reports_ceilings(examples):
    c = rtsync.check(rtsync.load(examples / "pcp-nested.toml"))
    assert "ceiling" in c.report and "A" in c.report
    assert "pcp" in repr(c)


def test_simulate_and_trace(examples):
    s = rtsync.load(examples / "pcp-nested.toml")
    sim = rtsync.simulate(s, horizon="60ms", trace=True)
    high = sim.task("high")
    assert high.jobs == 12 and high.misses == 0
    # The simulated worst never passes the bound.
    assert high.max_response <= rtsync.analyze(s).task("high").response
    assert sim.trace[0]["event"] == "release" and sim.trace[0]["t"] == 0
    arr = sim.trace_array()
    assert len(arr) == len(sim.trace)
    assert (arr["t"][1:] >= arr["t"][:-1]).all(), "events in time order"
    assert set(arr["task"][arr["kind"] == "release"]) == {0, 1, 2}
    no_trace = rtsync.simulate(s, horizon="60ms")
    assert no_trace.trace is None
    with pytest.raises(ValueError, match="trace=True"):
        no_trace.trace_array()
    with pytest.raises(ValueError, match="horizon"):
        rtsync.simulate(s, horizon="soon")


def test_generate_is_seeded_and_partition_places():
    a = rtsync.generate(count=3, seed=7, cpus=2, tasks=6, utilization=1.0, protocol="mpcp", partition="none")
    b = rtsync.generate(count=1, seed=7, first=2, cpus=2, tasks=6, utilization=1.0, protocol="mpcp",
                        partition="none")
    assert a[2].to_toml() == b[0].to_toml(), "system i is the same wherever it is drawn"
    assert a[0].to_toml() != a[1].to_toml()
    assert all(c is None for c in a[0].task_cpus)
    placed = rtsync.partition(a[0], "wfd")
    assert all(c in (0, 1) for c in placed.task_cpus)
    with pytest.raises(ValueError, match="cpu"):
        rtsync.generate(cpu=2)


def test_analysis_releases_the_interpreter_lock():
    """While Rust runs a long sweep in one thread, another Python thread
    keeps running: the lock is released for the whole call. Held, the
    main loop below would stall for the whole call (its longest gap about
    the call's length); released, it never stalls for long."""
    import time

    spec = rtsync.experiments.sweep_spec(protocols=["mpcp", "dpcp", "fmlp-s", "msrp"], sets=150, cpus=4, tasks=16)
    span = {}
    go = threading.Event()

    def sweep():
        go.wait()
        t0 = time.perf_counter()
        rtsync.experiments.run_shard("schedulability", spec, 0, 1)
        span["call"] = time.perf_counter() - t0

    t = threading.Thread(target=sweep)
    t.start()
    last, gap = time.perf_counter(), 0.0
    go.set()
    while t.is_alive():
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    t.join()
    assert span["call"] > 0.1, "the call is long enough to tell"
    assert gap < span["call"] / 2, (gap, span["call"])


def test_protocols_and_version():
    assert "mpcp" in rtsync.protocols() and "mrsp" in rtsync.protocols()
    assert rtsync.__version__.count(".") == 2


def test_analysis_json_is_the_documented_schema(examples):
    a = rtsync.analyze(rtsync.load(examples / "pip-chained.toml"))
    assert a.raw["schema"] == "rtsync.analysis/1"
    assert json.dumps(a.raw)


def test_a_spec_built_from_dataclasses():
    from rtsync.spec import Compute, Lock, Platform, Resource, Spec, Task

    spec = Spec(
        name="dc",
        platform=Platform(cpus=1, protocol="pcp"),
        resources=[Resource("A")],
        tasks=[
            Task("hi", period="5ms", body=[Compute("1ms"), Lock("A", hold="200us")]),
            Task("lo", period="20ms", body=[Lock("A", body=[Compute(2_000_000)]), Compute("3ms")]),
        ],
    )
    s = spec.build()
    assert s.name == "dc" and s.task_names == ["hi", "lo"]
    # The same system as the dict form: hi waits for lo's 2 ms section once.
    assert rtsync.analyze(s).task("hi").response == 3_200_000
    assert rtsync.from_dict(spec).to_toml() == s.to_toml()
    spec.tasks[0].body.append(Lock("B", hold="1ms"))
    with pytest.raises(rtsync.SpecError) as e:
        spec.build()
    assert "B" in str(e.value) and "known resources: A" in str(e.value)


def test_overheads_are_charged_from_a_file_or_text(tmp_path, examples):
    s = rtsync.load(examples / "pcp-nested.toml")
    plain = rtsync.analyze(s).task("low")
    profile = 'context_switch = "5us"\nrelease = "2us"\n[protocol.pcp]\nlock = "1us"\nunlock = "1us"\n'
    path = tmp_path / "ovh.toml"
    path.write_text(profile)
    from_file = rtsync.analyze(s, overheads=path).task("low")
    from_text = rtsync.analyze(s, overheads=profile).task("low")
    assert from_file == from_text
    assert from_file.wcet > plain.wcet and from_file.blocking.overhead > 0
    with pytest.raises(FileNotFoundError, match="bench locks"):
        rtsync.analyze(s, overheads=tmp_path / "none.toml")
    with pytest.raises(rtsync.SpecError):
        rtsync.analyze(s, overheads="context_switch = 5\n")
