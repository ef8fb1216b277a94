"""What an audit returns: findings, the aggregates across runs, and the exit code."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any, Literal

from evaluators import Statistics

FindingKind = Literal["type", "range", "reference", "duplicate", "formula", "recompute", "cross-sheet"]


class AuditInputError(ValueError):
    """The input cannot be audited at all: not a workbook, a sheet or column missing, the
    header out of spec order. The message is one line naming what is wrong."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One discrepancy. ``sheet`` is the tab as it appears in the file (a continuation tab
    such as ``llm_calls_2`` when the row lives there); ``row`` is numbered as Excel numbers
    it (the header is row 1); ``column`` is the header name. ``found`` and ``expected`` are
    the cell value and what the rule says it should be (``None`` = an empty cell)."""

    sheet: str
    row: int | None
    column: str | None
    found: Any
    expected: Any
    rule: str
    kind: FindingKind

    def to_dict(self) -> dict[str, Any]:
        return {
            "sheet": self.sheet,
            "row": self.row,
            "column": self.column,
            "found": jsonable(self.found),
            "expected": jsonable(self.expected),
            "rule": self.rule,
            "kind": self.kind,
        }


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """Repeated-run statistics over the runs of one model, company type or company (of one
    experiment, ``experiment``, when the runs belong to experiments).

    A model's runs are the runs that called it (``llm_calls.model``, judge calls left out):
    a run that called two models is in both groups, and ``mixed`` counts such runs; its cost
    there is what that model's calls cost.

    ``pass_rate`` = passed runs / the ``judged`` runs that have a pass (None when none has):
    a run passes as :func:`evaluators.run_passed` says, recomputed from its scores;
    ``mean_cost`` = mean over the priced runs of the run's summed ``llm_calls.total_cost``
    (``unpriced``: the runs left out, a call of theirs without a cost; None when no run is
    priced); ``cost_of_pass`` = the judged runs' mean cost / their pass rate (None when one of
    them is unpriced);
    ``composite`` = median over judged runs of ``composite_score(pass, evaluation_score)``
    (equal weights); ``grade`` =
    ``letter_grade`` of it;
    ``uplift`` = ``tier_uplift(composite, baseline composite)`` (models only)."""

    by: str
    key: str
    runs: int
    evaluation_score: Statistics | None  # evaluators.aggregate over the group's runs
    credit_score: Statistics | None
    judge_overall: Statistics | None
    pass_rate: float | None
    mean_cost: float | None
    cost_of_pass: float | None
    composite: float | None
    grade: str | None
    uplift: float | None = None
    mixed: int = 0  # runs of the group that called other models too
    experiment: str | None = None
    judged: int = 0  # runs with a pass, over which pass_rate and cost_of_pass are taken
    unpriced: int = 0  # runs without a known cost, left out of mean_cost


@dataclass(frozen=True, slots=True)
class PassAtK:
    """pass@k and pass^k over the ``n`` repeated runs of one company, ``c`` of which passed;
    in an experiment, of one dataset case (``company`` holds its ``case_id``) of ``experiment``."""

    company: str
    n: int
    c: int
    pass_at: dict[int, float]
    pass_hat: dict[int, float]
    experiment: str | None = None


@dataclass(frozen=True, slots=True)
class Aggregates:
    by_model: tuple[GroupSummary, ...]
    by_type: tuple[GroupSummary, ...]  # per company type, or per company when no type is logged
    type_label: str  # "company_type" or "company"
    baseline_model: str | None
    pass_k: tuple[PassAtK, ...]
    baseline_reason: str = ""  # why baseline_model is the baseline


@dataclass(frozen=True, slots=True)
class PlotData:
    """The data behind the report's plots."""

    scores_by_model: dict[str, dict[str, list[float]]]  # score name -> model -> the runs' values
    cost_vs_score: tuple[tuple[float, float, str], ...]  # (run cost USD, evaluation score, model)
    latency_by_node: dict[str, list[float]]  # node executions' duration_ms per node
    f1_by_type: dict[str, list[float]]  # tool-selection F1 per company type (or company)
    type_label: str


@dataclass(frozen=True, slots=True)
class AuditResult:
    """The outcome of an audit. ``exit_code`` is 0 when clean and 1 when there are findings
    (unusable input raises :class:`AuditInputError` instead, the CLI's exit code 2)."""

    source: str
    rows: dict[str, int]  # data rows per sheet (continuations merged)
    findings: tuple[Finding, ...]
    aggregates: Aggregates
    plots: PlotData
    notes: tuple[str, ...] = ()  # what could not be checked, and why
    agreement: tuple[dict[str, Any], ...] = ()  # judges against people's labels, from the scores sheet

    @property
    def clean(self) -> bool:
        return not self.findings

    @property
    def exit_code(self) -> int:
        return 0 if self.clean else 1

    def to_dict(self) -> dict[str, Any]:
        return jsonable({
            "source": self.source,
            "exit_code": self.exit_code,
            "rows": self.rows,
            "findings": [f.to_dict() for f in self.findings],
            "aggregates": self.aggregates,
            "agreement": list(self.agreement),
            "notes": list(self.notes),
        })


def jsonable(value: Any) -> Any:
    """Plain JSON data: dataclasses as dicts, dates as ISO text, non-finite floats as text."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {name: jsonable(getattr(value, name)) for name in value.__dataclass_fields__}
    return str(value)
