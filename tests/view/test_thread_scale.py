"""A conversation of a thousand turns (500 interrupt/resume cycles), recorded by the harness,
reads back as one ordered chain with no orphan, on SQLite and on PostgreSQL (copied there,
numbered again by that store), and ``harness show --thread`` prints every turn. (How long it
takes is measured by benchmarks/thread_scale.py, not asserted.)"""

from __future__ import annotations

import json
import uuid

import pytest
from langgraph.types import Command

from harness import Harness, Store
from harness.cli import main
from harness.store.copy import copy_runs
from tests.support.conversations import steps_graph

TURNS = 1_000


@pytest.fixture(scope="module")
def long_thread(tmp_path_factory):
    path = tmp_path_factory.mktemp("long") / "long.db"
    h = Harness(path, writer="inline")
    graph, thread = steps_graph(), f"long-{uuid.uuid4()}"
    config = {"configurable": {"thread_id": thread}}
    for i in range(TURNS):
        with h.run(workflow="long") as run:
            graph.invoke(Command(resume=f"yes {i}") if i % 2 else {"n": i}, {**config, **run.config})
    h.close()
    return path, thread


def shown(capsys, store: str, thread: str, *extra: str) -> str:
    with pytest.raises(SystemExit) as done:
        main(["show", "--thread", thread, "--store", store, *extra])
    assert done.value.code in (0, None)
    return capsys.readouterr().out


def assert_one_chain(turns: list[dict]) -> None:
    assert [t["turn"] for t in turns] == list(range(1, TURNS + 1))
    assert [t["started_at"] for t in turns] == sorted(t["started_at"] for t in turns)
    resumes = [(t, before) for t, before in zip(turns[1:], turns) if t["resume"] is not None]
    assert len(resumes) == TURNS // 2
    assert all(t["resumed_from"] == before["run_id"] for t, before in resumes)  # no orphan
    assert [t["waiting"] for t in turns] == [i % 2 == 0 for i in range(TURNS)]
    assert turns[-1]["output"] == {"n": TURNS - 1, "answer": f"yes {TURNS - 1}"}


def test_a_thousand_turns_are_one_ordered_chain_on_sqlite(long_thread, capsys):
    path, thread = long_thread
    view = json.loads(shown(capsys, str(path), thread, "--json"))
    assert view["thread"]["turns"] == TURNS and view["thread"]["status"] == "completed"
    assert_one_chain(view["turns"])
    text = shown(capsys, str(path), thread)
    assert text.count("\nturn ") == TURNS and f"turn {TURNS}  completed" in text
    assert text.count("resumes turn") == TURNS // 2


def test_a_thousand_turns_are_one_ordered_chain_on_postgresql(long_thread, pg_url, capsys):
    path, thread = long_thread
    source, target = Store(path), Store(pg_url)
    ids = [r["run_id"] for r in sorted(source.rows("runs", columns=["run_id", "turn"]), key=lambda r: r["turn"])]
    # the later half arrives first (as turns 1..500 of what the store has), then the rest
    assert copy_runs(source, target, ids[TURNS // 2:]).runs == TURNS // 2
    assert sorted(r["turn"] for r in target.rows("runs", columns=["turn"])) == list(range(1, TURNS // 2 + 1))
    assert copy_runs(source, target, ids[:TURNS // 2]).runs == TURNS // 2
    view = json.loads(shown(capsys, pg_url, thread, "--json"))
    assert_one_chain(view["turns"])
    assert shown(capsys, pg_url, thread).count("\nturn ") == TURNS
