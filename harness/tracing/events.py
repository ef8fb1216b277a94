"""Neutral event records: what the row and span emitters read.

An :class:`Event` is one LangChain run (the graph, a node, a model call, a tool call) with
its payloads as they were at their callbacks and nanosecond times. The callback adapter
does not make them: on the graph's path it only appends one tuple per callback to the
run's log (see ENTRY KINDS below), and :class:`Assembly` turns that log into events where
the rows and spans are built, in batch: usually in the writer process.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

from .frozen import thaw, thaw_messages, thaw_result

EventKind = Literal["graph", "node", "llm", "tool"]
EventStatus = Literal["ok", "error", "interrupted"]

#: LangGraph exceptions that are control flow (interrupts, handoffs), never errors.
CONTROL_FLOW_ERRORS = frozenset({"GraphInterrupt", "NodeInterrupt", "GraphBubbleUp", "ParentCommand", "Command"})


@dataclass(slots=True, eq=False)
class Event:
    id: UUID
    parent_id: UUID | None  # nearest *recorded* ancestor (skipped chains are collapsed)
    kind: EventKind
    name: str
    start_ns: int
    inputs: Any = None
    metadata: dict[str, Any] | None = None
    invocation: dict[str, Any] | None = None  # model invocation parameters
    chat: bool = False  # chat model (messages) rather than completion LLM (prompts)
    end_ns: int | None = None
    outputs: Any = None
    status: EventStatus = "ok"
    error: str | None = None
    error_type: str | None = None
    traceback: str | None = None  # a failure's, bounded (see describe_traceback); None otherwise
    first_token_ns: int | None = None
    tokens_streamed: int = 0
    #: where a handoff went: a node that raised ``Command(graph=Command.PARENT)`` or a tool
    #: that returned one (see :func:`handoff_destination`); the event itself completed
    handoff: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: what a human-in-the-loop interrupt that ended it asked: ``[(interrupt id, value), ...]``
    interrupts: list[tuple[Any, Any]] | None = None
    #: 0 for nodes of the top-level graph (and what they call), 1 inside a subgraph, and so
    #: on: the checkpoint namespace's depth less the functional-API task calls in it, which
    #: LangGraph nests in the namespace but runs as tasks of the calling graph.
    subgraph_depth: int = 0

    @property
    def finished(self) -> bool:
        return self.end_ns is not None

    @property
    def duration_ms(self) -> float | None:
        return None if self.end_ns is None else (self.end_ns - self.start_ns) / 1e6

    @property
    def langgraph_step(self) -> int | None:
        step = (self.metadata or {}).get("langgraph_step")
        return step if isinstance(step, int) else None

    @property
    def checkpoint_ns(self) -> str | None:
        md = self.metadata or {}
        return md.get("langgraph_checkpoint_ns") or md.get("checkpoint_ns") or None


def error_type_name(error: BaseException) -> str:
    return type(error).__name__


def is_control_flow(error: BaseException) -> bool:
    return any(cls.__name__ in CONTROL_FLOW_ERRORS for cls in type(error).__mro__)


def is_handoff(error: BaseException) -> bool:
    """LangGraph's ``ParentCommand``: a node's ``Command(graph=Command.PARENT)`` on its way to
    the parent graph, which goes on where it says (a handoff between agents)."""
    return any(cls.__name__ == "ParentCommand" for cls in type(error).__mro__)


def handoff_destination(value: Any) -> str | None:
    """Where a handoff goes: the ``goto`` of a ``ParentCommand``'s command or of a
    ``Command(graph=Command.PARENT)`` a tool returned, node names joined with ", " (a
    ``Send`` by its node); None for anything else, or a command that names no node."""
    if isinstance(value, BaseException):
        value = value.args[0] if is_handoff(value) and value.args else None
    elif type(value).__name__ != "Command" or getattr(value, "graph", None) != "__parent__":
        return None
    goto = getattr(value, "goto", None)
    targets = goto if isinstance(goto, (list, tuple)) else (goto,)
    names = [t if isinstance(t, str) else getattr(t, "node", None) for t in targets]
    return ", ".join(n for n in names if isinstance(n, str) and n) or None


def interrupts_of(error: BaseException) -> list[tuple[Any, Any]]:
    """The interrupts a ``GraphInterrupt`` carries (LangGraph raises it from ``interrupt(value)``
    with the ``Interrupt`` records as its first argument), as ``(id, value)`` pairs."""
    found = error.args[0] if error.args else ()
    if not isinstance(found, (list, tuple)):
        found = (found,)
    return [(getattr(i, "id", None), getattr(i, "value", i)) for i in found]


def _is_task_call(name: str, metadata: Mapping[str, Any] | None, caller: Event | None) -> bool:
    """The own run of a functional-API ``@task`` called from a running node: named as its
    ``langgraph_node``, on a called-task path (``(PUSH, the caller's path, index, ...)``)
    and in a namespace its ``caller`` (nearest recorded ancestor) is not in, so that a
    same-named chain inside the task is not taken for it. LangGraph gives such a run no
    ``graph:step:N`` tag: it takes the caller's callbacks."""
    if not metadata or caller is None or metadata.get("langgraph_node") != name:
        return False
    path = metadata.get("langgraph_path")
    return (type(path) is tuple and len(path) > 2 and path[0] == "__pregel_push" and type(path[1]) is tuple
            and caller.checkpoint_ns != metadata.get("langgraph_checkpoint_ns"))


# --- the callback log -------------------------------------------------------------------
# ENTRY KINDS: each callback appends one tuple; LangChain run ids travel as their ``.int``,
# payloads (inputs, outputs) frozen (see .frozen: thawed here, when events are made).
#   (CHAIN, id, parent, ns, name, is_node, inputs, metadata)
#   (MODEL, id, parent, ns, name, chat, inputs, metadata, invocation)
#   (TOOL, id, parent, ns, name, inputs, metadata)
#   (END, id, ns, outputs)
#   (ERROR, id, ns, status, error, error_type, traceback)   an interrupt: what it asked in the traceback's place
#   (HANDOFF, id, ns, destination)      a run that ended handing off (completed: see is_handoff)
CHAIN, MODEL, TOOL, END, ERROR, HANDOFF = range(6)


class Assembly:
    """A run's callback log -> its :class:`Event` records, fed in log order (incrementally,
    so a node can ask which node it is in while the run goes on).

    Which LangChain runs become records: the graph itself (a chain whose parent is not in
    the run), every graph node (``is_node``: tagged ``graph:step:N`` and named as its
    ``langgraph_node``; nodes of subgraphs included), every functional-API task an
    ``@entrypoint`` or a node calls (its own run: named as its ``langgraph_node``, on a
    called-task path, in a namespace its nearest recorded ancestor is not in), every model
    and tool call. Other chains (routers, LCEL sequences inside nodes, a subgraph's own
    wrapper) are collapsed: their children are attached to their nearest recorded ancestor.
    """

    __slots__ = ("events", "_alias", "_calls", "_seen")

    def __init__(self) -> None:
        self.events: dict[int, Event] = {}  # by run id (as int), in creation order
        self._alias: dict[int, int | None] = {}  # collapsed chain -> nearest recorded ancestor
        self._calls: dict[int, int] = {}  # record -> task calls in its namespace (see Event.subgraph_depth)
        self._seen = 0

    def feed(self, log: Sequence[tuple]) -> None:
        """Take the entries of ``log`` not seen yet (``log`` only ever grows)."""
        events, alias = self.events, self._alias
        entries = log[self._seen:]
        self._seen += len(entries)
        for entry in entries:
            kind, key = entry[0], entry[1]
            if kind >= END:
                event = events.get(key)
                if event is None:
                    alias.pop(key, None)
                elif kind == END:
                    event.end_ns = entry[2]
                    event.outputs = thaw_result(entry[3]) if event.kind == "llm" else thaw(entry[3])
                    if event.kind == "tool":
                        event.handoff = handoff_destination(event.outputs)
                elif kind == HANDOFF:
                    event.end_ns, event.handoff = entry[2], entry[3]
                elif entry[3] == "interrupted":  # (the traceback's place holds what it asked)
                    event.end_ns, event.status, event.error, event.error_type = entry[2:6]
                    event.interrupts = thaw(entry[6])
                else:
                    event.end_ns, event.status, event.error, event.error_type, event.traceback = entry[2:7]
                continue
            parent = entry[2]
            top = False
            if parent is not None and parent not in events:
                if parent in alias:
                    parent = alias[parent]
                else:
                    top, parent = kind == CHAIN, None  # its parent is outside this run
            above = events[parent] if parent is not None else None
            parent_id = above.id if above is not None else None
            calls = self._calls.get(parent, 0)
            if kind == CHAIN:
                if top or entry[2] is None:
                    # A top-level invocation (usually one per run; a second invoke under the
                    # same run becomes a second graph record).
                    event = Event(UUID(int=key), None, "graph", entry[4], entry[3], thaw(entry[6]), entry[7])
                else:
                    task = not entry[5] and _is_task_call(entry[4], entry[7], above)
                    if not (entry[5] or task):
                        alias[key] = parent
                        continue
                    calls += task
                    event = Event(UUID(int=key), parent_id, "node", entry[4], entry[3], thaw(entry[6]), entry[7])
            elif kind == MODEL:
                event = Event(UUID(int=key), parent_id, "llm", entry[4], entry[3],
                              thaw_messages(entry[6]) if entry[5] else thaw(entry[6]), entry[7],
                              entry[8], chat=entry[5])
            else:
                event = Event(UUID(int=key), parent_id, "tool", entry[4], entry[3], thaw(entry[5]), entry[6])
            events[key] = event
            if calls:
                self._calls[key] = calls
            ns = event.checkpoint_ns
            event.subgraph_depth = max((ns.count("|") if ns else 0) - calls, 0)

    def node_event(self, key: int) -> Event | None:
        """The innermost node record that contains LangChain run ``key``."""
        events = self.events
        current = events.get(key)
        if current is None:
            parent = self._alias.get(key)
            current = events.get(parent) if parent is not None else None
        while current is not None and current.kind != "node":
            current = events.get(current.parent_id.int) if current.parent_id else None
        return current


def root_failure(log: Sequence[tuple], failed: Collection[int]) -> str | None:
    """The error of the first of the run's root graphs to end in an error, or None.

    A root graph is a chain of the log whose parent is not in the run (usually the graph the
    caller invoked; one per input of a batch); ``failed`` are the chains that ended in an error
    (the handler's ``failed_chains``). A stream the caller stopped reading ends its graph with
    ``GeneratorExit``: the consumer went away, the graph did not fail."""
    if not failed:
        return None
    failed = set(failed)
    seen: set[int] = set()
    roots: set[int] = set()
    for entry in log:
        kind = entry[0]
        if kind < END:
            if kind == CHAIN and entry[1] in failed and (entry[2] is None or entry[2] not in seen):
                roots.add(entry[1])
            seen.add(entry[1])
        elif kind == ERROR and entry[1] in roots and entry[5] != "GeneratorExit":
            return entry[4]
    return None


def assemble(log: Sequence[tuple], streamed: Mapping[int, Sequence[int]] | None = None) -> list[Event]:
    """The run's events, in creation order; ``streamed`` is run id -> (first token ns, tokens)."""
    assembly = Assembly()
    assembly.feed(log)
    events = assembly.events
    for key, (first_ns, count) in (streamed or {}).items():
        event = events.get(key)
        if event is not None:
            event.first_token_ns, event.tokens_streamed = first_ns, count
    return list(events.values())
