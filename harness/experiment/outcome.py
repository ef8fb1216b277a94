"""What a comparison concluded, as data and as the JSON ``harness compare --json`` prints:
per metric (:class:`MetricComparison`), per candidate (:class:`Comparison`, the object of
the contract) and for several candidates against one baseline (:class:`Comparisons`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MetricComparison:
    """One metric compared (the keys of ``harness compare --json``, :meth:`to_dict`).
    ``p_worse``/``p_better`` are the test's one-sided p-values; ``p_value`` is the one of the
    reported direction (the smaller), Holm-adjusted when the gate is a family (``holm``).
    ``ci_low``/``ci_high`` at ``ci_level`` (the Holm level when Holm decided);
    ``eq_low``/``eq_high`` the equivalence interval ``no_change`` also needs.
    ``needed_cases``: for an inconclusive verdict, the paired cases that would show a change
    of the observed size, or of the margin if that is larger, with 80% power. ``cases``:
    the paired cases with a reading of the metric on some side, ``cases_lost`` those with no
    value left on one side; ``runs_missing``: runs per side whose reading is not a value;
    ``missing_data_fails``: a gated metric that lost too many cases fails the gate."""

    name: str
    higher_is_better: bool
    gated: bool
    n: int
    a: float | None
    b: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    p_worse: float | None
    p_better: float | None
    p_value: float | None
    test: str | None
    margin: float | None
    effect_size: float | None
    verdict: str
    needed_cases: int | None
    holm: bool = False
    eq_low: float | None = None
    eq_high: float | None = None
    eq_method: str | None = None
    cases: int = 0
    cases_lost: int = 0
    runs_missing: tuple[int, int] = (0, 0)
    missing_data_fails: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The metric as ``harness compare --json`` prints it; an interval end that cannot be
        bounded (infinite) is null."""
        return {"name": self.name, "higher_is_better": self.higher_is_better, "gated": self.gated, "n": self.n,
                "a": self.a, "b": self.b, "delta": self.delta, "ci_low": _finite(self.ci_low),
                "ci_high": _finite(self.ci_high), "ci_level": self.ci_level, "p_worse": self.p_worse,
                "p_better": self.p_better, "p_value": self.p_value, "test": self.test, "margin": self.margin,
                "effect_size": self.effect_size, "verdict": self.verdict, "needed_cases": self.needed_cases,
                "eq_low": _finite(self.eq_low), "eq_high": _finite(self.eq_high), "eq_method": self.eq_method,
                "cases": self.cases, "cases_lost": self.cases_lost,
                "runs_missing": {"a": self.runs_missing[0], "b": self.runs_missing[1]},
                "missing_data_fails": self.missing_data_fails}


@dataclass(frozen=True)
class Comparison:
    """Experiment ``b`` against experiment ``a``: per metric, ``delta = b - a``."""

    a: str
    b: str
    alpha: float
    paired_cases: int
    a_only: tuple[str, ...]
    b_only: tuple[str, ...]
    gate: tuple[str, ...]
    warnings: tuple[str, ...]
    metrics: tuple[MetricComparison, ...]
    sequential: bool = False
    strict: bool = False
    #: the agreement with people of the scores that have labels (harness.experiment.instruments)
    agreements: tuple[dict[str, Any], ...] = ()
    #: a judge's preference, case by case (harness.experiment.pairwise): it gates when present
    pairwise: Any = None

    @property
    def regressed(self) -> bool:
        """True when the gate fails (``--fail-on-regression``): a gated metric regressed, or
        lost too many cases to missing data (:attr:`missing_data`), or the pairwise judge
        prefers A."""
        return (any(m.gated and m.verdict == "regressed" for m in self.metrics) or self.missing_data
                or bool(self.pairwise is not None and self.pairwise.regressed))

    @property
    def missing_data(self) -> bool:
        """True when a gated metric lost too many of its cases to missing data."""
        return any(m.missing_data_fails for m in self.metrics)

    @property
    def inconclusive(self) -> bool:
        """True when a gated metric is inconclusive (``--fail-on-inconclusive``), or the pairwise preference is."""
        return any(m.gated and m.verdict == "inconclusive" for m in self.metrics) or bool(
            self.pairwise is not None and self.pairwise.inconclusive)

    def metric(self, name: str) -> MetricComparison:
        return next(m for m in self.metrics if m.name == name)

    def to_dict(self) -> dict[str, Any]:
        """The object ``harness compare --json`` prints (the README's Evaluate your own agent shows it)."""
        return {"a": self.a, "b": self.b, "alpha": self.alpha, "paired_cases": self.paired_cases,
                "unpaired": {"a_only": list(self.a_only), "b_only": list(self.b_only)}, "gate": list(self.gate),
                "warnings": list(self.warnings), "metrics": [m.to_dict() for m in self.metrics],
                "regressed": self.regressed, "inconclusive": self.inconclusive, "missing_data": self.missing_data,
                "sequential": self.sequential, "strict": self.strict,
                **({"agreement": list(self.agreements)} if self.agreements else {}),
                **({"pairwise": self.pairwise.to_dict()} if self.pairwise is not None else {})}


@dataclass(frozen=True)
class Comparisons:
    """Several candidates against one baseline ``a``, their gated metrics one Holm family:
    one :class:`Comparison` per candidate, in the order given."""

    a: str
    comparisons: tuple[Comparison, ...]
    alpha: float
    gate: tuple[str, ...]

    @property
    def candidates(self) -> tuple[str, ...]:
        return tuple(c.b for c in self.comparisons)

    @property
    def regressed(self) -> bool:
        """True when the gate fails for some candidate."""
        return any(c.regressed for c in self.comparisons)

    @property
    def missing_data(self) -> bool:
        return any(c.missing_data for c in self.comparisons)

    @property
    def inconclusive(self) -> bool:
        return any(c.inconclusive for c in self.comparisons)

    def __getitem__(self, candidate: str) -> Comparison:
        return next(c for c in self.comparisons if c.b == candidate)

    def to_dict(self) -> dict[str, Any]:
        """``harness compare A B C --json``: the baseline, the candidates, each comparison."""
        return {"a": self.a, "candidates": list(self.candidates), "alpha": self.alpha, "gate": list(self.gate),
                "comparisons": [c.to_dict() for c in self.comparisons], "regressed": self.regressed,
                "inconclusive": self.inconclusive, "missing_data": self.missing_data}


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None

