"""Agreement statistics equal their references: Cohen's and weighted κ scikit-learn's, Fleiss'
κ statsmodels', Krippendorff's α the krippendorff package's, Spearman's ρ scipy's, on
hand-made and random cases; exact intervals hold their level in exact enumeration, and the
bootstrap intervals cover the truth in simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, spearmanr
from sklearn.metrics import cohen_kappa_score

from evaluators import (
    clopper_pearson,
    cohen_kappa,
    fleiss_estimate,
    fleiss_kappa,
    fleiss_table,
    kappa_estimate,
    krippendorff_alpha,
    krippendorff_estimate,
    spearman,
    spearman_estimate,
)
from evaluators._intervals import share

statsmodels_fleiss = pytest.importorskip("statsmodels.stats.inter_rater").fleiss_kappa
krippendorff = pytest.importorskip("krippendorff")


# --- Cohen's κ ---------------------------------------------------------------------------------

def test_kappa_of_a_hand_made_table():
    # 20 both yes, 15 both no, 5 yes/no, 10 no/yes: p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx((0.7 - 0.5) / (1 - 0.5), abs=1e-15)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_scikit_learn_on_random_cases(weights):
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, k = int(rng.integers(2, 80)), int(rng.integers(2, 7))
        a = rng.integers(0, k, n)
        b = np.where(rng.random(n) < rng.random(), a, rng.integers(0, k, n))
        expected = cohen_kappa_score(a, b, weights=weights) if len(set(a) | set(b)) > 1 else math.nan
        got = cohen_kappa(a.tolist(), b.tolist(), weights=weights)
        assert (math.isnan(got) and math.isnan(expected)) or abs(got - expected) <= 1e-12


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_counts_an_unused_level_of_the_scale_as_a_step(weights):
    a, b = [1, 2, 3, 5, 5, 1, 2], [1, 3, 3, 5, 3, 2, 2]
    scale = [1, 2, 3, 4, 5]
    assert cohen_kappa(a, b, weights=weights, categories=scale) == pytest.approx(
        cohen_kappa_score(a, b, weights=weights, labels=scale), abs=1e-12)
    assert cohen_kappa(a, b, weights=weights, categories=scale) != pytest.approx(cohen_kappa(a, b, weights=weights))


def test_kappa_is_undefined_when_both_raters_give_one_category_throughout():
    assert math.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    assert kappa_estimate([1, 1, 1], [1, 1, 1]).value is None


def test_a_rating_outside_the_categories_is_refused():
    with pytest.raises(ValueError, match="not one of the categories"):
        cohen_kappa([1, 2], [1, 7], categories=[1, 2, 3])
    with pytest.raises(ValueError, match="weights are"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")  # type: ignore[arg-type]


ratings = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=40)


@settings(max_examples=150, deadline=None)
@given(ratings, st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_is_at_most_one_symmetric_and_blind_to_unit_order(pairs, weights):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    k = cohen_kappa(a, b, weights=weights)
    if math.isnan(k):
        return
    assert k <= 1 + 1e-12
    assert cohen_kappa(b, a, weights=weights) == pytest.approx(k, abs=1e-12)
    assert cohen_kappa(a[::-1], b[::-1], weights=weights) == pytest.approx(k, abs=1e-12)
    if len(set(a)) > 1:
        assert cohen_kappa(a, a, weights=weights) == pytest.approx(1.0)


# --- Spearman's ρ --------------------------------------------------------------------------------

def test_spearman_equals_scipy_with_ties():
    rng = np.random.default_rng(3)
    for _ in range(100):
        n = int(rng.integers(3, 50))
        x, y = rng.integers(0, 6, n).astype(float), rng.normal(size=n).round(1)
        if len(set(x)) > 1 and len(set(y)) > 1:
            assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


# --- Fleiss' κ and Krippendorff's α ---------------------------------------------------------------

def test_fleiss_kappa_of_a_hand_made_table():
    # Three units, three raters, two categories: P = (1, 1/3, 1), P̄ = 7/9; p = (5/9, 4/9), P_e = 41/81.
    table = [[3, 0], [1, 2], [0, 3]]
    assert fleiss_kappa(table) == pytest.approx((7 / 9 - 41 / 81) / (1 - 41 / 81), abs=1e-15)


def test_fleiss_kappa_equals_statsmodels_on_random_cases():
    rng = np.random.default_rng(11)
    for _ in range(300):
        units, raters, k = int(rng.integers(2, 40)), int(rng.integers(2, 7)), int(rng.integers(2, 6))
        truth = rng.integers(0, k, units)
        votes = np.where(rng.random((units, raters)) < rng.random(), truth[:, None], rng.integers(0, k, (units, raters)))
        table = np.array(fleiss_table(votes.tolist(), categories=range(k)))
        expected = statsmodels_fleiss(table)
        got = fleiss_kappa(table)
        assert (math.isnan(got) and not math.isfinite(expected)) or abs(got - expected) <= 1e-12


def test_fleiss_kappa_needs_the_same_number_of_raters_per_unit():
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[2, 0], [1, 2]])


def test_krippendorff_alpha_of_the_reference_example():
    # Krippendorff's own example (missing ratings as None), as the krippendorff package documents it.
    data = [[None, None, None, None, None, 3, 4, 1, 2, 1, 1, 3, 3, None, 3],
            [1, None, 2, 1, 3, 3, 4, 3, None, None, None, None, None, None, None],
            [None, None, 2, 1, 3, 4, 4, None, 2, 1, 1, 3, 3, None, 4]]
    reference = np.array([[np.nan if v is None else v for v in row] for row in data])
    assert krippendorff_alpha(data, "nominal") == pytest.approx(0.691, abs=5e-4)
    assert krippendorff_alpha(data, "interval") == pytest.approx(0.811, abs=5e-4)
    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert krippendorff_alpha(data, level) == pytest.approx(
            krippendorff.alpha(reliability_data=reference, level_of_measurement=level), abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_alpha_equals_the_reference_package_on_random_cases(level):
    rng = np.random.default_rng(5)
    for _ in range(150):
        raters, units = int(rng.integers(2, 6)), int(rng.integers(3, 40))
        truth = rng.integers(1, 6, units)
        data = np.where(rng.random((raters, units)) < 0.6, truth, rng.integers(1, 6, (raters, units))).astype(float)
        data[rng.random((raters, units)) < 0.25] = np.nan
        if np.unique(data[~np.isnan(data)]).size < 2 or ((~np.isnan(data)).sum(axis=0) >= 2).sum() < 1:
            continue
        got = krippendorff_alpha(data.tolist(), level)
        with np.errstate(all="ignore"):
            expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert (math.isnan(got) and not math.isfinite(expected)) or abs(got - expected) <= 1e-12


def test_two_raters_without_missing_ratings_give_kappa_and_alpha_close_together():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 2, 200)
    b = np.where(rng.random(200) < 0.8, a, 1 - a)
    kappa, alpha = cohen_kappa(a.tolist(), b.tolist()), krippendorff_alpha([a.tolist(), b.tolist()])
    assert abs(kappa - alpha) < 0.01  # α corrects κ for the sample size: (n-1)/n apart at most


# --- intervals ------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 5, 20, 60])
def test_the_exact_interval_covers_every_proportion_at_least_at_its_level(n):
    lows, highs = zip(*(clopper_pearson(k, n, 0.9) for k in range(n + 1)))
    for p in np.linspace(0.001, 0.999, 97):
        covered = sum(binom.pmf(k, n, p) for k in range(n + 1) if lows[k] <= p <= highs[k])
        assert covered >= 0.9 - 1e-9


def test_the_exact_interval_is_the_inverted_binomial_test():
    low, high = clopper_pearson(7, 20, 0.95)
    assert binom.sf(6, 20, low) == pytest.approx(0.025, rel=1e-6)
    assert binom.cdf(7, 20, high) == pytest.approx(0.025, rel=1e-6)
    assert clopper_pearson(0, 0) == (0.0, 1.0)


def test_bootstrap_intervals_are_seeded_and_group_whole_units():
    rng = np.random.default_rng(9)
    a = rng.integers(0, 3, 50).tolist()
    b = [x if rng.random() < 0.7 else int(rng.integers(0, 3)) for x in a]
    first, again = kappa_estimate(a, b), kappa_estimate(a, b)
    assert first == again and first.low < first.value < first.high
    assert kappa_estimate(a, b, groups=list(range(50))) == first  # one pair a unit: the same draws
    assert kappa_estimate(a, b, seed=1) != first
    # Doubling every pair inside its unit changes neither κ nor the units resampled.
    doubled = kappa_estimate(a + a, b + b, groups=list(range(50)) * 2)
    assert doubled.value == pytest.approx(first.value) and doubled.low == pytest.approx(first.low)
    assert share([True, False, True], ["r1", "r2", "r3"]).method == "exact"
    assert share([True, False, True], ["r1", "r1", "r2"]).method == "bootstrap"


@pytest.mark.parametrize("runs, low", [(12, 0.4707), (30, 0.7686)])
def test_perfect_agreement_on_few_runs_is_not_read_as_certainty(runs, low):
    # Every resample of runs that all agree agrees too; the exact bound of the raw agreement,
    # (0.025 ** (1 / n) - 1/2) / (1 - 1/2) with half the runs passing, still bounds κ.
    ratings = [1] * (runs // 2) + [0] * (runs // 2)
    e = kappa_estimate(ratings, ratings)
    assert e.value == 1.0 and e.high == 1.0
    assert e.low == pytest.approx((0.025 ** (1 / runs) - 0.5) / 0.5, abs=1e-9) == pytest.approx(low, abs=1e-4)


def test_the_kappa_bootstrap_interval_covers_the_true_kappa_in_simulation():
    # Two raters who agree with a hidden truth: p(yes) = 0.5 each, agreement 0.8 -> κ = 0.6.
    rng = np.random.default_rng(21)
    covered, trials = 0, 150
    for _ in range(trials):
        a = rng.integers(0, 2, 80)
        b = np.where(rng.random(80) < 0.8, a, 1 - a)
        e = kappa_estimate(a.tolist(), b.tolist(), draws=500, seed=int(rng.integers(1 << 30)))
        covered += e.low <= 0.6 <= e.high
    assert covered / trials >= 0.88


def test_rho_fleiss_and_alpha_have_intervals_around_their_values():
    rng = np.random.default_rng(4)
    x = rng.normal(size=40)
    rho = spearman_estimate(x, x + rng.normal(scale=0.5, size=40))
    assert rho.low < rho.value < rho.high <= 1
    units = [[int(v), int(v), int(v if rng.random() < 0.8 else 1 - v)] for v in rng.integers(0, 2, 40)]
    fleiss = fleiss_estimate(fleiss_table(units))
    assert fleiss.low < fleiss.value < fleiss.high
    alpha = krippendorff_estimate([[u[i] for u in units] for i in range(3)])
    assert alpha.low < alpha.value < alpha.high
