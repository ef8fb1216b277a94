"""Verdicts, Holm's adjustment and the level each Holm decision is made at."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators import VERDICTS, holm, holm_levels, verdict


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


def test_equivalence_needs_the_equivalence_interval_inside_the_margin_too():
    # The test's interval (a shift model) says within 0.05; the distribution-free one does not.
    assert verdict(0.4, 0.6, -0.01, 0.01, alpha=0.05, margin=0.05, eq_low=-0.2, eq_high=0.2) == "inconclusive"
    assert verdict(0.4, 0.6, -0.01, 0.01, alpha=0.05, margin=0.05, eq_low=-0.04, eq_high=0.03) == "no_change"
    assert verdict(0.4, 0.6, -0.06, 0.01, alpha=0.05, margin=0.05, eq_low=-0.04, eq_high=0.03) == "inconclusive"


def test_holm_levels_on_a_textbook_family():
    # sorted 0.005, 0.01, 0.03, 0.04 against 0.05/4, 0.05/3, 0.05/2: the first two rejected, then it stops.
    assert holm_levels([0.01, 0.04, 0.03, 0.005], 0.05) == pytest.approx([0.05 / 3, 0.025, 0.025, 0.0125])
    assert holm_levels([], 0.05) == [] and holm_levels([0.3], 0.05) == [0.05]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8), st.sampled_from([0.01, 0.05, 0.1]))
def test_a_p_value_is_below_its_holm_level_exactly_when_holm_rejects_it(ps, alpha):
    """An interval at 1 - 2 * level then excludes 0 exactly when the adjusted p is below alpha."""
    for p, adjusted, level in zip(ps, holm(ps), holm_levels(ps, alpha)):
        assert (adjusted < alpha) == (p < level)
        assert alpha / len(ps) - 1e-15 <= level <= alpha
