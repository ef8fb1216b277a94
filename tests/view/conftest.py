"""Stores of runs recorded by the harness from real LangGraph graphs (LangChain's fake chat
models, real tools, a subgraph, a failing tool) and from the credit workflow."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from langgraph.graph import END, START, StateGraph

from harness import Harness
from tests.harness import graphs


@dataclass(frozen=True)
class Recorded:
    """A store and the runs in it: ``agent`` (every kind of entry), ``failed`` (a tool that
    raises), ``credit`` (the credit workflow with all its scores)."""

    path: Path
    agent: str
    failed: str
    credit: str

    def entries(self, run_id: str) -> Counter:
        """Node, LLM and tool executions the store recorded for a run, counted by kind
        (straight from SQLite, not through the code under test)."""
        with sqlite3.connect(self.path) as db:
            rows = db.execute("SELECT event_kind, COUNT(DISTINCT event_id) FROM langgraph_events "
                              "WHERE run_id = ? AND event_kind IN ('node', 'llm', 'tool') GROUP BY event_kind",
                              (run_id,)).fetchall()
        return Counter(dict(rows))


def agent_graph():
    """plan (a model call) -> research (a tool that calls a tool) -> child (a subgraph whose
    node calls a tool) -> answer (a streamed model call, so it has a time to first token)."""
    planner = graphs.fake_model("plan: look it up")
    writer = graphs.StreamingModel()

    def plan(state, config):
        planner.invoke("make a plan", config)
        return {"log": ["plan"]}

    def research(state, config):
        graphs.outer.invoke({"query": "facts"}, config)
        return {"log": ["research"]}

    def answer(state, config):
        for _ in writer.stream("answer now", config):
            pass
        return {"log": ["answer"]}

    inner = StateGraph(graphs.State)
    inner.add_node("inner_lookup", lambda s, config: (graphs.lookup.invoke({"query": "deep"}, config),
                                                      {"log": ["inner"]})[1])
    inner.add_edge(START, "inner_lookup")
    inner.add_edge("inner_lookup", END)
    g = StateGraph(graphs.State)
    g.add_node("plan", plan)
    g.add_node("research", research)
    g.add_node("child", inner.compile())
    g.add_node("answer", answer)
    g.add_edge(START, "plan")
    g.add_edge("plan", "research")
    g.add_edge("research", "child")
    g.add_edge("child", "answer")
    g.add_edge("answer", END)
    return g.compile()


def record(path: Path) -> Recorded:
    from workflows import resolve_provider
    from workflows._batch import BatchSettings, run_batch

    h = Harness(path, writer="inline")
    provider = resolve_provider("offline")
    credit = run_batch(h, ["Acme Corp"], BatchSettings(provider=provider, model=provider.primary))[0].run_id
    with h.run(subject="Acme", workflow="agent", expected_tools=["outer", "lookup"],
               reference_trajectory=["plan", "research", "child", "answer"]) as run:
        agent_graph().invoke({"log": []}, config=run.config)
    failed = h.run(subject="Globex", workflow="broken")
    with pytest.raises(ValueError):
        with failed:
            graphs.single_node(lambda s, config: graphs.broken.invoke({"query": "q"}, config)).invoke(
                {"log": []}, config=failed.config)
    h.flush()
    h.store.close()
    return Recorded(path, run.run_id, failed.run_id, credit)


@pytest.fixture(scope="session")
def recorded(tmp_path_factory) -> Recorded:
    return record(tmp_path_factory.mktemp("view") / "runs.db")


def harness_cli(*args: str, cwd: Path | None = None, **kwargs) -> subprocess.CompletedProcess[str]:
    """The installed command, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, **kwargs)


@pytest.fixture(scope="session")
def many(recorded, tmp_path_factory) -> Path:
    """A store of 1,500 runs: copies of the recorded ones, half in experiment ``base``, half
    in ``cand``."""
    from harness import Store
    from tests.support.copies import copy_runs

    path = tmp_path_factory.mktemp("many") / "runs.db"
    path.write_bytes(recorded.path.read_bytes())
    store = Store(path)
    copy_runs(store, [recorded.agent, recorded.failed, recorded.credit], 1_500, experiments=["base", "cand"])
    store.close()
    return path
