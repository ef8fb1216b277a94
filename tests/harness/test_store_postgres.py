"""The PostgreSQL store, on a real server: the same tables and results as SQLite, many
writers at once, migrations, copies between stores, and one line when it cannot be reached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from harness import ExperimentError, Harness, Store, StoreError
from harness.cli import main
from harness.store import StoreUnavailable
from harness.store.copy import copy_runs
from harness.store.migrations import SCHEMA_VERSION
from tests.experiment.agents import react_agent, sync_graph
from tests.support.cli import harness_cli

ROOT = Path(__file__).resolve().parents[2]
CASES = [{"id": f"q{i}", "input": {"messages": [["user", f"What is the capital of {c}?"]]},
          "reference_answer": city, "expected_tools": ["capital_of"]}
         for i, (c, city) in enumerate((("France", "Paris"), ("Japan", "Tokyo"), ("Peru", "Atlantis")))]


def run_cli(*args):
    with pytest.raises(SystemExit) as done:
        main(list(args))
    return done.value.code


@pytest.fixture
def sqlite_runs(tmp_path):
    """A SQLite store with an experiment of three cases, two repeats each."""
    h = Harness(tmp_path / "laptop.db", writer="thread")
    e = h.experiment("base", react_agent(), CASES, repeats=2)
    h.close()
    return tmp_path / "laptop.db", e.run_ids


def test_a_postgresql_url_opens_the_postgresql_engine(pg_url):
    store = Store(pg_url)
    assert type(store).__name__ == "PostgresStore" and store.count("runs") == 0
    assert Store(pg_url.replace("postgresql://", "postgres://")).count("runs") == 0


def test_copied_runs_read_back_the_same_from_both_engines(sqlite_runs, pg_url, capsys):
    path, run_ids = sqlite_runs
    lite, pg = Store(path), Store(pg_url)
    copied = copy_runs(lite, pg)
    assert copied.runs == 6 and copied.total_rows == sum(lite.count(s) for s in copied.rows)
    a, b = lite.sheets(), pg.sheets()
    for sheet in a:
        assert list(a[sheet].columns) == list(b[sheet].columns)
        pd.testing.assert_frame_equal(a[sheet], b[sheet], check_dtype=True, obj=sheet)
    outputs = []
    for store in (str(path), pg_url):
        assert run_cli("list", "--store", store, "--json") == 0
        listed = json.loads(capsys.readouterr().out)
        assert run_cli("show", run_ids[0], "--store", store, "--json") == 0
        shown = json.loads(capsys.readouterr().out)
        assert run_cli("compare", "base", "base", "--store", store, "--json") == 0
        outputs.append((listed, shown, json.loads(capsys.readouterr().out)))
    assert outputs[0] == outputs[1]


def test_copying_again_copies_nothing_and_copies_back_either_way(sqlite_runs, pg_url, tmp_path, capsys):
    path, _ = sqlite_runs
    assert run_cli("export", "--store", str(path), "--to-store", pg_url) == 0
    assert run_cli("export", "--store", str(path), "--to-store", pg_url, "--experiment", "base") == 0
    assert "copied 6 run(s)" in capsys.readouterr().out.splitlines()[-1]
    assert Store(pg_url).count("runs") == 6
    back = tmp_path / "back.db"
    assert run_cli("export", "--store", pg_url, "--to-store", str(back)) == 0
    assert Store(back).count("llm_calls") == Store(path).count("llm_calls")
    assert Store(back).experiment_record("base") == Store(path).experiment_record("base")


def test_a_retried_write_never_duplicates(pg_url):
    store = Store(pg_url)
    rows = [{"run_id": "r1", "row_key": "r1:runs", "status": "completed"}]
    assert store.write("runs", rows) == 1 and store.write("runs", rows) == 0 and store.count("runs") == 1


def test_the_writer_process_writes_a_graph_into_postgresql(pg_url):
    h = Harness(pg_url, writer="process")
    e = h.experiment("pg", react_agent(), CASES[:2])
    counts = {run: h.store.count("tool_calls", run) for run in e.run_ids}
    h.close()
    assert list(counts.values()) == [1, 1]


WRITER = """
import sys
from harness import Harness
from tests.experiment.agents import react_agent, sync_graph
h = Harness(sys.argv[1], writer="process")
for i in range(int(sys.argv[3])):
    h.experiment(f"w{sys.argv[2]}-{i}", react_agent(),
                 [{"id": "c", "input": {"messages": [["user", "capital of Kenya"]]}, "subject": f"w{sys.argv[2]}-{i}"}])
h.close()
"""


def test_many_processes_write_one_store_at_once_with_no_lost_or_crossed_rows(pg_url):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-c", WRITER, pg_url, str(w), "5"], env=env, cwd=ROOT,
                                stderr=subprocess.PIPE, text=True) for w in range(4)]
    for w in workers:
        assert w.wait(timeout=300) == 0, w.stderr.read()
    store = Store(pg_url)
    runs = list(store.rows("runs", columns=["run_id", "company_name", "experiment"]))
    assert len(runs) == 20 and all(r["company_name"] == r["experiment"] for r in runs)
    for r in runs:  # each run has its own rows, none of another's
        assert store.count("tool_calls", r["run_id"]) == 1 and store.count("llm_calls", r["run_id"]) == 2


def test_an_older_store_is_migrated_and_loses_nothing(pg_url):
    store = Store(pg_url)
    store.write("runs", [{"run_id": "old", "row_key": "old:runs", "status": "completed", "experiment": "e"}])
    store._execute('ALTER TABLE "runs" DROP COLUMN "passed"')
    store._execute("DROP TABLE experiments")
    store._execute("DROP TABLE scores")
    store._execute('ALTER TABLE "runs" DROP COLUMN "outputs"')
    store.set_meta("schema_version", "3")
    store.close()
    reopened = Store(pg_url)
    assert reopened.meta("schema_version") == str(SCHEMA_VERSION)
    assert reopened.count("scores") == 0 and "outputs" in reopened._table_columns("runs")
    (row,) = reopened.rows("runs", columns=["run_id", "status", "experiment", "passed"])
    assert row == {"run_id": "old", "status": "completed", "experiment": "e", "passed": None}
    assert reopened.experiment_records() == []


def test_a_newer_store_is_refused_with_one_line(pg_url, capsys):
    Store(pg_url).set_meta("schema_version", "99")
    with pytest.raises(StoreError, match="schema version 99, newer than this harness knows"):
        Store(pg_url)
    assert run_cli("list", "--store", pg_url) == 2
    assert "newer than this harness knows" in capsys.readouterr().err


def test_an_unreachable_server_is_one_line_and_exit_2_quickly():
    started = time.monotonic()
    done = harness_cli("list", "--store", "postgresql://u@127.0.0.1:1/none", timeout=60)
    assert done.returncode == 2 and time.monotonic() - started < 15
    assert done.stderr.startswith("harness: error: cannot open store") and len(done.stderr.splitlines()) == 1


def test_an_unreachable_server_never_stops_the_graph(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    h = Harness("postgresql://u:secret@127.0.0.1:1/none", writer="thread")
    with pytest.raises(StoreUnavailable):
        h.store.count("runs")
    with h.run(subject="offline") as run:  # a run goes on; its rows wait in the spool
        assert sync_graph().invoke({"question": "capital of Peru"}, config=run.config)["answer"] == "Lima"
    assert h.errors >= 1 and run.status == "completed"
    with pytest.raises(ExperimentError, match="experiment 'offline' cannot start: cannot open store"):
        h.experiment("offline", react_agent(), CASES[:1])  # a batch fails fast instead
    assert "secret" not in repr(h.store) and "secret" not in h.store.display


def test_without_psycopg_the_error_names_the_extra():
    code = ("import sys; sys.modules['psycopg'] = None\n"
            "from harness import Store, StoreError\n"
            "try:\n    Store('postgresql://u@127.0.0.1:1/x')\n"
            "except StoreError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "pip install 'langgraph-harness[postgres]'" in done.stdout


def test_shards_on_two_workers_fill_one_experiment(pg_url):
    for k in (0, 1):
        h = Harness(pg_url, writer="thread")
        h.experiment("sharded", react_agent(), CASES, shard=(k, 2), append=k == 1)
        h.close()
    h = Harness(pg_url, writer="thread")
    assert sorted(r["case_id"] for r in h.store.rows("runs", columns=["case_id"])) == ["q0", "q1", "q2"]
    assert h.compare("sharded", "sharded").paired_cases == 3
    h.close()


def test_labels_by_several_people_and_their_agreement_on_postgresql(pg_url):
    from tests.experiment.judged import helpful_judge, label_everyone, numbered_cases, numbered_graph

    h = Harness(pg_url, writer="thread")
    try:
        h.experiment("judged", numbered_graph(), numbered_cases(12), scorers=[helpful_judge])
        label_everyone(h, "judged")
        assert {r["rater"] for r in h.store.rows("scores", where={"name": "helpful"})} == {"alice", "bob"}
        found = h.agreement("helpful_judge", "helpful")
        assert (found.n, found.pairs) == (12, 24) and found.estimate.value is not None
        assert h.compare("judged", "judged", gate=["helpful_judge"]).agreements[0]["n"] == 12
    finally:
        h.close()
