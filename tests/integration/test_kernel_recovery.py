# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfd survives the kernel misbehaviours of PLATFORM.md: leaked DEADLINE
bandwidth (EBUSY although rtf's own accounting has room) and a DEADLINE
thread left throttled for good (simulated by RTFD_TEST_INJECT_STUCK)."""
import errno

import pytest

import kernel
from rtfit import GLOBAL, PARTITIONED, wait_for

pytestmark = pytest.mark.deadline

# The leak needs a sleeping thread that goes OTHER -> DEADLINE -> OTHER; big
# steps first, then the size rtfd will ask for, so that it is refused too.
ATTACH_RUNTIME_US, ATTACH_PERIOD_US = 10000, 100000
LEAK_STEPS_NS = [(30_000_000, 100_000_000), (ATTACH_RUNTIME_US * 1000, ATTACH_PERIOD_US * 1000)]
LEAK_MAX_CYCLES = 200


@pytest.fixture
def leak_cleanup(request):
    """Whatever happens, give the kernel its bandwidth back at the end."""
    def rebuild():
        if not kernel.rtf_cpusets():
            kernel.rebuild_root_domains()
    request.addfinalizer(rebuild)


def sleeping(pid):
    """The process has exec'd `sleep` and sleeps in it."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    comm, state = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2]
    return comm == "sleep" and state == "S"


def leak_until_ebusy(pid):
    """Cycle `pid` until the kernel refuses DEADLINE; returns the cycles, or None."""
    wait_for(lambda: sleeping(pid), what="the helper to sleep")
    cycles = 0
    for runtime, period in LEAK_STEPS_NS:
        for _ in range(LEAK_MAX_CYCLES):
            try:
                kernel.sched_setattr(pid, kernel.SCHED_DEADLINE, runtime=runtime, deadline=period, period=period)
            except OSError as e:
                if e.errno == errno.EBUSY:
                    break
                raise
            kernel.sched_setattr(pid, kernel.SCHED_OTHER)
            cycles += 1
        else:
            return None
    return cycles


@pytest.mark.cpuset
def test_leaked_bandwidth_is_recovered_on_attach(rtfd, leak_cleanup):
    d = rtfd(GLOBAL)
    sleeper = d.spawn(["sleep", "1000"])
    cycles = leak_until_ebusy(sleeper.pid)
    if cycles is None:
        pytest.skip(f"the kernel did not leak DEADLINE bandwidth in {LEAK_MAX_CYCLES} cycles")
    # The kernel is now out of DEADLINE bandwidth; rtf's accounting is empty.
    c = d.client()
    tid = c.thread("t")
    r = c.create("e", period=ATTACH_PERIOD_US, runtime=ATTACH_RUNTIME_US, plugin="EDF")
    assert r["result"] == 0, r
    mark = len(d.log())
    r = c.attach("e", "thread:t")
    assert r["result"] == 0, (r, f"leaked after {cycles} cycles", d.log()[mark:])
    assert "Recovered leaked SCHED_DEADLINE bandwidth" in d.log()[mark:]
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_runtime, a.sched_period) == \
        (kernel.SCHED_DEADLINE, ATTACH_RUNTIME_US * 1000, ATTACH_PERIOD_US * 1000)


@pytest.mark.parametrize("config", [
    pytest.param(PARTITIONED, marks=pytest.mark.cpuset, id="partitioned"),
    pytest.param(GLOBAL, id="global"),
])
def test_stuck_thread_gets_a_fresh_reservation(rtfd, config):
    """The watchdog treats spec 1's thread as stuck once (test hook), resets
    it, and the thread ends up with the reservation it had."""
    d = rtfd(config, env={"RTFD_TEST_INJECT_STUCK": "1"})
    c = d.client()
    tid = c.thread("t")
    r = c.create("e", period=50000, runtime=5000, deadline=40000, plugin="EDF")
    assert r["result"] == 0 and r["id"] == 1, r
    assert c.attach("e", "thread:t")["result"] == 0
    d.wait_log("runs again with a fresh reservation")
    log = d.log()
    assert f"Thread {tid} of spec 1 is left throttled" in log, log
    a = kernel.sched_getattr(tid)
    assert a.sched_policy == kernel.SCHED_DEADLINE
    assert (a.sched_runtime, a.sched_deadline, a.sched_period) == (5_000_000, 40_000_000, 50_000_000)
    assert a.sched_flags & kernel.SCHED_FLAG_RESET_ON_FORK
    assert not a.sched_flags & kernel.SCHED_FLAG_DL_OVERRUN
    assert kernel.affinity(tid) == ({r["cpu"]} if r["cpu"] >= 0 else kernel.ALL_CPUS)
    assert d.task(1)["tid"] == tid
