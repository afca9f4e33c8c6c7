# SPDX-License-Identifier: LGPL-2.1-or-later
"""The access-control policy and ownership, with real users (users.py):
alice (supplementary member of rtf-audio), bob and carol.

Every rtfd here gets an explicit --acl file, so that the machine's
/etc/rtf/acl.conf can never decide a test.  Refusals are checked three ways:
the reply (RTF_ACL_FAIL or -EPERM, with a reason), the audit line in rtfd's
log, and the kernel (the thread kept its policy)."""
import errno
import os
import shutil
import tempfile
import time

import pytest

import kernel
import wire
from rtfit import start_with_policy, wait_for, write_root_file
from users import as_user, client, spawn_as, spawn_with_pid, users  # noqa: F401 - users is a fixture

RTF_ACL_FAIL = 2
RTF_SCHEDULE_FAIL = 1
CONFIG = "EDF EDF.so 100-100 all\nFP FP.so 1-99 all\nRR RR.so 1-99 all\n"
EPERM = -errno.EPERM


def start(rtfd, tmp_path, policy, config=CONFIG):
    return start_with_policy(rtfd, tmp_path, config, policy)


def refused(r, *words, spec_id=0):
    """An RTF_ACL_FAIL reply whose reason has `words`; spec_id: of a change."""
    assert r["result"] == RTF_ACL_FAIL, r
    assert r["id"] == spec_id, r
    assert r["reason"], "a refusal says why"
    for w in words:
        assert w in r["reason"], (w, r)


def audit_lines(d, account, verdict):
    return [l for l in d.log().splitlines() if f"audit: uid {account.uid} " in l and verdict in l]


def assert_other(tid):
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_OTHER, 0), f"thread {tid}: policy {a.sched_policy}"


def assert_setting(tid, reply, params):
    """The kernel's setting of `tid` is what the granted `reply` promised."""
    a = kernel.sched_getattr(tid)
    if "priority" in params:
        assert a.sched_policy in (kernel.SCHED_FIFO, kernel.SCHED_RR)
        assert a.sched_priority == reply["priority"]
    else:
        assert a.sched_policy == kernel.SCHED_DEADLINE
        assert a.sched_runtime == reply["accepted_runtime_us"] * 1000
        assert a.sched_period == params["period"] * 1000
        assert a.sched_deadline == params.get("deadline", params["period"]) * 1000


# ---- default deny -------------------------------------------------------------------

def test_user_without_a_grant_is_refused(rtfd, tmp_path, users):
    alice, bob = users["alice"], users["bob"]
    d = start(rtfd, tmp_path, "# only bob\nrtf-bob FP max_priority 50\n")
    a = client(d, alice)
    tid = a.thread("t")
    for params in (dict(priority=10, plugin="FP"), dict(priority=10), dict(period=10000, runtime=100),
                   dict(priority=10, plugin="RR"), dict(period=10000, runtime=100, plugin="EDF")):
        r = a.create("s", **params)
        refused(r, f"uid {alice.uid}")
    assert d.tasks() == []
    assert_other(tid)
    lines = audit_lines(d, alice, "refused: ")
    assert len(lines) == 5, d.log()
    assert all(f"pid {a.pid} create" in l for l in lines), lines
    # The same request from the user the rule names is granted, and audited with its rule.
    b = client(d, bob)
    r = b.create("s", priority=10, plugin="FP")
    assert r["result"] == 0, r
    assert any(f"create spec {r['id']} on FP: granted by acl.conf:2" in l for l in audit_lines(d, bob, "granted")), \
        d.log()
    # Every grant is audited, letting go included.
    tid = b.thread("t")
    assert b.attach("s", "thread:t")["result"] == 0
    assert b.detach("s")["result"] == 0
    assert b.release("s")["result"] == 0
    for what in ("attach", "detach", "release"):
        assert any(f"{what} spec {r['id']} on FP: granted" in l for l in audit_lines(d, bob, "granted")), \
            (what, d.log())


# ---- the nine properties at their boundaries ------------------------------------------

DL = pytest.mark.deadline
BOUNDARIES = [
    # property, value, plugin, at the boundary (granted), one step beyond (refused)
    pytest.param("max_utilization", "0.25", "EDF", dict(period=10000, runtime=2500),
                 dict(period=10000, runtime=2501), marks=DL, id="max_utilization"),
    pytest.param("max_runtime", "2000", "EDF", dict(period=10000, runtime=2000),
                 dict(period=10000, runtime=2001), marks=DL, id="max_runtime"),
    pytest.param("min_period", "1000", "EDF", dict(period=1000, runtime=100),
                 dict(period=999, runtime=100), marks=DL, id="min_period"),
    pytest.param("max_period", "50000", "EDF", dict(period=50000, runtime=1000),
                 dict(period=50001, runtime=1000), marks=DL, id="max_period"),
    pytest.param("min_deadline", "1000", "EDF", dict(period=10000, deadline=1000, runtime=100),
                 dict(period=10000, deadline=999, runtime=100), marks=DL, id="min_deadline"),
    pytest.param("max_deadline", "5000", "EDF", dict(period=10000, deadline=5000, runtime=100),
                 dict(period=10000, deadline=5001, runtime=100), marks=DL, id="max_deadline"),
    pytest.param("min_priority", "10", "FP", dict(priority=10), dict(priority=9), id="min_priority"),
    pytest.param("max_priority", "20", "FP", dict(priority=20), dict(priority=21), id="max_priority"),
    # A boolean's boundary: false still grants, but not skipping the admission test.
    pytest.param("ignore_adm_test", "false", "EDF", dict(period=10000, runtime=1000),
                 dict(period=10000, runtime=1000, ignore=1), marks=DL, id="ignore_adm_test"),
]


@pytest.mark.parametrize("prop, value, plugin, at, beyond", BOUNDARIES)
def test_property_boundary(rtfd, tmp_path, users, prop, value, plugin, at, beyond):
    alice = users["alice"]
    d = start(rtfd, tmp_path, f"# Domain Plugin Property Value\n\nrtf-alice {plugin} {prop} {value}\n")
    c = client(d, alice)
    tid = c.thread("t")

    r = c.create("beyond", plugin=plugin, **beyond)
    refused(r, prop, "acl.conf:3", f"uid {alice.uid}")
    assert d.tasks() == []
    assert any(prop in l for l in audit_lines(d, alice, "refused: ")), d.log()

    r = c.create("at", plugin=plugin, **at)
    assert r["result"] == 0, r
    assert r["plugin"] == plugin
    assert any(f"spec {r['id']} on {plugin}: granted by acl.conf:3" in l
               for l in audit_lines(d, alice, "granted")), d.log()
    assert c.attach("at", "thread:t")["result"] == 0
    assert_setting(tid, r, at)
    assert c.release("at")["result"] == 0
    assert_other(tid)


# ---- who a rule applies to --------------------------------------------------------

def test_group_rule_applies_through_a_supplementary_group(rtfd, tmp_path, users):
    alice, bob, carol = users["alice"], users["bob"], users["carol"]
    d = start(rtfd, tmp_path, "# audio members: FP up to 50\n@rtf-audio FP max_priority 50\n")
    a = client(d, alice)
    tid = a.thread("t")
    r = a.create("s", priority=50, plugin="FP")
    assert r["result"] == 0, r
    assert a.attach("s", "thread:t")["result"] == 0
    assert_setting(tid, r, dict(priority=50))
    refused(a.create("s2", priority=51, plugin="FP"), "max_priority", "acl.conf:2")
    for other in (bob, carol):
        o = client(d, other)
        refused(o.create("s", priority=10, plugin="FP"), "no rule grants", f"uid {other.uid}")
    assert [t["uid"] for t in d.tasks()] == [alice.uid]


def test_plugin_rule_does_not_touch_other_plugins(rtfd, tmp_path, users):
    alice = users["alice"]
    d = start(rtfd, tmp_path, "rtf-alice FP max_priority 10\nrtf-alice RR max_priority 90\n")
    c = client(d, alice)
    tid = c.thread("t")
    # FP's bound is FP's only: RR grants up to 90, EDF nothing at all.
    refused(c.create("f", priority=50, plugin="FP"), "max_priority 10", "acl.conf:1")
    refused(c.create("r", priority=91, plugin="RR"), "max_priority 90", "acl.conf:2")
    refused(c.create("e", period=10000, runtime=100, plugin="EDF"), "no rule grants", "EDF")
    r = c.create("r", priority=50, plugin="RR")
    assert r["result"] == 0, r
    assert c.attach("r", "thread:t")["result"] == 0
    a = kernel.sched_getattr(tid)
    assert (a.sched_policy, a.sched_priority) == (kernel.SCHED_RR, r["priority"])
    assert c.create("f", priority=10, plugin="FP")["result"] == 0
    # Without a plugin name, rtfd asks the plugins in order: EDF and FP are not
    # granted for priority 50, RR is.
    r = c.create("any", priority=50)
    assert (r["result"], r["plugin"]) == (0, "RR"), r


def test_a_bounded_parameter_must_be_declared(rtfd, tmp_path, users):
    """A bound the request leaves to the plugin could not be enforced;
    priority bounds apply only to a declared priority."""
    d = start(rtfd, tmp_path, "rtf-alice FP max_period 10000\nrtf-alice EDF max_priority 10\n")
    c = client(d, users["alice"])
    refused(c.create("f", priority=10, plugin="FP"), "declare", "acl.conf:1")
    assert c.create("f", priority=10, period=10000, plugin="FP")["result"] == 0
    assert c.create("e", period=10000, runtime=100, plugin="EDF")["result"] == 0


@pytest.mark.parametrize("granted", [False, True])
def test_ignore_adm_test_only_when_granted(rtfd, tmp_path, users, granted):
    policy = "rtf-alice EDF max_utilization 2\n" + ("rtf-alice EDF ignore_adm_test true\n" if granted else "")
    d = start(rtfd, tmp_path, policy)
    c = client(d, users["alice"])
    # Density 0.95 is over global EDF's bound on 2 CPUs at U_thr 0.9 (0.95 > 1.8 - 0.95).
    over = dict(period=10000, runtime=9500, plugin="EDF")
    r = c.create("s", **over)
    assert r["result"] == RTF_SCHEDULE_FAIL, r
    r = c.create("s", ignore=1, **over)
    if granted:
        assert r["result"] == 0, r
        assert r["accepted_runtime_us"] == 9500
        assert d.task(r["id"])["ignore_admission"]
    else:
        refused(r, "ignore_adm_test")
        assert d.tasks() == []


# ---- max_utilization summed over a user's specifications --------------------------

@pytest.mark.deadline
def test_max_utilization_is_summed_over_specs_and_changes(rtfd, tmp_path, users):
    alice, bob = users["alice"], users["bob"]
    d = start(rtfd, tmp_path, "rtf-alice EDF max_utilization 0.5\nrtf-bob EDF max_utilization 0.5\n")
    c1, c2 = client(d, alice), client(d, alice)     # two connections, one user
    tid = c1.thread("t")

    ra = c1.create("a", period=10000, runtime=2000, plugin="EDF")
    assert ra["result"] == 0, ra
    assert c2.create("b", period=10000, runtime=2000, plugin="EDF")["result"] == 0
    refused(c1.create("c", period=10000, runtime=1001, plugin="EDF"), "max_utilization 0.5", "0.4 held")
    assert c1.create("c", period=10000, runtime=1000, plugin="EDF")["result"] == 0      # exactly 0.5

    # A change that would exceed the sum is refused; the old spec and its thread stay.
    assert c1.attach("a", "thread:t")["result"] == 0
    refused(c1.change("a", period=10000, runtime=2001, plugin="EDF"), "max_utilization", spec_id=ra["id"])
    t = d.task(ra["id"])
    assert (t["runtime_us"], t["period_us"], t["tid"]) == (2000, 10000, tid)
    assert kernel.sched_getattr(tid).sched_runtime == 2_000_000
    # A change that lowers it is granted and frees the difference.
    r = c1.change("a", period=10000, runtime=1000, plugin="EDF")
    assert r["result"] == 0, r
    assert kernel.sched_getattr(tid).sched_runtime == 1_000_000
    assert c2.create("d", period=10000, runtime=1000, plugin="EDF")["result"] == 0
    refused(c2.create("e", period=10000, runtime=2, plugin="EDF"), "max_utilization")

    # Another user's sum is his own.
    assert client(d, bob).create("b", period=10000, runtime=5000, plugin="EDF")["result"] == 0
    # A connection that goes away gives its share back (b and d: 0.3).
    c2.kill()
    wait_for(lambda: len([x for x in d.tasks() if x["uid"] == alice.uid]) == 2, what="c2's specs released")
    assert c1.create("f", period=10000, runtime=3000, plugin="EDF")["result"] == 0
    refused(c1.create("g", period=10000, runtime=2, plugin="EDF"), "max_utilization")


# ---- ownership -----------------------------------------------------------------------

def test_user_cannot_touch_another_users_spec(rtfd, tmp_path, users):
    alice, bob = users["alice"], users["bob"]
    d = start(rtfd, tmp_path, "- FP max_priority 50\n")
    b = client(d, bob)
    btid = b.thread("t")
    r = b.create("s", priority=20, plugin="FP")
    assert r["result"] == 0, r
    spec_id = r["id"]
    assert b.attach("s", "thread:t")["result"] == 0
    a = client(d, alice)
    atid = a.thread("t")

    def abuse():
        s = wire.connect(d.socket)
        return [wire.call(s, pkt)["result"] for pkt in (
            wire.attach(spec_id, os.getpid(), seq=1),        # alice's own thread onto bob's spec
            wire.change(spec_id, seq=2, priority=40, plugin="FP"),
            wire.detach(spec_id, seq=3),
            wire.release(spec_id, seq=4),
        )]

    assert as_user(alice, abuse) == [EPERM] * 4
    # A second connection of bob himself is no owner either: a spec is its connection's.
    assert as_user(bob, abuse) == [EPERM] * 4
    for what in ("attach", "change", "detach", "release"):
        assert any(f"{what}: refused: specification {spec_id} belongs to another client" in l
                   for l in audit_lines(d, alice, "refused")), (what, d.log())
    t = d.task(spec_id)
    assert (t["uid"], t["pid"], t["tid"], t["requested_priority"]) == (bob.uid, b.pid, btid, 20)
    a_ = kernel.sched_getattr(btid)
    assert (a_.sched_policy, a_.sched_priority) == (kernel.SCHED_FIFO, r["priority"])
    assert_other(atid)


def test_user_cannot_attach_threads_that_are_not_its_own(rtfd, tmp_path, users):
    """There is no field in which a client says who it is: rtfd takes the
    client's uid from the kernel and compares it with the real and the
    effective uid of the thread.  Naming bob's pid is not being bob."""
    alice, bob = users["alice"], users["bob"]
    d = start(rtfd, tmp_path, "- FP max_priority 50\n")
    b = client(d, bob)
    bob_thread = b.thread("t")
    bob_proc = spawn_as(d, bob, ["sleep", "1000"])
    root_proc = d.spawn(["sleep", "1000"])
    # Real alice, effective bob, and the other way round (only root can make these).
    mixed = [d.spawn(["setpriv", f"--ruid={r.uid}", f"--euid={e.uid}", f"--regid={alice.gid}", "--clear-groups",
                      "sleep", "1000"]) for r, e in ((alice, bob), (bob, alice))]
    a = client(d, alice)
    r = a.create("s", priority=10, plugin="FP")
    assert r["result"] == 0, r
    spec_id = r["id"]
    t = d.task(spec_id)
    assert (t["uid"], t["pid"]) == (alice.uid, a.pid), "identity is the kernel's"

    targets = {"bob's thread": bob_thread, "bob's pid": bob_proc.pid, "bob's client pid": b.pid, "pid 1": 1,
               "root's sleep": root_proc.pid, "ruid alice, euid bob": mixed[0].pid,
               "ruid bob, euid alice": mixed[1].pid}
    mark = len(d.log())
    for what, tid in targets.items():
        r = a.attach("s", str(tid))
        assert r["result"] == EPERM, (what, r)
        assert f"does not belong to uid {alice.uid}" in r["reason"], (what, r)
        assert d.task(spec_id)["tid"] == 0, what
        if tid != 1:
            assert_other(tid)
    assert kernel.sched_getattr(1).sched_policy == kernel.SCHED_OTHER
    assert len([l for l in d.log()[mark:].splitlines()
                if f"audit: uid {alice.uid} pid {a.pid} attach: refused" in l]) == len(targets), d.log()[mark:]
    # Its own thread, of course, it may.
    own = a.thread("own")
    r = a.attach("s", "thread:own")
    assert r["result"] == 0, r
    assert_setting(own, r, dict(priority=10))


def test_thread_that_changes_owner_after_attach_is_demoted(rtfd, tmp_path, users):
    """Ownership is checked while a thread stays attached, not only at attach:
    bob's attached process execs a setuid-root program; within rtfd's 1 s
    watchdog it loses the policy and the specification is detached."""
    bob = users["bob"]
    d = start(rtfd, tmp_path, "- FP max_priority 50\n")
    work = tempfile.mkdtemp(prefix="rtf-suid-", dir="/tmp")
    try:
        os.chmod(work, 0o755)
        suid = os.path.join(work, "suid-sleep")
        shutil.copy("/usr/bin/sleep", suid)
        os.chown(suid, 0, 0)
        os.chmod(suid, 0o4755)
        go = os.path.join(work, "go")
        os.mkfifo(go, 0o666)
        os.chmod(go, 0o666)
        proc = spawn_as(d, bob, ["sh", "-c", f"read x < {go}; exec {suid} 1000"])
        b = client(d, bob)
        r = b.create("s", priority=10, plugin="FP")
        assert r["result"] == 0, r
        spec_id = r["id"]
        r = b.attach("s", str(proc.pid))
        assert r["result"] == 0, r
        assert_setting(proc.pid, r, dict(priority=10))
        time.sleep(1.5)                 # a watchdog round or more: still bob's, still attached
        assert d.task(spec_id)["tid"] == proc.pid
        assert kernel.sched_getattr(proc.pid).sched_policy == kernel.SCHED_FIFO
        with open(go, "w") as f:
            f.write("now\n")
        wait_for(lambda: "\tUid:" not in open(f"/proc/{proc.pid}/status").read() or
                 open(f"/proc/{proc.pid}/status").read().split("\nUid:")[1].split()[1] == "0",
                 what="the setuid exec")
        wait_for(lambda: d.task(spec_id)["tid"] == 0, what="the spec detached by the watchdog")
        assert_other(proc.pid)
        assert f"audit: uid {bob.uid} pid {b.pid}: thread {proc.pid} of spec {spec_id} now belongs to uid " \
               f"{bob.uid}/0" in d.log(), d.log()
        assert d.running()
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("how", ["detach", "release", "close"])
def test_recycled_thread_id_of_another_user_is_never_touched(rtfd, tmp_path, users, how):
    """alice's attached thread exits and its id goes to a process of bob's
    that is SCHED_FIFO 7 on its own (root set it): whatever alice does next,
    rtfd must neither demote it nor let alice attach it."""
    alice, bob = users["alice"], users["bob"]
    d = start(rtfd, tmp_path, "- FP max_priority 50\n")
    a = client(d, alice)
    tid = a.thread("t")
    assert a.create("s", priority=20, plugin="FP")["result"] == 0
    assert a.attach("s", "thread:t")["result"] == 0
    a.exit_thread("t")
    impostor = spawn_with_pid(d, tid, bob.setpriv() + ["sleep", "1000"])
    if impostor is None:
        pytest.skip(f"could not make the kernel reuse tid {tid} (ns_last_pid)")
    kernel.sched_setattr(impostor.pid, kernel.SCHED_FIFO, priority=7)

    if how == "detach":
        a.detach("s")
        r = a.attach("s", str(impostor.pid))
        assert r["result"] == EPERM, r
    elif how == "release":
        assert a.release("s")["result"] == 0
    else:
        a.quit()
    if how != "detach":
        wait_for(lambda: all(t["uid"] != alice.uid for t in d.tasks()), what="alice's spec to go")
    d.tasks()   # one more round trip through rtfd, after it handled the above
    assert kernel.thread_exists(impostor.pid)
    # setpriv may not have dropped to bob yet (it runs at FIFO 7 from birth): wait for it.
    def is_bobs():
        with open(f"/proc/{impostor.pid}/status") as f:
            return f"\nUid:\t{bob.uid}\t" in f.read()
    wait_for(is_bobs, what="the impostor to be bob's")
    a_ = kernel.sched_getattr(impostor.pid)
    assert (a_.sched_policy, a_.sched_priority) == (kernel.SCHED_FIFO, 7), "rtfd touched bob's process"
    assert all(t["tid"] != impostor.pid for t in d.tasks())


# ---- the policy file ---------------------------------------------------------------

def failed_start(rtfd, tmp_path, policy, mode=0o644, owner=None):
    """rtfd must refuse to start with this policy; returns (path, its error lines)."""
    path = str(tmp_path / "acl.conf")
    if policy is not None:
        write_root_file(path, policy, mode)
        if owner:
            os.chown(path, owner.uid, owner.gid)
    d = rtfd(CONFIG, args=("--acl", path), wait=False)
    rc = d.wait_exit()
    assert rc != 0, f"rtfd started with policy {path}:\n{d.log()}"
    assert not os.path.exists(d.socket)
    return path, [l for l in d.log().splitlines() if l.startswith("rtfd[error]")]


@pytest.mark.parametrize("mode, owner, problem", [(0o664, None, "writable"), (0o646, None, "writable"),
                                                  (0o666, None, "writable"), (0o644, "alice", "owned by root")],
                         ids=["group-writable", "other-writable", "world-writable", "owned-by-alice"])
def test_unsafe_policy_file_is_refused(rtfd, tmp_path, users, mode, owner, problem):
    path, errors = failed_start(rtfd, tmp_path, "rtf-alice FP max_priority 10\n", mode=mode,
                                owner=users[owner] if owner else None)
    assert any(path in l and problem in l for l in errors), errors


def test_missing_policy_file_is_refused(rtfd, tmp_path, users):
    """With --acl, the file must exist: no policy would silently mean "only root"."""
    path, errors = failed_start(rtfd, tmp_path, None)
    assert any(path in l for l in errors), errors


@pytest.mark.parametrize("policy, line, what", [
    ("rtf-alice FP max_priority 10\nrtf-nosuchuser FP max_priority 10\n", 2, 'unknown user "rtf-nosuchuser"'),
    ("@rtf-nosuchgroup FP max_priority 10\n", 1, 'unknown group "rtf-nosuchgroup"'),
    ("# comment\n\nrtf-alice FP max_prio 10\n", 3, 'unknown property "max_prio"'),
    ("rtf-alice FP max_priority 100\n", 1, 'invalid max_priority "100"'),
    ("rtf-alice EDF max_utilization 0.5x\n", 1, 'invalid max_utilization "0.5x"'),
    ("rtf-alice EDF max_runtime -1\n", 1, 'invalid max_runtime "-1"'),
    ("rtf-alice EDF ignore_adm_test yes\n", 1, 'invalid ignore_adm_test "yes"'),
    ("rtf-alice NOPE max_priority 10\n", 1, 'unknown plugin "NOPE"'),
    ("rtf-alice FP max_priority\n", 1, "expected DOMAIN PLUGIN PROPERTY VALUE"),
], ids=["unknown-user", "unknown-group", "unknown-key", "priority-100", "bad-utilization", "negative-runtime",
        "bad-boolean", "unknown-plugin", "three-words"])
def test_broken_policy_is_refused_with_file_and_line(rtfd, tmp_path, users, policy, line, what):
    path, errors = failed_start(rtfd, tmp_path, policy)
    assert any(f"acl.conf:{line}: {what}" in l and path in l for l in errors), errors


def test_sighup_with_a_broken_policy_keeps_the_old_one(rtfd, tmp_path, users):
    alice = users["alice"]
    d = start(rtfd, tmp_path, "rtf-alice FP max_priority 20\n")
    c = client(d, alice)
    assert c.create("s1", priority=20, plugin="FP")["result"] == 0

    write_root_file(d.acl, "rtf-alice FP max_priority 30\nthis is not a rule\n")
    log = d.reload(CONFIG)
    assert "Reload failed" in log and "acl.conf:2" in log, log
    assert d.running()
    assert c.create("s2", priority=20, plugin="FP")["result"] == 0, "a previous grant still holds"
    refused(c.create("s3", priority=25, plugin="FP"), "max_priority 20")

    # The same path with a good policy: SIGHUP does read the policy.
    write_root_file(d.acl, "rtf-alice FP max_priority 30\n")
    log = d.reload(CONFIG)
    assert "reloaded" in log, log
    assert c.create("s3", priority=25, plugin="FP")["result"] == 0
    assert len(d.tasks()) == 3


def test_reload_keeps_the_utilization_held(rtfd, tmp_path, users):
    """A reload restarts the per-rule sums from the live specifications, not from 0."""
    d = start(rtfd, tmp_path, "rtf-alice EDF max_utilization 0.5\n")
    c = client(d, users["alice"])
    assert c.create("a", period=10000, runtime=4000, plugin="EDF")["result"] == 0
    write_root_file(d.acl, "# reloaded\nrtf-alice EDF max_utilization 0.5\n")
    assert "reloaded" in d.reload(CONFIG)
    refused(c.create("b", period=10000, runtime=2000, plugin="EDF"), "0.4 held", "acl.conf:2")
    assert c.create("b", period=10000, runtime=1000, plugin="EDF")["result"] == 0
