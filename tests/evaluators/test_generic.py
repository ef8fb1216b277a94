"""Evaluation rows for a generic wrapped run, from its captured rows."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from evaluators import generic_run_rows
from harness import Harness
from harness.schema import sheet


def ev(node, step, ts, *, kind="node", etype="on_chain_start", depth=0, duration=None):
    return {"event_type": etype, "event_kind": kind, "node": node, "event_name": node, "langgraph_step": step,
            "subgraph_depth": depth, "timestamp": f"2025-01-01T00:00:{ts:06.3f}+00:00", "duration_ms": duration}


EVENTS = [
    ev("LangGraph", None, 0.0, kind="graph"),
    ev("plan", 1, 0.1), ev("act", 2, 0.2), ev("act", 2, 0.21), ev("inner", 2, 0.22, depth=1), ev("answer", 3, 0.3),
    ev("LangGraph", None, 0.5, kind="graph", etype="on_chain_end", duration=480.0),
]
CALLS = [{"tool_name": "search", "status": "ok"}, {"tool_name": "calc", "status": "fail"},
         {"tool_name": "search", "status": "ok"}]
LLM = [{"model": "llama-3.1-8b-instant"}, {"model": "llama-3.1-8b-instant"}]
ROWS = {"langgraph_events": EVENTS, "tool_calls": CALLS, "llm_calls": LLM}


def test_nothing_expected_gives_no_rows():
    assert generic_run_rows(ROWS) == {}


def test_expected_tools_give_a_tool_selection_row_from_tools_that_ran_failed_included():
    out = generic_run_rows(ROWS, expected_tools=["search", "weather"])
    (row,) = out["tool_selections"]
    assert row["selected_tools"] == ["search", "calc"]
    assert row["correct_tools"] == ["search"] and row["extra_tools"] == ["calc"] and row["missing_tools"] == ["weather"]
    assert "3 call(s), 1 failed" in row["reasoning"]


def test_agent_metrics_row_of_a_generic_run():
    out = generic_run_rows(ROWS, expected_tools=["search", "weather"], reference_trajectory=["plan", "act", "answer"])
    (row,) = out["agent_metrics"]
    assert set(row) <= set(sheet("agent_metrics").all_column_names)
    assert row["intent_correctness"] is None and row["plan_quality"] is None and row["final_answer_quality"] is None
    assert (row["tool_choice_correctness"], row["tool_completeness"], row["trajectory_match"]) == (0.5, 0.5, 1.0)
    assert row["overall_score"] == pytest.approx((0.20 * 0.5 + 0.15 * 0.5 + 0.15 * 1.0) / 0.5)
    assert row["step_count"] == 5  # node executions at any depth
    assert row["tool_calls"] == 3
    assert row["latency_ms"] == 480.0
    assert row["model"] == "llama-3.1-8b-instant"
    assert row["trajectory_details"]["actual"] == ["plan", "act", "answer"]


def test_reference_trajectory_only_scores_the_trajectory():
    out = generic_run_rows(ROWS, reference_trajectory=["plan", "answer"])
    assert "tool_selections" not in out
    row = out["agent_metrics"][0]
    assert row["tool_choice_correctness"] is None and row["tool_details"] is None
    assert row["overall_score"] == pytest.approx(row["trajectory_match"])


def test_latency_falls_back_to_the_timestamp_span():
    out = generic_run_rows({"langgraph_events": EVENTS[1:-1]}, reference_trajectory=[])
    assert out["agent_metrics"][0]["latency_ms"] == pytest.approx(200.0)


def test_a_run_without_rows_still_gets_defined_scores():
    row = generic_run_rows({}, expected_tools=[], reference_trajectory=[])["agent_metrics"][0]
    assert row["overall_score"] == 1.0 and row["latency_ms"] is None and row["step_count"] == 0


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


class ToolCallingFake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def react_graph():
    model = ToolCallingFake(messages=iter([
        AIMessage(content="", tool_calls=[{"name": "lookup", "args": {"query": "a"}, "id": "1"},
                                          {"name": "lookup", "args": {"query": "b"}, "id": "2"}]),
        AIMessage(content="", tool_calls=[{"name": "lookup", "args": {"query": "c"}, "id": "3"}]),
        AIMessage(content="done"),
    ]))
    g = StateGraph(MessagesState)
    g.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    g.add_node("tools", ToolNode([lookup]))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    return g.compile()


def test_rows_captured_by_the_harness_from_a_real_react_agent(tmp_path):
    h = Harness(store=tmp_path / "runs.db")
    with h.run(subject="Acme", workflow="react") as run:
        react_graph().invoke({"messages": [("user", "hi")]}, config=run.config)
    frames = h.sheets(run_ids=[run.run_id])
    rows = {name: frames[name].to_dict("records") for name in ("langgraph_events", "tool_calls", "llm_calls")}
    out = generic_run_rows(rows, expected_tools=["lookup"],
                           reference_trajectory=["agent", "tools", "agent", "tools", "agent"])
    metrics = out["agent_metrics"][0]
    assert metrics["trajectory_details"]["actual"] == ["agent", "tools", "agent", "tools", "agent"]
    assert metrics["trajectory_match"] == 1.0
    assert metrics["tool_calls"] == 3 and metrics["step_count"] == 5  # one ToolNode run per tools step
    assert out["tool_selections"][0]["f1_score"] == 1.0
