"""needed_cases is a planning figure: at the number it gives, the test shows the change 80%
of the time (exact enumeration for pass/fail, a seeded simulation for the sign-flip test)."""

from __future__ import annotations

import math
import random

import pytest

from evaluators import SignFlips, binomial_tail, needed_cases
from evaluators._power import _sign_flip_needed


def exact_power(cases, p_worse, p_other, alpha):
    """The chance the one-sided exact binomial test on discordant pairs rejects, over every
    (worse, other) outcome of ``cases`` independent pairs."""
    total = 0.0
    for worse in range(cases + 1):
        for other in range(cases + 1 - worse):
            if binomial_tail(worse, worse + other) < alpha:
                total += (math.comb(cases, worse) * math.comb(cases - worse, other) * p_worse ** worse
                          * p_other ** other * (1 - p_worse - p_other) ** (cases - worse - other))
    return total


@pytest.mark.parametrize("down,up,n", [(4, 0, 12), (3, 1, 12), (6, 2, 30), (5, 0, 40)])
def test_pass_fail_cases_needed_are_the_fewest_with_80_percent_power(down, up, n):
    a = [1] * down + [0] * up + [1] * (n - down - up)
    b = [0] * down + [1] * up + [1] * (n - down - up)
    needed = needed_cases(a, b, alpha=0.05, outcome=True, bounded=True, margin=0.05)
    p_worse, p_other = down / n, up / n  # the observed change is larger than the margin: planned as seen
    assert needed > n + 1
    assert exact_power(needed, p_worse, p_other, 0.05) >= 0.8 > exact_power(needed - 1, p_worse, p_other, 0.05)


def test_a_change_smaller_than_the_margin_is_planned_at_the_margin():
    same = needed_cases([1, 0, 1], [1, 0, 1], alpha=0.05, outcome=True, bounded=True, margin=0.05)
    # No case differs: planned for 5% of cases breaking (the margin), each break a discordant pair.
    assert exact_power(same, 0.05, 0.0, 0.05) >= 0.8 > exact_power(same - 1, 0.05, 0.0, 0.05)
    tiny = needed_cases([1] * 100, [0] + [1] * 99, alpha=0.05, outcome=True, bounded=True, margin=0.05)
    assert tiny == same  # a drop of 0.01 is planned as one of 0.05, the share of discordant cases as its own
    assert needed_cases([1, 0, 1], [1, 0, 1], alpha=0.05, outcome=True) is None  # nothing to plan for
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
