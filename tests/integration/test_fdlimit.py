# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfd at its file-descriptor limit (issue 10, point 5): it neither spins
nor floods its log, and it serves again once descriptors are free.

The limit is lowered on the running rtfd with prlimit(1) (its hard limit
too, so it cannot raise it back), then more connections are opened than it
has descriptors for.  Fails on main (9e4110f): accept4() fails with EMFILE,
the listening socket stays readable, and rtfd burns a CPU writing a warning
per attempt."""
import os
import socket
import subprocess
import time

import pytest

from rtfit import TIMEOUT, wait_for

LIMIT = 48
CONNECTIONS = 80


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")     # utime + stime


def test_rtfd_at_its_descriptor_limit_does_not_spin_and_recovers(rtfd):
    if subprocess.run(["prlimit", "--version"], capture_output=True).returncode != 0:
        pytest.skip("prlimit (util-linux) is not installed")
    d = rtfd("FP FP.so 1-99 all\n")
    pid = d.proc.pid
    subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={LIMIT}:{LIMIT}"], check=True)
    socks = []
    try:
        for _ in range(CONNECTIONS):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.settimeout(TIMEOUT)
            s.connect(d.socket)     # queued in the backlog when rtfd cannot accept
            socks.append(s)
        wait_for(lambda: "Cannot accept connections" in d.log() or "accept failed" in d.log(),
                 what=f"rtfd to notice EMFILE; {d.log().count('Connection from')} connections; {open(f'/proc/{pid}/limits').read()}")
        before = cpu_seconds(pid)
        time.sleep(2)
        used = cpu_seconds(pid) - before
        assert used < 0.5, f"rtfd used {used:.2f} s of CPU in 2 s at its descriptor limit"
        log = d.log()
        assert log.count("Cannot accept connections") == 1, log[-2000:]
        assert "accept failed" not in log
    finally:
        for s in socks:
            s.close()
    # The connections gone, descriptors are free again (under the same
    # limit): a new client is served.
    status = wait_for(lambda: d.ctl("status", check=False), what="rtfd to serve again")
    assert "cores" in status
    assert d.running()
    assert "File descriptor limit" in d.log()      # what it derived at start
