"""Paired statistics for comparing two versions of an agent case by case.

Two experiments are paired by case: ``a[i]`` and ``b[i]`` are the same case's values under
version A and version B (repeats averaged before they get here). ``delta = mean(b - a)``.

- **Interval**: the 95% paired bootstrap percentile interval of the mean delta: the pairs
  are resampled with replacement ``resamples`` times (>= 10,000) from a generator seeded
  with ``seed``, so the same input always gives the same interval.
- **p-value**: for pass/fail with one run per case on each side, the exact McNemar test
  (a two-sided binomial test of the discordant pairs against 1/2: ``binomtest(b_fails,
  discordant)``); otherwise the Wilcoxon signed-rank test of the deltas (two-sided, zero
  deltas dropped; all deltas zero -> p = 1).
- **Effect size**: for pass/fail the risk difference (the delta itself: the change in pass
  rate); otherwise the matched-pairs rank-biserial correlation ``(W+ - W-) / (W+ + W-)`` of
  the nonzero deltas' ranks, in [-1, 1] (0 when every delta is zero), which goes with the
  Wilcoxon test and does not depend on the metric's unit.
- **Verdict**: ``regressed`` when the interval lies wholly on the worse side of 0 and
  ``p < alpha``; ``improved`` symmetrically; else ``unchanged``. The worse side is below 0
  for a metric where higher is better, above 0 for latency, tokens and cost.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported on first use: importing evaluators stays light
    import numpy as np

BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 20_240_901
_BLOCK = 2_000  # resamples drawn at once (bounded memory for many cases)


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """One metric compared over paired cases (rules in the module doc)."""

    n: int
    a: float | None  # mean of A over the paired cases
    b: float | None
    delta: float | None  # mean of b - a
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    test: str | None  # "mcnemar_exact" | "wilcoxon"
    effect_size: float | None
    verdict: str  # "improved" | "regressed" | "unchanged"


def _pairs(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"paired samples must have the same length, got {len(a)} and {len(b)}")
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (np.isfinite(xa).all() and np.isfinite(xb).all()):
        raise ValueError("paired samples must be finite numbers")
    return xa, xb


def bootstrap_ci(deltas: Sequence[float], *, resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = 0.95,
                 seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean of ``deltas``; None for no deltas."""
    import numpy as np

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    d = np.asarray(deltas, dtype=float)
    if d.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    for start in range(0, resamples, _BLOCK):
        count = min(_BLOCK, resamples - start)
        means[start:start + count] = d[rng.integers(0, d.size, size=(count, d.size))].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    # Rounding noise must not put a constant delta outside its own interval.
    return float(min(low, d.mean())), float(max(high, d.mean()))


def mcnemar_exact(a_passed: Sequence[bool], b_passed: Sequence[bool]) -> float:
    """Two-sided exact McNemar p-value of paired pass/fail outcomes (1.0 with no discordant pair)."""
    from scipy.stats import binomtest

    if len(a_passed) != len(b_passed):
        raise ValueError("paired samples must have the same length")
    b_fails = sum(1 for x, y in zip(a_passed, b_passed) if x and not y)
    b_passes = sum(1 for x, y in zip(a_passed, b_passed) if y and not x)
    discordant = b_fails + b_passes
    if discordant == 0:
        return 1.0
    return float(binomtest(b_fails, discordant, 0.5).pvalue)


def wilcoxon_p(deltas: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value of ``deltas`` (zeros dropped; all zero -> 1.0)."""
    import numpy as np

    from scipy.stats import wilcoxon

    d = np.asarray(deltas, dtype=float)
    d = d[d != 0]
    if d.size == 0:
        return 1.0
    return float(wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)


def rank_biserial(deltas: Sequence[float]) -> float:
    """Matched-pairs rank-biserial correlation ``(W+ - W-) / (W+ + W-)`` (0 when all deltas are 0)."""
    import numpy as np

    from scipy.stats import rankdata

    d = np.asarray(deltas, dtype=float)
    d = d[d != 0]
    if d.size == 0:
        return 0.0
    ranks = rankdata(np.abs(d))
    plus, minus = ranks[d > 0].sum(), ranks[d < 0].sum()
    return float((plus - minus) / (plus + minus))


def verdict(ci: tuple[float, float] | None, p_value: float | None, *, alpha: float, higher_is_better: bool) -> str:
    """``regressed`` / ``improved`` / ``unchanged`` (rule in the module doc)."""
    if ci is None or p_value is None or not p_value < alpha:
        return "unchanged"
    low, high = ci
    if (high < 0) if higher_is_better else (low > 0):
        return "regressed"
    if (low > 0) if higher_is_better else (high < 0):
        return "improved"
    return "unchanged"


def compare_paired(a: Sequence[float], b: Sequence[float], *, higher_is_better: bool, binary: bool = False,
                   one_run_per_case: bool = True, alpha: float = 0.05, resamples: int = BOOTSTRAP_RESAMPLES,
                   seed: int = BOOTSTRAP_SEED) -> PairedComparison:
    """Compare paired values of one metric (``binary``: pass rates, 0/1 per run; with
    ``one_run_per_case`` the exact McNemar test applies). Empty input: n = 0, unchanged."""
    import numpy as np

    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    xa, xb = _pairs(a, b)
    n = int(xa.size)
    if n == 0:
        return PairedComparison(0, None, None, None, None, None, None, None, None, "unchanged")
    deltas = xb - xa
    ci = bootstrap_ci(deltas, resamples=resamples, seed=seed)
    exact = binary and one_run_per_case and bool(np.isin(xa, (0, 1)).all() and np.isin(xb, (0, 1)).all())
    if exact:
        p, test = mcnemar_exact(xa.astype(bool), xb.astype(bool)), "mcnemar_exact"
    else:
        p, test = wilcoxon_p(deltas), "wilcoxon"
    effect = float(deltas.mean()) if binary else rank_biserial(deltas)
    return PairedComparison(
        n=n, a=float(xa.mean()), b=float(xb.mean()), delta=float(deltas.mean()),
        ci_low=ci[0] if ci else None, ci_high=ci[1] if ci else None, p_value=p, test=test,
        effect_size=effect, verdict=verdict(ci, p, alpha=alpha, higher_is_better=higher_is_better),
    )


def finite_or_none(value: float | None) -> float | None:
    """A number JSON can hold: NaN and infinities become None."""
    return value if value is None or math.isfinite(value) else None
