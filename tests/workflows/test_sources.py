from __future__ import annotations

from collections import Counter

import pytest

from workflows import SnapshotSources, classify_company, count_records, empty_payload
from workflows._company import TOOL_NAMES
from workflows._sources import sentiment


@pytest.fixture(scope="module")
def snaps():
    return SnapshotSources()


def test_at_least_twelve_companies_cover_every_type_and_risk_level(snaps):
    kinds = Counter(classify_company(s["profile"]) for s in snaps.snapshots.values())
    assert len(snaps.snapshots) >= 12
    assert kinds["public_us"] and kinds["public_non_us"] and kinds["private"]
    assert {s["profile"]["expected_risk"] for s in snaps.snapshots.values()} == {"LOW", "MODERATE", "HIGH", "CRITICAL"}


def test_distressed_companies_are_bundled(snaps):
    bankrupt = [s for s in snaps.snapshots.values() if s["court_listener"] and s["court_listener"]["risk_indicators"]["has_bankruptcy"]]
    leveraged = [s for s in snaps.snapshots.values() if s["finnhub"] and (s["finnhub"]["metrics"]["debt_equity"] or 0) >= 4]
    assert bankrupt and leveraged


def test_payloads_have_the_shape_of_the_empty_payload(snaps):
    for snap in snaps.snapshots.values():
        for tool in TOOL_NAMES:
            if snap[tool]:
                assert set(empty_payload(tool, "x")) <= set(snap[tool]), (snap["profile"]["name"], tool)


def test_unknown_company_gets_empty_payloads_not_errors(snaps):
    for tool in TOOL_NAMES:
        payload = snaps.fetch(tool, {"company_name": "No Such Company Ltd"})
        assert "error" not in payload
        assert count_records(tool, payload) == 0


def test_fetch_returns_a_copy(snaps):
    first = snaps.fetch("finnhub", {"company_name": "Acme Corp"})
    first["metrics"]["current_ratio"] = -1
    assert snaps.fetch("finnhub", {"company_name": "Acme Corp"})["metrics"]["current_ratio"] == 1.8


def test_records_are_counted_per_source_rule(snaps):
    acme = snaps.record({"company_name": "Acme Corp"})
    assert count_records("sec_edgar", acme["sec_edgar"]) == 5 + 8
    assert count_records("court_listener", acme["court_listener"]) == 1
    with pytest.raises(ValueError):
        count_records("nope", {})


def test_keyword_sentiment_scores_positive_minus_negative_over_all():
    out = sentiment(["record profit", "lawsuit filed", "quarterly update"])
    assert (out["positive_articles"], out["negative_articles"], out["neutral_articles"], out["score"]) == (1, 1, 1, 0.0)
