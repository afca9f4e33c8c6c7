# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtf-latency, rtf-bench and rtfd's latency hint.

Short runs of both tools must produce complete, well-formed JSON (checked
against the schema below, never against a timing figure); --load must leave
no stress-ng behind, however the tool ends; rtfd holds /dev/cpu_dma_latency
exactly while a real-time thread is attached."""
import errno
import json
import os
import signal
import subprocess
import time

import pytest

from rtfit import TIMEOUT, start_with_policy, wait_for
from users import users  # noqa: F401 - a fixture

FP_ALL = "FP FP.so 1-99 all\n"
DMA = "/dev/cpu_dma_latency"


# ---- the latency hint ---------------------------------------------------------------

def holds_hint(pid):
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            if os.readlink(os.path.join(fd_dir, fd)) == DMA:
                return True
        except OSError:
            pass
    return False


needs_dma = pytest.mark.skipif(not os.path.exists(DMA), reason=f"no {DMA} on this kernel")


@needs_dma
def test_latency_hint_held_while_a_thread_is_attached(rtfd):
    d = rtfd(FP_ALL + "set latency_hint_us 0\n")
    pid = d.proc.pid
    c = d.client()
    assert not holds_hint(pid)
    c.thread("a")
    c.thread("b")
    assert c.create("a", priority=10)["result"] == 0
    assert c.create("b", priority=20)["result"] == 0
    assert not holds_hint(pid), "held with specifications but no thread attached"
    assert c.attach("a", "thread:a")["result"] == 0
    assert holds_hint(pid)
    assert c.attach("b", "thread:b")["result"] == 0
    assert c.detach("a")["result"] == 0
    assert holds_hint(pid), "released while thread b is still attached"
    c.exit_thread("b")          # a thread's exit is an unattach too
    wait_for(lambda: not holds_hint(pid), what="the hint released after the last thread exited")
    assert c.attach("a", "thread:a")["result"] == 0
    assert holds_hint(pid)
    c.kill()                    # the client's death releases everything
    wait_for(lambda: not holds_hint(pid), what="the hint released after the client died")


@needs_dma
def test_latency_hint_off(rtfd):
    d = rtfd(FP_ALL + "set latency_hint off\n")
    c = d.client()
    c.thread("a")
    assert c.create("a", priority=10)["result"] == 0
    assert c.attach("a", "thread:a")["result"] == 0
    assert not holds_hint(d.proc.pid)


def test_latency_hint_bad_value_refused(build, tmp_path):
    conf = tmp_path / "rtfd.conf"
    for bad in ("set latency_hint_us -3\n", "set latency_hint_us x\n", "set latency_hint on\n"):
        conf.write_text(FP_ALL + bad)
        r = subprocess.run([build.rtfd, "--check-config", "--config", str(conf), "--plugindir", build.plugindir],
                           capture_output=True, text=True, timeout=TIMEOUT)
        assert r.returncode != 0, bad
        assert "latency_hint" in r.stderr, r.stderr


# ---- the tools -------------------------------------------------------------------

def tool(build, name):
    path = os.path.join(build.path, "tools", name, name)
    if not os.access(path, os.X_OK):
        pytest.skip(f"{path} is not built")
    return path


def need(program):
    if not any(os.access(os.path.join(d, program), os.X_OK) for d in os.environ.get("PATH", "").split(":")):
        pytest.skip(f"{program} is not installed")


def check_schema(value, schema, where="$"):
    """A small JSON-schema subset: a type, or a dict of required keys, or [item schema]."""
    if isinstance(schema, dict):
        assert isinstance(value, dict), f"{where}: not an object"
        for key, sub in schema.items():
            assert key in value, f"{where}: no key {key!r}"
            check_schema(value[key], sub, f"{where}.{key}")
    elif isinstance(schema, list):
        assert isinstance(value, list), f"{where}: not an array"
        for i, item in enumerate(value):
            check_schema(item, schema[0], f"{where}[{i}]")
    else:
        types = schema if isinstance(schema, tuple) else (schema,)
        if int in types and bool not in types:
            assert not isinstance(value, bool), f"{where}: boolean where a number belongs"
        assert isinstance(value, types), f"{where}: {value!r} is not {schema}"


NUM = (int, float)
ENVELOPE = {"file_version": int, "tool": str, "tool_version": str, "cmdline": str,
            "kernel": {"sysname": str, "release": str, "version": str, "machine": str},
            "start_time": str, "end_time": str, "return_code": int}
SIDE = {"samples": int, "min_ns": int, "avg_ns": int, "p50_ns": int, "p99_ns": int, "p999_ns": int,
        "max_ns": int, "overruns": int, "histogram_overflows": int, "histogram_us": [[int]]}
LATENCY = dict(ENVELOPE, parameters={"period_us": int, "priority": int, "plugin": str, "cpu": int,
                                     "duration_s": NUM, "mlockall": bool},
               rtf=SIDE)
BENCH = dict(ENVELOPE, rtt_p50_ns=int, attach_p50_ns=int, syscall_p50_ns=int, uss_idle_kib=int, uss_full_kib=int,
             rows=[{"plugin": str, "cores": int, "tasks": int, "create_p50_ns": int, "change_p50_ns": int,
                    "rtt_p50_ns": int, "create_ratio": NUM, "change_ratio": NUM}])
OPT_INT = (int, type(None))
STOP = {"tasks": int, "step": str, "result": int, "error": str, "reason": str}
SERIES = {"plugin": str, "kind": str, "cores": int, "complete": bool, "stopped": (dict, type(None))}
BENCH_EXTERNAL = dict(BENCH, mode=str, socket=str, series=[SERIES], notes=[str], requests_throttled=int,
                      attach_plugin=(str, type(None)),
                      daemon={"pid": OPT_INT, "comm": (str, type(None)), "uss_pid": OPT_INT,
                              "instances": [{"plugin": str, "kind": str, "cpus": [int], "tasks_before": int}]})


def run_json(argv, env=None, timeout=60):
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    assert r.returncode == 0, f"{argv} exited {r.returncode}:\n{r.stderr}"
    doc = json.loads(r.stdout)
    assert doc["return_code"] == 0
    return doc


def tool_env(d):
    return dict(os.environ, RTF_SOCKET=d.socket)


@pytest.mark.parametrize("name", ["rtf-latency", "rtf-bench", "rtf-budget"])
def test_tools_help_and_version(build, name):
    t = tool(build, name)
    r = subprocess.run([t, "--help"], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0 and "--json" in r.stdout
    r = subprocess.run([t, "--version"], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0 and r.stdout.startswith(name + " ")
    r = subprocess.run([t, "--no-such-option"], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode != 0


def test_rtf_latency_json(build, rtfd):
    d = rtfd(FP_ALL)
    doc = run_json([tool(build, "rtf-latency"), "--duration", "1", "--period", "500", "--json"], tool_env(d))
    check_schema(doc, LATENCY)
    assert doc["tool"] == "rtf-latency"
    p = doc["parameters"]
    assert (p["period_us"], p["plugin"], p["priority"]) == (500, "FP", 90)
    s = doc["rtf"]
    assert s["samples"] > 0
    assert s["min_ns"] <= s["p50_ns"] + 1000 and s["p50_ns"] <= s["p99_ns"] <= s["p999_ns"] <= max(s["max_ns"], s["p999_ns"])
    assert sum(b[1] for b in s["histogram_us"]) + s["histogram_overflows"] == s["samples"]
    assert "cyclictest" not in doc


def test_rtf_latency_text_and_quiet(build, rtfd):
    d = rtfd(FP_ALL)
    t = tool(build, "rtf-latency")
    r = subprocess.run([t, "--loops", "300", "--period", "1000", "-d", "5"], capture_output=True, text=True,
                       env=tool_env(d), timeout=30)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(l.startswith("RTS|rtf") for l in lines)
    assert all(l.startswith(("#", "RTD|", "RTS|")) for l in lines), r.stdout
    r = subprocess.run([t, "-q", "--loops", "100"], capture_output=True, text=True, env=tool_env(d), timeout=30)
    assert r.returncode == 0 and not any(l.startswith("RTD|") for l in r.stdout.splitlines())


def test_rtf_latency_plot(build, rtfd, tmp_path):
    """--plot runs plot-latency.py on the run's document (tools/common/plot.c):
    a PNG with matplotlib; without it the script's reason, the file that was
    not written and exit 1, the measurement still printed."""
    d = rtfd(FP_ALL)
    t = tool(build, "rtf-latency")
    python = os.environ.get("RTF_PYTHON") or "/usr/bin/python3"
    nompl = tmp_path / "python-without-matplotlib"       # -S: no site-packages, no matplotlib
    nompl.write_text(f"#!/bin/sh\nexec {python} -S \"$@\"\n")
    nompl.chmod(0o755)
    png = tmp_path / "latency.png"
    r = subprocess.run([t, "-q", "--loops", "50", "--plot", str(png)], capture_output=True, text=True,
                       env=dict(tool_env(d), RTF_PYTHON=str(nompl)), timeout=60)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "python3-matplotlib is not installed" in r.stderr and f"--plot: {png} not written" in r.stderr, r.stderr
    assert any(l.startswith("RTS|rtf") for l in r.stdout.splitlines()), r.stdout
    assert not png.exists()
    if subprocess.run([python, "-c", "import matplotlib"], capture_output=True, timeout=60).returncode != 0:
        pytest.skip(f"python3-matplotlib is not installed for {python}: only the failure was checked")
    r = subprocess.run([t, "-q", "--loops", "50", "--plot", str(png)], capture_output=True, text=True,
                       env=dict(tool_env(d), RTF_PYTHON=python), timeout=60)
    assert r.returncode == 0, r.stderr
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_rtf_latency_without_rtfd_fails_cleanly(build, tmp_path):
    r = subprocess.run([tool(build, "rtf-latency"), "-d", "1", "--json"], capture_output=True, text=True,
                       env=dict(os.environ, RTF_SOCKET=str(tmp_path / "none.sock")), timeout=30)
    assert r.returncode != 0
    assert "rtfd" in r.stderr
    assert json.loads(r.stdout)["return_code"] == r.returncode


def test_rtf_latency_compare_cyclictest(build, rtfd):
    need("cyclictest")
    d = rtfd(FP_ALL)
    doc = run_json([tool(build, "rtf-latency"), "--duration", "2", "--slice", "1", "--compare", "cyclictest",
                    "--json"], tool_env(d))
    check_schema(doc, dict(LATENCY, cyclictest=SIDE, ratio_avg=NUM, ratio_p99=(int, float, type(None)),
                           ratio_max=NUM))
    assert doc["rtf"]["samples"] > 0 and doc["cyclictest"]["samples"] > 0
    assert doc["ratio_avg"] > 0


def test_rtf_latency_compare_as_a_user_says_cyclictest_needs_root(build, rtfd, users):
    """Said before anything is measured, with the reason, and no file named
    that is gone by the time the user looks."""
    d = rtfd(FP_ALL)
    r = subprocess.run(users["carol"].setpriv() + ["env", f"RTF_SOCKET={d.socket}", tool(build, "rtf-latency"),
                                                   "--duration", "2", "--compare", "cyclictest"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "--compare cyclictest needs root" in r.stderr, r.stderr
    assert "its output is in" not in r.stderr and r.stdout == "", r.stdout + r.stderr
    assert "audit:" not in d.log(), "it asked rtfd for a reservation first"


@pytest.mark.parametrize("json_output", [False, True])
def test_rtf_latency_refused_reservation_prints_the_reason_and_no_summary(build, rtfd, users, tmp_path,
                                                                         json_output):
    """carol may ask for priorities up to 50 only: the default 90 is refused."""
    d = start_with_policy(rtfd, tmp_path, FP_ALL, "rtf-carol FP max_priority 50\n")
    r = subprocess.run(users["carol"].setpriv() + ["env", f"RTF_SOCKET={d.socket}", tool(build, "rtf-latency"),
                                                   "--duration", "1"] + (["--json"] if json_output else []),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "rtfd refused the reservation" in r.stderr and "max_priority 50" in r.stderr, r.stderr
    if json_output:
        doc = json.loads(r.stdout)
        assert doc["return_code"] == 1 and "max_priority 50" in doc["error"], doc
    else:
        assert "RTS|" not in r.stdout and "samples" not in r.stdout, r.stdout


def test_rtf_latency_says_when_the_priority_was_lowered(build, rtfd):
    d = rtfd("FP FP.so 1-89 all\n")
    doc = run_json([tool(build, "rtf-latency"), "--loops", "50", "--json"], tool_env(d))
    assert (doc["parameters"]["priority_requested"], doc["parameters"]["priority"]) == (90, 89)
    r = subprocess.run([tool(build, "rtf-latency"), "--loops", "50", "-q"], capture_output=True, text=True,
                       env=tool_env(d), timeout=30)
    assert r.returncode == 0, r.stderr
    assert "granted priority 89 where 90 was asked" in r.stderr, r.stderr


def _plot_module(name):
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "plot", name)
    spec = importlib.util.spec_from_file_location(name.replace("-", "_")[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_latency_plot_bins_are_log_spaced_and_leave_empty_stretches_empty():
    """Most samples below 10 us and one at 9.5 ms: three decades in ~60
    bins, every sample counted once, and nothing drawn between 10 us and
    9.5 ms (a line at count 1 across the gap looked like samples there)."""
    plot = _plot_module("plot-latency.py")
    edges, counts = plot.log_bins([[3, 10], [4, 100], [5, 50], [6, 7], [9500, 1]])
    assert len(counts) == len(edges) - 1 and 40 <= len(counts) <= 80, len(counts)
    assert all(b - a >= 1 for a, b in zip(edges, edges[1:]))
    assert sum(c for c in counts if c) == 168
    drawn = [(edges[i], c) for i, c in enumerate(counts) if c is not None]
    assert drawn == [(3, 10), (4, 100), (5, 50), (6, 7), (edges[len(counts) - 1], 1)], drawn
    assert edges[len(counts) - 1] <= 9500 < edges[-1]
    doc = {"tool": "rtf-latency", "parameters": {"period_us": 1000, "plugin": "FP", "priority": 90, "cpu": 1,
                                                 "load": None}}
    assert plot.title(doc).endswith("no --load") and "idle" not in plot.title(doc)
    doc["parameters"]["load"] = "cpu"
    assert plot.title(doc).endswith("--load cpu")


def test_bench_plot_ticks_at_the_measured_task_counts():
    plot = _plot_module("plot-bench.py")
    doc = {"rows": [{"tasks": t} for t in (0, 16, 64, 0, 16, 64, 256)]}
    assert plot.task_ticks(doc) == [0, 16, 64, 256]


def processes_in_group(pgid):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(pid))
    return found


def load_group(tool_pid):
    """The process group of the stress-ng the tool started (its child)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        comm = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        if comm.startswith("stress-ng") and int(fields[1]) == tool_pid:
            return int(fields[2])
    return None


@pytest.mark.parametrize("how", ["exit", "SIGTERM", "SIGKILL"])
def test_rtf_latency_load_leaves_no_stress_ng(build, rtfd, how):
    need("stress-ng")
    d = rtfd(FP_ALL)
    duration = "1" if how == "exit" else "30"
    p = subprocess.Popen([tool(build, "rtf-latency"), "-q", "--duration", duration, "--load=cpu"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tool_env(d))
    pgid = wait_for(lambda: load_group(p.pid) or p.poll() is not None, what="stress-ng started")
    assert pgid is not True, f"rtf-latency exited before starting stress-ng: {p.stderr.read()}"
    wait_for(lambda: len(processes_in_group(pgid)) > 1, what="stress-ng's workers")
    if how == "SIGTERM":
        time.sleep(1)
        p.send_signal(signal.SIGTERM)
    elif how == "SIGKILL":
        time.sleep(1)
        p.kill()
    p.wait(timeout=TIMEOUT + 5)
    if how == "exit":
        assert p.returncode == 0, p.stderr.read()
    wait_for(lambda: not processes_in_group(pgid), what=f"stress-ng (group {pgid}) gone after {how}")
    p.stderr.close()


def private_env():
    env = dict(os.environ)
    env.pop("RTF_SOCKET", None)
    return env


def test_rtf_bench_json(build):
    doc = run_json([tool(build, "rtf-bench"), "--plugins", "FP,EDF,RM", "--cores", "1", "--tasks", "0,16",
                    "--samples", "10", "--json"], private_env())
    check_schema(doc, dict(BENCH, series=[SERIES]))
    assert (doc["mode"], doc["socket"], doc["daemon"]) == ("private", None, None)
    keys = {(r["plugin"], r["cores"], r["tasks"]) for r in doc["rows"]}
    assert keys == {(p, 1, t) for p in ("FP", "EDF", "RM") for t in (0, 16)}
    assert all(s["complete"] and s["stopped"] is None for s in doc["series"])
    assert doc["uss_full_kib"] >= doc["uss_idle_kib"] > 0
    assert doc["uss_full_specs"] == 16          # the largest --tasks, not a fixed 4096
    for r in doc["rows"]:           # each point next to its own floor
        assert r["rtt_p50_ns"] > 0
        assert abs(r["create_ratio"] - r["create_p50_ns"] / r["rtt_p50_ns"]) < 0.002
        assert abs(r["change_ratio"] - r["change_p50_ns"] / r["rtt_p50_ns"]) < 0.002


def test_rtf_bench_constrained_deadlines(build):
    """--deadline-percent: every plugin admits constrained fillers and probes (FP/RR with a runtime)."""
    doc = run_json([tool(build, "rtf-bench"), "--plugins", "EDF,RM,FP,RR", "--cores", "1", "--tasks", "0,16",
                    "--samples", "5", "--deadline-percent", "80", "--json"], private_env())
    assert doc["parameters"]["deadline_percent"] == 80
    assert all(s["complete"] and s["stopped"] is None for s in doc["series"]), doc["series"]
    assert {(r["plugin"], r["tasks"]) for r in doc["rows"]} == {(p, t) for p in ("EDF", "RM", "FP", "RR")
                                                              for t in (0, 16)}


CONTENTION_LATENCY = {"p50_ns": int, "p99_ns": int, "max_ns": int, "errors": int}


def test_rtf_bench_contention(build):
    """--contention (issue 10, point 10): both modes measured, for two uids that have no account."""
    doc = run_json([tool(build, "rtf-bench"), "--contention=2", "--contention-specs=20", "--samples", "5",
                    "--contention-uids=64010,64011", "--json"], private_env())
    c = doc["contention"]
    assert (c["connections"], c["specs"], c["flooder_uid"], c["victim_uid"]) == (2, 20, 64010, 64011)
    assert doc["parameters"]["deadline_percent"] == 80 and doc["rows"] == []
    assert [m["mode"] for m in c["modes"]] == ["share_off", "share_default"]
    assert (c["modes"][0]["max_busy_permille_per_uid"], c["modes"][1]["max_busy_permille_per_uid"]) == (1000, None)
    for m in c["modes"]:
        assert m["measured"], m
        check_schema(m, {"idle": CONTENTION_LATENCY, "flood": CONTENTION_LATENCY, "flood_granted": int,
                         "flood_refused": int, "flood_duration_ns": int})
        for phase in ("idle", "flood"):
            assert m[phase]["errors"] == 0 and 0 < m[phase]["p50_ns"] <= m[phase]["p99_ns"] <= m[phase]["max_ns"]
        assert m["flood_granted"] > 0          # user A's specs were admitted and changed
        assert m["p50_ratio"] > 0 and m["p99_ratio"] > 0
    # Nothing of either uid is left running.
    r = subprocess.run(["pgrep", "-u", "64010,64011"], capture_output=True, text=True)
    assert r.stdout == "", r.stdout


def test_rtf_bench_csv(build):
    r = subprocess.run([tool(build, "rtf-bench"), "--plugins", "RR", "--cores", "1", "--tasks", "0",
                        "--samples", "5", "--csv"], capture_output=True, text=True, env=private_env(), timeout=60)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if not l.startswith("#")]
    assert lines[0].startswith("plugin,cores,tasks,")
    assert len(lines) == 2 and lines[1].startswith("RR,1,0,")


# ---- rtf-bench against the rtfd at RTF_SOCKET ---------------------------------------

def bench_external(build, d, *args, env=None, prefix=(), timeout=120):
    r = subprocess.run(list(prefix) + [tool(build, "rtf-bench"), *args], capture_output=True, text=True,
                       env=env or tool_env(d), timeout=timeout)
    assert r.returncode == 0, f"rtf-bench exited {r.returncode}:\n{r.stderr}"
    return r


def cpus_of(d):
    cpus = {}
    for c in d.cores():
        cpus.setdefault(c["plugin"], []).append(c["cpu"])
    return cpus


def assert_nothing_left(d):
    assert d.running(), "rtfd died under the bench"
    assert d.tasks() == [], "rtf-bench left specifications behind"
    assert all(c["tasks"] == 0 for c in d.cores())


def test_rtf_bench_external_json(build, rtfd):
    d = rtfd("FP FP.so 1-99 all max_tasks=4096\nEDF EDF.so 100-100 all\n")     # 4096 for the USS on 1 CPU
    cpus = cpus_of(d)
    doc = json.loads(bench_external(build, d, "--json", "--tasks", "16,0", "--samples", "20").stdout)
    check_schema(doc, BENCH_EXTERNAL)
    assert doc["return_code"] == 0
    assert (doc["mode"], doc["socket"]) == ("external", d.socket)
    assert doc["daemon"]["pid"] == doc["daemon"]["uss_pid"] == d.proc.pid
    assert doc["daemon"]["comm"] == "rtfd"
    assert {(i["plugin"], tuple(i["cpus"])) for i in doc["daemon"]["instances"]} == \
        {(p, tuple(c)) for p, c in cpus.items()}
    keys = {(r["plugin"], r["cores"], r["tasks"]) for r in doc["rows"]}
    assert keys == {(p, len(cpus[p]), t) for p in ("FP", "EDF") for t in (0, 16)}
    assert all(r["samples"] == 20 for r in doc["rows"])
    assert [(s["plugin"], s["complete"], s["stopped"]) for s in doc["series"]] == \
        [("FP", True, None), ("EDF", True, None)]
    assert doc["attach_plugin"] == "FP"
    assert doc["uss_full_kib"] >= doc["uss_idle_kib"] > 0
    assert doc["notes"] == []
    assert doc["parameters"]["rtfd"] is None
    assert_nothing_left(d)
    # The text output says which rtfd it measured, and only # lines and rows.
    out = bench_external(build, d, "--tasks", "0", "--samples", "5", "--plugins", "fp").stdout
    assert f"rtfd at {d.socket}, pid {d.proc.pid} (rtfd)" in out
    rows = [l for l in out.splitlines() if not l.startswith("#")]
    assert len(rows) == 1 and rows[0].split()[:3] == ["FP", str(len(cpus["FP"])), "0"], out
    assert_nothing_left(d)


def test_rtf_bench_external_limits_stop_a_series(build, rtfd):
    """FP holds 5 tasks (one core), the connection 24 specifications: each
    series ends where rtfd says no, with its reason, and the run goes on."""
    d = rtfd("FP FP.so 1-99 0 max_tasks=5\nEDF EDF.so 100-100 all\nset max_specs_per_client 24\n")
    r = bench_external(build, d, "--json", "--tasks", "0,4,16,64", "--samples", "10")
    doc = json.loads(r.stdout)
    check_schema(doc, dict(BENCH_EXTERNAL, uss_full_kib=type(None)))
    assert doc["return_code"] == 0
    keys = {(r["plugin"], r["tasks"]) for r in doc["rows"]}
    assert keys == {("FP", 0), ("FP", 4), ("EDF", 0), ("EDF", 4), ("EDF", 16)}
    fp, edf = doc["series"]
    check_schema(fp["stopped"], STOP)
    check_schema(edf["stopped"], STOP)
    assert (fp["plugin"], fp["complete"], fp["stopped"]["tasks"], fp["stopped"]["step"]) == ("FP", False, 5, "filling")
    assert fp["stopped"]["result"] == 1 and "5 tasks" in fp["stopped"]["reason"], fp
    assert (edf["plugin"], edf["stopped"]["tasks"], edf["stopped"]["step"]) == ("EDF", 24, "filling")
    assert edf["stopped"]["result"] == -errno.EUSERS and "max_specs_per_client" in edf["stopped"]["reason"], edf
    assert isinstance(doc["uss_idle_kib"], int)
    assert any(n.startswith("uss_full_kib: not measured") and "max_specs_per_client" in n for n in doc["notes"])
    assert isinstance(doc["attach_p50_ns"], int)
    assert_nothing_left(d)
    # The same in text and CSV: one # line per stopped series.
    out = bench_external(build, d, "--tasks", "0,16", "--samples", "5", "--plugins", "FP").stdout
    assert "# FP, 1 core: stopped with 5 tasks admitted (filling)" in out, out
    out = bench_external(build, d, "--tasks", "0,16", "--samples", "5", "--plugins", "FP", "--csv").stdout
    lines = out.splitlines()
    assert "# FP, 1 core: stopped with 5 tasks admitted (filling)" in out and "# mode=external" in lines[0], out
    assert [l for l in lines if not l.startswith("#")][1:] == [l for l in lines if l.startswith("FP,1,0,")]
    assert_nothing_left(d)


def test_rtf_bench_external_unprivileged(build, rtfd, tmp_path, users):
    """As a user: the per-uid limit ends the series, rtfd's rate limit is
    waited out, and what a user cannot measure (rtfd's USS, the direct
    SCHED_FIFO calls) is null with the reason."""
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, FP_ALL + "set max_specs_per_uid 20\n", "rtf-carol - max_priority 99\n")
    r = bench_external(build, d, "--json", "--tasks", "0,16,64", "--samples", "10", prefix=carol.setpriv())
    doc = json.loads(r.stdout)
    check_schema(doc, dict(BENCH_EXTERNAL, uss_idle_kib=type(None), uss_full_kib=type(None),
                           syscall_p50_ns=type(None)))
    assert doc["return_code"] == 0
    assert {r["tasks"] for r in doc["rows"]} == {0, 16}
    (fp,) = doc["series"]
    assert fp["stopped"]["tasks"] == 20 and "max_specs_per_uid" in fp["stopped"]["reason"], fp
    assert isinstance(doc["attach_p50_ns"], int)
    assert any("smaps_rollup" in n and "uss_idle_kib" in n for n in doc["notes"]), doc["notes"]
    assert any(n.startswith("syscall_p50_ns: not measured") for n in doc["notes"]), doc["notes"]
    assert_nothing_left(d)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_rtf_bench_external_signal_releases_everything(build, rtfd, sig):
    d = rtfd("FP FP.so 1-99 all max_tasks=10000\n")
    p = subprocess.Popen([tool(build, "rtf-bench"), "--json", "--tasks", "0,2000,8000", "--samples", "3000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=tool_env(d))
    try:
        wait_for(lambda: p.poll() is not None or sum(c["tasks"] for c in d.cores()) >= 1000,
                 timeout=60, what="rtf-bench to hold 1000 specifications")
        assert p.poll() is None, "rtf-bench ended before it was interrupted"
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 1, err
    doc = json.loads(out)
    assert doc["return_code"] == 1 and isinstance(doc["rows"], list)
    assert_nothing_left(d)


def test_rtf_bench_which_daemon(build, rtfd, tmp_path):
    d = rtfd(FP_ALL)
    t = tool(build, "rtf-bench")

    def run(*args, env=None):
        return subprocess.run([t, *args], capture_output=True, text=True, env=env or tool_env(d), timeout=60)

    # --private wins over RTF_SOCKET, and excludes --socket.
    r = run("--private", "--plugins", "RR", "--cores", "1", "--tasks", "0", "--samples", "5", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["mode"] == "private"
    r = run("--private", "--socket", d.socket)
    assert r.returncode != 0 and "exclude" in r.stderr
    # Options of private daemons with an external one name --private.
    for opt in (["--cores", "1"], ["--rtfd", build.rtfd], ["--plugindir", build.plugindir]):
        r = run(*opt, "--tasks", "0")
        assert r.returncode != 0 and "--private" in r.stderr, (opt, r.stderr)
    r = run("--daemon-pid", "1", "--tasks", "0", env=private_env())
    assert r.returncode != 0 and "--socket" in r.stderr
    # --socket selects the daemon without RTF_SOCKET; an instance it does not serve is named.
    r = run("--socket", d.socket, "--plugins", "EDF", "--tasks", "0", env=private_env())
    assert r.returncode != 0 and "no instance \"EDF\"" in r.stderr and "FP" in r.stderr, r.stderr
    doc = json.loads(run("--socket", d.socket, "--tasks", "0", "--samples", "5", "--json",
                         env=private_env()).stdout)
    assert (doc["mode"], doc["socket"]) == ("external", d.socket)
    # No rtfd at the socket: a clear failure, no JSON pretending otherwise.
    r = run("--socket", str(tmp_path / "none.sock"), "--json")
    assert r.returncode != 0 and "cannot ask rtfd" in r.stderr and r.stdout == ""
    assert_nothing_left(d)
