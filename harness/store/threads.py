"""Threads in the store: each run's place in its LangGraph thread, and a thread read back.

A thread is the runs of one store with one ``thread_id``, in order of ``started_at`` (ties by
``run_id``). Each run's ``turn`` (its place) and ``resumed_from`` (the run before it, when it
resumed that run's interrupt) are numbered inside the transaction that stores the run
(:func:`link_turns`, called by :meth:`Store.write_run`), from what the store holds then: a
run written before an earlier turn of its thread (two writers, a spool written late) is
numbered again when that turn arrives, so a thread is always one ordered chain. Writers of
one thread in several processes take a lock on the thread first (PostgreSQL: an advisory
transaction lock; SQLite's write lock already serialises them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ThreadIdError, one_named

Store = Any  # a harness.store.base.Store (which imports this module)

#: The ``runs`` columns a thread's summary is made from.
_SUMMARY_COLUMNS = ("thread_id", "run_id", "started_at", "completed_at", "status", "passed", "total_tokens",
                    "total_cost", "total_time_ms", "workflow", "experiment", "case_id", "turn")


def link_turns(store: Store, runs: Iterable[Mapping[str, Any]]) -> None:
    """Number the runs just stored (``runs`` rows, inside the run transaction) in their
    threads: their ``turn`` and ``resumed_from``, and those of later runs of the thread the
    store already had (written before them)."""
    for run in runs:
        thread = run.get("thread_id")
        if thread is None or run.get("started_at") is None:
            continue
        thread = thread if isinstance(thread, str) else str(thread)
        store._lock_thread(thread)
        _link(store, thread, str(run["run_id"]), str(run["started_at"]), run)


def _link(store: Store, thread: str, run_id: str, started: str, run: Mapping[str, Any]) -> None:
    mark = store.placeholder
    # (what the row says of itself: it was just stored as given, or was there already as given)
    turn, resumed_from = run.get("turn"), run.get("resumed_from")
    resumes, interrupted = run.get("resume") is not None, run.get("interrupts") is not None
    before = store._fetchall(
        f'SELECT run_id, turn, interrupts IS NOT NULL FROM "runs" WHERE thread_id = {mark} AND '
        f"(started_at < {mark} OR (started_at = {mark} AND run_id < {mark})) "
        f"ORDER BY started_at DESC, run_id DESC LIMIT 1", (thread, started, started, run_id))
    if not before:
        new_turn, new_from = 1, None
    else:
        previous, previous_turn, previous_interrupted = before[0]
        new_turn = previous_turn + 1 if previous_turn is not None else 1 + int(store._fetchall(
            f'SELECT COUNT(*) FROM "runs" WHERE thread_id = {mark} AND '
            f"(started_at < {mark} OR (started_at = {mark} AND run_id < {mark}))",
            (thread, started, started, run_id))[0][0])
        new_from = previous if resumes and previous_interrupted else None
    updates = []
    if (turn, resumed_from) != (new_turn, new_from):
        updates.append((new_turn, new_from, run_id))
    # Runs of the thread that started later and were stored before this one: one turn on
    # each, and the first of them may have resumed this one.
    later = store._fetchall(
        f'SELECT run_id, turn, resumed_from, resume IS NOT NULL FROM "runs" WHERE thread_id = {mark} AND '
        f"(started_at > {mark} OR (started_at = {mark} AND run_id > {mark})) ORDER BY started_at, run_id",
        (thread, started, started, run_id))
    for i, (later_id, later_turn, later_from, later_resumes) in enumerate(later):
        expected_from = (run_id if later_resumes and interrupted else None) if i == 0 else later_from
        if (later_turn, later_from) != (new_turn + 1 + i, expected_from):
            updates.append((new_turn + 1 + i, expected_from, later_id))
    if updates:
        store._executemany(f'UPDATE "runs" SET turn = {mark}, resumed_from = {mark} WHERE run_id = {mark}', updates)


def renumber(store: Store, thread_ids: Iterable[str] | None = None) -> int:
    """Number the runs of ``thread_ids`` (default: every thread) from scratch, in a few
    queries: for runs that arrived without going through :func:`link_turns` (copied from
    another store, or stored before turns were kept). Returns the runs whose numbers changed."""
    mark = store.placeholder
    ids = None if thread_ids is None else list(dict.fromkeys(str(t) for t in thread_ids if t is not None))
    chunks = [None] if ids is None else [ids[i:i + 500] for i in range(0, len(ids), 500)]
    updates = []
    for chunk in chunks:
        if chunk == []:
            continue
        where = "thread_id IS NOT NULL" if chunk is None else f"thread_id IN ({', '.join([mark] * len(chunk))})"
        rows = store._fetchall(
            f'SELECT thread_id, run_id, turn, resumed_from, resume IS NOT NULL, interrupts IS NOT NULL FROM "runs" '
            f"WHERE {where} ORDER BY thread_id, started_at, run_id", chunk or ())
        previous = None
        for thread, run_id, turn, resumed_from, resumes, interrupted in rows:
            if previous is None or previous[0] != thread:
                expected_turn, expected_from = 1, None
            else:
                expected_turn = previous[2] + 1
                expected_from = previous[1] if resumes and previous[3] else None
            if (turn, resumed_from) != (expected_turn, expected_from):
                updates.append((expected_turn, expected_from, run_id))
            previous = (thread, run_id, expected_turn, interrupted)
    if updates:
        store._executemany(f'UPDATE "runs" SET turn = {mark}, resumed_from = {mark} WHERE run_id = {mark}', updates)
    return len(updates)


# --- reading threads back ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ThreadRun:
    """One run of a thread as a summary needs it."""

    run_id: str
    started_at: str | None
    completed_at: str | None
    status: str | None
    passed: int | None
    waiting: bool  # it stopped at an interrupt
    total_tokens: int | None
    total_cost: float | None
    total_time_ms: float | None
    workflow: str | None
    experiment: str | None
    case_id: str | None
    turn: int | None


def thread_runs(store: Store, thread_ids: Sequence[str] | None = None, *,
                where: Mapping[str, Sequence[str]] | None = None) -> dict[str, list[ThreadRun]]:
    """Thread id -> its runs in order (the threads of ``thread_ids``, else every thread of
    the store), each as a :class:`ThreadRun`; ``where``: only runs whose column is one of
    the values given (``workflow``, ``experiment``). Read in one query, in the store's order."""
    mark = store.placeholder
    conditions, params = ["thread_id IS NOT NULL"], []
    if thread_ids is not None:
        ids = list(dict.fromkeys(thread_ids))
        if not ids:
            return {}
        conditions.append(f"thread_id IN ({', '.join([mark] * len(ids))})")
        params += ids
    for column, values in (where or {}).items():
        if column not in ("workflow", "experiment", "case_id"):
            raise KeyError(f"threads are not filtered by {column!r}")
        values = list(values)
        if values:
            conditions.append(f'"{column}" IN ({", ".join([mark] * len(values))})')
            params += values
    columns = ", ".join(f'"{c}"' for c in _SUMMARY_COLUMNS[:-1])
    rows = store._fetchall(
        f'SELECT {columns}, interrupts IS NOT NULL, turn FROM "runs" WHERE {" AND ".join(conditions)} '
        "ORDER BY thread_id, started_at, run_id", params)
    out: dict[str, list[ThreadRun]] = {}
    for (thread, run_id, started, completed, status, passed, tokens, cost, ms, workflow, experiment, case_id,
         waiting, turn) in rows:
        out.setdefault(thread, []).append(ThreadRun(
            run_id, started, completed, status, passed, bool(waiting), tokens, cost, ms, workflow, experiment,
            case_id, turn))
    return out


def thread_ids_starting(store: Store, prefix: str, limit: int = 3) -> list[str]:
    """Up to ``limit`` thread ids equal to ``prefix`` or starting with it (the exact one first)."""
    mark = store.placeholder
    exact = store._fetchall(f'SELECT thread_id FROM "runs" WHERE thread_id = {mark} LIMIT 1', (prefix,))
    if exact:
        return [prefix]
    return [r[0] for r in store._fetchall(
        f'SELECT DISTINCT thread_id FROM "runs" WHERE substr(thread_id, 1, {len(prefix)}) = {mark} '
        f"ORDER BY thread_id LIMIT {int(limit)}", (prefix,))]


def resolve_thread_id(store: Store, text: str) -> str:
    """The thread ``text`` names: its whole id, or a unique start of one of at least
    :data:`~.errors.MIN_PREFIX` characters (a store query, like a run id's)."""
    given = text.strip() if isinstance(text, str) else str(text)
    found = thread_ids_starting(store, given) if given else []
    return one_named(given, found, ThreadIdError, kind="thread", start="start",
                     missing=f"no thread {given!r} in store {store.display} (harness threads lists them)")


def run_ids_of_thread(store: Store, thread_id: str) -> list[str]:
    """The runs of one thread in order (its turns)."""
    return [r[0] for r in store._fetchall(
        f'SELECT run_id FROM "runs" WHERE thread_id = {store.placeholder} ORDER BY started_at, run_id',
        (thread_id,))]
