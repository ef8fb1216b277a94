"""`harness wrap MODULE:ATTR`: run a user's graph under the harness from the shell."""

import json
import textwrap

import pytest

from harness import Store
from tests.support.cli import harness_cli

GRAPH = textwrap.dedent('''
    import operator
    from typing import Annotated, TypedDict
    from langgraph.graph import StateGraph, START, END

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def build():
        g = StateGraph(S)
        g.add_node("plan", lambda s: {"log": ["plan"]})
        g.add_node("act", lambda s: {"log": ["act"]})
        g.add_edge(START, "plan"); g.add_edge("plan", "act"); g.add_edge("act", END)
        return g.compile()

    app = build()

    def failing():
        g = StateGraph(S)
        def bad(s):
            raise RuntimeError("kaboom")
        g.add_node("bad", bad); g.add_edge(START, "bad"); g.add_edge("bad", END)
        return g.compile()
''')


@pytest.fixture
def project(tmp_path):
    (tmp_path / "user_graph.py").write_text(GRAPH)
    return tmp_path


def harness(project, *args):
    return harness_cli(*args, cwd=project)


def test_wrap_runs_a_compiled_graph_and_records_it(project):
    db = project / "w.db"
    result = harness(project, "wrap", "user_graph:app", "--input", '{"log": []}', "--store", str(db),
                     "--reference-trajectory", "plan,act", "--repeats", "2")
    assert result.returncode == 0, result.stderr
    runs = Store(db).sheets()["runs"]
    assert len(runs) == 2 and set(runs.status) == {"completed"} and set(runs.total_steps) == {2}


def test_wrap_accepts_a_factory_and_an_input_file(project):
    (project / "in.json").write_text(json.dumps({"log": []}))
    result = harness(project, "wrap", "user_graph:build", "--input", "@in.json", "--store", str(project / "w.db"))
    assert result.returncode == 0, result.stderr


def test_wrap_exits_1_when_the_run_failed_and_still_records_it(project):
    db = project / "w.db"
    result = harness(project, "wrap", "user_graph:failing", "--input", '{"log": []}', "--store", str(db))
    assert result.returncode == 1 and "kaboom" in result.stderr and "Traceback" not in result.stderr
    assert list(Store(db).sheets()["runs"].status) == ["failed"]


@pytest.mark.parametrize("args, message", [
    (["no_such_module:app", "--input", "{}"], "cannot import module"),
    (["user_graph:nope", "--input", "{}"], "has no attribute"),
    (["user_graph", "--input", "{}"], "expected MODULE:ATTR"),
    (["user_graph:app", "--input", "{not json"], "not valid JSON"),
    (["user_graph:app", "--input", "@missing.json"], "cannot read input file"),
])
def test_bad_targets_and_inputs_are_one_line_and_exit_2(project, args, message):
    result = harness(project, "wrap", *args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr
