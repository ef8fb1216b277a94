"""Ties stay ties: repeat means are exact fractions, and the sign-flip test on them equals
the enumeration of every sign pattern in exact rational arithmetic."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators import exact, exact_mean, paired_test
from evaluators._exact import on_grid


def enumerated(a_means, b_means):
    """p_down and p_up of the sign-flip test by brute force: every one of the 2**n sign
    patterns, sums compared as fractions."""
    d = [y - x for x, y in zip(a_means, b_means)]
    common = math.lcm(*(x.denominator for x in d))  # exact: every fraction times it is an integer
    k = [int(x * common) for x in d]
    observed = sum(k)
    down = up = 0
    for signs in itertools.product((1, -1), repeat=len(k)):
        s = sum(e * x for e, x in zip(signs, k))
        down += s <= observed
        up += s >= observed
    return Fraction(down, 2 ** len(d)), Fraction(up, 2 ** len(d))


def test_the_values_a_float_means_are_its_twelve_digits_or_a_fraction_of_a_small_denominator():
    assert exact(0.1) == exact(0.09999999999999998) == Fraction(1, 10)
    assert exact(1 / 3) == Fraction(1, 3) and exact(2 / 3) == Fraction(2, 3) and exact(5 / 7) == Fraction(5, 7)
    assert exact(0.333333333333) == Fraction(1, 3)  # as the old 12-digit rounding wrote a third
    assert exact(0.7071067811865476) == Fraction(707106781187, 10 ** 12)  # no small fraction that near
    assert exact(3) == 3 and exact(True) == 1 and exact(Fraction(2, 9)) == Fraction(2, 9)
    with pytest.raises(ValueError, match="finite"):
        exact(math.nan)


def test_sums_of_thirds_tie_on_the_grid():
    thirds = [exact_mean([1, 0, 0]), exact_mean([1, 0, 0]), -exact_mean([1, 1, 0])]
    assert sum(thirds) == 0  # 1/3 + 1/3 - 2/3, which 0.333333333333 + 0.333333333333 - 0.666666666667 is not
    grid, unit = on_grid(thirds)
    assert list(grid) == [1, 1, -2] and unit == Fraction(1, 3)
    sevenths = [Fraction(k, 7) for k in range(-3, 4)] + [Fraction(1, 2), Fraction(1, 3)]
    grid, unit = on_grid(sevenths)
    assert unit == Fraction(1, 42) and [k * unit for k in grid] == sevenths


def test_values_over_many_orders_of_magnitude_stay_within_64_bits():
    deltas = [1e15, 1e-15, -3.0]
    grid, unit = on_grid(deltas)
    assert grid.dtype.name == "int64" and abs(int(grid.sum())) < 2 ** 62
    assert float(int(grid[0]) * unit) == 1e15 and float(int(grid[2]) * unit) == -3.0


def test_eight_cases_of_three_repeats_give_the_exact_sign_flip_p():
    """A passes (0, 3, 3, 2, 3, 2, 0, 3) of 3 repeats, B (0, 0, 1, 0, 1, 3, 1, 1): rounded
    thirds made p_worse 0.03125 and a regression; exactly, it is 0.0625."""
    a = [exact_mean([1] * k + [0] * (3 - k)) for k in (0, 3, 3, 2, 3, 2, 0, 3)]
    b = [exact_mean([1] * k + [0] * (3 - k)) for k in (0, 0, 1, 0, 1, 3, 1, 1)]
    result = paired_test(a, b, outcome=True, bounded=True)
    assert result.p_down == 0.0625 == float(enumerated(a, b)[0]) and result.ci_high >= 0
    floats = paired_test([float(x) for x in a], [float(y) for y in b], outcome=True, bounded=True)
    assert floats.p_down == 0.0625  # a mean already in floating point is read back as its third


cases = st.integers(2, 7).flatmap(lambda repeats: st.lists(
    st.tuples(st.integers(0, repeats), st.integers(0, repeats)), min_size=1, max_size=10).map(
    lambda counts: (repeats, counts)))


@settings(max_examples=100, deadline=None)
@given(cases)
def test_repeat_means_of_2_to_7_repeats_test_as_exact_enumeration_says(data):
    repeats, counts = data
    a = [exact_mean([1] * x + [0] * (repeats - x)) for x, _ in counts]
    b = [exact_mean([1] * y + [0] * (repeats - y)) for _, y in counts]
    down, up = enumerated(a, b)
    result = paired_test(a, b, outcome=True, bounded=True)
    assert result.p_down == pytest.approx(float(down), rel=1e-12) and result.p_up == pytest.approx(float(up), rel=1e-12)
    as_floats = paired_test([float(x) for x in a], [float(y) for y in b], outcome=True, bounded=True)
    assert (as_floats.p_down, as_floats.p_up) == (result.p_down, result.p_up)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(2, 7), st.integers(0, 7), st.integers(0, 7)), min_size=1, max_size=9))
def test_cases_with_different_repeat_counts_test_exactly_too(rows):
    """Repeats vary from case to case (the same k on both sides of a case): the grid is the
    least common multiple of the denominators."""
    a = [exact_mean([1] * min(x, k) + [0] * (k - min(x, k))) for k, x, _ in rows]
    b = [exact_mean([1] * min(y, k) + [0] * (k - min(y, k))) for k, _, y in rows]
    down, up = enumerated(a, b)
    result = paired_test(a, b, outcome=True, bounded=True)
    assert result.p_down == pytest.approx(float(down), rel=1e-12) and result.p_up == pytest.approx(float(up), rel=1e-12)
