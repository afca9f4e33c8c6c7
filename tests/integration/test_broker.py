# SPDX-License-Identifier: LGPL-2.1-or-later
"""The broker's decisions against the real kernel, as real unprivileged users
(issue 10): the policy bounds the priority a plugin grants, not only the one
asked for; the latency hint is granted by the policy; a runtime above the
period is refused as such before the policy is asked."""
import errno
import os

from rtfit import start_with_policy
from users import client, users  # noqa: F401 - users is a fixture
from test_tools import holds_hint, needs_dma

RTF_ACL_FAIL = 2
SCHED_FIFO = 1
SCHED_RESET_ON_FORK = 0x40000000


def policy_of(tid):
    return os.sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK


def test_max_priority_bounds_the_granted_priority(rtfd, users, tmp_path):
    """RM gives a lone task the top of its range whatever was asked: a user limited to
    max_priority 60 must not get 89 on a thread of hers."""
    alice = users["alice"]
    d = start_with_policy(rtfd, tmp_path, "RM RM.so 50-89 all\nFP FP.so 50-89 all\n",
                          "rtf-alice RM max_priority 60\nrtf-alice FP max_priority 20\n")
    c = client(d, alice)
    c.thread("t")
    r = c.create("a", period=10000, runtime=1000, plugin="RM")
    assert r["result"] == RTF_ACL_FAIL and "max_priority 60" in r["reason"], r
    r = c.create("b", priority=10, plugin="FP")     # FP maps 10 into 50-89
    assert r["result"] == RTF_ACL_FAIL and "max_priority 20" in r["reason"], r
    # Nothing was left behind: the thread never left SCHED_OTHER.
    assert policy_of(c.threads["t"]) == os.SCHED_OTHER


def test_runtime_above_period_refused_as_such(rtfd, users, tmp_path):
    """Before any policy check: even a user the policy knows nothing of is told why."""
    bob = users["bob"]
    d = start_with_policy(rtfd, tmp_path, "EDF EDF.so 100-100 all\n", "rtf-alice EDF max_utilization 0.5\n")
    c = client(d, bob)
    r = c.create("a", period=1000, runtime=2000)
    assert r["result"] == -errno.EINVAL and "runtime must be at most the period" in r["reason"], r


@needs_dma
def test_latency_hint_is_granted_by_the_policy(rtfd, users, tmp_path):
    alice, bob = users["alice"], users["bob"]
    d = start_with_policy(rtfd, tmp_path, "FP FP.so 1-99 all\nset latency_hint_us 0\n",
                          "rtf-alice FP max_priority 20\nrtf-alice FP latency_hint true\n"
                          "rtf-bob FP max_priority 20\n")
    pid = d.proc.pid
    b = client(d, bob)
    b.thread("t")
    assert b.create("s", priority=10)["result"] == 0
    assert b.attach("s", "thread:t")["result"] == 0
    assert policy_of(b.threads["t"]) == SCHED_FIFO
    assert not holds_hint(pid), "bob's thread holds the hint no rule grants him"
    a = client(d, alice)
    a.thread("t")
    assert a.create("s", priority=10)["result"] == 0
    assert a.attach("s", "thread:t")["result"] == 0
    assert holds_hint(pid), "alice's rule grants the hint"
    assert a.detach("s")["result"] == 0
    assert not holds_hint(pid)
