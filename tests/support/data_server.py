"""A local HTTP server (127.0.0.1) that speaks the four data APIs the live sources use --
SEC EDGAR, Finnhub, CourtListener v4, Tavily -- replaying the bundled snapshots as the raw
API responses they were mapped from.

It records every request (method, path, query, headers) so tests can check where keys
travel, and fails on demand: ``server.fail[prefix] = status`` makes every request whose path
starts with ``prefix`` answer that status.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import serving
from urllib.parse import parse_qs, urlsplit

from workflows import SnapshotSources


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any = None


@dataclass
class DataServer:
    url: str
    snapshots: Mapping[str, Mapping[str, Any]]
    requests: list[Request] = field(default_factory=list)
    fail: dict[str, int] = field(default_factory=dict)

    @property
    def urls(self) -> dict[str, str]:
        """Base URLs for :class:`workflows._live.LiveSources` (``urls=`` argument)."""
        return {"sec_www": f"{self.url}/sec", "sec_data": f"{self.url}/sec-data", "finnhub": f"{self.url}/finnhub",
                "court_listener": f"{self.url}/courtlistener", "web_search": f"{self.url}/tavily"}


def _by_symbol(snapshots, symbol: str) -> Mapping[str, Any] | None:
    return next((s for s in snapshots.values() if (s["profile"].get("ticker") or "") == symbol), None)


def _by_cik(snapshots, cik: str) -> Mapping[str, Any] | None:
    return next((s for s in snapshots.values() if s.get("sec_edgar") and int(s["sec_edgar"]["cik"]) == int(cik)), None)


def _by_query(snapshots, query: str) -> Mapping[str, Any] | None:
    q = query.strip('"').casefold()
    return next((s for s in snapshots.values() if q in {n.casefold() for n in [s["profile"]["name"], *s["profile"].get("aliases", [])]}), None)


_INVERSE_METRICS = {"52_week_high": "52WeekHigh", "52_week_low": "52WeekLow", "pe_ratio": "peTTM", "pb_ratio": "pbAnnual",
                    "ps_ratio": "psTTM", "dividend_yield": "dividendYieldIndicatedAnnual", "beta": "beta", "eps_ttm": "epsTTM",
                    "revenue_per_share": "revenuePerShareTTM", "net_profit_margin": "netProfitMarginTTM",
                    "operating_margin": "operatingMarginTTM", "roe": "roeTTM", "roa": "roaTTM",
                    "current_ratio": "currentRatioAnnual", "debt_equity": "totalDebt/totalEquityAnnual"}
_CONCEPT = {"revenue": "Revenues", "net_income": "NetIncomeLoss", "total_assets": "Assets", "total_liabilities": "Liabilities",
            "cash_and_equivalents": "CashAndCashEquivalentsAtCarryingValue",
            "operating_cash_flow": "NetCashProvidedByUsedInOperatingActivities", "stockholders_equity": "StockholdersEquity"}


def route(snapshots, path: str, query: dict[str, list[str]], body: Any) -> tuple[int, Any]:
    """The raw API answer for one request, built from the snapshots."""
    q = {k: v[0] for k, v in query.items()}
    if path == "/sec/files/company_tickers.json":
        rows = [s for s in snapshots.values() if s.get("sec_edgar")]
        return 200, {str(i): {"cik_str": int(s["sec_edgar"]["cik"]), "ticker": s["profile"]["ticker"],
                              "title": s["sec_edgar"]["company_name"]} for i, s in enumerate(rows)}
    if path.startswith("/sec-data/submissions/CIK"):
        snap = _by_cik(snapshots, path.rsplit("CIK", 1)[1].split(".")[0])
        if snap is None:
            return 404, {"error": "not found"}
        sec = snap["sec_edgar"]
        filings = sec["recent_filings"]
        return 200, {"cik": str(int(sec["cik"])), "name": sec["company_name"], "sic": sec["sic"],
                     "sicDescription": sec["sic_description"], "fiscalYearEnd": sec["fiscal_year_end"],
                     "stateOfIncorporation": sec["state_of_incorporation"],
                     "filings": {"recent": {"form": [f["form"] for f in filings], "filingDate": [f["filing_date"] for f in filings],
                                            "accessionNumber": [f["accession_number"] for f in filings]}}}
    if path.startswith("/sec-data/api/xbrl/companyfacts/CIK"):
        snap = _by_cik(snapshots, path.rsplit("CIK", 1)[1].split(".")[0])
        if snap is None:
            return 404, {"error": "not found"}
        fin = snap["sec_edgar"]["financials"]
        facts = {_CONCEPT[k]: {"units": {"USD": [
            {"val": v["value"] * 0.9, "end": "2019-12-31", "form": "10-K", "fy": 2019},
            {"val": v["value"], "end": v["period_end"], "form": v["form"], "fy": int(v["period_end"][:4])},
            {"val": 1, "end": "2099-06-30", "form": "10-Q", "fy": 2099}]}} for k, v in fin.items() if k in _CONCEPT}
        return 200, {"cik": int(snap["sec_edgar"]["cik"]), "facts": {"us-gaap": facts}}
    if path.startswith("/finnhub/"):
        endpoint = path[len("/finnhub"):]
        if endpoint == "/search":
            snap = _by_query(snapshots, q.get("q", ""))
            hits = [{"description": snap["profile"]["name"].upper(), "displaySymbol": snap["profile"]["ticker"],
                     "symbol": snap["profile"]["ticker"], "type": "Common Stock"}] if snap and snap.get("finnhub") else []
            return 200, {"count": len(hits), "result": hits}
        snap = _by_symbol(snapshots, q.get("symbol", ""))
        fh = (snap or {}).get("finnhub")
        if endpoint == "/stock/profile2":
            if not fh:
                return 200, {}
            p = fh["profile"]
            return 200, {"country": p["country"], "currency": p["currency"], "exchange": p["exchange"],
                         "finnhubIndustry": p["industry"], "ipo": p["ipo_date"], "logo": p["logo"],
                         "marketCapitalization": p["market_cap"], "name": p["name"], "phone": p["phone"],
                         "shareOutstanding": p["shares_outstanding"], "ticker": p["ticker"], "weburl": p["website"]}
        if endpoint == "/quote":
            qt = (fh or {}).get("quote") or {}
            return 200, {"c": qt.get("current_price", 0), "d": qt.get("change"), "dp": qt.get("percent_change"),
                         "h": qt.get("high", 0), "l": qt.get("low", 0), "o": qt.get("open", 0),
                         "pc": qt.get("previous_close", 0), "t": qt.get("timestamp", 0)}
        if endpoint == "/stock/metric":
            m = (fh or {}).get("metrics") or {}
            return 200, {"symbol": q.get("symbol"), "metricType": "all",
                         "metric": {_INVERSE_METRICS[k]: v for k, v in m.items() if v is not None}}
        if endpoint == "/company-news":
            return 200, (fh or {}).get("recent_news") or []
        if endpoint == "/stock/peers":
            return 200, [q.get("symbol"), *((fh or {}).get("peers") or [])]
    if path == "/courtlistener/search/":
        snap = _by_query(snapshots, q.get("q", ""))
        court = (snap or {}).get("court_listener") or {}
        if q.get("type") == "o":
            ops = court.get("recent_opinions") or []
            return 200, {"count": court.get("total_opinions", 0),
                         "results": [{"caseName": o["case_name"], "court": o["court"], "dateFiled": o["date_filed"],
                                      "citation": [o["citation"]]} for o in ops]}
        dockets = [*court.get("bankruptcy_cases", []), *court.get("civil_cases", []), *court.get("other_cases", [])]
        return 200, {"count": len(dockets), "results": [
            {"caseName": d["case_name"], "docketNumber": d["docket_number"], "court": d["court"], "court_id": d["court_id"],
             "dateFiled": d["date_filed"], "dateTerminated": d["date_terminated"], "suitNature": d["nature_of_suit"],
             "cause": d["cause"], "jurisdictionType": d["jurisdiction_type"], "pacer_case_id": d["pacer_case_id"]}
            for d in dockets]}
    if path == "/tavily/search":
        query = str((body or {}).get("query", ""))
        news = (body or {}).get("topic") == "news"
        snap = next((s for s in snapshots.values() if query.casefold().startswith(s["profile"]["name"].casefold())), None)
        web = (snap or {}).get("web_search") or {}
        if news:
            return 200, {"query": query, "results": [{"title": a["title"], "url": a["url"], "content": a["snippet"],
                                                      "published_date": a["date"], "score": 0.9}
                                                     for a in web.get("news_articles", [])]}
        return 200, {"query": query, "results": [{"title": r["title"], "url": r["url"], "content": r["snippet"], "score": 0.8}
                                                 for r in web.get("web_results", [])]}
    return 404, {"error": f"no route {path}"}


@contextmanager
def serve_data(snapshots: Mapping[str, Mapping[str, Any]] | None = None) -> Iterator[DataServer]:
    """Start the server on a free loopback port for the duration of the block."""
    data = snapshots if snapshots is not None else SnapshotSources().snapshots
    state = DataServer(url="", snapshots=data)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"null") if length else None
            with lock:
                state.requests.append(Request(self.command, parts.path, parse_qs(parts.query), dict(self.headers), body))
                failing = next((code for prefix, code in state.fail.items() if parts.path.startswith(prefix)), None)
            status, payload = (failing, {"error": "injected failure"}) if failing else route(data, parts.path, parse_qs(parts.query), body)
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as url:
        state.url = url
        yield state
