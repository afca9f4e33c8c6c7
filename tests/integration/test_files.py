# SPDX-License-Identifier: LGPL-2.1-or-later
"""Files rtfd trusts and the directories they are reached through (issue 10,
point 9), for the state journal: a journal in a directory other users can
write could be planted with lines that make rtfd demote a root process, or
be a symlink that rtfd then writes through."""
import os
import shutil
import subprocess
import tempfile
import threading

import pytest

import kernel
import wire
from rtfit import Daemon, write_root_file
from users import as_user, users  # noqa: F401 - users is a fixture

CONFIG = "FP FP.so 1-99 all\n"


def world_writable_dir(mode=0o1777):
    d = tempfile.mkdtemp(prefix="rtf-ww-", dir="/tmp")
    os.chmod(d, mode)
    return d


def refused(d, *texts):
    """rtfd exited non-zero without listening, its log naming every text."""
    assert d.wait_exit() != 0, d.log()
    assert not os.path.exists(d.socket)
    log = d.log()
    for t in texts:
        assert t in log, log
    return log


FIX = "rtfd trusts only directories that root owns and nobody else can write; use a path such as /run/rtf"


def test_an_explicit_journal_in_a_world_writable_directory_stops_rtfd(rtfd, tmp_path):
    """An error that names the path and the fix, and rtfd does not start.
    Fails on main (9e4110f): rtfd keeps its journal in /tmp; and on 1c6ae7e:
    rtfd starts without a journal."""
    work = world_writable_dir()
    state = os.path.join(work, "rtfd.state")
    try:
        d = rtfd(CONFIG, args=("--state-file", state), wait=False)
        refused(d, f"State journal {state}: its directory {work} is reached through a directory writable by "
                   "group or others (mode 1777)", FIX)
        assert not os.path.exists(state)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_a_journal_planted_beside_the_socket_is_not_acted_upon(build, users):
    """carol may write into the socket's directory (a mistake of the
    administrator's) and plants a journal naming a root process that is
    SCHED_FIFO of its own: rtfd must not demote it, and refuses to start.
    Fails on main (9e4110f): rtfd demoted the root process at start; on
    1c6ae7e: rtfd started (without a journal) on a socket carol can replace."""
    carol = users["carol"]
    work = world_writable_dir(0o777)
    d = Daemon(build, work)
    victim = d.spawn(["sleep", "1000"])
    try:
        kernel.sched_setattr(victim.pid, kernel.SCHED_FIFO, priority=7)
        fd = os.pidfd_open(victim.pid)
        ino = os.fstat(fd).st_ino
        os.close(fd)
        journal = os.path.join(work, "rtfd.state")
        line = f"+ {victim.pid} 0 {ino}\n"
        as_user(carol, lambda: open(journal, "w").write(line))
        assert os.stat(journal).st_uid == carol.uid
        d.start(CONFIG, wait=False)
        refused(d, f"Socket {d.socket}: its directory {work} is reached through a directory writable by group "
                   "or others (mode 0777)", FIX)
        a = kernel.sched_getattr(victim.pid)
        assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 7), "rtfd acted on a planted journal"
        assert os.stat(journal).st_uid == carol.uid     # and did not write into carol's file
        with open(journal) as f:
            assert f.read() == line
    finally:
        problems = d.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    assert not problems, problems


def test_a_socket_directory_owned_by_another_user_stops_rtfd(build, users):
    """carol owns the socket's directory: she could replace the socket or
    plant the journal beside it.  Fails on 1c6ae7e: rtfd started there."""
    carol = users["carol"]
    work = tempfile.mkdtemp(prefix="rtf-it-", dir="/run")
    os.chmod(work, 0o755)
    os.chown(work, carol.uid, carol.gid)
    d = Daemon(build, work)
    try:
        d.start(CONFIG, wait=False)
        refused(d, f"Socket {d.socket}: its directory {work} is reached through a directory not owned by root "
                   f"(uid {carol.uid})", FIX)
    finally:
        problems = d.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    assert not problems, problems


def check_config(build, *args):
    return subprocess.run([build.rtfd, "--check-config", "--plugindir", build.plugindir, *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("option", ["--config", "--acl"])
def test_a_file_renamed_by_a_user_in_its_directory_is_refused(rtfd, build, users, option):
    """The configuration or policy is root-owned and 0644, but its directory
    is writable by carol: she renames another root-owned file over it (the
    file check alone cannot tell).  rtfd refuses to start, and --check-config
    says the same.  Fails on 1c6ae7e: rtfd started with carol's choice."""
    carol = users["carol"]
    work = world_writable_dir(0o777)
    path = os.path.join(work, "rtfd.conf" if option == "--config" else "acl.conf")
    try:
        write_root_file(path, CONFIG if option == "--config" else "")
        write_root_file(path + ".example", "FP FP.so 1-99 0\n" if option == "--config" else "* 0 FP\n")
        as_user(carol, lambda: os.rename(path + ".example", path) or True)
        assert os.stat(path).st_uid == 0
        d = rtfd(None if option == "--config" else CONFIG, args=(option, path), wait=False)
        msg = f"{path}: its directory {work} is reached through a directory writable by group or others"
        refused(d, msg, FIX)
        r = check_config(build, option, path, *(() if option == "--config" else ("--default-config",)))
        assert r.returncode != 0 and msg in r.stderr and FIX in r.stderr, r.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_a_symlink_planted_in_the_plugin_directory_is_refused(rtfd, build, users):
    """The plugin directory is writable by carol: she replaces FP.so with a
    symlink to another root-owned library, which rtfd would load as root
    under FP's name.  Fails on 1c6ae7e: rtfd loaded RR.so as FP."""
    carol = users["carol"]
    plugdir = world_writable_dir(0o777)
    fp = os.path.join(plugdir, "FP.so")
    rr = build.plugin("RR")
    try:
        shutil.copy(build.plugin("FP"), fp)
        os.chmod(fp, 0o755)
        as_user(carol, lambda: (os.unlink(fp), os.symlink(rr, fp)) and True)
        d = rtfd(CONFIG, args=("--plugindir", plugdir), wait=False)
        msg = f"plugin {fp}: its directory {plugdir} is reached through a directory writable by group or others"
        refused(d, msg, FIX)
        r = check_config(build, "--config", d.config, "--plugindir", plugdir)
        assert r.returncode != 0 and msg in r.stderr, r.stderr
    finally:
        shutil.rmtree(plugdir, ignore_errors=True)


def test_a_symlinked_plugin_is_refused_in_a_trusted_directory(rtfd, build):
    """Plugins are opened with O_NOFOLLOW from their trusted directory: a
    symlink there (whoever made it) is refused, naming the path and the fix.
    Fails on 1c6ae7e: rtfd followed it."""
    plugdir = tempfile.mkdtemp(prefix="rtf-it-plugins-", dir="/run")
    os.chmod(plugdir, 0o755)
    fp = os.path.join(plugdir, "FP.so")
    try:
        os.symlink(build.plugin("RR"), fp)
        d = rtfd(CONFIG, args=("--plugindir", plugdir), wait=False)
        refused(d, f"plugin {fp} is a symbolic link: rtfd follows no symlink to what it trusts; name the file "
                   "itself (or install it there)")
    finally:
        shutil.rmtree(plugdir, ignore_errors=True)


def test_sticky_tmp_is_passed_only_on_the_way_to_a_root_owned_directory(rtfd, users):
    """The rule for /tmp (docs/SECURITY.md): a configuration directly in a
    sticky world-writable directory is refused (anyone may create names in
    it); one in a directory that carol created there is refused (not root's);
    one in a root-owned 0755 directory under /tmp is accepted.  Fails on
    1c6ae7e: the first two started."""
    carol = users["carol"]
    sticky = world_writable_dir(0o1777)
    theirs = os.path.join(sticky, "carol")
    ours = tempfile.mkdtemp(prefix="rtf-it-", dir="/tmp")
    os.chmod(ours, 0o755)
    try:
        as_user(carol, lambda: os.mkdir(theirs, 0o755) or True)
        for where, text in ((sticky, "writable by group or others (mode 1777)"),
                            (theirs, f"not owned by root (uid {carol.uid})")):
            path = os.path.join(where, "rtfd.conf")
            write_root_file(path, CONFIG)
            d = rtfd(None, args=("--config", path), wait=False)
            refused(d, f"configuration {path}: its directory {where} is reached through a directory {text}", FIX)
        path = os.path.join(ours, "rtfd.conf")
        write_root_file(path, CONFIG)
        d = rtfd(None, args=("--config", path))
        d.ctl("status")
    finally:
        shutil.rmtree(sticky, ignore_errors=True)
        shutil.rmtree(ours, ignore_errors=True)


def test_the_journal_stays_in_the_directory_trusted_at_start(rtfd, tmp_path):
    """The journal's directory is checked once, at start; every later file
    operation (the compaction's new file and rename, the removal at a clean
    stop) must go through that directory, not through the path again, which
    may by then lead somewhere else.  Here the directory is moved away after
    the start and another takes its name; 2,100 attach/detach pairs make rtfd
    compact its journal.  Fails on 4b8b747: the compacted journal was written
    into the new directory (by path) and the stop removed it there, leaving
    the 4,096-line journal in the directory rtfd had checked."""
    work = tmp_path / "journal"
    work.mkdir(mode=0o755)
    state = work / "rtfd.state"
    d = rtfd(CONFIG, args=("--state-file", str(state)))
    assert state.exists()
    moved = tmp_path / "journal.moved"
    work.rename(moved)
    work.mkdir(mode=0o755)

    done = threading.Event()
    t = threading.Thread(target=done.wait)
    t.start()
    sock = wire.connect(d.socket)
    try:
        spec = wire.call(sock, wire.create(priority=10))
        assert spec["result"] == 0, spec
        for batch in range(21):         # 100 pairs at a time, within the connection's queue
            for i in range(100):
                sock.send(wire.attach(spec["id"], t.native_id, seq=2 * i))
                sock.send(wire.detach(spec["id"], seq=2 * i + 1))
            for _ in range(200):
                r = wire.parse_reply(sock.recv(wire.MSG_MAX + 1))
                assert r["result"] == 0, r
        assert os.listdir(work) == [], "rtfd wrote into a directory it never checked"
        with open(moved / "rtfd.state") as f:
            # 4,200 lines written, compacted at 4,096 (STATE_COMPACT_LINES) to
            # the live entry or none, then appended to.
            assert len(f.readlines()) < 200, "the journal was not compacted in place"
    finally:
        sock.close()
        done.set()
        t.join()
    assert d.stop() == 0, d.log()
    assert os.listdir(moved) == [] and os.listdir(work) == [], (os.listdir(moved), os.listdir(work))
