# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfctl status/tasks: text and JSON, well-formed, and showing what rtfd
really holds."""
import os
import subprocess

import pytest

import kernel
from rtfit import GLOBAL, PARTITIONED, TIMEOUT

TASK_KEYS = {"id", "uid", "pid", "plugin", "period_us", "runtime_us", "des_runtime_us", "deadline_us",
             "requested_priority", "ignore_admission", "accepted_runtime_us", "priority", "cpu", "tid"}
CORE_KEYS = {"plugin", "policy", "cpu", "partitioned", "tasks", "prio_min", "prio_max",
             "prio_lowest_in_use", "prio_highest_in_use", "utilization"}


def text_rows(text):
    lines = text.strip().splitlines()
    assert lines and lines[0].startswith("#"), text
    return [l.split() for l in lines if not l.startswith("#")]


@pytest.mark.deadline
@pytest.mark.cpuset
def test_tasks_and_status_show_what_was_created(rtfd):
    d = rtfd(PARTITIONED)
    c = d.client()
    tid = c.thread("t")
    e = c.create("e", period=100000, runtime=10000, des_runtime=20000, deadline=90000)
    assert e["result"] == 0, e
    assert c.attach("e", "thread:t")["result"] == 0
    f = c.create("f", priority=30, plugin="FP")
    assert f["result"] == 0, f

    tasks = {t["id"]: t for t in d.tasks()}
    assert set(tasks) == {e["id"], f["id"]}
    for t in tasks.values():
        assert set(t) == TASK_KEYS
        assert (t["uid"], t["pid"]) == (0, c.pid)
    te, tf = tasks[e["id"]], tasks[f["id"]]
    assert (te["plugin"], te["cpu"], te["tid"]) == ("EDF", 1, tid)
    assert (te["period_us"], te["runtime_us"], te["des_runtime_us"], te["deadline_us"]) == (100000, 10000, 20000, 90000)
    assert te["accepted_runtime_us"] == e["accepted_runtime_us"] >= 10000
    assert kernel.sched_getattr(tid).sched_runtime == te["accepted_runtime_us"] * 1000
    assert (tf["plugin"], tf["cpu"], tf["tid"], tf["requested_priority"], tf["priority"]) == ("FP", 0, 0, 30, f["priority"])

    rows = {int(r[0]): r for r in text_rows(d.ctl("tasks", json_output=False))}
    assert set(rows) == {e["id"], f["id"]}
    # id uid pid plugin period runtime deadline accepted prio des.rt cpu thread
    assert rows[e["id"]] == [str(e["id"]), "0", str(c.pid), "EDF", "100000", "10000", "90000",
                             str(te["accepted_runtime_us"]), "0", "20000", "1", str(tid)]
    assert rows[f["id"]][3] == "FP" and rows[f["id"]][8] == str(f["priority"]) and rows[f["id"]][11] == "-"

    cores = d.cores()
    for core in cores:
        assert set(core) == CORE_KEYS
    by = {(x["plugin"], x["cpu"]): x for x in cores}
    assert set(by) == {("EDF", 1), ("FP", 0)}
    assert by["EDF", 1]["partitioned"] is True and by["FP", 0]["partitioned"] is False
    assert by["EDF", 1]["tasks"] == 1 and by["FP", 0]["tasks"] == 1
    assert by["EDF", 1]["utilization"] > 0
    assert by["FP", 0]["prio_lowest_in_use"] == by["FP", 0]["prio_highest_in_use"] == f["priority"]

    rows = text_rows(d.ctl("status", json_output=False))
    assert sorted((r[0], r[2], r[3]) for r in rows) == [("EDF", "1", "yes"), ("FP", "0", "no")]


def test_empty_daemon_and_errors(rtfd, build):
    d = rtfd(GLOBAL)
    assert d.tasks() == []
    assert "# no tasks" in d.ctl("tasks", json_output=False)
    assert len(d.cores()) == 2 * len(kernel.ALL_CPUS)
    r = subprocess.run([build.rtfctl, "--socket", os.path.join(d.dir, "nothing.sock"), "status"],
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode != 0 and "cannot connect" in r.stderr
    r = subprocess.run([build.rtfctl, "--socket", d.socket, "frobnicate"], capture_output=True, text=True,
                       timeout=TIMEOUT)
    assert r.returncode == 2


def test_many_tasks_are_paged(rtfd):
    """More specs than one reply packet holds: every one is listed once."""
    d = rtfd("FP FP.so 1-99 all\n")
    c = d.client()
    ids = []
    for i in range(80):
        r = c.create(f"s{i}", priority=1 + i % 99)
        assert r["result"] == 0, r
        ids.append(r["id"])
    assert [t["id"] for t in d.tasks()] == ids
    assert len(text_rows(d.ctl("tasks", json_output=False))) == 80
