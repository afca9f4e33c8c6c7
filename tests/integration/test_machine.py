# SPDX-License-Identifier: LGPL-2.1-or-later
"""The whole machine is sound, not each plugin alone (issue 11, points 1-3).

Each plugin's own test sees only its tasks on its CPUs.  Where SCHED_DEADLINE
threads cannot be pinned (no cpuset partition: a host without them, another
rtfd owning them, cgroup v2 without the controller) they float over every
CPU of the root domain, above every FIFO priority; rtfd's whole-machine check
(src/shared/admission/machine.c, called by the broker before any thread gets
a setting) must count them there.  On 9e4110f every request below was
admitted, and the task sets missed deadlines (issue 11; rtf-sim
--scenario=issue-1 and --scenario=issue-2 simulate the misses)."""
import pytest

pytestmark = pytest.mark.deadline

NO_PARTITIONS = ("--cpuset-root", "/nonexistent-rtf-cpuset-root")


def test_two_edf_instances_without_partitions_cannot_overload_the_floating_threads(rtfd):
    """Point 1: E0 and E1 each admit up to 0.9 of "their" CPU, but their
    threads float over both CPUs; the two short jobs may hold both CPUs
    while the long one needs one of them."""
    d = rtfd("E0 EDF.so 100-100 0\nE1 EDF.so 100-100 1\n", args=NO_PARTITIONS)
    assert "whole machine" in d.log().lower(), d.log()
    c = d.client()
    r = c.create("heavy", period=1000, runtime=850, plugin="E0")
    assert r["result"] == 0, r
    results = [c.create(f"short{i}", period=100, runtime=40, plugin="E1") for i in range(2)]
    refused = [r for r in results if r["result"] != 0]
    assert refused, f"both short tasks admitted beside the heavy one: {results}"
    assert "whole machine" in refused[0]["reason"], refused[0]
    # What was admitted stays admitted and listed.
    ids = {t["id"] for t in d.tasks()}
    assert len(ids) == 1 + len(results) - len(refused)


def test_a_floating_deadline_thread_counts_against_fifo_tasks_of_another_cpu(rtfd):
    """Point 2: EDF on CPU 0 and RM on CPU 1, no partitions: the DEADLINE
    thread also runs on CPU 1, above every FIFO priority."""
    d = rtfd("E EDF.so 100-100 0\nR RM.so 1-99 1\n", args=NO_PARTITIONS)
    c = d.client()
    r = c.create("dl", period=1000, runtime=900, plugin="E")
    assert r["result"] == 0, r
    r = c.create("rm", period=10000, runtime=5000, plugin="R")
    assert r["result"] != 0, f"RM task admitted under a floating 0.9 DEADLINE thread: {r}"
    assert "whole machine" in r["reason"] or "CPU 1" in r["reason"], r
    # Without the DEADLINE thread the same RM task fits.
    assert c.release("dl")["result"] == 0
    r = c.create("rm", period=10000, runtime=5000, plugin="R")
    assert r["result"] == 0, r


def test_a_task_without_runtime_never_sits_above_a_guaranteed_one(rtfd):
    """Point 3: under RM a task without a runtime would get a priority above
    (10000, 5000) and could take the whole CPU."""
    d = rtfd("R RM.so 1-99 1\n", args=NO_PARTITIONS)
    c = d.client()
    assert c.create("guaranteed", period=10000, runtime=5000)["result"] == 0
    r = c.create("unbounded", period=1000)
    assert r["result"] != 0, f"a task without runtime admitted above a guaranteed one: {r}"
