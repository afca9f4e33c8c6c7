# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtf_spec_change: all or nothing, and an attached thread follows the spec
from one plugin (and kernel policy) to another."""
import errno
import os
import subprocess
import time

import pytest

import kernel
from rtfit import GLOBAL, PARTITIONED

RTF_SCHEDULE_FAIL = 1


def kernel_state(tid):
    a = kernel.sched_getattr(tid)
    return (a.sched_policy, a.sched_priority, a.sched_runtime, a.sched_deadline, a.sched_period,
            kernel.affinity(tid), kernel.cpuset_of(tid))


@pytest.mark.deadline
def test_failed_change_changes_nothing(rtfd):
    d = rtfd(GLOBAL)
    c = d.client()
    e, f = c.thread("e"), c.thread("f")
    r = c.create("e", period=100000, runtime=10000, plugin="EDF")
    assert r["result"] == 0, r
    assert c.attach("e", "thread:e")["result"] == 0
    assert c.create("f", priority=30, plugin="FP")["result"] == 0
    assert c.attach("f", "thread:f")["result"] == 0
    tasks_before = d.tasks()
    kernel_before = {t: kernel_state(t) for t in (e, f)}

    impossible = [
        ("e", dict(period=100000, runtime=99000, plugin="EDF")),       # over EDF's utilisation bound
        ("e", dict(period=1000, runtime=999, plugin="EDF")),
        ("f", dict(period=100000, runtime=99000, plugin="EDF")),       # FP -> EDF, not admissible
        ("e", dict(priority=30, plugin="NOSUCH")),                     # no such plugin
    ]
    for spec, params in impossible:
        r = c.change(spec, **params)
        assert r["result"] == RTF_SCHEDULE_FAIL, (spec, params, r)
        assert r["reason"], "a refusal says why"
        assert d.tasks() == tasks_before, (spec, params)
        assert {t: kernel_state(t) for t in (e, f)} == kernel_before, (spec, params)


@pytest.mark.deadline
@pytest.mark.parametrize("config", [
    pytest.param(PARTITIONED, marks=pytest.mark.cpuset, id="partitioned"),
    pytest.param(GLOBAL, id="global"),
])
def test_change_attached_thread_from_fp_to_edf_and_back(rtfd, config):
    d = rtfd(config)
    partitioned = config == PARTITIONED
    c = d.client()
    tid = c.thread("t")
    r = c.create("s", priority=10, plugin="FP")
    assert r["result"] == 0, r
    assert c.attach("s", "thread:t")["result"] == 0
    fp_cpu = r["cpu"]
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 10)

    r = c.change("s", period=50000, runtime=5000, deadline=40000, plugin="EDF")
    assert r["result"] == 0, r
    assert r["plugin"] == "EDF"
    a = kernel.sched_getattr(tid)
    assert a.sched_policy == kernel.SCHED_DEADLINE
    assert (a.sched_runtime, a.sched_deadline, a.sched_period) == (5000000, 40000000, 50000000)
    assert a.sched_flags & kernel.SCHED_FLAG_RESET_ON_FORK
    assert not a.sched_flags & kernel.SCHED_FLAG_DL_OVERRUN
    if partitioned:
        assert r["cpu"] == 1
        assert kernel.affinity(tid) == {1}
        assert kernel.cpuset_of(tid) == "/rtf-cpu1"
    else:
        assert kernel.affinity(tid) == kernel.ALL_CPUS
    t = d.task(r["id"])
    assert (t["plugin"], t["period_us"], t["runtime_us"], t["tid"]) == ("EDF", 50000, 5000, tid)

    # New parameters within EDF.
    r = c.change("s", period=20000, runtime=4000, plugin="EDF")
    assert r["result"] == 0, r
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_runtime, a.sched_deadline, a.sched_period) == \
        (kernel.SCHED_DEADLINE, 4000000, 20000000, 20000000)

    r = c.change("s", priority=15, plugin="FP")
    assert r["result"] == 0, r
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 15)
    assert kernel.affinity(tid) == {r["cpu"]}
    if partitioned:
        assert r["cpu"] == fp_cpu == 0
        assert kernel.cpuset_of(tid) == "/rtf-system"
    assert d.task(r["id"])["plugin"] == "FP"


@pytest.fixture
def no_rt_cgroup(request):
    """A cpu-controller cgroup with cpu.rt_runtime_us = 0: the kernel refuses
    SCHED_FIFO/RR to its threads (EPERM) but not SCHED_DEADLINE."""
    path = "/sys/fs/cgroup/cpu/rtfit-nort-%d" % os.getpid()
    if not os.path.exists("/sys/fs/cgroup/cpu/cpu.rt_runtime_us"):
        pytest.skip("no cgroup-v1 cpu controller with RT group scheduling")
    os.mkdir(path)

    def cleanup():
        for _ in range(50):
            with open(os.path.join(path, "tasks")) as f:
                for tid in f.read().split():
                    try:
                        with open("/sys/fs/cgroup/cpu/tasks", "w") as root:
                            root.write(tid)
                    except OSError:
                        pass
            try:
                os.rmdir(path)
                return
            except OSError:
                time.sleep(0.02)
    request.addfinalizer(cleanup)
    with open(os.path.join(path, "cpu.rt_runtime_us")) as f:
        if f.read().strip() != "0":
            pytest.skip("a new cpu cgroup does not start with rt_runtime_us 0 here")

    def enter(tid):
        with open(os.path.join(path, "tasks"), "w") as f:
            f.write(str(tid))
    return enter


@pytest.mark.deadline
def test_change_refused_by_the_kernel_restores_the_old_setting(rtfd, no_rt_cgroup):
    """rtf's admission says yes, the kernel says no: the change fails as a
    whole, and so does an attach."""
    d = rtfd(GLOBAL)
    c = d.client()
    tid = c.thread("t")
    no_rt_cgroup(tid)
    r = c.create("s", period=100000, runtime=10000, deadline=50000, plugin="EDF")
    assert r["result"] == 0, r
    assert c.attach("s", "thread:t")["result"] == 0
    tasks_before = d.tasks()
    state_before = kernel_state(tid)
    assert state_before[0] == kernel.SCHED_DEADLINE

    r = c.change("s", priority=10, plugin="FP")
    assert r["result"] == -errno.EPERM, r
    assert "refused" in r["reason"], r
    assert d.tasks() == tasks_before
    assert kernel_state(tid) == state_before
    # Still changeable within what the kernel allows.
    r = c.change("s", period=100000, runtime=20000, plugin="EDF")
    assert r["result"] == 0, r
    assert kernel.sched_getattr(tid).sched_runtime == 20_000_000

    other = c.thread("u")
    no_rt_cgroup(other)
    r = c.create("f", priority=10, plugin="FP")
    assert r["result"] == 0, r
    r = c.attach("f", "thread:u")
    assert r["result"] == -errno.EPERM, r
    assert kernel.sched_getattr(other).sched_policy == kernel.SCHED_OTHER
    assert d.task(r["id"])["tid"] == 0


@pytest.fixture
def dl_hogs(request):
    """Sleeping processes that really hold SCHED_DEADLINE bandwidth, outside
    rtf, until the kernel admits no more."""
    procs = []

    def fill():
        for runtime in (30_000_000, 5_000_000, 1_000_000):
            for _ in range(200):
                p = subprocess.Popen(["sleep", "1000"])
                procs.append(p)
                try:
                    kernel.sched_setattr(p.pid, kernel.SCHED_DEADLINE, runtime=runtime,
                                         deadline=100_000_000, period=100_000_000)
                except OSError as e:
                    if e.errno != errno.EBUSY:
                        raise
                    break

    def cleanup():
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
    request.addfinalizer(cleanup)
    return fill


@pytest.mark.deadline
def test_change_without_kernel_bandwidth_is_a_schedule_fail(rtfd, dl_hogs):
    """rtf's admission has room, the kernel's bandwidth is held by tasks rtf
    does not know (and no leak rtfd could recover): RTF_SCHEDULE_FAIL, and
    the old setting stays."""
    d = rtfd(GLOBAL)
    c = d.client()
    tid = c.thread("t")
    r = c.create("s", priority=10, plugin="FP")
    assert r["result"] == 0, r
    assert c.attach("s", "thread:t")["result"] == 0
    tasks_before = d.tasks()
    state_before = kernel_state(tid)

    for _ in range(3):
        # Bandwidth the kernel leaked earlier would be recovered by rtfd and
        # make room (and a rebuild recounts the fair servers' reservations,
        # up to 5 % a CPU): ask for more than that, and if a recovery still
        # made room, fill again.
        dl_hogs()
        mark = len(d.log())
        r = c.change("s", period=100000, runtime=40000, plugin="EDF")
        if r["result"] != 0 or "Recovered leaked" not in d.log()[mark:]:
            break
        assert c.change("s", priority=10, plugin="FP")["result"] == 0
    else:
        pytest.skip("the kernel kept finding leaked bandwidth")
    assert r["result"] == RTF_SCHEDULE_FAIL, r
    assert d.tasks() == tasks_before
    assert kernel_state(tid) == state_before
