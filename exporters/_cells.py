"""Cell safety shared by the Excel and Google Sheets writers.

A stored value becomes a cell value by its schema kind (:data:`harness.schema.Kind`):

- ``int`` / ``float`` stay numbers; a value that is not a finite number (``inf``, ``nan``,
  a stray string) becomes text, and an integer beyond +-2**53 becomes text too, because
  both targets hold numbers as doubles and would silently change its digits.
- ``datetime`` (ISO 8601 text) becomes a naive UTC :class:`~datetime.datetime` for Excel
  (a real date cell); Google Sheets gets the ISO text as stored. Text that is not ISO 8601,
  or a date before 1900 (Excel has none), stays text.
- ``json`` is already compact JSON text in the store and follows the text rules.
- ``text``: a value longer than the target's limit (counted in UTF-16 units, as both
  targets count) is cut and ends with a visible marker ``…[truncated, N chars]`` giving the
  stored length N. The store keeps it whole. Control characters (a tool named
  ``look\x0bup``) reach Excel whole: xlsxwriter writes them as Excel's own ``_x000B_``
  escapes, which Excel and the audit read back as the character, so a name round-trips;
  Google Sheets gets text without the characters XML 1.0 forbids. Lone surrogates and
  U+FFFE/U+FFFF, which no workbook can hold, are removed for both.

Formula-like text (``=``, ``+``, ``-``, ``@``, tab, CR first) is returned unchanged as a
``str``: the writers store every ``str`` as a literal string (xlsxwriter ``write_string``,
Sheets ``valueInputOption=RAW``), so it is never evaluated and round-trips byte for byte;
a quote prefix would alter the value an audit compares. The same holds for numbers held
as text (``"-5"`` in a text column stays the string ``"-5"``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from harness.schema import Column, Kind, truncation_marker

EXCEL_CELL_LIMIT = 32_767
SHEETS_CELL_LIMIT = 50_000

#: Characters XML 1.0 forbids (and openpyxl/Excel reject): C0 controls except tab, LF, CR,
#: lone surrogates, U+FFFE and U+FFFF.
_ILLEGAL_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: What not even Excel's ``_xHHHH_`` escapes (which xlsxwriter writes for C0 controls) hold.
_UNWRITABLE = re.compile("[\ud800-\udfff\ufffe\uffff]")
_MAX_EXACT_INT = 2**53
_EXCEL_EPOCH_YEAR = 1900

ExcelValue = str | int | float | datetime | None
SheetsValue = str | int | float


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def safe_text(text: str, limit: int, illegal: re.Pattern[str] = _ILLEGAL_XML) -> str:
    """Remove the ``illegal`` characters (default: those XML 1.0 forbids), then cut to
    ``limit`` UTF-16 units with a marker.

    The marker reports the stored length in characters; the result never exceeds ``limit``
    units and never splits a surrogate pair. Raises ValueError when ``limit`` cannot hold
    the marker.
    """
    # isprintable() is a fast "nothing to remove": every illegal character is unprintable.
    clean = text if text.isprintable() or not illegal.search(text) else illegal.sub("", text)
    if len(clean) <= limit // 2 or _utf16_len(clean) <= limit:
        return clean
    marker = truncation_marker(len(text))
    budget = limit - _utf16_len(marker)
    if budget < 0:
        raise ValueError(f"cell limit {limit} is too small for the truncation marker")
    # Cutting the UTF-16 bytes may halve a surrogate pair; "ignore" drops the half.
    kept = clean.encode("utf-16-le")[: 2 * budget].decode("utf-16-le", errors="ignore")
    return kept + marker


def _number(limit: int, illegal: re.Pattern[str] = _ILLEGAL_XML) -> Callable[[Any], str | int | float]:
    def number(value: Any) -> str | int | float:
        kind = type(value)
        if kind is float:
            return value if math.isfinite(value) else repr(value)
        if kind is int:
            return value if -_MAX_EXACT_INT <= value <= _MAX_EXACT_INT else str(value)
        if kind is bool:
            return int(value)
        return safe_text(str(value), limit, illegal)

    return number


def _text(limit: int, illegal: re.Pattern[str] = _ILLEGAL_XML) -> Callable[[Any], str]:
    def text(value: Any) -> str:
        return safe_text(value if type(value) is str else str(value), limit, illegal)

    return text


def parse_utc(text: str) -> datetime | None:
    """ISO 8601 text -> naive UTC datetime (naive input is taken as UTC); None if unparsable."""
    try:
        if text.endswith("+00:00"):  # what the store writes: skip the timezone arithmetic
            return datetime.fromisoformat(text[:-6])
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment


def _excel_datetime(value: Any) -> str | datetime:
    moment = parse_utc(value) if type(value) is str else None
    if moment is not None and moment.year >= _EXCEL_EPOCH_YEAR:
        return moment
    return _excel_text(value)


_excel_text = _text(EXCEL_CELL_LIMIT, _UNWRITABLE)
_excel_number = _number(EXCEL_CELL_LIMIT, _UNWRITABLE)
_sheets_text = _text(SHEETS_CELL_LIMIT)
_sheets_number = _number(SHEETS_CELL_LIMIT)

#: Per-kind converters of a non-None stored value; the writers look one up per column.
EXCEL_CONVERTERS: dict[str, Callable[[Any], ExcelValue]] = {
    "text": _excel_text, "json": _excel_text, "int": _excel_number, "float": _excel_number,
    "datetime": _excel_datetime,
}
SHEETS_CONVERTERS: dict[str, Callable[[Any], SheetsValue]] = {
    "text": _sheets_text, "json": _sheets_text, "int": _sheets_number, "float": _sheets_number,
    "datetime": _sheets_text,
}


def number_format(column: Column) -> str | None:
    """How a float column is shown, in the number-format syntax both targets share: the cell
    keeps the exact value (0.9999999999999999 is read back as such by the audit) and shows
    it rounded: milliseconds to 0.1 (``0.0``), USD costs to 8 decimals at most (they are
    priced to 12: ``0.00######``), every other number (scores, confidence, temperature, credit-score
    statistics) to 3 decimals at most (``0.0##``). None for other columns."""
    if column.kind != "float":
        return None
    if column.name.endswith("_ms"):
        return "0.0"
    if column.name.endswith("cost"):
        return "0.00######"
    return "0.0##"


def excel_cell(value: Any, kind: Kind) -> ExcelValue:
    """A stored value as an Excel cell value (None = empty cell); see the module docstring."""
    return None if value is None else EXCEL_CONVERTERS[kind](value)


def sheets_cell(value: Any, kind: Kind) -> SheetsValue:
    """A stored value as a Google Sheets RAW value ('' = empty cell); see the module docstring."""
    return "" if value is None else SHEETS_CONVERTERS[kind](value)
