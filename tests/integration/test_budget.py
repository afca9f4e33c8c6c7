# SPDX-License-Identifier: LGPL-2.1-or-later
"""Periodic tasks with budgets (issue 4): the semantics of section 3.2 of the
RTAI budget paper and both overrun policies, with controlled workloads
(tests/integration/budgetclient.c) admitted through a real rtfd; the RTAI
API and its example; rtf-budget --json.  Behaviour only, never durations:
the per-period precision is a benchmark (docs/BUDGETS.md), not a test."""
import json
import os
import subprocess

import pytest

from rtfit import GLOBAL

RTE_TMROVRN = 0xFFFC
RTE_OBJINV = 0xFFFF
SOFT, HARD, NONE = 1, 2, 0


def _exe(build, *parts):
    path = os.path.join(build.path, *parts)
    if not os.access(path, os.X_OK):
        pytest.skip(f"{path} is not built")
    return path


def run_client(build, d, scenario, env=None):
    exe = _exe(build, "tests", "integration", "budgetclient")
    r = subprocess.run([exe, scenario], env=dict(os.environ, RTF_SOCKET=d.socket, **(env or {})),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr + d.log()
    out = json.loads(r.stdout)
    assert "error" not in out, out
    return out


@pytest.fixture
def daemon(rtfd):
    return rtfd(None, args=("--default-config",))


def test_job_of_one_and_a_half_budgets_is_suspended_and_finishes_next_period(build, daemon):
    out = run_client(build, daemon, "exhaust")
    st = out["stats"]
    assert st["budget_mode"] == SOFT
    # Suspended once, at W; the job ended only after its period was over.
    assert st["budget_exhaustions"] == 1
    assert out["job_ended_after_its_period"] is True
    assert st["max_job_cpu_ns"] >= 6_000_000
    # The wait_period of the exhausted period was ignored, not reported as a miss.
    assert st["ignored_waits"] == 1
    assert out["returns"][0] == 0
    assert st["missed_releases"] == 0 and st["delayed_pending"] == 0
    assert st["periods"] == 4
    assert out["task_freed"] is True
    assert daemon.tasks() == []


def test_task_within_budget_is_unaffected(build, daemon):
    out = run_client(build, daemon, "within")
    st = out["stats"]
    assert st["budget_mode"] == SOFT
    assert st["budget_exhaustions"] == 0
    assert st["ignored_waits"] == 0
    assert st["periods"] == 5
    assert all(r >= 0 for r in out["returns"])


def test_soft_budget_opt_out(build, daemon):
    out = run_client(build, daemon, "opt-out")
    st = out["stats"]
    # Jobs of 1.5 W run to the end: nothing is enforced.
    assert st["budget_mode"] == NONE
    assert st["budget_exhaustions"] == 0 and st["ignored_waits"] == 0
    assert st["max_job_cpu_ns"] >= 6_000_000


def test_skip_policy_drops_missed_releases(build, daemon):
    out = run_client(build, daemon, "skip")
    st = out["stats"]
    assert out["returns"][0] >= 2            # a job 2.5 periods long
    assert st["missed_releases"] >= 2
    # Every release is either run or dropped: the grid moved by both.
    assert out["on_grid"]
    assert out["grid_offset_periods"] == st["periods"] + st["missed_releases"]


def test_catch_up_policy_runs_missed_releases(build, daemon):
    out = run_client(build, daemon, "catch-up")
    st = out["stats"]
    rets = out["returns"]
    assert rets[0] >= 2
    # The missed jobs run back to back, each reporting fewer releases behind.
    assert rets[1] == rets[0] - 1 or rets[1] == 0
    assert 0 in rets
    # No release is dropped: one job per release.
    assert out["on_grid"]
    assert out["grid_offset_periods"] == st["periods"]
    assert st["missed_releases"] >= 1


def test_rtai_api_return_codes_and_budget(build, daemon):
    out = run_client(build, daemon, "rtai")
    assert out["wait_before_init"] == RTE_OBJINV
    assert out["second_init_refused"] is True
    assert out["wait_before_periodic"] == RTE_OBJINV
    assert out["bad_period"] < 0
    assert out["make_periodic_budget"] == 0
    assert out["wait_other_thread"] == RTE_OBJINV
    rets = out["returns"]
    # Waits for the start, then on time; a job 2.5 periods long is caught up
    # with RTE_TMROVRN; a job of 1.5 W is suspended, its wait is ignored (0).
    assert rets[0] == 0
    assert rets[2] == RTE_TMROVRN
    assert RTE_TMROVRN not in rets[5:]
    assert rets[6] == 0
    assert all(r in (0, RTE_TMROVRN) for r in rets)
    assert out["budget_mode"] == SOFT
    assert out["budget_exhaustions"] == 1
    assert out["ignored_waits"] == 1
    assert out["delete"] == 0
    assert out["wait_after_delete"] == RTE_OBJINV
    assert daemon.tasks() == []


def test_rtai_example_runs(build, daemon):
    exe = _exe(build, "examples", "rtai", "rtai-budget")
    r = subprocess.run([exe], env=dict(os.environ, RTF_SOCKET=daemon.socket),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr + daemon.log()
    assert "suspended" in r.stdout and "done" in r.stdout, r.stdout
    assert daemon.tasks() == []


@pytest.mark.deadline
def test_rtf_budget_json_short_run(build, rtfd):
    exe = _exe(build, "tools", "rtf-budget", "rtf-budget")
    d = rtfd(GLOBAL)
    r = subprocess.run([exe, "--json", "--periods", "20", "--duration-ms", "50"],
                       env=dict(os.environ, RTF_SOCKET=d.socket), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr + d.log()
    doc = json.loads(r.stdout)
    assert doc["tool"] == "rtf-budget" and doc["version"]
    assert doc["overhead"]["expirations"] > 0
    assert doc["overhead"]["average_ns"] <= doc["overhead"]["max_ns"]
    for mode in ("hard", "soft"):
        tasks = doc["precision"][mode]["tasks"]
        assert [t["name"] for t in tasks] == ["tau1", "tau2", "tau3", "tau4"]
        for t in tasks:
            assert t["period_us"] > 0 and 0 < t["budget_us"] < t["period_us"]
            assert t["periods"] == 20
            assert 0 <= t["violations"] <= t["periods"]
            dist = t["budget_rate"]
            assert dist["min"] <= dist["p50"] <= dist["max"]
            assert len(t["rates"]) == t["periods"]
            assert sum(b["count"] for b in dist["histogram"]) == t["periods"]
    assert d.tasks() == []
