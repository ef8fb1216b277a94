"""The report's thread view (``#thread=ID``): what each run says of its conversation.

A run's line in the list carries its thread and turn (``th``, ``turn``, ``wait`` when it
stopped at an interrupt) when it belongs to a conversation of the report: a thread with
more than one run, or one waiting for an answer. Its packed details carry what the turn
said (:func:`turn_detail`): its input or the answer it resumed with, the questions it
stopped at and its output, each at most :data:`TURN_CHARS` characters. The page gathers a
thread's turns from the runs it holds and adds up their own figures.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .formats import abbreviate
from .model import RunView
from .threads import question, said

#: Characters of each text of a turn the report carries (``harness show --thread --json`` has them whole).
TURN_CHARS = 2_000


def thread_data(run: Mapping[str, Any]) -> dict[str, Any]:
    """A run's thread fields for its line in the list (see the module doc)."""
    if run.get("thread_id") is None:
        return {}
    out = {"th": str(run["thread_id"]), "turn": run.get("turn")}
    if run.get("interrupts"):
        out["wait"] = 1
    return out


def conversations(runs: list[dict[str, Any]]) -> None:
    """Keep the thread fields only of the runs of conversations (module doc), in place: a run
    alone on its thread (every experiment run of a single-turn case) is no conversation."""
    counts = Counter(r["th"] for r in runs if "th" in r)
    for r in runs:
        if "th" in r and counts[r["th"]] < 2 and not r.get("wait"):
            for key in ("th", "turn"):
                r.pop(key, None)


def _text(value: Any) -> str | None:
    return None if value is None else abbreviate(value, TURN_CHARS) if not isinstance(value, str) else (
        value if len(value) <= TURN_CHARS else value[:TURN_CHARS - 1] + "…")


def turn_detail(view: RunView) -> dict[str, Any]:
    """What the turn said: ``in`` (its input, as a person reads it) or ``a`` (the answer it
    resumed with), ``q`` (each question it stopped at: ``[node, question]``) and ``out`` (its
    answer); only the keys it has."""
    run = view.run
    given = run.get("inputs") if run.get("inputs") is not None else view.graph_io.get("input")
    returned = run.get("outputs") if run.get("outputs") is not None else view.graph_io.get("output")
    out: dict[str, Any] = {}
    if run.get("resume") is not None:
        out["a"] = _text(run["resume"])
    else:
        out["in"] = _text(said(_decoded(given), "human"))
    interrupts = run.get("interrupts")
    if isinstance(interrupts, list) and interrupts:
        out["q"] = [[(i.get("node") or "") + (f" / {i['tool']}" if i.get("tool") else ""), _text(question(i))]
                    for i in interrupts if isinstance(i, Mapping)]
    elif run.get("status") == "completed" and returned is not None:
        out["out"] = _text(said(_decoded(returned), "ai"))
    return {k: v for k, v in out.items() if v is not None}


def _decoded(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
