"""Weighted rubric, test sets, an evaluation runner and a production monitor."""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any, Literal

from ._checks import number, unit
from ._monitor import mean_figure, production_status, proportion_figure

LEVELS: Mapping[str, float] = MappingProxyType(
    {"excellent": 1.0, "good": 0.8, "acceptable": 0.6, "poor": 0.3, "failed": 0.0}
)
PASS_THRESHOLD = 0.7


@dataclass(frozen=True, slots=True)
class RubricDimension:
    weight: float
    description: str
    anchors: Mapping[str, str]  # level -> what the level means for this dimension
    levels: Mapping[str, float] = field(default_factory=lambda: LEVELS)


def _dimension(weight: float, description: str, *anchors: str) -> RubricDimension:
    return RubricDimension(weight, description, MappingProxyType(dict(zip(LEVELS, anchors, strict=True))))


#: The five rubric dimensions with their weights (sum 1) and level anchors.
RUBRIC: Mapping[str, RubricDimension] = MappingProxyType({
    "factual_accuracy": _dimension(
        0.30, "Claims match ground truth",
        "All claims verified against ground truth, no errors",
        "Minor errors that do not affect main conclusions",
        "Major claims correct, minor inaccuracies present",
        "Significant factual errors in key claims",
        "Fundamental factual errors that invalidate output"),
    "completeness": _dimension(
        0.25, "All requested aspects covered",
        "All requested aspects thoroughly covered",
        "Most aspects covered with minor gaps",
        "Key aspects covered, some gaps",
        "Major aspects missing from output",
        "Fundamental aspects not addressed"),
    "citation_accuracy": _dimension(
        0.15, "Citations match sources",
        "All citations accurate and complete",
        "Minor citation formatting issues",
        "Major citations accurate",
        "Significant citation problems",
        "Citations missing or completely incorrect"),
    "source_quality": _dimension(
        0.10, "Appropriate primary sources used",
        "Primary authoritative sources",
        "Mostly primary sources with some secondary",
        "Mix of primary and secondary sources",
        "Mostly secondary or unreliable sources",
        "No credible sources cited"),
    "tool_efficiency": _dimension(
        0.20, "Right tools used reasonably",
        "Optimal tool selection and call count",
        "Good tool selection with minor inefficiencies",
        "Appropriate tools with some redundancy",
        "Wrong tools or excessive call counts",
        "Severe tool misuse or extremely excessive calls"),
})


def _level_value(dimension: str, spec: RubricDimension, score: Any) -> float:
    if isinstance(score, str):
        if score not in spec.levels:
            raise ValueError(f"{dimension}: unknown level {score!r}; levels are {', '.join(spec.levels)}")
        return spec.levels[score]
    return unit(dimension, score)


def rubric_score(dimension_scores: Mapping[str, float | str], rubric: Mapping[str, RubricDimension] = RUBRIC) -> float:
    """``Σ weight·score / Σ weight`` over the rubric dimensions that were scored.

    A score is a number in [0, 1] or a level name (excellent 1.0, good 0.8, acceptable 0.6,
    poor 0.3, failed 0.0). Dimensions left out do not count (the weights are renormalised
    over those scored, as the rubric's definition does); a dimension the rubric does not know, or no
    scored dimension at all, is a ValueError (the original definition silently ignored it or returned 0).
    """
    if not isinstance(dimension_scores, Mapping):
        raise ValueError(f"dimension_scores must map dimension -> score, got {dimension_scores!r}")
    unknown = [d for d in dimension_scores if d not in rubric]
    if unknown:
        raise ValueError(f"dimensions not in the rubric: {', '.join(map(str, unknown))}")
    if not dimension_scores:
        raise ValueError("no dimension was scored")
    total = math.fsum(rubric[d].weight for d in dimension_scores)
    if total <= 0:
        raise ValueError("the scored dimensions have no weight")
    weighted = math.fsum(rubric[d].weight * _level_value(d, rubric[d], s) for d, s in dimension_scores.items())
    return min(1.0, weighted / total)


class TestSet:
    """Named test cases (mappings with at least ``input``; optional ``expected``, ``tags``,
    ``complexity``), indexed by tag."""

    __test__ = False  # not a pytest class

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("a test set needs a name")
        self.name = name
        self.tests: list[Mapping[str, Any]] = []
        self.tags: dict[str, list[int]] = {}

    def add_test(self, test_case: Mapping[str, Any]) -> None:
        if not isinstance(test_case, Mapping) or "input" not in test_case:
            raise ValueError(f"a test case is a mapping with an 'input', got {test_case!r}")
        self.tests.append(test_case)
        for tag in test_case.get("tags", ()):
            self.tags.setdefault(tag, []).append(len(self.tests) - 1)

    def filter(self, **criteria: Any) -> list[Mapping[str, Any]]:
        """Tests whose fields equal every given criterion."""
        return [t for t in self.tests if all(t.get(k) == v for k, v in criteria.items())]

    def tagged(self, tag: str) -> list[Mapping[str, Any]]:
        return [self.tests[i] for i in self.tags.get(tag, ())]

    def complexity_distribution(self) -> dict[str, int]:
        """Count of tests per ``complexity`` (default "medium")."""
        out: dict[str, int] = {}
        for t in self.tests:
            c = t.get("complexity", "medium")
            out[c] = out.get(c, 0) + 1
        return out


Scorer = Callable[[Any, Mapping[str, Any]], Mapping[str, float | str]]


@dataclass(frozen=True, slots=True)
class TestResult:
    __test__ = False

    test: Mapping[str, Any]
    output: Any
    dimension_scores: Mapping[str, float]
    overall_score: float | None  # None when the agent or the scorer failed
    passed: bool
    error: str | None = None


@dataclass(frozen=True, slots=True)
class RunSummary:
    total_tests: int
    passed: int
    failed: int  # includes errored
    errored: int
    pass_rate: float
    dimension_averages: Mapping[str, float]
    failures: tuple[TestResult, ...] = field(default=())


class EvaluationRunner:
    """Runs every test of a set through an agent and scores the outputs on a rubric.

    ``agent`` is anything with ``.invoke(input)`` (a compiled LangGraph graph, any LangChain
    runnable) or a plain callable. ``scorer(output, test)`` returns dimension -> score
    (number in [0, 1] or level name); the overall is :func:`rubric_score` and a test passes
    at ``>= pass_threshold`` (0.7). An agent or scorer that raises gives a failed result
    with the error, no score.
    """

    def __init__(
        self,
        test_set: TestSet,
        agent: Any,
        scorer: Scorer,
        rubric: Mapping[str, RubricDimension] = RUBRIC,
        *,
        pass_threshold: float = PASS_THRESHOLD,
    ) -> None:
        if not isinstance(test_set, TestSet):
            raise ValueError("test_set must be a TestSet")
        if not (hasattr(agent, "invoke") or callable(agent)):
            raise ValueError("agent must have .invoke(input) or be callable")
        if not callable(scorer):
            raise ValueError("scorer must be callable")
        self.test_set, self.agent, self.scorer, self.rubric = test_set, agent, scorer, rubric
        self.pass_threshold = unit("pass_threshold", pass_threshold)
        self.results: list[TestResult] = []

    def _call_agent(self, test_input: Any) -> Any:
        invoke = getattr(self.agent, "invoke", None)
        return invoke(test_input) if callable(invoke) else self.agent(test_input)

    def run_test(self, test: Mapping[str, Any]) -> TestResult:
        try:
            output = self._call_agent(test["input"])
        except Exception as exc:  # a failing agent fails its test, not the run
            return TestResult(test, None, MappingProxyType({}), None, False, f"agent: {type(exc).__name__}: {exc}")
        try:
            raw = self.scorer(output, test)
            overall = rubric_score(raw, self.rubric)
            scores = {d: _level_value(d, self.rubric[d], s) for d, s in raw.items()}
        except Exception as exc:
            return TestResult(test, output, MappingProxyType({}), None, False, f"scorer: {type(exc).__name__}: {exc}")
        return TestResult(test, output, MappingProxyType(scores), overall, overall >= self.pass_threshold)

    def run_all(self) -> RunSummary:
        """Run every test in order and summarise. An empty test set is a ValueError."""
        if not self.test_set.tests:
            raise ValueError(f"test set {self.test_set.name!r} has no tests")
        self.results = [self.run_test(t) for t in self.test_set.tests]
        return self.summarize()

    def summarize(self) -> RunSummary:
        """Pass counts and rate, and each dimension's mean over the tests that scored it."""
        if not self.results:
            raise ValueError("nothing to summarise: run the tests first")
        passed = sum(r.passed for r in self.results)
        sums: dict[str, list[float]] = {}
        for r in self.results:
            for d, s in r.dimension_scores.items():
                sums.setdefault(d, []).append(s)
        return RunSummary(
            total_tests=len(self.results),
            passed=passed,
            failed=len(self.results) - passed,
            errored=sum(r.error is not None for r in self.results),
            pass_rate=passed / len(self.results),
            dimension_averages=MappingProxyType({d: math.fsum(v) / len(v) for d, v in sums.items()}),
            failures=tuple(r for r in self.results if not r.passed),
        )


@dataclass(frozen=True, slots=True)
class Sample:
    query: str  # first 200 characters
    output_preview: str  # first 200 characters
    score: float
    passed: bool
    timestamp: str


@dataclass(frozen=True, slots=True)
class MonitorMetrics:
    sample_count: int
    pass_rate: float | None  # None when there are no samples
    average_score: float | None
    status: Literal["healthy", "warning", "critical", "insufficient_data"]


class ProductionMonitor:
    """Samples a share of production interactions, scores them on the rubric and reports a
    status from the pass rate: ``critical`` below 0.70, ``warning`` below 0.85, else
    ``healthy`` (the rubric's alert thresholds); no samples -> ``insufficient_data``.

    ``scorer(query, output)`` returns dimension -> score; ``seed`` makes the sampling
    reproducible; at most ``max_samples`` recent samples are kept.
    """

    def __init__(
        self,
        scorer: Callable[[str, str], Mapping[str, float | str]],
        sample_rate: float = 0.01,
        *,
        rubric: Mapping[str, RubricDimension] = RUBRIC,
        pass_threshold: float = PASS_THRESHOLD,
        pass_rate_warning: float = 0.85,
        pass_rate_critical: float = 0.70,
        max_samples: int = 10_000,
        seed: int | None = None,
    ) -> None:
        if not callable(scorer):
            raise ValueError("scorer must be callable")
        self.sample_rate = unit("sample_rate", sample_rate)
        self.alert_thresholds = {
            "pass_rate_warning": unit("pass_rate_warning", pass_rate_warning),
            "pass_rate_critical": unit("pass_rate_critical", pass_rate_critical),
        }
        if self.alert_thresholds["pass_rate_critical"] > self.alert_thresholds["pass_rate_warning"]:
            raise ValueError("pass_rate_critical must not exceed pass_rate_warning")
        if not isinstance(max_samples, int) or max_samples < 1:
            raise ValueError("max_samples must be a positive integer")
        self.scorer, self.rubric = scorer, rubric
        self.pass_threshold = unit("pass_threshold", pass_threshold)
        self.samples: deque[Sample] = deque(maxlen=max_samples)
        self._random = random.Random(seed)

    def sample_and_evaluate(self, query: str, output: str) -> Sample | None:
        """With probability ``sample_rate``, score the interaction and keep it; else None."""
        if self._random.random() >= self.sample_rate:
            return None
        score = rubric_score(self.scorer(query, output), self.rubric)
        sample = Sample(
            str(query)[:200], str(output)[:200], score, score >= self.pass_threshold,
            datetime.now(timezone.utc).isoformat(),
        )
        self.samples.append(sample)
        return sample

    def get_metrics(self) -> MonitorMetrics:
        """Pass rate, average score and status of the samples kept, by the same functions as
        ``harness monitor``'s windows (:func:`evaluators.window_metrics`)."""
        if not self.samples:
            return MonitorMetrics(0, None, None, "insufficient_data")
        n = len(self.samples)
        pass_rate = proportion_figure(sum(s.passed for s in self.samples), n).value
        average = mean_figure([s.score for s in self.samples]).value
        return MonitorMetrics(n, pass_rate, average, self.status(pass_rate))

    def status(self, pass_rate: float) -> Literal["healthy", "warning", "critical"]:
        status = production_status(number("pass_rate", pass_rate), self.alert_thresholds["pass_rate_warning"],
                                   self.alert_thresholds["pass_rate_critical"])
        assert status != "insufficient_data"
        return status

