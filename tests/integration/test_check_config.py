# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfd --check-config runs what a start runs, and agrees with it: the same
refusals with FILE:LINE (plugin options and priority ranges are checked by
the plugins' own init), the same overlap warnings, the policy file too.
The shipped rtfd.conf starts exactly like the built-in default, without
warnings; a non-root rtfd names the lock file, not the configuration."""
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

import kernel
from rtfit import TIMEOUT, write_root_file
from users import users  # noqa: F401 (a fixture)

SHIPPED = os.path.join(os.path.dirname(__file__), "..", "..", "data", "conf", "rtfd.conf")


def check(build, *args):
    return subprocess.run([build.rtfd, "--plugindir", build.plugindir, "--check-config", *args],
                          capture_output=True, text=True, timeout=TIMEOUT)


def empty_acl(tmp_path):
    acl = str(tmp_path / "acl.conf")
    write_root_file(acl, "")
    return acl


@pytest.mark.parametrize("line, why", [
    ("EDF EDF.so 100-100 1 util=1.5", "util=1.5"),
    ("EDF EDF.so 100-100 1 util=abc", "util=abc"),
    ("EDF EDF.so 100-100 1 utl=0.9", "unknown option 'utl'"),
    ("RM RM.so 1-200 1", "1-200"),
])
def test_check_config_and_start_refuse_alike(rtfd, build, tmp_path, line, why):
    os.chmod(tmp_path, 0o755)
    conf = str(tmp_path / "bad.conf")
    write_root_file(conf, f"FP FP.so 1-89 0\n{line}\n")
    r = check(build, "--config", conf, "--acl", empty_acl(tmp_path))
    assert r.returncode != 0, r.stdout + r.stderr
    assert f"{conf}:2" in r.stderr and why in r.stderr, r.stderr
    assert "OK" not in r.stdout

    d = rtfd(f"FP FP.so 1-89 0\n{line}\n", wait=False)
    assert d.wait_exit() != 0, d.log()
    assert f"{d.config}:2" in d.log() and why in d.log(), d.log()
    # Checking never partitions anything.
    assert kernel.rtf_cpusets() == []


def test_check_config_shows_the_overlap_warnings_of_a_start(rtfd, build, tmp_path):
    os.chmod(tmp_path, 0o755)
    text = "FP FP.so 1-89 all\nRR RR.so 1-89 0\n"
    conf = str(tmp_path / "overlap.conf")
    write_root_file(conf, text)
    r = check(build, "--config", conf, "--acl", empty_acl(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "share CPU 0" in r.stderr, r.stderr
    d = rtfd(text)
    assert "share CPU 0" in d.log()


def test_check_config_checks_the_policy_file(rtfd, build, tmp_path):
    os.chmod(tmp_path, 0o755)
    acl = str(tmp_path / "acl.conf")
    write_root_file(acl, "garbage line\n")
    r = check(build, "--default-config", "--acl", acl)
    assert r.returncode != 0, r.stdout
    assert "acl.conf:1" in r.stderr, r.stderr
    d = rtfd("FP FP.so 1-89 all\n", args=("--acl", acl), wait=False)
    assert d.wait_exit() != 0
    assert "acl.conf:1" in d.log(), d.log()


def plugin_lines(text):
    return [line.split("]: ", 1)[1] for line in text.splitlines() if re.search(r"\]: Plugin \w+ \(", line)]


def test_shipped_config_starts_like_the_builtin_default(rtfd, build, tmp_path):
    acl = empty_acl(tmp_path)
    shipped = check(build, "-v", "--config", SHIPPED, "--acl", acl)
    builtin = check(build, "-v", "--default-config", "--acl", acl)
    assert shipped.returncode == 0 and builtin.returncode == 0, shipped.stderr + builtin.stderr
    assert plugin_lines(shipped.stderr) == plugin_lines(builtin.stderr) != []
    for r in (shipped, builtin):
        assert "warning" not in r.stderr, r.stderr
    # And a real start with the file: the plugin set of the default, no warning.
    with open(SHIPPED) as f:
        d = rtfd(f.read())
    assert plugin_lines(d.log()) == plugin_lines(builtin.stderr)
    assert "warning" not in d.log(), d.log()


def test_non_root_start_blames_the_lock_file(build, users):
    """Everything else a user could reach (socket, state file) is in a
    directory of the user's; the cpuset lock in /run is root's.  (Under
    /run, not tmp_path: carol must reach her directory through directories
    rtfd trusts, and /tmp/pytest-of-root is root's 0700.)"""
    if not os.path.exists(os.path.join(kernel.CPUSET_ROOT, "cpuset.cpus")):
        pytest.skip(f"no cpuset hierarchy at {kernel.CPUSET_ROOT}: rtfd would not open the lock file")
    carol = users["carol"]
    base = tempfile.mkdtemp(prefix="rtf-it-", dir="/run")
    os.chmod(base, 0o755)
    work = pathlib.Path(base) / "carol"
    work.mkdir()
    os.chown(work, carol.uid, carol.gid)
    acl = empty_acl(pathlib.Path(base))
    try:
        r = subprocess.run(carol.setpriv() + [build.rtfd, "--plugindir", build.plugindir, "--default-config",
                                              "--acl", acl, "--socket", str(work / "rtfd.sock"),
                                              "--foreground"],
                           capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert r.returncode != 0, r.stderr
    assert "/run/rtf-cpusets.lock" in r.stderr and "Permission denied" in r.stderr, r.stderr
    assert "run rtfd as root" in r.stderr, r.stderr
    assert "configuration" not in r.stderr.splitlines()[-1], r.stderr
