# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtf-nexa (issue 13) as an unprivileged user under a policy, proven with
real peers: rtl_433 (-R 4, Waveman) decodes house, unit and state from the
pulse file and from the synthesised I/Q capture, idle and under stress-ng CPU
and loopback-network load; the simulated rotary dial reaches the transmitter
through `cat rtp2 > rtp1`; ncat makes it a network service; nothing is lost
(every release of the periodic tasks, every command on the pipes).
Behaviour only: timings are docs/NEXA.md's business."""
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from rtfit import GLOBAL, TIMEOUT, start_with_policy, wait_for
from users import users  # noqa: F401 - a fixture

POLICY = "rtf-carol FP max_priority 99\n"


def need(tool):
    if not shutil.which(tool):
        pytest.skip(f"{tool} is not installed (scripts/install-deps.sh)")


class Nexa:
    """rtf-nexa running as `account`, its pipes and recordings in a directory of that user."""

    def __init__(self, build, d, account, args=()):
        exe = os.path.join(build.path, "apps", "rtf-nexa", "rtf-nexa")
        if not os.access(exe, os.X_OK):
            pytest.skip(f"{exe} is not built")
        self.account = account
        self.dir = tempfile.mkdtemp(prefix="rtf-nexa-")
        os.chmod(self.dir, 0o700)
        os.chown(self.dir, account.uid, account.gid)
        self.pipes = os.path.join(self.dir, "pipes")
        self.ook = os.path.join(self.dir, "tx.ook")
        self.iq = os.path.join(self.dir, "tx.cu8")
        self.report_path = os.path.join(self.dir, "report.json")
        self.proc = subprocess.Popen(
            account.setpriv() + [exe, "--pipe-dir", self.pipes, "--record", self.ook, "--record-iq", self.iq,
                                 "--report", self.report_path] + list(args),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, RTF_SOCKET=d.socket))
        d.children.append(self.proc)
        self.log = []
        self.wait_log("ready:")

    def _read_line(self, timeout):
        ready, _, _ = select.select([self.proc.stderr], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stderr.readline()
        if line:
            self.log.append(line.rstrip("\n"))
        return line

    def wait_log(self, text, count=1, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        while sum(text in line for line in self.log) < count:
            left = end - time.monotonic()
            if left <= 0 or self._read_line(left) == "":
                pytest.fail(f"rtf-nexa did not log '{text}' x{count}:\n" + "\n".join(self.log))

    def as_user(self, shell, **kw):
        return subprocess.Popen(self.account.setpriv() + ["sh", "-c", shell], cwd=self.pipes,
                                stdin=subprocess.DEVNULL, **kw)

    def send(self, *commands):
        text = "".join(c + "\n" for c in commands)
        p = self.as_user(f"printf '{text}' > rtp1")
        assert p.wait(timeout=TIMEOUT) == 0

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=TIMEOUT)
        self.log += err.splitlines()
        assert self.proc.returncode == 0, "\n".join(self.log)
        with open(self.report_path) as f:
            return json.load(f)

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def rtl_433(path):
    r = subprocess.run(["rtl_433", "-r", path, "-R", "4", "-F", "json"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return [(o["id"], (o["channel"] - 1) * 4 + o["button"], o["state"])
            for o in map(json.loads, r.stdout.splitlines())]


def expected(command):
    return (command[0].upper(), int(command[1:-1]), "on" if command[-1] == "1" else "off")


@pytest.fixture
def nexa_env(build, rtfd, users, tmp_path):
    need("rtl_433")
    d = start_with_policy(rtfd, tmp_path, GLOBAL, POLICY)
    made = []

    def start(args=()):
        n = Nexa(build, d, users["carol"], args)
        made.append(n)
        return n
    yield d, start
    for n in made:
        n.cleanup()


def start_load(kind):
    if kind == "idle":
        return None
    need("stress-ng")
    args = {"cpu": ["--cpu", "2", "--cpu-method", "matrixprod"], "net": ["--sock", "2", "--sock-port", "23451"]}[kind]
    return subprocess.Popen(["stress-ng", *args, "--timeout", "60s", "--quiet"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def stop_load(p):
    if p:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=TIMEOUT)


COMMANDS = ["d21", "d20", "a11", "p160", "j101", "c71"]


@pytest.mark.parametrize("load", ["idle", "cpu", "net"])
def test_rtl_433_decodes_every_command(nexa_env, load):
    d, start = nexa_env
    p = start_load(load)
    try:
        n = start(["--latency-us", "35000"])
        # The paper's priorities, admitted for carol under her policy.
        tasks = d.tasks()
        assert sorted(t["requested_priority"] for t in tasks) == [60, 80, 99] or \
            sorted(t["requested_priority"] for t in tasks) == [80, 99], tasks
        assert {t["uid"] for t in tasks} == {n.account.uid}
        n.send(COMMANDS[0], "x99", *COMMANDS[1:])
        n.wait_log("sent ", count=len(COMMANDS), timeout=60)
        report = n.stop()
    finally:
        stop_load(p)
    assert any("ignored bad command 'x99'" in line for line in n.log), n.log
    t = report["transmitter"]
    assert (t["commands_read"], t["commands_bad"], t["transmissions"]) == (len(COMMANDS), 1, len(COMMANDS))
    assert t["edges"] == len(COMMANDS) * 4 * 50 and t["edges_dropped"] == 0
    assert report["latency"]["overruns"] <= 1, report["latency"]     # 35 ms: only a VM stall that long
    for path in (n.ook, n.iq):
        decoded = rtl_433(path)
        for c in COMMANDS:
            got = decoded.count(expected(c))
            assert got >= 1, f"{c} not decoded from {path} under {load} load: {decoded}, {t['edge_error']}"
        # normally all four repeats; at least three of four overall
        assert len(decoded) >= 3 * len(COMMANDS), decoded
        # No checksum in this protocol: a repeat whose edge came late enough decodes as another
        # code (a real socket would switch).  Only a late edge in the recording may explain one.
        wrong = set(decoded) - {expected(c) for c in COMMANDS}
        if wrong:
            assert t["edge_error"]["max_ns"] > 300_000, (wrong, t["edge_error"])
            assert len(wrong) < len(COMMANDS), decoded


def test_dial_to_transmitter_through_cat_loses_nothing(nexa_env):
    d, start = nexa_env
    n = start(["--dial-sim", "421420", "--dials", "2", "--latency-us", "35000"])
    cat = n.as_user("exec cat rtp2 > rtp1")
    try:
        # two decoders in the one loop, each dialled 421 then 420: four commands
        n.wait_log("sent ", count=4, timeout=30)
        report = n.stop()
    finally:
        cat.kill()
        cat.wait()
    dial = report["dial"]
    assert (dial["commands"], dial["commands_written"], dial["commands_pipe_full"]) == (4, 4, 0), dial
    # A release the task could not serve is counted as an overrun, never lost silently.  This
    # shared VM stalls for 5-25 ms now and then (docs/NEXA.md, Table 2: cyclictest sees the same
    # stalls), which a 10 ms task cannot ride out: a few are tolerated, and the decoder misses
    # nothing because of them (all four commands above).
    assert dial["overruns"] <= 3, dial
    # every 10 ms release between the first and the last one served is counted, none missed
    assert abs(dial["releases"] - 1 - dial["span_ns"] / 10e6) < 0.5, dial
    assert dial["span_ns"] > report["duration_ns"] - 1e9, (dial, report["duration_ns"])  # served all the run
    lat = report["latency"]
    assert lat["overruns"] <= 1 and abs(lat["releases"] - 1 - lat["span_ns"] / 35e6) < 0.5, lat
    assert report["transmitter"]["transmissions"] == 4
    decoded = rtl_433(n.ook)
    on, off = ("D", 2, "on"), ("D", 2, "off")
    assert decoded.count(on) >= 2 and decoded.count(off) >= 2, decoded
    assert decoded.index(on) < decoded.index(off)


def test_ncat_makes_the_transmitter_a_network_service(nexa_env):
    need("ncat")
    d, start = nexa_env
    n = start()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    server = n.as_user(f"exec ncat -l 127.0.0.1 {port} -k > rtp1")
    try:
        def send():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as c:
                    c.sendall(b"b31\n")
                return True
            except OSError:
                return False
        wait_for(send, what="ncat listening")
        n.wait_log("sent b31")
        report = n.stop()
    finally:
        server.kill()
        server.wait()
    t = report["transmitter"]
    assert (t["commands_read"], t["transmissions"], t["edges_dropped"]) == (1, 1, 0), t
    # What came over the network went on the air.  A host stall in the middle of
    # this one transmission can spoil all four repeats (seen once, under ASan):
    # only an edge the recording shows more than 300 us late may explain that.
    decoded = rtl_433(n.ook)
    if ("B", 3, "on") not in decoded:
        assert t["edge_error"]["max_ns"] > 300_000, (decoded, t["edge_error"])


def test_daemon_detaches_writes_its_pid_and_completes_the_recording_on_sigterm(build, rtfd, users, tmp_path):
    need("rtl_433")
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, GLOBAL, POLICY)
    exe = os.path.join(build.path, "apps", "rtf-nexa", "rtf-nexa")
    work = tempfile.mkdtemp(prefix="rtf-nexa-")
    os.chown(work, carol.uid, carol.gid)
    pid_file, ook = os.path.join(work, "nexa.pid"), os.path.join(work, "tx.ook")
    try:
        r = subprocess.run(carol.setpriv() + [exe, "--daemon", "--pid-file", pid_file, "--pipe-dir", work,
                                              "--record", ook], env=dict(os.environ, RTF_SOCKET=d.socket),
                           timeout=TIMEOUT)
        assert r.returncode == 0
        pid = int(wait_for(lambda: os.path.exists(pid_file) and open(pid_file).read().strip(), what="pid file"))
        wait_for(lambda: len(d.tasks()) == 1, what="the driver task")
        with open(os.path.join(work, "rtp1"), "w") as f:
            f.write("e41\n")
        assert os.path.exists(f"/proc/{pid}") and [t["uid"] for t in d.tasks()] == [carol.uid]
        time.sleep(0.5)         # the transmission takes 0.2 s; SIGTERM would let it finish anyway
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not os.path.exists(f"/proc/{pid}"), what="the daemon to end")
        assert not os.path.exists(pid_file)
        assert rtl_433(ook).count(("E", 4, "on")) >= 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_refused_by_the_policy_says_why(build, rtfd, users, tmp_path):
    d = start_with_policy(rtfd, tmp_path, GLOBAL, "rtf-carol FP max_priority 70\n")
    exe = os.path.join(build.path, "apps", "rtf-nexa", "rtf-nexa")
    work = tempfile.mkdtemp(prefix="rtf-nexa-")
    os.chown(work, users["carol"].uid, users["carol"].gid)
    try:
        r = subprocess.run(users["carol"].setpriv() + [exe, "--pipe-dir", work, "--latency-us", "360"],
                           env=dict(os.environ, RTF_SOCKET=d.socket), capture_output=True, text=True,
                           timeout=TIMEOUT)
        assert r.returncode == 1
        assert "cannot start the real-time tasks" in r.stderr and "max_priority" in r.stderr, r.stderr
        assert os.listdir(work) == []          # its pipes are gone again
        assert d.tasks() == []
    finally:
        shutil.rmtree(work, ignore_errors=True)
