"""``harness monitor``: the production monitor's figures per workflow and window, with their
intervals, and an exit code that alerts only when a threshold is crossed beyond its interval."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest

from harness import Store
from tests.support.cli import harness_cli

NOW = dt.datetime.now(dt.timezone.utc)


def _run(store: Store, workflow: str, minutes_ago: float, passed: int | None, *, status: str = "completed",
         ms: float = 100.0, cost: float | None = 0.001, scores: dict | None = None) -> str:
    run_id = str(uuid.uuid4())
    started = NOW - dt.timedelta(minutes=minutes_ago)
    store.write("runs", [{"run_id": run_id, "workflow": workflow, "status": status, "passed": passed,
                          "started_at": started.isoformat(timespec="microseconds"),
                          "completed_at": (started + dt.timedelta(milliseconds=ms)).isoformat(timespec="microseconds"),
                          "total_time_ms": ms, "total_cost": cost}])
    store.write("scores", [{"run_id": run_id, "name": name, "value": value, "source": "code",
                            "created_at": started.isoformat()} for name, value in (scores or {}).items()])
    return run_id


@pytest.fixture
def dropping(tmp_path):
    """A store whose support workflow passed 95 of 100 runs an hour ago and passes 50 of 100 now;
    its billing workflow is healthy; one experiment run (ignored)."""
    path = tmp_path / "prod.db"
    store = Store(path)
    for i in range(100):
        _run(store, "support", 90 - i * 0.2, 1 if i % 20 else 0, scores={"polite": 0.9})
        _run(store, "support", 50 - i * 0.4, 1 if i % 2 else 0, ms=100.0 + i, scores={"polite": 0.4 + (i % 2) * 0.2})
    for i in range(40):
        _run(store, "billing", 30 - i * 0.5, 1, status="completed" if i else "failed")
    store.write("runs", [{"run_id": "exp-run", "workflow": "support", "status": "failed", "passed": 0,
                          "experiment": "offline", "started_at": NOW.isoformat()}])
    store.close()
    return path


def test_a_pass_rate_that_dropped_below_the_threshold_exits_1_and_says_so(dropping):
    done = harness_cli("monitor", "--store", str(dropping), "--window", "1h", "--windows", "2", "--min-pass", "0.9")
    assert done.returncode == 1, done.stderr
    assert "ALERT support: pass_rate 0.5 [0.3983, 0.6017] is below 0.9 (--min-pass) beyond its interval" in done.stdout
    assert "ok billing: pass_rate 1 [0.9119, 1] is not below 0.9" in done.stdout
    assert "0.95 [" in done.stdout  # the window before, when it was healthy
    assert "critical" in done.stdout and "healthy" in done.stdout


def test_json_gives_every_figure_with_its_interval(dropping):
    done = harness_cli("monitor", "--store", str(dropping), "--window", "1h", "--windows", "2", "--json",
                       "--max-error-rate", "0.05", "--workflow", "billing")
    assert done.returncode == 0, done.stderr  # one failure in forty: 0.025 [0.0006, 0.13] may be 0.05
    data = json.loads(done.stdout)
    (billing,) = data["workflows"]
    latest = billing["windows"][0]
    assert (billing["workflow"], latest["runs"], latest["completed"]) == ("billing", 40, 39)
    assert latest["error_rate"]["value"] == pytest.approx(1 / 40)
    assert latest["error_rate"]["ci_low"] < 0.05 < latest["error_rate"]["ci_high"]
    assert data["alerts"] == [{"workflow": "billing", "option": "--max-error-rate", "metric": "error_rate",
                               "bound": "max", "threshold": 0.05, "value": 0.025,
                               "ci_low": latest["error_rate"]["ci_low"], "ci_high": latest["error_rate"]["ci_high"],
                               "crossed": False}]
    assert billing["windows"][1]["runs"] == 0 and data["crossed"] is False


def test_a_scores_mean_and_the_latency_are_held_to_their_bounds(dropping):
    done = harness_cli("monitor", "--store", str(dropping), "--workflow", "support", "--metric", "polite",
                       "--min", "0.8", "--json")
    assert done.returncode == 1
    (alert,) = json.loads(done.stdout)["alerts"]
    assert alert["metric"] == "polite" and alert["value"] == pytest.approx(0.5) and alert["crossed"]
    fine = harness_cli("monitor", "--store", str(dropping), "--workflow", "support", "--metric", "latency_p95_ms",
                       "--max", "1000")
    assert fine.returncode == 0 and "ok support: latency_p95_ms" in fine.stdout


def test_a_few_unlucky_runs_do_not_page_anyone(tmp_path):
    store = Store(tmp_path / "prod.db")
    for passed in (1, 1, 0):
        _run(store, "support", 5, passed)
    store.close()
    done = harness_cli("monitor", "--store", str(tmp_path / "prod.db"), "--min-pass", "0.9")
    assert done.returncode == 0, done.stdout
    assert "not below 0.9 (--min-pass) beyond its interval" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["--window", "soon"], "--window is a length of time such as 30s, 15m, 1h"),
    (["--metric", "polite"], "--metric polite needs --min V or --max V"),
    (["--min", "0.5"], "--min and --max go with --metric NAME"),
    (["--metric", "pass_rat", "--min", "0.9"], "--metric 'pass_rat' is neither pass_rate"),  # would never alert
])
def test_bad_arguments_are_one_line_and_exit_2(dropping, args, message):
    done = harness_cli("monitor", "--store", str(dropping), *args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
