"""Company identity: input validation, the parsed company record, the company type and the
one table of expected tools per type.

The company type comes only from the parsed company info (public flag, ticker, country),
never from lists of company names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, Field

ToolName = Literal["sec_edgar", "finnhub", "court_listener", "web_search"]
CompanyType = Literal["public_us", "public_non_us", "private", "unknown"]

#: The tool vocabulary of the credit workflow, in the order the plan lists them.
TOOL_NAMES: tuple[str, ...] = ("sec_edgar", "finnhub", "court_listener", "web_search")
#: Tools run by ``fetch_api_data``; ``web_search`` is run by ``search_web``.
API_TOOLS: tuple[str, ...] = ("sec_edgar", "finnhub", "court_listener")

#: Company type -> the tools a good plan selects (docs/decisions.md). The one table.
EXPECTED_TOOLS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "public_us": ("sec_edgar", "finnhub", "court_listener", "web_search"),
    "public_non_us": ("finnhub", "web_search"),
    "private": ("court_listener", "web_search"),
    "unknown": ("web_search",),
})

def expected_trajectory(company_type: str) -> list[str]:
    """``parse_input, validate_company, create_plan``, then the fetch nodes the expected
    tools need (``fetch_api_data`` before ``search_web``), then ``synthesize,
    save_to_database, evaluate_assessment``."""
    tools = EXPECTED_TOOLS.get(company_type, EXPECTED_TOOLS["unknown"])
    fetch = (["fetch_api_data"] if any(t in API_TOOLS for t in tools) else []) + (
        ["search_web"] if "web_search" in tools else []
    )
    return ["parse_input", "validate_company", "create_plan", *fetch,
            "synthesize", "save_to_database", "evaluate_assessment"]


MAX_NAME_LENGTH = 200
#: Punctuation that occurs in real company names; anything else outside letters, marks,
#: digits and spaces makes the name invalid.
_NAME_PUNCTUATION = frozenset("&.,'\u2019\"()-/+!:#@*")
_FORMULA_PREFIXES = ("=", "+", "-", "@")


@dataclass(frozen=True, slots=True)
class Validation:
    valid: bool
    reason: str


def validate_company_name(raw: object) -> Validation:
    """Rules, in order: a string; not empty after trimming; at most 200 characters; does not
    start like a spreadsheet formula (``= + - @``); only letters, combining marks, digits,
    spaces and the punctuation ``& . , ' ’ " ( ) - / + ! : # @ *``; at least one letter or
    digit. The first rule broken is the reason."""
    if not isinstance(raw, str):
        return Validation(False, f"company name must be text, got {type(raw).__name__}")
    name = raw.strip()
    if not name:
        return Validation(False, "company name is empty")
    if len(name) > MAX_NAME_LENGTH:
        return Validation(False, f"company name is {len(name)} characters long (limit {MAX_NAME_LENGTH})")
    if name.startswith(_FORMULA_PREFIXES):
        return Validation(False, "company name starts like a spreadsheet formula")
    bad = sorted({ch for ch in name if not _allowed(ch)})
    if bad:
        shown = " ".join(f"U+{ord(ch):04X}" for ch in bad[:5])
        return Validation(False, f"company name contains characters not used in company names ({shown})")
    if not any(ch.isalnum() for ch in name):
        return Validation(False, "company name has no letters or digits")
    return Validation(True, "ok")


def _allowed(ch: str) -> bool:
    if ch == " " or ch in _NAME_PUNCTUATION:
        return True
    return unicodedata.category(ch)[0] in ("L", "M", "N")


class CompanyInfo(BaseModel):
    """The parsed company: what ``parse_input`` asks the model for (structured output)."""

    company_name: str = Field(description="The company's name as found, or as given when not found")
    is_public: bool | None = Field(None, description="True if listed on a stock exchange, False if private, null if unknown")
    ticker: str | None = Field(None, description="Exchange ticker symbol, null if none")
    country: str | None = Field(None, description="ISO 3166 alpha-2 country of incorporation, null if unknown")
    exchange: str | None = Field(None, description="Stock exchange, null if not listed")
    cik: str | None = Field(None, description="SEC CIK for US filers, null otherwise")
    confidence: float = Field(0.0, ge=0.0, le=1.0, description="How sure the identification is, 0-1")
    reasoning: str = Field("", description="One sentence: how the company was identified")


_COUNTRY_ALIASES = {
    "USA": "US", "U.S.": "US", "U.S.A.": "US", "UNITED STATES": "US",
    "UNITED STATES OF AMERICA": "US", "AMERICA": "US",
    "UK": "GB", "UNITED KINGDOM": "GB", "GREAT BRITAIN": "GB",
    "GERMANY": "DE", "DEUTSCHLAND": "DE", "JAPAN": "JP", "CANADA": "CA", "FRANCE": "FR",
}


def normalise_country(country: str | None) -> str | None:
    """``"United States"``, ``"USA"``, ``"us"`` -> ``"US"``; two-letter codes upper-cased;
    anything unrecognised is kept upper-cased; empty -> None."""
    if country is None:
        return None
    text = country.strip().upper()
    if not text:
        return None
    return _COUNTRY_ALIASES.get(text, text)


def classify_company(info: CompanyInfo | dict | None) -> CompanyType:
    """``public_us`` when public (or it has a ticker) and the country is US;
    ``public_non_us`` when public and the country is another known one; ``private`` when
    ``is_public`` is False; ``unknown`` otherwise (including public with no country)."""
    if info is None:
        return "unknown"
    data = info.model_dump() if isinstance(info, CompanyInfo) else dict(info)
    is_public = data.get("is_public")
    if is_public is None and data.get("ticker"):
        is_public = True
    country = normalise_country(data.get("country"))
    if is_public is True:
        if country == "US":
            return "public_us"
        return "public_non_us" if country else "unknown"
    if is_public is False:
        return "private"
    return "unknown"


_SUFFIXES = re.compile(
    r"\b(inc|incorporated|corp|corporation|co|company|ltd|limited|llc|llp|plc|ag|gmbh|kk|sa|nv|se|holdings)\b\.?",
    re.IGNORECASE,
)


def name_key(name: str) -> str:
    """A comparison key for company names: case-folded, legal suffixes and punctuation
    dropped, spaces collapsed (``"Acme Corp."`` and ``"ACME corporation"`` -> ``"acme"``)."""
    text = _SUFFIXES.sub(" ", name.casefold())
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())
