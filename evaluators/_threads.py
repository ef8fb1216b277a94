"""Threads (conversations) as plain data: a thread's status, pass and totals from its runs,
its messages across turns, and an experiment's runs folded into one unit per case and repeat.

A thread is the runs of one ``thread_id`` in order (its turns). Every figure here is a
function of the runs' own figures, so a thread's totals can be recomputed from its runs'
rows by anyone (the audit, a test, a notebook).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

ThreadStatus = Literal["completed", "waiting", "failed"]
#: The states a thread can be in, as its last turn left it.
THREAD_STATUSES: tuple[str, ...] = ("completed", "waiting", "failed")


def thread_status(last_status: str | None, last_waiting: bool) -> ThreadStatus:
    """The thread as its last turn left it: ``failed`` when that run failed, ``waiting`` when
    it stopped at an interrupt (a person is to answer: never a failure), else ``completed``."""
    if last_status == "failed":
        return "failed"
    return "waiting" if last_waiting else "completed"


def thread_passed(passes: Iterable[bool | int | None]) -> bool | None:
    """Whether a thread passed: every turn of it that has a pass passed (a thread scorer's
    score lives on the turn that was last when it was scored). None (no pass) when no turn
    has one; False as soon as one failed."""
    known = [bool(p) for p in passes if p is not None]
    if not known:
        return None
    return all(known)


def turns_passed(passes: Iterable[bool | int | None]) -> bool | None:
    """Whether a multi-turn case's repeat passed, three-valued as one run's pass is: False as
    soon as a turn failed, else None (unknown) while a turn's pass is unknown, else True. In an
    experiment every turn is checked, so an empty pass is a gating score that errored, not a
    turn nobody checked (production threads: :func:`thread_passed`)."""
    seen = [None if p is None else bool(p) for p in passes]
    if False in seen:
        return False
    return None if not seen or None in seen else True


def total(values: Iterable[float | int | None], *, digits: int | None = None) -> float | int | None:
    """The sum of the values that are there (exactly: :func:`math.fsum` for floats), or None
    when none is; ``digits``: rounded as a run rounds its own (a cost to 8 decimals)."""
    present = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not present:
        return None
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return sum(present)
    summed = math.fsum(float(v) for v in present)
    return round(summed, digits) if digits is not None else summed


def conversation(turns: Sequence[tuple[Sequence[Any] | None, Sequence[Any] | None]]) -> list[Any]:
    """The messages of a conversation across its turns, each once, in order: ``turns`` is
    each turn's (input messages, output messages). LangGraph's message state returns the
    whole history each turn, its messages keyed by ``id``: a message seen before (same id)
    is not repeated. A turn's input messages are taken only when the turn has no output
    messages (else its output holds them, with their ids)."""
    out: list[Any] = []
    seen: set[str] = set()
    for given, returned in turns:
        for message in (returned if returned else given) or ():
            key = message.get("id") if isinstance(message, Mapping) else getattr(message, "id", None)
            if key:
                if key in seen:
                    continue
                seen.add(str(key))
            out.append(message)
    return out


def fold_turns(runs: Sequence[Mapping[str, Any]]) -> list[tuple[dict[str, Any], list[str]]]:
    """An experiment's runs as units, one per (case, repeat): a multi-turn case's turns (runs
    sharing ``case_id`` and ``repeat_index``) fold into one row -- its last turn's (which
    carries the case's checks and its thread scores) with ``passed`` the turns' together
    (:func:`turns_passed`), ``status`` failed when a turn failed, and latency, tokens and
    cost the sums of the turns'. A single-turn case's run is its own unit. Returns (row,
    the run ids it covers) in the order the units first appear."""
    groups: dict[Any, list[Mapping[str, Any]]] = {}
    for run in runs:
        key = (run.get("case_id"), run.get("repeat_index")) if run.get("case_id") is not None else ("", run["run_id"])
        groups.setdefault(key, []).append(run)
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append((dict(members[0]), [members[0]["run_id"]]))
            continue
        ordered = sorted(members, key=lambda r: (r.get("turn") or 0, r.get("started_at") or "", r["run_id"]))
        unit = dict(ordered[-1])
        statuses = [r.get("status") for r in ordered]
        unit["status"] = "failed" if "failed" in statuses else unit.get("status")
        passed = turns_passed(r.get("passed") for r in ordered)
        unit["passed"] = None if passed is None else int(passed)
        for column, digits in (("total_time_ms", None), ("total_tokens", None), ("total_cost", 8)):
            if column in unit:
                unit[column] = total((r.get(column) for r in ordered), digits=digits)
        out.append((unit, [r["run_id"] for r in ordered]))
    return out
