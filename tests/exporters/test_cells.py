"""Cell safety shared by both writers: text stays text, XML-illegal characters go, long
cells are cut with a visible marker, numbers and dates keep their type."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exporters import EXCEL_CELL_LIMIT, SHEETS_CELL_LIMIT, excel_cell, sheets_cell, truncation_marker
from exporters._cells import safe_text

_ILLEGAL = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_TEXT_KINDS = ("text", "json")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


@settings(max_examples=150, deadline=None)
@given(st.text(), st.integers(min_value=40, max_value=400))
def test_safe_text_never_exceeds_the_limit_nor_keeps_illegal_characters(text, limit):
    out = safe_text(text, limit)
    assert utf16_len(out) <= limit
    assert not _ILLEGAL.search(out)
    out.encode("utf-8")  # no lone surrogate survives


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=200))
def test_legal_text_within_the_limit_is_returned_unchanged(text):
    assert safe_text(text, 400) == text


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=600))
def test_cut_text_keeps_a_prefix_and_ends_with_the_stored_length(text):
    limit = 100
    out = safe_text(text, limit)
    if utf16_len(text) <= limit:
        assert out == text
    else:
        marker = truncation_marker(len(text))
        assert out.endswith(marker)
        assert text.startswith(out[: -len(marker)])


def test_astral_characters_count_twice_and_are_never_split():
    text = "𝄞" * 60  # 120 UTF-16 units
    out = safe_text(text, 100)
    kept = out[: -len(truncation_marker(60))]
    assert set(kept) == {"𝄞"}
    assert utf16_len(out) <= 100


def test_excel_long_cell_is_cut_to_the_excel_limit_with_the_original_length():
    out = excel_cell("x" * 81_234, "text")
    assert len(out) == EXCEL_CELL_LIMIT
    assert out.endswith("…[truncated, 81234 chars]")


def test_sheets_long_cell_is_cut_to_the_sheets_limit():
    out = sheets_cell("y" * 60_000, "json")
    assert len(out) == SHEETS_CELL_LIMIT
    assert out.endswith("…[truncated, 60000 chars]")


def test_a_limit_too_small_for_the_marker_is_a_value_error():
    with pytest.raises(ValueError, match="too small"):
        safe_text("z" * 50, 10)


@pytest.mark.parametrize("text", ["=1+1", "+1", "-5", "@SUM(A1)", "\t=x", "\r=x", "007", "1e5"])
@pytest.mark.parametrize("kind", _TEXT_KINDS)
def test_formula_like_and_numeric_looking_text_stays_the_same_string(text, kind):
    assert excel_cell(text, kind) == text and type(excel_cell(text, kind)) is str
    assert sheets_cell(text, kind) == text and type(sheets_cell(text, kind)) is str


def test_control_characters_reach_excel_whole_and_sheets_without_them():
    """xlsxwriter writes C0 controls as Excel's ``_x000B_`` escapes (read back as the
    character), so Excel gets them; what no workbook holds (U+FFFE) is removed for both."""
    assert excel_cell("a\x00b\x0bc\x1f\td\ne\rf\ufffeg", "text") == "a\x00b\x0bc\x1f\td\ne\rfg"
    assert sheets_cell("a\x00b\x0bc\x1f\td\ne\rf\ufffeg", "text") == "abc\td\ne\rfg"


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.integers(min_value=-(2**53), max_value=2**53), st.floats(allow_nan=False, allow_infinity=False)))
def test_finite_numbers_stay_numbers_with_their_value(number):
    for cell in (excel_cell, sheets_cell):
        out = cell(number, "float" if isinstance(number, float) else "int")
        assert type(out) is type(number) and out == number


@pytest.mark.parametrize("number, text", [
    (float("inf"), "inf"), (float("-inf"), "-inf"), (float("nan"), "nan"),
    (2**53 + 1, "9007199254740993"), (-(2**60), "-1152921504606846976"),
])
@pytest.mark.parametrize("kind", ["int", "float"])
def test_numbers_a_spreadsheet_cannot_hold_exactly_become_text(number, text, kind):
    assert excel_cell(number, kind) == text
    assert sheets_cell(number, kind) == text


def test_iso_timestamps_become_naive_utc_datetimes_for_excel():
    assert excel_cell("2025-03-01T10:30:00.250000+02:00", "datetime") == datetime(2025, 3, 1, 8, 30, 0, 250000)
    assert excel_cell("2025-03-01T10:30:00Z", "datetime") == datetime(2025, 3, 1, 10, 30)
    assert excel_cell("2025-03-01T10:30:00", "datetime") == datetime(2025, 3, 1, 10, 30)


def test_sheets_keeps_timestamps_as_stored_iso_text():
    assert sheets_cell("2025-03-01T10:30:00+02:00", "datetime") == "2025-03-01T10:30:00+02:00"


@pytest.mark.parametrize("text", ["yesterday", "1899-12-31T23:00:00+00:00", "=NOW()"])
def test_timestamps_excel_cannot_hold_stay_text(text):
    assert excel_cell(text, "datetime") == text


def test_none_is_an_empty_cell():
    assert excel_cell(None, "text") is None
    assert sheets_cell(None, "int") == ""
