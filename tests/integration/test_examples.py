# SPDX-License-Identifier: LGPL-2.1-or-later
"""Listing 1 of the ReTiF paper, as built in examples/, against a real rtfd."""
import os
import subprocess

import pytest

from rtfit import GLOBAL, PARTITIONED


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
