# SPDX-License-Identifier: LGPL-2.1-or-later
"""FP, RR and RM: SCHED_FIFO / SCHED_RR with the priority the plugin mapped,
pinned to the core it chose; RM re-prioritises threads already attached."""
import kernel


def check_fixed(tid, policy, priority, cpu):
    a = kernel.sched_getattr(tid)
    assert a.sched_policy == policy
    assert a.sched_priority == priority
    assert a.sched_flags & kernel.SCHED_FLAG_RESET_ON_FORK
    assert kernel.affinity(tid) == {cpu}


def test_fp_and_rr_policies_and_priorities(rtfd):
    d = rtfd("FP FP.so 1-99 0\nRR RR.so 1-99 1\n")
    c = d.client()
    f = c.thread("f")
    r = c.create("f", priority=20, plugin="FP")
    assert r["result"] == 0, r
    assert (r["plugin"], r["cpu"], r["priority"]) == ("FP", 0, 20)
    assert c.attach("f", "thread:f")["result"] == 0
    check_fixed(f, kernel.SCHED_FIFO, 20, 0)

    rr = c.thread("r")
    r = c.create("r", priority=30, plugin="RR")
    assert r["result"] == 0, r
    assert (r["plugin"], r["cpu"], r["priority"]) == ("RR", 1, 30)
    assert c.attach("r", "thread:r")["result"] == 0
    check_fixed(rr, kernel.SCHED_RR, 30, 1)

    # Without a plugin name the first plugin of the configuration that admits wins.
    r = c.create("any", priority=40)
    assert r["result"] == 0 and r["plugin"] == "FP", r


def test_fp_on_all_cpus_spreads_specs_over_the_cores(rtfd):
    d = rtfd("FP FP.so 1-99 all\n")
    c = d.client()
    cpus = []
    for i, prio in enumerate((10, 20, 30, 40)):
        tid = c.thread(f"t{i}")
        r = c.create(f"s{i}", priority=prio)
        assert r["result"] == 0, r
        assert r["cpu"] in kernel.ALL_CPUS, r
        assert c.attach(f"s{i}", f"thread:t{i}")["result"] == 0
        check_fixed(tid, kernel.SCHED_FIFO, r["priority"], r["cpu"])
        cpus.append(r["cpu"])
    assert set(cpus) == kernel.ALL_CPUS, f"specs not spread over the CPUs: {cpus}"
    per_core = {c["cpu"]: c["tasks"] for c in d.cores()}
    assert per_core == {cpu: cpus.count(cpu) for cpu in kernel.ALL_CPUS}


def test_narrow_priority_range_keeps_the_order(rtfd):
    """Three requested priorities outside a 3-wide range: the kernel
    priorities of the attached threads keep the requested order, also for
    threads attached before the others were created (re-applied)."""
    d = rtfd("FP FP.so 10-12 0\n")
    c = d.client()
    requested = {"mid": 60, "low": 50, "high": 70}
    for name, prio in requested.items():
        c.thread(name)
        r = c.create(name, priority=prio)
        assert r["result"] == 0, r
        assert c.attach(name, f"thread:{name}")["result"] == 0
    kprio = {n: kernel.sched_getattr(c.threads[n]).sched_priority for n in requested}
    assert all(10 <= p <= 12 for p in kprio.values()), kprio
    assert kprio["low"] < kprio["mid"] < kprio["high"], kprio
    # rtfd's view agrees with the kernel's.
    by_tid = {t["tid"]: t["priority"] for t in d.tasks()}
    assert {n: by_tid[c.threads[n]] for n in requested} == kprio


def test_rm_reprioritises_an_attached_thread(rtfd):
    d = rtfd("RM RM.so 1-99 0\n")
    c = d.client()
    slow = c.thread("slow")
    r = c.create("slow", period=100000, runtime=10000)
    assert r["result"] == 0 and r["plugin"] == "RM", r
    slow_id = r["id"]
    assert c.attach("slow", "thread:slow")["result"] == 0
    before = kernel.sched_getattr(slow)
    assert before.sched_policy == kernel.SCHED_FIFO
    assert before.sched_priority == r["priority"]

    # A shorter period ranks above: the attached thread must move down.
    fast = c.thread("fast")
    r = c.create("fast", period=10000, runtime=1000)
    assert r["result"] == 0, r
    assert c.attach("fast", "thread:fast")["result"] == 0
    after = kernel.sched_getattr(slow)
    assert after.sched_policy == kernel.SCHED_FIFO
    assert after.sched_priority != before.sched_priority, "RM did not re-apply the new priority"
    assert after.sched_priority < kernel.sched_getattr(fast).sched_priority
    assert d.task(slow_id)["priority"] == after.sched_priority

    # Releasing the fast one may raise the slow one again, never above its rank.
    assert c.release("fast")["result"] == 0
    assert kernel.sched_getattr(slow).sched_priority == d.task(slow_id)["priority"]
