# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtf-latency, rtf-bench and rtfd's latency hint.

Short runs of both tools must produce complete, well-formed JSON (checked
against the schema below, never against a timing figure); --load must leave
no stress-ng behind, however the tool ends; rtfd holds /dev/cpu_dma_latency
exactly while a real-time thread is attached."""
import json
import os
import signal
import subprocess
import time

import pytest

from rtfit import TIMEOUT, wait_for

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
BENCH = dict(ENVELOPE, rtt_p50_ns=int, attach_p50_ns=int, syscall_p50_ns=int, uss_idle_kib=int, uss_4096_kib=int,
             rows=[{"plugin": str, "cores": int, "tasks": int, "create_p50_ns": int, "change_p50_ns": int}])


def run_json(argv, env=None, timeout=60):
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    assert r.returncode == 0, f"{argv} exited {r.returncode}:\n{r.stderr}"
    doc = json.loads(r.stdout)
    assert doc["return_code"] == 0
    return doc


def tool_env(d):
    return dict(os.environ, RTF_SOCKET=d.socket)


@pytest.mark.parametrize("name", ["rtf-latency", "rtf-bench"])
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


def test_rtf_bench_json(build):
    env = dict(os.environ)
    env.pop("RTF_SOCKET", None)
    doc = run_json([tool(build, "rtf-bench"), "--plugins", "FP,EDF,RM", "--cores", "1", "--tasks", "0,16",
                    "--samples", "10", "--json"], env)
    check_schema(doc, BENCH)
    keys = {(r["plugin"], r["cores"], r["tasks"]) for r in doc["rows"]}
    assert keys == {(p, 1, t) for p in ("FP", "EDF", "RM") for t in (0, 16)}
    assert doc["uss_4096_kib"] >= doc["uss_idle_kib"] > 0


def test_rtf_bench_csv(build):
    r = subprocess.run([tool(build, "rtf-bench"), "--plugins", "RR", "--cores", "1", "--tasks", "0",
                        "--samples", "5", "--csv"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if not l.startswith("#")]
    assert lines[0].startswith("plugin,cores,tasks,")
    assert len(lines) == 2 and lines[1].startswith("RR,1,0,")
