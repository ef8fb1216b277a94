"""Input validation shared by the metric functions: one clear ``ValueError`` per bad input."""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Real
from typing import Any, TypeGuard


def is_number(value: Any) -> TypeGuard[float]:
    """A real number that is not a bool (``True`` is an int in Python, never a score)."""
    return isinstance(value, Real) and not isinstance(value, bool)


def is_missing(value: Any) -> bool:
    """None or NaN: "not scored"."""
    return value is None or (is_number(value) and math.isnan(value))


def number(name: str, value: Any) -> float:
    """A finite real number, as float."""
    if not is_number(value) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def unit(name: str, value: Any) -> float:
    """A score in [0, 1]."""
    x = number(name, value)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return x


def unit_or_none(name: str, value: Any) -> float | None:
    """A score in [0, 1], or None for None/NaN (not applicable, not scored)."""
    return None if is_missing(value) else unit(name, value)


def non_negative(name: str, value: Any) -> float:
    x = number(name, value)
    if x < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return x


def non_empty_text(name: str, value: Any) -> str:
    """A string with something besides whitespace in it."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string")
    return value


def names(name: str, values: Any) -> list[str]:
    """A list of non-empty strings from any iterable of strings (a bare string is refused:
    iterating it would yield characters)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ValueError(f"{name} must be a list of names, got {values!r}")
    out = list(values)
    for v in out:
        if not isinstance(v, str) or not v:
            raise ValueError(f"{name} must hold non-empty strings, got {v!r}")
    return out


def clamp01(x: float) -> float:
    """Clamp to [0, 1]; weighted sums can drift past 1 by one ulp."""
    return min(1.0, max(0.0, x))
