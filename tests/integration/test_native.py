# SPDX-License-Identifier: LGPL-2.1-or-later
"""<rtf/native.h> (issue 13): Xenomai native-skin tasks are reservations that
rtfd admits under the caller's policy, run as a real unprivileged user; a
refusal is a Xenomai error code with rtfd's reason; the Xenomai 2 example
runs unchanged.  Pure parts and pipes/alarms are tests/unit/test-native.c."""
import errno
import json
import os
import shutil
import subprocess
import tempfile

import pytest

import kernel
from rtfit import GLOBAL, TIMEOUT, start_with_policy
from users import users  # noqa: F401 - a fixture


def _exe(build, *parts):
    path = os.path.join(build.path, *parts)
    if not os.access(path, os.X_OK):
        pytest.skip(f"{path} is not built")
    return path


def _user_dir(account):
    d = tempfile.mkdtemp(prefix="rtf-native-")
    os.chmod(d, 0o700)
    os.chown(d, account.uid, account.gid)
    return d


def test_native_task_is_an_admitted_fifo_reservation_with_its_period(build, rtfd, users, tmp_path):
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, GLOBAL, "rtf-carol FP max_priority 90\n")
    p = subprocess.Popen(carol.setpriv() + [_exe(build, "tests", "integration", "nativeclient"), "hold", "80", "2000"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, RTF_SOCKET=d.socket))
    d.children.append(p)
    first = json.loads(p.stdout.readline())
    assert first["create"] == 0 and first["set_periodic"] == 0, first
    a = kernel.sched_getattr(first["tid"])
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 80)
    [t] = d.tasks()
    assert (t["uid"], t["plugin"], t["period_us"]) == (carol.uid, "FP", 2000), t
    out, _ = p.communicate("stop\n", timeout=TIMEOUT)
    last = json.loads(out)
    assert last["periods"] > 0, last
    assert d.tasks() == []


@pytest.mark.parametrize("who,prio,reason", [("carol", 80, "max_priority"), ("bob", 10, "")])
def test_refused_task_fails_with_a_xenomai_code_and_says_why(build, rtfd, users, tmp_path, who, prio, reason):
    d = start_with_policy(rtfd, tmp_path, GLOBAL, "rtf-carol FP max_priority 70\n")
    r = subprocess.run(users[who].setpriv() + [_exe(build, "tests", "integration", "nativeclient"), "create", str(prio)],
                       capture_output=True, text=True, timeout=TIMEOUT, env=dict(os.environ, RTF_SOCKET=d.socket))
    out = json.loads(r.stdout)
    assert out["create"] == -errno.EPERM, out
    assert out["reason"] and reason in out["reason"], out
    assert d.tasks() == []


def test_xenomai2_example_runs_as_a_user_and_reports_on_its_pipe(build, rtfd, users, tmp_path):
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, GLOBAL, "rtf-carol FP max_priority 90\n")
    pipes = _user_dir(carol)
    try:
        r = subprocess.run(carol.setpriv() + [_exe(build, "examples", "native", "xenomai2-pipe")],
                           capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, RTF_SOCKET=d.socket, RTF_PIPE_DIR=pipes))
        assert r.returncode == 0, r.stdout + r.stderr + d.log()
        fields = r.stdout.split()
        assert fields[:2] == ["periods", "200"], r.stdout
        assert int(fields[7]) >= 1, r.stdout            # alarm shots
        assert os.listdir(pipes) == []                  # rt_pipe_delete removed its FIFO
        assert f"audit: uid {carol.uid}" in d.log()
    finally:
        shutil.rmtree(pipes, ignore_errors=True)
