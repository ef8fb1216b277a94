"""One rule names a run's workflow, wherever the run starts (``h.run``, ``h.experiment``,
``harness wrap --input`` and ``--dataset``): the name given (``workflow=``, ``--workflow``),
else the graph's own name when it is not LangGraph's default, else the attribute the graph
was loaded from (``wrap module:ATTR``), else none."""

from __future__ import annotations

import json
import textwrap

import pytest

from harness import Harness
from harness.tracing.record import workflow_name
from tests.support.cli import harness_cli

AGENT = textwrap.dedent('''
    from langgraph.graph import END, START, StateGraph


    def build(name=None):
        builder = StateGraph(dict)
        builder.add_node("answer", lambda state: {"answer": "Paris"})
        builder.add_edge(START, "answer")
        builder.add_edge("answer", END)
        return builder.compile(name=name) if name else builder.compile()


    named = build("ResearchTopic")
    candidate = build()
''')


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    import importlib
    import sys

    folder = tmp_path_factory.mktemp("named")
    (folder / "named_agent.py").write_text(AGENT)
    (folder / "cases.jsonl").write_text('{"id": "fr", "input": {"q": "France"}}\n')
    sys.path.insert(0, str(folder))
    try:
        yield folder, importlib.import_module("named_agent")
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("named_agent", None)


def workflows(path) -> set:
    h = Harness(path)
    found = {r["workflow"] for r in h.store.rows("runs", columns=["workflow"])}
    h.close()
    return found


def test_the_rule():
    assert workflow_name("mine", "ResearchTopic", "graph") == "mine"
    assert workflow_name(None, "ResearchTopic", "graph") == "ResearchTopic"
    assert workflow_name(None, "LangGraph", "candidate") == "candidate"
    assert workflow_name(None, "LangGraph") is None and workflow_name("", None, None) is None


@pytest.mark.parametrize(("attr", "given", "expected"), [
    ("named", None, "ResearchTopic"), ("candidate", None, "candidate"), ("named", "research", "research")])
def test_every_way_of_running_a_graph_names_it_alike(agent, tmp_path, attr, given, expected):
    folder, module = agent
    graph = getattr(module, attr)
    store = tmp_path / "runs.db"
    workflow = ["--workflow", given] if given else []
    for how in (["--input", '{"q": "France"}'], ["--dataset", "cases.jsonl", "--experiment", "cli"]):
        done = harness_cli("wrap", f"named_agent:{attr}", *how, *workflow, "--store", str(store), cwd=folder)
        assert done.returncode == 0, done.stderr
    h = Harness(store, writer="inline")
    h.experiment("py", graph, folder / "cases.jsonl", target=f"named_agent:{attr}", workflow=given)
    with h.run(workflow=given) as run:
        graph.invoke({"q": "France"}, config=run.config)
    h.close()
    if attr == "candidate" and not given:  # h.run cannot know the attribute a graph came from
        assert workflows(store) == {"candidate", None}
    else:
        assert workflows(store) == {expected}


def test_list_filters_one_agents_runs_by_its_one_name(agent, tmp_path):
    folder, module = agent
    store = tmp_path / "runs.db"
    harness_cli("wrap", "named_agent:named", "--input", '{"q": "France"}', "--store", str(store), cwd=folder)
    h = Harness(store, writer="inline")
    h.experiment("py", module.named, folder / "cases.jsonl")
    with h.run() as run:
        module.named.invoke({"q": "France"}, config=run.config)
    h.close()
    listed = harness_cli("list", "--workflow", "ResearchTopic", "--json", "--store", str(store))
    assert len(json.loads(listed.stdout)) == 3
