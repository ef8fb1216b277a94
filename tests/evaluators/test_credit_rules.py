"""The rule-based scores of the evaluations and agent_metrics sheets (the sheets' formulas, with
this project's weights and scales: docs/sheets.md, docs/decisions.md)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import (
    EXPECTED_FIELDS,
    agent_overall,
    data_quality,
    eval_status,
    evaluation_overall,
    evaluation_row,
    final_answer_quality,
    intent_correctness,
    judge_overall,
    names_match,
    plan_quality,
    synthesis_quality,
)

GOOD_ASSESSMENT = {
    "risk_level": "MODERATE",
    "credit_score": 690,
    "confidence": 0.8,
    "reasoning": "Revenue grew 8% while leverage stayed at 0.45 debt to assets; two civil cases are pending.",
    "recommendations": ["Cap exposure at 5M", "Review after the next 10-K"],
}


@pytest.mark.parametrize(
    ("score", "status"),
    [(0.8, "good"), (0.95, "good"), (0.7999, "average"), (0.6, "average"), (0.5999, "bad"), (0.0, "bad")],
)
def test_eval_status_thresholds(score, status):
    assert eval_status(score) == status


def test_eval_status_of_missing_score_is_none():
    assert eval_status(None) is None
    assert eval_status(math.nan) is None


def test_eval_status_refuses_score_outside_unit_interval():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        eval_status(85)


def test_intent_full_marks():
    r = intent_correctness("apple", {"company_name": "Apple Inc.", "is_public_company": True, "confidence": 0.9})
    assert (r.name_match, r.type_identified, r.confidence_points) == (True, True, 0.3)
    assert r.score == pytest.approx(1.0)


@pytest.mark.parametrize(("confidence", "points"), [(0.71, 0.3), (0.7, 0.2), (0.51, 0.2), (0.5, 0.1), (0.31, 0.1), (0.3, 0.0)])
def test_intent_confidence_bands(confidence, points):
    r = intent_correctness("Acme", {"company_name": "Acme", "is_public_company": False, "confidence": confidence})
    assert r.score == pytest.approx(0.4 + 0.3 + points)


def test_intent_name_mismatch_and_unknown_type():
    r = intent_correctness("Palantir", {"company_name": "Palantir Technologies Inc", "confidence": 0.9})
    assert r.name_match and not r.type_identified
    assert r.score == pytest.approx(0.7)


def test_intent_without_company_info_is_zero():
    assert intent_correctness("Acme", None).score == 0.0


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [("Tesla", "Tesla Motors", True), ("Microsoft Corp.", "microsoft corporation", True),
     ("Intel", "Intelligence Partners", False), ("Meta", "Metadata Inc", False), ("Inc.", "Inc", False)],
)
def test_company_names_match_on_whole_words(a, b, match):
    assert names_match(a, b) is match


def test_plan_quality_full_marks():
    plan = [{"action": "fetch_sec_edgar"}, {"action": "search_company"}, {"action": "synthesize assessment"}]
    r = plan_quality(plan)
    assert (r.size_ok, r.has_data_gathering, r.has_analysis) == (True, True, True)
    assert r.score == pytest.approx(1.0)


def test_plan_quality_counts_credit_tool_names_as_data_gathering():
    assert plan_quality([{"tool": "finnhub"}]).has_data_gathering


def test_plan_quality_too_short_and_no_analysis():
    assert plan_quality(["search news"]).score == pytest.approx(0.35)


def test_plan_quality_accepts_a_mapping_with_tasks():
    assert plan_quality({"tasks": ["fetch data", "analyse", "assess"]}).score == pytest.approx(1.0)


def test_plan_quality_of_no_plan_is_zero():
    assert plan_quality(None).score == 0.0


def test_final_answer_quality_full_marks():
    assert final_answer_quality(GOOD_ASSESSMENT).score == pytest.approx(1.0)


def test_final_answer_quality_uses_the_300_850_scale():
    r = final_answer_quality({**GOOD_ASSESSMENT, "credit_score": 72})
    assert not r.valid_credit_score
    assert r.score == pytest.approx(0.85)


def test_final_answer_quality_short_reasoning_loses_point_one():
    assert final_answer_quality({**GOOD_ASSESSMENT, "reasoning": "Fine."}).score == pytest.approx(0.9)


def test_final_answer_quality_of_empty_assessment():
    assert final_answer_quality({}).score == 0.0
    assert final_answer_quality(None).score == 0.0


def test_synthesis_quality_counts_present_and_valid_fields():
    r = synthesis_quality({**GOOD_ASSESSMENT, "risk_level": "medium", "recommendations": []})
    assert r.missing == ("recommendations",)
    assert r.invalid == ("risk_level",)
    assert r.score == pytest.approx(3 / 5)


def test_synthesis_quality_refuses_booleans_as_numbers():
    assert synthesis_quality({**GOOD_ASSESSMENT, "confidence": True}).invalid == ("confidence",)


def test_synthesis_quality_of_no_assessment_is_zero():
    assert synthesis_quality(None).score == 0.0


def full_payload(source):
    payload: dict = {}
    for path in EXPECTED_FIELDS[source]:
        node = payload
        *parents, leaf = path.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = {"value": 1.0, "period_end": "2024-12-31"} if parents == ["financials"] else "x"
    return payload


def test_data_quality_full_payloads_score_one():
    r = data_quality(["sec_edgar", "web_search"], {"sec_edgar": full_payload("sec_edgar"), "web_search": full_payload("web_search")})
    assert r.score == 1.0
    assert r.present == r.expected == len(EXPECTED_FIELDS["sec_edgar"]) + len(EXPECTED_FIELDS["web_search"])


def test_data_quality_error_payload_counts_as_no_data():
    r = data_quality(["finnhub", "web_search"], {"finnhub": {"error": "Company not found on stock exchanges"},
                                                  "web_search": full_payload("web_search")})
    assert r.failed == ("finnhub",)
    assert r.score == pytest.approx(len(EXPECTED_FIELDS["web_search"]) / (len(EXPECTED_FIELDS["web_search"]) + len(EXPECTED_FIELDS["finnhub"])))


def test_data_quality_counts_a_metric_without_value_as_missing():
    payload = full_payload("sec_edgar")
    payload["financials"]["revenue"] = {"value": None, "period_end": None}
    r = data_quality(["sec_edgar"], {"sec_edgar": payload})
    assert r.missing == {"sec_edgar": ("financials.revenue",)}


def test_data_quality_zero_counts_are_data():
    payload = full_payload("court_listener")
    payload["total_dockets"] = 0
    payload["risk_indicators"]["has_bankruptcy"] = False
    assert data_quality(["court_listener"], {"court_listener": payload}).score == 1.0


def test_data_quality_with_no_selected_tools_is_zero():
    assert data_quality([], {}).score == 0.0


def test_data_quality_ignores_tools_without_expected_fields():
    r = data_quality(["calculator", "web_search"], {"web_search": full_payload("web_search")})
    assert r.unknown == ("calculator",)
    assert r.score == 1.0


def test_evaluation_overall_weights():
    assert evaluation_overall(1.0, 0.5, 0.25) == pytest.approx(0.3 + 0.15 + 0.1)


def test_evaluation_overall_refuses_scores_outside_unit_interval():
    with pytest.raises(ValueError):
        evaluation_overall(1.0, 50, 0.25)


def test_agent_overall_weights():
    got = agent_overall(intent=1.0, plan=0.0, tool_choice=1.0, tool_completeness=0.0, trajectory=1.0, answer=0.5)
    assert got == pytest.approx(0.15 + 0.20 + 0.15 + 0.10)


def test_agent_overall_renormalises_over_present_parts():
    got = agent_overall(intent=None, plan=None, tool_choice=1.0, tool_completeness=0.5, trajectory=0.0, answer=None)
    assert got == pytest.approx((0.20 * 1.0 + 0.15 * 0.5) / 0.50)


def test_agent_overall_all_missing_is_none():
    assert agent_overall(intent=None, plan=None, tool_choice=None, tool_completeness=None, trajectory=math.nan, answer=None) is None


def test_judge_overall_is_the_mean_of_five():
    assert judge_overall([1.0, 0.8, 0.6, 0.4, 0.2]) == pytest.approx(0.6)


def test_judge_overall_with_a_missing_dimension_is_none():
    assert judge_overall([1.0, None, 0.6, 0.4, 0.2]) is None


def test_judge_overall_needs_five_scores():
    with pytest.raises(ValueError, match="exactly five"):
        judge_overall([1.0, 0.5])


UNIT = st.floats(0, 1)
MAYBE = st.one_of(st.none(), UNIT)


@given(MAYBE, MAYBE, MAYBE, MAYBE, MAYBE, MAYBE)
def test_agent_overall_in_unit_interval(a, b, c, d, e, f):
    got = agent_overall(intent=a, plan=b, tool_choice=c, tool_completeness=d, trajectory=e, answer=f)
    assert got is None or 0.0 <= got <= 1.0


@given(UNIT, UNIT, UNIT)
def test_evaluation_overall_in_unit_interval(a, b, c):
    assert 0.0 <= evaluation_overall(a, b, c) <= 1.0


@given(st.dictionaries(st.sampled_from(["risk_level", "credit_score", "confidence", "reasoning", "recommendations"]),
                       st.one_of(st.none(), st.text(), st.integers(-10, 1000), st.floats(allow_nan=True), st.lists(st.text()))))
def test_answer_and_synthesis_quality_in_unit_interval(assessment):
    assert 0.0 <= final_answer_quality(assessment).score <= 1.0
    assert 0.0 <= synthesis_quality(assessment).score <= 1.0


EMPTY_WEB = {"company": "Totally Unknown Widgets LLC", "web_results": [], "news_articles": [],
             "sentiment": {"sentiment": "neutral", "score": 0.0, "positive_articles": 0, "negative_articles": 0,
                           "neutral_articles": 0, "total_analyzed": 0},
             "key_findings": [], "errors": []}


def test_data_quality_of_a_payload_that_found_nothing_is_zero():
    r = data_quality(["web_search"], {"web_search": EMPTY_WEB})
    assert (r.score, r.present, r.evidence) == (0.0, 0, False)
    assert r.empty == ("web_search",) and r.failed == ()


def test_data_quality_counts_a_source_with_no_records_as_no_evidence():
    court = {"company": "x", "total_dockets": 0, "total_opinions": 0, "bankruptcy_cases": [], "civil_cases": [],
             "risk_indicators": {"risk_level": "low", "has_bankruptcy": False, "civil_case_count": 0, "total_case_count": 0}}
    r = data_quality(["court_listener", "web_search"], {"court_listener": court, "web_search": full_payload("web_search")})
    assert r.empty == ("court_listener",)
    assert r.present == len(EXPECTED_FIELDS["web_search"])


def test_data_quality_does_not_count_a_sentiment_of_zero_articles():
    web = {**EMPTY_WEB, "web_results": [{"title": "Widgets LLC opens a plant", "url": "u", "snippet": "s"}],
           "key_findings": ["Widgets LLC opens a plant"]}
    r = data_quality(["web_search"], {"web_search": web})
    assert r.missing == {"web_search": ("sentiment.sentiment", "sentiment.score")}
    assert r.score == pytest.approx(3 / 5)


@pytest.mark.parametrize("placeholder", ["N/A", "unknown", " none ", "-"])
def test_data_quality_does_not_count_placeholder_text(placeholder):
    payload = full_payload("finnhub")
    payload["profile"]["industry"] = placeholder
    assert data_quality(["finnhub"], {"finnhub": payload}).missing == {"finnhub": ("profile.industry",)}


def test_evaluation_of_a_run_whose_tools_found_nothing_cannot_be_good():
    row = evaluation_row(selected_tools=["web_search"], expected_tools=["web_search"],
                         source_payloads={"web_search": EMPTY_WEB}, assessment=GOOD_ASSESSMENT)
    assert row["data_quality_score"] == 0.0
    assert row["overall_score"] <= 0.7 and row["eval_status"] != "good"
    assert "no evidence found" in row["data_reasoning"] and "found nothing (no records): web_search" in row["data_reasoning"]


@given(st.dictionaries(st.sampled_from(list(EXPECTED_FIELDS)), st.none() | st.fixed_dictionaries({})),
       st.lists(st.sampled_from([*EXPECTED_FIELDS, "calc"]), max_size=6))
def test_data_quality_without_records_is_zero_whatever_was_selected(payloads, selected):
    r = data_quality(selected, payloads)
    assert r.score == 0.0 and not r.evidence
