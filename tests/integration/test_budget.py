# SPDX-License-Identifier: LGPL-2.1-or-later
"""Periodic tasks with budgets (issue 4): the semantics of section 3.2 of the
RTAI budget paper and both overrun policies, with controlled workloads
(tests/integration/budgetclient.c) admitted through a real rtfd; hard
budgets (EDF, the kernel's CBS) and their overrun counting; the RTAI API and
its example; rtf-budget --json and --plot.  Behaviour only, never durations:
the per-period precision is a benchmark (docs/BUDGETS.md), not a test."""
import json
import os
import signal
import struct
import subprocess

import pytest

from rtfit import GLOBAL, start_with_policy
from users import users  # noqa: F401 - a fixture

RTE_TMROVRN = 0xFFFC
RTE_OBJINV = 0xFFFF
SOFT, HARD, NONE = 1, 2, 0
MS = 1_000_000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _exe(build, *parts):
    path = os.path.join(build.path, *parts)
    if not os.access(path, os.X_OK):
        pytest.skip(f"{path} is not built")
    return path


def run_client(build, d, scenario, env=None):
    exe = _exe(build, "tests", "integration", "budgetclient")
    r = subprocess.run([exe, scenario], env=dict(os.environ, RTF_SOCKET=d.socket, **(env or {})),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, _exit_text(r.returncode) + r.stdout + r.stderr + d.log()
    out = json.loads(r.stdout)
    assert "error" not in out, out
    return out


def _exit_text(returncode):
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}\n"
    return f"exit status {returncode}\n"


@pytest.fixture
def daemon(rtfd):
    return rtfd(None, args=("--default-config",))


def test_job_of_one_and_a_half_budgets_is_suspended_and_finishes_next_period(build, daemon):
    out = run_client(build, daemon, "exhaust")
    st = out["stats"]
    assert st["budget_mode"] == SOFT
    # Suspended once, at W; the job ended only after its period was over.
    assert st["budget_exhaustions"] == 1
    assert out["job_ended_after_its_period"] is True
    assert st["max_job_cpu_ns"] >= 6_000_000
    # The wait_period of the exhausted period was ignored, not reported as a miss.
    assert st["ignored_waits"] == 1
    assert out["returns"][0] == 0
    assert st["missed_releases"] == 0 and st["delayed_pending"] == 0
    assert st["periods"] == 4
    assert out["task_freed"] is True
    assert daemon.tasks() == []


def test_task_within_budget_is_unaffected(build, daemon):
    out = run_client(build, daemon, "within")
    st = out["stats"]
    assert st["budget_mode"] == SOFT
    assert st["budget_exhaustions"] == 0
    assert st["ignored_waits"] == 0
    assert st["periods"] == 5
    assert all(r >= 0 for r in out["returns"])


def test_soft_budget_opt_out(build, daemon):
    out = run_client(build, daemon, "opt-out")
    st = out["stats"]
    # Jobs of 1.5 W run to the end: nothing is enforced.
    assert st["budget_mode"] == NONE
    assert st["budget_exhaustions"] == 0 and st["ignored_waits"] == 0
    assert st["max_job_cpu_ns"] >= 6_000_000


def test_skip_policy_drops_missed_releases(build, daemon):
    out = run_client(build, daemon, "skip")
    st = out["stats"]
    assert out["returns"][0] >= 2            # a job 2.5 periods long
    assert st["missed_releases"] >= 2
    # Every release is either run or dropped: the grid moved by both.
    assert out["on_grid"]
    assert out["grid_offset_periods"] == st["periods"] + st["missed_releases"]


def test_catch_up_policy_runs_missed_releases(build, daemon):
    out = run_client(build, daemon, "catch-up")
    st = out["stats"]
    rets = out["returns"]
    assert rets[0] >= 2
    # The missed jobs run back to back, each reporting fewer releases behind.
    assert rets[1] == rets[0] - 1 or rets[1] == 0
    assert 0 in rets
    # No release is dropped: one job per release.
    assert out["on_grid"]
    assert out["grid_offset_periods"] == st["periods"]
    assert st["missed_releases"] >= 1


def test_rtai_api_return_codes_and_budget(build, daemon):
    out = run_client(build, daemon, "rtai")
    assert out["wait_before_init"] == RTE_OBJINV
    assert out["second_init_refused"] is True
    assert out["wait_before_periodic"] == RTE_OBJINV
    assert out["bad_period"] < 0
    assert out["make_periodic_budget"] == 0
    assert out["wait_other_thread"] == RTE_OBJINV
    rets = out["returns"]
    # Waits for the start, then on time; a job 2.5 periods long is caught up
    # with RTE_TMROVRN; a job of 1.5 W is suspended, its wait is ignored (0).
    assert rets[0] == 0
    assert rets[2] == RTE_TMROVRN
    assert RTE_TMROVRN not in rets[5:]
    assert rets[6] == 0
    assert all(r in (0, RTE_TMROVRN) for r in rets)
    assert out["budget_mode"] == SOFT
    assert out["budget_exhaustions"] == 1
    assert out["ignored_waits"] == 1
    assert out["delete"] == 0
    assert out["wait_after_delete"] == RTE_OBJINV
    assert daemon.tasks() == []


def test_rtai_example_runs(build, daemon):
    exe = _exe(build, "examples", "rtai", "rtai-budget")
    r = subprocess.run([exe], env=dict(os.environ, RTF_SOCKET=daemon.socket),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr + daemon.log()
    assert "suspended" in r.stdout and "done" in r.stdout, r.stdout
    assert daemon.tasks() == []


TRACEFS = "/sys/kernel/tracing"


def _kernel_has_tracefs():
    with open("/proc/filesystems") as f:
        return any(line.split()[-1] == "tracefs" for line in f if line.strip())


def in_tracefs_state(mounted, command):
    """`command` in a private mount namespace where tracefs is (or is not)
    mounted at /sys/kernel/tracing, whatever the machine has: a fresh boot
    has it unmounted, a developer's machine often mounted.  The machine's
    own mounts are left alone.  After the command, the shell reports a
    tracefs mount left behind."""
    if mounted:
        setup = f"mountpoint -q {TRACEFS} || mount -t tracefs tracefs {TRACEFS} || exit 90"
    else:
        setup = f"while mountpoint -q {TRACEFS}; do umount -l {TRACEFS} || exit 90; done"
    script = (f'{setup}\n"$@"\nrc=$?\n'
              f'if [ "$rc" = 0 ] && mountpoint -q {TRACEFS}; then echo "tracefs is mounted after the run" >&2; fi\n'
              'exit $rc\n')
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"] + command


@pytest.mark.deadline
def test_rtf_budget_json_short_run(build, rtfd):
    exe = _exe(build, "tools", "rtf-budget", "rtf-budget")
    d = rtfd(GLOBAL)
    # As root, rtf-budget mounts tracefs itself where it is not mounted (a fresh
    # machine), and unmounts it at the end.
    mounted_before = os.path.ismount(TRACEFS)
    r = subprocess.run(in_tracefs_state(False, [exe, "--json", "--periods", "20", "--duration-ms", "50"]),
                       env=dict(os.environ, RTF_SOCKET=d.socket), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr + d.log()
    assert "tracefs is mounted after the run" not in r.stderr
    assert os.path.ismount(TRACEFS) == mounted_before, "the machine's tracefs mount changed"
    doc = json.loads(r.stdout)
    # the envelope every tool writes (tools/common/envelope.c)
    assert (doc["tool"], doc["file_version"]) == ("rtf-budget", 1) and doc["tool_version"]
    assert doc["cmdline"].startswith(exe + " --json") and doc["kernel"]["release"] == os.uname().release
    assert doc["start_time"] <= doc["end_time"] and doc["start_time"].endswith("Z") and doc["return_code"] == 0
    assert doc["overhead"]["expirations"] > 0
    assert doc["overhead"]["average_ns"] <= doc["overhead"]["max_ns"]
    traced = _kernel_has_tracefs()
    for mode in ("hard", "soft"):
        # as root with tracefs, boundaries are split by the kernel's sched_switch record
        assert doc["precision"][mode]["measurement"] == ("sched_switch" if traced else "self")
        assert (doc["precision"][mode]["trace_events"] > 0) == traced
        tasks = doc["precision"][mode]["tasks"]
        assert [t["name"] for t in tasks] == ["tau1", "tau2", "tau3", "tau4"]
        for t in tasks:
            assert t["period_us"] > 0 and 0 < t["budget_us"] < t["period_us"]
            assert t["periods"] == 20
            assert 0 <= t["violations"] <= t["periods"]
            # the diagnostic, recomputed from the rates the tool printed (4 decimals)
            rates = t["rates"]
            bad = [k for k, x in enumerate(rates) if abs(x - 1) > 0.05]
            paired = [k for k in bad
                      if any(0 <= j < len(rates) and abs(rates[k] + rates[j] - 2) <= 0.1 + 2e-4
                             for j in (k - 1, k + 1))]
            assert len(bad) - 1 <= t["violations"] <= len(bad) + 1
            assert abs(t["violations_compensated"] - len(paired)) <= 1
            assert 0 <= t["violations_compensated"] <= t["violations"]
            dist = t["budget_rate"]
            assert dist["min"] <= dist["p50"] <= dist["max"]
            assert len(t["rates"]) == t["periods"]
            assert sum(b["count"] for b in dist["histogram"]) == t["periods"]
    assert d.tasks() == []
    if traced:
        r = subprocess.run(in_tracefs_state(True, ["ls", f"{TRACEFS}/instances"]), capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert not [i for i in r.stdout.split() if i.startswith("rtf-budget-")], "tracefs instance left behind"


def test_rtf_budget_no_trace_splits_by_the_tasks_own_clocks(build, rtfd):
    exe = _exe(build, "tools", "rtf-budget", "rtf-budget")
    d = rtfd(GLOBAL)
    r = subprocess.run([exe, "--json", "--mode", "soft", "--no-trace", "--periods", "20", "--duration-ms", "50"],
                       env=dict(os.environ, RTF_SOCKET=d.socket), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr + d.log()
    soft = json.loads(r.stdout)["precision"]["soft"]
    assert (soft["measurement"], soft["trace_events"]) == ("self", 0)
    assert [t["periods"] for t in soft["tasks"]] == [20] * 4


@pytest.mark.deadline
def test_hard_budget_overruns_are_counted_for_the_task_that_overran(build, rtfd):
    """EDF task with rtf_params_count_overruns(): the kernel's CBS throttles it
    and SCHED_FLAG_DL_OVERRUN sends SIGXCPU, which librtf counts as budget
    exhaustions of the thread that overran, not of the task next to it in the
    same process that stays within its budget."""
    d = rtfd(GLOBAL)
    out = run_client(build, d, "hard")
    over, within = out["tasks"]
    for t in (over, within):
        assert "error" not in t, t
        assert t["sched_deadline"] is True and t["dl_overrun_flag"] is True, t
        assert t["stats"]["budget_mode"] == HARD, t
    assert out["sigxcpu_handled_by_librtf"] is True
    # Its jobs used 8 times the runtime: the kernel saw it overrun and librtf counted it.
    assert over["stats"]["max_job_cpu_ns"] >= 8 * over["stats"]["budget_ns"]
    assert over["stats"]["budget_exhaustions"] > 0, over
    assert over["stats"]["periods"] == 3
    # A 0.5 ms job in a 20 ms budget: nothing counted, nothing ignored.
    assert within["stats"]["budget_exhaustions"] == 0, within
    assert within["stats"]["ignored_waits"] == 0 and within["stats"]["delayed_pending"] == 0, within
    assert within["stats"]["periods"] == 5
    assert d.tasks() == []


@pytest.mark.deadline
def test_hard_budget_overrun_without_opt_in_is_not_signalled(build, rtfd):
    """Without rtf_params_count_overruns() SIGXCPU keeps its default action,
    ending the process: rtfd must not ask the kernel for it, and an EDF task
    that overruns its runtime by far lives on, with nothing counted."""
    d = rtfd(GLOBAL)
    out = run_client(build, d, "hard-unsignalled")        # asserts exit status 0, not SIGXCPU
    (over,) = out["tasks"]
    assert "error" not in over, over
    assert out["sigxcpu_default_before"] is True and out["sigxcpu_default_after"] is True
    assert over["sched_deadline"] is True and over["dl_overrun_flag"] is False, over
    st = over["stats"]
    assert st["budget_mode"] == HARD
    assert st["max_job_cpu_ns"] >= 8 * st["budget_ns"]
    assert st["budget_exhaustions"] == 0 and st["ignored_waits"] == 0, st
    assert st["periods"] == 3
    assert d.tasks() == []


def _plot_python():
    """The interpreter rtf-budget runs plot-budget.py with."""
    p = os.environ.get("RTF_PYTHON")
    if p:
        return p
    return "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else "python3"


def _has_matplotlib(python):
    try:
        return subprocess.run([python, "-c", "import matplotlib"], capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


def _png_size(path):
    """(width, height) from a PNG's IHDR chunk; fails unless the file is a PNG."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_SIGNATURE, f"{path} is not a PNG: {head[:8]!r}"
    assert head[12:16] == b"IHDR", f"{path}: no IHDR chunk first"
    return struct.unpack(">II", head[16:24])


@pytest.mark.deadline
def test_rtf_budget_plot_short_run(build, rtfd, tmp_path):
    exe = _exe(build, "tools", "rtf-budget", "rtf-budget")
    if not _has_matplotlib(_plot_python()):
        pytest.skip(f"python3-matplotlib is not installed for {_plot_python()}")
    d = rtfd(GLOBAL)
    png = tmp_path / "budget.png"
    r = subprocess.run([exe, "--json", "--periods", "20", "--duration-ms", "50", "--plot", str(png)],
                       env=dict(os.environ, RTF_SOCKET=d.socket), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr + d.log()
    # The plot leaves the measurement's output alone.
    doc = json.loads(r.stdout)
    assert set(doc["precision"]) == {"hard", "soft"}
    width, height = _png_size(png)
    # Eight panels (four tasks, two modes): not a blank stamp.
    assert width >= 800 and height >= 600, (width, height)
    assert png.stat().st_size > 20_000, png.stat().st_size
    assert d.tasks() == []


@pytest.mark.parametrize("where", ["missing-directory", "a-directory"])
def test_rtf_budget_plot_bad_path_fails_before_measuring(build, tmp_path, where):
    exe = _exe(build, "tools", "rtf-budget", "rtf-budget")
    target = tmp_path / "no-such-dir" / "budget.png" if where == "missing-directory" else tmp_path
    # No rtfd: the path is refused before rtf-budget even connects.
    r = subprocess.run([exe, "--periods", "20", "--plot", str(target)],
                       env=dict(os.environ, RTF_SOCKET=str(tmp_path / "no-rtfd.sock")),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    reason = "No such file or directory" if where == "missing-directory" else "Is a directory"
    assert f"--plot: cannot write '{target}': {reason}" in r.stderr, r.stderr
    assert "cannot reach rtfd" not in r.stderr and r.stdout == "", r.stdout + r.stderr
    assert list(tmp_path.iterdir()) == [], "the check left something behind"


@pytest.mark.deadline
def test_rtf_budget_plot_without_matplotlib(build, rtfd, tmp_path):
    """Without matplotlib --plot says what is missing and fails; the
    measurement itself is still printed in full."""
    exe = _exe(build, "tools", "rtf-budget", "rtf-budget")
    # python3 -S does not load site-packages (Debian's dist-packages): no matplotlib.
    nompl = tmp_path / "python-without-matplotlib"
    nompl.write_text(f"#!/bin/sh\nexec {_plot_python()} -S \"$@\"\n")
    nompl.chmod(0o755)
    if _has_matplotlib(str(nompl)):
        pytest.skip(f"matplotlib is importable by {_plot_python()} even without site-packages")
    d = rtfd(GLOBAL)
    png = tmp_path / "budget.png"
    r = subprocess.run([exe, "--csv", "--periods", "20", "--duration-ms", "50", "--plot", str(png)],
                       env=dict(os.environ, RTF_SOCKET=d.socket, RTF_PYTHON=str(nompl)),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr + d.log()
    assert "python3-matplotlib is not installed" in r.stderr, r.stderr
    assert f"--plot: {png} not written" in r.stderr, r.stderr
    assert not png.exists()
    lines = r.stdout.splitlines()
    assert lines[0] == "mode,task,period_us,budget_us,period,budget_rate"
    assert len(lines) == 1 + 2 * 4 * 20, r.stdout
    assert d.tasks() == []


@pytest.mark.parametrize("tracefs", ["unmounted", "mounted"])
def test_rtf_budget_as_an_unprivileged_user(build, rtfd, users, tmp_path, tracefs):
    """Without root: the tasks still start (their stacks fit RLIMIT_MEMLOCK under
    mlockall), the policy admits them, and boundaries are split by the tasks'
    own clocks since tracefs is root's; rtf-budget says so whether tracefs is
    mounted (a developer's machine) or not (a fresh boot)."""
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, GLOBAL, "rtf-carol - max_priority 99\n")
    command = carol.setpriv() + ["env", f"RTF_SOCKET={d.socket}", _exe(build, "tools", "rtf-budget", "rtf-budget"),
                                 "--json", "--mode", "soft", "--periods", "10", "--duration-ms", "20"]
    if tracefs == "mounted" and not _kernel_has_tracefs():
        pytest.skip("this kernel has no tracefs")
    r = subprocess.run(in_tracefs_state(tracefs == "mounted", command), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr + d.log()
    soft = json.loads(r.stdout)["precision"]["soft"]
    assert soft["measurement"] == "self"
    why = {"unmounted": "tracefs needs root (it is not mounted at /sys/kernel/tracing; "
                        "rtf-budget run as root mounts it for the run)",
           "mounted": "tracefs needs root (it is mounted at /sys/kernel/tracing, writable by root only)"}[tracefs]
    assert r.stderr.count("no sched_switch record") == 1 and why in r.stderr, r.stderr
    assert [t["periods"] for t in soft["tasks"]] == [10] * 4
    assert f"audit: uid {carol.uid}" in d.log()
    assert d.tasks() == []
