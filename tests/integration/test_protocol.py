# SPDX-License-Identifier: LGPL-2.1-or-later
"""A misbehaving peer costs only its own connection: rtfd closes it, says
why in its log, and keeps serving everybody else."""
import os
import struct

import pytest

import wire
from rtfit import GLOBAL, wait_for

ABUSES = {
    "garbage": (b"\xde\xad\xbe\xef" * 16, "unsupported protocol version"),
    "truncated-header": (wire.create(priority=10)[:10], "shorter than its header"),
    "truncated-body": (wire.create(priority=10)[:-8], "shorter than its header or its declared size"),
    "oversized": (wire.packet(wire.STATUS, b"\0" * 5000), "exceeds 4096"),
    "wrong-version": (wire.packet(wire.CREATE, wire.params(priority=10), version=2),
                      "unsupported protocol version"),
    "unknown-type": (wire.packet(99, struct.pack("<Q", 1)), "unknown message type"),
    "reply-as-request": (wire.packet(wire.REPLY, b"\0" * wire.REPLY_BODY.size), "reply type"),
    "reserved-not-zero": (wire.packet(wire.STATUS, struct.pack("<II", 0, 0), reserved=7), "reserved field"),
    "plugin-not-terminated": (wire.packet(wire.CREATE, wire.PARAMS.pack(0x30, 10, 0, 0, 0, 0, b"x" * 32)),
                              "not NUL-terminated"),
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
