"""The bounds equivalence is claimed from hold without a shift model: at a true drop equal
to the margin, in exact enumeration over sparse changes; at every look at once, in a small
seeded simulation; and never against their own p-values."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, multinomial, t

from evaluators import paired_test
from evaluators._bounds import Betting, asymptotic_sequence, betting_delta, student_t


@pytest.mark.parametrize("n", [5, 20, 60, 200])
@pytest.mark.parametrize("broken", [0.02, 0.05, 0.2])
def test_a_sparse_drop_is_excluded_by_the_lower_bound_at_most_alpha_of_the_time(n, broken):
    """A share ``broken`` of the cases drops by 1, the rest stay: the mean delta is
    -broken. Every count k of broken cases weighed by its binomial probability."""
    alpha = 0.05
    missed = sum(binom.pmf(k, n, broken) for k in range(n + 1)
                 if betting_delta([-1.0] * k + [0.0] * (n - k), alpha)[0] > -broken)
    assert missed <= alpha


@pytest.mark.parametrize("n", [10, 24])
def test_three_valued_deltas_keep_both_ends_within_alpha(n):
    """Deltas of -1/3, 0 and +1 (a three-repeat pass rate going down in some cases and a
    rare case recovering), every outcome of n cases weighed exactly."""
    alpha, law = 0.05, [0.3, 0.6, 0.1]
    values = (-1 / 3, 0.0, 1.0)
    truth = sum(p * v for p, v in zip(law, values))
    above = below = 0.0
    for down in range(n + 1):
        for up in range(n + 1 - down):
            low, high, _, _ = betting_delta([values[0]] * down + [values[2]] * up + [0.0] * (n - down - up), alpha)
            weight = multinomial.pmf([down, n - down - up, up], n, law)
            above += weight * (low > truth)
            below += weight * (high < truth)
    assert above <= alpha and below <= alpha


@pytest.mark.parametrize("law", [((-1.0, 0.1), (0.0, 0.8), (1.0, 0.1)), ((-1.0, 0.1), (1 / 9, 0.9))])
def test_looking_after_every_ten_cases_keeps_the_false_alarm_within_alpha(law):
    """Mean delta 0 (the second law is not symmetric), 20 looks from 10 to 200 cases: the
    share of 300 seeded sequences in which any look calls a drop."""
    rng = random.Random(11)
    values, weights = zip(*law)
    alarms = 0
    for _ in range(300):
        deltas = rng.choices(values, weights, k=200)
        alarms += any(Betting([(d + 1) / 2 for d in deltas[:n]]).p_below(0.5) < 0.05 for n in range(10, 201, 10))
    assert alarms / 300 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 300)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([-1.0, -2 / 3, -1 / 3, 0.0, 1 / 3, 1.0]), min_size=1, max_size=40),
       st.sampled_from([0.01, 0.05, 0.2]))
def test_the_betting_interval_holds_the_mean_and_agrees_with_its_p_values(deltas, alpha):
    low, high, p_down, p_up = betting_delta(deltas, alpha)
    mean = sum(deltas) / len(deltas)
    assert -1 <= low <= mean + 1e-9 and mean - 1e-9 <= high <= 1
    assert (p_down < alpha) == (high < 0) and (p_up < alpha) == (low > 0)
    swapped = betting_delta([-d for d in deltas], alpha)
    assert swapped == pytest.approx((-high, -low, p_up, p_down), abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(-100, 100, allow_nan=False), min_size=1, max_size=40), st.sampled_from([0.01, 0.05, 0.2]))
def test_the_asymptotic_sequence_holds_the_mean_and_agrees_with_its_p_values(deltas, alpha):
    low, high, p_down, p_up = asymptotic_sequence(deltas, alpha)
    mean = math.fsum(deltas) / len(deltas)
    assert low <= mean + 1e-9 and mean - 1e-9 <= high
    assert (p_down < alpha) == (high < 0) and (p_up < alpha) == (low > 0)


def test_the_student_t_bounds_are_scipys():
    deltas = [0.3, -1.2, 4.0, 2.5, 0.0, 1.1]
    mean, se = sum(deltas) / 6, math.sqrt(sum((d - sum(deltas) / 6) ** 2 for d in deltas) / 5 / 6)
    assert student_t(deltas, 0.05) == pytest.approx(t.interval(0.9, 5, loc=mean, scale=se))
    assert student_t([1.0], 0.05) == (-math.inf, math.inf)


def test_five_cases_at_two_thirds_on_both_sides_bound_nothing_and_equivalence_is_not_claimed():
    """Every delta 0: the sign-flip interval collapses to [0, 0], the betting one does not."""
    same = paired_test([2 / 3] * 5, [2 / 3] * 5, bounded=True)
    assert (same.ci_low, same.ci_high) == (0.0, 0.0) and same.eq_method == "betting"
    assert same.eq_low < -0.5 and same.eq_high > 0.5
    many = paired_test([2 / 3] * 400, [2 / 3] * 400, bounded=True)
    assert -0.05 < many.eq_low and many.eq_high < 0.05  # enough unchanged cases do rule out the margin
