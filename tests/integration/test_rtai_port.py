# SPDX-License-Identifier: LGPL-2.1-or-later
"""Porting RTAI code (issue 12): an LXRT program whose include line alone was
changed (tests/integration/lxrt-port.c) links, runs as an unprivileged user
under a typical policy, gets the priority and declared runtime the policy
can grant, and a refusal says why and what to change."""
import os
import subprocess

import pytest

import kernel
from rtfit import TIMEOUT, start_with_policy, wait_for
from users import users  # noqa: F401 - a fixture

CONFIG = "FP FP.so 1-99 all\n"
# What an administrator grants ordinary users: priorities below the kernel's
# interrupt threads, half a CPU.
POLICY = "rtf-alice FP max_priority 49\nrtf-alice FP max_utilization 0.5\n"


def exe(build, *parts):
    path = os.path.join(build.path, *parts)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not built")
    return path


def run_as(d, account, argv, env=None, **kw):
    return subprocess.Popen(account.setpriv() + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, RTF_SOCKET=d.socket, **(env or {})), **kw)


def test_an_lxrt_program_runs_under_the_policy(rtfd, tmp_path, users):
    d = start_with_policy(rtfd, tmp_path, CONFIG, POLICY)
    p = run_as(d, users["alice"], [exe(d.build, "tests", "integration", "lxrt-port"), "1000"])
    d.children.append(p)
    line = p.stdout.readline()
    assert line.strip() == "hard 1", line + p.stderr.read() + d.log()

    # RTAI priority 0 asked for rtf priority 49, a 1 ms period with 10% declared.
    [task] = d.tasks()
    assert (task["requested_priority"], task["period_us"], task["runtime_us"]) == (49, 1000, 100), task
    a = kernel.sched_getattr(p.pid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, task["priority"])

    out, err = p.communicate(timeout=TIMEOUT)
    assert p.returncode == 0 and out.startswith("done 1000 periods"), out + err
    assert d.tasks() == []


def test_priority_and_runtime_come_from_the_environment(rtfd, tmp_path, users):
    d = start_with_policy(rtfd, tmp_path, CONFIG, POLICY)
    port = exe(d.build, "tests", "integration", "lxrt-port")

    p = run_as(d, users["alice"], [port, "300"], env={"RTF_RTAI_PRIORITY_MAX": "20",
                                                      "RTF_RTAI_RUNTIME_PERCENT": "30"})
    d.children.append(p)
    assert p.stdout.readline().strip() == "hard 1", p.stderr.read()
    [task] = d.tasks()
    assert (task["requested_priority"], task["runtime_us"]) == (20, 300), task
    assert p.wait(timeout=TIMEOUT) == 0

    # No runtime declared: a max_utilization rule cannot judge it and refuses.
    p = run_as(d, users["alice"], [port, "10"], env={"RTF_RTAI_RUNTIME_PERCENT": "0"})
    out, _ = p.communicate(timeout=TIMEOUT)
    assert p.returncode == 1 and "MAKE PERIODIC FAILED -13" in out, out
    wait_for(lambda: d.tasks() == [], what="nothing held")


def test_the_rtai_example_says_why_it_was_refused(rtfd, tmp_path, users):
    d = start_with_policy(rtfd, tmp_path, CONFIG, "rtf-alice FP max_utilization 0.1\n")
    p = run_as(d, users["alice"], [exe(d.build, "examples", "rtai", "rtai-budget"), "5"])
    out, err = p.communicate(timeout=TIMEOUT)
    assert p.returncode == 1, out + err
    assert "-13" not in err
    assert "max_utilization" in err and "rt_task_set_rtf_runtime" in err and "RTF_RTAI_PRIORITY_MAX" in err, err
    assert err.rstrip().endswith("RTF_RTAI_RUNTIME_PERCENT change it)]"), "the reason was cut: " + err
    assert d.tasks() == []
