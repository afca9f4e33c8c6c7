# SPDX-License-Identifier: LGPL-2.1-or-later
"""What people expect of rtfctl (issue 12): user and command names, a
status that does not put a global task on one CPU, a live view, reload,
and a hint when rtfd cannot be reached."""
import json
import os
import signal
import subprocess

import pytest

from rtfit import GLOBAL, TIMEOUT, start_with_policy, wait_for
from test_rtfctl import text_rows, text_tables
from users import users  # noqa: F401 - a fixture


def ctl(d, *args, account=None):
    cmd = (account.setpriv() if account else []) + [d.build.rtfctl, "--socket", d.socket] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)


@pytest.mark.deadline
def test_status_shows_a_global_plugin_as_one_row(rtfd):
    """Global EDF: the pool's task and utilisation on one row of all its CPUs,
    not a task on CPU 0 with its utilisation spread over both."""
    d = rtfd(GLOBAL)
    c = d.client()
    c.thread("t")
    e = c.create("e", period=100000, runtime=10000, plugin="EDF")
    assert e["result"] == 0, e
    assert c.attach("e", "thread:t")["result"] == 0
    assert d.task(e["id"])["cpu"] == -1

    text = d.ctl("status", json_output=False)
    assert "# part " in text and "in-use" in text       # the columns are explained
    rows = [r for r in text_rows(text) if r[0] == "EDF"]
    cpus = ",".join(str(x["cpu"]) for x in d.cores() if x["plugin"] == "EDF")
    assert len(rows) == 1, text
    # plugin type cpu part tasks range in-use utilisation
    assert rows[0][2:5] == [cpus, "global", "1"], rows
    assert float(rows[0][7]) == pytest.approx(e["accepted_runtime_us"] / 100000, abs=0.002)
    # FP has no task: its rows stay per CPU.
    assert len([r for r in text_rows(text) if r[0] == "FP"]) == len(cpus.split(","))
    # JSON keeps a row per CPU, marked.
    assert {(x["plugin"], x["global"]) for x in d.cores()} == {("EDF", True), ("FP", False)}


def test_tasks_and_top_name_the_user_and_the_command(rtfd, tmp_path, users):
    alice = users["alice"]
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 all\n", "rtf-alice FP max_priority 20\n")
    env = dict(os.environ, RTF_SOCKET=d.socket)
    p = d.spawn(alice.setpriv() + [d.build.rtfctl, "run", "-p", "10", "--", "sleep", "60"], env=env)
    wait_for(lambda: len(d.tasks()) == 1, what="sleep attached")
    [task] = d.tasks()
    assert (task["user"], task["command"]) == ("rtf-alice", "sleep"), task
    [row] = text_rows(d.ctl("tasks", json_output=False))
    assert (row[1], row[12]) == ("rtf-alice", "sleep"), row

    # top in a pipe: plain blocks, one per refresh, each with its '#' header.
    r = ctl(d, "top", "--interval", "100", "--count", "2", account=alice)
    assert r.returncode == 0, r.stderr
    assert "\033[" not in r.stdout
    frames = text_tables(r.stdout)
    assert len(frames) == 2, r.stdout
    for rows in frames:
        [row] = rows
        # id user pid thread command plugin prio period runtime cpu% periods overruns
        assert row[1:5] == ["rtf-alice", str(p.pid), str(task["tid"]), "sleep"], row
    assert frames[0][0][9] == "-"              # no interval yet
    assert float(frames[1][0][9]) >= 0         # the kernel's count over the interval

    r = ctl(d, "--json", "top", "-n", "1")
    assert r.returncode == 0, r.stderr
    frame = json.loads(r.stdout)
    assert [(t["user"], t["command"], t["tid"]) for t in frame["tasks"]] == [("rtf-alice", "sleep", task["tid"])]

    p.send_signal(signal.SIGTERM)
    p.wait(timeout=TIMEOUT)
    assert d.tasks() == []


def test_reload_is_for_root_and_reaches_rtfd(rtfd, users):
    d = rtfd(GLOBAL)
    mark = len(d.log())
    r = ctl(d, "reload", account=users["bob"])
    assert r.returncode == 1 and "only root" in r.stderr, r
    assert "Reloading" not in d.log()[mark:]

    r = ctl(d, "reload")
    assert r.returncode == 0, r.stderr
    d.wait_log("Configuration reloaded", mark)


def test_cannot_connect_says_what_to_do(rtfd, tmp_path):
    d = rtfd(GLOBAL)
    missing = str(tmp_path / "no.sock")
    for args in (["--socket", missing, "status"], ["--socket", missing, "run", "-p", "10", "--", "true"]):
        r = subprocess.run([d.build.rtfctl] + args, capture_output=True, text=True, timeout=TIMEOUT)
        assert r.returncode != 0, r
        assert "rtfd is not running" in r.stderr and missing in r.stderr, r.stderr


def test_a_command_name_cannot_drive_the_readers_terminal(rtfd, tmp_path, users):
    """A thread names itself (prctl PR_SET_NAME) with an escape sequence and a
    C1 control (U+009B, CSI to terminals that take 8-bit controls): the
    administrator's `rtfctl tasks` and `top` show it escaped, like rtfd's
    logs.  On 1dd5cb1 only bytes up to 0x20 and 0x7f were replaced: the
    C1 control reached the terminal as it was."""
    alice = users["alice"]
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 all\n", "rtf-alice FP max_priority 20\n")
    env = dict(os.environ, RTF_SOCKET=d.socket)
    name = b"\xc2\x9b2J\x1b]0;x\x07"
    code = ("import ctypes, time; ctypes.CDLL(None).prctl(15, ctypes.c_char_p(%r), 0, 0, 0); time.sleep(60)"
            % name)
    p = d.spawn(alice.setpriv() + [d.build.rtfctl, "run", "-p", "10", "--", "python3", "-c", code], env=env)
    wait_for(lambda: len(d.tasks()) == 1, what="the program attached")
    comm = f"/proc/{d.tasks()[0]['tid']}/comm"          # the program, rtfctl's child
    wait_for(lambda: open(comm, "rb").read().startswith(b"\xc2\x9b"), what="the program renamed")
    tasks = subprocess.run([d.build.rtfctl, "--socket", d.socket, "tasks"], capture_output=True, timeout=TIMEOUT)
    top = subprocess.run([d.build.rtfctl, "--socket", d.socket, "top", "-n", "1"], capture_output=True,
                         timeout=TIMEOUT)
    for r in (tasks, top):
        assert r.returncode == 0, r.stderr
        assert all(b == 0x0a or 0x20 <= b < 0x7f for b in r.stdout), r.stdout
        assert b"\\xc2\\x9b2J\\x1b]0;x\\x07" in r.stdout, r.stdout
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=TIMEOUT)
