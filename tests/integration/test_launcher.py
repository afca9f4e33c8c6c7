# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfctl run / rtfctl attach: an unmodified program under a reservation,
asked as an unprivileged user under a policy.  What counts is the kernel's
real state of the program's threads (sched_getattr), its exit status, the
refusal's words, and that rtfd holds nothing once the program has ended."""
import json
import os
import shutil
import signal
import subprocess
import tempfile

import pytest

import kernel
from rtfit import TIMEOUT, start_with_policy, wait_for
from users import users  # noqa: F401 - a fixture

CONFIG = "EDF EDF.so 100-100 all\nFP FP.so 1-99 all\n"
POLICY = "rtf-alice FP max_priority 20\n"

# Four threads: main, "worker", "helper" and "brief" (named after they start,
# as programs do); their tids go to OUT; "brief" ends when STOP-brief (or
# STOP) exists, the others when STOP exists; exit CODE.
PROGRAM = r"""
import json, os, sys, threading, time
out, stop, code = sys.argv[1], sys.argv[2], int(sys.argv[3])
tids = {"main": threading.get_native_id()}
go = threading.Event()
def worker(name):
    tid = threading.get_native_id()
    with open(f"/proc/self/task/{tid}/comm", "w") as f:
        f.write(name)
    tids[name] = tid
    if name == "brief":
        while not os.path.exists(stop + "-brief") and not os.path.exists(stop):
            time.sleep(0.02)
        return
    go.wait()
threads = [threading.Thread(target=worker, args=(n,)) for n in ("worker", "helper", "brief")]
for t in threads:
    t.start()
while len(tids) < 4:
    time.sleep(0.01)
with open(out + ".tmp", "w") as f:
    json.dump(tids, f)
os.rename(out + ".tmp", out)
while not os.path.exists(stop):
    time.sleep(0.02)
go.set()
for t in threads:
    t.join()
sys.exit(code)
"""


@pytest.fixture
def scratch():
    """A directory the test users can write (tmp_path is root's alone)."""
    d = tempfile.mkdtemp(prefix="rtf-launch-")
    os.chmod(d, 0o777)
    with open(os.path.join(d, "prog.py"), "w") as f:
        f.write(PROGRAM)
    yield d
    # A failed test may have killed rtfctl but not its program: this ends every program here.
    open(os.path.join(d, "stop"), "w").close()
    wait_for(lambda: not any(os.path.join(d, "prog.py") in _cmdline(p) for p in os.listdir("/proc") if p.isdigit()),
             what="the test programs to end")
    shutil.rmtree(d, ignore_errors=True)


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read()
    except OSError:
        return ""


def start(rtfd, tmp_path):
    return start_with_policy(rtfd, tmp_path, CONFIG, POLICY)


def rtfctl_as(d, account, args, **kw):
    env = dict(os.environ, RTF_SOCKET=d.socket)
    p = subprocess.Popen(account.setpriv() + [d.build.rtfctl] + args, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kw)
    d.children.append(p)
    return p


def program(scratch, code=0):
    return ["/usr/bin/python3", os.path.join(scratch, "prog.py"), os.path.join(scratch, "tids"),
            os.path.join(scratch, "stop"), str(code)]


def tids_of(scratch, proc):
    path = os.path.join(scratch, "tids")
    wait_for(lambda: os.path.exists(path) or proc.poll() is not None, what="the program's threads")
    assert os.path.exists(path), f"the program did not start: {proc.returncode} {proc.communicate(timeout=TIMEOUT)}"
    with open(path) as f:
        return json.load(f)


def stop(scratch):
    open(os.path.join(scratch, "stop"), "w").close()


def policy_of(tid):
    return kernel.sched_getattr(tid).sched_policy


def assert_fifo(d, tid, requested):
    """The kernel runs `tid` as rtfd's listing says: SCHED_FIFO at the granted priority."""
    a = kernel.sched_getattr(tid)
    task = next(t for t in d.tasks() if t["tid"] == tid)
    assert task["requested_priority"] == requested, task
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, task["priority"]), (tid, a.sched_policy)
    assert a.sched_flags & kernel.SCHED_FLAG_RESET_ON_FORK


def attached_tids(d):
    return sorted(t["tid"] for t in d.tasks())


def test_run_promotes_the_main_thread_and_passes_the_exit_status(rtfd, tmp_path, users, scratch):
    alice = users["alice"]
    d = start(rtfd, tmp_path)
    p = rtfctl_as(d, alice, ["run", "--priority", "15", "--plugin", "FP", "--"] + program(scratch, code=7))
    tids = tids_of(scratch, p)

    assert_fifo(d, tids["main"], 15)
    # Threads created later start as SCHED_OTHER (reset-on-fork), without -a/-t.
    assert policy_of(tids["worker"]) == kernel.SCHED_OTHER
    assert policy_of(tids["helper"]) == kernel.SCHED_OTHER
    [task] = d.tasks()
    assert task["uid"] == alice.uid and task["pid"] == p.pid, task

    stop(scratch)
    assert p.wait(timeout=TIMEOUT) == 7, p.stderr.read()
    assert d.tasks() == []
    assert f"audit: uid {alice.uid} " in d.log()


def test_run_with_named_threads_promotes_only_those(rtfd, tmp_path, users, scratch):
    d = start(rtfd, tmp_path)
    p = rtfctl_as(d, users["alice"], ["run", "-p", "12", "--threads", "work*", "--rescan-ms", "20", "--"]
                  + program(scratch))
    tids = tids_of(scratch, p)

    wait_for(lambda: attached_tids(d) == [tids["worker"]], what="the worker thread attached")
    assert_fifo(d, tids["worker"], 12)
    assert policy_of(tids["main"]) == kernel.SCHED_OTHER
    assert policy_of(tids["helper"]) == kernel.SCHED_OTHER

    stop(scratch)
    assert p.wait(timeout=TIMEOUT) == 0, p.stderr.read()
    assert d.tasks() == []


def test_run_with_all_threads_promotes_those_created_later(rtfd, tmp_path, users, scratch):
    d = start(rtfd, tmp_path)
    p = rtfctl_as(d, users["alice"], ["run", "-p", "11", "--all-threads", "--rescan-ms", "20", "--"]
                  + program(scratch))
    tids = tids_of(scratch, p)

    wait_for(lambda: len(d.tasks()) == 4, what="four threads attached")
    for name in ("main", "worker", "helper", "brief"):
        assert_fifo(d, tids[name], 11)
    # A thread that ends gives its specification back while the program runs on.
    open(os.path.join(scratch, "stop-brief"), "w").close()
    wait_for(lambda: attached_tids(d) == sorted(tids[n] for n in ("main", "worker", "helper")),
             what="the brief thread's specification released")
    stop(scratch)
    assert p.wait(timeout=TIMEOUT) == 0, p.stderr.read()
    assert d.tasks() == []


def test_run_refused_by_the_policy_says_why_and_runs_nothing(rtfd, tmp_path, users, scratch):
    d = start(rtfd, tmp_path)
    p = rtfctl_as(d, users["alice"], ["run", "-p", "50", "-P", "FP", "--"] + program(scratch))
    out, err = p.communicate(timeout=TIMEOUT)

    assert p.returncode == 125, (out, err)
    assert "max_priority" in err and "50" in err, err
    assert not os.path.exists(os.path.join(scratch, "tids")), "the program ran"
    assert d.tasks() == []


def test_run_forwards_a_signal_and_dies_of_it(rtfd, tmp_path, users):
    d = start(rtfd, tmp_path)
    p = rtfctl_as(d, users["alice"], ["run", "-p", "10", "--", "sleep", "60"])
    wait_for(lambda: len(d.tasks()) == 1, what="sleep attached")
    [task] = d.tasks()
    assert_fifo(d, task["tid"], 10)

    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=TIMEOUT) == -signal.SIGTERM
    assert not os.path.exists(f"/proc/{task['tid']}"), "sleep outlived rtfctl"
    assert d.tasks() == []


def test_run_of_a_missing_program(rtfd, tmp_path, users):
    d = start(rtfd, tmp_path)
    p = rtfctl_as(d, users["alice"], ["run", "-p", "10", "--", "/nonexistent/program"])
    _, err = p.communicate(timeout=TIMEOUT)
    assert p.returncode == 127 and "No such file" in err, err
    assert d.tasks() == []


def test_attach_holds_a_running_process_until_stopped(rtfd, tmp_path, users, scratch):
    alice, bob = users["alice"], users["bob"]
    d = start(rtfd, tmp_path)
    prog = d.spawn(alice.setpriv() + program(scratch))
    tids = tids_of(scratch, prog)

    # Not bob's process: refused, with the reason.
    p = rtfctl_as(d, bob, ["attach", "--pid", str(prog.pid), "-p", "12"])
    _, err = p.communicate(timeout=TIMEOUT)
    assert p.returncode == 125, err
    assert "does not belong" in err or "refuses" in err, err

    p = rtfctl_as(d, alice, ["attach", "--pid", str(prog.pid), "--threads", "helper", "-p", "12"])
    wait_for(lambda: attached_tids(d) == [tids["helper"]], what="the helper thread attached")
    assert_fifo(d, tids["helper"], 12)
    assert policy_of(tids["main"]) == kernel.SCHED_OTHER

    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=TIMEOUT) == 0, p.stderr.read()
    assert policy_of(tids["helper"]) == kernel.SCHED_OTHER
    assert d.tasks() == []

    # --tid: that one thread; rtfctl ends with the program.
    p = rtfctl_as(d, alice, ["attach", "--tid", str(tids["worker"]), "-p", "13"])
    wait_for(lambda: attached_tids(d) == [tids["worker"]], what="the worker thread attached")
    assert_fifo(d, tids["worker"], 13)
    stop(scratch)
    assert prog.wait(timeout=TIMEOUT) == 0
    assert p.wait(timeout=TIMEOUT) == 0, p.stderr.read()
    assert d.tasks() == []


def test_run_with_a_kernel_policy_picks_the_plugin(rtfd, tmp_path, users):
    """-r / --policy: chrt's words; rtfctl picks the first plugin that gives the policy."""
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 all\nRR RR.so 1-99 all\n",
                          "rtf-alice FP max_priority 20\nrtf-alice RR max_priority 20\n")
    p = rtfctl_as(d, users["alice"], ["run", "-r", "-p", "14", "--", "sleep", "60"])
    wait_for(lambda: len(d.tasks()) == 1, what="sleep attached")
    [task] = d.tasks()
    assert task["plugin"] == "RR", task
    a = kernel.sched_getattr(task["tid"])
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_RR, task["priority"])
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=TIMEOUT)

    p = rtfctl_as(d, users["alice"], ["run", "--policy", "deadline", "--period", "10ms", "--runtime", "1ms",
                                      "--", "true"])
    _, err = p.communicate(timeout=TIMEOUT)
    assert p.returncode == 125, err
    assert "no plugin of rtfd gives --policy deadline" in err and "RR (RR)" in err, err
    assert d.tasks() == []
