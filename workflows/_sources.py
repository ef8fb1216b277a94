"""Data sources: the protocol the tools call, the bundled snapshots, and the payload rules
shared with the live clients.

Every source answers in the shape of the original system's clients (see the snapshot files
under ``workflows/snapshots/``). A company the source does not know gets the *empty* payload
of that shape (zero records), never an error payload; a source that fails raises
:class:`SourceError`, so the tool call is recorded as failed and no error text is ever
counted as data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from ._company import TOOL_NAMES, name_key


class SourceError(RuntimeError):
    """A data source could not answer (HTTP error, timeout, bad payload). The message names
    the source and the cause, never a key or a URL with credentials."""


@runtime_checkable
class DataSources(Protocol):
    """What the workflow needs from its data: a company directory and the four sources."""

    name: str

    def lookup(self, query: str) -> list[dict[str, Any]]:
        """Directory entries that may be the company: name, aliases, ticker, country,
        is_public, exchange, cik."""

    def fetch(self, source: str, company: Mapping[str, Any]) -> dict[str, Any]:
        """The source's payload for the company (``company`` holds company_name, ticker,
        country, cik); the empty payload when it has nothing; :class:`SourceError` on failure."""


def empty_payload(source: str, company_name: str) -> dict[str, Any]:
    """The source's response shape with no records in it."""
    if source == "sec_edgar":
        return {"cik": None, "company_name": company_name, "sic": None, "sic_description": None,
                "fiscal_year_end": None, "state_of_incorporation": None, "recent_filings": [], "financials": {}}
    if source == "finnhub":
        return {"symbol": None, "profile": {}, "quote": {}, "metrics": {}, "recent_news": [], "peers": []}
    if source == "court_listener":
        return {"company": company_name, "total_dockets": 0, "total_opinions": 0, "bankruptcy_cases": [],
                "civil_cases": [], "other_cases": [], "recent_opinions": [],
                "risk_indicators": {"risk_level": "low", "has_bankruptcy": False, "civil_case_count": 0,
                                    "total_case_count": 0, "notes": "no court records found"}}
    if source == "web_search":
        return {"company": company_name, "web_results": [], "news_articles": [],
                "sentiment": {"sentiment": "neutral", "score": 0.0, "positive_articles": 0, "negative_articles": 0,
                              "neutral_articles": 0, "total_analyzed": 0},
                "key_findings": [], "errors": []}
    raise ValueError(f"unknown source {source!r}; sources are {', '.join(TOOL_NAMES)}")


def count_records(source: str, payload: Mapping[str, Any] | None) -> int:
    """Records in a payload: SEC = filings + financial facts; Finnhub = profile + quote +
    metrics (1 each when present) + news items; CourtListener = dockets + opinions; web =
    results + news articles. None -> 0."""
    if source not in TOOL_NAMES:
        raise ValueError(f"unknown source {source!r}; sources are {', '.join(TOOL_NAMES)}")
    if not payload:
        return 0
    if source == "sec_edgar":
        return len(payload.get("recent_filings") or []) + len(payload.get("financials") or {})
    if source == "finnhub":
        return (bool(payload.get("profile")) + bool(payload.get("quote")) + bool(payload.get("metrics"))
                + len(payload.get("recent_news") or []))
    if source == "court_listener":
        return int(payload.get("total_dockets") or 0) + int(payload.get("total_opinions") or 0)
    return len(payload.get("web_results") or []) + len(payload.get("news_articles") or [])


#: The most confidence an assessment may claim when no source returned records.
NO_EVIDENCE_CONFIDENCE = 0.2


def evidence_note(planned: Sequence[str], results: Mapping[str, Mapping[str, Any]]) -> str | None:
    """What a run's data lacked, for the ``runs.note`` column and the summary table: each
    planned source that returned no records, was skipped (the missing key named) or failed,
    led by "no evidence found" when none returned records. None when every planned source
    returned records."""
    gaps, found = [], False
    for name in planned:
        result = results.get(name)
        if result is None:
            gaps.append(f"{name} did not run")
        elif result["status"] != "ok":
            error = str(result.get("error") or "failed")
            gaps.append(error if error.startswith(name) else f"{name} failed: {error}")
        elif not result["records_found"]:
            gaps.append(f"{name} returned no records")
        else:
            found = True
    if not planned:
        return "no evidence found: no data source was selected"
    if found:
        return "; ".join(gaps) or None
    return "no evidence found: " + "; ".join(gaps)


def sentiment(texts: list[str]) -> dict[str, Any]:
    """Keyword sentiment over article texts: each text is positive / negative / neutral by
    which word list it hits more; ``score = (pos - neg) / n``; label positive above 0.2,
    negative below -0.2."""
    pos_words = ("record", "growth", "raises", "wins", "upgrade", "affirmed", "profit", "expands", "strong")
    neg_words = ("loss", "lawsuit", "downgrade", "default", "bankruptcy", "chapter 11", "fraud", "delay", "missed", "sued")
    pos = neg = neu = 0
    for text in texts:
        low = text.lower()
        p, n = sum(w in low for w in pos_words), sum(w in low for w in neg_words)
        pos, neg, neu = pos + (p > n), neg + (n > p), neu + (p == n)
    total = pos + neg + neu
    score = round((pos - neg) / total, 3) if total else 0.0
    label = "positive" if score > 0.2 else "negative" if score < -0.2 else "neutral"
    return {"sentiment": label, "score": score, "positive_articles": pos, "negative_articles": neg,
            "neutral_articles": neu, "total_analyzed": total}


def load_snapshots() -> dict[str, dict[str, Any]]:
    """The bundled snapshots, keyed by file stem."""
    folder = resources.files("workflows") / "snapshots"
    out = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            out[entry.name[:-5]] = json.loads(entry.read_text(encoding="utf-8"))
    return out


@dataclass(frozen=True)
class SnapshotSources:
    """Offline data: the bundled snapshots (read once, read-only)."""

    name: str = "snapshots"
    snapshots: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType(load_snapshots()))

    def lookup(self, query: str) -> list[dict[str, Any]]:
        """Entries sharing a word with the query's name key, or whose ticker is the query."""
        words = set(name_key(query).split())
        upper = query.strip().upper()
        found = []
        for snap in self.snapshots.values():
            profile = dict(snap["profile"])
            keys = [name_key(n) for n in [profile["name"], *profile.get("aliases", [])]]
            if (profile.get("ticker") or "").upper() == upper or any(words & set(k.split()) for k in keys):
                found.append({k: v for k, v in profile.items() if k not in ("expected_risk", "note")})
        return found

    def record(self, company: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The snapshot of a company, matched by ticker, then by name key."""
        ticker = (company.get("ticker") or "").upper()
        key = name_key(company.get("company_name") or "")
        for snap in self.snapshots.values():
            profile = snap["profile"]
            if ticker and (profile.get("ticker") or "").upper() == ticker:
                return snap
            if key and key in {name_key(n) for n in [profile["name"], *profile.get("aliases", [])]}:
                return snap
        return None

    def fetch(self, source: str, company: Mapping[str, Any]) -> dict[str, Any]:
        name = company.get("company_name") or ""
        empty = empty_payload(source, name)
        snap = self.record(company)
        payload = snap.get(source) if snap is not None else None
        return json.loads(json.dumps(payload)) if payload else empty
