"""The weighted rubric: rubric scoring, test sets, the evaluation runner (driving a real LangGraph
graph) and the production monitor."""

from __future__ import annotations

from typing import TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.graph import END, START, StateGraph

from evaluators import RUBRIC, EvaluationRunner, ProductionMonitor, TestSet, rubric_score


def test_rubric_has_five_dimensions_whose_weights_sum_to_one():
    assert list(RUBRIC) == ["factual_accuracy", "completeness", "citation_accuracy", "source_quality",
                            "tool_efficiency"]
    assert sum(d.weight for d in RUBRIC.values()) == pytest.approx(1.0)
    assert RUBRIC["citation_accuracy"].anchors["failed"] == "Citations missing or completely incorrect"
    levels = {"excellent": 1.0, "good": 0.8, "acceptable": 0.6, "poor": 0.3, "failed": 0.0}
    assert dict(RUBRIC["tool_efficiency"].levels) == levels


def test_rubric_score_weights_all_dimensions():
    scores = {"factual_accuracy": 1.0, "completeness": 0.8, "citation_accuracy": 0.6, "source_quality": 0.3,
              "tool_efficiency": 0.0}
    assert rubric_score(scores) == pytest.approx(0.30 + 0.25 * 0.8 + 0.15 * 0.6 + 0.10 * 0.3)


def test_rubric_score_accepts_level_names():
    assert rubric_score({"factual_accuracy": "good", "completeness": "excellent"}) == pytest.approx(
        (0.30 * 0.8 + 0.25 * 1.0) / 0.55)


def test_rubric_score_refuses_unknown_dimension_and_level():
    with pytest.raises(ValueError, match="not in the rubric"):
        rubric_score({"style": 1.0})
    with pytest.raises(ValueError, match="unknown level"):
        rubric_score({"completeness": "great"})


def test_rubric_score_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="no dimension"):
        rubric_score({})


@given(st.dictionaries(st.sampled_from(list(RUBRIC)), st.floats(0, 1), min_size=1))
def test_rubric_score_in_unit_interval(scores):
    assert 0.0 <= rubric_score(scores) <= 1.0


def make_set(as_state: bool = False) -> TestSet:
    def given_input(company):
        return {"company": company} if as_state else company

    ts = TestSet("credit")
    ts.add_test({"input": given_input("Acme"), "expected": {"risk_level": "LOW"}, "tags": ["public"],
                 "complexity": "easy"})
    ts.add_test({"input": given_input("Globex"), "expected": {"risk_level": "HIGH"}, "tags": ["public", "distressed"]})
    ts.add_test({"input": given_input("Initech"), "expected": {"risk_level": "MODERATE"}, "tags": ["private"],
                 "complexity": "hard"})
    return ts


def test_test_set_filters_tags_and_complexity():
    ts = make_set()
    assert [t["input"] for t in ts.tagged("public")] == ["Acme", "Globex"]
    assert [t["input"] for t in ts.filter(complexity="hard")] == ["Initech"]
    assert ts.complexity_distribution() == {"easy": 1, "medium": 1, "hard": 1}


def test_test_set_needs_an_input():
    with pytest.raises(ValueError, match="input"):
        TestSet("x").add_test({"expected": 1})


class S(TypedDict, total=False):
    company: str
    risk_level: str


RISK = {"Acme": "LOW", "Globex": "CRITICAL", "Initech": "MODERATE"}


def credit_graph():
    g = StateGraph(S)
    g.add_node("assess", lambda s: {"risk_level": RISK[s["company"]]})
    g.add_edge(START, "assess")
    g.add_edge("assess", END)
    return g.compile()


def score(output, test):
    right = output["risk_level"] == test["expected"]["risk_level"]
    return {"factual_accuracy": "excellent" if right else "poor", "completeness": 1.0}


def test_runner_drives_a_compiled_langgraph_graph():
    summary = EvaluationRunner(make_set(as_state=True), credit_graph(), score).run_all()
    assert (summary.total_tests, summary.passed, summary.failed, summary.errored) == (3, 2, 1, 0)
    assert summary.pass_rate == pytest.approx(2 / 3)
    assert summary.failures[0].output == {"company": "Globex", "risk_level": "CRITICAL"}
    assert summary.failures[0].overall_score == pytest.approx((0.30 * 0.3 + 0.25) / 0.55)
    assert summary.dimension_averages["factual_accuracy"] == pytest.approx((1.0 + 0.3 + 1.0) / 3)


def test_runner_accepts_a_plain_callable_and_records_agent_errors():
    def agent(company):
        if company == "Initech":
            raise RuntimeError("data source down")
        return {"risk_level": RISK[company]}

    summary = EvaluationRunner(make_set(), agent, score).run_all()
    assert summary.errored == 1 and summary.passed == 1
    errored = [r for r in summary.failures if r.error]
    assert errored[0].overall_score is None and "data source down" in errored[0].error


def test_runner_refuses_an_empty_test_set():
    with pytest.raises(ValueError, match="no tests"):
        EvaluationRunner(TestSet("empty"), lambda x: x, score).run_all()


def test_monitor_status_thresholds():
    monitor = ProductionMonitor(lambda q, o: {"completeness": 1.0})
    assert [monitor.status(r) for r in (0.9, 0.85, 0.84, 0.70, 0.69)] == [
        "healthy", "healthy", "warning", "warning", "critical"]


def test_monitor_without_samples_has_insufficient_data():
    assert ProductionMonitor(lambda q, o: {}).get_metrics().status == "insufficient_data"


def test_monitor_samples_and_reports():
    good = {"factual_accuracy": 1.0}
    bad = {"factual_accuracy": 0.3}
    monitor = ProductionMonitor(lambda q, o: good if "ok" in o else bad, sample_rate=1.0)
    for output in ["ok"] * 4 + ["wrong"]:
        monitor.sample_and_evaluate("query " * 100, output)
    m = monitor.get_metrics()
    assert (m.sample_count, m.pass_rate, m.status) == (5, 0.8, "warning")
    assert m.average_score == pytest.approx((4 * 1.0 + 0.3) / 5)
    assert len(monitor.samples[0].query) == 200


def test_monitor_sampling_is_reproducible_with_a_seed():
    def sampled(seed):
        m = ProductionMonitor(lambda q, o: {"completeness": 1.0}, sample_rate=0.3, seed=seed)
        return [m.sample_and_evaluate("q", "o") is not None for _ in range(50)]

    assert sampled(7) == sampled(7)
    assert 0 < sum(sampled(7)) < 50
