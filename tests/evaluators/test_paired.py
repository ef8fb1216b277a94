"""The paired tests hold against exact enumeration and scipy, and keep their promises:
one-sided p-values in [0, 1] that swap with A and B, intervals that never contradict them."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from evaluators import SIGN_FLIP_EXACT_MAX, SignFlips, binomial_tail, mean_of_repeats, paired_test, round_sig


def brute_force(deltas, alpha):
    """p_down, p_up and the interval by enumerating every sign pattern of every delta and
    testing each candidate shift directly: p_down(t) = P(sum e(d - t) <= sum(d - t))."""
    d = np.asarray(deltas, dtype=float)
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
    tol = 1e-9

    def p_down(t):
        return float(np.mean(signs @ (d - t) <= (d - t).sum() + tol))

    def p_up(t):
        return float(np.mean(signs @ (d - t) >= (d - t).sum() - tol))

    shifts = {float(d[list(s)].mean()) for r in range(1, d.size + 1) for s in itertools.combinations(range(d.size), r)}
    top, bottom = max(shifts) + 1, min(shifts) - 1
    high = math.inf if p_down(top) >= alpha else max(t for t in shifts if p_down(t) >= alpha)
    low = -math.inf if p_up(bottom) >= alpha else min(t for t in shifts if p_up(t) >= alpha)
    return p_down(0.0), p_up(0.0), low, high


def same(x, y):
    return x == y if math.isinf(y) else x == pytest.approx(y, abs=1e-9)


small_deltas = st.lists(st.integers(-4, 4).map(lambda k: k / 2), min_size=1, max_size=8)
alphas = st.sampled_from([0.01, 0.025, 0.05, 0.1, 0.2])


@pytest.mark.parametrize("deltas", [
    [0.5], [-1.0], [0.0], [1.0, -1.0], [0.0, 0.0], [2.0, 2.0], [-1.0, -1.0, -1.0, -1.0, -1.0],
    [1.0, 1.0, -1.0, 0.0, 0.0], [3.0, -1.0, -1.0, -1.0], [0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_the_sign_flip_test_and_interval_equal_exact_enumeration_on_hand_made_cases(deltas, alpha):
    flips = SignFlips(deltas)
    got = (flips.p_down(), flips.p_up(), *flips.interval(alpha))
    assert all(map(same, got, brute_force(deltas, alpha)))


@settings(max_examples=60, deadline=None)
@given(small_deltas, alphas)
def test_the_sign_flip_test_and_interval_equal_exact_enumeration(deltas, alpha):
    flips = SignFlips(deltas)
    got = (flips.p_down(), flips.p_up(), *flips.interval(alpha))
    assert all(map(same, got, brute_force(deltas, alpha)))


@pytest.mark.parametrize("down,up", [(0, 0), (1, 0), (5, 0), (5, 1), (11, 3), (3, 11), (40, 25), (520, 480)])
def test_the_discordant_binomial_equals_scipy_binomtest(down, up):
    n = down + up + 7  # concordant cases change nothing
    a = [1] * down + [0] * up + [1] * 4 + [0] * 3
    b = [0] * down + [1] * up + [1] * 4 + [0] * 3
    r = paired_test(a, b, outcome=True, bounded=True)
    expected = (binomtest(down, down + up, 0.5, alternative="greater").pvalue,
                binomtest(up, down + up, 0.5, alternative="greater").pvalue) if down + up else (1.0, 1.0)
    assert (r.n, r.test) == (n, "exact_binomial_discordant")
    assert r.p_down == pytest.approx(expected[0], rel=1e-9) and r.p_up == pytest.approx(expected[1], rel=1e-9)
    assert r.delta == pytest.approx((up - down) / n)


def test_five_one_way_flips_give_p_0_031_whatever_the_number_of_cases():
    for cases in (5, 12, 200):
        r = paired_test([1] * cases, [0] * 5 + [1] * (cases - 5), outcome=True, bounded=True)
        assert r.p_down == 0.5 ** 5 == 0.03125 and r.p_up == 1.0 and r.ci_high < 0


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 1200), st.integers(0, 1200))
@example(1037, 1075)  # far out in the tail, where scipy's p-value underflows to 0
def test_the_binomial_tail_equals_exact_enumeration_and_scipy_in_exact_and_large_ranges(k, n):
    assume(k <= n + 1)
    exact = 1.0 if k <= 0 else float(Fraction(sum(math.comb(n, i) for i in range(k, n + 1)), 2 ** n))
    assert binomial_tail(k, n) == pytest.approx(exact, rel=1e-9, abs=1e-300)
    if 0 < k <= n:
        reference = binomtest(k, n, 0.5, alternative="greater").pvalue
        if reference > 0:  # (scipy's tail underflows to 0 far out, e.g. 1,037 of 1,075: 3.9e-254)
            assert binomial_tail(k, n) == pytest.approx(reference, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1]), st.sampled_from([0, 1])), min_size=1, max_size=14))
def test_on_0_1_outcomes_the_sign_flip_test_is_the_binomial_test(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    exact = paired_test(a, b, outcome=True)
    flips = SignFlips([y - x for x, y in pairs])
    assert (flips.p_down(), flips.p_up()) == pytest.approx((exact.p_down, exact.p_up), rel=1e-12)


@pytest.mark.parametrize("n", [20, 60, 1000])
def test_sampled_sign_flips_agree_with_the_exact_sign_test_within_their_error(n):
    rng = random.Random(n)
    deltas = [rng.choice((-0.1, -0.1, 0.1)) for _ in range(n)]
    flips = SignFlips(deltas)
    down = sum(d < 0 for d in deltas)
    exact = binomtest(down, n, 0.5, alternative="greater").pvalue
    assert not flips.exact and abs(flips.p_down() - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4


def test_floating_point_noise_cannot_break_ties():
    assert round_sig(0.9 - 0.8) == round_sig(0.2 - 0.1) == 0.1
    a, b = [0.2] * 14 + [0.8] * 6, [0.1] * 14 + [0.9] * 6
    r = paired_test(a, b, bounded=True)
    # 14 of 20 equal drops against 6 equal rises is a sign test: one-sided p ~ 0.058, not 0.001.
    exact = binomtest(14, 20, 0.5, alternative="greater").pvalue
    assert abs(r.p_down - exact) < 0.006 and r.p_down > 0.05 and r.ci_high >= 0


def test_sixteen_nonzero_deltas_are_enumerated_and_seventeen_sampled_the_same_way_every_time():
    base = [(-1) ** i * (i + 1) / 10 for i in range(SIGN_FLIP_EXACT_MAX)]
    assert SignFlips(base + [0.0] * 30).exact and not SignFlips(base + [0.05]).exact
    runs = [paired_test([0.0] * 40, [math.sin(i) for i in range(40)]) for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].test == "sign_flip_sampled"


deltas_any = st.lists(st.floats(-50, 50, allow_nan=False).map(lambda x: round(x, 2)), min_size=1, max_size=24)


@settings(max_examples=50, deadline=None)
@given(deltas_any, alphas, st.randoms(use_true_random=False))
def test_p_values_are_one_sided_probabilities_that_swap_with_a_and_b_and_ignore_case_order(deltas, alpha, rnd):
    a = [0.0] * len(deltas)
    r = paired_test(a, deltas, alpha=alpha)
    assert 0 < r.p_down <= 1 and 0 < r.p_up <= 1 and r.p_down + r.p_up >= 1 - 1e-12
    swapped = paired_test(deltas, a, alpha=alpha)
    assert (swapped.p_down, swapped.p_up) == (r.p_up, r.p_down)
    assert (swapped.ci_low, swapped.ci_high) == (-r.ci_high, -r.ci_low)
    order = list(range(len(deltas)))
    rnd.shuffle(order)
    shuffled = paired_test(a, [deltas[i] for i in order], alpha=alpha)
    assert (shuffled.p_down, shuffled.p_up, shuffled.ci_low, shuffled.ci_high) == (r.p_down, r.p_up, r.ci_low,
                                                                                  r.ci_high)


@settings(max_examples=60, deadline=None)
@given(deltas_any, alphas)
def test_the_interval_holds_the_mean_delta_and_never_contradicts_the_test(deltas, alpha):
    r = paired_test([0.0] * len(deltas), deltas, alpha=alpha)
    assert r.ci_low <= r.delta + 1e-9 and r.delta - 1e-9 <= r.ci_high and r.ci_level == pytest.approx(1 - 2 * alpha)
    assert (r.p_down < alpha) == (r.ci_high < 0) and (r.p_up < alpha) == (r.ci_low > 0)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1]), st.sampled_from([0, 1])), min_size=1, max_size=60), alphas)
def test_the_discordant_interval_holds_the_delta_and_never_contradicts_the_test(pairs, alpha):
    r = paired_test([x for x, _ in pairs], [y for _, y in pairs], outcome=True, bounded=True, alpha=alpha)
    assert -1 <= r.ci_low <= r.delta <= r.ci_high <= 1
    assert (r.p_down < alpha) == (r.ci_high < 0) and (r.p_up < alpha) == (r.ci_low > 0)


@pytest.mark.parametrize("n", [5, 12, 30])
def test_each_end_of_the_discordant_interval_misses_at_most_alpha_of_the_time(n):
    """Exact coverage: every outcome (down, up) of n cases weighed by its trinomial probability."""
    from scipy.stats import multinomial

    alpha = 0.05
    ends = {(d, u): paired_test([1] * d + [0] * u + [0] * (n - d - u), [0] * d + [1] * u + [0] * (n - d - u),
                                outcome=True, bounded=True, alpha=alpha)
            for d in range(n + 1) for u in range(n + 1 - d)}
    for p_down, p_up in itertools.product((0.0, 0.02, 0.1, 0.25, 0.45), repeat=2):
        truth = p_up - p_down
        law = multinomial(n, [p_down, p_up, 1 - p_down - p_up])
        above = sum(law.pmf([d, u, n - d - u]) for (d, u), r in ends.items() if r.ci_high < truth - 1e-12)
        below = sum(law.pmf([d, u, n - d - u]) for (d, u), r in ends.items() if r.ci_low > truth + 1e-12)
        assert above <= alpha + 1e-9 and below <= alpha + 1e-9, (p_down, p_up, above, below)


def test_few_cases_that_agree_bound_nothing_and_many_bound_the_change_closely():
    three = paired_test([1, 1, 0], [1, 1, 0], outcome=True, bounded=True)
    assert three.ci_low < -0.5 and three.ci_high > 0.5  # 3 agreeing cases leave room for a large change
    sixty = paired_test([1] * 60, [1] * 60, outcome=True, bounded=True)
    assert -0.05 < sixty.ci_low and sixty.ci_high < 0.05  # rule of three: 1 - 0.05 ** (1 / 60) = 0.049
    tiny = paired_test([0.5] * 3, [0.5] * 3)
    assert (tiny.ci_low, tiny.ci_high) == (-math.inf, math.inf)  # 2**3 sign patterns cannot reach 0.05


def test_too_few_cases_leave_an_end_unbounded_which_a_bounded_metric_clamps():
    one = paired_test([0.2], [0.9], bounded=True)
    assert (one.p_down, one.p_up, one.ci_low, one.ci_high) == (1.0, 0.5, -1.0, 1.0)


def test_effect_sizes():
    assert paired_test([0, 1, 1, 1], [0, 0, 0, 1], outcome=True, bounded=True).effect_size == -0.5
    d = [1.0, 2.0, 3.0, 6.0]
    assert paired_test([0.0] * 4, d).effect_size == pytest.approx(np.mean(d) / np.std(d, ddof=1))
    assert paired_test([0.0] * 3, [0.0] * 3).effect_size == 0.0
    assert paired_test([1.0] * 3, [2.0] * 3).effect_size is None


def test_no_pairs_is_no_test_and_bad_input_is_refused():
    empty = paired_test([], [])
    assert (empty.n, empty.delta, empty.p_down, empty.p_up, empty.test) == (0, None, 1.0, 1.0, None)
    with pytest.raises(ValueError, match="same length"):
        paired_test([1.0], [])
    with pytest.raises(ValueError, match="finite"):
        paired_test([1.0], [math.nan])
    with pytest.raises(ValueError, match="alpha"):
        paired_test([1.0], [2.0], alpha=0.5)


def test_repeats_are_reduced_to_their_mean():
    assert mean_of_repeats([1, 0, 0, 1]) == 0.5 and mean_of_repeats([]) is None
    assert mean_of_repeats([0.1] * 10) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="finite"):
        mean_of_repeats([1.0, math.inf])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sampled_sign_flips_swap_with_a_and_b_ignore_case_order_and_agree_with_their_interval(seed):
    rng = random.Random(seed)
    deltas = [round(rng.gauss(-0.3, 1.0), 3) for _ in range(40)]
    r = paired_test([0.0] * 40, deltas)
    assert r.test == "sign_flip_sampled"
    swapped = paired_test(deltas, [0.0] * 40)
    assert (swapped.p_down, swapped.p_up, swapped.ci_low, swapped.ci_high) == (r.p_up, r.p_down, -r.ci_high,
                                                                              -r.ci_low)
    rng.shuffle(deltas)
    assert paired_test([0.0] * 40, deltas) == r
    for alpha in (0.01, 0.05, 0.2):
        at = paired_test([0.0] * 40, deltas, alpha=alpha)
        assert (at.p_down < alpha) == (at.ci_high < 0) and (at.p_up < alpha) == (at.ci_low > 0)
