"""`kill -9` of `harness run` at any moment leaves whole runs or nothing of them, and the
same batch resumed finishes it; a killed export leaves nothing the next export keeps."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import Harness
from harness.schema import SHEET_NAMES

COMPANIES = ["Acme Corp", "Contoso", "Northwind Traders Inc", "Vandelay Industries Inc", "Fabrikam", "Tailspin Airlines"]
REPEATS = 3
_HARNESS = [sys.executable, "-c", "from harness.cli import main; main()"]


def _run_cli(store: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([*_HARNESS, "run", *COMPANIES, "--repeats", str(REPEATS), "--no-excel", "--no-judge",
                             "--store", str(store), *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": os.getcwd()})


def _runs_stored(store: Path) -> int:
    try:
        with sqlite3.connect(store, timeout=5) as connection:
            return connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def _orphans(store: Path) -> dict[str, int]:
    """Rows per sheet whose run has no runs row."""
    with sqlite3.connect(store) as connection:
        return {name: n for name in SHEET_NAMES if name != "runs" and (n := connection.execute(
            f'SELECT COUNT(*) FROM "{name}" WHERE run_id NOT IN (SELECT run_id FROM runs)').fetchone()[0])}


@pytest.mark.parametrize("kill_after_runs", [1, 4, 8])
def test_a_batch_killed_at_any_point_keeps_whole_runs_and_resumes_to_the_end(tmp_path, kill_after_runs):
    store = tmp_path / "runs.db"
    batch = _run_cli(store)
    deadline = time.monotonic() + 60
    while _runs_stored(store) < kill_after_runs and batch.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    batch.send_signal(signal.SIGKILL)
    batch.wait()
    with sqlite3.connect(store) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _orphans(store) == {}
    killed_at = _runs_stored(store)
    assert kill_after_runs <= killed_at < len(COMPANIES) * REPEATS

    resumed = _run_cli(store, "--resume")
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    frames = Harness(store=store, writer="inline").sheets()
    runs = frames["runs"]
    assert len(runs) == runs["run_id"].nunique() == len(COMPANIES) * REPEATS
    assert _orphans(store) == {}
    assert len(frames["consistency_scores"]) == len(COMPANIES)  # each company's group row, once
    assert (frames["log_tests"]["verification_status"] == "pass").all()


def test_the_same_batch_id_again_adds_no_run(tmp_path):
    store = tmp_path / "runs.db"
    for _ in range(2):
        done = _run_cli(store, "--batch-id", "nightly-1")
        assert done.wait(timeout=120) == 0
    with sqlite3.connect(store) as connection:
        assert connection.execute("SELECT COUNT(*), COUNT(DISTINCT run_id) FROM runs").fetchone() == (18, 18)
        consistency = connection.execute("SELECT COUNT(*) FROM consistency_scores").fetchone()[0]
    assert consistency == len(COMPANIES)  # each group's row written once, not once per invocation


def test_a_killed_export_leaves_nothing_the_next_export_keeps(tmp_path):
    store = tmp_path / "runs.db"
    h = Harness(store=store, writer="inline")
    with h.run(subject="export"):
        pass
    target = tmp_path / "runs.xlsx"
    # An export stopped after its first sheet, then killed: its temp file and scratch
    # directory are on disk.
    script = ("import sys, time; from harness import Harness\n"
              "Harness(store=sys.argv[1], writer='inline').store\n"
              "from exporters import write_excel; from harness.store import Store\n"
              "write_excel(Store(sys.argv[1]), sys.argv[2], progress=lambda *a: time.sleep(60))")
    export = subprocess.Popen([sys.executable, "-c", script, str(store), str(target)],
                              env={**os.environ, "PYTHONPATH": os.getcwd()})
    deadline = time.monotonic() + 30
    while len(list(tmp_path.glob(".runs.xlsx.*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    export.send_signal(signal.SIGKILL)
    export.wait()
    leftovers = list(tmp_path.glob(".runs.xlsx.*"))
    assert {p.is_dir() for p in leftovers} == {True, False} and not target.exists()
    h.export_excel(target)
    assert target.exists() and list(tmp_path.glob(".runs.xlsx.*")) == []
