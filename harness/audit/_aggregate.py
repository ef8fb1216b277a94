"""Statistics over repeated runs (pass rate, cost of pass, composite, grades, uplift), with the
:mod:`evaluators` functions.

A run's pass is the one definition (:func:`evaluators.run_passed`), recomputed from the
sheets (:meth:`Facts.passed`: its scores, or in an older export the checks that gate it); a
run without a pass is left out of pass rates, pass@k and cost of pass, which say how many
runs they cover. Groups are the runs of one model and of one company type (of one
company when the sheets log no company type); pass@k and pass^k are over the repeated runs
of each company. The company type is not a column of any sheet: it is recognised from the
run's expected tools by the caller's table of expected tools per type (the CLI passes the
credit workflow's); without one, or when a run's tools match no type, groups are companies.

A model's group holds every run that called it (its ``llm_calls``, judge calls left out),
never a run's most frequent model: a run that called two models is in both, counted as
mixed, with the cost of that model's calls. Runs of experiments (``runs.experiment``) are
grouped per experiment for the company (type) figures and pass@k, which are per dataset case
(``runs.case_id``) there; model figures span experiments.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import evaluators

from ._crossref import Facts
from ._model import Aggregates, AuditInputError, GroupSummary, PassAtK, PlotData
from ._tables import Table
from ._values import as_utc, is_empty, number_or_none

#: The k of pass@k / pass^k, as far as a company has runs (plus k = n).
PASS_KS = (1, 2, 3, 5, 10)


@dataclass(frozen=True, slots=True)
class RunRecord:
    run_id: str
    model: str
    company: str
    company_type: str | None
    evaluation_score: float | None
    credit_score: float | None
    judge_overall: float | None
    passed: bool | None  # None: the run has no pass (no score gates it)
    cost: float | None
    started: datetime | None = None  # runs.started_at, as UTC
    experiment: str | None = None  # runs.experiment
    case: str | None = None  # runs.case_id, in an experiment
    #: (model, the cost of its calls in the run) per model the run called, runs.model first
    models: tuple[tuple[str, float | None], ...] = ()

    @property
    def model_names(self) -> tuple[str, ...]:
        """The models the run called (its ``runs.model`` when it has no calls)."""
        return tuple(m for m, _ in self.models) or (self.model,)

    @property
    def mixed(self) -> bool:
        return len(self.models) > 1

    def on(self, model: str) -> RunRecord:
        """The run as a member of ``model``'s group: costing what that model's calls cost."""
        for name, cost in self.models:
            if name == model:
                return dataclasses.replace(self, cost=cost)
        return self


def company_type_of(expected: frozenset[str] | None,
                    company_types: Mapping[str, Sequence[str]] | None) -> str | None:
    """The company type whose expected tools are exactly the run's expected tools."""
    if expected is None or not company_types:
        return None
    matches = [kind for kind, tools in company_types.items() if frozenset(tools) == expected]
    return matches[0] if len(matches) == 1 else None


def run_records(runs: Table, facts: Facts,
                company_types: Mapping[str, Sequence[str]] | None = None) -> list[RunRecord]:
    """One record per ``runs`` row. ``company_types`` (type -> expected tools, e.g.
    ``workflows.EXPECTED_TOOLS``) names a run's company type from its
    ``tool_selections.expected_tools``."""
    records = []
    for _, row in runs.records():
        run = row["run_id"]
        evaluation = facts.evaluation.get(run)
        if evaluation is not None and not 0 <= evaluation <= 1:  # an out-of-range cell: reported, not used
            evaluation = None
        passed = facts.passed(row)
        model = row["model"] if isinstance(row["model"], str) and row["model"] else "(no model)"
        company = str(row["company_name"]) if row["company_name"] not in (None, "") else "(no company)"
        cost = None if run in facts.cost_unknown else facts.cost.get(run, 0.0)
        kind = company_type_of(facts.expected_tools.get(run), company_types)
        called = facts.model_costs.get(run, {})
        models = tuple(sorted(called.items(), key=lambda item: item[0] != model))  # runs.model first
        records.append(RunRecord(run, model, company, kind, evaluation,
                                 number_or_none(row["credit_score"]), facts.judge.get(run), passed, cost,
                                 as_utc(row.get("started_at")), _text(row.get("experiment")),
                                 _text(row.get("case_id")), models))
    return records


def _text(value: object) -> str | None:
    return None if is_empty(value) else str(value)


def _stats(values: Iterable[float | None]) -> evaluators.Statistics | None:
    present = [v for v in values if v is not None]
    return evaluators.aggregate(present) if present else None


def summarise(by: str, key: str, runs: Sequence[RunRecord], baseline: float | None = None) -> GroupSummary:
    """The repeated-run statistics of one group: score statistics, pass rate, cost of pass, the median
    of the runs' ``composite_score(pass, evaluation_score)``, its letter grade and its
    uplift over ``baseline`` (a composite)."""
    n = len(runs)
    judged = [r for r in runs if r.passed is not None]
    pass_rate, _ = evaluators.pass_rate(r.passed for r in runs)
    priced = [r.cost for r in runs if r.cost is not None]
    mean_cost = math.fsum(priced) / len(priced) if priced else None
    judged_costs = [r.cost for r in judged]
    cop = None
    if pass_rate is not None and judged and all(c is not None for c in judged_costs):
        cop = evaluators.cost_of_pass(math.fsum(judged_costs) / len(judged), pass_rate)  # type: ignore[arg-type]
    composites = [evaluators.composite_score(float(r.passed), r.evaluation_score)
                  for r in judged if r.evaluation_score is not None]
    composite_stats = _stats(composites)
    composite = composite_stats.median if composite_stats is not None else None
    grade = evaluators.letter_grade(composite) if composite is not None else None
    uplift = None
    if baseline is not None and composite is not None and baseline > 0:
        uplift = evaluators.tier_uplift(composite, baseline)
    return GroupSummary(
        by=by, key=key, runs=n,
        evaluation_score=_stats(r.evaluation_score for r in runs),
        credit_score=_stats(r.credit_score for r in runs),
        judge_overall=_stats(r.judge_overall for r in runs),
        pass_rate=pass_rate, judged=len(judged), mean_cost=mean_cost, unpriced=n - len(priced), cost_of_pass=cop,
        composite=composite, grade=grade, uplift=uplift,
    )


def _groups(records: Sequence[RunRecord], key) -> dict[Any, list[RunRecord]]:
    groups: dict[Any, list[RunRecord]] = defaultdict(list)
    for r in records:
        groups[key(r)].append(r)
    return dict(groups)


def by_model(records: Sequence[RunRecord]) -> dict[str, list[RunRecord]]:
    """Each model's runs: every run that called it, costing what its calls of that model cost."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        for model in r.model_names:
            groups[model].append(r.on(model))
    return dict(groups)


def pass_k(records: Sequence[RunRecord]) -> tuple[PassAtK, ...]:
    """pass@k / pass^k per company, or per experiment and dataset case for runs of experiments."""
    out = []
    for (experiment, company), runs in _groups(
            [r for r in records if r.passed is not None],
            lambda r: (r.experiment, r.case or r.company) if r.experiment else (None, r.company)).items():
        n, c = len(runs), sum(bool(r.passed) for r in runs)
        ks = sorted({k for k in PASS_KS if k <= n} | {n})
        out.append(PassAtK(company, n, c,
                           {k: evaluators.pass_at_k(n, c, k) for k in ks},
                           {k: evaluators.pass_hat_k(n, c, k) for k in ks}, experiment))
    return tuple(out)


def choose_baseline(records: Sequence[RunRecord],
                    primaries: Mapping[str, int] | None = None) -> tuple[str | None, str]:
    """The model the uplift is measured against, from the sheets alone, and why.

    The primary model of the batches (their ``--model``), which ``cross_model_eval`` names
    first in ``models_compared`` (the one most group rows name; ties by name). Without
    compared batches: the model of the earliest run by ``started_at`` (ties, or no
    timestamps, by name). Never the row order, which a reviewer may have sorted."""
    models = {m for r in records for m in r.model_names}
    named = {m: n for m, n in (primaries or {}).items() if m in models}
    if named:
        return min(named, key=lambda m: (-named[m], m)), "the batch's primary model (first in cross_model_eval.models_compared)"
    if not records:
        return None, ""
    earliest = min(records, key=lambda r: (r.started is None, r.started or datetime.min, r.model))
    return earliest.model_names[0], "the model of the earliest run (runs.started_at)"


def aggregate_runs(records: Sequence[RunRecord], baseline_model: str | None = None,
                   primaries: Mapping[str, int] | None = None) -> Aggregates:
    """Per model (uplift against ``baseline_model``, default :func:`choose_baseline`), per
    company type (or company), and pass@k / pass^k per company. AuditInputError when
    ``baseline_model`` has no runs."""
    models_runs = by_model(records)
    if baseline_model is not None and baseline_model not in models_runs:
        raise AuditInputError(f"baseline model {baseline_model!r} has no runs; "
                              f"models: {', '.join(models_runs) or 'none'}")
    if baseline_model is not None:
        baseline, reason = baseline_model, "given with --baseline-model"
    else:
        baseline, reason = choose_baseline(records, primaries)
    base = summarise("model", baseline, models_runs[baseline]).composite if baseline else None
    models = tuple(dataclasses.replace(summarise("model", m, runs, base if m != baseline else None),
                                       mixed=sum(r.mixed for r in runs))
                   for m, runs in models_runs.items())
    typed = bool(records) and all(r.company_type for r in records)
    label = "company_type" if typed else "company"
    by_type = _groups(records, lambda r: (r.experiment, r.company_type if typed else r.company))
    return Aggregates(
        by_model=models,
        by_type=tuple(dataclasses.replace(summarise(label, key, runs), experiment=experiment)
                      for (experiment, key), runs in by_type.items()),
        type_label=label,
        baseline_model=baseline,
        pass_k=pass_k(records),
        baseline_reason=reason,
    )


def plot_data(records: Sequence[RunRecord], facts: Facts) -> PlotData:
    """What the report plots: the main scores per model, (cost, score, model) per run, node
    latencies, tool-selection F1 per company type (or company)."""
    typed = bool(records) and all(r.company_type for r in records)
    scores: dict[str, dict[str, list[float]]] = {
        name: defaultdict(list) for name in ("evaluation score", "judge overall", "credit score")}
    f1: dict[str, list[float]] = defaultdict(list)
    cost_score: list[tuple[float, float, str]] = []
    for r in records:
        for name, value in (("evaluation score", r.evaluation_score), ("judge overall", r.judge_overall),
                            ("credit score", r.credit_score)):
            if value is not None:
                for model in r.model_names:
                    scores[name][model].append(value)
        if r.evaluation_score is not None and r.cost is not None:
            cost_score.append((r.cost, r.evaluation_score, " + ".join(r.model_names)))
        if r.run_id in facts.f1:
            f1[(r.company_type if typed else r.company) or "(unknown)"].append(facts.f1[r.run_id])
    return PlotData(
        scores_by_model={name: dict(groups) for name, groups in scores.items()},
        cost_vs_score=tuple(cost_score),
        latency_by_node={k: list(v) for k, v in facts.latency.items()},
        f1_by_type=dict(f1),
        type_label="company type" if typed else "company",
    )
