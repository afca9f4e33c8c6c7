# SPDX-License-Identifier: LGPL-2.1-or-later
"""`meson install` puts everything in place, and Listing 1 of the paper builds
against the *installed* header and library (pkg-config rtf) and runs against
the *installed* rtfd and plugins.  A real install into a temporary prefix
(its own `meson setup --prefix`, without the tests) is used as a new user
would: units, man pages and completion inside the prefix, the installed
tools run with an empty environment, and a program of one's own, compiled
with pkg-config and nothing else, runs as an unprivileged user against the
prefix's rtfd under a policy."""
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

from rtfit import SRC_DIR, TIMEOUT, write_root_file
from users import users  # noqa: F401 - a fixture

MAN_PAGES = ("man8/rtfd.8", "man1/rtfctl.1", "man5/rtf.conf.5", "man5/rtf-acl.conf.5", "man1/rtf-latency.1",
             "man1/rtf-bench.1", "man1/rtf-budget.1", "man1/rtf-sim.1", "man1/rtf-nexa.1", "man3/librtf.3")
COMPLETED = ("rtfd", "rtfctl", "rtf-latency", "rtf-bench", "rtf-budget", "rtf-sim", "rtf-nexa")


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


# ---- a real prefix ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def prefix(build):
    """meson setup --prefix=P -Dtests=false, compile, install: P (0755, so
    that the test users reach it).  The tree is a second, plain build of the
    same source (a few seconds); the tests' own build stays untouched."""
    top = tempfile.mkdtemp(prefix="rtf-it-prefix-")
    os.chmod(top, 0o755)
    pfx, tree = os.path.join(top, "p"), os.path.join(top, "build")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CFLAGS", "LDFLAGS", "PKG_CONFIG"))}
    for cmd in (["meson", "setup", tree, SRC_DIR, "--prefix", pfx, "-Dtests=false", "-Dwerror=true"],
                ["meson", "compile", "-C", tree],
                ["meson", "install", "-C", tree, "--no-rebuild", "--quiet"]):
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            shutil.rmtree(top, ignore_errors=True)
            pytest.fail(" ".join(cmd) + " failed:\n" + r.stdout + r.stderr)
    yield pfx
    shutil.rmtree(top, ignore_errors=True)


def clean_env(**more):
    """What a login shell of a new user has: no LD_LIBRARY_PATH, no PKG_CONFIG_*."""
    return dict(PATH="/usr/sbin:/usr/bin:/sbin:/bin", LANG="C.UTF-8", **more)


def test_meson_install_does_not_build_the_tests(build):
    """The unit tests and fuzz replayers are built by meson test, not by the
    default target that meson install builds; -Dtests=false drops the rest."""
    targets = json.loads(subprocess.run(["meson", "introspect", build.path, "--targets"], capture_output=True,
                                        text=True, check=True).stdout)
    by_default = {t["name"] for t in targets if t["build_by_default"]}
    assert "rtfd" in by_default
    assert not [n for n in by_default if n.startswith(("test-", "fuzz-"))], sorted(by_default)


def test_units_go_to_the_system_for_usr_local_and_stay_in_any_other_prefix(build, prefix):
    installed = json.loads(subprocess.run(["meson", "introspect", build.path, "--installed"], capture_output=True,
                                          text=True, check=True).stdout).values()
    options = {o["name"]: o["value"] for o in json.loads(subprocess.run(
        ["meson", "introspect", build.path, "--buildoptions"], capture_output=True, text=True, check=True).stdout)}
    if options["prefix"] == "/usr/local" and options["systemdunitdir"] == "auto":
        # systemd.unit(5): "System units installed by the administrator"
        assert "/usr/local/lib/systemd/system/rtfd.service" in installed, sorted(installed)
    # A temporary prefix keeps them inside.
    for unit in ("rtfd.service", "rtfd.socket"):
        assert os.path.exists(os.path.join(prefix, "lib", "systemd", "system", unit))


def test_units_refer_to_what_is_installed(prefix):
    unit = open(os.path.join(prefix, "lib", "systemd", "system", "rtfd.service")).read()
    docs = [w for line in unit.splitlines() if line.startswith("Documentation=") for w in line.split("=", 1)[1].split()]
    assert docs, unit
    for d in docs:
        if d.startswith("man:"):
            name, section = d[4:].rstrip(")").split("(")
            assert os.path.exists(os.path.join(prefix, "share", "man", f"man{section}", f"{name}.{section}")), d
        else:
            assert d.startswith("file://") and os.path.exists(d[len("file://"):]), d
    exec_start = [line for line in unit.splitlines() if line.startswith("ExecStart=")][0]
    assert os.access(exec_start.split("=", 1)[1].split()[0], os.X_OK), exec_start


def test_man_pages_render(prefix):
    if not shutil.which("man"):
        pytest.skip("man is not installed (scripts/install-deps.sh installs man-db)")
    for page in MAN_PAGES:
        path = os.path.join(prefix, "share", "man", page)
        r = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True,
                           env=clean_env(MANWIDTH="80"))
        assert r.returncode == 0 and r.stderr == "", f"{page}: {r.stderr}"
        text = re.sub(".\b", "", r.stdout)         # bold and underline by overstriking
        name = os.path.basename(page).rsplit(".", 1)[0]
        assert text.splitlines()[0].startswith(name.upper() + "("), text[:300]
        assert "NAME" in text and "SEE ALSO" in text, text[:300]


def test_installed_tools_run_with_an_empty_environment(prefix):
    """librtf is found through the binaries' $ORIGIN-relative run path."""
    for exe in ("bin/rtf-latency", "bin/rtf-bench", "bin/rtf-budget", "bin/rtfctl", "sbin/rtfd"):
        r = subprocess.run(["env", "-i", os.path.join(prefix, exe), "--help"], capture_output=True, text=True,
                           timeout=TIMEOUT)
        assert r.returncode == 0 and "Usage:" in r.stdout, exe + ": " + r.stdout + r.stderr
    dyn = subprocess.run(["readelf", "-d", os.path.join(prefix, "bin", "rtf-latency")], capture_output=True,
                         text=True, check=True).stdout
    assert "$ORIGIN/../" in dyn, dyn


def test_bash_completion(prefix):
    if not os.path.exists("/usr/share/bash-completion/bash_completion"):
        pytest.skip("bash-completion is not installed (scripts/install-deps.sh installs it)")
    completions = os.path.join(prefix, "share", "bash-completion", "completions")
    for name in COMPLETED:
        assert os.path.exists(os.path.join(completions, name)), name

    def complete(*words):
        script = ("source /usr/share/bash-completion/bash_completion\n"
                  f"source {completions}/rtfd\n"
                  'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}\n'
                  '_rtf; printf "%s\\n" "${COMPREPLY[@]}"\n')
        r = subprocess.run(["bash", "-c", script, "bash"] + list(words), capture_output=True, text=True,
                           env=clean_env(), timeout=TIMEOUT)
        assert r.returncode == 0, r.stderr
        return r.stdout.split()

    assert "--config" in complete(os.path.join(prefix, "sbin", "rtfd"), "--con")
    assert "status" in complete(os.path.join(prefix, "bin", "rtfctl"), "st")
    assert "--compare=" in complete(os.path.join(prefix, "bin", "rtf-latency"), "--comp")
    assert complete(os.path.join(prefix, "bin", "rtf-budget"), "--mode", "h") == ["hard"]
    rtfctl = os.path.join(prefix, "bin", "rtfctl")
    assert "attach" in complete(rtfctl, "a") and "top" in complete(rtfctl, "--json", "t")
    assert complete(rtfctl, "run", "--pol") == ["--policy"]
    assert complete(rtfctl, "run", "--policy", "d") == ["deadline"]
    assert "--interval" in complete(rtfctl, "top", "--int")
    assert "--scenario=" in complete(os.path.join(prefix, "bin", "rtf-sim"), "--scen")


@pytest.mark.deadline
def test_own_program_from_the_prefix_as_an_unprivileged_user(prefix, users, tmp_path):
    """What the README tells a new user: pkg-config pointed at the prefix
    (--with-path, or PKG_CONFIG_PATH: a temporary prefix is not searched by
    default; /usr/local would be, and needs ldconfig after installing instead
    of the run path),
    a run path for librtf, and nothing else; the prefix's rtfd with its
    installed configuration and plugins, under a policy."""
    carol = users["carol"]
    # Beside the prefix, where carol can reach the program and the socket.
    work = os.path.join(os.path.dirname(prefix), "work")
    os.makedirs(work, mode=0o755, exist_ok=True)
    pcdir = os.path.dirname(one(prefix, "**/pkgconfig/rtf.pc"))
    # No environment variable at all: the prefix's pkgconfig directory on the command line.
    env = clean_env()
    pkg_config = ["pkg-config", "--with-path=" + pcdir]
    flags = subprocess.run(pkg_config + ["--cflags", "--libs", "rtf"], env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    libdir = subprocess.run(pkg_config + ["--variable=libdir", "rtf"], env=env, capture_output=True,
                            text=True, check=True).stdout.strip()
    exe = os.path.join(work, "listing1")
    r = subprocess.run(["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", os.path.join(SRC_DIR, "examples",
                        "listing1.c"), "-o", exe] + flags + ["-Wl,-rpath," + libdir],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr

    acl = str(tmp_path / "acl.conf")
    write_root_file(acl, "rtf-carol EDF max_utilization 0.5\n")
    sock = os.path.join(work, "rtfd.sock")
    log_path = tmp_path / "rtfd.log"
    with open(log_path, "w+") as log:
        # No --config, no --plugindir: the prefix's etc/rtf/rtfd.conf and plugins.
        daemon = subprocess.Popen(["env", "-i", os.path.join(prefix, "sbin", "rtfd"), "--socket", sock,
                                   "--acl", acl, "--foreground"], stdout=log, stderr=subprocess.STDOUT)
        try:
            end = time.monotonic() + TIMEOUT
            while not os.path.exists(sock):
                assert daemon.poll() is None, log_path.read_text()
                assert time.monotonic() < end, "rtfd did not create its socket\n" + log_path.read_text()
                time.sleep(0.05)
            r = subprocess.run(carol.setpriv() + ["env", "-i", f"RTF_SOCKET={sock}", exe, "20"],
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stdout + r.stderr + log_path.read_text()
            assert "granted:   plugin EDF" in r.stdout and "SCHED_DEADLINE" in r.stdout, r.stdout
            assert f"audit: uid {carol.uid}" in log_path.read_text()
        finally:
            daemon.terminate()
            assert daemon.wait(timeout=TIMEOUT) == 0, log_path.read_text()
