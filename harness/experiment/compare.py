"""Two experiments compared case by case, with the paired statistics of :mod:`evaluators`.

Runs are paired by ``case_id``; a case's repeats are averaged first (its pass rate is the
share of its runs that passed). Cases in one experiment only are listed and left out. Per
metric, only the paired cases where both sides have a value count (a case without an answer
check has no answer score). A metric no paired case has a value for is left out, unless it
was asked for by name (then it is reported with n = 0, ``unchanged``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from evaluators import BOOTSTRAP_RESAMPLES, PairedComparison, compare_paired

from .runner import ExperimentError

#: Metric -> whether higher is better, in the order they are reported.
METRICS: dict[str, bool] = {
    "pass_rate": True, "answer_score": True, "tool_f1": True, "trajectory_match": True,
    "latency_ms": False, "total_tokens": False, "total_cost": False,
}
#: The metrics whose regression fails the gate (``--fail-on-regression``).
QUALITY_METRICS = ("pass_rate", "answer_score", "tool_f1", "trajectory_match")
_CHUNK = 500  # run ids per query


class UnknownExperiment(ExperimentError):
    """An experiment name the store has no runs of."""


@dataclass(frozen=True)
class MetricComparison:
    name: str
    higher_is_better: bool
    result: PairedComparison

    @property
    def verdict(self) -> str:
        return self.result.verdict

    def to_dict(self) -> dict[str, Any]:
        r = self.result
        return {"name": self.name, "higher_is_better": self.higher_is_better, "n": r.n, "a": r.a, "b": r.b,
                "delta": r.delta, "ci_low": r.ci_low, "ci_high": r.ci_high, "p_value": r.p_value, "test": r.test,
                "effect_size": r.effect_size, "verdict": r.verdict}


@dataclass(frozen=True)
class Comparison:
    """Experiment ``b`` against experiment ``a``: per metric, ``delta = b - a``."""

    a: str
    b: str
    alpha: float
    paired_cases: int
    a_only: tuple[str, ...]
    b_only: tuple[str, ...]
    metrics: tuple[MetricComparison, ...]

    @property
    def regressed(self) -> bool:
        """True when a quality metric (pass rate, answer score, tool F1, trajectory) regressed."""
        return any(m.name in QUALITY_METRICS and m.verdict == "regressed" for m in self.metrics)

    def metric(self, name: str) -> MetricComparison:
        return next(m for m in self.metrics if m.name == name)

    def to_dict(self) -> dict[str, Any]:
        """The object ``harness compare --json`` prints."""
        return {"a": self.a, "b": self.b, "alpha": self.alpha, "paired_cases": self.paired_cases,
                "unpaired": {"a_only": list(self.a_only), "b_only": list(self.b_only)},
                "metrics": [m.to_dict() for m in self.metrics], "regressed": self.regressed}


def compare_experiments(store: Any, a: str, b: str, *, alpha: float = 0.05,
                        metrics: Sequence[str] | None = None, resamples: int = BOOTSTRAP_RESAMPLES) -> Comparison:
    """Compare experiment ``b`` with ``a`` in ``store`` (see the module doc).
    :class:`UnknownExperiment` for a name without runs, :class:`ExperimentError` for a blank
    one; ValueError for an unknown metric."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    asked = list(dict.fromkeys(metrics or ()))
    unknown = [m for m in asked if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; metrics are {', '.join(METRICS)}")
    for name in (a, b):
        if not isinstance(name, str) or not name.strip():
            raise ExperimentError(f"an experiment name must be a text that is not blank, not {name!r}")
    values = {name: _case_values(store, name) for name in dict.fromkeys((a, b))}
    va, vb = values[a], values[b]
    paired = [case for case in va if case in vb]
    results = []
    for name in asked or METRICS:
        pairs = [(va[c][name], vb[c][name]) for c in paired if va[c][name] is not None and vb[c][name] is not None]
        if not pairs and not asked:
            continue
        one_each = all(va[c]["runs"] == 1 and vb[c]["runs"] == 1 for c in paired)
        result = compare_paired([p[0] for p in pairs], [p[1] for p in pairs], higher_is_better=METRICS[name],
                                binary=name == "pass_rate", one_run_per_case=one_each, alpha=alpha,
                                resamples=resamples)
        results.append(MetricComparison(name, METRICS[name], result))
    return Comparison(a=a, b=b, alpha=alpha, paired_cases=len(paired),
                      a_only=tuple(c for c in va if c not in vb), b_only=tuple(c for c in vb if c not in va),
                      metrics=tuple(results))


def _case_values(store: Any, experiment: str) -> dict[str, dict[str, Any]]:
    """Case -> the mean over its runs of every metric (None where no run has a value), and
    its number of runs; cases in the order their first run was written."""
    runs = list(store.rows("runs", columns=["run_id", "case_id", "passed", "status", "total_time_ms",
                                            "total_tokens", "total_cost"], where={"experiment": experiment}))
    if not runs:
        known = sorted({r["experiment"] for r in store.rows("runs", columns=["experiment"])} - {None})
        raise UnknownExperiment(f"no experiment {experiment!r} in the store"
                                + (f" (experiments: {', '.join(known[:10])}{' …' if len(known) > 10 else ''})"
                                   if known else " (it has no experiments)"))
    ids = [r["run_id"] for r in runs]
    f1 = {r["run_id"]: r["f1_score"] for r in _rows(store, "tool_selections", ids, ["run_id", "f1_score"])}
    metrics = {r["run_id"]: r for r in _rows(store, "agent_metrics", ids,
                                            ["run_id", "final_answer_quality", "trajectory_match"])}
    samples: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    counts: dict[str, int] = defaultdict(int)
    for run in runs:
        case = run["case_id"]
        if case is None:
            continue
        counts[case] += 1
        m = metrics.get(run["run_id"], {})
        passed = run["passed"] if run["passed"] is not None else int(run["status"] == "completed")
        for name, value in (("pass_rate", passed), ("answer_score", m.get("final_answer_quality")),
                            ("tool_f1", f1.get(run["run_id"])), ("trajectory_match", m.get("trajectory_match")),
                            ("latency_ms", run["total_time_ms"]), ("total_tokens", run["total_tokens"]),
                            ("total_cost", run["total_cost"])):
            if value is not None:
                samples[case][name].append(float(value))
    return {case: {"runs": counts[case], **{name: (sum(v) / len(v) if (v := samples[case].get(name)) else None)
                                            for name in METRICS}}
            for case in counts}


def _rows(store: Any, sheet: str, run_ids: Sequence[str], columns: list[str]) -> Iterable[dict[str, Any]]:
    for start in range(0, len(run_ids), _CHUNK):
        yield from store.rows(sheet, run_ids[start:start + _CHUNK], columns=columns)
