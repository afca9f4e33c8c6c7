# SPDX-License-Identifier: LGPL-2.1-or-later
"""Partitioned EDF with cgroup v2 cpuset partitions, for real.

The development machines mount the cpuset controller on a v1 hierarchy
(PLATFORM.md).  A controller moves to the unified hierarchy when its v1
hierarchy is unmounted and has no child cgroup left, so this test unmounts
the v1 cpuset hierarchy, runs rtfd, and mounts it back in a `finally`, even
on failure.  It changes global state: run it only under the machine-wide
lock (tests/run-all and HELPERS.md do).  Where the kernel does not let go of
the v1 hierarchy the test is skipped and says exactly why; a lazy unmount is
never used, as it would leave the v1 hierarchy live and the controller
where it is."""
import os
import subprocess
import time

import pytest

import kernel
from rtfit import PARTITIONED

pytestmark = pytest.mark.deadline

PERIOD_US, RUNTIME_US, DEADLINE_US = 100000, 10000, 80000
V1 = kernel.CPUSET_ROOT
PRIVATE_V2 = "/run/rtf-test-cgroup2"


def mounts():
    """[(mount id, mount point, fstype, super options)] of this namespace."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            fields = left.split()
            fstype, _source, opts = right.split()[:3]
            out.append((int(fields[0]), fields[4].replace("\\040", " "), fstype, opts.split(",")))
    return out


def v1_cpuset_mount():
    for mid, point, fstype, opts in mounts():
        if fstype == "cgroup" and "cpuset" in opts:
            return mid, point
    return None, None


def v2_mount():
    for _mid, point, fstype, _opts in mounts():
        if fstype == "cgroup2":
            return point
    return None


def v2_controllers(v2):
    with open(os.path.join(v2, "cgroup.controllers")) as f:
        return f.read().split()


def read(path):
    with open(path) as f:
        return f.read().strip()


def cpuset_cgroups():
    """Number of cgroups of the cpuset controller's hierarchy (/proc/cgroups)."""
    with open("/proc/cgroups") as f:
        for line in f:
            name, _hier, num, _enabled = line.split()
            if name == "cpuset":
                return int(num)
    return None


def holders(mount_id, point):
    """Who keeps a mount busy: open files on it, a working directory or root
    inside it; and the processes whose files cannot be read at all."""
    found, unreadable = [], []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            comm = read(f"/proc/{pid}/comm")
            for link in ("cwd", "root"):
                target = os.readlink(f"/proc/{pid}/{link}")
                if target == point or target.startswith(point + "/"):
                    found.append(f"pid {pid} ({comm}) {link}")
            for fd in os.listdir(f"/proc/{pid}/fdinfo"):
                for line in open(f"/proc/{pid}/fdinfo/{fd}"):
                    if line.startswith("mnt_id:") and int(line.split()[1]) == mount_id:
                        found.append(f"pid {pid} ({comm}) fd {fd}")
        except FileNotFoundError:
            continue
        except PermissionError:
            unreadable.append(f"pid {pid} ({comm})")
    return found, unreadable


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def restore_v1():
    """Mount the v1 cpuset hierarchy back; the controller must be unused on v2."""
    os.makedirs(V1, exist_ok=True)
    if v1_cpuset_mount()[0] is not None:
        return
    r = None
    for _ in range(50):
        r = run(["mount", "-t", "cgroup", "-o", "cpuset", "cgroup", V1])
        if r.returncode == 0:
            return
        time.sleep(0.1)     # the v2 side releases the controller asynchronously
    raise AssertionError(f"could not mount the v1 cpuset hierarchy back at {V1}: {r.stderr.strip()}")


def cgroup_v2_of(tid):
    for line in read(f"/proc/{tid}/cgroup").splitlines():
        if line.startswith("0::"):
            return line[3:]
    return None


def test_partitioned_edf_in_a_cgroup_v2_partition(rtfd):
    mid, point = v1_cpuset_mount()
    if point is not None and point != V1:
        pytest.skip(f"the v1 cpuset hierarchy is mounted at {point}, not {V1}: not this test's to move")
    if point is not None and cpuset_cgroups() != 1:
        pytest.skip(f"the v1 cpuset hierarchy has {cpuset_cgroups() - 1} child cgroups: it cannot be released")
    if os.cpu_count() < 2:
        pytest.skip("partitions need at least 2 CPUs")

    mounted_private = False
    d = None
    try:
        # On a cgroup2-only machine (stock Debian 12) v2 has cpuset already.
        r = run(["umount", V1]) if point is not None else None
        if r is not None and r.returncode != 0:
            found, unreadable = holders(mid, V1)
            pytest.skip(f"umount {V1}: {r.stderr.strip()} - so the cpuset controller cannot move to cgroup v2 "
                        f"here.  Holders seen: {found or 'none'}; processes whose open files this root cannot "
                        f"inspect (one of them holds it): {unreadable or 'none'}.  A lazy unmount would leave "
                        f"the v1 hierarchy live.")
        v2 = v2_mount()
        if v2 is None:
            os.makedirs(PRIVATE_V2, exist_ok=True)
            assert run(["mount", "-t", "cgroup2", "none", PRIVATE_V2]).returncode == 0
            mounted_private, v2 = True, PRIVATE_V2
        for _ in range(20):
            if "cpuset" in v2_controllers(v2):
                break
            time.sleep(0.1)
        else:
            _found, unreadable = holders(-1, V1)
            pytest.skip(f"{V1} unmounted, but cpuset did not appear in {v2}/cgroup.controllers within 2 s: "
                        f"the v1 hierarchy is still alive with no child cgroup ({cpuset_cgroups()} cgroup), so "
                        f"something still references it (an open file, perhaps through an earlier, detached "
                        f"mount of it); processes whose open files this root cannot inspect: "
                        f"{unreadable or 'none'}")
        subtree_before = read(os.path.join(v2, "cgroup.subtree_control")).split()
        me_before = cgroup_v2_of(os.getpid())

        d = rtfd(PARTITIONED)
        log = d.log()
        assert "cgroup v2" in log, log
        part = os.path.join(v2, "rtf", "cpu1")
        assert read(os.path.join(part, "cpuset.cpus.partition")) == "root", log
        assert read(os.path.join(part, "cgroup.type")) == "threaded"
        assert read(os.path.join(part, "cpuset.cpus.effective")) == "1"
        edf = [c for c in d.cores() if c["plugin"] == "EDF"]
        assert [(c["cpu"], c["partitioned"]) for c in edf] == [(1, True)]

        c = d.client()
        tid = c.thread("t")
        origin = cgroup_v2_of(c.pid)
        r = c.create("e", period=PERIOD_US, runtime=RUNTIME_US, deadline=DEADLINE_US)
        assert r["result"] == 0 and r["cpu"] == 1, r
        assert c.attach("e", "thread:t")["result"] == 0, d.log()
        a = kernel.sched_getattr(tid)
        assert a.sched_policy == kernel.SCHED_DEADLINE
        assert (a.sched_runtime, a.sched_period) == (RUNTIME_US * 1000, PERIOD_US * 1000)
        assert kernel.affinity(tid) == {1}
        assert cgroup_v2_of(tid) == "/rtf/cpu1"
        # Its process moved along into rtf/ (a thread moves only within its
        # threaded subtree); the client's other threads are not pinned.
        assert cgroup_v2_of(c.pid) == "/rtf"
        assert 1 not in kernel.affinity(c.pid)

        assert d.stop() == 0
        assert not os.path.exists(os.path.join(v2, "rtf")), d.log()
        assert kernel.sched_getattr(tid).sched_policy == kernel.SCHED_OTHER
        assert kernel.affinity(tid) == kernel.ALL_CPUS
        assert cgroup_v2_of(tid) == origin
        assert cgroup_v2_of(os.getpid()) == me_before
        assert read(os.path.join(v2, "cgroup.subtree_control")).split() == subtree_before
    finally:
        if d is not None and d.running():
            d.stop()
        if mounted_private:
            run(["umount", PRIVATE_V2])
        if point is not None:
            restore_v1()
    if point is not None:
        assert v1_cpuset_mount()[1] == V1
        assert read(os.path.join(V1, "cpuset.sched_load_balance")) == "1"


def _remove_v2(v2, name):
    d = os.path.join(v2, name)
    if not os.path.isdir(d):
        return
    for sub in os.listdir(d):
        if os.path.isdir(os.path.join(d, sub)):
            _remove_v2(v2, os.path.join(name, sub))
    for f in ("cgroup.procs",):
        try:
            for pid in read(os.path.join(d, f)).split():
                with open(os.path.join(v2, "cgroup.procs"), "w") as out:
                    out.write(pid)
        except OSError:
            pass
    os.rmdir(d)


def test_rtfd_places_threads_on_a_real_unified_hierarchy(build):
    """What of the v2 path runs without the cpuset controller, runs here:
    rtfd's own code (cpuset-v2.c, through tests/integration/cgroup-v2-moves.c)
    moves a thread into the threaded partition cgroup (its process into the
    threaded domain rtf/, since the kernel refuses a thread whose process is
    outside: ENOTSUP), gives the process back to the cgroup it came from when
    its thread leaves, and removes everything at teardown."""
    v2 = v2_mount()
    if v2 is None:
        pytest.skip("no cgroup2 file system is mounted")
    helper = os.path.join(build.path, "tests", "integration", "cgroup-v2-moves")
    for name in ("rtf", "rtf-test-origin"):
        assert not os.path.exists(os.path.join(v2, name)), f"{v2}/{name} exists: is an rtfd using cgroup v2?"
    try:
        r = subprocess.run([helper, v2], capture_output=True, text=True, timeout=30)
        out = dict(line.split(": ", 1) for line in r.stdout.splitlines())
        assert r.returncode == 0, r.stdout + r.stderr
        for step, process, thread in (("start", "/rtf-test-origin", "/rtf-test-origin"),
                                      ("partitioned", "/rtf", "/rtf/cpu1"),
                                      ("released", "/rtf-test-origin", "/rtf-test-origin"),
                                      ("again", "/rtf", "/rtf/cpu1"),
                                      ("teardown", "/rtf-test-origin", "/rtf-test-origin")):
            assert (out[f"{step} process"], out[f"{step} thread"]) == (process, thread), (step, r.stdout)
        assert out["rtf left"] == "0", r.stdout
    finally:
        for name in ("rtf", "rtf-test-origin"):
            _remove_v2(v2, name)
