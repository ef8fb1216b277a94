"""Runs read back from the store: the newest runs, a run's tree.

Everything here reads only what it returns, through :meth:`Store.rows` (filtered, limited and
ordered in the store, on the ``run_id`` index), so it answers as fast on a store of fifty
thousand runs as on one of ten.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from ..store import RunIdError, Store
from .model import RunView, TreeEntry, epoch_ms

#: The ``runs`` columns of a run list (``harness list``, the report's list).
LIST_COLUMNS = ("run_id", "timestamp", "started_at", "workflow", "company_name", "status", "total_time_ms",
                "total_tokens", "total_cost", "evaluation_score", "experiment", "case_id", "repeat_index",
                "model", "error", "passed")

_EVENT_COLUMNS = ("run_id", "event_id", "parent_event_id", "event_kind", "event_name", "status", "error",
                  "timestamp", "duration_ms", "step_number", "langgraph_step", "subgraph_depth",
                  "input_preview", "output_preview", "traceback", "agent_name", "agent_path", "handoff_to")
_LLM_COLUMNS = ("run_id", "llm_call_id", "model", "prompt_tokens", "completion_tokens", "total_tokens",
                "total_cost", "time_to_first_token_ms", "usage_source", "status", "error", "prompt", "response",
                "cache_read_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens", "reasoning_tokens",
                "price_table", "cost_note")
_TOOL_COLUMNS = ("run_id", "tool_call_id", "tool_input", "tool_output", "status", "error", "call_depth", "handoff_to")
#: Sheet -> the columns a run's scores come from.
_SCORE_COLUMNS = {
    "tool_selections": ("run_id", "f1_score", "precision", "recall", "selected_tools", "expected_tools",
                        "missing_tools", "extra_tools"),
    "evaluations": ("run_id", "overall_score", "eval_status", "tool_selection_score", "data_quality_score",
                    "synthesis_score"),
    "llm_judge_results": ("run_id", "overall_score", "eval_status", "status", "error", "accuracy_score",
                          "completeness_score", "consistency_score", "actionability_score",
                          "data_utilization_score"),
    "agent_metrics": ("run_id", "overall_score", "eval_status", "intent_correctness", "plan_quality",
                      "tool_choice_correctness", "tool_completeness", "trajectory_match",
                      "final_answer_quality", "step_count", "tool_calls", "latency_ms", "trajectory_details",
                      "answer_details"),
    "log_tests": ("run_id", "verification_status", "profile", "total_sheets_logged"),
}
#: The columns of a run's scores (the scores sheet) a view shows.
_SCORES_COLUMNS = ("run_id", "name", "value", "passed", "explanation", "source", "scorer", "error", "rater")
#: Runs read per query when many are loaded at once (the report).
_CHUNK = 400


def list_runs(store: Store, *, experiments: Sequence[str] = (), workflows: Sequence[str] = (),
              statuses: Sequence[str] = (), limit: int | None = 20, scores: bool = False) -> list[dict[str, Any]]:
    """The newest runs first, at most ``limit`` (None: all), each as its :data:`LIST_COLUMNS`;
    a non-empty filter keeps the runs whose column is any of its values. ``scores``: each
    also has ``scores``, its scores by name (``value``, ``passed``, ``source``, ``error``)."""
    where = {column: list(values) for column, values in
             (("experiment", experiments), ("workflow", workflows), ("status", statuses)) if values}
    rows = list(store.rows("runs", columns=LIST_COLUMNS, where=where, newest_first=True, limit=limit))
    _mark_unknown(store, rows)
    if scores:
        found = scores_by_run(store, [r["run_id"] for r in rows])
        for row in rows:
            row["scores"] = found.get(row["run_id"], {})
    return rows


def _mark_unknown(store: Store, runs: list[dict[str, Any]]) -> None:
    """``pass_unknown`` on each run without a pass: whether a score that could gate it could
    not be made (:func:`evaluators.pass_unknown`), so it shows ``?`` rather than ``—``."""
    from evaluators import pass_unknown

    open_ = [r for r in runs if r.get("passed") is None]
    for start in range(0, len(open_), _CHUNK):
        chunk = {r["run_id"]: r for r in open_[start:start + _CHUNK]}
        scores: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in store.rows("scores", list(chunk), columns=["run_id", "passed", "error", "scorer"]):
            scores[row["run_id"]].append(row)
        for run_id, run in chunk.items():
            run["pass_unknown"] = pass_unknown(run.get("status"), scores.get(run_id, ()))


def scores_by_run(store: Store, run_ids: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """The runs' scores: run id -> score name -> its ``value``, ``passed``, ``source`` and
    ``error``, read a few hundred runs at a time."""
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for start in range(0, len(run_ids), _CHUNK):
        for row in store.rows("scores", list(run_ids[start:start + _CHUNK]),
                              columns=["run_id", "name", "value", "passed", "source", "error"]):
            out[row.pop("run_id")][row.pop("name")] = row
    return out


def load_run(store: Store, run_id: str) -> RunView:
    """The run ``run_id`` (a full id) with its tree and scores, payloads in full."""
    for view in load_runs(store, [run_id]):
        return view
    raise RunIdError(f"no run {run_id!r} in store {store.display}")


def load_runs(store: Store, run_ids: Sequence[str], *, clip: int | None = None) -> Iterator[RunView]:
    """The runs of ``run_ids`` that the store has, in that order, read a few hundred at a time;
    ``clip`` cuts payloads (previews, prompts, responses, tool input and output) to that many
    characters and leaves them as the text they are stored as (a cut JSON text cannot be
    decoded)."""
    for start in range(0, len(run_ids), _CHUNK):
        chunk = list(run_ids[start:start + _CHUNK])
        runs = {row["run_id"]: row for row in store.rows("runs", chunk)}
        if not runs:
            continue
        ids = list(runs)
        events = _grouped(store.rows("langgraph_events", ids, columns=_EVENT_COLUMNS, clip=clip,
                                     decode_json=clip is None))
        llm = _grouped(store.rows("llm_calls", ids, columns=_LLM_COLUMNS, clip=clip))
        tools = _grouped(store.rows("tool_calls", ids, columns=_TOOL_COLUMNS, clip=clip, decode_json=clip is None))
        scored = {sheet: {row["run_id"]: row for row in store.rows(sheet, ids, columns=columns)}
                  for sheet, columns in _SCORE_COLUMNS.items()}
        listed = _grouped(store.rows("scores", ids, columns=_SCORES_COLUMNS))
        for run_id in chunk:
            if run_id in runs:
                run = runs[run_id]
                yield _view(run, events.get(run_id, []), llm.get(run_id, []), tools.get(run_id, []),
                            {sheet: rows.get(run_id) for sheet, rows in scored.items()}, listed.get(run_id, []))


def _grouped(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row["run_id"]].append(row)
    return out


def _view(run: dict[str, Any], events: list[dict[str, Any]], llm: list[dict[str, Any]],
          tools: list[dict[str, Any]], scored: Mapping[str, dict[str, Any] | None],
          listed: list[dict[str, Any]]) -> RunView:
    executions = _executions(events)
    calls = {row["llm_call_id"]: row for row in llm} | {row["tool_call_id"]: row for row in tools}
    tree = _tree(executions, calls)
    # The timeline starts with the graph (else the run, else its first call) and lasts until
    # the last thing recorded ended.
    graph = next((e for e in executions.values() if e["kind"] == "graph" and not e["parent"]), None)
    times = [(s, s + (e["duration_ms"] or 0.0)) for e in executions.values()
             if (s := epoch_ms(e["started_at"])) is not None]
    start = next((t for t in (epoch_ms(graph and graph["started_at"]), epoch_ms(run.get("started_at")),
                              min((s for s, _ in times), default=None)) if t is not None), None)
    span = max(end - start for _, end in times) if times and start is not None else (run.get("total_time_ms") or 0.0)
    if run.get("passed") is None:
        from evaluators import pass_unknown

        run["pass_unknown"] = pass_unknown(run.get("status"), listed)
    scores = {"passed": None if run.get("passed") is None else bool(run["passed"]),
              "pass_unknown": bool(run.get("pass_unknown")),
              "list": [{k: v for k, v in row.items() if k != "run_id"} for row in listed], **_scores(run, scored)}
    return RunView(run=run, tree=tree, scores=scores, started_ms=start, span_ms=span,
                   graph_io={"input": graph["input"], "output": graph["output"]} if graph else {})


def _executions(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Start and end rows of each execution merged into one record, in the order they started."""
    out: dict[str, dict[str, Any]] = {}
    for row in events:
        e = out.get(row["event_id"])
        if e is None:
            e = out[row["event_id"]] = {
                "id": row["event_id"], "parent": row["parent_event_id"], "kind": row["event_kind"],
                "name": row["event_name"], "started_at": None, "duration_ms": None, "status": "unfinished",
                "error": None, "traceback": None, "input": None, "output": None, "step": row["step_number"],
                "langgraph_step": row["langgraph_step"], "subgraph_depth": row["subgraph_depth"],
                "agent": row["agent_name"], "agent_path": row["agent_path"] or row["agent_name"], "handoff_to": None}
        if row["status"] == "started":
            e["started_at"], e["input"] = row["timestamp"], row["input_preview"]
        else:
            e["status"], e["error"], e["output"] = row["status"], row["error"], row["output_preview"]
            e["traceback"] = row["traceback"]
            e["duration_ms"], e["handoff_to"] = row["duration_ms"], row["handoff_to"]
            if e["started_at"] is None:  # no start row: place it by its end and duration
                e["started_at"] = _before(row["timestamp"], row["duration_ms"])
    return out


def _before(iso: str | None, ms: float | None) -> str | None:
    if not iso:
        return None
    try:
        return (datetime.fromisoformat(iso) - timedelta(milliseconds=ms or 0.0)).isoformat(timespec="microseconds")
    except ValueError:
        return iso


def _tree(executions: dict[str, dict[str, Any]], calls: Mapping[str, dict[str, Any]]) -> tuple[TreeEntry, ...]:
    """Nodes, model calls and tool calls under their nearest recorded ancestor of those kinds
    (graphs and subgraphs are not entries: their nodes hang under the node that ran them)."""
    children: dict[str | None, list[str]] = defaultdict(list)
    for eid, e in executions.items():
        if e["kind"] not in ("node", "llm", "tool"):
            continue
        parent = e["parent"]
        while parent is not None and parent in executions and executions[parent]["kind"] not in ("node", "llm", "tool"):
            parent = executions[parent]["parent"]
        children[parent if parent in executions else None].append(eid)
    order = {eid: i for i, eid in enumerate(executions)}

    def build(eid: str) -> TreeEntry:
        e = executions[eid]
        kids = sorted(children.get(eid, []), key=lambda k: (executions[k]["started_at"] or "", order[k]))
        status, error, details = _details(e, calls.get(eid))
        return TreeEntry(kind=e["kind"], id=eid, name=e["name"], started_at=e["started_at"],
                         duration_ms=e["duration_ms"], status=status, error=error, details=details,
                         children=tuple(build(k) for k in kids), traceback=e["traceback"])

    top = sorted(children.get(None, []), key=lambda k: (executions[k]["started_at"] or "", order[k]))
    return tuple(build(eid) for eid in top)


def _written(call: dict[str, Any]) -> int | None:
    """Tokens the call wrote to the prompt cache, both lifetimes; None when it did not say."""
    parts = [call.get("cache_write_5m_tokens"), call.get("cache_write_1h_tokens")]
    return None if all(p is None for p in parts) else sum(p or 0 for p in parts)


def _details(e: dict[str, Any], call: dict[str, Any] | None) -> tuple[Any, str | None, dict[str, Any]]:
    """The entry's status, error, agent and its kind's own fields (from its llm_calls or tool_calls row)."""
    status, error = e["status"], e["error"]
    agent = {"agent": e["agent"], "agent_path": e["agent_path"]}
    if e["kind"] == "node":
        return status, error, {**agent, "step": e["step"], "langgraph_step": e["langgraph_step"],
                               "subgraph_depth": e["subgraph_depth"], "input": _json_or_text(e["input"]),
                               "output": _json_or_text(e["output"]), "handoff_to": e["handoff_to"]}
    call = call or {}
    if e["kind"] == "llm":
        return status, error or call.get("error"), {
            **agent, "model": call.get("model"), "prompt_tokens": call.get("prompt_tokens"),
            "completion_tokens": call.get("completion_tokens"), "total_tokens": call.get("total_tokens"),
            "cost": call.get("total_cost"), "time_to_first_token_ms": call.get("time_to_first_token_ms"),
            "usage_source": call.get("usage_source"), "cache_read_tokens": call.get("cache_read_tokens"),
            "cache_write_tokens": _written(call), "reasoning_tokens": call.get("reasoning_tokens"),
            "price_table": call.get("price_table"), "cost_note": call.get("cost_note"),
            # the call's row has the prompt and response whole; the events only their previews
            "input": call["prompt"] if call.get("prompt") is not None else e["input"],
            "output": call["response"] if call.get("response") is not None else e["output"]}
    if call.get("status") == "fail" and status == "ok":  # the tool answered with an error message
        status, error = "error", call.get("error")
    return status, error, {
        **agent, "call_depth": call.get("call_depth"),
        "input": call["tool_input"] if "tool_input" in call else e["input"],
        "output": call["tool_output"] if "tool_output" in call else e["output"],
        "handoff_to": call.get("handoff_to") or e["handoff_to"]}


def _json_or_text(preview: str | None) -> Any:
    """A node's input or output preview as the data it shows (text when it is not whole JSON,
    e.g. cut at the preview's length)."""
    if preview and preview[:1] in "{[":
        try:
            return json.loads(preview)
        except ValueError:
            pass
    return preview


def _case(run: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A dataset case's outcome: passed, and the answer check (what was compared, its score)."""
    if run.get("case_id") is None or run.get("passed") is None:
        return None
    details = (metrics or {}).get("answer_details")
    answer = details if isinstance(details, dict) and "check" in details else None
    return {"passed": bool(run["passed"]), "answer": answer and {
        k: answer.get(k) for k in ("check", "score", "threshold", "answer", "reference", "reason")}}


def _scores(run: Mapping[str, Any], scored: Mapping[str, dict[str, Any] | None]) -> dict[str, Any]:
    """The run's scores by kind; None where the run has none of that kind."""
    selection, evaluation = scored.get("tool_selections"), scored.get("evaluations")
    judge, metrics, log = scored.get("llm_judge_results"), scored.get("agent_metrics"), scored.get("log_tests")
    trajectory = None
    if metrics and metrics.get("trajectory_match") is not None:
        details = metrics.get("trajectory_details") if isinstance(metrics.get("trajectory_details"), dict) else {}
        trajectory = {"match": metrics["trajectory_match"], "actual": details.get("actual"),
                      "expected": details.get("expected"), "missing": details.get("missing"),
                      "extra": details.get("extra")}
    return {
        "tool_selection": selection and {
            "f1": selection["f1_score"], "precision": selection["precision"], "recall": selection["recall"],
            "selected": selection["selected_tools"], "expected": selection["expected_tools"],
            "missing": selection["missing_tools"], "extra": selection["extra_tools"]},
        "trajectory": trajectory,
        "evaluation": ({"score": run.get("evaluation_score"),
                        "status": evaluation and evaluation["eval_status"],
                        "tool_selection": evaluation and evaluation["tool_selection_score"],
                        "data_quality": evaluation and evaluation["data_quality_score"],
                        "synthesis": evaluation and evaluation["synthesis_score"]}
                       if evaluation or run.get("evaluation_score") is not None else None),
        "judge": judge and {
            "overall": judge["overall_score"], "status": judge["eval_status"], "outcome": judge["status"],
            "error": judge["error"], "accuracy": judge["accuracy_score"], "completeness": judge["completeness_score"],
            "consistency": judge["consistency_score"], "actionability": judge["actionability_score"],
            "data_utilization": judge["data_utilization_score"]},
        "agent_metrics": metrics and {key: metrics[key] for key in (
            "overall_score", "eval_status", "intent_correctness", "plan_quality", "tool_choice_correctness",
            "tool_completeness", "trajectory_match", "final_answer_quality", "step_count", "tool_calls",
            "latency_ms")},
        "case": _case(run, metrics),
        "log_test": log and {"status": log["verification_status"], "profile": log["profile"],
                             "sheets_logged": log["total_sheets_logged"]},
    }


def score_summary(store: Store, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Per score name of the runs (in the order names first appear): runs scored, the mean
    value, how many passed of the runs it gates, how many could not be scored and the first
    such error, and its source."""
    out: dict[str, dict[str, Any]] = {}
    for start in range(0, len(run_ids), _CHUNK):
        for row in store.rows("scores", list(run_ids[start:start + _CHUNK]),
                              columns=["name", "value", "passed", "source", "error", "run_id"]):
            entry = out.setdefault(row["name"], {"name": row["name"], "source": row["source"], "runs": set(),
                                                 "values": [], "passed": 0, "gated": 0, "errors": 0,
                                                 "first_error": None})
            entry["runs"].add(row["run_id"])  # a run labelled by several people counts once
            if row["value"] is not None:
                entry["values"].append(row["value"])
            if row["passed"] is not None:
                entry["gated"] += 1
                entry["passed"] += int(row["passed"])
            if row["error"]:
                entry["errors"] += 1
                entry["first_error"] = entry["first_error"] or f"run {row['run_id']}: {row['error']}"
    for entry in out.values():
        entry["runs"] = len(entry["runs"])
        values = entry.pop("values")
        entry["mean"] = sum(values) / len(values) if values else None
    return list(out.values())
