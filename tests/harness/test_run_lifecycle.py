"""When a finished run is written, and what closing a harness leaves on disk."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing

import pytest

from harness import Harness
from tests.harness.graphs import single_node


@pytest.fixture(params=["inline", "thread", "process"])
def harness(request, tmp_path):
    h = Harness(store=tmp_path / "runs.db", writer=request.param)
    yield h
    h.flush()


def finished(harness, subject, *, hold):
    graph = single_node(lambda state: {"log": [subject]})
    with harness.run(subject=subject, hold=hold) as run:
        graph.invoke({}, config=run.config)
    return run


def subjects(harness):
    return [r["company_name"] for r in harness.store.rows("runs")]


def test_held_runs_are_written_in_the_order_the_caller_releases_them(harness):
    first, second = finished(harness, "first", hold=True), finished(harness, "second", hold=True)
    harness._writer.flush()  # what the writers had: nothing held
    assert subjects(harness) == []
    second.write()
    first.write()
    first.write()  # once only
    harness._writer.flush()
    assert subjects(harness) == ["second", "first"]


def test_flush_writes_runs_still_held(harness):
    finished(harness, "held", hold=True)
    finished(harness, "not held", hold=False)
    assert sorted(harness.sheets()["runs"]["company_name"]) == ["held", "not held"]


def test_close_leaves_every_row_in_the_db_file_alone(harness, tmp_path):
    finished(harness, "one", hold=False)
    finished(harness, "two", hold=True)
    harness.close()
    copy = tmp_path / "copy.db"
    shutil.copyfile(tmp_path / "runs.db", copy)
    with closing(sqlite3.connect(copy)) as conn:
        assert conn.execute("SELECT company_name FROM runs ORDER BY _seq").fetchall() == [("one",), ("two",)]
