# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfd started by systemd, as installed: tests/vm/run-debian12 --systemd boots
Debian 12's 6.12 kernel (cgroup v2 only) in QEMU with this machine's Debian 12
systemd as PID 1 (its binaries and libraries in the initramfs), rtf installed
from the build directory with meson install --destdir, and a oneshot unit that
runs tests/vm/scenario-systemd.sh: `systemctl start rtfd` (rtfd.service with
Delegate=cpuset, socket-activated), the partition below
/sys/fs/cgroup/system.slice/rtfd.service/rtf, an unprivileged client's
SCHED_DEADLINE thread in it, what `systemctl status` and `systemd-cgls` show,
and `systemctl stop rtfd` putting everything back; then rtfd killed with
SIGKILL while the thread is in its partition: systemd cannot start it again
until rtfd-recover.service (OnFailure=) has moved the client's process out of
rtfd.service/rtf, and the next rtfd demotes the thread.  It touches none of this
machine's kernel state, so it needs no kernel lock.  Skipped only when a tool
or the kernel package cannot be had (the reason is what run-debian12 said)."""
import os
import re
import subprocess

import pytest

from rtfit import SRC_DIR

RUN = os.path.join(SRC_DIR, "tests", "vm", "run-debian12")

# What tests/vm/scenario-systemd.sh checks, in its order.
CHECKS = [
    "pid1_is_systemd", "cgroup_v2_only", "rtfd_active", "rtfd_in_its_unit", "unit_delegates_cpuset",
    "socket_activated", "partition_below_unit", "partition_is_root", "partition_cpu",
    "slice_hands_down_cpu", "nothing_at_the_top",
    "client_connected", "edf_admitted", "edf_attached", "edf_sched_deadline", "edf_pinned",
    "edf_in_partition", "edf_process_in_unit", "status_shows_client", "cgls_shows_partition",
    "rtfd_inactive", "partitions_gone", "unit_cgroup_removed", "client_survived", "edf_demoted",
    "process_back_in_origin", "exclusive_cleared",
    "crash_setup", "crash_restarted", "crash_recovered_demoted", "crash_recovered_partition", "crash_final_stop",
    "no_sanitizer_reports",
]


@pytest.fixture(scope="module")
def vm(build):
    r = subprocess.run([RUN, "--series", "6.12", "--systemd", build.path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=400)
    if r.returncode == 77:
        pytest.skip(r.stderr.strip().splitlines()[-1])
    checks = {m.group(1): (m.group(2), m.group(3))
              for m in re.finditer(r"^RTFVM CHECK (\S+) (PASS|FAIL) ?(.*)$", r.stdout, re.M)}
    return r, checks


def test_the_scenario_ran_under_systemd(vm):
    r, checks = vm
    assert "RTFVM DONE" in r.stdout, r.stdout[-4000:] + r.stderr
    assert re.search(r"^RTFVM KERNEL 6\.12\.\d+\+deb12-amd64 ", r.stdout, re.M), r.stdout[-4000:]
    assert re.search(r"^RTFVM SYSTEMD systemd \d+", r.stdout, re.M), r.stdout[-4000:]
    assert sorted(checks) == sorted(CHECKS), r.stdout[-4000:]
    # rtfd's own output goes to the console (no journald): an ASan+UBSan build reports there
    m = re.search(r"^.*(ERROR: (Address|Leak)Sanitizer|runtime error:).*$", r.stdout, re.M)
    assert not m, r.stdout[m.start():m.start() + 4000] if m else ""
    # what the administrator sees: rtfd and the client's process below rtfd.service
    status = [line for line in r.stdout.splitlines() if line.startswith("RTFVM status: ")]
    assert any("CGroup: /system.slice/rtfd.service" in line for line in status), "\n".join(status)
    assert any("/rtfd --foreground" in line for line in status), "\n".join(status)


@pytest.mark.parametrize("name", CHECKS)
def test_check(vm, name):
    r, checks = vm
    result, detail = checks.get(name, ("missing", ""))
    assert result == "PASS", f"{name}: {result} {detail}\n" + "\n".join(
        line for line in r.stdout.splitlines() if line.startswith("RTFVM"))
