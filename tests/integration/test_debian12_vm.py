# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtf on a stock Debian 12 kernel, for real: tests/vm/run-debian12 boots
Debian 12's own kernel package (linux-image-6.1.0-NN-amd64-unsigned, fetched
with apt-get download and cached, never installed) in QEMU (TCG, 2 CPUs) on an
initramfs with the stock cgroup layout (cgroup2 alone, cpuset on the unified
hierarchy), runs tests/vm/scenario.sh there and prints one line per check.
Each check is asserted here, on 6.1 (no cpuset.cpus.exclusive, no
PIDFD_THREAD: rtfd's flat partition layout and its thread fallback) and on
the 6.12 kernel Debian 12 also ships (remote partitions below /rtf, as on
newer kernels).  It touches none of this machine's kernel state,
so it needs no kernel lock.  Skipped only when the tools or the kernel package
cannot be had (the reason is what run-debian12 said)."""
import os
import re
import subprocess

import pytest

from rtfit import SRC_DIR

RUN = os.path.join(SRC_DIR, "tests", "vm", "run-debian12")

# What tests/vm/scenario.sh checks, in its order.
CHECKS = [
    "rtfd_started", "log_says_cgroup_v2", "partition_exists", "partition_is_root", "partition_cpu",
    "client_connected", "edf_admitted", "edf_attached", "edf_sched_deadline", "edf_pinned",
    "edf_in_partition", "edf_partition_still_root", "edf_process_not_pinned",
    "rm_admitted", "rm_attached", "rm_sched_fifo", "rm_pinned", "exited_thread_let_go",
    "rtfd_stopped", "partitions_gone", "edf_demoted", "rm_demoted",
    "thread_back_in_origin", "process_back_in_origin", "subtree_restored",
    "crash_setup", "crash_left_partition", "crash_recovered_demoted", "crash_recovered_partition",
    "crash_final_stop", "no_sanitizer_reports",
]


# kernel series -> (run-debian12 options, `uname -r`, the partition rtfd makes)
KERNELS = {
    "6.1": ([], r"6\.1\.0-\d+-amd64", "/sys/fs/cgroup/rtf-cpu1"),
    "6.12": (["--series", "6.12"], r"6\.12\.\d+\+deb12-amd64", "/sys/fs/cgroup/rtf/cpu1"),
}


@pytest.fixture(scope="module", params=sorted(KERNELS))
def vm(request, build):
    options, release, partition = KERNELS[request.param]
    r = subprocess.run([RUN, *options, build.path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=400)
    if r.returncode == 77:
        pytest.skip(r.stderr.strip().splitlines()[-1])
    checks = {m.group(1): (m.group(2), m.group(3))
              for m in re.finditer(r"^RTFVM CHECK (\S+) (PASS|FAIL) ?(.*)$", r.stdout, re.M)}
    return r, checks, release, partition


def test_the_scenario_ran_on_debian12s_kernel(vm):
    r, checks, release, partition = vm
    assert "RTFVM DONE" in r.stdout, r.stdout[-4000:] + r.stderr
    m = re.search(r"^RTFVM KERNEL (\S+)", r.stdout, re.M)
    assert m and re.fullmatch(release, m.group(1)), r.stdout[-4000:]
    assert sorted(checks) == sorted(CHECKS), r.stdout[-4000:]
    # the layout the running kernel supports
    assert checks["partition_exists"][1] == partition, r.stdout[-4000:]


@pytest.mark.parametrize("name", CHECKS)
def test_check(vm, name):
    r, checks = vm[:2]
    result, detail = checks.get(name, ("missing", ""))
    assert result == "PASS", f"{name}: {result} {detail}\n" + "\n".join(
        line for line in r.stdout.splitlines() if line.startswith("RTFVM"))
