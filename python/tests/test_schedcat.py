"""The SchedCAT-shaped layer: a SchedCAT script's task set, analysed by
rtsync, with the bounds written back as SchedCAT writes them."""

import pytest

from rtsync.schedcat import SporadicTask, TaskSystem, apply_bounds, initialize_resource_model, is_schedulable, to_system


def three_tasks():
    ts = TaskSystem([SporadicTask(2000, 10000), SporadicTask(5000, 40000), SporadicTask(3000, 20000)])
    ts.assign_ids()
    initialize_resource_model(ts)
    ts[0].resmodel[0].add_request(100)
    ts[1].resmodel[0].add_request(300)
    ts[2].resmodel[0].add_request(200)
    ts[2].resmodel[0].add_request(200)
    for t, cpu in zip(ts, [0, 1, 0]):
        t.partition = cpu
    return ts


def test_mpcp_by_hand():
    """T1 (highest, CPU 0) waits for one remote section, T2's 300 us, and
    is blocked on its own CPU by T3's two global sections at their
    ceiling, min(1 + 1, 2) x 200 us (Lakshmanan et al. 2009's MPCP bound):
    2000 + 300 + 400 = 2700 us."""
    ts = three_tasks()
    assert is_schedulable(ts, "mpcp")
    assert ts[0].response_time == 2700
    assert (ts[0].blocked, ts[0].suspended) == (400, 300)
    assert ts[1].response_time is not None and ts[1].response_time <= ts[1].deadline


def test_the_system_keeps_order_partition_and_sections():
    ts = three_tasks()
    s = to_system(ts, "mpcp")
    assert s.cpus == 2 and s.task_cpus == [0, 1, 0]
    text = s.to_toml()
    assert text.count('lock = "R0"') == 4
    assert "priority = 3" in text.split("[[task]]")[1], "first in the list, highest priority"


def test_an_overloaded_set_is_refused_and_bad_sets_are_named():
    ts = three_tasks()
    ts.append(SporadicTask(9000, 10000))
    ts[-1].partition = 0
    assert not is_schedulable(ts, "mpcp")
    ts[-1].partition = None
    with pytest.raises(ValueError, match="partition"):
        is_schedulable(ts, "mpcp")
    ts = three_tasks()
    ts[0].resmodel[0].add_request(5000)
    with pytest.raises(ValueError, match="exceed its execution cost"):
        is_schedulable(ts, "mpcp")


def test_dpcp_serves_a_resource_where_told():
    ts = three_tasks()
    a = apply_bounds(ts, "dpcp", sync_cpu={0: 1})
    assert a.protocol == "dpcp"
    assert "sync_cpu = 1" in to_system(ts, "dpcp", sync_cpu={0: 1}).to_toml()
