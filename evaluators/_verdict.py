"""From a paired test to a verdict: Holm across the gated metrics, the four verdicts, and
how many cases an inconclusive comparison would have needed.

- ``regressed``: ``p_worse < alpha``; ``improved``: ``p_better < alpha`` (for gated metrics
  with their Holm-adjusted p-values); before any adjustment these are exactly "the interval
  lies wholly on the worse (better) side of 0" (:mod:`._paired`).
- ``no_change``: neither, and the interval lies strictly inside ``(-margin, margin)``: both
  one-sided tests against the margin reject (TOST, Schuirmann 1987), so a change as large as
  the margin is ruled out.
- ``inconclusive``: neither, and the data cannot rule out a change as large as the margin.
  Absence of evidence is not equivalence: three cases that agree say nothing either way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from ._paired import SIGN_FLIP_EXACT_MAX, SignFlips, round_sig

Verdict = Literal["regressed", "improved", "no_change", "inconclusive"]
VERDICTS: tuple[Verdict, ...] = ("regressed", "improved", "no_change", "inconclusive")
_EXACT_SEARCH_MAX = 1_000_000  # cases searched with the exact binomial; the normal figure above


def verdict(p_worse: float, p_better: float, ci_low: float | None, ci_high: float | None, *, alpha: float,
            margin: float) -> Verdict:
    """The verdict of one metric (rules in the module doc); no interval: ``inconclusive``
    unless a p-value decides."""
    if p_worse < alpha:
        return "regressed"
    if p_better < alpha:
        return "improved"
    if ci_low is not None and ci_high is not None and -margin < ci_low and ci_high < margin:
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


def needed_cases(a: Sequence[float], b: Sequence[float], *, alpha: float, outcome: bool = False) -> int | None:
    """How many paired cases like these would show a change of the observed size at
    ``alpha``: None when none could (the mean delta is 0). Always more than ``n``.

    - 0/1 outcomes (``outcome`` and every value 0 or 1), with ``k`` cases moving the
      observed way and ``l`` the other of n: the smallest ``N > n`` whose scaled counts
      ``round(k N / n)`` and ``round(l N / n)`` (the same discordance rate and split) give
      a one-sided exact binomial p below alpha. Beyond a million cases the normal figure
      ``z**2 * n * (k + l) / (k - l)**2`` is given instead.
    - otherwise (the sign-flip test): the observed deltas stretched to N cases (the i-th of
      N is the ``floor(i * n / N)``-th smallest, so each is repeated about N/n times) are
      tested as observed, and N is where p first falls below alpha as bisection finds it
      (below alpha at N, not at N - 1: p falls as N grows, up to wiggles of the stretching
      that bisection does not chase) while the stretched cases hold at most
      :data:`~._paired.SIGN_FLIP_EXACT_MAX` nonzero deltas, where the test's discreteness
      matters. Beyond, the normal approximation of the sign-flip distribution:
      ``N = ceil(z**2 * n * sum(d**2) / sum(d)**2)`` puts the observed mean delta at the
      one-sided alpha point of a null variance of ``N * mean(d**2)``, ``z`` being the normal
      ``1 - alpha`` quantile (and N is past the range searched).
    """
    from scipy.stats import norm

    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    n = len(a)
    if n == 0:
        return None
    z = float(norm.ppf(1 - alpha))
    if outcome and all(v in (0, 1) for v in (*a, *b)):
        up = sum(1 for x, y in zip(a, b) if x == 0 and y == 1)
        down = sum(1 for x, y in zip(a, b) if x == 1 and y == 0)
        if up == down:
            return None
        return _discordant_needed(max(up, down), min(up, down), n, alpha, z)
    deltas = sorted(round_sig(y - x) for x, y in zip(a, b))
    total = math.fsum(deltas)
    if round_sig(total) == 0:
        return None
    normal = math.ceil(z * z * n * math.fsum(d * d for d in deltas) / (total * total))
    nonzero = sum(1 for d in deltas if d != 0)
    searched = SIGN_FLIP_EXACT_MAX * n // nonzero  # stretched this far, about 16 deltas are nonzero
    while searched > n and sum(1 for i in range(searched) if deltas[i * n // searched]) > SIGN_FLIP_EXACT_MAX:
        searched -= 1
    if searched <= n:
        return max(n + 1, normal)
    down = total < 0

    def shown(size: int) -> bool:
        flips = SignFlips([deltas[i * n // size] for i in range(size)])
        return (flips.p_down() if down else flips.p_up()) < alpha

    if not shown(searched):
        return max(searched + 1, normal)
    low, high = n, searched  # not shown at ``low`` (what was observed), shown at ``high``
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if shown(mid) else (mid, high)
    return high


def _discordant_needed(k: int, l: int, n: int, alpha: float, z: float) -> int:
    import numpy as np
    from scipy.stats import binom

    normal = math.ceil(z * z * n * (k + l) / (k - l) ** 2)
    if normal > _EXACT_SEARCH_MAX:
        return normal
    start = n + 1
    while True:
        stop = max(2 * start, start + 64)
        size = np.arange(start, stop, dtype=np.int64)
        kk = np.floor(k * size / n + 0.5)
        ll = np.floor(l * size / n + 0.5)
        p = binom.sf(kk - 1, kk + ll, 0.5)
        hits = np.flatnonzero(p < alpha)
        if hits.size:
            return int(size[hits[0]])
        start = stop
