# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtf's wire protocol (src/shared/protocol.h), spelled independently, to
talk to rtfd without librtf: well-formed requests and deliberately broken
ones."""
import socket
import struct

VERSION = 1
MSG_MAX = 4096

CREATE, CHANGE, RELEASE, ATTACH, DETACH, STATUS, TASKS = 1, 2, 3, 4, 5, 6, 7
REPLY, STATUS_REPLY, TASKS_REPLY = 0x101, 0x106, 0x107

HEADER = struct.Struct("<HHIII")               # version, type, size, seq, reserved
PARAMS = struct.Struct("<IIQQQQ32s")           # flags, priority, period, runtime, des_runtime, deadline, plugin
REPLY_BODY = struct.Struct("<iIQQiI32s128s")   # result, priority, id, accepted, cpu, reserved, plugin, reason

HAS_PERIOD, HAS_RUNTIME, HAS_DES_RUNTIME, HAS_DEADLINE, HAS_PRIORITY, HAS_SCHEDULER = (1 << i for i in range(6))

assert HEADER.size == 16 and PARAMS.size == 72 and REPLY_BODY.size == 192


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


def header(data):
    """(version, type, size, seq, reserved)"""
    return HEADER.unpack_from(data)


def parse_reply(data):
    version, msg_type, size, seq, _ = header(data)
    assert version == VERSION and msg_type == REPLY and size == len(data) == HEADER.size + REPLY_BODY.size
    result, priority, spec_id, accepted, cpu, _, plugin, reason = REPLY_BODY.unpack_from(data, HEADER.size)
    return dict(seq=seq, result=result, priority=priority, id=spec_id, accepted_runtime_us=accepted, cpu=cpu,
                plugin=plugin.rstrip(b"\0").decode(), reason=reason.rstrip(b"\0").decode())


def connect(path, timeout=10.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    s.connect(path)
    return s


def call(sock, pkt):
    sock.send(pkt)
    return parse_reply(sock.recv(MSG_MAX + 1))
