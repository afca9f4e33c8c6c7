# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtfd's log cannot be forged or flooded by a client (issue 10, points 6 and
7), tried by real users (users.py) over raw connections (wire.py)."""
import time

import wire
from rtfit import start_with_policy, wait_for
from users import client, connect_as, users  # noqa: F401 - users is a fixture

CONFIG = "FP FP.so 1-99 all\n"
POLICY = "rtf-alice FP max_priority 50\n"
FORGED = "audit: uid 0 granted"


def test_a_plugin_name_cannot_forge_or_colour_a_log_line(rtfd, tmp_path, users):
    """carol (no grant) names a plugin with a newline, a forged audit line, a
    journal priority prefix and a terminal escape.  Fails on main (9e4110f):
    the newline starts a line of rtfd's log that reads as an audit line."""
    carol = users["carol"]
    d = start_with_policy(rtfd, tmp_path, CONFIG, POLICY)
    s, _ = connect_as(carol, d.socket)
    name = "\n" + FORGED + "\x1b[2J<2>"
    r = wire.call(s, wire.create(priority=10, plugin=name))
    assert r["result"] != 0, r
    d.tasks()                   # one more round trip: rtfd has logged the refusal
    log = d.log()
    assert f"audit: uid {carol.uid} " in log, log
    for line in log.splitlines():
        assert not line.startswith(FORGED), line
        assert not line.startswith("<"), line
        assert "\x1b" not in line, line
    assert "\\x0a" + FORGED + "\\x1b[2J<2>" in log, log
    s.close()


def test_refusals_of_one_peer_are_summarised_and_grants_never_dropped(rtfd, tmp_path, users):
    """carol sends 1,000 requests rtfd refuses as fast as she can, while alice
    is granted one: a handful of refusal lines, then one line counting the
    rest; alice's grant is audited.  Fails on main (9e4110f): one line each."""
    carol, alice = users["carol"], users["alice"]
    d = start_with_policy(rtfd, tmp_path, CONFIG, POLICY)
    s, pid = connect_as(carol, d.socket)
    a = client(d, alice)
    refused = 0
    for i in range(1000):
        r = wire.call(s, wire.create(seq=i + 1, priority=10))
        refused += r["result"] != 0
        if i == 500:
            granted = a.create("s", priority=10)
            assert granted["result"] == 0, granted
    assert refused == 1000
    carol_lines = [l for l in d.log().splitlines() if f"audit: uid {carol.uid} " in l]
    assert 1 <= len(carol_lines) <= 11, f"{len(carol_lines)} refusal lines for 1,000 refusals"
    assert any(f"audit: uid {alice.uid} " in l and "granted" in l for l in d.log().splitlines())
    time.sleep(1.1)
    wire.call(s, wire.create(seq=2000, priority=10))
    line = wait_for(lambda: [l for l in d.log().splitlines() if f"audit: uid {carol.uid} " in l
                             and "more refusals not logged" in l], what="the summary line")
    count = int(line[0].split("pid ")[1].split(": ")[1].split()[0])
    # Some of the 1,000 were refused by the request-rate limit, which is not
    # an audit event: the summary counts the audited ones it left out.
    assert 100 <= count <= 1000 - len(carol_lines), line
    s.close()
