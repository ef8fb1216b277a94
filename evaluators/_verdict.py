"""From a paired test to a verdict: Holm across the gated metrics, the level each decision
was made at, and the four verdicts.

- ``regressed``: ``p_worse < alpha``; ``improved``: ``p_better < alpha`` (for gated metrics
  with their Holm-adjusted p-values); before any adjustment these are exactly "the interval
  lies wholly on the worse (better) side of 0" (:mod:`._paired`).
- ``no_change``: neither, and the interval lies strictly inside ``(-margin, margin)``: both
  one-sided tests against the margin reject (TOST, Schuirmann 1987), so a change as large as
  the margin is ruled out. With an equivalence interval (one valid without the shift model
  of the test's own interval, :mod:`._bounds`) that one must lie inside too.
- ``inconclusive``: neither, and the data cannot rule out a change as large as the margin.
  Absence of evidence is not equivalence: three cases that agree say nothing either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Verdict = Literal["regressed", "improved", "no_change", "inconclusive"]
VERDICTS: tuple[Verdict, ...] = ("regressed", "improved", "no_change", "inconclusive")


def verdict(p_worse: float, p_better: float, ci_low: float | None, ci_high: float | None, *, alpha: float,
            margin: float, eq_low: float | None = None, eq_high: float | None = None) -> Verdict:
    """The verdict of one metric (rules in the module doc); no interval: ``inconclusive``
    unless a p-value decides. ``eq_low``/``eq_high``: the equivalence interval, when the
    test's own interval is not valid for equivalence on its own."""
    if p_worse < alpha:
        return "regressed"
    if p_better < alpha:
        return "improved"
    inside = [(low, high) for low, high in ((ci_low, ci_high), (eq_low, eq_high)) if low is not None or high is not None]
    if inside and all(low is not None and high is not None and -margin < low and high < margin
                      for low, high in inside):
        return "no_change"
    return "inconclusive"


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: with the m p-values sorted
    ascending, ``adj(i) = max over j <= i of min(1, (m - j + 1) * p(j))``. Rejecting where
    ``adj < alpha`` keeps the chance of any false rejection in the family at most alpha, and
    is never less powerful than Bonferroni."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def holm_levels(p_values: Sequence[float], alpha: float) -> list[float]:
    """The level each p-value's Holm decision was made at, in the order given: a rejected
    one (its adjusted p below alpha) at ``alpha / (m - k + 1)``, k its rank; every other at
    the level of the first step that did not reject. An interval at ``1 - 2 * level`` then
    never contradicts the decision: on the side the test looks at it excludes 0 exactly when
    Holm rejected. Each interval covers at its own level; simultaneous coverage of the family
    is not claimed (the simultaneous bounds compatible with Holm, Strassburger & Bretz 2008,
    say no more than "beyond 0" for a rejected metric)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m = len(p_values)
    levels = [alpha] * m
    for rank, i in enumerate(order):
        step = alpha / (m - rank)
        if p_values[i] >= step:
            for j in order[rank:]:
                levels[j] = step
            break
        levels[i] = step
    return levels
