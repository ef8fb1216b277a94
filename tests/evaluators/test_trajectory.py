"""Trajectory match and the observed trajectory of a run."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import observed_trajectory, trajectory_match

NODES = st.lists(st.sampled_from(["plan", "act", "tools", "answer"]), max_size=7)


def test_identical_paths_score_one_and_match_every_mode():
    r = trajectory_match(["plan", "act", "answer"], ["plan", "act", "answer"])
    assert (r.jaccard, r.order, r.score) == (1.0, 1.0, 1.0)
    assert r.strict and r.unordered and r.subset and r.superset
    assert r.missing == () and r.extra == ()


def test_score_is_point_six_jaccard_plus_point_four_lcs_order():
    # sets equal (jaccard 1); LCS(abc, acb) = 2 of max length 3
    r = trajectory_match(["a", "c", "b"], ["a", "b", "c"])
    assert r.jaccard == 1.0
    assert r.order == pytest.approx(2 / 3)
    assert r.score == pytest.approx(0.6 + 0.4 * 2 / 3)
    assert r.unordered and not r.strict


def test_partial_overlap():
    r = trajectory_match(["plan", "answer"], ["plan", "act", "answer"])
    assert r.jaccard == pytest.approx(2 / 3)
    assert r.order == pytest.approx(2 / 3)
    assert r.missing == ("act",) and r.extra == ()
    assert r.subset and not r.superset


def test_both_empty_is_one():
    r = trajectory_match([], [])
    assert (r.jaccard, r.order, r.score) == (1.0, 1.0, 1.0)


def test_one_empty_is_zero():
    assert trajectory_match([], ["plan"]).score == 0.0
    assert trajectory_match(["plan"], []).score == 0.0


def test_repeated_visits_are_a_multiset_difference():
    r = trajectory_match(["agent", "tools", "agent"], ["agent", "tools", "agent", "tools", "agent"])
    assert r.missing == ("tools", "agent")
    assert r.subset and not r.superset


def test_trajectory_refuses_a_bare_string():
    with pytest.raises(ValueError):
        trajectory_match("plan", ["plan"])


@given(NODES, NODES)
def test_trajectory_scores_in_unit_interval(a, e):
    r = trajectory_match(a, e)
    assert all(0.0 <= x <= 1.0 for x in (r.jaccard, r.order, r.score))


@given(NODES, NODES, st.randoms())
def test_jaccard_and_multiset_modes_ignore_order(a, e, rnd):
    a2, e2 = list(a), list(e)
    rnd.shuffle(a2)
    rnd.shuffle(e2)
    r1, r2 = trajectory_match(a, e), trajectory_match(a2, e2)
    assert (r1.jaccard, r1.unordered, r1.subset, r1.superset) == (r2.jaccard, r2.unordered, r2.subset, r2.superset)
    assert sorted(r1.missing) == sorted(r2.missing) and sorted(r1.extra) == sorted(r2.extra)


@given(NODES, NODES)
def test_superset_iff_nothing_missing_and_subset_iff_nothing_extra(a, e):
    r = trajectory_match(a, e)
    assert r.superset == (not r.missing)
    assert r.subset == (not r.extra)
    assert r.strict == (a == e)


def ev(node, step, ts, *, kind="node", etype="on_chain_start", depth=0, name=None):
    return {
        "event_type": etype, "event_kind": kind, "node": node, "event_name": name or node,
        "langgraph_step": step, "subgraph_depth": depth, "timestamp": f"2025-01-01T00:00:{ts:06.3f}+00:00",
    }


def test_observed_trajectory_of_react_agent_with_parallel_tool_calls():
    events = [
        ev("LangGraph", None, 0.0, kind="graph"),
        ev("agent", 1, 0.1), ev("agent", 1, 0.2, etype="on_chain_end"),
        ev("agent", 1, 0.15, kind="llm", etype="on_chat_model_start", name="model"),
        ev("tools", 2, 0.30), ev("tools", 2, 0.31),  # two parallel calls in one step
        ev("tools", 2, 0.32, kind="tool", etype="on_tool_start", name="lookup"),
        ev("agent", 3, 0.4),
        ev("tools", 4, 0.5),
        ev("agent", 5, 0.6),
    ]
    assert observed_trajectory(events) == ["agent", "tools", "agent", "tools", "agent"]


def test_observed_trajectory_orders_nodes_of_one_step_by_first_start_then_name():
    events = [ev("b", 1, 0.2), ev("c", 1, 0.1), ev("a", 1, 0.2), ev("b", 1, 0.05), ev("z", 0, 0.9)]
    assert observed_trajectory(events) == ["z", "b", "c", "a"]


def test_observed_trajectory_skips_subgraph_nodes_and_pseudo_nodes():
    events = [ev("__start__", 0, 0.0), ev("outer", 1, 0.1), ev("inner", 1, 0.2, depth=1), ev("end", 2, 0.3)]
    assert observed_trajectory(events) == ["outer", "end"]


def test_observed_trajectory_of_no_events_is_empty():
    assert observed_trajectory([]) == []


def test_observed_trajectory_needs_the_step_of_a_node_row():
    with pytest.raises(ValueError, match="langgraph_step"):
        observed_trajectory([ev("a", None, 0.1)])


def test_observed_trajectory_refuses_a_bad_timestamp():
    row = ev("a", 1, 0.1)
    row["timestamp"] = "yesterday"
    with pytest.raises(ValueError, match="ISO-8601"):
        observed_trajectory([row])
