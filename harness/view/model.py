"""The read model of a recorded run: its ``runs`` row, the tree of what happened and its scores.

Built from the store by :mod:`.read`, rendered three ways: rich text (``harness show``),
JSON (``--json``, :meth:`RunView.to_dict`) and HTML (``harness report``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

EntryKind = Literal["node", "llm", "tool"]
#: ``unfinished``: the execution started and no end was recorded (the process died mid-run).
EntryStatus = Literal["ok", "error", "interrupted", "unfinished"]


def epoch_ms(iso: str | None) -> float | None:
    """Milliseconds since the epoch of an ISO timestamp (None when absent or unreadable)."""
    if not iso:
        return None
    try:
        return datetime.fromisoformat(iso).timestamp() * 1_000
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a stored traceback: where it ran and the line it ran."""

    file: str
    line: int
    function: str
    source: str  # empty when the source was not at hand


_FRAME = re.compile(r'  File "(?P<file>.*)", line (?P<line>\d+), in (?P<function>.*)')


def last_frames(traceback: str | None, count: int = 3) -> list[Frame]:
    """The innermost ``count`` frames of a traceback as the store keeps it (Python's layout),
    the innermost last; of a chained one, those of the exception raised last: where it failed."""
    if not traceback:
        return []
    lines = traceback.splitlines()
    start = max((i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")),
                default=0)
    frames: list[Frame] = []
    for i in range(start, len(lines)):
        found = _FRAME.fullmatch(lines[i])
        if found:
            below = lines[i + 1] if i + 1 < len(lines) else ""
            source = below.strip() if below.startswith("    ") and not _FRAME.fullmatch(below) else ""
            frames.append(Frame(found["file"], int(found["line"]), found["function"], source))
    return frames[-count:] if count > 0 else []


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One node execution, model call or tool call, with what happened inside it.

    ``details`` holds the kind's own fields: a node's ``step``, ``langgraph_step`` and
    ``subgraph_depth``; a model call's ``model``, tokens, ``cost`` and
    ``time_to_first_token_ms``; a tool call's ``call_depth``; every kind's ``input`` and
    ``output`` (a model call's prompt and response, a tool call's input and output whole;
    a node's as the store keeps them, previews cut at its preview limit). ``traceback``:
    where a failed entry failed, as the store keeps it (see :func:`last_frames`). Every
    kind's ``agent`` and ``agent_path`` (see ``agent_name``, ``agent_path`` in the sheets); a
    node's or tool call's ``handoff_to``, where a handoff went.
    """

    kind: EntryKind
    id: str
    name: str
    started_at: str | None
    duration_ms: float | None
    status: EntryStatus
    error: str | None
    details: Mapping[str, Any] = field(default_factory=dict)
    children: tuple[TreeEntry, ...] = ()
    traceback: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "started_at": self.started_at,
                "duration_ms": self.duration_ms, "status": self.status, "error": self.error,
                "traceback": self.traceback, "id": self.id, **self.details,
                "children": [child.to_dict() for child in self.children]}

    def walk(self, depth: int = 0) -> Iterator[tuple[int, TreeEntry]]:
        """This entry and everything under it, depth first, in the order things happened."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)


@dataclass(frozen=True, slots=True)
class RunView:
    """A run as the store recorded it: ``run`` (its ``runs`` row), ``tree`` (the top-level
    node executions, or calls made outside any node, each with its children, in start
    order) and ``scores`` (tool selection, trajectory, evaluation, judge, agent metrics and
    log test; None where the run has none)."""

    run: Mapping[str, Any]
    tree: tuple[TreeEntry, ...]
    scores: Mapping[str, Any]
    started_ms: float | None = None  # epoch ms where the run's timeline starts
    span_ms: float = 0.0  # how long the timeline is (the run's duration, or its calls' extent)
    #: what the run's root graph was given and returned (previews), for a run that stored no
    #: ``inputs``/``outputs`` of its own
    graph_io: Mapping[str, Any] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return str(self.run.get("run_id"))

    def entries(self) -> Iterator[tuple[int, TreeEntry]]:
        """Every entry with its depth in the tree, depth first, in the order things happened."""
        for top in self.tree:
            yield from top.walk()

    def models(self) -> list[str]:
        """The models the run's calls name, in the order of their first call."""
        return list(dict.fromkeys(e.details["model"] for _, e in self.entries()
                                  if e.kind == "llm" and e.details.get("model")))

    def agents(self) -> dict[str, str] | None:
        """Entry id -> the agent path of the entry (``agent_path``), for a run whose agents are
        more than its top-level nodes: subgraph agents (a supervisor's experts, a swarm's
        members) or nodes renamed with ``agent_names``. None for a graph without subgraphs
        whose nodes are not renamed: each node is its own agent, and a label would repeat it."""
        paths: dict[str, str] = {}
        named = False
        for top in self.tree:
            for _, entry in top.walk():
                path = entry.details.get("agent_path") or entry.details.get("agent")
                if path is not None:
                    paths[entry.id] = path
                    named = named or path != top.name or bool(entry.details.get("subgraph_depth"))
        return paths if named else None

    def offset_ms(self, entry: TreeEntry) -> float | None:
        """When ``entry`` started, in milliseconds after the run's timeline starts."""
        start = epoch_ms(entry.started_at)
        if start is None or self.started_ms is None:
            return None
        return max(0.0, start - self.started_ms)

    def to_dict(self) -> dict[str, Any]:
        return {"run": dict(self.run), "tree": [entry.to_dict() for entry in self.tree], "scores": dict(self.scores)}
