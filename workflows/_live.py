"""Live data sources over HTTP (httpx): SEC EDGAR, Finnhub, CourtListener v4 and Tavily web
search, each mapped to the payload shape of the snapshots.

Keys come from the environment and go in headers only (``X-Finnhub-Token``,
``Authorization: Token``, ``Authorization: Bearer``), never in a URL, an error or a log line.
Base URLs can be overridden by environment (for tests and proxies). Any HTTP error, timeout
or unreadable body raises :class:`~workflows._sources.SourceError` naming the source and
the status only.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

import httpx

from harness import config

from ._company import name_key
from ._sources import SourceError, empty_payload, sentiment

#: Per base URL, the setting that overrides it (its default is the API's own: harness.config).
URL_SETTINGS = {
    "sec_www": "SEC_EDGAR_WWW_URL", "sec_data": "SEC_EDGAR_DATA_URL", "finnhub": "FINNHUB_BASE_URL",
    "court_listener": "COURTLISTENER_BASE_URL", "web_search": "TAVILY_BASE_URL",
}
#: Per keyed source, the setting that holds its key.
KEY_SETTINGS = {"finnhub": "FINNHUB_API_KEY", "court_listener": "COURTLISTENER_API_KEY", "web_search": "TAVILY_API_KEY"}
DEFAULT_SEC_AGENT = "langgraph-harness credit-analysis (set SEC_EDGAR_USER_AGENT)"

#: SEC XBRL concepts per financial field, first found wins.
SEC_CONCEPTS = {
    "revenue": ("Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax", "SalesRevenueNet"),
    "net_income": ("NetIncomeLoss",),
    "total_assets": ("Assets",),
    "total_liabilities": ("Liabilities",),
    "cash_and_equivalents": ("CashAndCashEquivalentsAtCarryingValue",),
    "operating_cash_flow": ("NetCashProvidedByUsedInOperatingActivities",),
    "stockholders_equity": ("StockholdersEquity",),
}
#: Finnhub ``metric`` names per payload metric.
FINNHUB_METRICS = {
    "52_week_high": "52WeekHigh", "52_week_low": "52WeekLow", "pe_ratio": "peTTM", "pb_ratio": "pbAnnual",
    "ps_ratio": "psTTM", "dividend_yield": "dividendYieldIndicatedAnnual", "beta": "beta", "eps_ttm": "epsTTM",
    "revenue_per_share": "revenuePerShareTTM", "net_profit_margin": "netProfitMarginTTM",
    "operating_margin": "operatingMarginTTM", "roe": "roeTTM", "roa": "roaTTM",
    "current_ratio": "currentRatioAnnual", "debt_equity": "totalDebt/totalEquityAnnual",
}


class LiveSources:
    """The four sources over HTTP. ``client`` may be injected (e.g. with a test transport)."""

    name = "live"

    def __init__(self, *, keys: Mapping[str, str | None] | None = None, urls: Mapping[str, str] | None = None,
                 user_agent: str | None = None, client: httpx.Client | None = None, timeout: float = 15.0) -> None:
        self._keys = {**{s: config.value(name) for s, name in KEY_SETTINGS.items()}, **(keys or {})}
        self.urls = {k: config.value(name, (urls or {}).get(k)) or str(config.setting(name).default)
                     for k, name in URL_SETTINGS.items()}
        agent = config.value("SEC_EDGAR_USER_AGENT", user_agent) or DEFAULT_SEC_AGENT
        self.client = client or httpx.Client(timeout=timeout, follow_redirects=True)
        self._sec_headers = {"User-Agent": agent, "Accept": "application/json"}
        self._tickers: list[dict[str, Any]] | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never show keys
        return f"LiveSources(urls={self.urls!r})"

    # --- HTTP -------------------------------------------------------------------------
    def _headers(self, source: str) -> dict[str, str]:
        key = self._keys.get(source)
        if source in ("sec_edgar", "sec_www", "sec_data"):
            return dict(self._sec_headers)
        if not key:
            raise SourceError(f"{source} skipped: {KEY_SETTINGS[source]} is not set")
        return {"finnhub": {"X-Finnhub-Token": key}, "court_listener": {"Authorization": f"Token {key}"},
                "web_search": {"Authorization": f"Bearer {key}"}}[source]

    def _get(self, source: str, base: str, path: str, params: Mapping[str, Any] | None = None,
             json_body: Mapping[str, Any] | None = None) -> Any:
        url = self.urls[base].rstrip("/") + path
        try:
            if json_body is not None:
                response = self.client.post(url, json=dict(json_body), headers=self._headers(source))
            else:
                response = self.client.get(url, params=dict(params or {}), headers=self._headers(source))
        except httpx.HTTPError as exc:
            raise SourceError(f"{source}: {type(exc).__name__} contacting {base}") from None
        if response.status_code == 404 and source == "sec_edgar":
            return None
        if response.status_code >= 400:
            raise SourceError(f"{source}: HTTP {response.status_code}")
        try:
            return response.json()
        except ValueError:
            raise SourceError(f"{source}: response is not JSON") from None

    # --- directory ----------------------------------------------------------------------
    def _sec_tickers(self) -> list[dict[str, Any]]:
        with self._lock:
            if self._tickers is None:
                raw = self._get("sec_edgar", "sec_www", "/files/company_tickers.json") or {}
                self._tickers = [v for v in raw.values() if isinstance(v, dict)]
            return self._tickers

    def lookup(self, query: str) -> list[dict[str, Any]]:
        """US filers from SEC's ticker list sharing a word with the query (exact name first),
        then Finnhub symbol search results with their profile (country, exchange)."""
        words = set(name_key(query).split())
        key, upper = name_key(query), query.strip().upper()
        sec = [t for t in self._sec_tickers() if t.get("ticker", "").upper() == upper
               or words & set(name_key(str(t.get("title", ""))).split())]
        sec.sort(key=lambda t: (name_key(str(t.get("title"))) != key and t.get("ticker", "").upper() != upper,
                                len(str(t.get("title")))))
        found = [{"name": t.get("title"), "aliases": [], "ticker": t.get("ticker"), "country": "US", "is_public": True,
                  "exchange": None, "cik": f"{int(t.get('cik_str', 0)):010d}"} for t in sec[:5]]
        if self._keys.get("finnhub"):
            hits = (self._get("finnhub", "finnhub", "/search", {"q": query}) or {}).get("result") or []
            for hit in [h for h in hits if h.get("type") in ("Common Stock", "EQS", "")][:3]:
                profile = self._get("finnhub", "finnhub", "/stock/profile2", {"symbol": hit.get("symbol")}) or {}
                if profile:
                    found.append({"name": profile.get("name") or hit.get("description"), "aliases": [hit.get("description")],
                                  "ticker": profile.get("ticker") or hit.get("symbol"), "country": profile.get("country"),
                                  "is_public": True, "exchange": profile.get("exchange"), "cik": None})
        return found

    # --- sources ------------------------------------------------------------------------
    def fetch(self, source: str, company: Mapping[str, Any]) -> dict[str, Any]:
        handler = {"sec_edgar": self._sec_edgar, "finnhub": self._finnhub, "court_listener": self._court_listener,
                   "web_search": self._web_search}.get(source)
        if handler is None:
            raise ValueError(f"unknown source {source!r}")
        return handler(company)

    def _sec_edgar(self, company: Mapping[str, Any]) -> dict[str, Any]:
        name = str(company.get("company_name") or "")
        cik = company.get("cik")
        if not cik and company.get("ticker"):
            match = next((t for t in self._sec_tickers() if t.get("ticker", "").upper() == str(company["ticker"]).upper()), None)
            cik = match and match.get("cik_str")
        if not cik:
            return empty_payload("sec_edgar", name)
        padded = f"{int(cik):010d}"
        sub = self._get("sec_edgar", "sec_data", f"/submissions/CIK{padded}.json")
        if not sub:
            return empty_payload("sec_edgar", name)
        recent = (sub.get("filings") or {}).get("recent") or {}
        filings = [{"form": f, "filing_date": d, "accession_number": a} for f, d, a in
                   zip(recent.get("form", []), recent.get("filingDate", []), recent.get("accessionNumber", []))][:5]
        facts = ((self._get("sec_edgar", "sec_data", f"/api/xbrl/companyfacts/CIK{padded}.json") or {})
                 .get("facts") or {}).get("us-gaap") or {}
        financials: dict[str, Any] = {}
        for field, concepts in SEC_CONCEPTS.items():
            for concept in concepts:
                annual = [u for u in ((facts.get(concept) or {}).get("units") or {}).get("USD", []) if u.get("form") == "10-K"]
                if annual:
                    latest = max(annual, key=lambda u: str(u.get("end")))
                    financials[field] = {"value": latest.get("val"), "period_end": latest.get("end"), "form": "10-K"}
                    break
        assets, liabilities = (financials.get(k, {}).get("value") for k in ("total_assets", "total_liabilities"))
        if assets and liabilities is not None:
            financials["debt_to_assets_ratio"] = {"value": round(liabilities / assets, 4), "calculated": True}
        return {"cik": padded, "company_name": sub.get("name") or name, "sic": sub.get("sic"),
                "sic_description": sub.get("sicDescription"), "fiscal_year_end": sub.get("fiscalYearEnd"),
                "state_of_incorporation": sub.get("stateOfIncorporation"), "recent_filings": filings,
                "financials": financials}

    def _finnhub(self, company: Mapping[str, Any]) -> dict[str, Any]:
        symbol = company.get("ticker")
        if not symbol:
            return empty_payload("finnhub", str(company.get("company_name") or ""))
        p = self._get("finnhub", "finnhub", "/stock/profile2", {"symbol": symbol}) or {}
        if not p:
            return empty_payload("finnhub", str(company.get("company_name") or ""))
        q = self._get("finnhub", "finnhub", "/quote", {"symbol": symbol}) or {}
        m = (self._get("finnhub", "finnhub", "/stock/metric", {"symbol": symbol, "metric": "all"}) or {}).get("metric") or {}
        today = date.today()
        news = self._get("finnhub", "finnhub", "/company-news",
                         {"symbol": symbol, "from": (today - timedelta(days=30)).isoformat(), "to": today.isoformat()}) or []
        peers = self._get("finnhub", "finnhub", "/stock/peers", {"symbol": symbol}) or []
        return {
            "symbol": symbol,
            "profile": {"name": p.get("name"), "ticker": p.get("ticker"), "country": p.get("country"),
                        "currency": p.get("currency"), "exchange": p.get("exchange"), "industry": p.get("finnhubIndustry"),
                        "ipo_date": p.get("ipo"), "market_cap": p.get("marketCapitalization"),
                        "shares_outstanding": p.get("shareOutstanding"), "logo": p.get("logo"),
                        "website": p.get("weburl"), "phone": p.get("phone")},
            "quote": {"current_price": q.get("c"), "change": q.get("d"), "percent_change": q.get("dp"), "high": q.get("h"),
                      "low": q.get("l"), "open": q.get("o"), "previous_close": q.get("pc"), "timestamp": q.get("t")} if q else {},
            "metrics": {k: m.get(v) for k, v in FINNHUB_METRICS.items()} if m else {},
            "recent_news": [{k: n.get(k) for k in ("headline", "summary", "source", "url", "datetime", "category")}
                            for n in news[:5] if isinstance(n, dict)],
            "peers": [x for x in peers if x != symbol][:10] if isinstance(peers, list) else [],
        }

    def _court_listener(self, company: Mapping[str, Any]) -> dict[str, Any]:
        name = str(company.get("company_name") or "")
        dockets = self._get("court_listener", "court_listener", "/search/", {"q": f'"{name}"', "type": "r"}) or {}
        opinions = self._get("court_listener", "court_listener", "/search/", {"q": f'"{name}"', "type": "o"}) or {}
        buckets: dict[str, list[dict[str, Any]]] = {"bankruptcy": [], "civil": [], "other": []}
        for d in dockets.get("results") or []:
            nature = str(d.get("suitNature") or "")
            kind = ("bankruptcy" if str(d.get("court_id", "")).endswith("b") or nature.lower().startswith("chapter")
                    else "other" if not nature or nature.lower().startswith("other") else "civil")
            buckets[kind].append({"case_name": d.get("caseName"), "docket_number": d.get("docketNumber"),
                                  "court": d.get("court"), "court_id": d.get("court_id"), "date_filed": d.get("dateFiled"),
                                  "date_terminated": d.get("dateTerminated"), "nature_of_suit": d.get("suitNature"),
                                  "cause": d.get("cause"), "jurisdiction_type": d.get("jurisdictionType"),
                                  "pacer_case_id": d.get("pacer_case_id")})
        total = int(dockets.get("count") or 0)
        civil = len(buckets["civil"])
        level = "high" if buckets["bankruptcy"] else "medium" if civil > 5 or total > 10 else "low"
        notes = ("Bankruptcy filing on record. " if buckets["bankruptcy"] else "") + f"{civil} civil case(s), {total} docket(s) in total."
        return {"company": name, "total_dockets": total, "total_opinions": int(opinions.get("count") or 0),
                "bankruptcy_cases": buckets["bankruptcy"], "civil_cases": buckets["civil"], "other_cases": buckets["other"],
                "recent_opinions": [{"case_name": o.get("caseName"), "court": o.get("court"), "date_filed": o.get("dateFiled"),
                                     "citation": ", ".join(o.get("citation") or [])} for o in (opinions.get("results") or [])[:5]],
                "risk_indicators": {"risk_level": level, "has_bankruptcy": bool(buckets["bankruptcy"]), "civil_case_count": civil,
                                    "total_case_count": total, "notes": notes}}

    def _web_search(self, company: Mapping[str, Any]) -> dict[str, Any]:
        name = str(company.get("company_name") or "")
        web = self._get("web_search", "web_search", "/search", json_body={"query": name, "max_results": 10, "topic": "general"}) or {}
        news = self._get("web_search", "web_search", "/search",
                         json_body={"query": f"{name} credit debt financial news", "max_results": 10, "topic": "news"}) or {}
        results = [{"title": r.get("title"), "url": r.get("url"), "snippet": r.get("content")} for r in web.get("results") or []]
        articles = [{"title": r.get("title"), "url": r.get("url"), "snippet": r.get("content"),
                     "date": r.get("published_date"), "source": httpx.URL(r.get("url") or "http://unknown").host}
                    for r in news.get("results") or []]
        texts = [f"{a['title']} {a['snippet']}" for a in articles]
        return {"company": name, "web_results": results, "news_articles": articles, "sentiment": sentiment(texts),
                "key_findings": [str(a["snippet"] or a["title"]).split(". ")[0] for a in articles][:10], "errors": []}
