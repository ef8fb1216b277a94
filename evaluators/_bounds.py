"""Bounds on a mean delta that assume neither a shift nor a symmetric spread of the deltas.

The sign-flip interval reads the deltas as one shift of every case; when a change is sparse
(5% of cases break, the rest are unchanged) most deltas are 0 and that interval collapses
towards [0, 0], so equivalence would be claimed from cases that never saw the change. The
bounds here hold for any distribution of the deltas, and hold at every number of cases at
once (time-uniform), so they also serve a comparison that is looked at again as cases
arrive (``--sequential``).

- **Bounded metrics** (values in [0, 1], so deltas in [-1, 1]): a confidence sequence by
  betting (Waudby-Smith & Ramdas, "Estimating means of bounded random variables by
  betting", JRSS-B 2023). With ``x = (d + 1) / 2`` in [0, 1] and a candidate mean ``m``, the
  wealth of a gambler who bets a fixed fraction ``c`` that the mean is above ``m``,
  ``prod_i ((1 - c) + c * x_i / m)``, is a nonnegative martingale when the mean is ``m``;
  averaged over a fixed grid of fractions (their "diversified Kelly" bettor, half the
  weight on the boldest bet, which sparse changes need, the rest spread over 15 more
  cautious ones) it is one still, and by Ville's inequality it reaches ``1 / alpha`` with
  probability at most alpha, ever. The lower bound is the smallest ``m`` whose wealth stays
  below ``1 / alpha`` (the upper bound the same with ``1 - x``). The wealth depends on the
  deltas only as a set, so the order of the cases does not matter, and one p-value per
  direction comes with it: ``1 / wealth`` at ``m = 1/2`` (no change), valid however often
  it is looked at.
- **Unbounded metrics** (latency, tokens, cost, a score outside [0, 1]): no interval for
  the mean of an unbounded variable can be valid for every distribution at a finite n
  (Bahadur & Savage 1956): a rare, large change the cases did not see cannot be ruled out.
  So the bound rests on the central limit theorem: at a fixed n the Student t interval; for
  repeated looks the asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy
  & Ramdas ("Time-uniform central limit theory and asymptotic confidence sequences", Ann.
  Statist. 2024), the one-sided normal mixture boundary of Howard, Ramdas, McAuliffe &
  Sekhon ("Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist.
  2021) with the deltas' root mean square as their scale (the uncentred second moment: the
  sign-flip test's own null variance, never 0 while a delta is not, and no smaller than the
  standard deviation, so the bounds err wide).

Each function gives one-sided bounds at level ``alpha`` each (an interval at ``1 - 2 *
alpha``); numpy and scipy are imported on first use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

BET_FRACTIONS = 16  # fractions 0.995 * 2**(-j/2), j = 0..15: from all-in to about half a percent
_BISECTIONS = 64
#: The time the asymptotic confidence sequence is tightest at (its mixture's width is tuned
#: for about this many cases; it stays valid at every other).
SEQUENCE_TUNED_FOR = 100


@lru_cache(maxsize=1)
def _bets() -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    fractions = 0.995 * 2.0 ** (-np.arange(BET_FRACTIONS) / 2)
    weights = np.full(BET_FRACTIONS, 0.5 / (BET_FRACTIONS - 1))
    weights[0] = 0.5
    return fractions, np.log(weights)


class Betting:
    """The betting confidence sequence of the mean of values in [0, 1] (module doc)."""

    def __init__(self, x: Sequence[float]) -> None:
        import numpy as np

        values = np.clip(np.asarray(x, dtype=float), 0.0, 1.0)
        if not np.isfinite(values).all():
            raise ValueError("values must be finite numbers")
        self.n = int(values.size)
        self.mean = float(values.mean()) if self.n else 0.5
        self._values, self._counts = np.unique(values, return_counts=True)

    def log_wealth_above(self, m: float) -> float:
        """log of the wealth that bet the mean is above ``m`` (0 < m < 1)."""
        return self._log_wealth(self._values, m)

    def log_wealth_below(self, m: float) -> float:
        return self._log_wealth(1.0 - self._values, 1.0 - m)

    def _log_wealth(self, values: np.ndarray, m: float) -> float:
        import numpy as np

        if self.n == 0:
            return 0.0
        fractions, log_weights = _bets()
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            factors = np.log((1 - fractions)[:, None] + fractions[:, None] * (values / m)[None, :])
            logs = log_weights + factors @ self._counts
            top = float(logs.max())
            if not math.isfinite(top):
                return top
            return top + math.log(float(np.exp(logs - top).sum()))

    def p_below(self, m: float) -> float:
        """Evidence that the mean is below ``m``: 1 / wealth, valid at every look."""
        return min(1.0, math.exp(-self.log_wealth_below(m)))

    def p_above(self, m: float) -> float:
        return min(1.0, math.exp(-self.log_wealth_above(m)))

    def bounds(self, alpha: float) -> tuple[float, float]:
        """One-sided bounds at ``alpha`` each: the candidate means whose wealth stays below
        ``1 / alpha`` both ways (each wealth is monotone in ``m``: bisection)."""
        if self.n == 0:
            return 0.0, 1.0
        level = math.log(1 / alpha)
        low = self._lower(self._values, self.mean, level)
        high = 1.0 - self._lower(1.0 - self._values, 1.0 - self.mean, level)
        return low, high

    def _lower(self, values: np.ndarray, mean: float, level: float) -> float:
        """The smallest ``m`` the bet on "above m" does not reject: it rejects every ``m``
        below it (the wealth falls as ``m`` rises) and never the mean itself (there the
        wealth is at most 1, by the inequality of arithmetic and geometric means)."""
        tiny = math.nextafter(0.0, 1.0)
        if mean <= 0.0 or self._log_wealth(values, tiny) < level:
            return 0.0
        lo, hi = tiny, mean  # rejected at lo, not at hi
        for _ in range(_BISECTIONS):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            lo, hi = (mid, hi) if self._log_wealth(values, mid) >= level else (lo, mid)
        return hi


def betting_delta(deltas: Sequence[float], alpha: float) -> tuple[float, float, float, float]:
    """For deltas in [-1, 1]: the betting bounds of their mean at ``alpha`` each, and the
    p-values that the mean is below / above 0 (``p_down``, ``p_up``), one consistent with
    the other: ``p_down < alpha`` exactly when the upper bound is below 0."""
    bet = Betting([(float(d) + 1) / 2 for d in deltas])
    low, high = bet.bounds(alpha)
    p_down, p_up = bet.p_below(0.5), bet.p_above(0.5)
    low, high = 2 * low - 1, 2 * high - 1
    # Where the bisection and the direct p-value meet at 0 (float rounding), the p-value decides.
    high = min(high, -math.ulp(0.0)) if p_down < alpha else max(high, 0.0)
    low = max(low, math.ulp(0.0)) if p_up < alpha else min(low, 0.0)
    return low, high, p_down, p_up


def student_t(deltas: Sequence[float], alpha: float) -> tuple[float, float]:
    """The Student t bounds of the mean delta at ``alpha`` each (infinite below 2 cases)."""
    from scipy.stats import t

    n = len(deltas)
    if n < 2:
        return -math.inf, math.inf
    mean = math.fsum(deltas) / n
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in deltas) / (n - 1))
    half = float(t.ppf(1 - alpha, n - 1)) * sd / math.sqrt(n)
    return mean - half, mean + half


def _mixture_rho(alpha: float) -> float:
    """The normal mixture's precision, tuned for :data:`SEQUENCE_TUNED_FOR` cases
    (Waudby-Smith et al. 2024, their choice of rho)."""
    two_log = 2 * math.log(1 / alpha)
    return math.sqrt((two_log + math.log(two_log + 1)) / SEQUENCE_TUNED_FOR)


def _log_mixture(s: float, n: int, rho: float) -> float:
    """log of the one-sided normal mixture martingale at standardised sum ``s`` after ``n``
    cases: ``2 rho / sqrt(n + rho^2) exp(s^2 / (2 (n + rho^2))) Phi(s / sqrt(n + rho^2))``."""
    from scipy.special import log_ndtr

    v = n + rho * rho
    return math.log(2 * rho) - 0.5 * math.log(v) + s * s / (2 * v) + float(log_ndtr(s / math.sqrt(v)))


def _boundary(n: int, alpha: float, rho: float) -> float:
    """The standardised sum at which the mixture reaches ``1 / alpha`` (it rises with s)."""
    from scipy.optimize import brentq

    level = math.log(1 / alpha)
    high = 1.0
    while _log_mixture(high, n, rho) < level:
        high *= 2
    return float(brentq(lambda s: _log_mixture(s, n, rho) - level, -1.0 if _log_mixture(-1.0, n, rho) < level
                        else -high, high, xtol=1e-12))


def asymptotic_sequence(deltas: Sequence[float], alpha: float) -> tuple[float, float, float, float]:
    """For unbounded deltas: the asymptotic confidence sequence's bounds at ``alpha`` each
    and its p-values that the mean is below / above 0 (module doc), consistent with them."""
    n = len(deltas)
    if n == 0:
        return -math.inf, math.inf, 1.0, 1.0
    mean = math.fsum(deltas) / n
    scale = math.sqrt(math.fsum(d * d for d in deltas) / n)
    if scale == 0:
        return 0.0, 0.0, 1.0, 1.0
    rho = _mixture_rho(alpha)
    half = scale * _boundary(n, alpha, rho) / n
    standardised = n * mean / scale
    p_down = min(1.0, math.exp(-_log_mixture(-standardised, n, rho)))
    p_up = min(1.0, math.exp(-_log_mixture(standardised, n, rho)))
    low, high = mean - half, mean + half
    high = min(high, -math.ulp(0.0)) if p_down < alpha else max(high, 0.0)
    low = max(low, math.ulp(0.0)) if p_up < alpha else min(low, 0.0)
    return low, high, p_down, p_up
