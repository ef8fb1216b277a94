"""Evaluator row builders: plain records in, rows out as dicts keyed by the exact column
names of the target sheet. ``run_id``, ``company_name``, ``timestamp``, ``generated_by``
(and the node columns ``node``, ``node_type``, ``agent_name``, ``step_number``) are left
to the harness, which fills them from the node that logs the row."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ._agent import agent_overall, final_answer_quality, intent_correctness, plan_quality
from ._checks import names, non_negative
from ._consistency import consistency, credit_score, cross_model_agreement, risk_level
from ._evaluation import REQUIRED_ASSESSMENT_FIELDS, data_quality, evaluation_overall, synthesis_quality
from ._judge import JudgeResult
from ._judge_prompts import DIMENSIONS
from ._status import eval_status
from ._tools import ToolSelection, tool_selection
from ._trajectory import trajectory_match

Row = dict[str, Any]


def plain(value: Any) -> Any:
    """JSON-able copy: dataclasses and mappings -> dicts, tuples/sets -> lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    return value


def _listing(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "none"


def explain_tools(ts: ToolSelection) -> str:
    return (
        f"precision {ts.precision:.2f}, recall {ts.recall:.2f}, F1 {ts.f1:.2f}; "
        f"correct: {_listing(ts.correct)}; missing: {_listing(ts.missing)}; extra: {_listing(ts.extra)}"
    )


def _duration(value: Any) -> float | None:
    return None if value is None else non_negative("duration_ms", value)


def tool_selection_row(
    selected_tools: Sequence[str],
    expected_tools: Sequence[str],
    *,
    model: str | None = None,
    reasoning: str = "",
    duration_ms: float | None = None,
) -> Row:
    """A ``tool_selections`` row: sets, P/R/F1 of :func:`tool_selection`. ``reasoning``
    defaults to a rule-based explanation (which tools were correct, missing, extra)."""
    selected = names("selected_tools", selected_tools)
    expected = names("expected_tools", expected_tools)
    ts = tool_selection(selected, expected)
    return {
        "model": model,
        "selected_tools": selected,
        "expected_tools": expected,
        "correct_tools": list(ts.correct),
        "missing_tools": list(ts.missing),
        "extra_tools": list(ts.extra),
        "precision": ts.precision,
        "recall": ts.recall,
        "f1_score": ts.f1,
        "reasoning": reasoning or explain_tools(ts),
        "duration_ms": _duration(duration_ms),
        "status": "ok",
    }


def evaluation_row(
    *,
    selected_tools: Sequence[str],
    expected_tools: Sequence[str],
    source_payloads: Mapping[str, Any],
    assessment: Mapping[str, Any] | None,
    model: str | None = None,
    duration_ms: float | None = None,
) -> Row:
    """An ``evaluations`` row: tool F1, :func:`data_quality` of the selected tools'
    payloads, :func:`synthesis_quality` of the assessment, overall 0.3/0.3/0.4; each
    ``*_reasoning`` says what was missing."""
    ts = tool_selection(selected_tools, expected_tools)
    dq = data_quality(selected_tools, source_payloads)
    sq = synthesis_quality(assessment)
    overall = evaluation_overall(ts.f1, dq.score, sq.score)
    data_notes = [f"{dq.present}/{dq.expected} expected fields present"]
    if dq.expected and not dq.evidence:
        data_notes.append("no evidence found")
    if dq.failed:
        data_notes.append(f"no data (missing or error payload): {_listing(dq.failed)}")
    if dq.empty:
        data_notes.append(f"found nothing (no records): {_listing(dq.empty)}")
    for source, fields in dq.missing.items():
        if source not in dq.failed and source not in dq.empty:
            data_notes.append(f"{source} missing {_listing(fields)}")
    if dq.unknown:
        data_notes.append(f"tools without expected fields: {_listing(dq.unknown)}")
    if not dq.expected:
        data_notes.append("no known data source was selected")
    return {
        "model": model,
        "tool_selection_score": ts.f1,
        "tool_reasoning": explain_tools(ts),
        "data_quality_score": dq.score,
        "data_reasoning": "; ".join(data_notes),
        "synthesis_score": sq.score,
        "synthesis_reasoning": (
            f"{len(REQUIRED_ASSESSMENT_FIELDS) - len(sq.missing) - len(sq.invalid)}/"
            f"{len(REQUIRED_ASSESSMENT_FIELDS)} required fields present and valid; "
            f"missing: {_listing(sq.missing)}; invalid: {_listing(sq.invalid)}"
        ),
        "overall_score": overall,
        "eval_status": eval_status(overall),
        "duration_ms": _duration(duration_ms),
        "status": "ok",
    }


def agent_metrics_row(
    *,
    company_input: str,
    company_info: Mapping[str, Any] | None,
    plan: Sequence[Any] | Mapping[str, Any] | None,
    selected_tools: Sequence[str],
    expected_tools: Sequence[str],
    actual_trajectory: Sequence[str],
    expected_trajectory: Sequence[str],
    assessment: Mapping[str, Any] | None,
    step_count: int,
    tool_calls: int,
    latency_ms: float | None,
    model: str | None = None,
) -> Row:
    """An ``agent_metrics`` row for a credit run: intent, plan, tool choice (precision),
    tool completeness (recall), trajectory match, final answer quality, overall by the
    agent_metrics weights (0.15 / 0.15 / 0.20 / 0.15 / 0.15 / 0.20); the ``*_details`` columns hold each rule's inputs and parts."""
    intent = intent_correctness(company_input, company_info)
    plan_q = plan_quality(plan)
    ts = tool_selection(selected_tools, expected_tools)
    actual, expected = names("actual_trajectory", actual_trajectory), names("expected_trajectory", expected_trajectory)
    tm = trajectory_match(actual, expected)
    answer = final_answer_quality(assessment)
    overall = agent_overall(
        intent=intent.score, plan=plan_q.score, tool_choice=ts.precision,
        tool_completeness=ts.recall, trajectory=tm.score, answer=answer.score,
    )
    return {
        "model": model,
        "intent_correctness": intent.score,
        "plan_quality": plan_q.score,
        "tool_choice_correctness": ts.precision,
        "tool_completeness": ts.recall,
        "trajectory_match": tm.score,
        "final_answer_quality": answer.score,
        **_counts(step_count, tool_calls, latency_ms),
        "overall_score": overall,
        "eval_status": eval_status(overall),
        "intent_details": {"company_input": company_input, **plain(intent)},
        "plan_details": plain(plan_q),
        "tool_details": tool_details(selected_tools, expected_tools, ts),
        "trajectory_details": {"actual": actual, "expected": expected, **plain(tm)},
        "answer_details": plain(answer),
        "status": "ok",
    }


def tool_details(selected: Sequence[str], expected: Sequence[str], ts: ToolSelection) -> dict[str, Any]:
    return {"selected": list(selected), "expected": list(expected), **plain(ts)}


def _counts(step_count: Any, tool_calls: Any, latency_ms: Any) -> Row:
    for label, value in (("step_count", step_count), ("tool_calls", tool_calls)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{label} must be an integer >= 0, got {value!r}")
    latency = None if latency_ms is None else non_negative("latency_ms", latency_ms)
    return {"step_count": step_count, "tool_calls": tool_calls, "latency_ms": latency}


def consistency_rows(
    per_model: Mapping[str, Sequence[tuple[str, int]]], *, duration_ms: float | None = None,
) -> list[Row]:
    """``consistency_scores`` rows: one ``same_model`` row per model with >= 2 results,
    and, with >= 2 models, one ``cross_model`` row over all results (``model_name`` = the
    models joined by ", "). ``risk_levels``/``credit_scores`` hold the inputs as
    "LOW, LOW, MODERATE" / "750, 745, 720" so the figures can be recomputed."""
    if not isinstance(per_model, Mapping):
        raise ValueError(f"per_model must map model name -> [(risk_level, credit_score), ...], got {per_model!r}")
    cleaned: dict[str, list[tuple[str, float]]] = {}
    for model, results in per_model.items():
        if not isinstance(model, str) or not model:
            raise ValueError(f"model names must be non-empty strings, got {model!r}")
        if isinstance(results, (str, bytes)) or not isinstance(results, Sequence) or not results:
            raise ValueError(f"results of {model!r} must be a non-empty list of (risk_level, credit_score)")
        pairs = []
        for i, pair in enumerate(results):
            if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
                raise ValueError(f"result {i} of {model!r} must be (risk_level, credit_score), got {pair!r}")
            pairs.append((
                risk_level(f"risk level {i} of {model!r}", pair[0]),
                credit_score(f"credit score {i} of {model!r}", pair[1]),
            ))
        cleaned[model] = pairs
    duration = _duration(duration_ms)
    rows = [_consistency_row(m, "same_model", r, duration) for m, r in cleaned.items() if len(r) >= 2]
    if len(cleaned) >= 2:
        pooled = [p for r in cleaned.values() for p in r]
        rows.append(_consistency_row(", ".join(cleaned), "cross_model", pooled, duration))
    return rows


def _number_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _consistency_row(model_name: str, kind: str, results: list[tuple[str, float]], duration: float | None) -> Row:
    levels = [lvl for lvl, _ in results]
    scores = [s for _, s in results]
    c = consistency(levels, scores)
    return {
        "model_name": model_name,
        "evaluation_type": kind,
        "num_runs": len(results),
        "risk_level_consistency": c.risk_level_consistency,
        "score_consistency": c.score_consistency,
        "score_std": c.score_std,
        "overall_consistency": c.overall,
        "eval_status": c.eval_status,
        "risk_levels": ", ".join(levels),
        "credit_scores": ", ".join(_number_text(s) for s in scores),
        "duration_ms": duration,
        "status": "ok",
    }


def cross_model_row(
    results: Mapping[str, Sequence[Any]],
    *,
    best_model: str | None = None,
    best_model_reasoning: str = "",
    llm_judge_analysis: str = "",
    model_recommendations: str = "",
    pairwise_comparisons: Sequence[Any] | None = None,
    duration_ms: float | None = None,
) -> Row:
    """A ``cross_model_eval`` row from model -> (risk_level, credit_score, confidence), with
    the figures of :func:`cross_model_agreement`; pairwise comparisons (e.g.
    :class:`PairwiseResult` objects) are stored as JSON."""
    agreement = cross_model_agreement(results)
    return {
        "models_compared": list(results),
        "num_models": len(results),
        "risk_level_agreement": agreement.risk_level_agreement,
        "credit_score_mean": agreement.credit_score_mean,
        "credit_score_std": agreement.credit_score_std,
        "credit_score_range": agreement.credit_score_range,
        "confidence_agreement": agreement.confidence_agreement,
        "best_model": best_model,
        "best_model_reasoning": best_model_reasoning,
        "cross_model_agreement": agreement.cross_model_agreement,
        "eval_status": agreement.eval_status,
        "llm_judge_analysis": llm_judge_analysis,
        "model_recommendations": model_recommendations,
        "model_results": {
            m: {"risk_level": risk_level(m, r[0]), "credit_score": r[1], "confidence": r[2]}
            for m, r in results.items()
        },
        "pairwise_comparisons": plain(list(pairwise_comparisons)) if pairwise_comparisons else [],
        "duration_ms": _duration(duration_ms),
        "status": "ok",
    }


def judge_row(result: JudgeResult, *, cost_usd: float | None = None) -> Row:
    """An ``llm_judge_results`` row. An error result keeps its scores None (never 0) and
    carries the reason in ``error``; ``evaluation_cost`` is None unless a price is known."""
    if not isinstance(result, JudgeResult):
        raise ValueError(f"result must be a JudgeResult, got {result!r}")
    row: Row = {"model_used": result.model, "temperature": result.temperature}
    row.update({f"{d}_score": result.scores[d] for d in DIMENSIONS})
    row["overall_score"] = result.overall
    row["eval_status"] = eval_status(result.overall)
    row.update({f"{d}_reasoning": result.reasoning[d] for d in DIMENSIONS})
    row.update({
        "overall_reasoning": result.overall_reasoning,
        "benchmark_alignment": result.benchmark_alignment,
        "benchmark_comparison": result.benchmark_comparison,
        "suggestions": result.suggestions,
        "tokens_used": result.total_tokens,
        "evaluation_cost": None if cost_usd is None else non_negative("cost_usd", cost_usd),
        "duration_ms": result.duration_ms,
        "status": result.status,
        "error": result.error,
    })
    return row
