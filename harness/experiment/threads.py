"""Scoring whole conversations: a thread scorer judges a thread (all its turns) at once.

A thread scorer is ``fn(thread, case)``, sync or async, returning what a run scorer returns
(a number, a bool, a :class:`harness.Score` or a dict of them). ``thread`` is a
:class:`ThreadSnapshot` read back from the store: ``runs`` (each a
:class:`~.scoring.RunSnapshot`, as a run scorer sees it), ``messages`` (the conversation
across turns), ``interrupts`` (each question asked, where, and the answer it got),
``final_answer``, ``status`` (``completed``, ``waiting``, ``failed``); ``case`` is the dataset
case the thread played in an experiment, else None.

Where its scores live: once per thread, in the ``scores`` sheet, on the run that was the
thread's last turn when it was scored, with the thread's id in ``scores.thread_id`` and a row
key of the thread's (not the run's). Scored again after the thread grew, the score moves to
the new last turn (the earlier turn's pass is recomputed); a thread has one score of each
name. A thread score that has a pass gates that run's pass like any score of it, and so the
thread's pass, and ``compare`` reads it as the case's score.

Thread scorers are called by the same engine as run scorers (:func:`.scoring.call_scorers`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluators import SourcedScore, conversation, run_passed, thread_status

from ..secrets.redact import Redactor, host_redactor
from ..store import preview_data, thread_runs
from ..tracing.record import now_iso, score_row
from ..tracing.rows import redact_rows
from .answer import answer_of
from .dataset import Case
from .errors import ExperimentError
from .scorer_call import ScorerCalls, ScorerLimits
from .scoring import RunSnapshot, Scorer, ScoringSummary, call_scorers, case_of, scorers_of, snapshots

#: Threads read, scored and written at a time.
BATCH_THREADS = 50


@dataclass(frozen=True, slots=True)
class Interrupt:
    """A question a turn stopped at: its turn and run, the node (and tool) that asked, the
    value given to ``interrupt(...)``, LangGraph's id, and the answer the next turn resumed
    with (None while the thread waits for it)."""

    turn: int
    run_id: str
    node: str | None
    value: Any
    id: str | None = None
    tool: str | None = None
    answer: Any = None
    answered: bool = False


@dataclass(frozen=True, slots=True)
class ThreadSnapshot:
    """A conversation as a thread scorer reads it (read-only): see the module doc."""

    thread_id: str
    runs: tuple[RunSnapshot, ...]
    messages: tuple[Any, ...]
    interrupts: tuple[Interrupt, ...]
    final_answer: str | None
    status: str

    @property
    def turns(self) -> int:
        return len(self.runs)

    @property
    def last(self) -> RunSnapshot:
        return self.runs[-1]


def thread_key(thread_id: str, name: str) -> str:
    """The row key of a thread's score of a name: a thread has one score of each name."""
    return f"thread:{hashlib.sha256(thread_id.encode()).hexdigest()[:32]}:score:{name}"


def _messages(value: Any) -> list[Any] | None:
    found = value.get("messages") if isinstance(value, Mapping) else None
    return found if isinstance(found, list) else None


def _answered(asked: Sequence[Mapping[str, Any]], resume: Any) -> dict[Any, Any]:
    """Interrupt id (or place) -> the answer a resume gave it: one value answers them all, a
    map of interrupt id -> answer answers those it names."""
    if isinstance(resume, Mapping) and any(i.get("id") in resume for i in asked):
        return {i.get("id"): resume[i.get("id")] for i in asked if i.get("id") in resume}
    return {i.get("id", k): resume for k, i in enumerate(asked)}


def thread_snapshot(thread_id: str, runs: Sequence[RunSnapshot], extra: Mapping[str, Mapping[str, Any]],
                    previews: Mapping[str, Mapping[str, Any]]) -> ThreadSnapshot:
    """A thread from its runs in order, each run's ``interrupts``/``resume`` (``extra``) and,
    for a run that stored no ``inputs``/``outputs``, its root graph's previews."""
    interrupts: list[Interrupt] = []
    turns_said = []
    for number, run in enumerate(runs, start=1):
        own, preview = extra.get(run.run_id, {}), previews.get(run.run_id, {})
        given = run.inputs if run.inputs is not None else preview.get("input")
        returned = run.outputs if run.outputs is not None else preview.get("output")
        turns_said.append((_messages(given), _messages(returned)))
        asked = [i for i in own.get("interrupts") or () if isinstance(i, Mapping)]
        following = extra.get(runs[number].run_id, {}) if number < len(runs) else {}
        answers = _answered(asked, following.get("resume")) if following.get("resume") is not None else {}
        for k, i in enumerate(asked):
            key = i.get("id", k)
            interrupts.append(Interrupt(turn=number, run_id=run.run_id, node=i.get("node"), value=i.get("value"),
                                        id=i.get("id"), tool=i.get("tool"), answer=answers.get(key),
                                        answered=key in answers))
    last = runs[-1]
    waiting = bool(extra.get(last.run_id, {}).get("interrupts"))
    status = thread_status(last.status, waiting)
    final = None
    if status == "completed":
        returned = last.outputs if last.outputs is not None else previews.get(last.run_id, {}).get("output")
        final = last.answer if last.answer is not None else answer_of(returned) if returned is not None else None
    return ThreadSnapshot(thread_id=thread_id, runs=tuple(runs), messages=tuple(conversation(turns_said)),
                          interrupts=tuple(interrupts), final_answer=final, status=status)


def thread_snapshots(store: Any, thread_ids: Sequence[str]) -> Iterable[tuple[ThreadSnapshot, Case | None]]:
    """Each thread of ``thread_ids`` the store has, with the dataset case it played (its last
    run's case, in an experiment; else None), read a few threads at a time."""
    for start in range(0, len(thread_ids), BATCH_THREADS):
        chunk = list(thread_ids[start:start + BATCH_THREADS])
        order = {thread: [r.run_id for r in runs] for thread, runs in thread_runs(store, chunk).items()}
        ids = [run_id for thread in chunk for run_id in order.get(thread, ())]
        if not ids:
            continue
        read = {run.run_id: (run, case) for run, case in snapshots(store, ids)}
        extra: dict[str, dict[str, Any]] = {}
        previews: dict[str, dict[str, Any]] = {}
        for i in range(0, len(ids), 400):
            part = ids[i:i + 400]
            extra.update((r["run_id"], r) for r in store.rows("runs", part, columns=["run_id", "interrupts", "resume",
                                                                                   "inputs", "outputs"]))
            lacking = [r for r in part if extra.get(r, {}).get("inputs") is None
                       or extra.get(r, {}).get("outputs") is None]
            for event in store.rows("langgraph_events", lacking, where={"event_kind": "graph"},
                                    columns=["run_id", "status", "input_preview", "output_preview",
                                             "parent_event_id"]):
                if event["parent_event_id"] is None:
                    seen = previews.setdefault(event["run_id"], {})
                    if event["status"] == "started":
                        seen.setdefault("input", preview_data(event["input_preview"]))
                    else:
                        seen.setdefault("output", preview_data(event["output_preview"]))
        for thread in chunk:
            runs = [read[r][0] for r in order.get(thread, ()) if r in read]
            if runs:
                case = read[runs[-1].run_id][1] if runs[-1].case_id is not None else None
                yield thread_snapshot(thread, runs, extra, previews), case


# --- scoring ---------------------------------------------------------------------------------

def score_threads(store: Any, thread_ids: Sequence[str], scorers: Sequence[Scorer], *, concurrency: int = 4,
                  replace: bool = False, summary: ScoringSummary | None = None,
                  redact: Redactor | None = None, limits: ScorerLimits | None = None) -> ScoringSummary:
    """Score the threads ``thread_ids`` with thread ``scorers`` and store their scores once per
    thread (see the module doc); ``runs.passed`` follows. Without ``replace`` a name the
    thread already has a score of is not written (counted in ``refused``). ``summary.runs``
    counts threads. ``limits``: each call's time limit and isolation, as for run scorers."""
    if concurrency < 1:
        raise ExperimentError("concurrency must be at least 1")
    summary = summary if summary is not None else ScoringSummary()
    redact = redact or host_redactor(())
    batch: list[tuple[ThreadSnapshot, Case | None]] = []
    calls = ScorerCalls(scorers, limits, redact=redact, workers=concurrency)

    def flush() -> None:
        results = call_scorers(batch, scorers, concurrency, calls)
        _write(store, batch, results, replace, summary, redact)
        batch.clear()

    try:
        for pair in thread_snapshots(store, list(dict.fromkeys(thread_ids))):
            batch.append(pair)
            if len(batch) >= BATCH_THREADS:
                flush()
        if batch:
            flush()
    finally:
        calls.close()
    return summary


def _write(store: Any, batch: list[tuple[ThreadSnapshot, Case | None]],
           results: list[list[tuple[Scorer, list[SourcedScore]]]], replace: bool, summary: ScoringSummary,
           redact: Redactor) -> None:
    created = now_iso()
    rows, made_by = [], {}
    for (thread, _), scored in zip(batch, results):
        summary.runs += 1
        for scorer, scores in scored:
            for s in scores:
                row = score_row(thread.last.run_id, s, created)
                row.update(row_key=thread_key(thread.thread_id, s.result.name), thread_id=thread.thread_id)
                rows.append(row)
                made_by[row["row_key"]] = scorer.name
    threads = [thread.thread_id for thread, _ in batch]
    before = {r["row_key"]: r["run_id"] for r in store.rows("scores", columns=["run_id"],
                                                             where={"thread_id": threads}, with_keys=True)}
    if not replace:
        kept = []
        for row in rows:
            if row["row_key"] in before:
                summary.refused[row["name"]] = summary.refused.get(row["name"], 0) + 1
            else:
                kept.append(row)
        rows = kept
    for row in rows:
        if row.get("error"):
            summary.failed += 1
            name = made_by[row["row_key"]]
            summary.errored[name] = summary.errored.get(name, 0) + 1
            if len(summary.errors) < 5:
                summary.errors.append(f"{row['name']} on thread {row['thread_id']}: {row['error']}")
    redact_rows(rows, redact)
    moved = sorted({before[r["row_key"]] for r in rows if r["row_key"] in before} - {r["run_id"] for r in rows})
    summary.scores += store.write_scores(rows, replace=replace, passed=run_passed, also=moved)


def experiment_threads(store: Any, experiment: str) -> list[str]:
    """The threads of an experiment's runs, in the order their first runs were written."""
    return list(dict.fromkeys(r["thread_id"] for r in store.rows("runs", columns=["thread_id"],
                                                                  where={"experiment": experiment})
                              if r["thread_id"] is not None))


def all_threads(store: Any) -> list[str]:
    """Every thread of the store."""
    return list(thread_runs(store))


def resolve_threads(store: Any, given: Iterable[str]) -> list[str]:
    """Thread ids as a user gives them (whole, or a unique start of 4+ characters)."""
    from ..store import ThreadIdError, resolve_thread_id

    try:
        return list(dict.fromkeys(resolve_thread_id(store, text) for text in given))
    except ThreadIdError as exc:
        raise ExperimentError(str(exc)) from None


def rescore_threads(harness: Any, scorers: Iterable[Any], *, threads: Sequence[str] | None = None,
                    experiment: str | None = None, replace: bool = False, concurrency: int = 4,
                    limits: ScorerLimits | None = None) -> ScoringSummary:
    """Score threads with thread ``scorers`` from the store (nothing is run again): the
    threads named (``threads``: ids or unique starts), else those of ``experiment``, else every
    thread of the store. A scorer whose name a chosen thread already has a score of is refused
    (the :class:`ExperimentError` names it) unless ``replace``. ``limits``: each call's time
    limit and isolation."""
    chosen = scorers_of(scorers)
    if not chosen:
        raise ExperimentError("give at least one thread scorer (--scorer MODULE:FUNCTION)")
    harness.flush()
    store = harness.store
    if threads:
        ids = resolve_threads(store, threads)
    elif experiment is not None:
        ids = experiment_threads(store, experiment)
        if not ids:
            raise ExperimentError(f"no experiment {experiment!r} with threads in the store")
    else:
        ids = all_threads(store)
        if not ids:
            raise ExperimentError("the store has no threads (a run has one when its config names a thread_id)")
    if not replace:
        taken = {r["name"] for start in range(0, len(ids), 500)
                 for r in store.rows("scores", columns=["name"], where={"thread_id": ids[start:start + 500]})}
        clash = sorted({s.name for s in chosen} & taken)
        if clash:
            raise ExperimentError(f"the threads already have scores named {', '.join(map(repr, clash))}; "
                                  "give --replace to replace them")
    return score_threads(store, ids, chosen, concurrency=concurrency, replace=replace,
                         redact=host_redactor(harness.redact_rules), limits=limits)


__all__ = ["Interrupt", "ThreadSnapshot", "all_threads", "experiment_threads", "rescore_threads", "score_threads",
           "thread_key", "thread_snapshots"]
