# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfd's configuration: reload on SIGHUP (atomic), refusal of a broken or
unsafe file at start, overlap warnings, the built-in default, --check-config,
and plugin file security."""
import os
import shutil
import subprocess
import tempfile

import pytest

import kernel
from rtfit import TIMEOUT, write_root_file

FP_ONLY = "FP FP.so 1-99 all\n"


def plugins(d):
    return sorted({c["plugin"] for c in d.cores()})


def test_sighup_with_a_good_config_switches_atomically(rtfd):
    d = rtfd(FP_ONLY)
    assert plugins(d) == ["FP"]
    c = d.client()
    tid = c.thread("t")
    assert c.create("s", priority=10)["result"] == 0
    assert c.attach("s", "thread:t")["result"] == 0

    log = d.reload(FP_ONLY + "RR RR.so 1-99 all\n")
    assert "reloaded" in log, log
    assert plugins(d) == ["FP", "RR"]
    # The live spec moved to the new FP instance; its thread kept its setting.
    assert c.create("r", priority=20, plugin="RR")["result"] == 0
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 10)
    assert [t["tid"] for t in d.tasks() if t["plugin"] == "FP"] == [tid]
    # The new instance really holds it: it can be changed and released there.
    assert c.change("s", priority=12)["result"] == 0
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 12)
    assert c.release("s")["result"] == 0
    assert kernel.sched_getattr(tid).sched_policy == kernel.SCHED_OTHER
    assert [t for t in d.tasks() if t["plugin"] == "FP"] == []


@pytest.mark.parametrize("broken, line", [
    ("FP FP.so 1-99 all\nthis is not a plugin line\n", 2),
    ("FP FP.so 1-99 all\nRR RR.so 99-1 all\n", 2),
    ("# comment\n\nFP FP.so 1-99 all\nRR RR.so 1-99 17\n", 4),
])
def test_sighup_with_a_broken_config_keeps_the_old_one(rtfd, broken, line):
    d = rtfd(FP_ONLY + "RR RR.so 1-99 all\n")
    c = d.client()
    assert c.create("s", priority=10)["result"] == 0
    status_before = d.cores()

    log = d.reload(broken)
    assert "Reload failed" in log, log
    assert f"{d.config}:{line}" in log, log
    assert d.running()
    assert d.cores() == status_before
    # Still serving: old and new requests.
    assert c.create("s2", priority=11, plugin="RR")["result"] == 0
    assert c.release("s")["result"] == 0


def test_sighup_that_drops_a_plugin_in_use_is_refused(rtfd):
    d = rtfd(FP_ONLY + "RR RR.so 1-99 all\n")
    c = d.client()
    assert c.create("r", priority=10, plugin="RR")["result"] == 0
    log = d.reload(FP_ONLY)
    assert "Reload failed" in log, log
    assert plugins(d) == ["FP", "RR"]


def run_rtfd_expect_failure(rtfd, config_text, args=()):
    d = rtfd(config_text, args=args, wait=False)
    rc = d.wait_exit()
    assert rc != 0, d.log()
    assert not os.path.exists(d.socket)
    return d


@pytest.mark.parametrize("broken, line", [
    ("FP FP.so 1-99 all\nFP FP.so 1-99 all\n", 2),      # a name twice
    ("FP FP.so 1-99\n", 1),                             # no core list
    ("FP FP.so 1-99 all\nRR RR.so 1-99 0-99999\n", 2),  # CPUs that do not exist
    ("set no_such_option 1\nFP FP.so 1-99 all\n", 1),
    ("FP FP.so 1-99 all\n\nset max_specs -3\n", 3),
])
def test_broken_config_at_start_is_refused_with_file_and_line(rtfd, broken, line):
    d = run_rtfd_expect_failure(rtfd, broken)
    assert f"{d.config}:{line}" in d.log(), d.log()
    assert kernel.rtf_cpusets() == []


def test_config_file_writable_by_others_is_refused(rtfd):
    d = rtfd(FP_ONLY, config_mode=0o666, wait=False)
    assert d.wait_exit() != 0
    assert "writable" in d.log(), d.log()


def test_overlapping_core_sets_are_warned_about(rtfd):
    d = rtfd("FP FP.so 1-99 0-1\nRR RR.so 1-99 1\n")
    log = d.log()
    assert "warning" in log and "share CPU 1" in log, log
    assert plugins(d) == ["FP", "RR"]


def test_default_config_has_all_plugins_on_all_cpus(rtfd):
    d = rtfd(None, args=("--default-config",))
    cores = d.cores()
    names = {c["plugin"] for c in cores}
    assert names == {"EDF", "RM", "FP", "RR"}, cores
    for n in names:
        assert {c["cpu"] for c in cores if c["plugin"] == n} == kernel.ALL_CPUS, n
    assert not any(c["partitioned"] for c in cores)
    assert kernel.rtf_cpusets() == [], "the default runs EDF in global mode"


def test_check_config(build, tmp_path):
    os.chmod(tmp_path, 0o755)
    good, bad = str(tmp_path / "good.conf"), str(tmp_path / "bad.conf")
    write_root_file(good, "EDF EDF.so 100-100 1\nFP FP.so 1-99 0\n")
    write_root_file(bad, "FP FP.so 1-99 all\nRR RR.so 1-99 all\nbogus\n")

    def check(*args):
        return subprocess.run([build.rtfd, "--plugindir", build.plugindir, "--check-config", *args],
                              capture_output=True, text=True, timeout=TIMEOUT)

    r = check("--config", good)
    assert r.returncode == 0, r.stderr
    assert "OK" in r.stdout
    r = check("--default-config")
    assert r.returncode == 0, r.stderr
    r = check("--config", bad)
    assert r.returncode != 0
    assert f"{bad}:3" in r.stderr, r.stderr
    # Checking never partitions anything.
    assert kernel.rtf_cpusets() == []


def test_world_writable_plugin_is_refused(rtfd, build):
    plugdir = tempfile.mkdtemp(prefix="rtf-it-plugin-")
    try:
        os.chmod(plugdir, 0o755)
        copy = os.path.join(plugdir, "FP.so")
        shutil.copy(build.plugin("FP"), copy)
        os.chmod(copy, 0o755)
        # The copy itself loads: the refusal below is about its mode only.
        d = rtfd(f"FP {copy} 1-99 all\n")
        assert plugins(d) == ["FP"]
        assert d.stop() == 0

        os.chmod(copy, 0o777)
        d = run_rtfd_expect_failure(rtfd, f"FP {copy} 1-99 all\n")
        assert copy in d.log() and "writable" in d.log(), d.log()
        r = subprocess.run([build.rtfd, "--config", d.config, "--check-config"], capture_output=True,
                           text=True, timeout=TIMEOUT)
        assert r.returncode != 0 and "writable" in r.stderr

        # Nor may a reload bring it in.
        os.chmod(copy, 0o755)
        d = rtfd(f"FP {copy} 1-99 all\n")
        os.chmod(copy, 0o757)
        log = d.reload(f"FP {copy} 1-99 all\nRR RR.so 1-99 all\n")
        assert "Reload failed" in log and "writable" in log, log
        assert plugins(d) == ["FP"]
    finally:
        shutil.rmtree(plugdir, ignore_errors=True)
