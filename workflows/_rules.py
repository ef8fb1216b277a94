"""The offline analyst's rules: how it answers each workflow prompt from the prompt's DATA.

Pure functions over plain dicts, so each rule is testable without a model. ``lite`` is the
second offline model: it looks at fewer signals (no web sentiment, no civil-case count) and
plans no court search for listed companies, so comparing the two models shows real
disagreement.
"""

from __future__ import annotations

import random
from typing import Any

from ._company import API_TOOLS, classify_company, name_key, normalise_country

BANKRUPTCY_WORDS = ("bankruptcy", "chapter 11", "chapter 7", "insolvency", "default")


# --- company_parser ------------------------------------------------------------------------
def parse_company(data: dict[str, Any]) -> dict[str, Any]:
    """Pick the directory match that is the same company as the input.

    A match is the same company when ``name_key`` of the input equals that of its name or
    an alias (confidence 0.95), or the input or the ticker hint equals its ticker (0.9).
    With no such match: a ticker hint makes it public (country from the jurisdiction hint,
    confidence 0.5); otherwise public flag, ticker and country stay null (confidence 0.2).
    """
    text = str(data.get("input") or "").strip()
    hints = data.get("hints") or {}
    key = name_key(text)
    hint_ticker = (hints.get("ticker") or "").strip().upper() or None
    for match in data.get("directory_matches") or []:
        names = [match.get("name") or ""] + list(match.get("aliases") or [])
        ticker = (match.get("ticker") or "").upper() or None
        by_name = bool(key) and any(name_key(n) == key for n in names)
        by_ticker = ticker is not None and ticker in {text.upper(), hint_ticker}
        if by_name or by_ticker:
            return {
                "company_name": match.get("name") or text,
                "is_public": match.get("is_public"),
                "ticker": match.get("ticker"),
                "country": normalise_country(match.get("country")),
                "exchange": match.get("exchange"),
                "cik": match.get("cik"),
                "confidence": 0.95 if by_name else 0.9,
                "reasoning": f"Directory entry {match.get('name')!r} matches the input by {'name' if by_name else 'ticker'}.",
            }
    country = normalise_country(hints.get("jurisdiction"))
    if hint_ticker:
        return {"company_name": text, "is_public": True, "ticker": hint_ticker, "country": country,
                "exchange": None, "cik": None, "confidence": 0.5,
                "reasoning": "No directory entry matches; the ticker given with the input marks it as listed."}
    return {"company_name": text, "is_public": None, "ticker": None, "country": country, "exchange": None,
            "cik": None, "confidence": 0.2, "reasoning": "No directory entry matches the input; the company is unidentified."}


# --- tool_selection ------------------------------------------------------------------------
def select_tools(data: dict[str, Any], *, lite: bool = False) -> dict[str, Any]:
    """Apply the tool descriptions of the prompt to the company: ``sec_edgar`` for US-listed,
    ``finnhub`` for listed, ``court_listener`` for US-listed and private, ``web_search``
    always. ``lite`` skips ``court_listener`` for listed companies."""
    company = data.get("company") or {}
    kind = classify_company(company)
    listed = kind in ("public_us", "public_non_us")
    reasons = {
        "sec_edgar": "US-listed: 10-K financials and filings are on EDGAR.",
        "finnhub": "Listed: market data, ratios and news are available.",
        "court_listener": "US court records show bankruptcy and litigation exposure.",
        "web_search": "News and sentiment apply to every company.",
    }
    chosen = []
    if kind == "public_us":
        chosen.append("sec_edgar")
    if listed:
        chosen.append("finnhub")
    if kind == "private" or (kind == "public_us" and not lite):
        chosen.append("court_listener")
    chosen.append("web_search")
    return {
        "tools": [{"name": t, "reason": reasons[t]} for t in chosen],
        "reasoning": f"Company type {kind}: {len([t for t in chosen if t in API_TOOLS])} API source(s) plus web search.",
    }


# --- credit_synthesis ----------------------------------------------------------------------
def _band(value: float | None, steps: list[tuple[float, int]], otherwise: int) -> int:
    """First ``(bound, points)`` with ``value < bound``; ``otherwise`` when none; 0 for None."""
    if value is None:
        return 0
    for bound, points in steps:
        if value < bound:
            return points
    return otherwise


def _value(entry: Any) -> float | None:
    if isinstance(entry, dict):
        entry = entry.get("value")
    return float(entry) if isinstance(entry, (int, float)) and not isinstance(entry, bool) else None


def risk_for_score(score: int) -> str:
    """LOW >= 720, MODERATE 620-719, HIGH 520-619, CRITICAL < 520."""
    return "LOW" if score >= 720 else "MODERATE" if score >= 620 else "HIGH" if score >= 520 else "CRITICAL"


def assess_credit(data: dict[str, Any], *, lite: bool = False, rng: random.Random | None = None,
                  temperature: float = 0.0) -> dict[str, Any]:
    """Score = 600 plus points per signal, clamped to 300-850:

    - SEC: debt/assets < 0.5 +50, < 0.7 +15, < 0.9 -40, else -90; net income > 0 +35 else
      -50; operating cash flow > 0 +25 else -35; negative equity -60.
    - Finnhub: current ratio < 1 -35, < 1.5 +10, else +30; debt/equity < 1 +30, < 2 +5,
      < 4 -35, else -80; net margin % < 0 -40, < 10 +10, else +30.
    - CourtListener: a bankruptcy case -250; civil cases > 5 -45, > 2 -15 (not ``lite``).
    - Web: ``round(60 * sentiment score)`` (not ``lite``); a bankruptcy/default finding -60
      when the court data shows none.

    Risk from the score bands (:func:`risk_for_score`), except that a bankruptcy is always
    CRITICAL. Confidence = ``min(0.95, 0.15 + 0.2 * sources with data)`` (``lite`` 0.05
    lower). At temperature T > 0, ``rng`` adds Gaussian noise of std ``40*T`` points to the
    score and ``±0.1*T`` to the confidence.
    """
    sources = data.get("sources") or {}
    got = {name: s.get("data") for name, s in sources.items() if s.get("status") == "ok" and s.get("records_found")}
    score, risks, positives, cited = 600, [], [], []

    def add(points: int, text: str) -> None:
        nonlocal score
        if points:
            score += points
            (positives if points > 0 else risks).append(text)
            cited.append(f"{text} ({points:+d})")

    sec = (got.get("sec_edgar") or {}).get("financials") or {}
    if sec:
        d = _value(sec.get("debt_to_assets_ratio"))
        add(_band(d, [(0.5, 50), (0.7, 15), (0.9, -40)], -90), f"debt/assets {d:.2f}" if d is not None else "")
        ni = _value(sec.get("net_income"))
        if ni is not None:
            add(35 if ni > 0 else -50, f"net income {ni / 1e6:,.0f}M USD")
        ocf = _value(sec.get("operating_cash_flow"))
        if ocf is not None:
            add(25 if ocf > 0 else -35, f"operating cash flow {ocf / 1e6:,.0f}M USD")
        eq = _value(sec.get("stockholders_equity"))
        if eq is not None and eq < 0:
            add(-60, "negative stockholders' equity")
    metrics = (got.get("finnhub") or {}).get("metrics") or {}
    if metrics:
        cr, de, npm = (_value(metrics.get(k)) for k in ("current_ratio", "debt_equity", "net_profit_margin"))
        add(_band(cr, [(1.0, -35), (1.5, 10)], 30), f"current ratio {cr}")
        add(_band(de, [(1.0, 30), (2.0, 5), (4.0, -35)], -80), f"debt/equity {de}")
        add(_band(npm, [(0.0, -40), (10.0, 10)], 30), f"net margin {npm}%")
    court = got.get("court_listener") or {}
    indicators = court.get("risk_indicators") or {}
    bankrupt = bool(indicators.get("has_bankruptcy") or court.get("bankruptcy_cases"))
    if bankrupt:
        add(-250, "bankruptcy case on the court docket")
    if court and not lite:
        civil = int(indicators.get("civil_case_count") or len(court.get("civil_cases") or []))
        add(-45 if civil > 5 else -15 if civil > 2 else 0, f"{civil} civil court cases")
    web = got.get("web_search") or {}
    if web:
        s = _value((web.get("sentiment") or {}).get("score"))
        if s is not None and not lite:
            add(round(60 * s), f"web sentiment {s:+.2f}")
        findings = " ".join(web.get("key_findings") or []).lower()
        if not bankrupt and any(w in findings for w in BANKRUPTCY_WORDS):
            add(-60, "news reports bankruptcy or default")
    confidence = min(0.95, 0.15 + 0.2 * len(got)) - (0.05 if lite else 0.0)
    if rng is not None and temperature > 0:
        score += round(rng.gauss(0.0, 40.0 * temperature))
        confidence += rng.uniform(-0.1, 0.1) * temperature
    score = max(300, min(850, score))
    confidence = round(max(0.05, min(0.99, confidence)), 3)
    risk = "CRITICAL" if bankrupt else risk_for_score(score)
    gaps = sorted(set(data.get("planned_tools") or sources) - set(got))
    return {
        "risk_level": risk,
        "credit_score": score,
        "confidence": confidence,
        "reasoning": _reasoning(data, risk, score, cited, got),
        "risk_factors": [r for r in risks if r] or ["no adverse signal in the data"],
        "positive_factors": [p for p in positives if p],
        "recommendations": _recommendations(risk, gaps, bool(got)),
        "data_gaps": gaps,
    }


def _reasoning(data: dict[str, Any], risk: str, score: int, cited: list[str], got: dict[str, Any]) -> str:
    name = (data.get("company") or {}).get("company_name") or "The company"
    if not got:
        return (f"No source returned data for {name}; the {risk} rating and score {score} rest on no "
                "evidence and only reflect that the company could not be verified.")
    return (f"{name}: {risk} risk, credit score {score}, from {', '.join(sorted(got))}. Signals: "
            + "; ".join(c for c in cited if c) + ".")


def _recommendations(risk: str, gaps: list[str], any_data: bool) -> list[str]:
    recs = {
        "LOW": ["Extend standard trade credit terms", "Review annually"],
        "MODERATE": ["Extend credit with standard covenants", "Review financials semi-annually"],
        "HIGH": ["Require collateral or a guarantee", "Limit exposure and review quarterly"],
        "CRITICAL": ["Do not extend unsecured credit", "Require prepayment or a letter of credit"],
    }[risk]
    if not any_data:
        recs = ["Obtain audited financial statements before any credit decision", *recs]
    elif gaps:
        recs.append(f"Fill the data gaps ({', '.join(gaps)}) before increasing exposure")
    return recs
