from __future__ import annotations

import pytest

from tests.support.data_server import serve_data
from workflows import SnapshotSources, SourceError
from workflows._live import LiveSources

KEYS = {"finnhub": "fh-secret-1", "court_listener": "cl-secret-2", "web_search": "tv-secret-3"}


@pytest.fixture(scope="module")
def server():
    with serve_data() as s:
        yield s


@pytest.fixture
def live(server):
    server.fail.clear()
    return LiveSources(keys=KEYS, urls=server.urls)


@pytest.mark.parametrize("source", ["sec_edgar", "finnhub", "court_listener"])
def test_live_payloads_equal_the_snapshot_they_replay(live, source):
    company = {"company_name": "Vandelay Industries Inc", "ticker": "VDLY", "cik": "0001900006"}
    assert live.fetch(source, company) == SnapshotSources().fetch(source, company)


def test_sec_takes_the_latest_10k_fact_not_a_later_quarter(live):
    financials = live.fetch("sec_edgar", {"company_name": "Acme Corp", "ticker": "ACME"})["financials"]
    assert financials["revenue"] == {"value": 18_400_000_000, "period_end": "2024-12-31", "form": "10-K"}


def test_web_search_maps_results_news_and_sentiment(live):
    payload = live.fetch("web_search", {"company_name": "Vandelay Industries Inc"})
    snap = SnapshotSources().fetch("web_search", {"company_name": "Vandelay Industries Inc"})
    assert [r["url"] for r in payload["web_results"]] == [r["url"] for r in snap["web_results"]]
    assert payload["sentiment"]["sentiment"] == "negative"
    assert payload["key_findings"]


def test_keys_travel_in_headers_never_in_urls(live, server):
    before = len(server.requests)
    for source in ("finnhub", "court_listener", "web_search"):
        live.fetch(source, {"company_name": "Acme Corp", "ticker": "ACME"})
    sent = server.requests[before:]
    assert not any(key in r.path or key in str(r.query) or key in str(r.body) for r in sent for key in KEYS.values())
    headers = {r.path.split("/")[1]: r.headers for r in sent}
    assert headers["finnhub"]["X-Finnhub-Token"] == KEYS["finnhub"]
    assert headers["courtlistener"]["Authorization"] == f"Token {KEYS['court_listener']}"
    assert headers["tavily"]["Authorization"] == f"Bearer {KEYS['web_search']}"


def test_http_failure_raises_a_source_error_without_the_key(live, server):
    server.fail["/courtlistener"] = 503
    with pytest.raises(SourceError) as info:
        live.fetch("court_listener", {"company_name": "Acme Corp"})
    assert "HTTP 503" in str(info.value)
    assert all(k not in str(info.value) and k not in repr(live) for k in KEYS.values())


def test_missing_key_is_a_source_error_naming_the_variable(server, monkeypatch):
    monkeypatch.delenv("FINNHUB_API_KEY", raising=False)
    live = LiveSources(keys={}, urls=server.urls)
    with pytest.raises(SourceError, match="FINNHUB_API_KEY is not set"):
        live.fetch("finnhub", {"company_name": "Acme Corp", "ticker": "ACME"})


def test_unknown_company_gets_empty_payloads(live):
    assert live.fetch("finnhub", {"company_name": "Nobody", "ticker": "ZZZZ"})["profile"] == {}
    assert live.fetch("sec_edgar", {"company_name": "Nobody"})["financials"] == {}
    assert live.fetch("court_listener", {"company_name": "Nobody"})["total_dockets"] == 0


def test_directory_lookup_finds_us_filers_and_listed_foreign_companies(live):
    us = live.lookup("Acme Corp")
    assert us[0]["ticker"] == "ACME" and us[0]["country"] == "US" and us[0]["cik"] == "0001900001"
    foreign = live.lookup("Sakura Robotics KK")
    assert any(m["ticker"] == "6999.T" and m["country"] == "JP" for m in foreign)


def test_base_urls_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("FINNHUB_BASE_URL", "http://127.0.0.1:9/fh")
    assert LiveSources(keys=KEYS).urls["finnhub"] == "http://127.0.0.1:9/fh"
