from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from workflows import SnapshotSources
from workflows._rules import assess_credit, parse_company, risk_for_score, select_tools

LEVELS = ("LOW", "MODERATE", "HIGH", "CRITICAL")
numbers = st.one_of(st.none(), st.floats(-1e12, 1e12, allow_nan=False))


def payloads(draw_fin, draw_metrics, bankrupt, civil, sentiment):
    return {"sources": {
        "sec_edgar": {"status": "ok", "records_found": 5, "data": {"financials": draw_fin}},
        "finnhub": {"status": "ok", "records_found": 3, "data": {"metrics": draw_metrics}},
        "court_listener": {"status": "ok", "records_found": civil + bankrupt, "data": {
            "risk_indicators": {"has_bankruptcy": bankrupt, "civil_case_count": civil}, "civil_cases": [{}] * civil}},
        "web_search": {"status": "ok", "records_found": 2, "data": {"sentiment": {"score": sentiment}, "key_findings": []}},
    }}


assessment_inputs = st.builds(
    payloads,
    st.fixed_dictionaries({k: st.fixed_dictionaries({"value": numbers}) for k in
                           ("debt_to_assets_ratio", "net_income", "operating_cash_flow", "stockholders_equity")}),
    st.fixed_dictionaries({k: numbers for k in ("current_ratio", "debt_equity", "net_profit_margin")}),
    st.booleans(), st.integers(0, 30), st.floats(-1, 1),
)


@settings(max_examples=150, deadline=None)
@given(assessment_inputs, st.booleans(), st.floats(0, 2), st.integers(0, 1000))
def test_assessment_is_always_in_range_and_banded(data, lite, temperature, seed):
    out = assess_credit(data, lite=lite, rng=random.Random(seed), temperature=temperature)
    assert 300 <= out["credit_score"] <= 850
    assert 0.0 < out["confidence"] < 1.0
    assert out["risk_level"] in LEVELS
    bankrupt = data["sources"]["court_listener"]["data"]["risk_indicators"]["has_bankruptcy"]
    assert out["risk_level"] == ("CRITICAL" if bankrupt else risk_for_score(out["credit_score"]))
    assert out["recommendations"]


@settings(max_examples=100, deadline=None)
@given(assessment_inputs)
def test_worse_court_record_never_raises_the_score(data):
    better = assess_credit(data)
    data["sources"]["court_listener"]["data"]["risk_indicators"]["has_bankruptcy"] = True
    assert assess_credit(data)["credit_score"] <= better["credit_score"]


def test_no_data_says_so_and_keeps_confidence_low():
    out = assess_credit({"company": {"company_name": "Nobody"}, "planned_tools": ["web_search"],
                         "sources": {"web_search": {"status": "ok", "records_found": 0, "data": {}}}})
    assert out["confidence"] <= 0.2
    assert "No source returned data" in out["reasoning"]
    assert out["data_gaps"] == ["web_search"]


def test_failed_source_is_not_counted_as_data():
    failed = {"sources": {"finnhub": {"status": "fail", "records_found": 0, "data": {"metrics": {"current_ratio": 3}},
                                      "error": "HTTP 500"}}}
    assert assess_credit(failed)["credit_score"] == 600


@given(st.sampled_from([(True, "US"), (True, "DE"), (False, "US"), (None, None)]))
def test_tool_selection_matches_the_tool_descriptions(case):
    is_public, country = case
    tools = [t["name"] for t in select_tools({"company": {"is_public": is_public, "country": country}})["tools"]]
    assert tools[-1] == "web_search"
    assert ("sec_edgar" in tools) == (is_public is True and country == "US")
    assert ("finnhub" in tools) == (is_public is True)


def test_parser_prefers_an_exact_directory_match_and_never_guesses():
    matches = SnapshotSources().lookup("Acme Widgets")
    assert any(m["ticker"] == "ACME" for m in matches)  # a candidate sharing a word...
    parsed = parse_company({"input": "Acme Widgets", "directory_matches": matches})
    assert parsed["ticker"] is None and parsed["is_public"] is None  # ...is not the same company
    assert parse_company({"input": "acme corporation", "directory_matches": matches})["ticker"] == "ACME"


def test_bundled_labels_mostly_agree_with_the_offline_rules():
    snaps = SnapshotSources()
    hits = 0
    for snap in snaps.snapshots.values():
        sources = {t: {"status": "ok", "records_found": 1, "data": snap[t]} for t in
                   ("sec_edgar", "finnhub", "court_listener", "web_search") if snap[t]}
        hits += assess_credit({"sources": sources})["risk_level"] == snap["profile"]["expected_risk"]
    assert hits / len(snaps.snapshots) >= 0.8
