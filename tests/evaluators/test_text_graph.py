"""The three-tier evaluation framework: text similarity, time score, task success, composite, recommendation, and the
graph metrics (networkx), including on the event graph of a captured run."""

from __future__ import annotations

import math
import statistics

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import (
    communication_overhead,
    coordination_centrality,
    cosine_similarity,
    jaccard_similarity,
    path_convergence,
    recommendation,
    run_graph,
    task_distribution_balance,
    task_success,
    tier_composite,
    time_score,
    tool_selection_accuracy,
)

TEXT = st.text(alphabet=st.sampled_from("abc xyz the and"), max_size=40)


def test_cosine_of_identical_texts_is_one():
    assert cosine_similarity("Revenue grew strongly", "Revenue grew strongly") == pytest.approx(1.0)


def test_cosine_of_unrelated_texts_is_zero():
    assert cosine_similarity("revenue growth", "pending lawsuit") == 0.0


def test_cosine_of_texts_without_terms():
    assert cosine_similarity("", "the and of") == 1.0
    assert cosine_similarity("", "revenue") == 0.0


def test_cosine_is_between_for_partial_overlap():
    assert 0.0 < cosine_similarity("strong revenue growth", "revenue decline") < 1.0


def test_jaccard_over_word_sets():
    assert jaccard_similarity("The cat sat", "the cat ran") == pytest.approx(2 / 4)


def test_jaccard_of_two_empty_texts_is_one():
    assert jaccard_similarity("", "  ") == 1.0


def test_similarity_refuses_non_text():
    with pytest.raises(ValueError, match="string"):
        jaccard_similarity(None, "x")


@given(TEXT, TEXT)
def test_similarities_in_unit_interval_and_symmetric(a, b):
    for f in (cosine_similarity, jaccard_similarity):
        assert 0.0 <= f(a, b) <= 1.0
        assert f(a, b) == pytest.approx(f(b, a))


@pytest.mark.parametrize(("seconds", "score"), [(0.0, 1.0), (0.2, 1.0), (1.0, 1.0), (math.e, 0.5), (math.inf, 0.0)])
def test_time_score_stays_in_unit_interval_below_one_second(seconds, score):
    assert time_score(seconds) == pytest.approx(score)


def test_time_score_matches_the_seed_formula_from_one_second():
    assert time_score(10.0) == pytest.approx(1 / (1 + math.log(10.0)))


def test_time_score_refuses_negative_time():
    with pytest.raises(ValueError, match=">= 0"):
        time_score(-1)


@given(st.floats(0, 1e9))
def test_time_score_in_unit_interval(t):
    assert 0.0 < time_score(t) <= 1.0


def test_task_success_weighted_threshold():
    assert task_success({"semantic": 0.9, "cosine": 0.8, "jaccard": 0.6}) == 1.0  # 0.45 + 0.24 + 0.12 = 0.81
    assert task_success({"semantic": 0.9, "cosine": 0.8, "jaccard": 0.5}) == 0.0  # 0.79


def test_task_success_needs_all_three_similarities():
    with pytest.raises(ValueError, match="semantic"):
        task_success({"cosine": 1.0, "jaccard": 1.0})


METRICS = {"time_taken": 1.0, "task_success": 1.0, "coordination_quality": 0.4, "tool_efficiency": 0.4,
           "planning_rational": 0.1, "output_similarity": 0.1}


def test_tier_composite_equal_default_weights():
    assert tier_composite(METRICS) == pytest.approx(0.5)


def test_tier_composite_custom_weights():
    assert tier_composite({"a": 1.0, "b": 0.0}, {"a": 3, "b": 1}) == pytest.approx(0.75)


def test_tier_composite_refuses_missing_metric_instead_of_scoring_zero():
    with pytest.raises(ValueError, match="output_similarity"):
        tier_composite({k: v for k, v in METRICS.items() if k != "output_similarity"})


def test_tier_composite_refuses_raw_seconds():
    with pytest.raises(ValueError, match="time_taken"):
        tier_composite({**METRICS, "time_taken": 12.0})


@pytest.mark.parametrize(("score", "label", "weight"),
                         [(0.8, "accept", 1.0), (0.79, "weak_accept", 0.7), (0.6, "weak_accept", 0.7),
                          (0.4, "weak_reject", -0.7), (0.39, "reject", -1.0)])
def test_recommendation_mapping(score, label, weight):
    r = recommendation(score)
    assert (r.label, r.weight) == (label, weight)


def test_path_convergence_of_a_detour():
    g = nx.DiGraph([("a", "b"), ("b", "d"), ("a", "c"), ("c", "b")])
    assert path_convergence(g, ["a", "c", "b", "d"]) == pytest.approx(2 / 3)
    assert path_convergence(g, ["a", "b", "d"]) == 1.0


def test_path_convergence_without_route_is_zero_and_single_node_is_one():
    g = nx.DiGraph([("a", "b")])
    g.add_node("z")
    assert path_convergence(g, ["a", "z"]) == 0.0
    assert path_convergence(g, ["a"]) == 1.0


def test_path_convergence_refuses_unknown_node():
    with pytest.raises(ValueError, match="not in the graph"):
        path_convergence(nx.DiGraph([("a", "b")]), ["a", "q"])


def test_tool_selection_accuracy():
    calls = [{"context": "filings", "tool_name": "sec_edgar"}, {"context": "news", "tool_name": "sec_edgar"}]
    optimal = {"filings": "sec_edgar", "news": "web_search"}
    assert tool_selection_accuracy(calls, optimal) == 0.5
    assert tool_selection_accuracy([], optimal) == 0.0


def test_tool_selection_accuracy_refuses_unknown_context():
    with pytest.raises(ValueError, match="no optimal tool"):
        tool_selection_accuracy([{"context": "weather", "tool_name": "x"}], {})


def test_communication_overhead():
    msgs = [{"type": "handoff"}, {"type": "task_request"}, {"type": "status_update"}, {"type": "result_delivery"}]
    assert communication_overhead(msgs) == 0.5
    assert communication_overhead([]) == 0.0


def test_coordination_centrality_of_a_star_puts_the_hub_first():
    g = nx.Graph([("hub", "a"), ("hub", "b"), ("hub", "c")])
    c = coordination_centrality(g)
    assert c["hub"] == pytest.approx(1.0)  # betweenness 1, closeness 1, degree 1
    assert max(c, key=c.get) == "hub"


def test_coordination_centrality_of_directed_graph_stays_in_unit_interval():
    g = nx.DiGraph([("a", "b"), ("b", "a"), ("a", "c"), ("c", "a")])
    assert all(0.0 <= v <= 1.0 for v in coordination_centrality(g).values())


def test_task_distribution_balance_uses_the_sample_std_as_seed_000_does():
    assert task_distribution_balance({"a": 2, "b": 4}) == pytest.approx(1 - statistics.stdev([2, 4]) / 3)
    assert task_distribution_balance({"a": 2, "b": 4}) == pytest.approx(1 - math.sqrt(2) / 3)
    assert task_distribution_balance({"a": 5}) == 1.0
    assert task_distribution_balance({"a": 0, "b": 0}) == 1.0
    assert task_distribution_balance({"a": 0, "b": 0, "c": 9}) == 0.0


def test_run_graph_links_events_by_parent_and_merges_start_and_end():
    rows = [
        {"event_id": "g", "parent_event_id": None, "event_type": "on_chain_start", "event_kind": "graph",
         "event_name": "LangGraph", "node": "LangGraph", "timestamp": "t0"},
        {"event_id": "n1", "parent_event_id": "g", "event_type": "on_chain_start", "event_kind": "node",
         "event_name": "agent", "node": "agent", "timestamp": "t1"},
        {"event_id": "l1", "parent_event_id": "n1", "event_type": "on_chat_model_start", "event_kind": "llm",
         "event_name": "model", "node": "agent", "timestamp": "t2"},
        {"event_id": "l1", "parent_event_id": "n1", "event_type": "on_llm_end", "event_kind": "llm",
         "event_name": "model", "node": "agent", "timestamp": "t3", "duration_ms": 4.0, "status": "ok"},
        {"event_id": "n1", "parent_event_id": "g", "event_type": "on_chain_end", "event_kind": "node",
         "event_name": "agent", "node": "agent", "timestamp": "t4", "duration_ms": 9.0, "status": "ok"},
    ]
    g = run_graph(rows)
    assert set(g.edges) == {("g", "n1"), ("n1", "l1")}
    assert g.nodes["l1"]["kind"] == "llm" and g.nodes["l1"]["start"] == "t2" and g.nodes["l1"]["duration_ms"] == 4.0
    assert g.nodes["l1"]["event_type"] == "on_chat_model_start"
    assert max(coordination_centrality(g).items(), key=lambda kv: kv[1])[0] == "n1"


def test_run_graph_needs_event_ids():
    with pytest.raises(ValueError, match="event_id"):
        run_graph([{"event_type": "on_chain_start"}])
