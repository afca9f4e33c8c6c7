# SPDX-License-Identifier: LGPL-2.1-or-later
"""Listing 1 of the ReTiF paper, as built in examples/, against a real rtfd."""
import os
import subprocess

import pytest

from rtfit import GLOBAL, PARTITIONED, SRC_DIR


@pytest.mark.deadline
@pytest.mark.parametrize("config", [
    pytest.param(PARTITIONED, marks=pytest.mark.cpuset, id="partitioned"),
    pytest.param(GLOBAL, id="global"),
    pytest.param(None, id="default-config"),
])
def test_listing1_runs(rtfd, build, config):
    if not os.access(build.listing1, os.X_OK):
        pytest.skip(f"{build.listing1} is not built")
    d = rtfd(config, args=() if config else ("--default-config",))
    # Listing 1 does not ask for the overrun signal, so it runs with SIGXCPU's
    # default action (which ends the process) and must still run to the end.
    r = subprocess.run([build.listing1, "20"], env=dict(os.environ, RTF_SOCKET=d.socket),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr + d.log()
    assert "granted:" in r.stdout and "plugin EDF" in r.stdout, r.stdout
    # It released its spec before exiting.
    assert d.tasks() == []


@pytest.mark.deadline
def test_demo_shows_an_unprivileged_user_under_a_policy(build):
    """scripts/demo.sh, the README's first command, on the tests' build: the
    task of rtf-demo (a user without privileges) runs under SCHED_DEADLINE
    as the kernel reports it, and a second one beyond the policy is refused."""
    demo = os.path.join(SRC_DIR, "scripts", "demo.sh")
    r = subprocess.run(["bash", demo], env=dict(os.environ, BUILD_DIR=os.path.abspath(build.path)),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    uid = subprocess.run(["id", "-u", "rtf-demo"], capture_output=True, text=True, check=True).stdout.strip()
    assert uid != "0"
    out = r.stdout
    assert "current scheduling policy: SCHED_DEADLINE|SCHED_RESET_ON_FORK" in out, out
    assert "runtime/deadline/period parameters: 2000000/10000000/10000000" in out, out
    assert "granted:   plugin EDF" in out and "ran:       100 jobs" in out, out
    assert "max_utilization 0.25 (acl.conf:1)" in out and f"audit: uid {uid}" in out, out
