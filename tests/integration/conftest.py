# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures of the integration tests: the just-built rtfd, run as root in a
private directory, and clients that drive it through librtf.

    RTF_BUILD_DIR=$PWD/build python3 -m pytest tests/integration -q

Without RTF_BUILD_DIR the newest build*/ directory of the source tree is
used.  Every test checks what the kernel really does (sched_getattr,
affinity, cpusets), never how long something took; where the daemon acts
asynchronously (a thread exit, SIGHUP, the watchdog) a test polls for the
state it expects, with a generous limit.
"""
import os
import shutil
import tempfile
import time

import pytest

import kernel
from rtfit import Build, Daemon, compile_testclient, find_build_dir


@pytest.fixture(scope="session")
def build():
    path = find_build_dir()
    if not path:
        pytest.skip("no build directory with src/daemon/rtfd (set RTF_BUILD_DIR)")
    b = Build(path)
    for f in (b.rtfd, b.rtfctl):
        if not os.access(f, os.X_OK):
            pytest.skip(f"{f} is not built")
    client_dir = None
    if not os.access(b.testclient, os.X_OK):
        # tests/meson.build lacks subdir('integration'): build it here.
        client_dir = tempfile.mkdtemp(prefix="rtf-it-client-")
        b.testclient = compile_testclient(b, client_dir)
    opened = open_path_for_others(b.path)
    yield b
    for path, mode in reversed(opened):
        os.chmod(path, mode)
    if client_dir:
        shutil.rmtree(client_dir, ignore_errors=True)


def open_path_for_others(path):
    """The tests run clients as unprivileged users, which must reach the build
    (a fresh clone may sit in a 0700 directory).  Give every ancestor the
    search (x) bit for others for the session; returns what to restore."""
    opened = []
    if os.geteuid() != 0:
        return opened
    path = os.path.abspath(path)
    while True:
        mode = os.stat(path).st_mode & 0o7777
        if not mode & 0o001:
            os.chmod(path, mode | 0o001)
            opened.append((path, mode))
        if path == "/":
            return opened
        path = os.path.dirname(path)


# ---- skipping ------------------------------------------------------------------

def pytest_configure(config):
    config.addinivalue_line("markers", "deadline: needs SCHED_DEADLINE")
    config.addinivalue_line("markers", "cpuset: needs cgroup-v1 cpusets at " + kernel.CPUSET_ROOT)


_dl_state = None


def pytest_collection_modifyitems(config, items):
    global _dl_state
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason="integration tests run the real rtfd and need root")
        for item in items:
            item.add_marker(skip)
        return
    if _dl_state is None:
        _dl_state = kernel.deadline_available()
    ok, why = _dl_state
    has_cpuset = os.path.exists(os.path.join(kernel.CPUSET_ROOT, "cpuset.cpus"))
    for item in items:
        if "deadline" in item.keywords and not ok:
            item.add_marker(pytest.mark.skip(reason=why))
        if "cpuset" in item.keywords and not has_cpuset:
            item.add_marker(pytest.mark.skip(reason=f"no cgroup-v1 cpuset hierarchy at {kernel.CPUSET_ROOT}"))
        if "cpuset" in item.keywords and os.cpu_count() < 2:
            item.add_marker(pytest.mark.skip(reason="partitions need at least 2 CPUs"))


@pytest.fixture(scope="session", autouse=True)
def kernel_bandwidth_returned():
    """Demoting a sleeping SCHED_DEADLINE thread leaks its bandwidth in the
    kernel (PLATFORM.md), and tests do that on purpose or in passing: give
    it all back when the session ends, as rtfd would on its next EBUSY."""
    yield
    if os.path.exists(os.path.join(kernel.CPUSET_ROOT, "cpuset.sched_load_balance")) and not kernel.rtf_cpusets():
        kernel.rebuild_root_domains()


@pytest.fixture
def rtfd(build, request):
    """A factory: rtfd(config_text, args=(), env=None) starts a private rtfd.

    At teardown it kills the clients, stops rtfd with SIGTERM and checks that
    it exited 0, that no rtf-* cpuset is left and that the root cpuset's
    sched_load_balance is what it was before."""
    daemons = []
    has_cpuset = os.path.exists(os.path.join(kernel.CPUSET_ROOT, "cpuset.sched_load_balance"))
    balance_before = kernel.read_root_load_balance() if has_cpuset else None
    assert not kernel.rtf_cpusets(), \
        f"cpusets {kernel.rtf_cpusets()} exist: is another rtfd running? (the tests need the machine alone)"

    def start(config_text=None, args=(), env=None, wait=True, config_mode=0o644):
        # /run, not /tmp: rtfd trusts its state journal beside the socket only in a
        # directory chain that root owns and nobody else can write (issue 10).
        d = Daemon(build, tempfile.mkdtemp(prefix="rtf-it-", dir="/run"))
        os.chmod(d.dir, 0o755)      # other users reach the socket (ACL tests)
        daemons.append(d)
        return d.start(config_text, args=args, env=env, wait=wait, config_mode=config_mode)

    yield start

    errors = []
    for d in daemons:
        errors += d.shutdown()
    left = kernel.rtf_cpusets()
    if left:
        errors.append(f"cpusets left behind: {left}")
        for name in left:        # leave the machine usable for the next test
            _remove_cpuset(name)
    if has_cpuset and kernel.read_root_load_balance() != balance_before:
        errors.append(f"root cpuset.sched_load_balance is {kernel.read_root_load_balance()}, "
                      f"was {balance_before}")
        kernel.write_root_load_balance(balance_before)
    for d in daemons:
        if errors or getattr(request.node, "rtf_failed", False):
            print(f"--- log of rtfd in {d.dir}:\n{d.log()}")
        shutil.rmtree(d.dir, ignore_errors=True)
    assert not errors, "\n".join(errors)


def _remove_cpuset(name):
    d = os.path.join(kernel.CPUSET_ROOT, name)
    for _ in range(50):
        try:
            with open(os.path.join(d, "tasks")) as f:
                tids = f.read().split()
        except OSError:
            return
        for t in tids:
            try:
                with open(os.path.join(kernel.CPUSET_ROOT, "tasks"), "w") as f:
                    f.write(t)
            except OSError:
                pass
        try:
            os.rmdir(d)
            return
        except OSError:
            time.sleep(0.02)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" and rep.failed:
        item.rtf_failed = True


