# SPDX-License-Identifier: LGPL-2.1-or-later
"""Files rtfd trusts and the directories they are reached through (issue 10,
point 9), for the state journal: a journal in a directory other users can
write could be planted with lines that make rtfd demote a root process, or
be a symlink that rtfd then writes through."""
import os
import shutil
import tempfile

import kernel
from rtfit import Daemon
from users import as_user, users  # noqa: F401 - users is a fixture

CONFIG = "FP FP.so 1-99 all\n"


def world_writable_dir(mode=0o1777):
    d = tempfile.mkdtemp(prefix="rtf-ww-", dir="/tmp")
    os.chmod(d, mode)
    return d


def test_an_explicit_journal_in_a_world_writable_directory_is_not_used(rtfd, tmp_path):
    """An error that names the path and the fix, and no journal (rtfd still
    starts: rtf-bench keeps a private rtfd's journal under /tmp).  Fails on
    main (9e4110f): rtfd keeps its journal in /tmp."""
    work = world_writable_dir()
    try:
        d = rtfd(CONFIG, args=("--state-file", os.path.join(work, "rtfd.state")))
        assert not os.path.exists(os.path.join(work, "rtfd.state"))
        log = d.log()
        assert f"State journal directory of {work} is reached through a directory writable by group or others" \
               in log, log
        assert "use a path such as /run/rtf" in log
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_a_journal_planted_beside_the_socket_is_not_acted_upon(build, users):
    """carol may write into the socket's directory (a mistake of the
    administrator's) and plants a journal naming a root process that is
    SCHED_FIFO of its own: rtfd must not demote it.  Fails on main (9e4110f):
    rtfd demoted the root process at start."""
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
        d.start(CONFIG)
        d.ctl("status")         # rtfd is up and past its start
        a = kernel.sched_getattr(victim.pid)
        assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 7), "rtfd acted on a planted journal"
        assert "No state journal" in d.log()
        assert os.stat(journal).st_uid == carol.uid     # and did not write into carol's file
    finally:
        problems = d.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    assert not problems, problems
