"""needed_cases is a planning figure: at the number it gives, the test shows the change 80%
of the time for the cautious plan (exact enumeration for pass/fail, a seeded simulation for
the sign-flip test); the benchmark checks it against reruns from the same truth."""

from __future__ import annotations

import math
import random

import pytest
from scipy.stats import beta, norm

from evaluators import SignFlips, binomial_tail, needed_cases
from evaluators._power import _sign_flip_needed


def exact_power(cases, p_worse, p_other, alpha):
    """The chance the one-sided exact binomial test on discordant pairs rejects, over every
    (worse, other) outcome of ``cases`` independent pairs (the test's critical count for
    each number of discordant pairs found by its exact tail)."""
    critical = []
    for discordant in range(cases + 1):
        k = 0
        while k <= discordant and binomial_tail(k, discordant) >= alpha:
            k += 1
        critical.append(k)  # discordant + 1: never rejects
    total = 0.0
    for worse in range(cases + 1):
        for other in range(cases + 1 - worse):
            if worse >= critical[worse + other]:
                total += (math.comb(cases, worse) * math.comb(cases - worse, other) * p_worse ** worse
                          * p_other ** other * (1 - p_worse - p_other) ** (cases - worse - other))
    return total


def planned(down, up, n, margin):
    """The effect and the share of discordant cases a pass/fail plan is made for: the observed
    effect half a standard error towards 0 (the margin if that is more), the discordant share
    at its one-sided 69% Clopper-Pearson upper bound (at least the effect)."""
    deltas = [-1] * down + [1] * up + [0] * (n - down - up)
    mean = sum(deltas) / n
    spread = sum((d - mean) ** 2 for d in deltas) / (n - 1)
    effect = max(abs(mean) - 0.5 * math.sqrt(spread / n), margin)
    k = down + up
    rate = 1.0 if k == n else beta.ppf(norm.cdf(0.5), k + 1, n - k)
    rate = max(rate, effect)
    return (rate + effect) / 2, (rate - effect) / 2


@pytest.mark.parametrize("down,up,n", [(4, 0, 12), (10, 2, 30), (5, 0, 40), (1, 0, 100)])
def test_pass_fail_cases_needed_are_the_fewest_with_80_percent_power_for_the_cautious_plan(down, up, n):
    a = [1] * down + [0] * up + [1] * (n - down - up)
    b = [0] * down + [1] * up + [1] * (n - down - up)
    needed = needed_cases(a, b, alpha=0.05, outcome=True, bounded=True, margin=0.05)
    p_worse, p_other = planned(down, up, n, 0.05)
    assert needed > n + 1
    assert exact_power(needed, p_worse, p_other, 0.05) >= 0.8 > exact_power(needed - 1, p_worse, p_other, 0.05)


def test_no_margin_and_no_change_is_nothing_to_plan_for():
    assert needed_cases([1, 0, 1], [1, 0, 1], alpha=0.05, outcome=True) is None
    assert needed_cases([], [], alpha=0.05, margin=0.05) is None


def test_equal_drops_need_the_fewest_cases_a_sign_flip_test_can_reject_with():
    assert needed_cases([0.5] * 3, [0.4] * 3, alpha=0.05) == 5  # 2**-5 < 0.05 < 2**-4


def test_larger_changes_need_fewer_cases():
    counts = [needed_cases([0] * 40, [1] * k + [0] * (40 - k), alpha=0.05, outcome=True, bounded=True, margin=0.05)
              for k in (3, 5, 8, 12)]
    assert counts == sorted(counts, reverse=True) and counts[-1] < counts[0]


@pytest.mark.parametrize("pass_a,pass_b", [(0.9, 0.75), (0.8, 0.6)])
def test_rerun_at_the_number_it_gives_the_sign_flip_test_shows_the_change_80_percent_of_the_time(pass_a, pass_b):
    """Three repeats per case, every run passing independently: a case's delta is the
    difference of two binomial thirds. The planning figure from the population's own
    deltas, then 200 seeded reruns at that many cases (the sign-flip test, its patterns sampled 2,000 times)."""
    rng = random.Random(7)

    def delta():
        return (sum(rng.random() < pass_b for _ in range(3)) - sum(rng.random() < pass_a for _ in range(3))) / 3

    population = [delta() for _ in range(20_000)]
    mean = sum(population) / len(population)
    needed = _sign_flip_needed(abs(mean), sum((d - mean) ** 2 for d in population) / len(population), 0.05, 0.8)
    shown = sum(SignFlips([delta() for _ in range(needed)], draws=2_000).p_down() < 0.05 for _ in range(200))
    assert 0.75 <= shown / 200 <= 0.93, (needed, shown)


@pytest.mark.parametrize("pass_b,cases", [(0.75, 12), (0.85, 30)])
def test_planned_from_a_pilot_the_change_is_shown_at_least_75_percent_of_the_time(pass_b, cases):
    """Pilots of ``cases`` cases (one run each, the baseline passing 90%) that did not yet
    show the change: the power, at the truth, of the number each one plans."""
    from evaluators._power import _binomial_power

    rng = random.Random(3)
    p_down, p_up = 0.9 * (1 - pass_b), pass_b * 0.1
    powers = []
    while len(powers) < 80:
        moves = [rng.random() for _ in range(cases)]
        down, up = sum(m < p_down for m in moves), sum(p_down <= m < p_down + p_up for m in moves)
        if binomial_tail(down, down + up) < 0.05:
            continue  # shown already: nothing to plan
        a = [1] * down + [0] * up + [1] * (cases - down - up)
        b = [0] * down + [1] * up + [1] * (cases - down - up)
        needed = needed_cases(a, b, alpha=0.05, outcome=True, bounded=True, margin=0.05)
        powers.append(_binomial_power(needed, p_down + p_up, p_down / (p_down + p_up), 0.05))
    assert sum(powers) / len(powers) >= 0.75
