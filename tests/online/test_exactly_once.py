"""Exactly once, whatever happens to the workers: a worker killed with SIGKILL in the middle of
a batch and started again scores every sampled run once and none twice; two workers on one
PostgreSQL store (and on one SQLite file) share the runs with no run scored by both."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from collections import Counter

import pytest

from harness import Store
from harness.online import in_sample
from tests.online.support import calls, record_runs, score_once, start_worker

SCORER = "tests.online.scorers:logged"


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "prod.db")
    return request.getfixturevalue("pg_url")


def _claims(url: str) -> list[tuple]:
    store = Store(url)
    try:
        return store._fetchall('SELECT run_id, state, worker, attempts FROM "score_claims"')
    finally:
        store.close()


def _scores(url: str) -> list[dict]:
    store = Store(url)
    try:
        return list(store.rows("scores", columns=["run_id", "name", "explanation", "error", "scorer_version"]))
    finally:
        store.close()


def _wait(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"waited {seconds} s for {what}")


def test_a_worker_killed_mid_batch_and_started_again_scores_every_sampled_run_once(store_url, tmp_path):
    ids = record_runs(store_url, 160)
    sampled = {run_id for run_id in ids if in_sample(run_id, 0.7)}
    log = tmp_path / "calls.log"
    worker = start_worker(store_url, "--follow", "--scorer", SCORER, "--sample", "0.7", "--batch", "16",
                          "--lease", "1", log=log, sleep=0.02)
    try:
        # Killed while a batch is being scored: some runs settled, some called but not settled.
        def settled_and_holding() -> bool:  # not between two batches, when it holds nothing
            states = Counter(state for _, state, _, _ in _claims(store_url))
            return states["scored"] >= 40 and states["claimed"] > 0

        _wait(settled_and_holding, 120, "the first worker to settle 40 runs and hold more")
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(10)
    finally:
        if worker.poll() is None:
            worker.kill()
    killed = {run_id for run_id, state, who, _ in _claims(store_url) if state == "scored"}
    in_flight = {run_id for run_id, state, _, _ in _claims(store_url) if state == "claimed"}
    assert killed and len(killed) < len(sampled)  # it died part way
    time.sleep(1.2)  # its lease runs out
    done = score_once(store_url, "--scorer", SCORER, "--sample", "0.7", "--lease", "1", log=log)
    assert done.returncode == 0, done.stderr

    claims = _claims(store_url)
    states = Counter(state for _, state, _, _ in claims)
    assert states == {"scored": len(sampled), "unsampled": len(ids) - len(sampled)}
    scores = _scores(store_url)
    assert sorted(s["run_id"] for s in scores) == sorted(sampled)  # every sampled run once, no other run
    assert all(s["error"] is None and s["scorer_version"] for s in scores)
    # None scored twice: a run the killed worker settled was never called again, and the score
    # stored for each run is that of the call that settled it.
    log_calls = calls(log)
    second = [run_id for run_id, pid, _ in log_calls if pid != worker.pid]
    assert not set(second) & killed
    assert set(second) == sampled - killed
    stored = {s["run_id"]: s["explanation"] for s in scores}
    by_token = {token: (run_id, pid) for run_id, pid, token in log_calls}
    for run_id, explanation in stored.items():
        pid, token = int(explanation.split()[1]), explanation.split()[3]
        assert by_token[token] == (run_id, pid)
        assert (pid == worker.pid) == (run_id in killed)
    # The runs the killed worker held were taken back: claimed a second time.
    attempts = {run_id: n for run_id, _, _, n in claims}
    assert in_flight and all(attempts[run_id] == 2 for run_id in in_flight)


def test_two_workers_share_the_runs_and_no_run_is_scored_by_both(store_url, tmp_path):
    ids = record_runs(store_url, 200)
    log = tmp_path / "calls.log"
    workers = [start_worker(store_url, "--once", "--scorer", SCORER, "--batch", "5", log=log, sleep=0.01)
               for _ in range(2)]
    outs = [w.communicate(timeout=300) for w in workers]
    assert [w.returncode for w in workers] == [0, 0], [err for _, err in outs]
    per_run = Counter(run_id for run_id, _, _ in calls(log))
    assert set(per_run) == set(ids) and set(per_run.values()) == {1}
    pids = Counter(pid for _, pid, _ in calls(log))
    assert set(pids) == {w.pid for w in workers}  # both took part
    assert sorted(s["run_id"] for s in _scores(store_url)) == sorted(ids)
    seen = [int(line.split("│")[3].strip().replace(",", "")) for out, _ in outs for line in out.splitlines()
            if line.startswith("│ logged")]
    assert sum(seen) == len(ids)  # their counts add up to the runs, each seen by one worker


def test_a_sqlite_store_shared_by_workers_keeps_its_write_ahead_log(tmp_path):
    """SQLite's immediate transactions serialise the claims; the file stays in WAL mode."""
    url = str(tmp_path / "prod.db")
    record_runs(url, 20)
    assert score_once(url, "--scorer", SCORER).returncode == 0
    with sqlite3.connect(url) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
