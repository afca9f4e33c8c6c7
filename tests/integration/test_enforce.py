# SPDX-License-Identifier: LGPL-2.1-or-later
"""A declared runtime of a fixed-priority task is a bound (issue 10, point 2),
tried by real users (users.py) against the real rtfd on one CPU.

alice's RM task declares 1 ms every 5 ms (the shorter period: the higher RM
priority) and spins; bob's RM task declares 2 ms every 10 ms on the same CPU
and measures, with its own thread CPU clock, whether it received its 2 ms
before the end of each of 1,000 periods.  Fails on main (9e4110f): the hog
at the top priority takes the whole CPU and bob receives nothing."""
import json
import os
import select
import subprocess

import pytest

import kernel
from rtfit import TIMEOUT, start_with_policy
from users import client, users  # noqa: F401 - users is a fixture

CONFIG = "RM RM.so 1-99 0\n"
POLICY = "rtf-alice RM max_utilization 0.5\nrtf-bob RM max_utilization 0.5\n"
HOG = dict(period=5000, runtime=1000, plugin="RM")
VICTIM = dict(period=10000, runtime=2000, plugin="RM")
PERIODS = int(os.environ.get("RTF_ENFORCE_PERIODS", "1000"))

# Prints its thread id, then spins for ever.
SPIN = """
import os, threading
os.write(1, b"%d\\n" % threading.get_native_id())
while True:
    pass
"""

# Prints its thread id, waits for a byte, then runs PERIODS periods of
# `period` seconds: in each it spins until its thread CPU clock advanced by
# `runtime` or the period ended; prints how many periods it got its runtime.
VICTIM_PROGRAM = """
import json
import os, os, sys, time
period, runtime, periods = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
os.write(1, b"%d\\n" % os.getpid())
os.read(0, 1)
met, worst = 0, runtime
start = time.monotonic() + period
for i in range(periods):
    begin = start + i * period
    end = begin + period
    delay = begin - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    cpu0 = time.thread_time()
    while time.thread_time() - cpu0 < runtime and time.monotonic() < end:
        pass
    got = time.thread_time() - cpu0
    worst = min(worst, got)
    if got >= runtime and time.monotonic() <= end:
        met += 1
print(json.dumps({"met": met, "periods": periods, "worst_ms": worst * 1e3}), flush=True)
"""


def python_as(d, account, program, *args, stdin=None):
    p = subprocess.Popen(account.setpriv() + ["/usr/bin/python3", "-c", program] + [str(a) for a in args],
                         stdin=stdin, stdout=subprocess.PIPE, text=True)
    d.children.append(p)
    return p, int(p.stdout.readline())


@pytest.mark.cpuset
def test_a_hog_at_the_top_priority_cannot_take_another_users_runtime(rtfd, tmp_path, users):
    alice, bob = users["alice"], users["bob"]
    d = start_with_policy(rtfd, tmp_path, CONFIG, POLICY)
    victim, victim_tid = python_as(d, bob, VICTIM_PROGRAM, VICTIM["period"] / 1e6, VICTIM["runtime"] / 1e6, PERIODS,
                                   stdin=subprocess.PIPE)
    b = client(d, bob)
    rv = b.create("v", **VICTIM)
    assert rv["result"] == 0, rv
    assert b.attach("v", str(victim_tid))["result"] == 0

    hog, hog_tid = python_as(d, alice, SPIN, stdin=subprocess.DEVNULL)
    a = client(d, alice)
    rh = a.create("hog", **HOG)
    assert rh["result"] == 0, rh
    assert a.attach("hog", str(hog_tid))["result"] == 0
    # RM re-prioritised the victim when the hog's shorter period came in; the
    # hog is SCHED_FIFO or, throttled already, SCHED_OTHER.
    hv = kernel.sched_getattr(victim_tid)
    assert hv.sched_policy == kernel.SCHED_FIFO
    assert d.task(rh["id"])["priority"] > hv.sched_priority, (d.task(rh["id"]), hv.sched_priority)
    assert kernel.sched_getattr(hog_tid).sched_policy in (kernel.SCHED_FIFO, kernel.SCHED_OTHER)

    victim.stdin.write("x")
    victim.stdin.flush()
    # A victim that receives nothing never gets to print: bounded wait.
    ready, _, _ = select.select([victim.stdout], [], [], PERIODS * VICTIM["period"] / 1e6 + TIMEOUT)
    assert ready, "the victim did not finish its periods: it received (almost) no CPU time"
    result = json.loads(victim.stdout.readline())
    print(f"victim: {result}")
    assert result["met"] >= 0.99 * PERIODS, result
    # The hog is still attached and still gets its own runtime at its priority.
    assert d.task(rh["id"])["tid"] == hog_tid
    assert a.detach("hog")["result"] == 0
    line = d.wait_log(f"Thread {hog_tid}: runtime 1000 us per 5000 us enforced")
    print([l for l in d.log().splitlines() if "enforced over" in l])
    assert line
