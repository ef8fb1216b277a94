"""Neutral event records: what the callback adapter captures and the row and span emitters read.

An :class:`Event` is one LangChain run (the graph, a node, a model call, a tool call) with
raw payload references and nanosecond times. Nothing is formatted on the hot path; rows
and spans are built from these records in batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

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
    first_token_ns: int | None = None
    tokens_streamed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

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

    @property
    def subgraph_depth(self) -> int:
        """0 for nodes of the top-level graph, 1 inside a subgraph, and so on."""
        ns = self.checkpoint_ns
        return ns.count("|") if ns else 0


def error_type_name(error: BaseException) -> str:
    return type(error).__name__


def is_control_flow(error: BaseException) -> bool:
    return any(cls.__name__ in CONTROL_FLOW_ERRORS for cls in type(error).__mro__)


def describe_error(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
