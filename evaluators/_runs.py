"""Statistics over repeated runs: aggregates, letter grades, composite score,
cost of pass, tier uplift, and the unbiased pass@k / pass^k estimators."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._checks import non_negative, number, unit

#: (grade, lowest score) from best to worst; below the last threshold is "F".
GRADES: tuple[tuple[str, float], ...] = (("A", 0.95), ("B", 0.85), ("C", 0.75), ("D", 0.65))


@dataclass(frozen=True, slots=True)
class Statistics:
    median: float
    mean: float
    mode: float
    min: float
    max: float
    std_dev: float
    count: int


def _values(values: Sequence[Any]) -> list[float]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"values must be a list of numbers, got {values!r}")
    out = [number(f"values[{i}]", v) for i, v in enumerate(values)]
    if not out:
        raise ValueError("cannot aggregate an empty list of values")
    return out


def _midpoint(a: float, b: float) -> float:
    """``(a + b) / 2`` without overflowing when ``a + b`` passes the float range."""
    total = a + b
    return total / 2 if math.isfinite(total) else a / 2 + b / 2


def aggregate(values: Sequence[float]) -> Statistics:
    """Median, mean, mode, min, max, population std and count of repeated-run values.

    Median: middle value, or the mean of the two middle values for an even count. Mode:
    most frequent value, the smallest one on a tie. ``std_dev = sqrt(Σ(v − mean)²/n)``
    (population: all runs are observed, not sampled). Mean and std are computed exactly
    and rounded once (``statistics.mean`` / ``statistics.pstdev``), so equal values have
    std 0 and a spread beyond ~1e154, whose squares pass the float range, is still
    computed (``[1e200, -1e200]`` -> 1e200). Empty list, NaN or infinite values ->
    ValueError (an aggregate of nothing is not a number).
    """
    xs = sorted(_values(values))
    n = len(xs)
    median = xs[n // 2] if n % 2 else _midpoint(xs[n // 2 - 1], xs[n // 2])
    mean, std = statistics.mean(xs), statistics.pstdev(xs)
    counts = Counter(xs)
    top = max(counts.values())
    mode = min(v for v, c in counts.items() if c == top)
    return Statistics(median, mean, mode, xs[0], xs[-1], std, n)


def _finite(name: str, value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{name} is beyond the float range (about 1.8e308)")
    return value


def population_variance(values: Sequence[float]) -> float:
    """``Σ(x − μ)² / n`` (the pass-rate and cost variances across tiers). Empty, NaN
    or infinite values, or a variance beyond the float range (a spread above ~1e154) ->
    ValueError."""
    try:
        return _finite("the variance", aggregate(values).std_dev ** 2)
    except OverflowError:
        raise ValueError("the variance is beyond the float range (about 1.8e308)") from None


def cost_delta(costs: Sequence[float]) -> float:
    """``max(costs) − min(costs)``: spread between the most and least expensive tiers.
    Empty, NaN or infinite costs, or a spread beyond the float range -> ValueError."""
    stats = aggregate(costs)
    return _finite("the cost spread", stats.max - stats.min)


def letter_grade(score: float) -> str:
    """A >= 0.95, B >= 0.85, C >= 0.75, D >= 0.65, else F (score in [0, 1])."""
    x = unit("score", score)
    return next((grade for grade, low in GRADES if x >= low), "F")


def composite_score(pass_rate: float, impl_rate: float, pass_weight: float = 0.5, impl_weight: float = 0.5) -> float:
    """``(pass_rate·pass_weight + impl_rate·impl_weight) / (pass_weight + impl_weight)``;
    rates in [0, 1], weights >= 0 with a positive sum."""
    p, i = unit("pass_rate", pass_rate), unit("impl_rate", impl_rate)
    wp, wi = non_negative("pass_weight", pass_weight), non_negative("impl_weight", impl_weight)
    if wp + wi == 0:
        raise ValueError("pass_weight + impl_weight must be > 0")
    return min(1.0, (p * wp + i * wi) / (wp + wi))


def cost_of_pass(cost_usd: float, pass_rate: float) -> float:
    """Expected cost of one passing run: ``cost_usd / pass_rate``; ``inf`` when the pass
    rate is 0 (it never passes). Cost >= 0, pass rate in [0, 1]."""
    cost = non_negative("cost_usd", cost_usd)
    rate = unit("pass_rate", pass_rate)
    return math.inf if rate == 0 else cost / rate


def tier_uplift(tier_score: float, t0_score: float) -> float:
    """Relative improvement over the T0 baseline: ``(tier − t0) / t0``. A zero baseline has
    no relative uplift: ValueError."""
    tier, t0 = number("tier_score", tier_score), number("t0_score", t0_score)
    if t0 == 0:
        raise ValueError("tier_uplift is undefined for a zero baseline (t0_score = 0)")
    return (tier - t0) / t0


def _nck(n: Any, c: Any, k: Any) -> tuple[int, int, int]:
    for label, v in (("n", n), ("c", c), ("k", k)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"{label} must be an integer, got {v!r}")
    if n < 1 or not 0 <= c <= n:
        raise ValueError(f"need n >= 1 and 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")
    return n, c, k


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n runs with c passes: ``1 − C(n−c, k) / C(n, k)`` (Chen et al.
    2021), the chance that at least one of k runs drawn without replacement passes.
    1.0 when n − c < k. Needs 1 <= k <= n and 0 <= c <= n."""
    n, c, k = _nck(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k from n runs with c passes: ``C(c, k) / C(n, k)``, the chance that all k runs
    drawn without replacement pass (reliability; tau-bench). Needs 1 <= k <= n."""
    n, c, k = _nck(n, c, k)
    return math.comb(c, k) / math.comb(n, k)
