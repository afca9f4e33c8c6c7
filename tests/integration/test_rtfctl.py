# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfctl status/tasks: text and JSON, well-formed, and showing what rtfd
really holds, and the periodic-task statistics each client reported."""
import os
import subprocess

import pytest

import kernel
import wire
from rtfit import GLOBAL, PARTITIONED, TIMEOUT, wait_for

TASK_KEYS = {"id", "uid", "user", "pid", "command", "plugin", "period_us", "runtime_us", "des_runtime_us", "deadline_us",
             "requested_priority", "ignore_admission", "accepted_runtime_us", "priority", "cpu", "tid",
             "reported_by_client"}
STATS_KEYS = {"age_ms", "final", "budget_mode", "period_ns", "budget_ns", "periods", "overruns", "missed_releases",
              "budget_exhaustions", "ignored_waits", "max_response_ns", "max_job_cpu_ns"}
# the columns of the statistics section of `rtfctl tasks`, after the id
STATS_COLUMNS = ("budget_mode", "periods", "overruns", "missed_releases", "budget_exhaustions", "ignored_waits",
                 "max_response_us", "max_job_cpu_us", "age_s", "task")
CORE_KEYS = {"plugin", "policy", "cpu", "partitioned", "global", "tasks", "prio_min", "prio_max",
             "prio_lowest_in_use", "prio_highest_in_use", "utilization"}


def text_tables(text):
    """The tables of a text output: each starts with '#' lines, then rows."""
    lines = text.strip().splitlines()
    assert lines and lines[0].startswith("#"), text
    tables, rows = [], []
    for line in lines:
        if not line.startswith("#"):
            rows.append(line.split())
        elif rows:
            tables.append(rows)
            rows = []
    if rows:
        tables.append(rows)
    return tables


def text_rows(text):
    """The rows of the first table (`rtfctl status`, or the tasks of `rtfctl tasks`)."""
    tables = text_tables(text)
    return tables[0] if tables else []


def text_stats(text):
    """{id: {column: text}} of the statistics section of `rtfctl tasks`, {} if it has none."""
    if "statistics reported by each task's client" not in text:
        return {}
    rows = text_tables(text)[1]
    assert all(len(r) == 1 + len(STATS_COLUMNS) for r in rows), rows
    return {int(r[0]): dict(zip(STATS_COLUMNS, r[1:])) for r in rows}


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
        assert (t["uid"], t["user"], t["pid"]) == (0, "root", c.pid)
        assert t["reported_by_client"] is None      # no periodic task, no report
    te, tf = tasks[e["id"]], tasks[f["id"]]
    assert (te["plugin"], te["cpu"], te["tid"]) == ("EDF", 1, tid)
    assert (te["period_us"], te["runtime_us"], te["des_runtime_us"], te["deadline_us"]) == (100000, 10000, 20000, 90000)
    assert te["accepted_runtime_us"] == e["accepted_runtime_us"] >= 10000
    assert kernel.sched_getattr(tid).sched_runtime == te["accepted_runtime_us"] * 1000
    assert (tf["plugin"], tf["cpu"], tf["tid"], tf["requested_priority"], tf["priority"]) == ("FP", 0, 0, 30, f["priority"])

    rows = {int(r[0]): r for r in text_rows(d.ctl("tasks", json_output=False))}
    assert set(rows) == {e["id"], f["id"]}
    # The command: the attached thread's name, else the owner process's.
    with open(f"/proc/{tid}/comm") as fc:
        comm = fc.read().strip()
    assert (te["command"], tf["command"]) == (comm, "testclient")
    # id user pid plugin period runtime deadline accepted prio des.rt cpu thread command
    assert rows[e["id"]] == [str(e["id"]), "root", str(c.pid), "EDF", "100000", "10000", "90000",
                             str(te["accepted_runtime_us"]), "0", "20000", "1", str(tid), comm.replace(" ", "_")]
    assert rows[f["id"]][3] == "FP" and rows[f["id"]][8] == str(f["priority"]) and rows[f["id"]][11] == "-"
    assert rows[f["id"]][12] == "testclient"

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


# ---- statistics reported by the clients -------------------------------------------

FP_ONLY = "FP FP.so 1-99 all\n"


def reported(d, spec_id, final=None):
    """The spec's reported statistics, once rtfd has them (and, if asked, the final ones)."""
    def get():
        t = d.task(spec_id)
        rep = t and t["reported_by_client"]
        return rep if rep and (final is None or rep["final"] == final) else None
    return wait_for(get, what=f"a report for spec {spec_id}")


def test_tasks_show_the_statistics_the_client_reported(rtfd):
    """A periodic task whose jobs run 1.5 budgets: its client reports from
    rtf_task_wait_period() and once more when the task stops; rtfctl shows
    exactly what the client counted, labelled as the client's."""
    d = rtfd(FP_ONLY)
    c = d.client()
    s = c.create("p", priority=10, period=10000, runtime=2000)
    assert s["result"] == 0, s
    assert c.attach("p", "self")["result"] == 0
    assert d.task(s["id"])["reported_by_client"] is None

    # Running: the first wait_period reports at once (then about once a second).
    r = c.cmd("periodic p periods=3 job_us=3000")
    assert r["result"] == 0, r
    rep = reported(d, s["id"])
    assert set(rep) == STATS_KEYS
    assert rep["final"] is False and rep["budget_mode"] == "soft"
    assert (rep["period_ns"], rep["budget_ns"]) == (10_000_000, 2_000_000)
    assert 1 <= rep["periods"] <= 3

    # Stopped: the last report holds every period, and so does rtfctl.
    r = c.cmd("periodic p periods=10 job_us=3000 stop=1")
    assert r["result"] == 0, r
    assert r["periods"] == 13 and r["budget_exhaustions"] > 0 and r["max_job_cpu_ns"] >= 3_000_000, r
    rep = reported(d, s["id"], final=True)
    for key in ("periods", "overruns", "missed_releases", "budget_exhaustions", "ignored_waits",
                "max_response_ns", "max_job_cpu_ns"):
        assert rep[key] == r[key], (key, rep, r)

    text = d.ctl("tasks", json_output=False)
    assert "its claim, not measured by rtfd" in text
    assert [int(row[0]) for row in text_rows(text)] == [s["id"]]
    row = text_stats(text)[s["id"]]
    assert (row["budget_mode"], row["task"]) == ("soft", "stopped")
    for key in ("periods", "overruns", "missed_releases", "budget_exhaustions", "ignored_waits"):
        assert int(row[key]) == r[key], (key, row, r)
    assert float(row["max_job_cpu_us"]) == pytest.approx(r["max_job_cpu_ns"] / 1e3, abs=0.06)

    # The statistics go with the spec.
    assert c.release("p")["result"] == 0
    assert d.tasks() == []
    assert "statistics" not in d.ctl("tasks", json_output=False)


def test_only_the_owning_connection_reports(rtfd):
    """Reports for another connection's spec are refused and audited, even
    from root; reports for an unknown spec are dropped; neither harms rtfd
    or the reporting connection.  A connection's own report is shown as sent."""
    d = rtfd(FP_ONLY)
    c = d.client()
    s = c.create("p", priority=10, period=10000, runtime=2000)
    assert s["result"] == 0, s
    r = c.cmd("periodic p periods=4 job_us=500 stop=1")
    assert r["result"] == 0 and r["periods"] == 4, r
    assert reported(d, s["id"], final=True)["periods"] == 4

    other = wire.connect(d.socket)          # root, but not the spec's connection
    mark = len(d.log())
    other.send(wire.report(s["id"], seq=2, periods=999999, overruns=5))
    d.wait_log(f"report statistics: refused: specification {s['id']} belongs to another client", mark)
    other.send(wire.report(424242, seq=3, periods=1))
    # A question after the reports is answered after them: they are all handled by now.
    own = wire.call(other, wire.create(seq=4, priority=20))
    assert own["result"] == 0 and own["seq"] == 4, own
    assert d.task(s["id"])["reported_by_client"]["periods"] == 4

    sent = dict(budget_mode=2, period_ns=5_000_000, budget_ns=1_000_000, periods=700, overruns=9,
                missed_releases=11, budget_exhaustions=13, ignored_waits=0, max_response_ns=6_000_001,
                max_job_cpu_ns=999_999)
    other.send(wire.report(own["id"], seq=5, **sent))
    rep = reported(d, own["id"])
    assert rep["budget_mode"] == "hard" and rep["final"] is False
    assert {k: rep[k] for k in sent if k != "budget_mode"} == {k: v for k, v in sent.items() if k != "budget_mode"}
    other.send(wire.report(own["id"], seq=6, flags=wire.STATS_FINAL, **sent))
    assert reported(d, own["id"], final=True)["periods"] == 700
    assert d.running()
    other.close()
    wait_for(lambda: d.task(own["id"]) is None, what="rtfd to release the closed connection's spec")
    assert d.task(s["id"])["reported_by_client"]["periods"] == 4
