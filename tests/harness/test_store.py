"""The SQLite store: one table per sheet, idempotent writes, readable while written."""

import os
import signal
import sqlite3
import threading
import time

import pytest

from harness import Harness, Store, StoreError
from harness.store import RunIdError
from harness.schema import SHEET_NAMES, SHEETS_BY_NAME


def test_store_creates_a_wal_database_with_a_table_per_sheet(tmp_path):
    store = Store(tmp_path / "runs.db")
    conn = sqlite3.connect(tmp_path / "runs.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert set(SHEET_NAMES) <= tables
    store.close()


def test_a_retried_write_never_duplicates_rows(tmp_path):
    store = Store(tmp_path / "runs.db")
    rows = [{"run_id": "r1", "tool_name": "search", "row_key": "k1"}, {"run_id": "r1", "tool_name": "calc"}]
    assert store.write("tool_calls", rows) == 2
    assert store.write("tool_calls", rows) == 0
    assert store.count("tool_calls", "r1") == 2


def test_unknown_columns_are_an_error_not_a_silent_drop(tmp_path):
    store = Store(tmp_path / "runs.db")
    with pytest.raises(StoreError, match="no column"):
        store.write("runs", [{"run_id": "r1", "not_a_column": 1}])


def test_sheets_returns_the_fifteen_then_scores_spec_columns_first(tmp_path):
    h = Harness(store=tmp_path / "runs.db")
    h.store.write("runs", [{"run_id": "r1", "company_name": "Acme", "tools_used": ["a", "b"], "total_steps": 3}])
    frames = h.sheets()
    assert list(frames) == [*SHEET_NAMES, "scores"]
    for name, frame in frames.items():
        spec = SHEETS_BY_NAME[name]
        assert list(frame.columns[: len(spec.columns)]) == list(spec.column_names)
    runs = frames["runs"].iloc[0]
    assert runs["tools_used"] == ["a", "b"] and runs["total_steps"] == 3


def test_sheets_filters_by_run_id(tmp_path):
    store = Store(tmp_path / "runs.db")
    store.write("runs", [{"run_id": "r1"}, {"run_id": "r2"}])
    assert list(store.sheets(["r2"])["runs"]["run_id"]) == ["r2"]
    assert store.sheets([])["runs"].empty


def test_store_location_comes_from_argument_then_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_STORE", str(tmp_path / "env.db"))
    assert Store().path == tmp_path / "env.db"
    assert Store(f"sqlite:///{tmp_path / 'arg.db'}").path == tmp_path / "arg.db"
    with pytest.raises(StoreError, match="unsupported store URL"):
        Store("mysql://x/y")


def test_store_is_readable_from_another_connection_while_a_writer_is_busy(tmp_path):
    store = Store(tmp_path / "runs.db")
    store.write("runs", [{"run_id": "r0"}])
    stop = threading.Event()

    def writer():
        i = 0
        while not stop.is_set():
            i += 1
            store.write("langgraph_events", [{"run_id": "r1", "event_name": f"e{i}"}])

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        reader = Store(tmp_path / "runs.db")
        for _ in range(20):
            assert reader.count("runs") == 1
    finally:
        stop.set()
        thread.join()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_uses_the_store_while_a_parent_thread_is_inside_a_transaction(tmp_path):
    # The parent's lock is held by a thread the child does not have, and its connection
    # must not be used across fork(): the child works on a connection and lock of its own.
    store = Store(tmp_path / "runs.db")
    store.write("runs", [{"run_id": "before"}])
    inside, release = threading.Event(), threading.Event()

    def hold_a_transaction():
        with store.transaction():
            inside.set()
            release.wait(30)
            store._insert(SHEETS_BY_NAME["runs"], [{"run_id": "parent"}])

    thread = threading.Thread(target=hold_a_transaction)
    thread.start()
    assert inside.wait(10)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            store.write("runs", [{"run_id": "child"}])
            code = 0 if store.count("runs") == 2 else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 20
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    release.set()
    thread.join()
    assert done[0] == pid, "the forked child hung on the store"
    assert os.waitstatus_to_exitcode(done[1]) == 0
    assert {r["run_id"] for r in store.rows("runs")} == {"before", "child", "parent"}
    check = sqlite3.connect(tmp_path / "runs.db")
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    check.close()


def test_an_older_store_is_brought_forward_in_place_with_its_rows(tmp_path, monkeypatch):
    from harness.store import base, migrations

    path = tmp_path / "old.db"
    Store(path).write("runs", [{"run_id": "r1", "company_name": "Acme", "harness_errors": 0}])
    with sqlite3.connect(path) as conn:  # as a harness before versions were recorded left it: a column short
        conn.execute("DROP TABLE harness_meta")
        conn.execute('ALTER TABLE runs DROP COLUMN "span_id"')
    applied = []
    newer = (*migrations.MIGRATIONS, migrations.Migration(2, "runs.span_id", apply=applied.append))
    monkeypatch.setattr(base, "MIGRATIONS", newer)
    monkeypatch.setattr(base, "SCHEMA_VERSION", 2)
    store = Store(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM harness_meta WHERE key = 'schema_version'").fetchone() == ("2",)
        columns = [row[1] for row in conn.execute('PRAGMA table_info("runs")')]
    assert columns[-1] == "span_id" and applied == [store]
    assert [(r["run_id"], r["company_name"], r["span_id"]) for r in store.rows("runs")] == [("r1", "Acme", None)]
    store.write("runs", [{"run_id": "r2", "span_id": "00f067aa0ba902b7"}])
    assert store.count("runs") == 2
    Store(path)  # the current version: nothing runs again
    assert applied == [store]


def test_a_store_newer_than_the_code_is_refused_in_one_line(tmp_path):
    path = tmp_path / "newer.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE harness_meta SET value = '999' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 999, newer than this harness knows") as raised:
        Store(path)
    assert "\n" not in str(raised.value)


def test_rows_are_filtered_limited_and_ordered_in_the_store(tmp_path, monkeypatch):
    from harness.store import base

    monkeypatch.setattr(base, "PAGE_ROWS", 3)  # several pages
    store = Store(tmp_path / "runs.db")
    store.write("runs", [{"run_id": f"r{i}", "status": "failed" if i % 3 == 0 else "completed",
                          "workflow": None if i == 4 else "agent", "total_steps": i} for i in range(10)])
    ids = lambda rows: [r["run_id"] for r in rows]  # noqa: E731
    assert ids(store.rows("runs")) == [f"r{i}" for i in range(10)]
    assert ids(store.rows("runs", newest_first=True, limit=4)) == ["r9", "r8", "r7", "r6"]
    assert ids(store.rows("runs", where={"status": "failed"})) == ["r0", "r3", "r6", "r9"]
    assert ids(store.rows("runs", where={"status": ["failed"], "workflow": "agent"}, newest_first=True,
                          limit=3)) == ["r9", "r6", "r3"]
    assert ids(store.rows("runs", where={"workflow": None})) == ["r4"]
    assert ids(store.rows("runs", ["r2", "r7", "nope"], limit=1)) == ["r2"]
    assert list(store.rows("runs", where={"status": []})) == []
    assert list(store.rows("runs", columns=["run_id", "total_steps"], limit=2)) == [
        {"run_id": "r0", "total_steps": 0}, {"run_id": "r1", "total_steps": 1}]
    with pytest.raises(KeyError, match="no column 'nope'"):
        list(store.rows("runs", where={"nope": 1}))


def test_a_replaced_row_keeps_its_place_in_the_sheet(tmp_path):
    store = Store(tmp_path / "runs.db")
    store.write("log_tests", [{"row_key": f"r{i}:log_tests", "run_id": f"r{i}", "runs": 1} for i in range(3)])
    store.replace("log_tests", [{"row_key": "r0:log_tests", "run_id": "r0", "runs": 1, "consistency_scores": 1},
                                {"row_key": "r3:log_tests", "run_id": "r3", "runs": 1}])
    rows = list(store.rows("log_tests"))
    assert [r["run_id"] for r in rows] == ["r0", "r1", "r2", "r3"]
    assert rows[0]["consistency_scores"] == 1 and rows[1]["consistency_scores"] is None


def test_sheets_hold_timestamps_as_utc_datetimes(tmp_path):
    import pandas as pd

    store = Store(tmp_path / "runs.db")
    store.write("runs", [{"run_id": "r1", "started_at": "2025-03-01T09:30:00.123456+00:00",
                          "completed_at": "2025-03-01T11:30:00+02:00", "timestamp": None}])
    runs = store.sheets()["runs"]
    for column in ("started_at", "completed_at", "timestamp"):
        assert isinstance(runs[column].dtype, pd.DatetimeTZDtype) and str(runs[column].dt.tz) == "UTC"
    assert runs["started_at"][0] == pd.Timestamp("2025-03-01 09:30:00.123456", tz="UTC")
    assert runs["completed_at"][0] == pd.Timestamp("2025-03-01 09:30:00", tz="UTC")
    assert pd.isna(runs["timestamp"][0])
    assert isinstance(store.sheets()["plans"]["created_at"].dtype, pd.DatetimeTZDtype)  # empty sheets too


def test_a_timestamp_column_holding_other_text_stays_text(tmp_path):
    store = Store(tmp_path / "runs.db")
    store.write("plans", [{"run_id": "r1", "created_at": "yesterday"}])
    assert list(store.sheets()["plans"]["created_at"]) == ["yesterday"]


def test_run_ids_are_found_by_their_start_through_the_run_id_index(tmp_path):
    store = Store(tmp_path / "runs.db")
    store.write("runs", [{"run_id": r} for r in ("abcd-1", "abcd-2", "abce-1", "b")])
    assert store.run_ids_starting("abcd") == ["abcd-1", "abcd-2"]
    assert store.run_ids_starting("abcd-2") == ["abcd-2"]
    assert store.run_ids_starting("abc", limit=5) == ["abcd-1", "abcd-2", "abce-1"]
    assert store.run_ids_starting("zz") == []
    plan = store._fetchall('EXPLAIN QUERY PLAN SELECT run_id FROM "runs" WHERE run_id >= ? AND run_id < ? LIMIT 2',
                           ("abcd", "abcd\U0010ffff"))
    assert "USING COVERING INDEX runs_run" in plan[0][-1]


def test_clip_cuts_text_and_json_cells_in_the_store_and_leaves_numbers_and_times(tmp_path):
    store = Store(tmp_path / "runs.db")
    store.write("tool_calls", [{"run_id": "r", "tool_name": "search", "tool_input": {"query": "x" * 50},
                                "execution_time_ms": 12.5, "timestamp": "2026-01-01T00:00:00+00:00"}])
    row = next(store.rows("tool_calls", columns=["tool_name", "tool_input", "execution_time_ms", "timestamp"],
                          clip=10))
    assert row == {"tool_name": "search", "tool_input": '{"query":"', "execution_time_ms": 12.5,
                   "timestamp": "2026-01-01T00:00:00+00:00"}
    assert next(store.rows("tool_calls", columns=["tool_input"]))["tool_input"] == {"query": "x" * 50}


def test_sheets_read_only_the_runs_sheets_and_columns_asked_for(tmp_path):
    store = Store(tmp_path / "runs.db")
    store.write("runs", [{"run_id": f"r{i}", "experiment": "base" if i < 2 else "cand", "total_steps": i}
                         for i in range(4)])
    store.write("tool_calls", [{"run_id": f"r{i}", "tool_name": "search", "execution_time_ms": 1.5} for i in range(4)])
    frames = store.sheets(experiment="cand", sheets=["tool_calls", "runs"], columns=["run_id", "total_steps"])
    assert list(frames) == ["runs", "tool_calls"]  # spec order
    assert frames["runs"].to_dict("records") == [{"run_id": "r2", "total_steps": 2}, {"run_id": "r3", "total_steps": 3}]
    assert list(frames["tool_calls"].columns) == ["run_id"] and list(frames["tool_calls"].run_id) == ["r2", "r3"]
    per_sheet = store.sheets(["r0", "r3"], experiment=["base"], columns={"runs": ["run_id"]})
    assert list(per_sheet["runs"].run_id) == ["r0"] and len(per_sheet) == 16
    assert list(per_sheet["tool_calls"].columns)[:3] == ["run_id", "company_name", "node"]
    with pytest.raises(KeyError, match="no sheet read has column"):
        store.sheets(sheets=["runs"], columns=["tool_name"])


def test_a_run_id_is_its_full_text_or_a_unique_start_of_four_characters_or_more(tmp_path):
    """Resolving a run id is a store query (the run_id index), for every reader and writer of runs."""
    store = Store(tmp_path / "ids.db")
    store.write("runs", [{"run_id": r} for r in ("abcd1234", "abcd5678", "abcd", "ffee0011")])
    assert store.resolve_run_id("abcd") == "abcd"  # a full id wins over the runs it starts
    assert store.resolve_run_id("abcd5") == "abcd5678"
    assert store.resolve_run_id(" ffee ") == "ffee0011"
    assert store.resolve_run_ids(["ffee", "ffee0011", "abcd1"]) == ["ffee0011", "abcd1234"]
    with pytest.raises(RunIdError, match="'abc' is too short: give at least 4 characters"):
        store.resolve_run_id("abc")
    store.write("runs", [{"run_id": "abcd1299"}])
    with pytest.raises(RunIdError, match="'abcd1' is ambiguous: abcd1234, abcd1299 start with it"):
        store.resolve_run_id("abcd1")
    with pytest.raises(RunIdError, match="no run 'zzzz'"):
        store.resolve_run_id("zzzz")
def test_a_store_from_before_unknown_passes_has_its_errored_scores_made_unknown(tmp_path):
    """Version 9: a score that could not be made used to fail its run (passed 0); opened now,
    its pass and its run's are unknown (empty), unless another score failed the run or the
    run did not complete."""
    path = tmp_path / "old.db"
    store = Store(path)
    store.write("runs", [{"run_id": r, "status": s, "passed": 0, "harness_errors": 0}
                         for r, s in (("errored", "completed"), ("also-failed", "completed"), ("crashed", "failed"))])
    store.write("scores", [
        {"run_id": "errored", "name": "mine", "passed": 0, "error": "KeyError: 'x'", "scorer": "m:mine"},
        {"run_id": "errored", "name": "completed", "passed": 1, "scorer": "harness.scorers.completed"},
        {"run_id": "also-failed", "name": "mine", "passed": 0, "error": "KeyError: 'x'", "scorer": "m:mine"},
        {"run_id": "also-failed", "name": "answer", "passed": 0, "scorer": "harness.scorers.exact"},
        {"run_id": "crashed", "name": "mine", "passed": 0, "error": "KeyError: 'x'", "scorer": "m:mine"}])
    store.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE harness_meta SET value = '8' WHERE key = 'schema_version'")
    store = Store(path)
    try:
        assert {r["run_id"]: r["passed"] for r in store.rows("runs")} == {
            "errored": None, "also-failed": 0, "crashed": 0}
        assert {(r["run_id"], r["name"]): r["passed"] for r in store.rows("scores")}[("errored", "mine")] is None
    finally:
        store.close()
