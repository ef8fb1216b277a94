"""The terminal forms: the run list and a run as a tree with a timeline."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from harness import Store
from harness.view import list_runs, load_run
from harness.view.text import RunsTable, run_tree


@pytest.fixture
def store(recorded):
    opened = Store(recorded.path)
    yield opened
    opened.close()


def render(renderable, width: int) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"), color_system=None)
    console.print(renderable)
    return console.export_text()


@pytest.mark.parametrize("width", [60, 80, 120])
def test_run_ids_are_whole_and_lines_fit_on_a_terminal_of_any_width(store, width):
    rows = list_runs(store)
    text = render(RunsTable(rows), width)
    assert all(r["run_id"] in text for r in rows)
    assert max(len(line) for line in text.splitlines()) <= width


def test_a_narrow_terminal_leaves_out_the_least_useful_columns_and_says_which(store):
    text = render(RunsTable(list_runs(store)), 80)
    assert "left out to fit the terminal: " in text and "tokens" in text.split("left out")[1]
    assert "status" in text.splitlines()[1] and "completed" in text and "failed" in text
    wide = render(RunsTable(list_runs(store)), 200)
    assert "left out" not in wide and "tokens" in wide and "subject" in wide


def test_the_tree_lists_every_node_and_call_in_order_with_its_timeline(store, recorded):
    text = render(run_tree(load_run(store, recorded.agent)), 200)
    order = ["plan", "llm GenericFakeChatModel", "research", "tool outer", "tool lookup", "child", "inner_lookup",
             "tool lookup", "answer", "llm StreamingModel"]
    positions = []
    for name in order:
        positions.append(text.index(name, positions[-1] + 1 if positions else 0))
    assert "└─ tool lookup" in text and "   └─ tool lookup" in text  # the nested call sits under its caller
    assert "11 → 7 tokens" in text and "first token" in text and '{"query":"facts"} →' in text
    assert "█" in text and "scores" in text and "tool_f1" in text and "trajectory_match" in text and "no score gates the run" in text


def test_a_failed_run_shows_its_error_under_the_header_and_on_its_entries(store, recorded):
    text = render(run_tree(load_run(store, recorded.failed)), 200)
    assert "failed" in text.splitlines()[0]
    assert text.count("ValueError: backend unavailable for q") == 3  # the run, its node, its tool


def test_a_failed_tool_call_shows_its_input_then_its_error(store, recorded):
    text = render(run_tree(load_run(store, recorded.failed)), 200)
    assert '└─ tool broken  {"query":"q"} → ValueError: backend unavailable for q' in text


def test_a_failed_entry_shows_the_last_frames_of_its_traceback_dimmed(store, recorded):
    console = Console(width=200, record=True, file=open("/dev/null", "w"), color_system="standard")
    console.print(run_tree(load_run(store, recorded.failed)))
    styled, text = console.export_text(styles=True, clear=False), console.export_text()
    where = re.compile(r'tests/harness/graphs\.py:\d+ in broken: raise ValueError\(f"backend unavailable for \{query\}"\)')
    assert len(where.findall(text)) == 2  # under the node and under its tool
    lines = text.splitlines()
    tool = next(i for i, line in enumerate(lines) if "└─ tool broken" in line)
    assert where.search(lines[tool + 3]) and "in _run: return self.func(*args, **kwargs)" in lines[tool + 2]
    assert re.search(r"\x1b\[2m {5}" + where.pattern, styled)  # dim, under the tree's guide, innermost last
