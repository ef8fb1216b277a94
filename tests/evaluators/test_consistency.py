"""Same-model consistency and cross-model agreement (the formulas of docs/sheets.md)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import consistency, cross_model_agreement

LEVELS = st.sampled_from(["LOW", "MODERATE", "HIGH", "CRITICAL"])
SCORES = st.integers(300, 850)


def test_consistency_of_the_spec_example():
    c = consistency(["LOW", "LOW", "MODERATE"], [750, 745, 720])
    mean = (750 + 745 + 720) / 3
    std = math.sqrt(((750 - mean) ** 2 + (745 - mean) ** 2 + (720 - mean) ** 2) / 3)
    assert c.risk_level_consistency == pytest.approx(2 / 3)
    assert c.score_std == pytest.approx(std)  # population std
    assert c.score_consistency == pytest.approx(1 - std / mean)
    assert c.overall == pytest.approx(0.5 * (2 / 3) + 0.5 * (1 - std / mean))
    assert c.eval_status == "good"


def test_identical_runs_are_fully_consistent():
    c = consistency(["HIGH", "HIGH"], [500, 500])
    assert (c.risk_level_consistency, c.score_consistency, c.score_std, c.overall) == (1.0, 1.0, 0.0, 1.0)


def test_consistency_needs_two_runs():
    with pytest.raises(ValueError, match="at least 2"):
        consistency(["LOW"], [700])


def test_consistency_needs_equal_lengths():
    with pytest.raises(ValueError, match="2 risk levels but 3"):
        consistency(["LOW", "LOW"], [700, 710, 720])


def test_consistency_refuses_a_level_outside_the_closed_set():
    with pytest.raises(ValueError, match="LOW, MODERATE, HIGH, CRITICAL"):
        consistency(["LOW", "MEDIUM"], [700, 710])


def test_consistency_refuses_a_score_off_the_300_850_scale():
    with pytest.raises(ValueError, match="300-850"):
        consistency(["LOW", "LOW"], [70, 71])


@given(st.lists(st.tuples(LEVELS, SCORES), min_size=2, max_size=8))
def test_consistency_scores_in_unit_interval(results):
    c = consistency([r[0] for r in results], [r[1] for r in results])
    assert all(0.0 <= x <= 1.0 for x in (c.risk_level_consistency, c.score_consistency, c.overall))


@given(st.lists(st.tuples(LEVELS, SCORES), min_size=2, max_size=8), st.randoms())
def test_consistency_ignores_run_order(results, rnd):
    shuffled = list(results)
    rnd.shuffle(shuffled)
    a = consistency([r[0] for r in results], [r[1] for r in results])
    b = consistency([r[0] for r in shuffled], [r[1] for r in shuffled])
    assert a.overall == pytest.approx(b.overall)


def test_cross_model_agreement_formula():
    r = cross_model_agreement({"big": ("LOW", 750, 0.9), "small": ("MODERATE", 700, 0.7)})
    assert r.risk_level_agreement == 0.5
    assert r.credit_score_mean == 725.0
    assert r.credit_score_std == 25.0
    assert r.credit_score_range == 50.0
    assert r.confidence_agreement == pytest.approx(1 - 0.01 / 0.25)  # population variance 0.01
    assert r.cross_model_agreement == pytest.approx(0.4 * 0.5 + 0.4 * (1 - 50 / 550) + 0.2 * 0.96)
    assert r.eval_status == "average"


def test_cross_model_agreement_when_all_agree():
    r = cross_model_agreement({"a": ("LOW", 700, 0.8), "b": ("LOW", 700, 0.8), "c": ("LOW", 700, 0.8)})
    assert (r.risk_level_agreement, r.confidence_agreement, r.cross_model_agreement) == (1.0, 1.0, 1.0)


def test_cross_model_needs_two_models():
    with pytest.raises(ValueError, match="at least 2 models"):
        cross_model_agreement({"a": ("LOW", 700, 0.8)})


def test_cross_model_refuses_confidence_outside_zero_one():
    with pytest.raises(ValueError, match="confidence"):
        cross_model_agreement({"a": ("LOW", 700, 80), "b": ("LOW", 700, 0.8)})


@given(st.dictionaries(st.text(min_size=1, max_size=5), st.tuples(LEVELS, SCORES, st.floats(0, 1)), min_size=2, max_size=5))
def test_cross_model_scores_in_unit_interval(results):
    r = cross_model_agreement(results)
    assert all(0.0 <= x <= 1.0 for x in (r.risk_level_agreement, r.confidence_agreement, r.cross_model_agreement))
