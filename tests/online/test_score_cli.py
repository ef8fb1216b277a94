"""``harness score`` as a user runs it: one-line usage errors, the counts on SIGUSR1 and every
--progress seconds without stopping, SIGTERM stopping it cleanly, ``--status`` from the store."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from harness import Store
from harness.online.status import scoring_status
from tests.online.support import record_runs, score_once, start_worker
from tests.support.cli import harness_cli

SCORER = "tests.online.scorers:logged"


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "prod.db"
    record_runs(path, 30)
    return str(path)


@pytest.mark.parametrize("args, message", [
    ([], "give one of --follow"),
    (["--once", "--follow", "--scorer", SCORER], "give one of --follow"),
    (["--once"], "give at least one --scorer MODULE:FUNCTION"),
    (["--once", "--scorer", "nowhere"], "--scorer is MODULE:FUNCTION"),
    (["--once", "--scorer", SCORER, "--sample", "1.5"], "the sample rate is a number from 0 to 1"),
    (["--once", "--scorer", SCORER, "--max-cost", "5", "--per", "hourly"], "--per is a length of time"),
    (["--once", "--scorer", SCORER, "--max-cost", "0"], "--max-cost is an amount of USD above 0"),
    (["--once", "--scorer", SCORER, "--since", "last tuesday"], "--since is an ISO date or time"),
    (["--once", "--scorer", SCORER, "--json"], "--json goes with --status"),
    (["--status", "--scorer", SCORER], "--status reads the store"),
    (["--once", "--scorer", SCORER, "--max-cost", "5", "--scorer-isolation", "process"],
     "give it with --scorer-isolation thread"),
])
def test_bad_arguments_are_one_line_and_exit_2(store, args, message):
    done = harness_cli("score", "--store", store, *args, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_sigusr1_prints_the_counts_without_stopping_and_sigterm_stops_cleanly(store, tmp_path):
    worker = start_worker(store, "--follow", "--scorer", SCORER, "--progress", "0.5", "--poll", "0.05")
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and worker.poll() is None and _scored(store) < 30:
            time.sleep(0.2)
        os.kill(worker.pid, signal.SIGUSR1)
        time.sleep(1.5)
        assert worker.poll() is None  # still following
        record_runs(store, 5)  # new runs keep arriving and are scored
        time.sleep(2)
        os.kill(worker.pid, signal.SIGTERM)
        out, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, err
    progress = [line for line in err.splitlines() if line.startswith("harness score: logged@")]
    assert len(progress) >= 3  # every 0.5 s and on SIGUSR1
    assert "seen 30 · sampled 30 (100.0%) · scored 30 · errored 0 · skipped by budget 0 · in flight 0" in err
    assert "│ logged │" in out and "│   35 │" in out  # the summary: 35 runs seen and scored


def _scored(store: str) -> int:
    opened = Store(store)
    try:
        return sum(s["scored"] for s in scoring_status(opened)["scorers"])
    finally:
        opened.close()


def test_status_reads_every_workers_counts_from_the_store(store, tmp_path):
    assert score_once(store, "--scorer", SCORER, "--sample", "0.5").returncode == 0
    record_runs(store, 10)
    assert score_once(store, "--scorer", SCORER, "--sample", "0.5").returncode == 0
    done = harness_cli("score", "--status", "--json", "--store", store)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    (scorer,) = data["scorers"]
    assert scorer["seen"] == 40 and scorer["sampled"] + scorer["not_sampled"] == 40
    assert scorer["scored"] == scorer["sampled"] and scorer["in_flight"] == scorer["stalled"] == 0
    assert [w["state"] for w in data["workers"]] == ["stopped", "stopped"]
    assert sum(w["seen"] for w in data["workers"]) == 40
    text = harness_cli("score", "--status", "--store", store).stdout
    assert "online scoring, every worker of the store" in text and "stopped" in text


def test_status_of_a_store_never_scored_says_how_to_start(store):
    done = harness_cli("score", "--status", "--store", store)
    assert done.returncode == 0 and "no run has been scored online in this store yet" in done.stdout
