"""Threads read back from the store: the list of conversations (``harness threads``) and one
conversation turn by turn (``harness show --thread``, the report's thread view).

A thread is the runs of one ``thread_id`` in order (:mod:`harness.store.threads` numbers
them). Its status is its last turn's (:func:`evaluators.thread_status`: ``waiting`` when a
person is to answer an interrupt), its pass every turn's that has one
(:func:`evaluators.thread_passed`), and its tokens, cost and time the sums of its runs' own
figures (:func:`evaluators.total`): nothing is measured twice, so the audit's sums of the
runs sheet say the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from evaluators import thread_passed, thread_status, total

from ..store import Store, ThreadIdError, ThreadRun, preview_data, thread_runs

#: The ``runs`` columns a thread's turns show beyond its summary.
_TURN_COLUMNS = ("run_id", "inputs", "outputs", "interrupts", "resume", "resumed_from", "error")
_GRAPH_COLUMNS = ("run_id", "status", "input_preview", "output_preview", "parent_event_id")
_SCORE_COLUMNS = ("run_id", "name", "value", "passed", "explanation", "source", "scorer", "error", "thread_id")
_CHUNK = 400


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    """One thread as ``harness threads`` lists it: its turns, the status its last turn left it
    in, when it started and last ended, the sums of its runs' time, tokens and cost, its pass,
    and its last run (to ``show``)."""

    thread_id: str
    turns: int
    status: str
    first_at: str | None
    last_at: str | None
    total_time_ms: float | None
    total_tokens: int | None
    total_cost: float | None
    passed: bool | None
    last_run_id: str
    workflow: str | None
    experiment: str | None
    case_id: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarise(thread_id: str, runs: Sequence[ThreadRun]) -> ThreadSummary:
    """A thread's summary from its runs in order."""
    last = runs[-1]
    return ThreadSummary(
        thread_id=thread_id, turns=len(runs), status=thread_status(last.status, last.waiting),
        first_at=runs[0].started_at, last_at=last.completed_at or last.started_at,
        total_time_ms=total(r.total_time_ms for r in runs), total_tokens=total(r.total_tokens for r in runs),
        total_cost=total((r.total_cost for r in runs), digits=8),
        passed=thread_passed(r.passed for r in runs), last_run_id=last.run_id, workflow=last.workflow,
        experiment=last.experiment, case_id=last.case_id)


def list_threads(store: Store, *, experiments: Sequence[str] = (), workflows: Sequence[str] = (),
                 statuses: Sequence[str] = (), limit: int | None = 20) -> list[ThreadSummary]:
    """The threads whose last turn is newest first, at most ``limit`` (None: all); a non-empty
    filter keeps the threads whose runs are of one of its experiments or workflows, or whose
    status is one of ``statuses``."""
    where = {"experiment": list(experiments), "workflow": list(workflows)}
    found = [summarise(thread, runs) for thread, runs in thread_runs(store, where=where).items()]
    if statuses:
        found = [t for t in found if t.status in statuses]
    found.sort(key=lambda t: (t.last_at or "", t.thread_id), reverse=True)
    return found if limit is None else found[:limit]


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a conversation: what it was given (an input, or the answer to the question
    before: ``resume``), the questions it stopped at (``interrupts``: node and value), what it
    returned, how it ended and what it cost; ``run_id`` to ``show`` it in full."""

    turn: int
    run_id: str
    started_at: str | None
    status: str | None
    waiting: bool
    input: Any
    resume: Any
    resumed_from: str | None
    interrupts: list[dict[str, Any]] | None
    output: Any
    error: str | None
    total_time_ms: float | None
    total_tokens: int | None
    total_cost: float | None
    passed: bool | None
    scores: tuple[Mapping[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["scores"] = [dict(s) for s in self.scores]
        return out


@dataclass(frozen=True, slots=True)
class ThreadView:
    """A conversation as the store recorded it: its summary, its turns in order and its
    thread scores (a thread scorer's, kept on the turn that was last when it was scored)."""

    summary: ThreadSummary
    turns: tuple[Turn, ...]
    scores: tuple[Mapping[str, Any], ...]

    @property
    def thread_id(self) -> str:
        return self.summary.thread_id

    def to_dict(self) -> dict[str, Any]:
        return {"thread": self.summary.to_dict(), "turns": [t.to_dict() for t in self.turns],
                "scores": [dict(s) for s in self.scores]}


def load_thread(store: Store, thread_id: str, *, clip: int | None = None) -> ThreadView:
    """The thread ``thread_id`` (a whole id) turn by turn; ``clip`` cuts each input, output
    and preview to that many characters (left as the text they are stored as)."""
    runs = thread_runs(store, [thread_id]).get(thread_id)
    if not runs:
        raise ThreadIdError(f"no thread {thread_id!r} in store {store.display}")
    ids = [r.run_id for r in runs]
    rows: dict[str, dict[str, Any]] = {}
    graphs: dict[str, dict[str, Any]] = {}
    scores: dict[str, list[dict[str, Any]]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        rows.update((r["run_id"], r) for r in store.rows("runs", chunk, columns=_TURN_COLUMNS, clip=clip))
        for event in store.rows("langgraph_events", chunk, columns=_GRAPH_COLUMNS, where={"event_kind": "graph"},
                                clip=clip):
            if event["parent_event_id"] is None:  # the root graph: what the run was given and returned
                seen = graphs.setdefault(event["run_id"], {})
                key = "output" if event["status"] != "started" else "input"
                seen.setdefault(key, event["output_preview" if key == "output" else "input_preview"])
        for score in store.rows("scores", chunk, columns=_SCORE_COLUMNS):
            scores.setdefault(score["run_id"], []).append({k: v for k, v in score.items() if v is not None})
    turns = []
    for number, run in enumerate(runs, start=1):
        row, graph = rows.get(run.run_id, {}), graphs.get(run.run_id, {})
        own = tuple(s for s in scores.get(run.run_id, ()) if not s.get("thread_id"))
        turns.append(Turn(
            turn=run.turn or number, run_id=run.run_id, started_at=run.started_at, status=run.status,
            waiting=run.waiting, input=_either(row.get("inputs"), graph.get("input")),
            resume=row.get("resume"), resumed_from=row.get("resumed_from"), interrupts=row.get("interrupts"),
            output=_either(row.get("outputs"), graph.get("output")) if run.status == "completed" else None,
            error=row.get("error"), total_time_ms=run.total_time_ms, total_tokens=run.total_tokens,
            total_cost=run.total_cost, passed=None if run.passed is None else bool(run.passed), scores=own))
    thread_scores = tuple(s for run_id in ids for s in scores.get(run_id, ()) if s.get("thread_id"))
    return ThreadView(summarise(thread_id, runs), tuple(turns), thread_scores)


def _either(stored: Any, preview: Any) -> Any:
    """What the run stored of a payload, else its root graph's preview (as data when it is
    whole JSON)."""
    return stored if stored is not None else preview_data(preview)


def said(value: Any, role: str | None = None) -> Any:
    """What a person reads of a turn's payload: of a state with ``messages``, the last
    message of ``role`` that says something (``human`` for what was said, ``ai`` for the
    answer), else the last that says something, else the tool calls of the last one; a text
    as it is; anything else as it is (shown as JSON)."""
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list) and value["messages"]:
        messages = value["messages"]
        chosen = next((m for m in reversed(messages) if _role(m) == role and _content(m)), None) if role else None
        chosen = chosen if chosen is not None else next((m for m in reversed(messages) if _content(m)), None)
        if chosen is not None:
            return _content(chosen)
        calls = messages[-1].get("tool_calls") if isinstance(messages[-1], Mapping) else None
        return [{"tool": c.get("name"), "args": c.get("args")} for c in calls or () if isinstance(c, Mapping)] or None
    return value


def _role(message: Any) -> str | None:
    if isinstance(message, Mapping):
        return message.get("type") or message.get("role")
    if isinstance(message, (list, tuple)) and len(message) == 2:  # ("user", "text")
        return {"user": "human", "assistant": "ai"}.get(message[0], message[0])
    return None


def _content(message: Any) -> Any:
    if isinstance(message, Mapping):
        return message.get("content")
    if isinstance(message, (list, tuple)) and len(message) == 2:
        return message[1]
    return message


def question(interrupt: Mapping[str, Any]) -> Any:
    """What an interrupt asked, as a person reads it: its value's ``question`` (or
    ``message``, ``prompt``) when it has one; the action a request asks to approve (Agent
    Inbox's ``action_request``, LangChain's human-in-the-loop ``action_requests``) with its
    arguments; else its ``description``; else the value (a list of one request: that request)."""
    value = interrupt.get("value")
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, Mapping):
        return value
    for key in ("question", "message", "prompt"):
        if isinstance(value.get(key), str):
            return value[key]
    requests = value.get("action_requests") if isinstance(value.get("action_requests"), list) else (
        [value["action_request"]] if isinstance(value.get("action_request"), Mapping) else None)
    if requests:
        return "; ".join(f"approve {r.get('action') or r.get('name')}? {_args(r.get('args'))}" for r in requests
                         if isinstance(r, Mapping))
    if isinstance(value.get("description"), str):
        return value["description"]
    return value


def _args(args: Any) -> str:
    return json.dumps(args, ensure_ascii=False, separators=(", ", ": "), default=str) if args is not None else ""


def answers(turn: Turn, asked: Iterable[Mapping[str, Any]] | None) -> list[tuple[Any, Any]]:
    """(question, answer) for each interrupt ``asked`` (the turn before's) that ``turn``
    answered: one answer for every question, or a map of interrupt id -> answer."""
    asked = list(asked or ())
    resume = turn.resume
    if isinstance(resume, Mapping) and asked and any(i.get("id") in resume for i in asked):
        return [(question(i), resume.get(i.get("id"))) for i in asked if i.get("id") in resume]
    return [(question(asked[0]) if asked else None, resume)]
