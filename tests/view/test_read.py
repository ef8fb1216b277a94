"""A run read back from the store: its tree in the order things happened, its scores, and
run ids from their first characters; reads touch only the rows asked for."""

from __future__ import annotations

import sqlite3

import pytest

from harness import Harness, Store
from harness.view import list_runs, load_run
from harness.view.model import Frame, last_frames
from tests.harness import graphs


@pytest.fixture
def store(recorded):
    opened = Store(recorded.path)
    yield opened
    opened.close()


def _shape(entries, depth=0):
    return [(depth, e.kind, e.name, e.status) for e in entries] and [
        item for e in entries for item in [(depth, e.kind, e.name, e.status), *_shape(e.children, depth + 1)]]


def test_the_tree_nests_calls_under_their_node_and_subgraph_nodes_under_theirs_in_start_order(store, recorded):
    view = load_run(store, recorded.agent)
    assert _shape(view.tree) == [
        (0, "node", "plan", "ok"), (1, "llm", "GenericFakeChatModel", "ok"),
        (0, "node", "research", "ok"), (1, "tool", "outer", "ok"), (2, "tool", "lookup", "ok"),
        (0, "node", "child", "ok"), (1, "node", "inner_lookup", "ok"), (2, "tool", "lookup", "ok"),
        (0, "node", "answer", "ok"), (1, "llm", "StreamingModel", "ok"),
    ]
    starts = [e.started_at for _, e in view.entries()]
    assert all(s is not None for s in starts)
    assert [e.details["step"] for _, e in view.entries() if e.kind == "node"] == [1, 2, 3, 4, 5]
    assert [e.details["subgraph_depth"] for _, e in view.entries() if e.kind == "node"] == [0, 0, 0, 1, 0]


def test_model_calls_carry_model_tokens_cost_and_time_to_first_token(store, recorded):
    llm = [e for _, e in load_run(store, recorded.agent).entries() if e.kind == "llm"]
    planned, streamed = llm
    assert planned.details["model"] == "llama-3.1-8b-instant"
    assert (planned.details["prompt_tokens"], planned.details["completion_tokens"]) == (11, 7)
    assert planned.details["cost"] > 0 and planned.details["time_to_first_token_ms"] is None
    assert streamed.details["model"] == "llama-3.3-70b-versatile" and streamed.details["total_tokens"] == 25
    assert streamed.details["time_to_first_token_ms"] > 0


def test_tool_calls_carry_their_input_and_output(store, recorded):
    tools = [e for _, e in load_run(store, recorded.agent).entries() if e.kind == "tool"]
    assert tools[0].details["input"] == {"query": "facts"}
    assert tools[0].details["output"] == {"inner": {"query": "facts!", "hits": 3}}
    assert tools[1].details["call_depth"] == 1


def test_a_failed_run_marks_the_failing_node_and_tool_with_their_error(store, recorded):
    view = load_run(store, recorded.failed)
    assert _shape(view.tree) == [(0, "node", "only", "error"), (1, "tool", "broken", "error")]
    assert view.tree[0].error == "ValueError: backend unavailable for q"
    assert view.tree[0].children[0].error == "ValueError: backend unavailable for q"
    assert view.run["status"] == "failed"


def test_a_failed_entry_carries_its_traceback_whose_last_frames_say_where_it_failed(store, recorded):
    tool = load_run(store, recorded.failed).tree[0].children[0]
    assert tool.traceback.startswith("Traceback (most recent call last):\n")
    assert tool.traceback.endswith("ValueError: backend unavailable for q\n")
    *_, last = last_frames(tool.traceback)
    assert last.file.endswith("graphs.py") and last.function == "broken"
    assert last.source == 'raise ValueError(f"backend unavailable for {query}")'
    assert all(e.traceback is None for _, e in load_run(store, recorded.agent).entries())


def test_the_last_frames_of_a_chained_traceback_are_those_of_the_exception_raised_last():
    text = ('Traceback (most recent call last):\n  File "a.py", line 1, in inner\n    boom()\nKeyError: 1\n\n'
            "The above exception was the direct cause of the following exception:\n\n"
            'Traceback (most recent call last):\n  [7 frames above left out]\n  File "b.py", line 2, in outer\n'
            '    wrap()\n  File "<string>", line 5, in wrap\nRuntimeError: wrapped\n')
    assert last_frames(text) == [Frame("b.py", 2, "outer", "wrap()"), Frame("<string>", 5, "wrap", "")]
    assert last_frames(text, 1) == [Frame("<string>", 5, "wrap", "")] and last_frames(None) == []


def test_a_model_call_carries_its_prompt_and_response_whole(tmp_path):
    h = Harness(tmp_path / "runs.db", writer="inline")
    model = graphs.fake_model("a long answer " * 1_000)
    with h.run() as run:
        graphs.single_node(lambda s, config: (model.invoke("ask " * 5_000, config), {"log": []})[1]).invoke(
            {"log": []}, run.config)
    h.flush()
    (llm,) = [e for _, e in load_run(Store(tmp_path / "runs.db"), run.run_id).entries() if e.kind == "llm"]
    assert llm.details["input"] == "human: " + "ask " * 5_000  # 20,007 characters: beyond the preview's limit
    assert llm.details["output"] == "a long answer " * 1_000


def test_scores_come_from_every_sheet_that_has_them(store, recorded):
    credit = load_run(store, recorded.credit).scores
    assert set(k for k, v in credit.items() if v) == {"tool_selection", "trajectory", "evaluation", "judge",
                                                      "agent_metrics", "log_test", "passed", "list"}
    assert {s["name"] for s in credit["list"]} >= {"evaluation", "judge", "log_test", "tool_f1"}
    assert credit["passed"] is (credit["evaluation"]["status"] == "good" and credit["log_test"]["status"] == "pass")
    assert credit["evaluation"]["status"] in ("good", "average", "bad")
    assert credit["log_test"] == {"status": "pass", "profile": "credit", "sheets_logged": 12}
    agent = load_run(store, recorded.agent).scores
    assert agent["tool_selection"]["f1"] == 1.0 and agent["judge"] is None and agent["evaluation"] is None
    assert agent["passed"] is None  # a traced run whose scores do not gate it has no pass
    assert agent["trajectory"]["match"] == 1.0 and agent["trajectory"]["missing"] == []


def test_the_json_form_has_the_run_row_the_tree_and_the_scores(store, recorded):
    data = load_run(store, recorded.agent).to_dict()
    assert set(data) == {"run", "tree", "scores"} and data["run"]["run_id"] == recorded.agent
    node = data["tree"][0]
    assert {"kind", "name", "started_at", "duration_ms", "status", "error", "children", "step",
            "subgraph_depth"} <= set(node)
    assert {"model", "prompt_tokens", "completion_tokens", "cost", "time_to_first_token_ms"} <= set(node["children"][0])
    assert {"input", "output"} <= set(data["tree"][1]["children"][0])


def test_an_execution_with_no_recorded_end_is_unfinished(tmp_path):
    store = Store(tmp_path / "cut.db")
    store.write("runs", [{"run_id": "r1", "status": "failed", "started_at": "2026-01-01T00:00:00+00:00"}])
    store.write("langgraph_events", [
        {"run_id": "r1", "event_id": "n1", "event_kind": "node", "event_name": "slow", "status": "started",
         "timestamp": "2026-01-01T00:00:00.001000+00:00", "step_number": 1}])
    (entry,) = load_run(store, "r1").tree
    assert (entry.name, entry.status, entry.duration_ms) == ("slow", "unfinished", None)


def test_list_gives_the_newest_runs_first_filtered_and_limited_in_the_store(tmp_path):
    store = Store(tmp_path / "list.db")
    store.write("runs", [{"run_id": f"r{i}", "status": "failed" if i % 4 == 0 else "completed",
                          "workflow": "a" if i % 2 else "b", "experiment": "base" if i < 5 else None}
                         for i in range(10)])
    ids = lambda rows: [r["run_id"] for r in rows]  # noqa: E731
    assert ids(list_runs(store, limit=3)) == ["r9", "r8", "r7"]
    assert ids(list_runs(store, statuses=["failed"], limit=None)) == ["r8", "r4", "r0"]
    assert ids(list_runs(store, experiments=["base"], workflows=["a"])) == ["r3", "r1"]
    row = list_runs(store, limit=1)[0]
    assert {"run_id", "timestamp", "workflow", "company_name", "status", "total_time_ms", "total_tokens",
            "total_cost", "evaluation_score", "experiment", "case_id"} <= set(row)
    assert row["experiment"] is None and row["case_id"] is None


def test_show_reads_only_the_rows_of_its_run_through_the_run_id_index(recorded, tmp_path):
    from tests.support.copies import copy_runs

    path = tmp_path / "many.db"
    path.write_bytes(recorded.path.read_bytes())
    store = Store(path)
    copy_runs(store, [recorded.agent, recorded.credit], 300)
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    view = load_run(store, store.resolve_run_id(recorded.agent[:8]))
    store._conn.set_trace_callback(None)
    assert view.run_id == recorded.agent
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert reads and all("run_id" in s.split("WHERE", 1)[-1] for s in reads), reads
    db = sqlite3.connect(path)
    for sql in reads:
        plan = " ".join(row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + sql))
        assert "SCAN" not in plan, (sql, plan)
