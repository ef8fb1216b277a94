"""Row builders return exactly the schema's columns of their sheet (minus those the harness
fills) and the store accepts them."""

from __future__ import annotations

import json

import pytest

from evaluators import (
    EXPECTED_FIELDS,
    PairwiseResult,
    agent_metrics_row,
    consistency_rows,
    cross_model_row,
    evaluation_row,
    tool_selection_row,
)
from harness.schema import sheet
from harness.store import Store

HARNESS_FILLED = {"run_id", "company_name", "timestamp", "generated_by", "node", "node_type", "agent_name", "step_number"}
ASSESSMENT = {"risk_level": "LOW", "credit_score": 760, "confidence": 0.85,
              "reasoning": "Strong operating cash flow covers interest nine times; no litigation of note.",
              "recommendations": ["Approve a 5M line"]}


def assert_fits(sheet_name: str, row: dict) -> None:
    s = sheet(sheet_name)
    assert set(row) <= set(s.all_column_names), set(row) - set(s.all_column_names)
    assert set(s.column_names) - HARNESS_FILLED <= set(row), set(s.column_names) - HARNESS_FILLED - set(row)
    assert not {"run_id", "company_name", "timestamp", "generated_by"} & set(row)
    json.dumps(row)  # JSON-able throughout


def stored(tmp_path, sheet_name: str, row: dict) -> dict:
    store = Store(tmp_path / "runs.db")
    store.write(sheet_name, [{"run_id": "r1", "company_name": "Acme", **row}])
    return next(store.rows(sheet_name, ["r1"]))


def test_tool_selection_row(tmp_path):
    row = tool_selection_row(["web_search", "sec_edgar"], ["sec_edgar", "finnhub"], model="m", duration_ms=3.0)
    assert_fits("tool_selections", row)
    assert row["correct_tools"] == ["sec_edgar"] and row["missing_tools"] == ["finnhub"]
    assert row["extra_tools"] == ["web_search"] and row["f1_score"] == pytest.approx(0.5)
    assert "missing: finnhub" in row["reasoning"] and row["status"] == "ok"
    assert stored(tmp_path, "tool_selections", row)["missing_tools"] == ["finnhub"]


def test_tool_selection_row_keeps_given_reasoning():
    assert tool_selection_row([], [], reasoning="LLM said so")["reasoning"] == "LLM said so"


def test_evaluation_row(tmp_path):
    payloads = {"sec_edgar": {"error": "timeout"}, "web_search": {f: "x" for f in ("company", "web_results", "key_findings")}}
    row = evaluation_row(selected_tools=["sec_edgar", "web_search"], expected_tools=["sec_edgar", "web_search"],
                         source_payloads=payloads, assessment=ASSESSMENT, model="m", duration_ms=1.5)
    assert_fits("evaluations", row)
    expected_fields = len(EXPECTED_FIELDS["sec_edgar"]) + len(EXPECTED_FIELDS["web_search"])
    assert row["tool_selection_score"] == 1.0
    assert row["data_quality_score"] == pytest.approx(3 / expected_fields)
    assert "sec_edgar" in row["data_reasoning"] and "sentiment.score" in row["data_reasoning"]
    assert row["synthesis_score"] == 1.0
    assert row["overall_score"] == pytest.approx(0.3 + 0.3 * 3 / expected_fields + 0.4)
    assert row["eval_status"] == "average"
    assert stored(tmp_path, "evaluations", row)["overall_score"] == pytest.approx(row["overall_score"])


def test_evaluation_row_says_what_synthesis_missed():
    row = evaluation_row(selected_tools=[], expected_tools=["web_search"], source_payloads={},
                         assessment={"risk_level": "SEVERE", "credit_score": 700})
    assert row["overall_score"] == pytest.approx(0.4 * 1 / 5)
    assert "missing: confidence, reasoning, recommendations; invalid: risk_level" in row["synthesis_reasoning"]
    assert "no known data source" in row["data_reasoning"]


def test_agent_metrics_row(tmp_path):
    row = agent_metrics_row(
        company_input="apple", company_info={"company_name": "Apple Inc.", "is_public_company": True, "confidence": 0.9},
        plan=[{"action": "fetch_sec_edgar"}, {"action": "search_web"}, {"action": "synthesize"}],
        selected_tools=["sec_edgar", "web_search"], expected_tools=["sec_edgar", "finnhub", "court_listener", "web_search"],
        actual_trajectory=["parse_input", "create_plan", "synthesize"],
        expected_trajectory=["parse_input", "create_plan", "fetch_api_data", "synthesize"],
        assessment=ASSESSMENT, step_count=7, tool_calls=2, latency_ms=120.0, model="m",
    )
    assert_fits("agent_metrics", row)
    assert row["tool_choice_correctness"] == 1.0 and row["tool_completeness"] == 0.5
    assert row["trajectory_match"] == pytest.approx(0.6 * 3 / 4 + 0.4 * 3 / 4)
    assert row["overall_score"] == pytest.approx(0.15 + 0.15 + 0.20 + 0.15 * 0.5 + 0.15 * 0.75 + 0.20)
    assert row["trajectory_details"]["missing"] == ["fetch_api_data"]
    assert row["intent_details"]["company_input"] == "apple"
    assert stored(tmp_path, "agent_metrics", row)["tool_details"]["missing"] == ["court_listener", "finnhub"]


def test_agent_metrics_row_refuses_negative_counts():
    with pytest.raises(ValueError, match="step_count"):
        agent_metrics_row(company_input="a", company_info=None, plan=None, selected_tools=[], expected_tools=[],
                          actual_trajectory=[], expected_trajectory=[], assessment=None, step_count=-1,
                          tool_calls=0, latency_ms=None)


def test_consistency_rows_same_and_cross_model(tmp_path):
    rows = consistency_rows({"llama-3.3-70b-versatile": [("LOW", 750), ("LOW", 745), ("MODERATE", 720)],
                             "llama-3.1-8b-instant": [("MODERATE", 700), ("MODERATE", 690)]})
    assert [(r["model_name"], r["evaluation_type"], r["num_runs"]) for r in rows] == [
        ("llama-3.3-70b-versatile", "same_model", 3), ("llama-3.1-8b-instant", "same_model", 2),
        ("llama-3.3-70b-versatile, llama-3.1-8b-instant", "cross_model", 5)]
    for row in rows:
        assert_fits("consistency_scores", row)
    assert rows[0]["risk_levels"] == "LOW, LOW, MODERATE" and rows[0]["credit_scores"] == "750, 745, 720"
    assert rows[2]["risk_level_consistency"] == pytest.approx(3 / 5)
    assert stored(tmp_path, "consistency_scores", rows[0])["credit_scores"] == "750, 745, 720"


def test_consistency_rows_skip_a_model_with_one_result_but_still_compare_models():
    rows = consistency_rows({"a": [("LOW", 700)], "b": [("LOW", 710)]})
    assert [r["evaluation_type"] for r in rows] == ["cross_model"]


def test_consistency_rows_of_one_model_with_one_result_is_empty():
    assert consistency_rows({"a": [("LOW", 700)]}) == []


def test_cross_model_row(tmp_path):
    comparison = PairwiseResult("ok", "a", False, ("a", "a"), ("r1", "r2"), "judge", 100, 5.0)
    row = cross_model_row({"big": ("LOW", 750, 0.9), "small": ("MODERATE", 700, 0.7)}, best_model="big",
                          best_model_reasoning="better supported", pairwise_comparisons=[comparison])
    assert_fits("cross_model_eval", row)
    assert row["models_compared"] == ["big", "small"] and row["num_models"] == 2
    assert row["model_results"]["small"] == {"risk_level": "MODERATE", "credit_score": 700, "confidence": 0.7}
    assert row["pairwise_comparisons"][0]["winner"] == "a"
    assert stored(tmp_path, "cross_model_eval", row)["pairwise_comparisons"][0]["verdicts"] == ["a", "a"]


def test_judge_row_fits_its_sheet(scripted):
    from evaluators import LLMJudge, judge_row

    from .test_judge import ASSESSMENT as A, verdict

    row = judge_row(LLMJudge(scripted(verdict()), retry_wait=0).judge(A, company="Acme"))
    assert_fits("llm_judge_results", row)
