"""A store problem never stops the host: an unusable store (not a database, read-only, full,
locked) logs one warning, counts an error, lets the graph run and spools its runs until
the store can take them; strict harnesses and the CLI refuse it instead."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import pytest

from harness import Harness, StoreError
from harness.cli import main
from harness.store import sqlite as sqlite_engine
from tests.conftest import NOT_REGULAR, not_regular_file, returns_within

from . import graphs


def _run(h: Harness, subject: str) -> tuple[str, dict]:
    with h.run(subject=subject) as run:
        out = graphs.sequential().invoke({"question": subject}, run.config)
    h.flush()
    return run.run_id, out


def _stored_runs(path: Path) -> set[str]:
    with sqlite3.connect(path) as connection:
        return {row[0] for row in connection.execute("SELECT run_id FROM runs")}


def _harness_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "harness" and r.levelno >= logging.WARNING]


@pytest.mark.parametrize("writer", ["thread", "process"])
def test_a_file_that_is_not_a_database_keeps_the_graph_running_and_its_runs_spooled(tmp_path, caplog, writer):
    store = tmp_path / "runs.db"
    store.write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.WARNING, logger="harness"):
        h = Harness(store=store, writer=writer)
        first, out = _run(h, "first")
    assert out == graphs.sequential().invoke({"question": "first"})  # the graph's result, unchanged
    assert h.errors >= 1 and len(_harness_warnings(caplog)) == 1
    spool = tmp_path / "runs.db.spool.jsonl"
    assert first in spool.read_text()
    store.unlink()  # the store becomes usable: the next run writes itself and the spooled one
    time.sleep(1.1)  # (after a failure the store is tried again at most once a second)
    second, _ = _run(h, "second")
    assert _stored_runs(store) == {first, second} and not spool.exists()
    calls = {run: len(h.sheets([run])["llm_calls"]) for run in (first, second)}
    assert calls[first] == calls[second] > 0  # the spooled run arrived whole


def test_a_later_harness_writes_the_runs_an_earlier_process_spooled(tmp_path):
    store = tmp_path / "runs.db"
    store.write_bytes(b"garbage" * 100)
    spooled, _ = _run(Harness(store=store, writer="inline"), "spooled")
    store.unlink()
    h = Harness(store=store, writer="inline")
    assert spooled in _stored_runs(store)
    assert h.sheets([spooled])["log_tests"]["verification_status"].tolist() == ["pass"]


def test_a_locked_store_is_spooled_and_written_once_the_lock_is_gone(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_engine, "OPEN_BUSY_SECONDS", 0.2)
    monkeypatch.setattr(sqlite_engine, "BUSY_SECONDS", 0.2)
    store = tmp_path / "runs.db"
    Harness(store=store, writer="inline", strict=True).store.close()
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    h = Harness(store=store, writer="thread")  # opens within its short wait, warns, runs on
    locked, _ = _run(h, "locked")
    holder.execute("ROLLBACK")
    holder.close()
    time.sleep(1.1)  # the back-off after a failure
    after, _ = _run(h, "after")
    assert _stored_runs(store) == {locked, after}


def test_a_full_disk_spools_the_run_and_it_is_written_when_space_returns(tmp_path):
    store = tmp_path / "runs.db"
    h = Harness(store=store, writer="inline")
    first, _ = _run(h, "first")
    connection = h.store._conn
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full"
    full, _ = _run(h, "full")
    assert full not in _stored_runs(store) and full in (tmp_path / "runs.db.spool.jsonl").read_text()
    connection.execute("PRAGMA max_page_count = 1073741823")
    time.sleep(1.1)  # the back-off after a failure
    later, _ = _run(h, "later")
    assert _stored_runs(store) == {first, full, later}


def test_where_the_stores_directory_is_read_only_the_spool_goes_to_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    h = Harness(store="/proc/harness-test/runs.db", writer="inline")  # /proc: nothing can be created
    run_id, _ = _run(h, "read-only")
    spooled = list((tmp_path / "cache" / "langgraph-harness" / "spool").glob("*.jsonl"))
    assert len(spooled) == 1 and run_id in spooled[0].read_text()


def test_where_nothing_can_be_written_runs_are_held_in_bounded_memory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/harness-test-cache")
    h = Harness(store="/proc/harness-test/runs.db", writer="inline")
    spool = h._writer.spool
    _run(h, "held")
    assert len(spool._memory) == 1
    spool.max_memory_bytes = spool._memory_bytes  # full: the next run is dropped, and counted
    before = h.errors
    _run(h, "dropped")
    assert len(spool._memory) == 1 and h.errors >= before + 2


def test_a_strict_harness_refuses_an_unusable_store(tmp_path):
    store = tmp_path / "runs.db"
    store.write_bytes(b"garbage" * 100)
    with pytest.raises(StoreError, match="not a database"):
        Harness(store=store, strict=True)


def test_the_cli_exits_2_with_one_line_for_a_store_it_cannot_use(tmp_path, capsys):
    store = tmp_path / "runs.db"
    store.write_bytes(b"garbage" * 100)
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "Acme Corp", "--no-excel", "--store", str(store)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1 and "not a database" in err


def test_sheets_of_a_store_corrupted_under_the_harness_raise_store_error(tmp_path):
    store = tmp_path / "runs.db"
    h = Harness(store=store, writer="inline")
    _run(h, "before")
    h.store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with open(store, "r+b") as file:  # another program overwrites the file past its header
        file.seek(100)
        file.write(b"\xff" * (store.stat().st_size - 100))
    h.store._conn.execute("PRAGMA shrink_memory")  # the pages it had cached are gone
    with pytest.raises(StoreError, match="malformed"):
        h.sheets()


#: The paths of NOT_REGULAR made in a test's directory (/dev/zero itself has tests of its own).
NOT_A_DEVICE = [kind for kind in NOT_REGULAR if kind != "device"]


@pytest.mark.parametrize("kind", NOT_A_DEVICE)
def test_a_store_path_that_is_not_a_regular_file_is_refused_before_sqlite_opens_it(tmp_path, kind):
    from harness import Store

    path = not_regular_file(tmp_path, kind, "runs.db")
    before = sorted(p.name for p in tmp_path.iterdir())
    for lazy in (False, True):  # never worth trying again later
        with pytest.raises(StoreError, match=r"cannot open store .*runs.db': it is .*, not a SQLite file"):
            returns_within(5, Store, path, lazy=lazy)
        with pytest.raises(StoreError, match="not a SQLite file"):
            returns_within(5, Harness, store=path, strict=not lazy)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no journal, WAL or spool beside it


def test_a_device_as_store_creates_nothing_beside_it():
    from harness import Store

    assert not Path("/dev/zero-journal").exists() and not Path("/dev/zero-wal").exists()
    with pytest.raises(StoreError, match=r"cannot open store '/dev/zero': it is a character device"):
        returns_within(5, Store, "/dev/zero")
    assert not Path("/dev/zero-journal").exists() and not Path("/dev/zero-wal").exists()


@pytest.mark.parametrize("kind", NOT_A_DEVICE)
@pytest.mark.parametrize("command", [["list"], ["show", "abcd"], ["report"], ["export", "--out", "x.xlsx"],
                                     ["run", "Acme Corp", "--no-excel"], ["wrap", "g:app", "--input", "{}"]])
def test_the_cli_refuses_a_store_that_is_not_a_regular_file_in_one_line(tmp_path, capsys, monkeypatch, kind,
                                                                         command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "g.py").write_text("from tests.harness import graphs\napp = graphs.sequential()\n")
    monkeypatch.syspath_prepend(str(tmp_path / "graph"))
    path = not_regular_file(tmp_path, kind, "runs.db")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(SystemExit) as exit_info:
        returns_within(30, main, [*command, "--store", str(path)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1 and "not a SQLite file" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# --- read-only and damaged stores -----------------------------------------------------------

_GRAPH = "from tests.harness import graphs\napp = graphs.sequential()\n"


def _cli(tmp_path, capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    """``harness ARGS`` in this process, from ``tmp_path`` (which holds the graph ``g:app``)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.py").write_text(_GRAPH)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SystemExit) as exit_info:
        returns_within(60, main, list(args))
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def _store_with_a_run(path: Path) -> str:
    h = Harness(store=path, writer="inline")
    run_id, _ = _run(h, "stored")
    h.close()  # the write-ahead log folded into the file
    return run_id


_READERS = [["list"], ["show", "RUN"], ["report", "--out", "OUT/report.html"], ["export", "--out", "OUT/runs.xlsx"],
            ["compare", "a", "b"]]
_WRITERS = [["wrap", "g:app", "--input", '{"question": "q"}'], ["label", "RUN", "tone=4"],
            ["run", "Acme Corp", "--no-excel"]]


@pytest.mark.parametrize("what", ["file", "directory and file"])
@pytest.mark.parametrize("command", _READERS + _WRITERS, ids=lambda c: c[0])
def test_a_read_only_store_is_read_by_the_commands_that_read_and_refused_in_one_line_by_those_that_write(
        tmp_path, capsys, monkeypatch, read_only, what, command):
    place = tmp_path / "store"
    place.mkdir()
    (tmp_path / "out").mkdir()
    store = place / "runs.db"
    run_id = _store_with_a_run(store)
    before = store.read_bytes()
    read_only(*([store] if what == "file" else [store, place]))
    args = [arg.replace("RUN", run_id[:8]).replace("OUT", str(tmp_path / "out")) for arg in command]
    code, out, err = _cli(tmp_path, capsys, monkeypatch, *args, "--store", str(store))
    if command in _WRITERS:
        assert code == 2 and err.count("\n") == 1 and "read-only" in err and "Store" not in err, err
    elif command[0] == "compare":
        assert code == 2 and err.count("\n") == 1 and "no experiment 'a'" in err, err  # it read the store
    else:
        assert code == 0, err
        assert run_id[:8] in out or "wrote" in out + err
    assert store.read_bytes() == before


def _damage(store: Path) -> None:
    """Scramble the cell pointers of the runs table's root page, as a torn write would."""
    with sqlite3.connect(store) as connection:
        root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = 'runs'").fetchone()[0]
        page = connection.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(store.read_bytes())
    for i in range((root - 1) * page + 8, (root - 1) * page + 208):
        data[i] ^= 0xFF
    store.write_bytes(bytes(data))


@pytest.mark.parametrize("command", _READERS + _WRITERS, ids=lambda c: c[0])
def test_a_damaged_store_is_refused_by_every_command_in_one_line_and_left_as_it_is(tmp_path, capsys, monkeypatch,
                                                                                   command):
    (tmp_path / "out").mkdir()
    store = tmp_path / "runs.db"
    run_id = _store_with_a_run(store)
    _damage(store)
    before = store.read_bytes()
    args = [arg.replace("RUN", run_id[:8]).replace("OUT", str(tmp_path / "out")) for arg in command]
    code, _, err = _cli(tmp_path, capsys, monkeypatch, *args, "--store", str(store))
    assert code == 2 and err.count("\n") == 1 and "is damaged" in err and "Store" not in err, err
    assert store.read_bytes() == before


def test_a_store_that_fails_under_a_command_makes_it_exit_2_in_one_line_and_keeps_the_run(tmp_path, capsys,
                                                                                         monkeypatch):
    from harness.store import StoreUnavailable
    from harness.store.base import Store

    def full(*args, **kwargs):
        raise StoreUnavailable("store error: database or disk is full")

    monkeypatch.setattr(Store, "write_run", full)
    store = tmp_path / "runs.db"
    code, _, err = _cli(tmp_path, capsys, monkeypatch, "wrap", "g:app", "--input", '{"question": "q"}',
                        "--store", str(store))
    assert code == 2 and "did not take 1 of 1 run(s)" in err.splitlines()[-1], err
    assert '"run_id"' in (tmp_path / "runs.db.spool.jsonl").read_text()
