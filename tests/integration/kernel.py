# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the kernel says about a thread, read without rtf's help.

sched_getattr/sched_setattr through ctypes (glibc has no wrapper before 2.41),
affinity, cpuset membership and the cgroup-v1 cpuset files rtfd changes.
"""
import ctypes
import errno
import os
import platform

SCHED_OTHER = 0
SCHED_FIFO = 1
SCHED_RR = 2
SCHED_BATCH = 3
SCHED_IDLE = 5
SCHED_DEADLINE = 6

SCHED_FLAG_RESET_ON_FORK = 0x01
SCHED_FLAG_RECLAIM = 0x02
SCHED_FLAG_DL_OVERRUN = 0x04

# (sched_setattr, sched_getattr) by architecture
_SYSCALLS = {"x86_64": (314, 315), "aarch64": (274, 275), "riscv64": (274, 275)}
SYS_SCHED_SETATTR, SYS_SCHED_GETATTR = _SYSCALLS.get(platform.machine(), (None, None))

CPUSET_ROOT = "/sys/fs/cgroup/cpuset"
ALL_CPUS = frozenset(range(os.cpu_count()))


class SchedAttr(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("sched_policy", ctypes.c_uint32),
        ("sched_flags", ctypes.c_uint64),
        ("sched_nice", ctypes.c_int32),
        ("sched_priority", ctypes.c_uint32),
        ("sched_runtime", ctypes.c_uint64),
        ("sched_deadline", ctypes.c_uint64),
        ("sched_period", ctypes.c_uint64),
        ("sched_util_min", ctypes.c_uint32),
        ("sched_util_max", ctypes.c_uint32),
    ]


assert ctypes.sizeof(SchedAttr) == 56

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _check_arch():
    if SYS_SCHED_GETATTR is None:
        raise OSError(errno.ENOSYS, f"sched_getattr syscall number unknown on {platform.machine()}")


def sched_getattr(tid):
    """The kernel's struct sched_attr of thread `tid` (raises OSError)."""
    _check_arch()
    attr = SchedAttr()
    r = _libc.syscall(ctypes.c_long(SYS_SCHED_GETATTR), ctypes.c_int(tid), ctypes.byref(attr),
                      ctypes.c_uint(ctypes.sizeof(attr)), ctypes.c_uint(0))
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"sched_getattr({tid}): {os.strerror(e)}")
    return attr


def sched_setattr(tid, policy, runtime=0, deadline=0, period=0, priority=0, flags=0, nice=0):
    """Set thread `tid` (raises OSError, e.g. EBUSY when DL bandwidth is refused)."""
    _check_arch()
    attr = SchedAttr(size=ctypes.sizeof(SchedAttr), sched_policy=policy, sched_flags=flags,
                     sched_nice=nice, sched_priority=priority, sched_runtime=runtime,
                     sched_deadline=deadline, sched_period=period)
    r = _libc.syscall(ctypes.c_long(SYS_SCHED_SETATTR), ctypes.c_int(tid), ctypes.byref(attr),
                      ctypes.c_uint(0))
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"sched_setattr({tid}, policy {policy}): {os.strerror(e)}")


def affinity(tid):
    return frozenset(os.sched_getaffinity(tid))


def cpuset_of(tid):
    """The cgroup-v1 cpuset path of `tid` ("/" = root), or None without v1 cpusets."""
    try:
        with open(f"/proc/{tid}/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if "cpuset" in controllers.split(","):
                    return path
    except FileNotFoundError:
        return None
    return None


def rtf_cpusets():
    try:
        return sorted(d for d in os.listdir(CPUSET_ROOT) if d.startswith("rtf-"))
    except FileNotFoundError:
        return []


def read_root_load_balance():
    with open(os.path.join(CPUSET_ROOT, "cpuset.sched_load_balance")) as f:
        return f.read().strip()


def write_root_load_balance(value):
    with open(os.path.join(CPUSET_ROOT, "cpuset.sched_load_balance"), "w") as f:
        f.write(str(value))


def rebuild_root_domains():
    """Make the kernel recount DL bandwidth (recovers leaked bandwidth).

    Only meaningful while no rtf partitions exist."""
    old = read_root_load_balance()
    write_root_load_balance(0 if old == "1" else 1)
    write_root_load_balance(old)


def deadline_available():
    """(True, "") if root may put a thread under SCHED_DEADLINE here."""
    if SYS_SCHED_SETATTR is None:
        return False, f"sched_setattr syscall number unknown on {platform.machine()}"
    pid = os.fork()
    if pid == 0:  # a throwaway child tries, so that the test process stays SCHED_OTHER
        try:
            sched_setattr(0, SCHED_DEADLINE, runtime=1_000_000, deadline=100_000_000,
                          period=100_000_000)
            os._exit(0)
        except OSError as e:
            os._exit(min(e.errno or 1, 255))
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return True, ""
    return False, f"sched_setattr(SCHED_DEADLINE) fails here: {os.strerror(code)}"


def thread_exists(tid):
    return os.path.exists(f"/proc/{tid}")

