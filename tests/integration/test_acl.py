# SPDX-License-Identifier: LGPL-2.1-or-later
"""Default deny: without an access-control policy only root may reserve
anything; every user may still look (rtfctl)."""
import errno
import os

import pytest

import kernel
import wire
from users import Account, as_user
from rtfit import GLOBAL

RTF_ACL_FAIL = 2
NOBODY = 65534


@pytest.fixture
def nobody_can_run(build):
    for path in (build.testclient, build.rtfctl):
        r = os.system(f"setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups test -x {path}")
        if r != 0:
            pytest.skip(f"uid {NOBODY} cannot execute {path} (check the directory permissions)")


def as_nobody(fn):
    """Run fn() in a child with uid/gid 65534; return what it returns (JSON-able)."""
    return as_user(Account("nobody"), fn)


def test_unprivileged_user_gets_acl_fail(rtfd, nobody_can_run):
    d = rtfd(GLOBAL)
    c = d.client(user="nobody")
    tid = c.thread("t")
    for params in (dict(priority=10), dict(priority=10, plugin="FP"),
                   dict(period=100000, runtime=1000, plugin="EDF"), dict(period=100000, runtime=1000)):
        r = c.create("s", **params)
        assert r["result"] == RTF_ACL_FAIL, (params, r)
        assert r["id"] == 0
        assert r["reason"], "the refusal says why"
    assert d.tasks() == []
    assert kernel.sched_getattr(tid).sched_policy == kernel.SCHED_OTHER
    # Looking is allowed to everybody.
    assert {c["plugin"] for c in d.ctl("status", user="nobody")["cores"]} == {"EDF", "FP"}
    assert d.ctl("tasks", user="nobody")["tasks"] == []


def test_unprivileged_user_cannot_use_root_specs(rtfd):
    """Spec ids are small global numbers, so another user can name root's:
    rtfd must refuse to let it attach, change, detach or release them."""
    d = rtfd(GLOBAL)
    root = d.client()
    tid = root.thread("t")
    r = root.create("s", priority=10, plugin="FP")
    assert r["result"] == 0, r
    spec_id = r["id"]
    assert root.attach("s", "thread:t")["result"] == 0
    victim = d.spawn(["sleep", "1000"])
    os.chown(d.dir, 0, 0)

    def abuse():
        s = wire.connect(d.socket)
        return [wire.call(s, pkt)["result"] for pkt in (
            wire.attach(spec_id, victim.pid, seq=1),
            wire.change(spec_id, seq=2, priority=99, plugin="FP"),
            wire.detach(spec_id, seq=3),
            wire.release(spec_id, seq=4),
            wire.create(seq=5, priority=10),
        )]

    results = as_nobody(abuse)
    assert results == [-errno.EPERM] * 4 + [RTF_ACL_FAIL], results
    t = d.task(spec_id)
    assert t is not None and (t["tid"], t["priority"]) == (tid, 10)
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_FIFO, 10)
    assert kernel.sched_getattr(victim.pid).sched_policy == kernel.SCHED_OTHER
