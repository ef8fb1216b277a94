"""Evaluation rows for a generic wrapped LangGraph run, built from its captured rows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ._agent import agent_overall
from ._checks import is_missing, is_number, names
from ._rows import Row, explain_tools, plain, tool_details, tool_selection_row
from ._status import eval_status
from ._tools import tool_selection
from ._trajectory import as_time, event_int, is_node_start, observed_trajectory, text, trajectory_match

_END_TYPES = ("on_chain_end", "on_chain_error")


def _rows(rows_by_sheet: Mapping[str, Iterable[Mapping[str, Any]]], sheet: str) -> list[Mapping[str, Any]]:
    rows = list(rows_by_sheet.get(sheet) or ())
    for row in rows:
        if not isinstance(row, Mapping):
            raise ValueError(f"{sheet} rows must be mappings, got {row!r}")
    return rows


def run_latency_ms(events: Sequence[Mapping[str, Any]]) -> float | None:
    """Wall time of a run from its ``langgraph_events`` rows: the summed ``duration_ms`` of
    the top-level graph executions (``event_kind == "graph"``, depth 0, end/error rows);
    without those, the span from the first to the last timestamp; no rows -> None."""
    top = [
        float(r["duration_ms"]) for r in events
        if r.get("event_kind") == "graph" and r.get("event_type") in _END_TYPES
        and event_int(r, "subgraph_depth") == 0 and is_number(r.get("duration_ms"))
        and not is_missing(r.get("duration_ms"))
    ]
    if top:
        return sum(top)
    stamps = [as_time(r["timestamp"]) for r in events if isinstance(r.get("timestamp"), (str, datetime))]
    if not stamps:
        return None
    return (max(stamps) - min(stamps)).total_seconds() * 1000


def generic_run_rows(
    rows_by_sheet: Mapping[str, Iterable[Mapping[str, Any]]],
    *,
    expected_tools: Sequence[str] | None = None,
    reference_trajectory: Sequence[str] | None = None,
    answer: Mapping[str, Any] | None = None,
) -> dict[str, list[Row]]:
    """Evaluation rows for a wrapped run, from its ``langgraph_events``, ``tool_calls`` and
    ``llm_calls`` rows.

    - ``expected_tools`` given: a ``tool_selections`` row whose selected tools are the
      distinct names of the tools that actually ran (``tool_calls`` rows, failed ones
      included, in order of first call).
    - either given: an ``agent_metrics`` row. Tool choice/completeness (precision/recall)
      come from the tools when ``expected_tools`` is given; trajectory match compares
      :func:`observed_trajectory` with ``reference_trajectory`` when that is given; intent,
      plan and answer quality do not apply (None), and the overall is renormalised over the
      parts present. ``step_count`` = node executions (start rows, any depth),
      ``tool_calls`` = ``tool_calls`` rows, ``latency_ms`` from :func:`run_latency_ms`,
      ``model`` = the distinct models of ``llm_calls`` joined by ", " (None if none).
    - ``answer`` given (a dataset case's answer check: ``score`` in [0, 1] or None, with
      ``check``, ``threshold`` and what was compared): it is ``final_answer_quality`` and
      ``answer_details`` of the ``agent_metrics`` row, and part of its overall.
    - none given: ``{}``. Sheets without rows are left out of the result.
    """
    if not isinstance(rows_by_sheet, Mapping):
        raise ValueError(f"rows_by_sheet must map sheet name -> rows, got {rows_by_sheet!r}")
    if expected_tools is None and reference_trajectory is None and answer is None:
        return {}
    events = _rows(rows_by_sheet, "langgraph_events")
    calls = _rows(rows_by_sheet, "tool_calls")
    used = list(dict.fromkeys(name for r in calls if (name := text(r.get("tool_name")))))
    failed = sum(1 for r in calls if text(r.get("status")) not in (None, "ok"))
    out: dict[str, list[Row]] = {}
    choice = completeness = trajectory = None
    tools_json = trajectory_json = None
    if expected_tools is not None:
        expected = names("expected_tools", expected_tools)
        ts = tool_selection(used, expected)
        note = f"tools that ran: {len(calls)} call(s), {failed} failed; {explain_tools(ts)}"
        out["tool_selections"] = [tool_selection_row(used, expected, reasoning=note)]
        choice, completeness = ts.precision, ts.recall
        tools_json = tool_details(used, expected, ts)
    if reference_trajectory is not None:
        reference = names("reference_trajectory", reference_trajectory)
        actual = observed_trajectory(events)
        tm = trajectory_match(actual, reference)
        trajectory = tm.score
        trajectory_json = {"actual": actual, "expected": reference, **plain(tm)}
    overall = agent_overall(
        intent=None, plan=None, tool_choice=choice, tool_completeness=completeness,
        trajectory=trajectory, answer=answer.get("score") if answer else None,
    )
    models = list(dict.fromkeys(m for r in _rows(rows_by_sheet, "llm_calls") if (m := text(r.get("model")))))
    out["agent_metrics"] = [{
        "model": ", ".join(models) or None,
        "intent_correctness": None,
        "plan_quality": None,
        "tool_choice_correctness": choice,
        "tool_completeness": completeness,
        "trajectory_match": trajectory,
        "final_answer_quality": answer.get("score") if answer else None,
        "step_count": sum(1 for r in events if is_node_start(r)),
        "tool_calls": len(calls),
        "latency_ms": run_latency_ms(events),
        "overall_score": overall,
        "eval_status": eval_status(overall),
        "intent_details": None,
        "plan_details": None,
        "tool_details": tools_json,
        "trajectory_details": trajectory_json,
        "answer_details": dict(answer) if answer else None,
        "status": "ok",
    }]
    return out
