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
from rtfit import TIMEOUT, start_with_policy, write_root_file
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

# Prints its thread id; for each byte "x" it reads, runs PERIODS periods of
# `period` seconds: in each it spins until its thread CPU clock advanced by
# `runtime` or the period ended; prints how many periods it got its runtime.
VICTIM_PROGRAM = """
import json
import os, os, sys, time
period, runtime, periods = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
os.write(1, b"%d\\n" % os.getpid())
while os.read(0, 1) == b"x":        # one series of `periods` periods per byte
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

    # The measure: the victim gets its runtime in at least 99 % of
    # 1,000 periods.  A host stall of 5-25 ms (this VM has them, hog or not)
    # costs the victim a few periods whatever rtfd does: a second series is
    # measured only when the first falls short, and every series must still
    # reach 90 % (on 9e4110f the victim got nothing at all).
    results = []
    for attempt in range(2):
        victim.stdin.write("x")
        victim.stdin.flush()
        # A victim that receives nothing never gets to print: bounded wait.
        ready, _, _ = select.select([victim.stdout], [], [], PERIODS * VICTIM["period"] / 1e6 + TIMEOUT)
        assert ready, "the victim did not finish its periods: it received (almost) no CPU time"
        results.append(json.loads(victim.stdout.readline()))
        print(f"victim: {results[-1]}")
        assert results[-1]["met"] >= 0.90 * PERIODS, results
        if results[-1]["met"] >= 0.99 * PERIODS:
            break
    assert max(r["met"] for r in results) >= 0.99 * PERIODS, results
    # The hog is still attached and still gets its own runtime at its priority.
    assert d.task(rh["id"])["tid"] == hog_tid
    assert a.detach("hog")["result"] == 0
    line = d.wait_log(f"Thread {hog_tid}: runtime 1000 us per 5000 us enforced")
    print([l for l in d.log().splitlines() if "enforced over" in l])
    assert line


# Spins and records its contiguous runs (no gap over 50 us between two looks
# at the clock) for `seconds`; prints the lengths in microseconds.
RUNS = """
import json, os, sys, time
seconds = float(sys.argv[1])
os.write(1, b"%d\\n" % os.getpid())
os.read(0, 1)
runs, start = [], time.monotonic()
begin = last = start
while last - start < seconds:
    now = time.monotonic()
    if now - last > 50e-6:
        runs.append((last - begin) * 1e6)
        begin = now
    last = now
print(json.dumps(runs[1:]), flush=True)
"""


def overruns(runs_us, runtime_us):
    """(median, 99th percentile, largest) of how much longer than the runtime
    the runs were that reached it."""
    over = sorted(r - runtime_us for r in runs_us if r >= 0.9 * runtime_us)
    assert over, runs_us[:20]
    return over[len(over) // 2], over[int(len(over) * 0.99)], over[-1]


@pytest.mark.deadline
def test_enforcement_precision_next_to_the_kernel_cbs(rtfd, tmp_path, users):
    """Not a pass/fail test of precision (the machine is shared): it measures,
    on this machine, how far beyond 1 ms every 5 ms a spinning thread runs
    (1) under the kernel's CBS (SCHED_DEADLINE set directly) and (2) under
    rtfd's enforcement of an RM task (the counter's view, from rtfd's log),
    and prints both (docs/BUDGETS.md quotes them)."""
    alice = users["alice"]
    d = start_with_policy(rtfd, tmp_path, CONFIG, POLICY)
    # (1) CBS: a throttled SCHED_DEADLINE thread does not run at all, so its
    # runs are its runtime plus the kernel's overrun.
    p, tid = python_as(d, alice, RUNS, 3, stdin=subprocess.PIPE)
    kernel.sched_setattr(tid, kernel.SCHED_DEADLINE, runtime=1_000_000, deadline=5_000_000, period=5_000_000)
    p.stdin.write("x")
    p.stdin.flush()
    ready, _, _ = select.select([p.stdout], [], [], 3 + TIMEOUT)
    assert ready
    cbs = overruns(json.loads(p.stdout.readline()), 1000)
    p.kill()
    # (2) rtfd: an RM task of the same size, spinning, for 3 s.
    hog, hog_tid = python_as(d, alice, SPIN, stdin=subprocess.DEVNULL)
    a = client(d, alice)
    assert a.create("hog", **HOG)["result"] == 0
    assert a.attach("hog", str(hog_tid))["result"] == 0
    select.select([], [], [], 3)
    assert a.detach("hog")["result"] == 0
    line = d.wait_log(f"Thread {hog_tid}: runtime 1000 us per 5000 us enforced")
    mine = [l for l in d.log().splitlines() if f"Thread {hog_tid}: runtime" in l][0]
    print(f"\nCBS (SCHED_DEADLINE 1 ms / 5 ms): overrun median {cbs[0]:.0f} us, p99 {cbs[1]:.0f} us, "
          f"max {cbs[2]:.0f} us\nrtfd (RM 1 ms / 5 ms): {mine.split(': ', 2)[2]}")
    assert line


# SPIN, after setting its own RLIMIT_RTTIME (as rtkit's clients must).
SPIN_LIMITED = """
import os, resource, sys
limit = int(sys.argv[1])
if limit:
    resource.setrlimit(resource.RLIMIT_RTTIME, (limit, limit))
os.write(1, b"%d\\n" % os.getpid())
while True:
    pass
"""


def test_a_fifo_task_without_a_runtime_is_bounded_by_the_administrators_rttime(rtfd, tmp_path, users):
    """rtfd --rttime-us 200000: alice's FP task without a runtime is attached
    only if its process's hard RLIMIT_RTTIME is at most 200 ms (rtfd lowers it
    where it has CAP_SYS_RESOURCE; here the process sets it, as rtkit
    requires), and a thread that then spins without blocking is killed by the
    kernel.  Fails on main (9e4110f): there is no such option (rtfd does not
    start)."""
    alice = users["alice"]
    acl = str(tmp_path / "acl.conf")
    write_root_file(acl, "rtf-alice FP max_priority 50\n")
    d = rtfd("FP FP.so 1-99 all\n", args=("--acl", acl, "--rttime-us", "200000"))
    a = client(d, alice)
    assert a.create("s", priority=10, plugin="FP")["result"] == 0
    unlimited, tid = python_as(d, alice, SPIN_LIMITED, 0, stdin=subprocess.DEVNULL)
    r = a.attach("s", str(tid))
    if r["result"] == 0:        # rtfd could lower the limit itself
        with open(f"/proc/{tid}/limits") as f:
            line = next(l for l in f if l.startswith("Max realtime timeout"))
        assert line.split()[3:5] == ["200000", "200000"], line
        unlimited.wait(timeout=TIMEOUT)
        assert a.detach("s")["result"] in (0, -22)
    else:
        assert kernel.sched_getattr(tid).sched_policy == kernel.SCHED_OTHER
    unlimited.kill()
    limited, tid = python_as(d, alice, SPIN_LIMITED, 200000, stdin=subprocess.DEVNULL)
    assert a.attach("s", str(tid))["result"] == 0
    assert kernel.sched_getattr(tid).sched_policy == kernel.SCHED_FIFO
    limited.wait(timeout=TIMEOUT)
    assert limited.returncode in (-9, -24), limited.returncode     # SIGKILL at the hard limit (SIGXCPU: soft)
