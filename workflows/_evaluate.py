"""The ``evaluate_assessment`` node (``workflow_evaluator``): scores what the run really did.

Selected tools are the tools that ran (the run's ``tool_calls`` rows), the trajectory is the
observed one (its ``langgraph_events`` rows), expected tools and trajectory come from the
company type. Rows are built by :mod:`evaluators` and logged through the run. Without a
harness run the node still scores, from the state: tools from the source results and the
trajectory from the order the nodes reported in.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from langchain_core.runnables import RunnableConfig

from evaluators import (
    LLMJudge,
    agent_metrics_row,
    evaluation_row,
    judge_row,
    observed_trajectory,
    tool_selection_row,
)
from harness import cost, current_run

from ._company import EXPECTED_TOOLS, TOOL_NAMES, expected_trajectory
from ._prompts import LLM_JUDGE
from ._state import CreditState

#: Assessment fields shown to the judge.
JUDGED_FIELDS = ("risk_level", "credit_score", "confidence", "reasoning", "risk_factors", "positive_factors",
                 "recommendations", "data_gaps")


def _latency_ms(events: list[dict[str, Any]]) -> float | None:
    stamps = [e["timestamp"] for e in events if e.get("timestamp")]
    if not stamps:
        return None
    first = min(datetime.fromisoformat(s) if isinstance(s, str) else s for s in stamps)
    return max(0.0, (datetime.now(first.tzinfo) - first).total_seconds() * 1000)


def evaluate(state: CreditState, config: RunnableConfig, *, judge_model: Any, judge: bool) -> dict[str, Any]:
    start = time.perf_counter()
    run = current_run(config)
    kind = state.get("company_type") or "unknown"
    expected = list(EXPECTED_TOOLS[kind])
    results = state.get("source_results") or {}
    plan = state.get("plan") or {}
    assessment = state.get("assessment") or {}
    if run is not None:
        tool_rows = run.rows("tool_calls")
        events = run.rows("langgraph_events")
        selected = list(dict.fromkeys(r["tool_name"] for r in tool_rows if r.get("tool_name") in TOOL_NAMES))
        trajectory = observed_trajectory(events)
        n_calls, latency = len(tool_rows), _latency_ms(events)
    else:
        selected = [t for t in TOOL_NAMES if t in results]
        trajectory = [*(state.get("node_results") or {}), "evaluate_assessment"]
        n_calls, latency = len(results), None
    payloads = {name: r["data"] if r["status"] == "ok" else None for name, r in results.items()}
    model = assessment.get("model")
    rows: dict[str, dict[str, Any]] = {
        "tool_selections": tool_selection_row(selected, expected, model=plan.get("model"),
                                              reasoning=plan.get("reasoning", ""), duration_ms=plan.get("duration_ms")),
        "agent_metrics": agent_metrics_row(
            company_input=str(state.get("company_name") or ""), company_info=state.get("company_info"),
            plan=plan.get("tasks"), selected_tools=selected, expected_tools=expected,
            actual_trajectory=trajectory, expected_trajectory=expected_trajectory(kind), assessment=assessment,
            step_count=len(trajectory), tool_calls=n_calls, latency_ms=latency, model=model),
    }
    rows["evaluations"] = evaluation_row(selected_tools=selected, expected_tools=expected, source_payloads=payloads,
                                         assessment=assessment, model=model,
                                         duration_ms=(time.perf_counter() - start) * 1000)
    if judge:
        rows["llm_judge_results"] = _judge(state, config, judge_model, assessment, results, kind)
    if run is not None:
        for sheet in ("tool_selections", "evaluations", "agent_metrics", "llm_judge_results"):
            if sheet in rows:
                run.log(sheet, rows[sheet], config=config)
        run.set_result(evaluation_score=rows["evaluations"]["overall_score"])
    evaluation = {
        "selected_tools": selected, "expected_tools": expected, "trajectory": trajectory,
        "tool_f1": rows["tool_selections"]["f1_score"],
        "data_quality": rows["evaluations"]["data_quality_score"],
        "synthesis": rows["evaluations"]["synthesis_score"],
        "overall_score": rows["evaluations"]["overall_score"],
        "agent_overall": rows["agent_metrics"]["overall_score"],
        "judge_overall": rows.get("llm_judge_results", {}).get("overall_score"),
        "judge_status": rows.get("llm_judge_results", {}).get("status"),
    }
    return {"evaluation": evaluation, "node_results": {"evaluate_assessment": "ok"}}


def _judge(state: CreditState, config: RunnableConfig, judge_model: Any, assessment: dict[str, Any],
           results: dict[str, Any], kind: str) -> dict[str, Any]:
    """One judgement at temperature 0, labelled ``llm_judge`` in ``llm_calls``/``prompts``.
    Retries are the model's own (the Groq model retries 429/5xx), so the judge adds none."""
    name = (state.get("company_info") or {}).get("company_name") or str(state.get("company_name") or "").strip()
    if "temperature" in getattr(type(judge_model), "model_fields", {}):
        judge_model = judge_model.model_copy(update={"temperature": 0.0})
    summary = {"company_type": kind,
               **{n: {"status": r["status"], "records_found": r["records_found"]} for n, r in results.items()}}
    labels = LLM_JUDGE.metadata("llm_judge", f"judge the assessment of {name}", {"company": name},
                                context=f"company type {kind}")
    labelled = judge_model.with_config(metadata={**(config.get("metadata") or {}), **labels})
    result = LLMJudge(labelled, max_retries=0).judge({k: assessment.get(k) for k in JUDGED_FIELDS},
                                                     company=name or "(unnamed)", data_summary=summary)
    price = cost(result.model, result.input_tokens, result.output_tokens)
    return judge_row(result, cost_usd=price.total_cost if price is not None else None)
