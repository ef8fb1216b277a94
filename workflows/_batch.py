"""Batches of credit runs: companies x models x repeats, run concurrently (bounded), written
in input order (company, model, repeat) whatever order they finish in, then the group
evaluations (consistency, cross-model) of each company, each row once.

Each run gets its own model instances: the analyst at the batch temperature seeded with the
repeat number (so repeats differ, reproducibly), and the judge at temperature 0 (the
provider's primary model, the same judge for every model compared).
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from evaluators import consistency_rows, cross_model_row, pairwise
from harness import AGENT_NAMES, Harness, Run

from ._company import MAX_NAME_LENGTH, validate_company_name
from ._providers import Provider, make_model
from ._sources import DataSources
from .graph import NODE_TYPES, WORKFLOW_PHASES, build_graph

WORKFLOW = "credit_analysis"


@dataclass(frozen=True)
class BatchSettings:
    provider: Provider
    model: str
    compare_model: str | None = None
    repeats: int = 1
    judge: bool = True
    temperature: float = 0.1
    sources: DataSources | None = None
    concurrency: int = 8
    api_key: str | None = None
    base_url: str | None = None

    def __post_init__(self) -> None:
        if self.repeats < 1:
            raise ValueError(f"repeats must be at least 1, got {self.repeats}")
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.compare_model is not None and self.compare_model == self.model:
            raise ValueError("--compare-model must differ from --model")

    @property
    def models(self) -> list[str]:
        return [self.model] + ([self.compare_model] if self.compare_model else [])

    @property
    def grouped(self) -> bool:
        return self.repeats >= 2 or self.compare_model is not None


@dataclass(frozen=True)
class RunOutcome:
    """One run as the batch saw it; ``status`` is the harness run status."""

    run_id: str
    company: str
    model: str
    repeat: int
    batch_id: str | None
    status: str
    valid: bool
    reason: str | None = None
    risk_level: str | None = None
    credit_score: int | None = None
    confidence: float | None = None
    evaluation_score: float | None = None
    judge_score: float | None = None
    tokens: int | None = None
    cost: float | None = None
    seconds: float = 0.0
    error: str | None = None
    note: str | None = None  # what the run's data lacked (runs.note)
    assessment: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def display_name(company: str) -> str:
    """The run's subject: the name, cut to the validation limit (the full input stays in the state)."""
    return company if len(company) <= MAX_NAME_LENGTH else company[:MAX_NAME_LENGTH] + "…"


def run_batch(harness: Harness, companies: Sequence[str], settings: BatchSettings,
              on_done: Callable[[RunOutcome], None] | None = None, batch: str | None = None) -> list[RunOutcome]:
    """Run every company x model x repeat, then write the group evaluations. Never raises for
    a failing run: it is recorded (``status="failed"``) and the batch goes on. Outcomes come
    back in input order (company, model, repeat).

    ``batch`` names the batch (default: a new one): a run's id is made from it and the
    run's company, model and repeat, so the same batch again (a resumed one) skips the runs
    already stored and writes its group evaluations once."""
    batch = batch or str(uuid.uuid4())
    outcomes = asyncio.run(_run_all(harness, list(companies), settings, on_done, batch))
    harness.flush()  # runs are written in the background; read them back only once all are in
    usage = {r["run_id"]: r for r in harness.store.rows("runs", [o.run_id for o in outcomes])}
    outcomes = [replace(o, tokens=usage.get(o.run_id, {}).get("total_tokens"),
                        cost=usage.get(o.run_id, {}).get("total_cost")) for o in outcomes]
    if settings.grouped:
        for company in dict.fromkeys(companies):
            group = [o for o in outcomes if o.company == company]
            _group_evaluations(harness, group, settings)
    return outcomes


def _batch_uuid(batch: str, *parts: object) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "/".join(map(str, ("harness-batch", batch, *parts)))))


async def _run_all(harness: Harness, companies: list[str], settings: BatchSettings,
                   on_done: Callable[[RunOutcome], None] | None, batch: str) -> list[RunOutcome]:
    graph = build_graph()
    gate = asyncio.Semaphore(settings.concurrency)
    batch_ids = {c: (_batch_uuid(batch, c) if settings.grouped else None) for c in companies}
    order = [(c, m, r) for c in companies for m in settings.models for r in range(settings.repeats)]
    planned = [_batch_uuid(batch, *job) for job in order]
    stored = {row["run_id"]: row for row in harness.store.rows("runs", planned)}
    finished: dict[int, Run | None] = {}
    written = 0

    def write_in_order(index: int, run: Run | None) -> None:
        """Runs are held when they finish and written once every earlier run is (a run a
        resumed batch stored already has nothing to write)."""
        nonlocal written
        finished[index] = run
        while written in finished:
            held = finished.pop(written)
            if held is not None:
                held.write()
            written += 1

    async def one(index: int, company: str, model: str, repeat: int) -> RunOutcome:
        run_id = planned[index]
        if run_id in stored:  # a resumed batch: this run is in the store already
            outcome, run = _stored_outcome(harness, stored[run_id], company, model, repeat, batch_ids[company]), None
        else:
            async with gate:
                outcome, run = await _one_run(harness, graph, company, model, repeat, batch_ids[company], settings,
                                              run_id)
        write_in_order(index, run)
        if on_done is not None:
            on_done(outcome)
        return outcome

    return list(await asyncio.gather(*(one(i, *job) for i, job in enumerate(order))))


def _stored_outcome(harness: Harness, row: dict[str, Any], company: str, model: str, repeat: int,
                    batch_id: str | None) -> RunOutcome:
    check = validate_company_name(company)
    judged = next(iter(harness.store.rows("llm_judge_results", [row["run_id"]], columns=["overall_score"])), {})
    return RunOutcome(
        run_id=row["run_id"], company=company, model=model, repeat=repeat, batch_id=batch_id, status=row["status"],
        valid=check.valid, reason=None if check.valid else check.reason, risk_level=row.get("risk_level"),
        credit_score=row.get("credit_score"), confidence=row.get("confidence"),
        evaluation_score=row.get("evaluation_score"), judge_score=judged.get("overall_score"),
        error=row.get("error"), assessment=harness.store.assessment(row["run_id"]) or {},
    )


async def _one_run(harness: Harness, graph: Any, company: str, model: str, repeat: int, batch_id: str | None,
                   settings: BatchSettings, run_id: str | None = None) -> tuple[RunOutcome, Run]:
    check = validate_company_name(company)
    kw = {"api_key": settings.api_key, "base_url": settings.base_url}
    configurable = {
        "model": make_model(settings.provider, model, temperature=settings.temperature, seed=repeat, **kw),
        "judge_model": make_model(settings.provider, settings.provider.primary, temperature=0.0, **kw),
        "judge": settings.judge,
    }
    if settings.sources is not None:
        configurable["sources"] = settings.sources
    start = time.perf_counter()
    error = None
    out: dict[str, Any] = {}
    run = harness.run(subject=display_name(company), workflow=WORKFLOW, profile="credit" if check.valid else "generic",
                      model=model, temperature=settings.temperature, batch_id=batch_id, agent_names=AGENT_NAMES,
                      node_types=NODE_TYPES, phases=WORKFLOW_PHASES, config={"configurable": configurable},
                      hold=True, run_id=run_id)
    try:
        async with run:
            out = await graph.ainvoke({"company_name": company}, config=run.config)
    except Exception as exc:  # noqa: BLE001 - the run is recorded as failed; the batch goes on
        error = f"{type(exc).__name__}: {exc}"
    assessment = out.get("assessment") or {}
    evaluation = out.get("evaluation") or {}
    return RunOutcome(
        run_id=run.run_id, company=company, model=model, repeat=repeat, batch_id=batch_id, status=run.status,
        valid=check.valid, reason=None if check.valid else check.reason,
        risk_level=assessment.get("risk_level"), credit_score=assessment.get("credit_score"),
        confidence=assessment.get("confidence"), evaluation_score=evaluation.get("overall_score"),
        judge_score=evaluation.get("judge_overall"),
        seconds=time.perf_counter() - start, error=error, note=out.get("note"), assessment=assessment,
    ), run


def _group_evaluations(harness: Harness, group: list[RunOutcome], settings: BatchSettings) -> None:
    """consistency_scores (same-model per model with >= 2 results, cross-model over the
    models) and, with a compared model, one cross_model_eval row. Each row is written once,
    stamped with the run that completes its group in input order (``run_id``) and listing
    every run it covers (``run_ids``); then that run's log_tests row is rewritten."""
    scored = [o for o in group if o.risk_level and o.credit_score is not None]
    covered = {m: [o for o in scored if o.model == m] for m in settings.models}
    per_model = {m: [(o.risk_level, o.credit_score) for o in runs] for m, runs in covered.items() if runs}
    node = {"node": "evaluate_assessment", "node_type": NODE_TYPES["evaluate_assessment"],
            "agent_name": AGENT_NAMES["evaluate_assessment"]}
    stamped: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def add(sheet: str, row: dict[str, Any], runs: list[RunOutcome]) -> None:
        stamped.setdefault(runs[-1].run_id, {}).setdefault(sheet, []).append(
            {**node, **row, "run_ids": [o.run_id for o in runs]})

    for row in consistency_rows(per_model) if per_model else []:
        runs = covered[row["model_name"]] if row["evaluation_type"] == "same_model" else scored
        add("consistency_scores", {**row, "batch_id": group[0].batch_id}, runs)
    if settings.compare_model and len(per_model) == len(settings.models):
        add("cross_model_eval", _cross_model(scored, settings), scored)
    for run_id, rows in stamped.items():
        for sheet, sheet_rows in rows.items():
            # keyed, so a resumed batch writes them once
            harness.log(run_id, sheet, [{**row, "row_key": f"{run_id}:{sheet}:group:{i}"}
                                        for i, row in enumerate(sheet_rows)])
        harness.verify(run_id)


def _cross_model(scored: list[RunOutcome], settings: BatchSettings) -> dict[str, Any]:
    results: dict[str, tuple[str, float, float]] = {}
    judged: dict[str, list[float]] = {}
    for m in settings.models:
        mine = [o for o in scored if o.model == m]
        modal = Counter(o.risk_level for o in mine).most_common(1)[0][0]
        results[m] = (modal, statistics.fmean(o.credit_score for o in mine),  # type: ignore[misc]
                      statistics.fmean(o.confidence or 0.0 for o in mine))
        judged[m] = [o.judge_score for o in mine if o.judge_score is not None]
    means = {m: statistics.fmean(v) for m, v in judged.items() if v}
    analysis = "; ".join(f"{m}: mean judge score {v:.2f}" for m, v in means.items()) or "no judge scores"
    comparisons, best, why = [], None, ""
    first, second = settings.models
    if settings.judge:
        a = next(o for o in scored if o.model == first)
        b = next(o for o in scored if o.model == second)
        judge = make_model(settings.provider, settings.provider.primary, temperature=0.0,
                           api_key=settings.api_key, base_url=settings.base_url)
        verdict = pairwise(judge, a.assessment, b.assessment, company=display_name(a.company) or "(unnamed)", max_retries=0)
        comparisons.append({"a": first, "b": second, **{k: getattr(verdict, k) for k in
                            ("status", "winner", "flipped", "verdicts", "reasoning", "model", "total_tokens", "error")}})
        if verdict.winner:
            best = first if verdict.winner == "a" else second
            why = f"the judge preferred {best} in both orders"
    if best is None and len(means) == len(settings.models) and len(set(means.values())) > 1:
        best = max(means, key=means.__getitem__)
        why = f"highest mean LLM-judge score ({means[best]:.2f})"
    advice = f"Prefer {best} for this company." if best else "No model is clearly better on this company."
    return cross_model_row(results, best_model=best, best_model_reasoning=why or "no clear winner",
                           llm_judge_analysis=analysis, model_recommendations=advice, pairwise_comparisons=comparisons)
