"""The ``evaluations`` sheet's rules: data quality of the fetched sources, validity of the
synthesised assessment, and the weighted overall scores."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._checks import clamp01, is_missing, is_number, names, unit, unit_or_none
from ._consistency import CREDIT_SCORE_MAX, CREDIT_SCORE_MIN, RISK_LEVELS

#: Fields each data source is expected to return (dotted paths into its payload, shapes of
#: the source APIs). Lists that may legitimately be empty (court cases, news, peers) are not
#: expected fields: "no bankruptcy cases" is an answer, not missing data.
EXPECTED_FIELDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "sec_edgar": (
        "cik", "company_name", "sic", "fiscal_year_end", "recent_filings",
        "financials.revenue", "financials.net_income", "financials.total_assets",
        "financials.total_liabilities", "financials.cash_and_equivalents",
        "financials.operating_cash_flow", "financials.stockholders_equity",
        "financials.debt_to_assets_ratio",
    ),
    "finnhub": (
        "symbol", "profile.name", "profile.country", "profile.exchange", "profile.industry",
        "profile.market_cap", "quote.current_price", "quote.previous_close",
        "metrics.pe_ratio", "metrics.beta", "metrics.net_profit_margin", "metrics.roe",
        "metrics.current_ratio", "metrics.debt_equity",
    ),
    "court_listener": (
        "company", "total_dockets", "total_opinions", "risk_indicators.risk_level",
        "risk_indicators.has_bankruptcy", "risk_indicators.civil_case_count",
        "risk_indicators.total_case_count",
    ),
    "web_search": (
        "company", "web_results", "sentiment.sentiment", "sentiment.score", "key_findings",
    ),
})

#: Where each source puts what it found. A payload in which all of these are empty (or
#: zero) found nothing: its other fields are placeholders (the company name echoed back,
#: a neutral sentiment of no articles, a "low" court risk of no cases), not evidence.
RECORD_FIELDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "sec_edgar": ("recent_filings", "financials"),
    "finnhub": ("profile", "quote", "metrics", "recent_news"),
    "court_listener": ("total_dockets", "total_opinions", "bankruptcy_cases", "civil_cases", "other_cases"),
    "web_search": ("web_results", "news_articles"),
})

#: Expected fields computed from a count in the same payload: when that count is 0 the
#: field is a placeholder (a sentiment of zero articles analysed says nothing).
DERIVED_FROM: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "web_search": MappingProxyType({"sentiment.sentiment": "sentiment.total_analyzed",
                                    "sentiment.score": "sentiment.total_analyzed"}),
})

#: Text that stands for a missing value (compared case-insensitively, trimmed).
PLACEHOLDER_TEXT = frozenset({"n/a", "na", "none", "null", "unknown", "-", "--", "not available", "not found"})

#: Assessment fields the synthesis must produce, each present and valid.
REQUIRED_ASSESSMENT_FIELDS: tuple[str, ...] = (
    "risk_level", "credit_score", "confidence", "reasoning", "recommendations",
)

EVALUATION_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {"tool_selection": 0.3, "data_quality": 0.3, "synthesis": 0.4}
)


@dataclass(frozen=True, slots=True)
class DataQuality:
    score: float
    present: int  # expected fields found as evidence, over the selected known sources
    expected: int
    missing: Mapping[str, tuple[str, ...]]  # source -> expected fields not found
    failed: tuple[str, ...]  # selected sources with no payload or an error payload
    unknown: tuple[str, ...]  # selected tools that have no expected fields
    empty: tuple[str, ...] = ()  # selected sources whose payload found nothing (no records)

    @property
    def evidence(self) -> bool:
        """Whether any selected source returned evidence."""
        return self.present > 0


@dataclass(frozen=True, slots=True)
class SynthesisQuality:
    score: float
    missing: tuple[str, ...]  # required fields absent
    invalid: tuple[str, ...]  # required fields present but not valid


def has_value(value: Any) -> bool:
    """Present: not None/NaN, not a blank string, not an empty collection; a
    ``{"value": ...}`` metric counts when its value is present."""
    if is_missing(value):
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, Mapping):
        return has_value(value["value"]) if "value" in value else bool(value)
    if isinstance(value, (list, tuple, set)):
        return bool(value)
    return True


def _lookup(payload: Mapping[str, Any], path: str) -> Any:
    node: Any = payload
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def is_error_payload(payload: Any) -> bool:
    """No data: None, not a mapping, or a mapping with a non-empty ``error``."""
    return not isinstance(payload, Mapping) or has_value(payload.get("error"))


def is_evidence(value: Any) -> bool:
    """A value a source really returned: present (:func:`has_value`) and not placeholder
    text such as ``"N/A"`` or ``"unknown"`` (:data:`PLACEHOLDER_TEXT`)."""
    if isinstance(value, str):
        return value.strip().casefold() not in PLACEHOLDER_TEXT and bool(value.strip())
    if isinstance(value, Mapping) and "value" in value:
        return is_evidence(value["value"])
    return has_value(value)


def found_nothing(source: str, payload: Mapping[str, Any]) -> bool:
    """Whether a payload holds no records: every :data:`RECORD_FIELDS` entry of its source
    is absent, empty or zero. False for a source without record fields."""
    fields = RECORD_FIELDS.get(source)
    if not fields:
        return False
    return not any(is_evidence(v) and not (is_number(v) and v == 0)
                   for v in (_lookup(payload, f) for f in fields))


def _placeholder(source: str, payload: Mapping[str, Any], field: str) -> bool:
    basis = DERIVED_FROM.get(source, {}).get(field)
    if basis is None:
        return False
    count = _lookup(payload, basis)
    return is_number(count) and count == 0


def data_quality(selected_tools: Sequence[str], source_payloads: Mapping[str, Any]) -> DataQuality:
    """Share of expected fields for which the selected tools returned real evidence.

    ``score = Σ present / Σ expected`` over the distinct selected tools that have an entry in
    :data:`EXPECTED_FIELDS` (pooled, so every field weighs the same). A field is present
    when its value is evidence (:func:`is_evidence`: not None, blank, an empty collection,
    a ``{"value": null}`` metric or placeholder text) and not a placeholder computed from
    nothing (:data:`DERIVED_FROM`: a sentiment of zero articles). A tool whose payload is
    missing, None, or has a non-empty ``error`` (``failed``), or holds no records
    (``empty``, :func:`found_nothing`), contributes its expected fields and none present:
    a run whose tools found nothing scores 0. Zero counts are evidence in a payload that
    found something. Selected tools without expected fields are reported in ``unknown``
    and ignored; no known selected tool -> 0.0.
    """
    if not isinstance(source_payloads, Mapping):
        raise ValueError(f"source_payloads must map tool name -> payload, got {source_payloads!r}")
    tools = list(dict.fromkeys(names("selected_tools", selected_tools)))
    present = expected = 0
    missing: dict[str, tuple[str, ...]] = {}
    failed: list[str] = []
    empty: list[str] = []
    for tool in tools:
        fields = EXPECTED_FIELDS.get(tool)
        if fields is None:
            continue
        payload = source_payloads.get(tool)
        expected += len(fields)
        if is_error_payload(payload) or found_nothing(tool, payload):
            (failed if is_error_payload(payload) else empty).append(tool)
            missing[tool] = fields
            continue
        absent = tuple(f for f in fields
                       if not is_evidence(_lookup(payload, f)) or _placeholder(tool, payload, f))
        present += len(fields) - len(absent)
        if absent:
            missing[tool] = absent
    unknown = tuple(t for t in tools if t not in EXPECTED_FIELDS)
    score = present / expected if expected else 0.0
    return DataQuality(score, present, expected, MappingProxyType(missing), tuple(failed), unknown, tuple(empty))


def valid_field(field: str, value: Any) -> bool:
    """Validity of one assessment field: risk level in LOW|MODERATE|HIGH|CRITICAL (exact);
    credit score an integer (720 or 720.0) in 300–850; confidence a number in [0, 1];
    reasoning a non-blank string; recommendations a non-empty list with a non-blank string."""
    if field == "risk_level":
        return isinstance(value, str) and value in RISK_LEVELS
    if field == "credit_score":
        return (
            is_number(value) and math.isfinite(value) and float(value).is_integer()
            and CREDIT_SCORE_MIN <= value <= CREDIT_SCORE_MAX
        )
    if field == "confidence":
        return is_number(value) and 0.0 <= value <= 1.0
    if field == "reasoning":
        return isinstance(value, str) and bool(value.strip())
    if field == "recommendations":
        return isinstance(value, (list, tuple)) and any(isinstance(r, str) and r.strip() for r in value)
    raise ValueError(f"unknown assessment field {field!r}")


def synthesis_quality(assessment: Mapping[str, Any] | None) -> SynthesisQuality:
    """Share of the five required assessment fields that are present and valid
    (:data:`REQUIRED_ASSESSMENT_FIELDS`, rules of :func:`valid_field`). None -> 0.0."""
    if assessment is None:
        return SynthesisQuality(0.0, REQUIRED_ASSESSMENT_FIELDS, ())
    if not isinstance(assessment, Mapping):
        raise ValueError(f"assessment must be a mapping, got {assessment!r}")
    missing = tuple(f for f in REQUIRED_ASSESSMENT_FIELDS if not has_value(assessment.get(f)))
    invalid = tuple(
        f for f in REQUIRED_ASSESSMENT_FIELDS if f not in missing and not valid_field(f, assessment[f])
    )
    ok = len(REQUIRED_ASSESSMENT_FIELDS) - len(missing) - len(invalid)
    return SynthesisQuality(ok / len(REQUIRED_ASSESSMENT_FIELDS), missing, invalid)


def evaluation_overall(tool: float, data: float, synthesis: float) -> float:
    """``overall = 0.3·tool_selection (F1) + 0.3·data_quality + 0.4·synthesis``; each in [0, 1]."""
    w = EVALUATION_WEIGHTS
    return clamp01(
        w["tool_selection"] * unit("tool", tool)
        + w["data_quality"] * unit("data", data)
        + w["synthesis"] * unit("synthesis", synthesis)
    )


def judge_overall(scores: Sequence[float | None]) -> float | None:
    """Mean of the judge's five dimension scores (each in [0, 1]); None when any is missing
    (None/NaN): a partial judgement has no overall."""
    if isinstance(scores, (str, bytes)) or not isinstance(scores, Sequence) or len(scores) != 5:
        raise ValueError(f"judge_overall needs exactly five scores, got {scores!r}")
    values = [unit_or_none(f"scores[{i}]", s) for i, s in enumerate(scores)]
    if any(v is None for v in values):
        return None
    return math.fsum(values) / 5  # type: ignore[arg-type]
