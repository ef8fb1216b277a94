from __future__ import annotations

import pytest

from workflows import EXPECTED_TOOLS, CompanyInfo, classify_company, expected_trajectory, validate_company_name
from workflows._company import name_key, normalise_country


@pytest.mark.parametrize("name", ["Acme Corp", "O'Reilly Automotive", 'The "Best" Company', "AT&T Inc.",
                                  "Société Générale", "株式会社サクラ", "3M Co", "Yahoo!"])
def test_real_company_names_are_valid(name):
    assert validate_company_name(name).valid


@pytest.mark.parametrize(("name", "reason"), [
    ("", "empty"), ("   \t ", "empty"), ("x" * 10_000, "10000 characters"),
    ('=HYPERLINK("http://evil","click")', "formula"), ("+cmd", "formula"), ("@SUM(A1)", "formula"),
    ("Robert'); DROP TABLE runs;--", "U+003B"), ("🍎 Apple", "U+1F34E"), ("Acme\x00Corp", "U+0000"),
    ("...", "no letters or digits"), (None, "must be text"),
])
def test_bad_company_names_are_invalid_with_a_reason(name, reason):
    check = validate_company_name(name)
    assert not check.valid
    assert reason in check.reason


@pytest.mark.parametrize(("info", "kind"), [
    ({"is_public": True, "country": "US"}, "public_us"),
    ({"is_public": True, "country": "United States"}, "public_us"),
    ({"is_public": None, "ticker": "ACME", "country": "usa"}, "public_us"),
    ({"is_public": True, "country": "DE"}, "public_non_us"),
    ({"is_public": True, "country": None}, "unknown"),
    ({"is_public": False, "country": "US"}, "private"),
    ({"is_public": None, "ticker": None}, "unknown"),
])
def test_company_type_comes_from_public_flag_ticker_and_country(info, kind):
    assert classify_company(info) == kind


def test_company_type_ignores_the_name():
    assert classify_company(CompanyInfo(company_name="Apple Inc")) == "unknown"


def test_expected_tools_follow_the_design_table():
    assert EXPECTED_TOOLS == {
        "public_us": ("sec_edgar", "finnhub", "court_listener", "web_search"),
        "public_non_us": ("finnhub", "web_search"),
        "private": ("court_listener", "web_search"),
        "unknown": ("web_search",),
    }


def test_expected_trajectory_skips_fetch_nodes_the_type_does_not_need():
    assert "fetch_api_data" not in expected_trajectory("unknown")
    assert expected_trajectory("public_us")[3:5] == ["fetch_api_data", "search_web"]


def test_name_key_drops_case_punctuation_and_legal_suffixes():
    assert name_key("ACME Corp.") == name_key("acme corporation") == "acme"


def test_country_aliases_normalise_to_iso_codes():
    assert [normalise_country(c) for c in ("United States", "u.s.", "Germany", "jp", "", None)] == ["US", "US", "DE", "JP", None, None]
