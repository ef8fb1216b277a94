"""The LangChain callback adapter: callbacks in, :class:`~harness._events.Event` records out.

Contract: every hook does the minimum (create or close a record, keyed by ``run_id``) and
never raises into the host: a failure is logged and counted. It imports nothing from
OpenTelemetry and attaches no context. It runs inline (``run_inline = True``), so under
``ainvoke`` the records are made in the event loop in callback order, with no executor hop.

Which LangChain runs become records: the graph itself (the first chain seen), every graph
node (a chain tagged ``graph:step:N`` whose name is its ``langgraph_node``; nodes of
subgraphs included), every chat model / LLM call and every tool call. Other chains (routers,
LCEL sequences inside nodes, a subgraph's own wrapper) are collapsed: their children are
attached to their nearest recorded ancestor.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from ._events import Event, describe_error, error_type_name, is_control_flow

if TYPE_CHECKING:
    from ._run import Run

logger = logging.getLogger("harness")

#: A run with more records than this keeps the first ones and counts the rest as dropped.
MAX_EVENTS_PER_RUN = 100_000


def _guard(method):
    """Never let a callback failure reach the graph: log once per kind, count, carry on."""

    def wrapper(self: HarnessCallbackHandler, *args: Any, **kwargs: Any) -> None:
        try:
            method(self, *args, **kwargs)
        except Exception:  # noqa: BLE001 - telemetry must never break the agent
            self.failures += 1
            logger.warning("harness callback %s failed", method.__name__, exc_info=True)

    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


class HarnessCallbackHandler(BaseCallbackHandler):
    """Records one harness run. Use it through ``Harness.run(...).config``, or pass it in
    ``config["callbacks"]`` yourself; one handler per run (its state is that run's)."""

    run_inline = True
    raise_error = False

    def __init__(self, run: Run | None = None, *, max_events: int = MAX_EVENTS_PER_RUN) -> None:
        self.run = run
        self.max_events = max_events
        self.events: dict[UUID, Event] = {}  # every record, in creation order
        self._alias: dict[UUID, UUID | None] = {}  # collapsed chain -> nearest recorded ancestor
        self.root_id: UUID | None = None
        self.failures = 0
        self.dropped = 0

    # --- bookkeeping ----------------------------------------------------------------
    def _parent(self, parent_run_id: UUID | None) -> UUID | None:
        if parent_run_id is None or parent_run_id in self.events:
            return parent_run_id
        return self._alias.get(parent_run_id)

    def _add(self, event: Event) -> None:
        if len(self.events) >= self.max_events:
            self.dropped += 1
            self._alias[event.id] = event.parent_id
            return
        self.events[event.id] = event

    def _close(self, run_id: UUID, outputs: Any = None, error: BaseException | None = None) -> None:
        event = self.events.get(run_id)
        if event is None:
            self._alias.pop(run_id, None)
            return
        event.end_ns = time.time_ns()
        if error is None:
            event.outputs = outputs
            return
        event.error = describe_error(error)
        event.error_type = error_type_name(error)
        event.status = "interrupted" if is_control_flow(error) else "error"

    def reset(self) -> None:
        """Release all per-run state (called when the run has been written)."""
        self.events = {}
        self._alias = {}

    # --- chains: the graph and its nodes --------------------------------------------
    @_guard
    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name") or "chain"
        parent = self._parent(parent_run_id)
        if parent_run_id is None or (parent is None and parent_run_id not in self._alias):
            # A top-level invocation (usually one per run; a second invoke under the same run
            # becomes a second graph record).
            if self.root_id is None:
                self.root_id = run_id
            self._add(Event(run_id, None, "graph", name, time.time_ns(), inputs, metadata))
            return
        if metadata and metadata.get("langgraph_node") == name and tags and any(
            t.startswith("graph:step:") for t in tags
        ):
            self._add(Event(run_id, parent, "node", name, time.time_ns(), inputs, metadata))
        else:
            self._alias[run_id] = parent

    @_guard
    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id, outputs)

    @_guard
    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id, error=error)

    # --- models -----------------------------------------------------------------------
    @_guard
    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name") or "chat_model"
        self._add(
            Event(run_id, self._parent(parent_run_id), "llm", name, time.time_ns(), messages, metadata,
                  kwargs.get("invocation_params"), chat=True)
        )

    @_guard
    def on_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name") or "llm"
        self._add(
            Event(run_id, self._parent(parent_run_id), "llm", name, time.time_ns(), prompts, metadata,
                  kwargs.get("invocation_params"))
        )

    @_guard
    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        event = self.events.get(run_id)
        if event is not None:
            if event.first_token_ns is None:
                event.first_token_ns = time.time_ns()
            event.tokens_streamed += 1

    @_guard
    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id, response)

    @_guard
    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id, error=error)

    # --- tools ------------------------------------------------------------------------
    @_guard
    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
        self._add(
            Event(run_id, self._parent(parent_run_id), "tool", name, time.time_ns(),
                  inputs if inputs is not None else input_str, metadata)
        )

    @_guard
    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id, output)

    @_guard
    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id, error=error)

    # --- inspection -------------------------------------------------------------------
    def snapshot(self) -> Sequence[Event]:
        """The records so far, in creation order (safe to call while the run is active)."""
        return list(self.events.values())

    def node_event(self, run_id: UUID | None) -> Event | None:
        """The innermost node record that contains LangChain run ``run_id``."""
        current = self.events.get(run_id) if run_id else None
        if current is None and run_id is not None:
            parent = self._alias.get(run_id)
            current = self.events.get(parent) if parent else None
        while current is not None and current.kind != "node":
            current = self.events.get(current.parent_id) if current.parent_id else None
        return current
