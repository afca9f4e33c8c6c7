# SPDX-License-Identifier: LGPL-2.1-or-later
"""Real users for the security and abuse tests.

    rtf-alice   primary group rtf-alice, supplementary member of rtf-audio
    rtf-bob     primary group rtf-bob, not a member of rtf-audio
    rtf-carol   primary group rtf-carol (the abuse tests' user)

The accounts are created once (idempotent) and left on the machine: they
have no home and no shell.  A user's identity reaches rtfd only the way the
kernel reports it (SO_PEERCRED, SO_PEERGROUPS), so every helper here makes
the kernel see that user: a testclient under setpriv, a forked child that
drops to the user, or a socket connected by such a child and handed back.
"""
import json
import os
import socket
import subprocess

import pytest

from rtfit import TIMEOUT, Client, wait_for

GROUP = "rtf-audio"
NAMES = ("rtf-alice", "rtf-bob", "rtf-carol")
SUPPLEMENTARY = {"rtf-alice": [GROUP]}


class Account:
    def __init__(self, name):
        self.name = name
        self.uid = int(_out(["id", "-u", name]))
        self.gid = int(_out(["id", "-g", name]))
        self.groups = [int(g) for g in _out(["id", "-G", name]).split()]

    def setpriv(self):
        """Command prefix that runs a program as this user, with all its groups."""
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--init-groups"]

    def drop(self):
        """In a forked child: become this user for good."""
        os.setgroups(self.groups)
        os.setgid(self.gid)
        os.setuid(self.uid)

    def __repr__(self):
        return f"<{self.name} uid {self.uid}>"


def _out(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


def _exists(db, name):
    return subprocess.run(["getent", db, name], capture_output=True).returncode == 0


def ensure_accounts():
    if not _exists("group", GROUP):
        subprocess.run(["groupadd", GROUP], check=True)
    for name in NAMES:
        if not _exists("passwd", name):
            subprocess.run(["useradd", "-M", "-U", "-s", "/usr/sbin/nologin", name], check=True)
        for group in SUPPLEMENTARY.get(name, []):
            subprocess.run(["usermod", "-a", "-G", group, name], check=True)
    accounts = {name.removeprefix("rtf-"): Account(name) for name in NAMES}
    audio = int(_out(["getent", "group", GROUP]).split(":")[2])
    alice, bob = accounts["alice"], accounts["bob"]
    assert audio in alice.groups and alice.gid != audio, "alice: rtf-audio must be supplementary only"
    assert audio not in bob.groups
    accounts["audio_gid"] = audio
    return accounts


@pytest.fixture(scope="session")
def users(build):
    """{'alice': Account, 'bob': ..., 'carol': ..., 'audio_gid': int}; skips if
    the users cannot run the build's test client."""
    if os.geteuid() != 0:
        pytest.skip("creating users needs root")
    accounts = ensure_accounts()
    for a in (accounts["alice"], accounts["bob"], accounts["carol"]):
        r = subprocess.run(a.setpriv() + [build.testclient], input="pid\nquit\n", capture_output=True,
                           text=True, timeout=TIMEOUT)
        if r.returncode != 0 or '"pid"' not in r.stdout:
            pytest.skip(f"{a.name} cannot run {build.testclient} (directory permissions of the build?): "
                        f"{r.stderr.strip()}")
    return accounts


# ---- clients ---------------------------------------------------------------------

class UserClient(Client):
    """rtfit.Client, but the testclient runs as `account`."""

    def __init__(self, build, socket_path, account, connect=True):  # noqa: super() would start it as root
        env = dict(os.environ, RTF_SOCKET=socket_path, RTF_TIMEOUT_MS="5000")
        self.account = account
        self.proc = subprocess.Popen(account.setpriv() + [build.testclient], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
        self.pid = self.proc.pid        # setpriv execs: this is the testclient's pid
        self.threads = {}
        if connect:
            r = self.cmd("connect")
            assert r["result"] == 0, r


def client(d, account):
    """A testclient of daemon `d` running as `account`, killed with d's clients."""
    c = UserClient(d.build, d.socket, account)
    d.clients.append(c)
    return c


def as_user(account, fn):
    """Run fn() in a child that is `account`; return what it returns (JSON-able)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            account.drop()
            out = json.dumps(fn()).encode()
        except BaseException as e:       # noqa: BLE001 - report, never return into pytest
            out = json.dumps({"error": repr(e)}).encode()
        os.write(wfd, out)
        os._exit(0)
    os.close(wfd)
    data = b""
    while chunk := os.read(rfd, 65536):
        data += chunk
    os.close(rfd)
    os.waitpid(pid, 0)
    result = json.loads(data)
    if isinstance(result, dict) and "error" in result:
        pytest.fail(f"as {account.name}: {result['error']}")
    return result


def connect_as(account, path, timeout=TIMEOUT):
    """A raw SOCK_SEQPACKET connection to rtfd made by a child that is
    `account`, handed to us: rtfd sees the child's credentials (taken at
    connect time) for as long as the connection lives.  Returns (socket,
    pid of the connecting child)."""
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            parent.close()
            account.drop()
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(path)
            socket.send_fds(child, [b"fd"], [s.fileno()])
        except BaseException:            # noqa: BLE001
            code = 1
        os._exit(code)
    child.close()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        parent.close()
        pytest.fail(f"{account.name} could not connect to {path}")
    _, fds, _, _ = socket.recv_fds(parent, 16, 1)
    parent.close()
    s = socket.socket(fileno=fds[0])
    s.settimeout(timeout)
    return s, pid


def spawn_as(d, account, argv):
    """A helper process of `account` (killed with d's children)."""
    return d.spawn(account.setpriv() + list(argv))


def spawn_with_pid(d, pid, argv, tries=50):
    """Process `argv` whose pid is `pid` (through ns_last_pid), or None."""
    wait_for(lambda: not os.path.exists(f"/proc/{pid}"), what=f"thread {pid} to be released")
    for _ in range(tries):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(pid - 1))
        p = d.spawn(argv)
        if p.pid == pid:
            return p
        p.kill()
        p.wait()
        if os.path.exists(f"/proc/{pid}"):
            return None     # somebody else got it
    return None


# ---- the kernel's view of a user's threads ------------------------------------------

def threads_of(uid):
    """Every thread whose real or effective uid is `uid`: [(tid, policy)]."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/status") as f:
                    status = f.read()
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            uids = next(l.split()[1:3] for l in status.splitlines() if l.startswith("Uid:"))
            if str(uid) not in uids:
                continue
            # Field 41 is the policy; the command name (field 2) may hold spaces.
            policy = int(stat[stat.rindex(")") + 2:].split()[41 - 3])
            found.append((int(tid), policy))
    return found


def uss_kib(pid):
    """Private (unshared) memory of a process: Private_Clean + Private_Dirty."""
    total = 0
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                total += int(line.split()[1])
    return total
