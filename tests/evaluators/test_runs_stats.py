"""Statistics over repeated runs (pass rate, cost of pass, grades, uplift), with the method's worked examples as literal expectations."""

from __future__ import annotations

import math
import statistics
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import (
    aggregate,
    composite_score,
    cost_delta,
    cost_of_pass,
    letter_grade,
    pass_at_k,
    pass_hat_k,
    population_variance,
    tier_uplift,
)


def test_seed_001_example_1_single_run():
    pass_rate, impl_rate, cost = 1.0, 0.85, 0.50
    assert cost_of_pass(cost, pass_rate) == 0.50
    composite = composite_score(pass_rate, impl_rate)
    assert composite == pytest.approx(0.925)
    assert letter_grade(composite) == "B"


def test_seed_001_example_2_ten_run_aggregation():
    s = aggregate([1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0])
    assert (s.median, s.mean, s.mode, s.min, s.max, s.count) == (1.0, pytest.approx(0.8), 1.0, 0.0, 1.0, 10)
    assert s.std_dev == pytest.approx(0.4)


def test_seed_001_example_3_cross_tier():
    t0 = 0.70
    assert [round(tier_uplift(t, t0), 3) for t in (0.80, 0.85, 0.90)] == [0.143, 0.214, 0.286]
    assert population_variance([0.70, 0.80, 0.85, 0.90]) == pytest.approx(0.00547, abs=5e-6)


def test_median_of_an_odd_count_is_the_middle_value():
    assert aggregate([3.0, 1.0, 2.0]).median == 2.0


def test_mode_tie_takes_the_smallest_value():
    assert aggregate([0.5, 0.9, 0.9, 0.5, 0.7]).mode == 0.5


def test_aggregate_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        aggregate([])


def test_aggregate_refuses_nan():
    with pytest.raises(ValueError, match="finite"):
        aggregate([0.5, math.nan])


@pytest.mark.parametrize(
    ("score", "grade"),
    [(0.95, "A"), (0.9499, "B"), (0.85, "B"), (0.75, "C"), (0.65, "D"), (0.6499, "F"), (0.0, "F")],
)
def test_letter_grade_thresholds(score, grade):
    assert letter_grade(score) == grade


def test_composite_with_custom_weights():
    assert composite_score(1.0, 0.5, pass_weight=3, impl_weight=1) == pytest.approx(0.875)


def test_composite_refuses_zero_weights():
    with pytest.raises(ValueError, match="> 0"):
        composite_score(1.0, 0.5, 0, 0)


def test_cost_of_pass_is_infinite_when_nothing_passes():
    assert cost_of_pass(0.5, 0.0) == math.inf


def test_tier_uplift_of_zero_baseline_is_an_error():
    with pytest.raises(ValueError, match="zero baseline"):
        tier_uplift(0.5, 0.0)


def test_cost_delta():
    assert cost_delta([0.2, 1.5, 0.7]) == pytest.approx(1.3)


def test_pass_at_k_unbiased_estimator():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 3, 2) == pytest.approx(1 - math.comb(7, 2) / math.comb(10, 2))
    assert pass_at_k(5, 4, 2) == 1.0  # n - c < k: every draw of 2 holds a pass


def test_pass_hat_k():
    assert pass_hat_k(10, 3, 2) == pytest.approx(math.comb(3, 2) / math.comb(10, 2))
    assert pass_hat_k(10, 1, 2) == 0.0


def test_pass_at_k_refuses_k_above_n():
    with pytest.raises(ValueError, match="k <= n"):
        pass_at_k(3, 1, 4)


@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_equals_exhaustive_enumeration(nck):
    n, c, k = nck
    runs = [True] * c + [False] * (n - c)
    draws = list(combinations(range(n), k))
    at_least_one = sum(any(runs[i] for i in d) for d in draws) / len(draws)
    all_pass = sum(all(runs[i] for i in d) for d in draws) / len(draws)
    assert pass_at_k(n, c, k) == pytest.approx(at_least_one)
    assert pass_hat_k(n, c, k) == pytest.approx(all_pass)


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30))
def test_aggregate_orders_min_median_max_and_std_is_non_negative(values):
    s = aggregate(values)
    assert s.min <= s.median <= s.max
    assert s.min <= s.mode <= s.max
    assert s.std_dev >= 0 and s.count == len(values)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.randoms())
def test_aggregate_ignores_order(values, rnd):
    shuffled = list(values)
    rnd.shuffle(shuffled)
    a, b = aggregate(values), aggregate(shuffled)
    assert (a.median, a.mode, a.min, a.max) == (b.median, b.mode, b.min, b.max)
    assert a.mean == pytest.approx(b.mean) and a.std_dev == pytest.approx(b.std_dev, abs=1e-12)


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 10), st.floats(0, 10))
def test_composite_in_unit_interval(p, i, wp, wi):
    if wp + wi > 0:
        assert 0.0 <= composite_score(p, i, wp, wi) <= 1.0


@pytest.mark.parametrize("values, std", [([1e200, -1e200], 1e200), ([1e300, -1e300, 1e300], statistics.pstdev([1e300, -1e300, 1e300])),
                                         ([1.7e308, -1.7e308, -1.7e308], statistics.pstdev([1.7e308, -1.7e308, -1.7e308]))])
def test_aggregate_of_a_spread_beyond_1e154_is_computed_not_an_overflow(values, std):
    s = aggregate(values)
    assert s.std_dev == pytest.approx(std)
    assert s.mean == pytest.approx(statistics.mean(values), abs=1e-300 * max(abs(v) for v in values))


def test_median_of_two_values_near_the_float_limit_stays_finite():
    assert aggregate([1.7e308, 1.7e308]).median == 1.7e308


@pytest.mark.parametrize("values", [[1e200, -1e200], [1.7e308, -1.7e308]])
def test_a_variance_beyond_the_float_range_is_the_documented_value_error(values):
    with pytest.raises(ValueError, match="float range"):
        population_variance(values)


def test_cost_delta_of_a_huge_spread_is_computed_or_a_value_error():
    assert cost_delta([1e200, -1e200]) == 2e200
    with pytest.raises(ValueError, match="float range"):
        cost_delta([1.7e308, -1.7e308])


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20))
def test_aggregate_never_overflows_and_agrees_with_statistics(values):
    s = aggregate(values)
    assert math.isfinite(s.std_dev) and math.isfinite(s.mean)
    assert s.std_dev == pytest.approx(statistics.pstdev(values), rel=1e-9, abs=1e-300)
