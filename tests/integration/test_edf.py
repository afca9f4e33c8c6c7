# SPDX-License-Identifier: LGPL-2.1-or-later
"""EDF: the thread gets SCHED_DEADLINE with exactly the admitted parameters,
pinned inside a cpuset partition when EDF has a strict subset of the CPUs,
unpinned (global EDF) when it has them all."""
import os

import pytest

import kernel
from rtfit import GLOBAL, PARTITIONED, wait_for

pytestmark = pytest.mark.deadline

PERIOD_US, RUNTIME_US, DEADLINE_US = 100000, 10000, 80000


def check_deadline(tid, runtime_us, deadline_us, period_us, overrun_signal=False):
    a = kernel.sched_getattr(tid)
    assert a.sched_policy == kernel.SCHED_DEADLINE
    assert (a.sched_runtime, a.sched_deadline, a.sched_period) == \
        (runtime_us * 1000, deadline_us * 1000, period_us * 1000)
    assert a.sched_flags & kernel.SCHED_FLAG_RESET_ON_FORK, "promoted thread must not pass RT to children"
    # SIGXCPU on overrun only when asked for: its default action ends the process.
    assert bool(a.sched_flags & kernel.SCHED_FLAG_DL_OVERRUN) == overrun_signal
    return a


def check_other(tid):
    a = kernel.sched_getattr(tid)
    assert a.sched_policy == kernel.SCHED_OTHER
    assert a.sched_priority == 0
    assert not a.sched_flags & kernel.SCHED_FLAG_RESET_ON_FORK


@pytest.mark.cpuset
def test_a_second_rtfd_leaves_the_partitions_of_the_first_alone(rtfd):
    """Only one rtfd owns cpuset partitions (a lock); another one started
    meanwhile neither removes them as stale nor makes its own: it runs
    global EDF, and the first keeps pinning its threads."""
    first = rtfd(PARTITIONED)
    assert "rtf-cpu1" in kernel.rtf_cpusets()
    second = rtfd(PARTITIONED)
    assert "Another rtfd owns the cpuset partitions" in second.log(), second.log()
    assert "rtf-cpu1" in kernel.rtf_cpusets()
    assert [c["partitioned"] for c in second.cores() if c["plugin"] == "EDF"] == [False]

    c = first.client()
    tid = c.thread("t")
    assert c.create("e", period=PERIOD_US, runtime=RUNTIME_US)["result"] == 0
    assert c.attach("e", "thread:t")["result"] == 0
    assert kernel.affinity(tid) == {1}
    assert kernel.cpuset_of(tid) == "/rtf-cpu1"
    r = second.client().create("e", period=PERIOD_US, runtime=RUNTIME_US)
    assert (r["result"], r["cpu"]) == (0, -1), r


@pytest.mark.cpuset
def test_partitioned_edf_pins_thread_in_its_partition(rtfd):
    balance_before = kernel.read_root_load_balance()
    d = rtfd(PARTITIONED)
    assert os.path.isdir(os.path.join(kernel.CPUSET_ROOT, "rtf-cpu1"))
    assert os.path.isdir(os.path.join(kernel.CPUSET_ROOT, "rtf-system"))
    assert kernel.read_root_load_balance() == "0"
    edf_cores = [c for c in d.cores() if c["plugin"] == "EDF"]
    assert [(c["cpu"], c["partitioned"]) for c in edf_cores] == [(1, True)]

    c = d.client()
    tid = c.thread("t")         # blocked, last ran outside the partition
    r = c.create("e", period=PERIOD_US, runtime=RUNTIME_US, deadline=DEADLINE_US)
    assert r["result"] == 0, r
    assert (r["plugin"], r["cpu"], r["accepted_runtime_us"]) == ("EDF", 1, RUNTIME_US)
    r = c.attach("e", "thread:t")
    assert r["result"] == 0, r

    check_deadline(tid, RUNTIME_US, DEADLINE_US, PERIOD_US)
    assert kernel.affinity(tid) == {1}
    assert kernel.cpuset_of(tid) == "/rtf-cpu1"

    # A second DL thread that is running when attached, and the client's own
    # main thread (blocked in the request) via "self".
    spin = c.thread("s", spin=True)
    assert c.create("e2", period=PERIOD_US, runtime=RUNTIME_US, deadline=PERIOD_US)["result"] == 0
    assert c.attach("e2", "thread:s")["result"] == 0
    check_deadline(spin, RUNTIME_US, PERIOD_US, PERIOD_US)
    assert kernel.affinity(spin) == {1}
    c.exit_thread("s")
    assert c.create("e3", period=PERIOD_US, runtime=RUNTIME_US)["result"] == 0
    assert c.attach("e3", "self")["result"] == 0
    check_deadline(c.pid, RUNTIME_US, PERIOD_US, PERIOD_US)
    assert kernel.affinity(c.pid) == {1}

    # Stopping rtfd demotes the threads and removes every partition.
    assert d.stop() == 0
    assert kernel.rtf_cpusets() == []
    assert kernel.read_root_load_balance() == balance_before
    for t in (tid, c.pid):
        check_other(t)
        assert kernel.affinity(t) == kernel.ALL_CPUS
        assert kernel.cpuset_of(t) == "/"


def test_global_edf_does_not_pin(rtfd):
    d = rtfd(GLOBAL)
    assert kernel.rtf_cpusets() == []
    assert all(not c["partitioned"] for c in d.cores())
    c = d.client()
    tid = c.thread("t")
    r = c.create("e", period=PERIOD_US, runtime=RUNTIME_US, deadline=DEADLINE_US, plugin="EDF")
    assert r["result"] == 0, r
    assert r["plugin"] == "EDF" and r["cpu"] == -1, r
    assert c.attach("e", "thread:t")["result"] == 0
    check_deadline(tid, RUNTIME_US, DEADLINE_US, PERIOD_US)
    assert kernel.affinity(tid) == kernel.ALL_CPUS
    assert kernel.rtf_cpusets() == []


def test_edf_grants_desired_runtime_to_the_kernel(rtfd):
    """The kernel reservation is the accepted runtime, not the minimum."""
    d = rtfd(GLOBAL)
    c = d.client()
    tid = c.thread("t")
    r = c.create("e", period=PERIOD_US, runtime=RUNTIME_US, des_runtime=3 * RUNTIME_US, plugin="EDF")
    assert r["result"] == 0, r
    accepted = r["accepted_runtime_us"]
    assert RUNTIME_US <= accepted <= 3 * RUNTIME_US
    assert c.attach("e", "thread:t")["result"] == 0
    check_deadline(tid, accepted, PERIOD_US, PERIOD_US)
    assert d.task(r["id"])["accepted_runtime_us"] == accepted


def test_overrun_is_reported_with_sigxcpu(rtfd):
    """A thread whose spec asks for it (RTF_PARAM_OVERRUN_SIGNAL) gets SIGXCPU
    (SCHED_FLAG_DL_OVERRUN) when it runs past its runtime, and keeps its
    reservation."""
    d = rtfd(GLOBAL)
    c = d.client()
    assert c.cmd("overruns")["sigxcpu"] == 0
    tid = c.thread("hog", spin=True)
    assert c.create("e", period=100000, runtime=1000, plugin="EDF", overrun=1)["result"] == 0
    assert c.attach("e", "thread:hog")["result"] == 0
    wait_for(lambda: c.cmd("overruns")["sigxcpu"] > 0, what="SIGXCPU for the overrunning thread")
    check_deadline(tid, 1000, 100000, 100000, overrun_signal=True)
    c.exit_thread("hog")
