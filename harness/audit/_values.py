"""Reading cell values back: what counts as empty, a number, a timestamp, a list.

Cells arrive as python-calamine gives them (text, float, bool, datetime, "" for empty),
as Google Sheets' unformatted values give them (text, int, float, bool), or from data
frames normalised to the same universe. Numbers held as text are accepted where a number
is expected (a reviewer's spreadsheet may have them); non-finite numbers never are.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

#: How an exporter marks a cell it had to cut (``…[truncated, N chars]``).
TRUNCATED = re.compile(r"…\[truncated, \d+\+? chars\]$")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
#: Excel's day serials: 1900-01-01 .. 9999-12-31.
_EXCEL_SERIALS = (1.0, 2_958_465.0)


def is_empty(value: Any) -> bool:
    return value is None or (type(value) is str and value == "")


def as_number(value: Any) -> float | None:
    """A finite number from a number or numeric text; None when empty. ValueError otherwise."""
    kind = type(value)
    if kind is float or kind is int:
        if math.isfinite(value):
            return float(value)
        raise ValueError(f"not a finite number: {value!r}")
    if kind is str:
        if value == "":
            return None
        try:
            number = float(value.strip())
        except ValueError:
            raise ValueError(f"not a number: {value!r}") from None
        if math.isfinite(number):
            return number
    if value is None:
        return None
    raise ValueError(f"not a number: {value!r}")


def number_or_none(value: Any) -> float | None:
    """:func:`as_number`, with text that is not a number read as None (for statistics and
    expectations, where the cell's own check reports the bad value)."""
    try:
        return as_number(value)
    except ValueError:
        return None


def as_int(value: Any) -> int | None:
    number = as_number(value)
    if number is None:
        return None
    if not number.is_integer():
        raise ValueError(f"not a whole number: {value!r}")
    return int(number)


def is_uuid(value: Any) -> bool:
    return type(value) is str and _UUID.fullmatch(value) is not None


def is_timestamp(value: Any) -> bool:
    """An Excel date cell, ISO 8601 text, or an Excel day serial."""
    if isinstance(value, (datetime, date, time, timedelta)):
        return True
    kind = type(value)
    if kind is str:
        try:
            datetime.fromisoformat(value)
        except ValueError:
            return False
        return True
    if kind is float or kind is int:
        return _EXCEL_SERIALS[0] <= value <= _EXCEL_SERIALS[1]
    return False


def as_utc(value: Any) -> datetime | None:
    """A timestamp cell as a naive UTC datetime (an Excel date is UTC as exported; ISO text
    with an offset is converted); None when the cell holds no timestamp."""
    if type(value) is str:
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value.astimezone(timezone.utc).replace(tzinfo=None) if value.tzinfo is not None else value


def is_truncated(value: Any) -> bool:
    return type(value) is str and value.endswith("]") and TRUNCATED.search(value) is not None


def parse_json(value: Any) -> Any:
    """JSON text -> data; None for an empty cell. ValueError when it does not parse."""
    if is_empty(value):
        return None
    if type(value) is not str:
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise ValueError(f"not JSON: {value[:60]!r}") from None


def parse_list(value: Any) -> list[str] | None:
    """A list of names from a JSON array or comma-separated text; None for an empty cell."""
    if is_empty(value):
        return None
    if type(value) is str:
        text = value.strip()
        if text.startswith("["):
            data = parse_json(text)
            if not isinstance(data, list):
                raise ValueError(f"not a list: {value[:60]!r}")
            return [str(v) for v in data]
        return [part.strip() for part in text.split(",") if part.strip()]
    raise ValueError(f"not a list: {value!r}")


def parse_numbers(value: Any) -> list[float] | None:
    """Numbers from comma-separated text (``"750, 745, 720"``) or a JSON array."""
    items = parse_list(value)
    if items is None:
        return None
    return [n for n in (as_number(item) for item in items) if n is not None]


def same(found: Any, expected: Any, tolerance: float) -> bool:
    """Does the cell hold the expected value? Numbers within ``tolerance`` (absolute), text
    exactly, lists as multisets; ``None`` expected means an empty cell."""
    kind = type(found)
    if (kind is float or kind is int) and (type(expected) is float or type(expected) is int):
        return abs(found - expected) <= tolerance  # the common case, kept fast
    if expected is None:
        return is_empty(found)
    if isinstance(expected, str):
        return type(found) is str and found.strip() == str(expected)
    if isinstance(expected, (int, float)):
        try:
            number = as_number(found)
        except ValueError:
            return False
        return number is not None and abs(number - expected) <= tolerance
    if isinstance(expected, (list, tuple)):
        try:
            items = parse_list(found)
        except ValueError:
            return False
        return sorted(items or []) == sorted(str(e) for e in expected)
    return found == expected
