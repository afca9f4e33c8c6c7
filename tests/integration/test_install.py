# SPDX-License-Identifier: LGPL-2.1-or-later
"""`meson install` puts everything in place, and Listing 1 of the paper builds
against the *installed* header and library (pkg-config rtf) and runs against
the *installed* rtfd and plugins."""
import glob
import os
import shutil
import socket
import subprocess
import tempfile

import pytest

from rtfit import SRC_DIR, TIMEOUT


@pytest.fixture(scope="module")
def installed(build):
    dest = tempfile.mkdtemp(prefix="rtf-it-install-")
    os.chmod(dest, 0o755)
    r = subprocess.run(["meson", "install", "-C", build.path, "--destdir", dest, "--no-rebuild", "--quiet"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        pytest.fail("meson install failed:\n" + r.stdout + r.stderr)
    yield dest
    shutil.rmtree(dest, ignore_errors=True)


def one(dest, pattern):
    found = glob.glob(os.path.join(dest, pattern.lstrip("/")), recursive=True)
    assert len(found) == 1, f"{pattern}: {found}"
    return found[0]


def test_install_layout(installed):
    for pattern in ("**/sbin/rtfd", "**/bin/rtfctl", "**/librtf.so.1", "**/include/rtf/rtf.h",
                    "**/include/rtf/rtf-plugin.h", "**/pkgconfig/rtf.pc", "**/rtf/plugins/EDF.so",
                    "**/rtf/plugins/RM.so", "**/rtf/plugins/FP.so", "**/rtf/plugins/RR.so",
                    "etc/rtf/rtfd.conf", "**/systemd/system/rtfd.service", "**/systemd/system/rtfd.socket"):
        one(installed, pattern)
    unit = open(one(installed, "**/systemd/system/rtfd.service")).read()
    assert "Type=notify" in unit and "/sbin/rtfd" in unit and "@" not in unit


@pytest.mark.deadline
def test_listing1_against_installed_header(installed, rtfd, tmp_path):
    pc = one(installed, "**/pkgconfig/rtf.pc")
    env = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=installed, PKG_CONFIG_LIBDIR=os.path.dirname(pc))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "rtf"], env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    assert any(f.startswith("-I" + installed) for f in flags), flags
    exe = str(tmp_path / "listing1")
    lib = one(installed, "**/librtf.so.1")
    # A sanitized librtf needs a sanitized program: the runtime must come first.
    if "libasan" in subprocess.run(["ldd", lib], capture_output=True, text=True).stdout:
        flags = ["-fsanitize=address,undefined"] + flags
    # Only the installed header: no -I into the source tree.
    r = subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", os.path.join(SRC_DIR, "examples",
                        "listing1.c"), "-o", exe] + flags, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    os.chmod(tmp_path, 0o755)

    # The installed daemon, loading the installed plugins.
    rtfd_bin = one(installed, "**/sbin/rtfd")
    plugindir = os.path.dirname(one(installed, "**/rtf/plugins/EDF.so"))
    sock = str(tmp_path / "rtfd.sock")
    log = open(tmp_path / "rtfd.log", "w+")
    daemon = subprocess.Popen([rtfd_bin, "--default-config", "--socket", sock, "--plugindir", plugindir,
                               "--foreground"], stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(int(TIMEOUT * 20)):
            if os.path.exists(sock):
                break
            daemon.poll()
            assert daemon.returncode is None, open(tmp_path / "rtfd.log").read()
            subprocess.run(["sleep", "0.05"])
        libdir = os.path.dirname(one(installed, "**/librtf.so.1"))
        r = subprocess.run([exe, "20"], env=dict(os.environ, RTF_SOCKET=sock, LD_LIBRARY_PATH=libdir),
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "granted:   plugin EDF" in r.stdout and "SCHED_DEADLINE" in r.stdout, r.stdout
    finally:
        daemon.terminate()
        assert daemon.wait(timeout=TIMEOUT) == 0
        log.close()


def test_sd_notify_ready(rtfd, tmp_path):
    """Under systemd (Type=notify) rtfd says READY=1 once it serves, and
    STOPPING=1 when it stops."""
    path = str(tmp_path / "notify")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(TIMEOUT)
    try:
        d = rtfd(None, args=("--default-config",), env={"NOTIFY_SOCKET": path})
        assert s.recv(256) == b"READY=1"
        # ready means serving: a request is answered now
        assert d.cores(), d.log()
        d.stop()
        assert s.recv(256) == b"STOPPING=1"
    finally:
        s.close()
