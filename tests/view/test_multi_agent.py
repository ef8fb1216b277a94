"""A multi-agent run read back: ``show`` groups its lines by agent and shows where handoffs
went; the report's waterfall colours its rows by agent (in a real headless Chromium)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import Harness, Store
from harness.cli import main
from harness.view import load_run
from harness.view.report import detail, write_report
from harness.view.text import agent_sections, run_tree
from tests.harness import graphs
from tests.harness.teams import QUESTION, supervisor_system

from .test_text import render

pytest.importorskip("langgraph_supervisor")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, str, str]:
    """A store with a supervisor run and a run of a graph without subgraphs."""
    path = tmp_path_factory.mktemp("agents") / "runs.db"
    h = Harness(path, writer="inline")
    graph = supervisor_system()
    with h.run(workflow="supervisor") as supervised:
        graph.invoke(QUESTION, supervised.config)
    with h.run(workflow="plain") as plain:
        graphs.sequential().invoke({"question": "q"}, plain.config)
    h.close()
    return path, supervised.run_id, plain.run_id


def test_show_labels_each_agents_lines_and_shows_where_handoffs_went(runs):
    path, supervised, _ = runs
    view = load_run(Store(path), supervised)
    labels = [label for _, label in sorted(
        ((i, agent_sections(view)[e.id]) for i, (_, e) in enumerate(view.entries()) if e.id in agent_sections(view)))]
    assert labels == ["supervisor", "research_expert", "supervisor", "math_expert", "supervisor"]
    text = render(run_tree(view), 200)
    header = next(line for line in text.splitlines() if line.lstrip().startswith("step"))
    assert header.index("agent") < header.index("what")
    assert "tool transfer_to_research_expert → research_expert" in text
    assert "tool transfer_to_math_expert → math_expert" in text
    assert "supervisor → research_expert" in text and "└─ tools → math_expert" in text
    assert "__parent__" not in text and "interrupted" not in text
    research = next(line for line in text.splitlines() if line.rstrip().endswith("research_expert  research_expert"))
    assert "ok" in research


def test_a_graph_without_subgraphs_shows_no_agent_column(runs):
    path, _, plain = runs
    view = load_run(Store(path), plain)
    assert view.agents() is None
    header = next(line for line in render(run_tree(view), 200).splitlines() if line.lstrip().startswith("step"))
    assert "agent" not in header


def test_show_json_gives_every_entry_its_agent_and_each_handoff_its_destination(runs, capsys):
    path, supervised, _ = runs
    with pytest.raises(SystemExit) as done:
        main(["show", supervised[:8], "--json", "--store", str(path)])
    assert done.value.code == 0
    tree = json.loads(capsys.readouterr().out)["tree"]

    def walk(entries):
        for entry in entries:
            yield entry
            yield from walk(entry["children"])

    entries = list(walk(tree))
    assert [e["name"] for e in tree] == ["supervisor", "research_expert", "supervisor", "math_expert", "supervisor"]
    calls = [(e["name"], e["agent"]) for e in entries if e["kind"] in ("llm", "tool")]
    assert [agent for name, agent in calls if name == "web_search" or name == "add"] == ["research_expert",
                                                                                         "math_expert"]
    handoffs = [(e["kind"], e["name"], e["handoff_to"]) for e in entries if e.get("handoff_to")]
    assert handoffs == [("node", "supervisor", "research_expert"), ("node", "tools", "research_expert"),
                        ("tool", "transfer_to_research_expert", "research_expert"),
                        ("node", "supervisor", "math_expert"), ("node", "tools", "math_expert"),
                        ("tool", "transfer_to_math_expert", "math_expert")]


def test_the_reports_waterfall_data_carries_each_rows_agent_and_handoff(runs):
    path, supervised, plain = runs
    data = detail(load_run(Store(path), supervised))
    assert len(data["agents"]) == len(data["handoffs"]) == len(data["rows"])
    assert set(data["agents"]) == {"supervisor", "research_expert", "math_expert"}
    assert [h for h in data["handoffs"] if h] == ["research_expert"] * 3 + ["math_expert"] * 3
    assert "agents" not in detail(load_run(Store(path), plain))


def test_the_waterfall_colours_each_row_by_its_agent_with_a_key(runs, opened, tmp_path):
    path, supervised, _ = runs
    report = write_report(Store(path), tmp_path / "report.html").path
    page = opened.open(report, f"#run={supervised}")  # a 1400 x 1000 tab of the module's Chromium
    page.wait_for_selector("#run:not([hidden]) #waterfall svg")
    bars = page.locator("#waterfall .bar").count()
    marks = page.eval_on_selector_all("#waterfall rect.agent", "rs => rs.map(r => r.getAttribute('fill'))")
    assert len(marks) == bars == 27
    key = page.text_content("#waterfall .legend.agents")
    assert all(name in key for name in ("supervisor", "research_expert", "math_expert"))
    assert len(set(marks)) == 3
    labels = page.eval_on_selector_all("#waterfall text.label", "ts => ts.map(t => t.textContent)")
    assert "supervisor → research_expert" in labels  # long labels are cut to the label column
    rows = page.eval_on_selector_all("#waterfall g.entry", "gs => gs.map(g => g.getAttribute('aria-label'))")
    assert any(r.startswith("tool transfer_to_math_expert → math_expert, agent supervisor") for r in rows), rows
    page.hover("#waterfall .bar[data-kind=tool] >> nth=0")
    tip = page.text_content("#tip")
    assert "agent supervisor" in tip and "handed off to research_expert" in tip
    assert opened.errors == []
