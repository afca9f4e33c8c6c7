# SPDX-License-Identifier: LGPL-2.1-or-later
"""A misbehaving peer costs only its own connection: rtfd closes it, says
why in its log, and keeps serving everybody else."""
import errno
import os
import struct

import pytest

import wire
from rtfit import GLOBAL, start_with_policy, wait_for
from users import connect_as, users  # noqa: F401 - users is a fixture

ABUSES = {
    "garbage": (b"\xde\xad\xbe\xef" * 16, "unsupported protocol version"),
    "truncated-header": (wire.create(priority=10)[:10], "shorter than its header"),
    "truncated-body": (wire.create(priority=10)[:-8], "shorter than its header or its declared size"),
    "oversized": (wire.packet(wire.STATUS, b"\0" * 5000), "exceeds 4096"),
    "wrong-version": (wire.packet(wire.CREATE, wire.params(priority=10), version=3),
                      "unsupported protocol version"),
    "version-zero": (wire.packet(wire.STATUS, struct.pack("<II", 0, 0), version=0), "unsupported protocol version"),
    "unknown-type": (wire.packet(99, struct.pack("<Q", 1)), "unknown message type"),
    "reply-as-request": (wire.packet(wire.REPLY, b"\0" * wire.REPLY_BODY.size), "reply type"),
    "reserved-not-zero": (wire.packet(wire.STATUS, struct.pack("<II", 0, 0), reserved=7), "reserved field"),
    "plugin-not-terminated": (wire.packet(wire.CREATE, wire.PARAMS.pack(0x30, 10, 0, 0, 0, 0, b"x" * 32)),
                              "not NUL-terminated"),
    # Statistics reports (version 2): never answered, so a bad one costs the connection.
    "report-in-version-1": (wire.report(1, version=1, periods=1), "unknown message type"),
    "report-truncated": (wire.packet(wire.REPORT, struct.pack("<Q", 1) + wire.stats()[:-8], version=2),
                         "size does not match"),
    "report-more-overruns-than-periods": (wire.report(1, periods=3, overruns=4), "field value out of range"),
    "report-budget-above-period": (wire.report(1, period_ns=1000, budget_ns=1001), "field value out of range"),
    "report-unknown-budget-mode": (wire.report(1, budget_mode=3), "field value out of range"),
    "report-unknown-flag": (wire.report(1, flags=2), "reserved field"),
    "task-stats-reserved-not-zero": (wire.packet(wire.TASK_STATS, struct.pack("<II", 0, 1), version=2),
                                     "reserved field"),
    "task-stats-reply-as-request": (wire.packet(wire.TASK_STATS_REPLY, b"\0" * 16, version=2), "reply type"),
}


@pytest.mark.parametrize("abuse", ABUSES.keys())
def test_bad_packet_closes_only_that_connection(rtfd, abuse):
    data, reason = ABUSES[abuse]
    d = rtfd(GLOBAL)
    good = d.client()
    assert good.create("before", priority=10)["result"] == 0
    bystander = wire.connect(d.socket)     # an idle raw connection, also untouched

    mark = len(d.log())
    bad = wire.connect(d.socket)
    bad.send(data)
    assert bad.recv(wire.MSG_MAX + 1) == b"", "rtfd must close the connection"
    bad.close()
    wait_for(lambda: "Closing connection of pid %d" % os.getpid() in d.log()[mark:],
             what="rtfd to log the closed connection")
    line = [l for l in d.log()[mark:].splitlines() if "Closing connection" in l][0]
    assert reason in line, line

    assert d.running()
    assert good.create("after", priority=11)["result"] == 0
    assert good.release("before")["result"] == 0
    bystander.send(wire.status(seq=42))
    assert wire.header(bystander.recv(wire.MSG_MAX + 1))[1:4:2] == (wire.STATUS_REPLY, 42)
    bystander.close()


def test_client_that_never_reads_does_not_block_others(rtfd):
    d = rtfd(GLOBAL)
    flood = wire.connect(d.socket)
    flood.setblocking(False)
    sent = 0
    try:
        for seq in range(1, 20000):
            flood.send(wire.status(seq=seq))
            sent += 1
    except BlockingIOError:
        pass
    assert sent > 8, "the flooding client could not even fill rtfd's reply queue"

    good = d.client()
    for i in range(20):
        r = good.create(f"s{i}", priority=10 + i)
        assert r["result"] == 0, r
    assert len(d.tasks()) == 20
    assert {c["plugin"] for c in d.cores()} == {"EDF", "FP"}
    assert d.running()

    # The flooding client is still served, at its own pace, once it reads.
    flood.setblocking(True)
    flood.settimeout(10)
    first = flood.recv(wire.MSG_MAX + 1)
    assert len(first) > wire.HEADER.size
    _, msg_type, _, seq, _ = wire.header(first)
    assert (msg_type, seq) == (wire.STATUS_REPLY, 1)
    flood.close()


def test_many_connections_in_parallel(rtfd):
    """Each connection has its own requests and replies (sequence numbers)."""
    d = rtfd(GLOBAL)
    socks = [wire.connect(d.socket) for _ in range(30)]
    for i, s in enumerate(socks):
        s.send(wire.create(seq=1000 + i, priority=1 + i % 99))
    ids = set()
    for i, s in enumerate(socks):
        r = wire.parse_reply(s.recv(wire.MSG_MAX + 1))
        assert (r["seq"], r["result"]) == (1000 + i, 0), r
        ids.add(r["id"])
    assert len(ids) == 30 and len(d.tasks()) == 30
    for s in socks:
        s.close()
    wait_for(lambda: d.tasks() == [], what="rtfd to release the closed connections' specs")


def test_older_clients_are_answered_in_their_version(rtfd):
    """Version 1 clients (these tests' default) get version 1 packets; a
    version 2 question gets a version 2 answer; both on one connection."""
    d = rtfd(GLOBAL)
    s = wire.connect(d.socket)
    r1 = wire.call(s, wire.create(seq=1, priority=10))
    assert r1["result"] == 0, r1
    r2 = wire.call(s, wire.packet(wire.CREATE, wire.params(priority=11), seq=2, version=wire.VERSION2),
                   version=wire.VERSION2)
    assert r2["result"] == 0 and r2["id"] > r1["id"], r2
    s.send(wire.report(r1["id"], seq=3, periods=5))
    for version, kind, reply in ((1, wire.TASKS, wire.TASKS_REPLY), (2, wire.TASKS, wire.TASKS_REPLY),
                                 (2, wire.TASK_STATS, wire.TASK_STATS_REPLY)):
        s.send(wire.packet(kind, struct.pack("<II", 0, 0), seq=10 + version, version=version))
        data = s.recv(wire.MSG_MAX + 1)
        assert wire.header(data)[:2] == (version, reply), wire.header(data)
        total, start, count, _ = struct.unpack_from("<IIII", data, wire.HEADER.size)
        if kind == wire.TASKS:
            assert (total, count, len(data)) == (2, 2, wire.HEADER.size + 16 + 2 * 112)
        else:
            # only the spec with a report; id, age, then the statistics as sent
            assert (total, count, len(data)) == (1, 1, wire.HEADER.size + 16 + 96)
            spec_id, _ = struct.unpack_from("<QQ", data, wire.HEADER.size + 16)
            stats = dict(zip(wire.STATS_FIELDS, wire.STATS.unpack_from(data, wire.HEADER.size + 32)))
            assert spec_id == r1["id"] and stats["periods"] == 5, stats
    # A version-1 client asking a version-2 question is closed: the question does not exist for it.
    s.send(wire.packet(wire.TASK_STATS, struct.pack("<II", 0, 0), seq=20, version=1))
    assert s.recv(wire.MSG_MAX + 1) == b""
    s.close()
    assert d.running()


def test_reports_cost_request_tokens(rtfd, tmp_path, users):
    """A report is a request for the rate limit: a flood of them is dropped
    beyond the burst and leaves the connection's bucket empty."""
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, GLOBAL + "set max_requests_per_sec 1\nset request_burst 5\n",
                          "rtf-carol - max_priority 99\n")
    s, _ = connect_as(carol, d.socket)
    created = wire.call(s, wire.create(seq=1, priority=10))
    assert created["result"] == 0, created
    for i in range(1, 21):
        s.send(wire.report(created["id"], seq=1 + i, periods=i))
    refused = wire.call(s, wire.create(seq=30, priority=10))
    assert refused["result"] == -errno.EAGAIN and "max_requests_per_sec" in refused["reason"], refused
    shown = d.task(created["id"])["reported_by_client"]
    assert shown is not None and 1 <= shown["periods"] < 20, shown
    s.close()
