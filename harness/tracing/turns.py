"""What a run says about its thread: the interrupts it stopped at and what it resumed with.

A human-in-the-loop step in LangGraph is ``interrupt(value)`` inside a node (or a tool, or a
subgraph's node): it raises ``GraphInterrupt``, control flow that ends the invocation with
the state's ``__interrupt__``; the next invocation on the thread, ``Command(resume=answer)``,
runs the node again and ``interrupt`` returns the answer. The callbacks see the interrupt as
the error of every run it passes through on its way out (the tool, the node, a subgraph, its
parent node); the innermost is where it was asked. Values are kept as JSON data, cut (and
redacted before the cut) past :data:`VALUE_CHARS`; the rest of the row's scrubbing
(:mod:`.record`) covers what is kept whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .encode import PREVIEW_CHARS, Truncated, jsonable_prefix, payload_cut, to_json
from .events import Event
from ..secrets.redact import Redactor

#: Characters of JSON kept of an interrupt's value or a resume's.
VALUE_CHARS = PREVIEW_CHARS


def bounded(value: Any, redact: Redactor | None) -> Any:
    """``value`` as JSON data, or past :data:`VALUE_CHARS` its text cut with the visible marker."""
    kept = jsonable_prefix(value, VALUE_CHARS)
    return payload_cut(kept, VALUE_CHARS, redact) if type(kept) is Truncated else kept


def _cell(value: Any) -> Any:
    """A value for a JSON column: data as it is; a text as its JSON (the cell is JSON like
    every other, read back as the text); a text already cut (it ends with the marker) as it is."""
    if isinstance(value, str) and not (value.endswith(" chars]") and "…[truncated, " in value):
        return to_json(value)
    return value


def interrupts(events: Sequence[Event], owner: Any, redact: Redactor | None) -> list[dict[str, Any]] | None:
    """The interrupts the run stopped at, in the order they were asked, each once: its id,
    the node that asked (the innermost node around where ``interrupt`` was called), the
    tool when a tool asked, and the value; None when it stopped at none. ``owner``: event ->
    its innermost node (the rows' tree)."""
    asked = sorted((e for e in events if e.interrupts), key=lambda e: (e.end_ns or 0, e.start_ns))
    out: dict[Any, dict[str, Any]] = {}
    for event in asked:  # the innermost ends first
        for key, value in event.interrupts or ():
            ident = key if key is not None else len(out)
            if ident in out:
                continue
            node = owner.get(event)
            entry: dict[str, Any] = {"id": key, "node": node.name if node is not None else event.name}
            if event.kind == "tool":
                entry["tool"] = event.name
            entry["value"] = bounded(value, redact)
            out[ident] = entry
    return list(out.values()) or None


def resume(events: Sequence[Event], redact: Redactor | None) -> Any:
    """What the run's graph was resumed with (``Command(resume=...)`` as its input), or None."""
    root = next((e for e in events if e.kind == "graph"), None)
    if root is None:
        return None
    given = root.inputs
    if type(given).__name__ == "Command":
        value = getattr(given, "resume", None)
    elif type(given) is Truncated and isinstance(given.value, dict) and {"resume", "goto"} <= given.value.keys():
        value = given.value.get("resume")  # a large command, kept by its first characters
    else:
        return None
    return None if value is None else _cell(bounded(value, redact))
