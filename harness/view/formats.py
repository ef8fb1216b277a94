"""Numbers, durations and money for people: the one formatting the terminal, the HTML
report and the audit report share.

Never scientific notation (a table that says ``2.3e+02`` makes its reader do arithmetic):
large numbers get thousands separators, small ones as many decimals as their significant
digits need.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

MISSING = "—"


def number(value: Any, digits: int = 4) -> str:
    """``digits`` significant digits in positional notation (``1,234``, ``0.000123``,
    ``12.5``), trailing zeros dropped; ``—`` for None and NaN, ``∞`` for infinities, ``0`` for
    float noise below 1e-9. Integers and integer-valued floats of four digits or more are
    shown whole (``12,346``)."""
    if value is None or isinstance(value, bool):
        return MISSING if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if not isinstance(value, float):
        return str(value)
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if abs(value) < 1e-9:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def duration(ms: float | None) -> str:
    """A duration in the unit that reads best: ``0.42 ms``, ``26.6 ms``, ``1.25 s``, ``2 m 05 s``."""
    if ms is None or (isinstance(ms, float) and math.isnan(ms)):
        return MISSING
    if ms < 1_000:
        return f"{number(ms, 3)} ms"
    if ms < 60_000:
        return f"{number(ms / 1_000, 3)} s"
    minutes, seconds = divmod(round(ms / 1_000), 60)
    if minutes < 60:
        return f"{minutes} m {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} m"


def money(usd: float | None) -> str:
    """US dollars with three significant digits (``$0.000123``, ``$1.25``); ``—`` when the
    price is unknown, which is not the same as ``$0``."""
    if usd is None or (isinstance(usd, float) and math.isnan(usd)):
        return MISSING
    return f"${number(float(usd), 3)}"


def score(value: float | None) -> str:
    """A score in [0, 1] with two decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:.2f}"


def moment(iso: str | None) -> str:
    """An ISO timestamp as local time to the second (``2026-11-24 19:30:41``)."""
    if not iso:
        return MISSING
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return iso


def abbreviate(text: Any, limit: int = 60) -> str:
    """One line of at most ``limit`` characters, ``…`` where it was cut."""
    if text is None:
        return ""
    if not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False, separators=(",", ":"), default=str)
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def score_glance(name: str, value: Any, passed: Any, error: Any) -> str:
    """One score in a few characters: ``name 0.73 ✓``, ``reviewed ✗`` (a pass/fail of 1 or 0),
    ``tone 4``, ``name error``."""
    if error:
        return f"{name} error"
    mark = "" if passed is None else (" ✓" if passed else " ✗")
    if passed is not None and value in (0, 1, None):
        return f"{name}{mark}"
    return f"{name} {number(value, 3)}{mark}"
