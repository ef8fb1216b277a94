"""Exact arithmetic for the paired tests: so that a tie stays a tie.

A per-run value is taken as the rational number its 12 significant digits write
(:func:`exact`), so 0.1 and 0.09999999999999998 are one value, and a float within one unit
of that 12th digit of a fraction with a small denominator (at most
:data:`SNAP_DENOMINATOR`: a mean of up to thousands of repeats) as that fraction, so a mean
already written as 0.3333333333333333 is 1/3; a case's repeats are
averaged as fractions (:func:`exact_mean`), so the mean of three repeats is k/3 exactly and
1/3 + 1/3 equals 2/3; the deltas of all cases are then put on one integer grid
(:func:`on_grid`, the least common multiple of their denominators), where every sum a sign
pattern makes is an exact integer. Floating point would break those ties: 0.333333333333
twice is not 0.666666666667, and a permutation test that compares sums would then count a
tied pattern as more extreme than the observed one or not, by the rounding alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from numbers import Rational, Real
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

DIGITS = 12  # significant digits of a per-run value that count
SNAP_DENOMINATOR = 10_000
_INT64_SUM = 2 ** 62  # every sum of grid integers stays below this


def round_sig(x: float, digits: int = DIGITS) -> float:
    """``x`` rounded to ``digits`` significant digits (0 and non-finite values as they are)."""
    if x == 0 or not math.isfinite(x):
        return x
    return float(f"{x:.{digits - 1}e}")


def exact(value: Real) -> Fraction:
    """A value as a rational: integers and fractions as they are, a float as the decimal
    its 12 significant digits write, or the nearby fraction of a small denominator (module
    doc). ValueError for a value that is not a finite number."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Rational):
        return Fraction(int(value)) if isinstance(value, bool) else Fraction(value)
    x = float(value)
    if not math.isfinite(x):
        raise ValueError("values must be finite numbers")
    if x.is_integer() and abs(x) < 1e12:
        return Fraction(int(x))
    written = Fraction(Decimal(f"{x:.{DIGITS - 1}e}"))
    near = written.limit_denominator(SNAP_DENOMINATOR)
    unit = Fraction(10) ** (math.floor(math.log10(abs(x))) - DIGITS + 1)
    return near if abs(near - written) <= unit else written


def exact_mean(values: Iterable[Real]) -> Fraction | None:
    """The mean of a case's repeats as a fraction (None for none)."""
    got = [exact(v) for v in values]
    return exact_sum(got) / len(got) if got else None


def exact_sum(values: Sequence[Fraction]) -> Fraction:
    """The sum of fractions over their common denominator: one fraction made at the end
    (adding fractions one by one reduces every partial sum, which is slow for many)."""
    if not values:
        return Fraction(0)
    common = math.lcm(*(x.denominator for x in values))
    return Fraction(sum(x.numerator * (common // x.denominator) for x in values), common)


def on_grid(deltas: Sequence[Real]) -> tuple[np.ndarray, Fraction]:
    """Integers ``k`` and a unit ``q`` with ``delta == k * q`` exactly: ``q`` is one over the
    least common multiple of the deltas' denominators. Only when sums of that many integers
    could overflow 64 bits (values spanning some 17 orders of magnitude) is the grid made
    coarser by powers of ten, rounding the deltas to it."""
    import numpy as np

    d = [exact(x) for x in deltas]
    if not d:
        return np.zeros(0, np.int64), Fraction(1)
    common = math.lcm(*(x.denominator for x in d))
    ints = [x.numerator * (common // x.denominator) for x in d]
    largest, budget = max(abs(k) for k in ints), _INT64_SUM // len(ints)
    coarser = 1
    while largest // coarser >= budget:
        coarser *= 10
    if coarser > 1:
        ints = [round(Fraction(k, coarser)) for k in ints]
    return np.asarray(ints, dtype=np.int64), Fraction(coarser, common)
