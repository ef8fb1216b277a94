"""How many paired cases a comparison needs: a planning figure with its power.

"The n at which this effect would just be significant" is a coin flip: rerun there and the
change is shown about half the time. :func:`needed_cases` is instead the number of paired
cases at which the one-sided test would show the change with probability :data:`POWER`
(80%), for an effect of the observed size, or of the margin when the observed one is
smaller (a change too small to matter is not worth planning for, and a delta of 0 still
leaves the margin to rule out).

The cases seen are a pilot: their effect and spread are estimates, and a plan that takes
them at face value promises too few cases whenever the pilot was lucky (power is lost
faster by an overestimated effect than it is gained by an underestimated one: planned at
the observed values, reruns from the same truth showed the change in only 52-74% of
comparisons). So the effect is taken half a standard error towards 0 and the spread at the
matching upper confidence limit (:data:`PLANNING_BOUND`: one-sided 69% bounds), the
pilot-variance rule of Browne ("On the use of a pilot sample for sample size
determination", Statistics in Medicine 1995) applied to both:

- **0/1 outcomes**: cases move the planned way with probability ``p`` and the other way
  with ``q`` (``p - q`` the effect, ``p + q`` the share of discordant cases: its
  Clopper-Pearson upper bound, or the effect if that is more); the power of the exact
  binomial test on the discordant pairs is summed exactly over their number:
  ``sum_D P(D) * P(Binomial(D, p / (p + q)) >= c_D)`` with ``c_D`` the test's critical
  count, and N is the smallest with power >= 80% (power rises with N up to the saw-teeth of
  a discrete test, which bisection does not chase).
- **Everything else** (the sign-flip test): its statistic ``sum(d)`` against a null
  variance ``sum(d**2)``, so for N cases with deltas of mean ``mu`` and variance ``s2``,
  ``N = ((t_a * sqrt(s2 + mu**2) + t_b * sqrt(s2)) / mu)**2``, with ``t_a`` and ``t_b``
  Student quantiles at ``1 - alpha`` and at the power on N - 1 degrees of freedom (iterated
  to a fixed point: the small-sample correction) and never fewer cases than a sign-flip test
  can reject with (``2**-N < alpha``). ``s2`` is the deltas' variance at its chi-square
  upper bound; when planning for the margin of a bounded metric, at least that of the
  sparsest change of that size (a share ``margin`` of the cases dropping by 1:
  ``margin * (1 - margin)``), since the cases seen say nothing of how a change they did not
  show would spread.

The figure is validated by simulation in ``benchmarks/compare_calibration.py``: rerun at N
from the same truth, the change is shown in at least 75% of comparisons.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real

from ._exact import exact, exact_sum

POWER = 0.8
PLANNING_BOUND = 0.5  # standard errors the planned effect and spread are moved towards caution
_EXACT_SEARCH_MAX = 200_000  # cases searched with the exact binomial power; the normal figure above


def needed_cases(a: Sequence[Real], b: Sequence[Real], *, alpha: float, outcome: bool = False,
                 bounded: bool = False, margin: float | None = None, power: float = POWER) -> int | None:
    """Paired cases for ``power`` to show a change like the observed one (module doc); at
    least one more than observed; None when there is nothing to plan for (no case, or no
    margin and an effect whose cautious bound is 0)."""
    from scipy.stats import beta, chi2, norm

    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    n = len(a)
    if n == 0:
        return None
    xa, xb = [exact(v) for v in a], [exact(v) for v in b]
    deltas = [y - x for x, y in zip(xa, xb)]
    floats = [float(d) for d in deltas]
    mean = float(exact_sum(deltas) / n)
    spread = math.fsum((d - mean) ** 2 for d in floats) / (n - 1) if n > 1 else 0.0  # the deltas' variance
    effect = abs(mean) - PLANNING_BOUND * math.sqrt(spread / n)
    planned_margin = margin is not None and effect < margin
    if planned_margin:
        effect = float(margin)  # type: ignore[arg-type]
    if effect <= 0:
        return None
    level = float(norm.cdf(PLANNING_BOUND))  # the one-sided confidence of the bounds
    if outcome and all(v in (0, 1) for v in (*xa, *xb)):
        discordant = sum(1 for d in deltas if d != 0)
        rate = 1.0 if discordant == n else float(beta.ppf(level, discordant + 1, n - discordant))
        needed = _discordant_needed(min(1.0, max(rate, effect)), effect, alpha, power)
    else:
        variance = spread * (n - 1) / float(chi2.ppf(1 - level, n - 1)) if n > 1 else 0.0
        if planned_margin and bounded:
            variance = max(variance, effect * (1 - effect))
        needed = _sign_flip_needed(effect, variance, alpha, power)
    return max(needed, n + 1)


def _discordant_needed(rate: float, effect: float, alpha: float, power: float) -> int:
    """The fewest cases whose exact binomial test on discordant pairs reaches ``power``."""
    from scipy.stats import norm

    share = (rate + effect) / (2 * rate)  # of the discordant cases, those that moved the planned way
    z_a, z_b = float(norm.ppf(1 - alpha)), float(norm.ppf(power))
    normal = math.ceil(((z_a * math.sqrt(rate) + z_b * math.sqrt(rate - effect * effect)) / effect) ** 2)
    if normal > _EXACT_SEARCH_MAX:
        return normal
    high = max(normal, 1)
    while _binomial_power(high, rate, share, alpha) < power:
        high *= 2
    low = 0  # below power at low, at or above at high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if _binomial_power(mid, rate, share, alpha) >= power else (mid, high)
    return high


def _binomial_power(cases: int, rate: float, share: float, alpha: float) -> float:
    import numpy as np
    from scipy.stats import binom

    d = np.arange(cases + 1)
    critical = binom.isf(alpha, d, 0.5) + 1  # P(X >= c) <= alpha ...
    critical = np.where(binom.sf(critical - 1, d, 0.5) >= alpha, critical + 1, critical)  # ... and below it
    return float((binom.pmf(d, cases, rate) * binom.sf(critical - 1, d, share)).sum())


def _sign_flip_needed(effect: float, variance: float, alpha: float, power: float) -> int:
    from scipy.stats import norm, t

    fewest = math.ceil(math.log2(1 / alpha) + 1e-12)  # 2**-N < alpha: all N deltas one way
    second = variance + effect * effect

    def size(q_a: float, q_b: float) -> float:
        return ((q_a * math.sqrt(second) + q_b * math.sqrt(variance)) / effect) ** 2

    cases = max(fewest, math.ceil(size(float(norm.ppf(1 - alpha)), float(norm.ppf(power)))))
    for _ in range(50):
        again = max(fewest, math.ceil(size(float(t.ppf(1 - alpha, cases - 1)), float(t.ppf(power, cases - 1)))))
        if again == cases:
            break
        cases = again
    return cases
