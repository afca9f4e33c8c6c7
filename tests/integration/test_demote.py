# SPDX-License-Identifier: LGPL-2.1-or-later
"""Withdrawal: detach, release, a client that dies, a thread that exits, and
a thread id that the kernel hands to somebody else meanwhile."""
import os

import pytest

import kernel
from rtfit import GLOBAL, wait_for
from users import spawn_with_pid

DL = dict(period=100000, runtime=10000, plugin="EDF")
FP = dict(priority=20, plugin="FP")


def assert_demoted(tid):
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_OTHER, 0)
    assert kernel.affinity(tid) == kernel.ALL_CPUS


@pytest.mark.deadline
def test_detach_demotes(rtfd):
    d = rtfd(GLOBAL)
    c = d.client()
    for spec, params, policy in (("f", FP, kernel.SCHED_FIFO), ("e", DL, kernel.SCHED_DEADLINE)):
        tid = c.thread(spec)
        r = c.create(spec, **params)
        assert r["result"] == 0, r
        assert c.attach(spec, f"thread:{spec}")["result"] == 0
        assert kernel.sched_getattr(tid).sched_policy == policy
        assert d.task(r["id"])["tid"] == tid
        r = c.detach(spec)
        assert r["result"] == 0, r
        assert_demoted(tid)
        assert d.task(r["id"])["tid"] == 0, "the spec stays, without a thread"
        # Detached twice is an error, and changes nothing.
        assert c.detach(spec)["result"] < 0
        assert_demoted(tid)


@pytest.mark.deadline
def test_release_of_an_attached_spec_demotes(rtfd):
    d = rtfd(GLOBAL)
    c = d.client()
    tids = {}
    for spec, params in (("f", FP), ("e", DL)):
        tids[spec] = c.thread(spec)
        assert c.create(spec, **params)["result"] == 0
        assert c.attach(spec, f"thread:{spec}")["result"] == 0
    for spec in tids:
        assert c.release(spec)["result"] == 0
        assert_demoted(tids[spec])
    assert d.tasks() == []


@pytest.mark.deadline
def test_killed_client_demotes_another_process_it_attached(rtfd):
    """The client attaches a thread of a different process (root may), then
    dies by SIGKILL: rtfd notices the closed connection and demotes it."""
    d = rtfd(GLOBAL)
    target = d.spawn(["sleep", "1000"])
    c = d.client()
    assert c.create("f", **FP)["result"] == 0
    assert c.attach("f", str(target.pid))["result"] == 0
    assert c.create("e", **DL)["result"] == 0
    helper = d.spawn(["sleep", "1000"])
    assert c.attach("e", str(helper.pid))["result"] == 0
    a = kernel.sched_getattr(target.pid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 20)
    assert kernel.sched_getattr(helper.pid).sched_policy == kernel.SCHED_DEADLINE
    assert len(d.tasks()) == 2

    c.kill()
    wait_for(lambda: d.tasks() == [], what="rtfd to drop the dead client's specs")
    assert_demoted(target.pid)
    assert_demoted(helper.pid)
    assert "# no tasks" in d.ctl("tasks", json_output=False)


@pytest.mark.deadline
def test_thread_exit_clears_the_spec_and_it_can_be_reused(rtfd):
    d = rtfd(GLOBAL)
    c = d.client()
    for spec, params, policy in (("f", FP, kernel.SCHED_FIFO), ("e", DL, kernel.SCHED_DEADLINE)):
        old = c.thread(spec + "1")
        r = c.create(spec, **params)
        assert r["result"] == 0, r
        assert c.attach(spec, f"thread:{spec}1")["result"] == 0
        assert d.task(r["id"])["tid"] == old
        c.exit_thread(spec + "1")
        wait_for(lambda: d.task(r["id"])["tid"] == 0, timeout=5, what="the exited thread to leave the spec")
        assert d.task(r["id"]) is not None, "the spec stays admitted"
        new = c.thread(spec + "2")
        r2 = c.attach(spec, f"thread:{spec}2")
        assert r2["result"] == 0, r2
        assert kernel.sched_getattr(new).sched_policy == policy
        assert d.task(r["id"])["tid"] == new


@pytest.mark.parametrize("how", ["detach", "release", "close"])
def test_recycled_thread_id_is_never_touched(rtfd, how):
    """A thread attached, then gone; its tid reused by an unrelated process
    that is SCHED_FIFO 7 on its own.  Whatever the client does next, rtfd
    must not demote the impostor: it holds the thread by pidfd, not by tid."""
    d = rtfd(GLOBAL)
    c = d.client()
    tid = c.thread("t")
    r = c.create("f", **FP)
    assert r["result"] == 0, r
    assert c.attach("f", "thread:t")["result"] == 0
    c.exit_thread("t")
    impostor = spawn_with_pid(d, tid, ["sleep", "1000"])
    if impostor is None:
        pytest.skip(f"could not make the kernel reuse tid {tid} (ns_last_pid)")
    os.sched_setscheduler(impostor.pid, os.SCHED_FIFO, os.sched_param(7))

    if how == "detach":
        c.detach("f")
    elif how == "release":
        c.release("f")
    else:
        c.quit()
        wait_for(lambda: d.tasks() == [], what="rtfd to drop the closed client's specs")
    # One more request through rtfd, so that it has handled the above.
    d.tasks()
    assert kernel.thread_exists(impostor.pid)
    a = kernel.sched_getattr(impostor.pid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 7), "rtfd demoted a stranger"
    # Nor may the impostor show up as attached.
    assert all(t["tid"] != impostor.pid for t in d.tasks())
