"""The production monitor's metrics over a window of runs, with intervals, and the thresholds
that raise an alert only when the data show they are crossed.

A window's runs give (each figure with its two-sided interval at ``level``, 95% by default):

- **pass rate** = passed / runs with a pass (a run's pass is three-valued: unknown runs are left
  out and counted), with the exact (Clopper-Pearson) interval; its **status** is the seed's
  production monitor's: ``critical`` below 0.70, ``warning`` below 0.85, else ``healthy``
  (``insufficient_data`` without a pass);
- **error rate** = runs that did not complete / runs, exact interval;
- **latency** p50 and p95 (the median and 95th percentile of the runs' times, inclusive
  quantiles) with the distribution-free interval of a quantile from order statistics:
  ``[x(l), x(u)]``, the closest ranks that leave at most ``(1 - level) / 2`` of the binomial
  mass beyond each end, so it covers the true quantile with probability at least ``level``
  whatever the distribution (an end that needs more runs than there are is open: None);
- **cost**: the sum and the mean per priced run;
- each **score**'s mean over the runs that have a value (errors left out), with Student's t
  interval (none below two values).

A threshold is crossed "beyond its interval" when the whole interval lies on the wrong side:
``--min-pass 0.9`` alerts when the pass rate's upper end is below 0.9, ``--max-error-rate
0.05`` when the error rate's lower end is above 0.05. So a window of three runs with one
failure (error rate 0.33, interval [0.008, 0.91]) does not page anyone; thirty failures of a
hundred do.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ._checks import is_number, number, unit
from ._intervals import clopper_pearson

#: The seed's alert thresholds on the pass rate.
PASS_RATE_WARNING, PASS_RATE_CRITICAL = 0.85, 0.70
Status = Literal["healthy", "warning", "critical", "insufficient_data"]


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure with its interval (``low``/``high`` None where the data cannot bound it) over
    ``n`` values."""

    value: float | None
    low: float | None
    high: float | None
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "ci_low": self.low, "ci_high": self.high, "n": self.n}


@dataclass(frozen=True, slots=True)
class WindowMetrics:
    """The monitor's figures of one window (see the module doc)."""

    runs: int
    completed: int
    judged: int  # runs with a known pass
    passed: int
    pass_rate: Figure
    status: Status
    error_rate: Figure
    latency_p50_ms: Figure
    latency_p95_ms: Figure
    cost_total: float | None
    cost_per_run: Figure  # mean over priced runs
    scores: Mapping[str, Figure] = field(default_factory=dict)
    level: float = 0.95

    def figure(self, name: str) -> Figure | None:
        """A figure by the name ``--metric`` takes: pass_rate, error_rate, latency_p50_ms,
        latency_p95_ms, cost_per_run, or a score's name (its mean)."""
        if name in ("pass_rate", "error_rate", "latency_p50_ms", "latency_p95_ms", "cost_per_run"):
            return getattr(self, name)
        return self.scores.get(name)

    def to_dict(self) -> dict[str, Any]:
        return {"runs": self.runs, "completed": self.completed, "judged": self.judged, "passed": self.passed,
                "pass_rate": self.pass_rate.to_dict(), "status": self.status, "error_rate": self.error_rate.to_dict(),
                "latency_p50_ms": self.latency_p50_ms.to_dict(), "latency_p95_ms": self.latency_p95_ms.to_dict(),
                "cost_total": self.cost_total, "cost_per_run": self.cost_per_run.to_dict(),
                "scores": {name: f.to_dict() for name, f in self.scores.items()}, "ci_level": self.level}


def production_status(pass_rate: float | None, warning: float = PASS_RATE_WARNING,
                      critical: float = PASS_RATE_CRITICAL) -> Status:
    """``critical`` below ``critical``, ``warning`` below ``warning``, else ``healthy``;
    ``insufficient_data`` for None (the seed's production monitor)."""
    if pass_rate is None:
        return "insufficient_data"
    rate = unit("pass_rate", pass_rate)
    if unit("critical", critical) > unit("warning", warning):
        raise ValueError("the critical threshold must not exceed the warning threshold")
    if rate < critical:
        return "critical"
    if rate < warning:
        return "warning"
    return "healthy"


def proportion_figure(k: int, n: int, level: float = 0.95) -> Figure:
    """``k / n`` with its exact interval; value None (interval [0, 1]) for ``n = 0``."""
    low, high = clopper_pearson(k, n, level)
    return Figure(k / n if n else None, low if n else None, high if n else None, n)


def quantile_figure(values: Sequence[float], q: float, level: float = 0.95) -> Figure:
    """The ``q`` quantile of ``values`` (inclusive method) with its distribution-free
    interval from order statistics (module doc); empty values -> all None."""
    from scipy.stats import binom

    xs = sorted(number("value", v) for v in values)
    n = len(xs)
    if n == 0:
        return Figure(None, None, None, 0)
    value = _quantile(xs, unit("q", q))
    tail = (1 - level) / 2
    # Ranks (1-based) l and u with P(B <= l - 1) <= tail and P(B <= u - 1) >= 1 - tail, B ~ Bin(n, q):
    # then P(x(l) <= the quantile <= x(u)) >= level.
    cdf = binom.cdf(range(n + 1), n, q)
    lows = [rank for rank in range(1, n + 1) if cdf[rank - 1] <= tail]
    highs = [rank for rank in range(1, n + 1) if cdf[rank - 1] >= 1 - tail]
    return Figure(value, xs[lows[-1] - 1] if lows else None, xs[highs[0] - 1] if highs else None, n)


def _quantile(xs: Sequence[float], q: float) -> float:
    """The inclusive (linear) quantile of sorted ``xs``: ``statistics.quantiles(method="inclusive")``'s."""
    position = q * (len(xs) - 1)
    below = math.floor(position)
    above = min(below + 1, len(xs) - 1)
    return xs[below] + (xs[above] - xs[below]) * (position - below)


def mean_figure(values: Sequence[float], level: float = 0.95) -> Figure:
    """The mean with Student's t interval (no interval below two values)."""
    from scipy.stats import t

    xs = [number("value", v) for v in values]
    n = len(xs)
    if n == 0:
        return Figure(None, None, None, 0)
    mean = math.fsum(xs) / n
    if n < 2:
        return Figure(mean, None, None, 1)
    half = float(t.ppf(1 - (1 - level) / 2, n - 1)) * statistics.stdev(xs) / math.sqrt(n)
    return Figure(mean, mean - half, mean + half, n)


def window_metrics(runs: Sequence[Mapping[str, Any]], scores: Sequence[Mapping[str, Any]] = (), *,
                   level: float = 0.95, warning: float = PASS_RATE_WARNING,
                   critical: float = PASS_RATE_CRITICAL) -> WindowMetrics:
    """The monitor's figures of the ``runs`` of one window (records with ``status``,
    ``passed`` 1/0/None, ``total_time_ms``, ``total_cost``) and their ``scores`` (records with
    ``name``, ``value``, ``error``); see the module doc."""
    if not 0 < level < 1:
        raise ValueError(f"a confidence level is between 0 and 1, got {level}")
    n = len(runs)
    completed = sum(r.get("status") == "completed" for r in runs)
    passes = [bool(r["passed"]) for r in runs if r.get("passed") is not None]
    pass_rate = proportion_figure(sum(passes), len(passes), level)
    latencies = [float(r["total_time_ms"]) for r in runs if is_number(r.get("total_time_ms"))
                 and math.isfinite(r["total_time_ms"])]
    costs = [float(r["total_cost"]) for r in runs if is_number(r.get("total_cost")) and math.isfinite(r["total_cost"])]
    by_name: dict[str, list[float]] = {}
    for s in scores:
        value = s.get("value")
        if s.get("error") is None and is_number(value) and math.isfinite(value):
            by_name.setdefault(str(s["name"]), []).append(float(value))
    return WindowMetrics(
        runs=n, completed=completed, judged=len(passes), passed=sum(passes), pass_rate=pass_rate,
        status=production_status(pass_rate.value, warning, critical),
        error_rate=proportion_figure(n - completed, n, level),
        latency_p50_ms=quantile_figure(latencies, 0.5, level), latency_p95_ms=quantile_figure(latencies, 0.95, level),
        cost_total=math.fsum(costs) if costs else None, cost_per_run=mean_figure(costs, level),
        scores={name: mean_figure(values, level) for name, values in sorted(by_name.items())}, level=level)


@dataclass(frozen=True, slots=True)
class Alert:
    """A threshold checked against a window's figure: ``crossed`` when the figure's whole
    interval lies beyond it (``bound`` is ``min`` or ``max``); ``value`` None when the window
    has no data for it."""

    metric: str
    bound: Literal["min", "max"]
    threshold: float
    value: float | None
    low: float | None
    high: float | None
    crossed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "bound": self.bound, "threshold": self.threshold, "value": self.value,
                "ci_low": self.low, "ci_high": self.high, "crossed": self.crossed}


def check_threshold(metrics: WindowMetrics, metric: str, *, minimum: float | None = None,
                    maximum: float | None = None) -> list[Alert]:
    """``metric`` of a window against a lower and/or upper threshold (module doc). An open
    interval end (too few runs) never crosses: the data cannot show it."""
    found = metrics.figure(metric)
    figure = found if found is not None else Figure(None, None, None, 0)
    out = []
    if minimum is not None:
        limit = number("threshold", minimum)
        crossed = figure.value is not None and figure.high is not None and figure.high < limit
        out.append(Alert(metric, "min", limit, figure.value, figure.low, figure.high, crossed))
    if maximum is not None:
        limit = number("threshold", maximum)
        crossed = figure.value is not None and figure.low is not None and figure.low > limit
        out.append(Alert(metric, "max", limit, figure.value, figure.low, figure.high, crossed))
    return out
