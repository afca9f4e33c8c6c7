# SPDX-License-Identifier: LGPL-2.1-or-later
"""A red-team pass (docs/SECURITY.md): attacks of hostile local users that the
other tests did not try, each run by real users (users.py) against the real
rtfd, judged by the kernel's state or by what rtfd answers root."""
import errno
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time

import kernel
import wire
from rtfit import GLOBAL, TIMEOUT, start_with_policy, wait_for
from test_abuse import flood
from test_enforce import VICTIM_PROGRAM, python_as
from test_escape import suid_sleep
from users import client, connect_as, users  # noqa: F401 - users is a fixture

EUSERS = -errno.EUSERS

# Prints its thread id, disables "all performance counters attached to the
# calling process" (prctl(2) PR_TASK_PERF_EVENTS_DISABLE, 31), which is what
# rtfd's runtime enforcement counts with (enforce.c: a perf task clock on the
# thread), then spins.
SPIN_WITHOUT_COUNTERS = """
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(31, 0, 0, 0, 0) == 0, ctypes.get_errno()
os.write(1, b"%d\\n" % threading.get_native_id())
while True:
    pass
"""


def test_a_thread_cannot_switch_off_the_counter_that_enforces_its_runtime(rtfd, tmp_path, users):
    """An FP task of 1 ms every 5 ms whose thread first disables the perf
    counters of its process and then spins: rtfd's counter is rtfd's (the
    prctl only reaches counters the caller owns), so the thread is still
    throttled at its runtime."""
    alice = users["alice"]
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 0\n", "rtf-alice FP max_priority 50\n")
    p = d.spawn(alice.setpriv() + ["/usr/bin/python3", "-c", SPIN_WITHOUT_COUNTERS], stdout=subprocess.PIPE)
    tid = int(p.stdout.readline())
    a = client(d, alice)
    assert a.create("hog", plugin="FP", priority=10, period=5000, runtime=1000)["result"] == 0
    assert a.attach("hog", str(tid))["result"] == 0
    # Throttled to SCHED_OTHER, given back its priority, throttled again.
    for policy in (kernel.SCHED_OTHER, kernel.SCHED_FIFO, kernel.SCHED_OTHER):
        wait_for(lambda: kernel.sched_getattr(tid).sched_policy == policy, interval=0.001, what=f"policy {policy}")
    assert a.detach("hog")["result"] == 0
    d.wait_log(f"Thread {tid}: runtime 1000 us per 5000 us enforced")
    line = [l for l in d.log().splitlines() if f"Thread {tid}: runtime" in l][0]
    throttles = int(re.search(r"throttled (\d+) times", line).group(1))
    assert throttles > 1, line


def test_users_together_cannot_lock_root_out_of_rtfd(rtfd, tmp_path, users):
    """max_clients and max_specs are shared by everybody: two users, each
    within its max_clients_per_uid and max_specs_per_uid, fill them.  A third
    user is refused, root is not (it has room beyond both, as the kernel keeps
    files for root), so the administrator can still look and act.  Fails on
    874958b: root's connection was refused with "limit max_clients reached",
    and with room for it, its specification with "limit max_specs reached"."""
    alice, bob, carol = users["alice"], users["bob"], users["carol"]
    d = start_with_policy(rtfd, tmp_path, GLOBAL + "set max_clients 4\nset max_clients_per_uid 2\n"
                          "set max_specs 4\nset max_specs_per_uid 2\n",
                          "rtf-alice - max_priority 99\nrtf-bob - max_priority 99\n")
    held = [connect_as(u, d.socket)[0] for u in (alice, alice, bob, bob)]
    for i, s in enumerate(held):
        assert wire.call(s, wire.create(seq=i + 1, priority=10))["result"] == 0, i
    late, _ = connect_as(carol, d.socket)
    r = wire.call(late, wire.create(seq=9, priority=10))
    assert r["result"] == EUSERS and "max_clients" in r["reason"], r
    late.close()
    root = [wire.connect(d.socket) for _ in range(2)]
    for i, s in enumerate(root):
        r = wire.call(s, wire.create(seq=i + 1, priority=10))
        assert r["result"] == 0, r
    assert d.cores(), "root reads the status"
    for s in held + root:
        s.close()


def test_reconnecting_does_not_refill_a_uids_request_budget(rtfd, tmp_path, users):
    """carol spends her uid's burst of requests, closes her only connection
    and opens a new one: her uid's budget (and its share of rtfd's time) is
    what she left it, not a fresh one, so cycling connections buys no rate.
    Fails on 874958b: the uid's accounting object went with its last
    connection and the next one came with a full bucket."""
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, GLOBAL + "set max_requests_per_sec_per_uid 1\n"
                          "set request_burst_per_uid 5\n", "rtf-carol - max_priority 99\n")
    for attempt in range(2):
        s, _ = connect_as(carol, d.socket)
        results = [wire.call(s, wire.create(seq=i + 1, priority=10))["result"] for i in range(6)]
        s.close()
        # The first connection spends the burst; the next gets at most the
        # token or so that refilled meanwhile (1 a second).
        assert results.count(0) <= (5 if attempt == 0 else 1), (attempt, results)
    assert "max_requests_per_sec_per_uid" in d.log()


def cpu_seconds(pid):
    """utime + stime of process `pid` (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_client_that_hangs_up_with_replies_queued_costs_no_cpu(rtfd, tmp_path, users):
    """carol floods without reading until rtfd stops reading her (its reply
    queue is full, the connection is paused and polled for nothing but
    output), then hangs up: rtfd lets the connection go and does not spin on
    the hang-up that epoll reports for it."""
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, GLOBAL, "rtf-carol - max_priority 99\n")
    s, pid = connect_as(carol, d.socket)
    flood(s, lambda seq: wire.create(seq=seq, priority=1 + seq % 99))
    s.close()
    before = cpu_seconds(d.proc.pid)
    time.sleep(1)
    spent = cpu_seconds(d.proc.pid) - before
    assert spent < 0.3, f"rtfd used {spent:.2f} s of CPU in 1 s after the hang-up"
    assert not [t for t in d.tasks() if t["uid"] == carol.uid], "carol's specifications were released"


def effective_uid(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("Uid:")).split()[2])


def test_rtfctl_run_gives_a_set_uid_program_no_privileges(rtfd, tmp_path, users, request):
    """alice runs a set-uid-root program under `rtfctl run`: rtfctl attaches
    the child before it execs, so the program would start as root at alice's
    real-time priority until rtfd's owner watchdog (1 s) demoted it.  rtfctl
    runs it with no_new_privs: it runs as alice, within alice's reservation.
    Fails on 874958b: the program ran with effective uid 0."""
    alice = users["alice"]
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 all\n", "rtf-alice FP max_priority 20\n")
    work = tempfile.mkdtemp(prefix="rtf-hostile-")   # pytest's tmp_path is root's alone
    request.addfinalizer(lambda: shutil.rmtree(work, ignore_errors=True))
    suid = suid_sleep(work)
    p = subprocess.Popen(alice.setpriv() + [d.build.rtfctl, "--socket", d.socket, "run", "-p", "10", "--", suid,
                                            "30"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    d.children.append(p)
    wait_for(lambda: len(d.tasks()) == 1, what="the program attached")
    tid = d.tasks()[0]["tid"]
    wait_for(lambda: open(f"/proc/{tid}/comm").read().strip() == "suid-sleep", what="the exec")
    assert effective_uid(tid) == alice.uid, "a set-uid program started by rtfctl run gained its owner's uid"
    assert kernel.sched_getattr(tid).sched_policy == kernel.SCHED_FIFO, "and runs with alice's reservation"


# Prints the ids of N threads that sleep for ever, one a line.
SLEEPERS = """
import os, sys, threading
n = int(sys.argv[1])
tids, ready = [], threading.Semaphore(0)
def sleeper():
    tids.append(threading.get_native_id())
    ready.release()
    threading.Event().wait()
for _ in range(n):
    threading.Thread(target=sleeper, daemon=True).start()
for _ in range(n):
    ready.acquire()
os.write(1, ("\\n".join(map(str, tids)) + "\\n").encode())
threading.Event().wait()
"""


def test_tiny_runtimes_do_not_stall_the_enforcement_of_a_hog(rtfd, tmp_path, users):
    """alice attaches 40 sleeping threads to FP tasks with a runtime of 1 us
    (4 % of a CPU in all; each cost the enforcer a look every 20 us while it
    had budget left) and a spinning thread to a task of 1 ms every 5 ms above
    bob's task of 2 ms every 10 ms: the enforcer, whose own reservation is
    5 % of a CPU, must still hold the hog to its runtime, so that bob gets
    his in (nearly) every period.  Fails on 874958b: the enforcer fell so far
    behind that the hog was throttled in 10 of 355 periods and bob got his
    runtime in 44 of 100; its looks are now spaced by the number of tasks and a late look
    charges what the task ran (enforce.c, enforce-budget.c)."""
    alice, bob = users["alice"], users["bob"]
    n, periods = 40, 100
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 0\n",
                          "rtf-alice FP max_priority 50\nrtf-bob FP max_priority 50\n")
    victim, victim_tid = python_as(d, bob, VICTIM_PROGRAM, 0.01, 0.002, periods, stdin=subprocess.PIPE)
    b = client(d, bob)
    assert b.create("v", plugin="FP", priority=3, period=10000, runtime=2000)["result"] == 0
    assert b.attach("v", str(victim_tid))["result"] == 0
    p = d.spawn(alice.setpriv() + ["/usr/bin/python3", "-c", SLEEPERS, str(n)], stdout=subprocess.PIPE)
    sleepers = [int(p.stdout.readline()) for _ in range(n)]
    a = client(d, alice)
    for i, tid in enumerate(sleepers):
        r = a.create(f"s{i}", plugin="FP", priority=5, period=1000, runtime=1)
        assert r["result"] == 0, r
        assert a.attach(f"s{i}", str(tid))["result"] == 0
    h = d.spawn(alice.setpriv() + ["/usr/bin/python3", "-c", SPIN_WITHOUT_COUNTERS], stdout=subprocess.PIPE)
    hog = int(h.stdout.readline())
    assert a.create("hog", plugin="FP", priority=4, period=5000, runtime=1000)["result"] == 0
    assert a.attach("hog", str(hog))["result"] == 0
    victim.stdin.write("x")
    victim.stdin.flush()
    ready, _, _ = select.select([victim.stdout], [], [], periods * 0.01 + TIMEOUT)
    assert ready, "bob's task did not finish its periods: it received (almost) no CPU time"
    result = json.loads(victim.stdout.readline())
    print(result, [l for l in d.log().splitlines() if "enforced over" in l][-1:])
    assert result["met"] >= 0.9 * periods, result


# Run by alice as root of a user namespace of her own (unshare -Ur): prints
# its thread id, waits until it is attached, then tries what root of that
# namespace (CAP_SYS_NICE there) might: a higher priority, clearing
# SCHED_RESET_ON_FORK, a real-time child; prints the outcomes.
IN_USERNS = """
import json, os, sys, threading
os.write(1, b"%d\\n" % threading.get_native_id())
sys.stdin.read(1)
out = {"uid_in_ns": os.getuid()}
for name, policy in (("raise", os.SCHED_FIFO), ("clear_reset_on_fork", os.SCHED_FIFO)):
    try:
        prio = 99 if name == "raise" else os.sched_getparam(0).sched_priority
        os.sched_setscheduler(0, policy, os.sched_param(prio))
        out[name] = "allowed"
    except PermissionError:
        out[name] = "EPERM"
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.write(w, str(os.sched_getscheduler(0)).encode())
    os._exit(0)
os.waitpid(pid, 0)
out["child_policy"] = int(os.read(r, 16))
print(json.dumps(out), flush=True)
sys.stdin.read(1)
"""


def test_root_of_ones_own_user_namespace_gains_nothing(rtfd, tmp_path, users):
    """alice attaches a thread that is root of a user namespace she created:
    it is hers (the kernel maps it to her uid), so rtfd serves it, but its
    namespace's CAP_SYS_NICE does not count for the scheduler: it can
    neither raise its priority nor clear SCHED_RESET_ON_FORK, and its
    children start as SCHED_OTHER."""
    alice = users["alice"]
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 all\n", "rtf-alice FP max_priority 20\n")
    p = subprocess.Popen(alice.setpriv() + ["unshare", "-Ur", "/usr/bin/python3", "-c", IN_USERNS],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    d.children.append(p)
    tid = int(p.stdout.readline())
    a = client(d, alice)
    assert a.create("ns", plugin="FP", priority=10)["result"] == 0
    assert a.attach("ns", str(tid))["result"] == 0
    p.stdin.write("x")
    p.stdin.flush()
    out = json.loads(p.stdout.readline())
    assert out == {"uid_in_ns": 0, "raise": "EPERM", "clear_reset_on_fork": "EPERM",
                   "child_policy": os.SCHED_OTHER}, out
    attr = kernel.sched_getattr(tid)
    assert (attr.sched_policy, attr.sched_priority) == (kernel.SCHED_FIFO, 10)
    assert attr.sched_flags & kernel.SCHED_FLAG_RESET_ON_FORK


# Its main thread (the leader) exits on its own (exit(2), not exit_group):
# a zombie while the process lives on.  A second thread prints the leader's
# id, waits for a byte, then execs sleep: it takes over the leader's id.
ZOMBIE_LEADER = """
import ctypes, os, sys, threading, time
def other():
    time.sleep(0.2)
    os.write(1, b"%d\\n" % os.getpid())
    os.read(0, 1)
    os.execv("/usr/bin/sleep", ["sleep", "30"])
threading.Thread(target=other).start()
ctypes.CDLL(None).syscall(60, 0)    # SYS_exit (x86_64): this thread only
"""


def test_a_zombie_leader_is_not_attached(rtfd, tmp_path, users):
    """alice attaches the zombie leader of her process (it exited, its
    process lives on), then another thread of it execs and runs on under the
    leader's id.  The leader's pidfd polls as alive and passes to the exec'd
    program, so an attached zombie made rtfd act on that program (a set-uid
    one too, until the owner watchdog).  rtfd refuses the zombie: it has
    exited.  Fails on 874958b: attached, and still listed as attached to the
    exec'd program."""
    alice = users["alice"]
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 all\n", "rtf-alice FP max_priority 20\n")
    p = subprocess.Popen(alice.setpriv() + ["/usr/bin/python3", "-c", ZOMBIE_LEADER], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    d.children.append(p)
    leader = int(p.stdout.readline())
    wait_for(lambda: open(f"/proc/{leader}/stat").read().rsplit(")", 1)[1].split()[0] == "Z",
             what="the leader a zombie")
    a = client(d, alice)
    assert a.create("z", plugin="FP", priority=10)["result"] == 0
    r = a.attach("z", str(leader))
    assert r["result"] != 0 and "cannot open thread" in r["reason"], r
    p.stdin.write(b"x")
    p.stdin.flush()
    wait_for(lambda: open(f"/proc/{leader}/comm").read().strip() == "sleep", what="the exec")
    wait_for(lambda: kernel.sched_getattr(leader).sched_policy == kernel.SCHED_OTHER,
             what="the exec'd program at SCHED_OTHER")
    assert d.running()
    assert [t["tid"] for t in d.tasks()] == [0]
