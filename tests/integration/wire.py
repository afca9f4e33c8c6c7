# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtf's wire protocol (src/shared/protocol.h), spelled independently, to
talk to rtfd without librtf: well-formed requests and deliberately broken
ones."""
import socket
import struct

VERSION = 1                                    # what these tests speak by default: an older client
VERSION2 = 2                                   # REPORT and TASK_STATS (protocol.h's changelog)
MSG_MAX = 4096

CREATE, CHANGE, RELEASE, ATTACH, DETACH, STATUS, TASKS, REPORT, TASK_STATS = range(1, 10)
REPLY, STATUS_REPLY, TASKS_REPLY, TASK_STATS_REPLY = 0x101, 0x106, 0x107, 0x109

HEADER = struct.Struct("<HHIII")               # version, type, size, seq, reserved
PARAMS = struct.Struct("<IIQQQQ32s")           # flags, priority, period, runtime, des_runtime, deadline, plugin
REPLY_BODY = struct.Struct("<iIQQiI32s128s")   # result, priority, id, accepted, cpu, reserved, plugin, reason

HAS_PERIOD, HAS_RUNTIME, HAS_DES_RUNTIME, HAS_DEADLINE, HAS_PRIORITY, HAS_SCHEDULER = (1 << i for i in range(6))

# budget_mode, flags, period_ns, budget_ns, periods, overruns, missed_releases, budget_exhaustions,
# ignored_waits, max_response_ns, max_job_cpu_ns
STATS = struct.Struct("<IIQQQQQQQQQ")
STATS_FIELDS = ("budget_mode", "flags", "period_ns", "budget_ns", "periods", "overruns", "missed_releases",
                "budget_exhaustions", "ignored_waits", "max_response_ns", "max_job_cpu_ns")
STATS_FINAL = 1

assert HEADER.size == 16 and PARAMS.size == 72 and REPLY_BODY.size == 192 and STATS.size == 80


def packet(msg_type, body=b"", seq=1, version=VERSION, size=None, reserved=0):
    if size is None:
        size = HEADER.size + len(body)
    return HEADER.pack(version, msg_type, size, seq, reserved) + body


def params(priority=0, period=0, runtime=0, plugin=""):
    flags = (HAS_PRIORITY if priority else 0) | (HAS_PERIOD if period else 0) | \
        (HAS_RUNTIME if runtime else 0) | (HAS_SCHEDULER if plugin else 0)
    return PARAMS.pack(flags, priority, period, runtime, 0, 0, plugin.encode())


def create(seq=1, **kw):
    return packet(CREATE, params(**kw), seq)


def release(spec_id, seq=1):
    return packet(RELEASE, struct.pack("<Q", spec_id), seq)


def detach(spec_id, seq=1):
    return packet(DETACH, struct.pack("<Q", spec_id), seq)


def attach(spec_id, tid, seq=1):
    return packet(ATTACH, struct.pack("<QiI", spec_id, tid, 0), seq)


def change(spec_id, seq=1, **kw):
    return packet(CHANGE, struct.pack("<Q", spec_id) + params(**kw), seq)


def status(seq=1, start=0):
    return packet(STATUS, struct.pack("<II", start, 0), seq)


def stats(**kw):
    """A statistics body; fields not given are zero."""
    return STATS.pack(*(kw.get(f, 0) for f in STATS_FIELDS))


def report(spec_id, seq=1, version=VERSION2, **kw):
    """REPORT: one way, rtfd never answers it."""
    return packet(REPORT, struct.pack("<Q", spec_id) + stats(**kw), seq, version=version)


def header(data):
    """(version, type, size, seq, reserved)"""
    return HEADER.unpack_from(data)


def parse_reply(data, version=VERSION):
    got, msg_type, size, seq, _ = header(data)
    assert got == version and msg_type == REPLY and size == len(data) == HEADER.size + REPLY_BODY.size
    result, priority, spec_id, accepted, cpu, _, plugin, reason = REPLY_BODY.unpack_from(data, HEADER.size)
    return dict(seq=seq, result=result, priority=priority, id=spec_id, accepted_runtime_us=accepted, cpu=cpu,
                plugin=plugin.rstrip(b"\0").decode(), reason=reason.rstrip(b"\0").decode())


def connect(path, timeout=10.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    s.connect(path)
    return s


def call(sock, pkt, version=VERSION):
    sock.send(pkt)
    return parse_reply(sock.recv(MSG_MAX + 1), version)
