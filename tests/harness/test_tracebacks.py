"""A failed run's stored tracebacks start at the user's code or the graph's frames: no frame of
the harness, no "During handling of the above exception" from an exception the harness
raised and handled itself, while the user's own chained exceptions are kept; for sync and
async graphs, under ``harness wrap`` (one input and a dataset), ``h.experiment`` and ``h.run``."""

from __future__ import annotations

import asyncio
import sqlite3
import textwrap
from pathlib import Path

import pytest

import harness
from harness import Harness
from harness.tracing.tracebacks import describe_traceback
from tests.support.cli import harness_cli

HARNESS_DIR = str(Path(harness.__file__).resolve().parent)

#: An agent whose tool fails with a chained error of its own (``raise ... from ...``) and whose
#: node turns that failure into another while handling it: both chains are the user's.
AGENT = textwrap.dedent('''
    from typing import TypedDict

    from langchain_core.tools import tool
    from langgraph.graph import END, START, StateGraph


    class State(TypedDict, total=False):
        topic: str
        answer: str


    @tool
    def search(query: str) -> str:
        """Search the index."""
        try:
            {}["index"]
        except KeyError as missing:
            raise LookupError(f"no index for {query}") from missing


    @tool
    async def asearch(query: str) -> str:
        """Search the index."""
        try:
            {}["index"]
        except KeyError as missing:
            raise LookupError(f"no index for {query}") from missing


    def research(state, config):
        try:
            return {"answer": search.invoke({"query": state["topic"]}, config)}
        except LookupError:
            raise RuntimeError("research failed") 


    async def aresearch(state, config):
        try:
            return {"answer": await asearch.ainvoke({"query": state["topic"]}, config)}
        except LookupError:
            raise RuntimeError("research failed")


    def build(node):
        builder = StateGraph(State)
        builder.add_node("research", node)
        builder.add_edge(START, "research")
        builder.add_edge("research", END)
        return builder.compile()


    sync_graph = build(research)
    async_graph = build(aresearch)
''')


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    """The agent's module, importable as ``failing_agent`` from its directory."""
    import importlib
    import sys

    folder = tmp_path_factory.mktemp("agent")
    (folder / "failing_agent.py").write_text(AGENT)
    sys.path.insert(0, str(folder))
    try:
        yield folder, importlib.import_module("failing_agent")
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("failing_agent", None)


def stored_tracebacks(path: Path) -> dict[str, str]:
    """Every traceback the store holds, by the kind and name of what failed (from SQLite itself)."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT event_kind, event_name, traceback FROM langgraph_events "
                          "WHERE traceback IS NOT NULL").fetchall()
        rows += [("tool row", name, tb) for name, tb in db.execute(
            "SELECT tool_name, traceback FROM tool_calls WHERE traceback IS NOT NULL")]
    return {f"{kind} {name}": tb for kind, name, tb in rows}


def assert_the_users_tracebacks(path: Path) -> None:
    found = stored_tracebacks(path)
    assert {"node research", "tool row search"} <= set(found) or {"node research", "tool row asearch"} <= set(found)
    for what, text in found.items():
        assert HARNESS_DIR not in text, what
        assert "no running event loop" not in text, what
        first = text.split("Traceback (most recent call last):\n", 1)[1].splitlines()[0]
        assert "/langgraph/" in first or "/langchain_core/" in first or "failing_agent.py" in first, (what, first)
    node = found["node research"]
    # the user's chain, whole: KeyError -> (cause) LookupError -> (while handling) RuntimeError
    assert node.index("KeyError: 'index'") < node.index("The above exception was the direct cause") \
        < node.index("LookupError: no index for") < node.index("During handling of the above exception") \
        < node.index("RuntimeError: research failed")
    assert node.count("During handling of the above exception") == 1


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_under_h_run(agent, tmp_path, kind):
    _, module = agent
    h = Harness(tmp_path / "runs.db", writer="inline")
    if kind == "sync":
        with pytest.raises(RuntimeError, match="research failed"):
            with h.run(workflow="agent") as run:
                module.sync_graph.invoke({"topic": "pumps"}, config=run.config)
    else:
        async def main():
            async with h.run(workflow="agent") as run:
                await module.async_graph.ainvoke({"topic": "pumps"}, config=run.config)

        with pytest.raises(RuntimeError, match="research failed"):
            asyncio.run(main())
    h.close()
    assert_the_users_tracebacks(tmp_path / "runs.db")


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_under_h_experiment(agent, tmp_path, kind):
    _, module = agent
    h = Harness(tmp_path / "runs.db", writer="inline")
    graph = module.sync_graph if kind == "sync" else module.async_graph
    h.experiment("exp", graph, [{"id": "c1", "input": {"topic": "pumps"}}], sync=kind == "sync")
    h.close()
    assert_the_users_tracebacks(tmp_path / "runs.db")


def test_under_h_experiment_inside_a_running_event_loop(agent, tmp_path):
    """A notebook: the experiment's loop runs on a thread of its own."""
    _, module = agent
    h = Harness(tmp_path / "runs.db", writer="inline")

    async def notebook_cell():
        return h.experiment("exp", module.async_graph, [{"id": "c1", "input": {"topic": "pumps"}}])

    asyncio.run(notebook_cell())
    h.close()
    assert_the_users_tracebacks(tmp_path / "runs.db")


@pytest.mark.parametrize(("attr", "how"), [("sync_graph", "--input"), ("async_graph", "--input"),
                                           ("sync_graph", "--dataset"), ("async_graph", "--dataset")])
def test_under_harness_wrap(agent, tmp_path, attr, how):
    folder, _ = agent
    store = tmp_path / "runs.db"
    if how == "--input":
        args = ["--input", '{"topic": "pumps"}']
    else:
        (tmp_path / "cases.jsonl").write_text('{"id": "c1", "input": {"topic": "pumps"}}\n')
        args = ["--dataset", str(tmp_path / "cases.jsonl"), "--experiment", "exp"]
    done = harness_cli("wrap", f"failing_agent:{attr}", *args, "--store", str(store), cwd=folder)
    assert done.returncode == (1 if how == "--input" else 0), done.stderr
    assert_the_users_tracebacks(store)


def test_a_frame_of_the_harness_inside_a_traceback_is_left_out():
    """Whatever the harness calls on the way (a run's block, a scorer's driver) is not where
    the user's code failed."""
    from harness.experiment.loop import in_own_loop

    async def fails():
        raise ValueError("the user's bug")

    try:
        in_own_loop(fails())
    except ValueError as exc:
        text = describe_traceback(exc)
    assert HARNESS_DIR not in text and "ValueError: the user's bug" in text
    assert "in fails" in text and "frames above left out" not in text
