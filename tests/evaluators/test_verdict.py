"""Verdicts, Holm's adjustment and the cases an inconclusive comparison would need."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from evaluators import VERDICTS, SignFlips, holm, needed_cases, verdict


def test_the_four_verdicts():
    assert VERDICTS == ("regressed", "improved", "no_change", "inconclusive")
    assert verdict(0.01, 0.99, -0.3, -0.1, alpha=0.05, margin=0.05) == "regressed"
    assert verdict(0.99, 0.01, 0.1, 0.3, alpha=0.05, margin=0.05) == "improved"
    assert verdict(0.4, 0.6, -0.04, 0.049, alpha=0.05, margin=0.05) == "no_change"
    assert verdict(0.4, 0.6, -0.04, 0.05, alpha=0.05, margin=0.05) == "inconclusive"  # strictly inside
    assert verdict(0.4, 0.6, None, None, alpha=0.05, margin=0.05) == "inconclusive"


def test_a_significant_change_smaller_than_the_margin_is_still_a_regression():
    assert verdict(0.001, 0.999, -0.03, -0.01, alpha=0.05, margin=0.05) == "regressed"


def test_holm_on_a_textbook_family():
    # p = 0.01, 0.04, 0.03, 0.005 -> sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, then running maxima.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([]) == [] and holm([0.3]) == [0.3] and holm([0.6, 0.7]) == [1.0, 1.0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_holm_is_between_the_raw_p_and_bonferroni_and_keeps_their_order(ps):
    adjusted = holm(ps)
    m = len(ps)
    for p, adj in zip(ps, adjusted):
        assert p - 1e-15 <= adj <= min(1.0, m * p) + 1e-15
    for (p, adj), (q, adq) in itertools.combinations(zip(ps, adjusted), 2):
        if p < q:
            assert adj <= adq


def scaled_p(k, l, n, size):
    kk, ll = math.floor(k * size / n + 0.5), math.floor(l * size / n + 0.5)
    return binomtest(kk, kk + ll, 0.5, alternative="greater").pvalue if kk + ll else 1.0


@pytest.mark.parametrize("down,up,n", [(4, 0, 12), (3, 0, 3), (2, 1, 10), (11, 5, 30), (20, 14, 100), (1, 0, 40)])
def test_the_cases_needed_for_discordant_pairs_are_the_fewest_with_the_same_rates_that_reach_alpha(down, up, n):
    a = [1] * down + [0] * up + [1] * (n - down - up)
    b = [0] * down + [1] * up + [1] * (n - down - up)
    needed = needed_cases(a, b, alpha=0.05, outcome=True)
    assert needed > n and scaled_p(down, up, n, needed) < 0.05
    assert all(scaled_p(down, up, n, size) >= 0.05 for size in range(n, needed))


def test_four_one_way_flips_of_twelve_need_fourteen_cases():
    # At the same rate, 14 cases have round(4 * 14 / 12) = 5 flips: p = 1/32; 13 have 4: p = 1/16.
    assert needed_cases([1] * 12, [0] * 4 + [1] * 8, alpha=0.05, outcome=True) == 14


def test_no_number_of_cases_shows_a_change_that_is_not_there():
    assert needed_cases([1, 0, 1], [1, 0, 1], alpha=0.05, outcome=True) is None
    assert needed_cases([1, 0, 1, 0], [0, 1, 1, 0], alpha=0.05, outcome=True) is None  # one each way
    assert needed_cases([0.2, 0.4], [0.3, 0.3], alpha=0.05) is None  # +0.1 and -0.1
    assert needed_cases([], [], alpha=0.05) is None


def stretched_p(deltas, size):
    d = sorted(deltas)
    flips = SignFlips([d[i * len(d) // size] for i in range(size)])
    return flips.p_down() if sum(deltas) < 0 else flips.p_up()


@pytest.mark.parametrize("deltas", [[-0.1] * 3, [0.3, -0.1, 0.2, 0.0, 0.05, -0.02],
                                    [-5.0, -1.0, 2.0, -3.0, 0.5, -0.5, -2.0, 1.0], [0.0] * 20 + [-1.0, -0.5]])
def test_the_cases_needed_for_scores_are_where_the_stretched_cases_reach_alpha(deltas):
    n = len(deltas)
    needed = needed_cases([0.0] * n, deltas, alpha=0.05)
    assert needed > n and stretched_p(deltas, needed) < 0.05
    assert needed - 1 == n or stretched_p(deltas, needed - 1) >= 0.05


def test_equal_drops_need_as_many_cases_as_the_sign_test_says():
    # Every delta -0.1: the one-sided sign test needs 2**-N < 0.05, so N = 5.
    assert needed_cases([0.5] * 3, [0.4] * 3, alpha=0.05) == 5
    # Equal drops and rises, 14 to 6 (more than 16 nonzero: the normal figure), stretched to N
    # cases: ceil(0.7 N) drops, a sign test.
    needed = needed_cases([0.2] * 14 + [0.8] * 6, [0.1] * 14 + [0.9] * 6, alpha=0.05)
    p = [binomtest(math.ceil(14 * size / 20), size, 0.5, alternative="greater").pvalue for size in (needed - 1, needed)]
    assert p[0] > 0.05 - 0.005 and p[1] < 0.05 + 0.005  # sampled sign flips: within their error


def test_a_far_off_change_gets_the_normal_figure():
    a = [0.0] * 50
    b = [0.01 * (-1) ** i for i in range(50)]
    b[0] -= 0.002  # mean delta -0.00004 against a spread of 0.01
    needed = needed_cases(a, b, alpha=0.05)
    deltas = [y - x for x, y in zip(a, b)]
    expected = math.ceil(1.6448536269514722 ** 2 * 50 * sum(d * d for d in deltas) / sum(deltas) ** 2)
    assert needed == pytest.approx(expected, rel=1e-6) and needed > 400


def test_needed_cases_shrink_as_the_change_grows():
    counts = [needed_cases([0] * 40, [1] * k + [0] * (40 - k), alpha=0.05, outcome=True) for k in (1, 2, 3, 4)]
    assert counts == sorted(counts, reverse=True) and counts[-1] < counts[0]
