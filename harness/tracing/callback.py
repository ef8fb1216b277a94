"""The LangChain callback adapter: callbacks in, the run's callback log out.

Contract: every hook does the minimum on the graph's path (freeze its payload, see
:mod:`.frozen`, and append one tuple to the run's log, see :mod:`.events`), formats
nothing (but an error's traceback, whose frames do not outlive the hook) and never raises
into the host: a failure is logged and counted. It imports nothing from OpenTelemetry and
attaches no context. It runs inline (``run_inline = True``), so under ``ainvoke`` entries
are appended in the event loop in callback order, with no executor hop.
:class:`~harness.tracing.events.Assembly` turns the log into event records where rows and
spans are made.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from .events import (CHAIN, END, ERROR, HANDOFF, MODEL, TOOL, Assembly, Event, error_type_name,
                     handoff_destination, interrupts_of, is_control_flow, is_handoff)
from .tracebacks import describe_error, describe_traceback
from .frozen import freeze, freeze_messages, freeze_preview, freeze_result, freeze_whole, held_bytes

logger = logging.getLogger("harness")

#: A run whose log reaches this many entries records no more starts (their ends are dropped
#: too); the ends of what it did record always are.
MAX_ENTRIES_PER_RUN = 200_000


def _step_tagged(tags: list[str] | None) -> bool:
    """LangGraph tags a node's own run ``graph:step:N``."""
    if tags:
        for tag in tags:
            if tag.startswith("graph:step:"):
                return True
    return False


class HarnessCallbackHandler(BaseCallbackHandler):
    """Records one harness run. Use it through ``Harness.run(...).config``, or pass it in
    ``config["callbacks"]`` yourself; one handler per run (its state is that run's)."""

    run_inline = True
    raise_error = False

    def __init__(self, run: Any = None, *, max_entries: int = MAX_ENTRIES_PER_RUN) -> None:
        self.run = run  # the harness ``Run`` this handler records, if any (see harness.current_run)
        self.max_entries = max_entries
        self.log: list[tuple] = []  # one entry per callback, in callback order
        self.streamed: dict[int, list[int]] = {}  # model call -> [first token ns, tokens]
        self.failures = 0
        self.dropped = 0
        self.held = 0  # about how many bytes the frozen payloads in the log hold
        self.failed_chains: list[int] = []  # chains (the graph, nodes) that ended in an error
        self._overflow: set[int] = set()  # starts not logged (log full) whose ends are pending
        self._roots: set[int] = set()  # chains without a parent: the graphs the caller invoked
        self._assembly = Assembly()
        self._lock = threading.Lock()

    # --- bookkeeping ----------------------------------------------------------------
    # Each hook runs on the graph's own path: it freezes its payload, appends one tuple and
    # does nothing else, and its guard is written out in it (or in the one helper both model
    # hooks share) rather than wrapped around it.
    def _failed(self, hook: str) -> None:
        """Never let a callback failure reach the graph: log, count, carry on."""
        self.failures += 1
        logger.warning("harness callback %s failed", hook, exc_info=True)

    def _drop(self, run_id: UUID) -> None:
        self.dropped += 1
        self._overflow.add(run_id.int)

    def _end(self, run_id: UUID, entry: tuple) -> None:
        overflow = self._overflow
        if overflow and run_id.int in overflow:
            overflow.discard(run_id.int)
        else:
            self.log.append(entry)

    def _error(self, run_id: UUID, error: BaseException) -> str:
        """Log the end of a run that raised; returns its status."""
        ns = time.time_ns()
        if is_control_flow(error):
            if is_handoff(error):  # the node completed; its parent graph goes on where it says
                self._end(run_id, (HANDOFF, run_id.int, ns, handoff_destination(error)))
                return "ok"
            self._end(run_id, (ERROR, run_id.int, ns, "interrupted", describe_error(error), error_type_name(error),
                               self._interrupts(error)))
            return "interrupted"
        self._end(run_id, (ERROR, run_id.int, ns, "error", describe_error(error), error_type_name(error),
                           self._traceback(error)))
        return "error"

    def _traceback(self, error: BaseException) -> str | None:
        """A failure's traceback, formatted here (only errors pay for it) because the frames
        it names are gone by the time rows are made; one that cannot be formatted loses
        itself, not the error."""
        try:
            return describe_traceback(error)
        except Exception:  # noqa: BLE001
            self._failed("traceback")
            return None

    def _interrupts(self, error: BaseException) -> Any:
        """What a human-in-the-loop interrupt asked, frozen: ``[(interrupt id, value), ...]``
        (only interrupts pay for it; a value that cannot be read loses itself, not the run)."""
        try:
            frozen = freeze(interrupts_of(error))
            self.held += held_bytes(frozen)
            return frozen
        except Exception:  # noqa: BLE001
            self._failed("interrupt")
            return None

    def take(self) -> tuple[list[tuple], dict[int, list[int]], int]:
        """The log, the streaming counts and the bytes their payloads hold, handed over (no
        copy: the run has ended); the handler starts afresh."""
        with self._lock:
            log, streamed, held = self.log, self.streamed, self.held
            self.log, self.streamed, self.held = [], {}, 0
            self.failed_chains = []
            self._overflow = set()
            self._roots = set()
            self._assembly = Assembly()
        return log, streamed, held

    # --- chains: the graph and its nodes --------------------------------------------
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
        try:
            log = self.log
            if len(log) >= self.max_entries:
                return self._drop(run_id)
            name = kwargs.get("name") or (serialized or {}).get("name") or "chain"
            is_node = bool(metadata) and metadata.get("langgraph_node") == name and _step_tagged(tags)
            if parent_run_id is None:  # the graph the caller invoked: the run's input (runs.inputs), whole
                self._roots.add(run_id.int)
                frozen = freeze_whole(inputs)
            else:
                frozen = freeze_preview(inputs)  # rows keep a preview of a chain's payloads
            self.held += held_bytes(frozen)
            log.append((CHAIN, run_id.int, parent_run_id.int if parent_run_id else None, time.time_ns(), name,
                        is_node, frozen, metadata))
        except Exception:  # noqa: BLE001 - telemetry must never break the agent
            self._failed("on_chain_start")

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            roots = self._roots
            frozen = freeze_whole(outputs) if roots and run_id.int in roots else freeze_preview(outputs)
            self.held += held_bytes(frozen)
            self._end(run_id, (END, run_id.int, time.time_ns(), frozen))
        except Exception:  # noqa: BLE001
            self._failed("on_chain_end")

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            if self._error(run_id, error) == "error":
                self.failed_chains.append(run_id.int)  # the run's status is read from these (see root_failure)
        except Exception:  # noqa: BLE001
            self._failed("on_chain_error")

    # --- models -----------------------------------------------------------------------
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
        self._model_start("on_chat_model_start", serialized, messages, run_id, parent_run_id, metadata, kwargs,
                          chat=True)

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
        self._model_start("on_llm_start", serialized, prompts, run_id, parent_run_id, metadata, kwargs, chat=False)

    def _model_start(self, hook: str, serialized: dict[str, Any] | None, inputs: Any, run_id: UUID,
                     parent_run_id: UUID | None, metadata: dict[str, Any] | None, kwargs: dict[str, Any], *,
                     chat: bool) -> None:
        """A chat model's messages or a completion model's prompts: one MODEL entry."""
        try:
            log = self.log
            if len(log) >= self.max_entries:
                return self._drop(run_id)
            frozen = freeze_messages(inputs) if chat else freeze(inputs)
            self.held += held_bytes(frozen)
            log.append((MODEL, run_id.int, parent_run_id.int if parent_run_id else None, time.time_ns(),
                        kwargs.get("name") or (serialized or {}).get("name") or ("chat_model" if chat else "llm"),
                        chat, frozen, metadata, kwargs.get("invocation_params")))
        except Exception:  # noqa: BLE001
            self._failed(hook)

    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            seen = self.streamed.get(run_id.int)
            if seen is None:
                self.streamed[run_id.int] = [time.time_ns(), 1]
            else:
                seen[1] += 1
        except Exception:  # noqa: BLE001
            self._failed("on_llm_new_token")

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            frozen = freeze_result(response)
            self.held += held_bytes(frozen)
            self._end(run_id, (END, run_id.int, time.time_ns(), frozen))
        except Exception:  # noqa: BLE001
            self._failed("on_llm_end")

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            self._error(run_id, error)
        except Exception:  # noqa: BLE001
            self._failed("on_llm_error")

    # --- tools ------------------------------------------------------------------------
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
        try:
            log = self.log
            if len(log) >= self.max_entries:
                return self._drop(run_id)
            frozen = freeze(inputs if inputs is not None else input_str)
            self.held += held_bytes(frozen)
            log.append((TOOL, run_id.int, parent_run_id.int if parent_run_id else None, time.time_ns(),
                        kwargs.get("name") or (serialized or {}).get("name") or "tool", frozen, metadata))
        except Exception:  # noqa: BLE001
            self._failed("on_tool_start")

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            frozen = freeze(output)
            self.held += held_bytes(frozen)
            self._end(run_id, (END, run_id.int, time.time_ns(), frozen))
        except Exception:  # noqa: BLE001
            self._failed("on_tool_end")

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        try:
            self._error(run_id, error)
        except Exception:  # noqa: BLE001
            self._failed("on_tool_error")

    # --- inspection -------------------------------------------------------------------
    def snapshot(self) -> tuple[list[tuple], dict[int, list[int]]]:
        """The log and streaming counts so far (copies: safe while the run is active)."""
        return list(self.log), {key: list(seen) for key, seen in self.streamed.items()}

    def node_event(self, run_id: UUID | None) -> Event | None:
        """The innermost node record that contains LangChain run ``run_id``."""
        if run_id is None:
            return None
        with self._lock:
            self._assembly.feed(self.log)
            return self._assembly.node_event(run_id.int)
