"""Event records -> OpenTelemetry spans mirroring the run's tree.

Spans are emitted when the run ends, from the recorded times (start/end in ns), each
parented explicitly from its record's parent (never from ambient context), under one root
span per run. Attributes follow the OTel GenAI conventions (``gen_ai.*``) and OpenInference
(``openinference.span.kind``, ``llm.*``, ``input.value``...), so Phoenix, Langfuse and Jaeger
all show the tree natively. Every attribute producer is guarded: one bad payload loses one
attribute, not the span.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any
from uuid import UUID

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from . import rows as _rows
from .agents import Agent
from .encode import payload_cut
from .events import Event
from .usage import Usage
from ..secrets.redact import Redactor

logger = logging.getLogger("harness")

_KIND = {"graph": "CHAIN", "node": "CHAIN", "llm": "LLM", "tool": "TOOL"}
_ATTR_CHARS = 10_000

Attrs = Iterator[tuple[str, Any]]


def _guarded(producer: Callable[..., Attrs], *args: Any) -> Attrs:
    try:
        yield from producer(*args)
    except Exception:  # noqa: BLE001 - lose the attribute, keep the span
        logger.debug("span attribute producer %s failed", producer.__name__, exc_info=True)


def _common_attrs(e: Event, run_id: str, workflow: str | None, redact: Callable[[str], str]) -> Attrs:
    yield "openinference.span.kind", _KIND[e.kind]
    yield "harness.run_id", run_id
    yield "harness.event_kind", e.kind
    md = e.metadata or {}
    if md.get("thread_id"):
        thread = redact(str(md["thread_id"]))  # the application's own value: may be anything
        yield "session.id", thread
        yield "gen_ai.conversation.id", thread
    if e.langgraph_step is not None:
        yield "langgraph.step", e.langgraph_step
    if md.get("langgraph_node"):
        yield "langgraph.node", str(md["langgraph_node"])
    if e.checkpoint_ns:
        yield "langgraph.checkpoint_ns", e.checkpoint_ns
        yield "langgraph.subgraph_depth", e.subgraph_depth
    if e.kind == "graph":
        yield "gen_ai.operation.name", "invoke_workflow"
        if workflow:
            yield "gen_ai.workflow.name", redact(workflow)
    if e.kind == "node":
        yield "graph.node.id", e.name
    if e.handoff:
        yield "harness.handoff_to", e.handoff


def _agent_attrs(agent: Agent | None) -> Attrs:
    """The agent the span belongs to (see :mod:`.agents`), in both conventions."""
    if agent is None:
        return
    yield "gen_ai.agent.name", agent.name
    yield "agent.name", agent.name
    if agent.path != agent.name:
        yield "harness.agent_path", agent.path


def _io_attrs(e: Event, redact: Redactor) -> Attrs:
    if e.kind == "llm":
        value_in, value_out = _rows.prompt_text(e), _rows.response_text(e) if e.finished else None
    else:
        value_in, value_out = e.inputs, e.outputs
    text_in = payload_cut(value_in, _ATTR_CHARS, redact)
    text_out = None if value_out is None else payload_cut(value_out, _ATTR_CHARS, redact)
    if text_in:
        yield "input.value", text_in
    if text_out:
        yield "output.value", text_out


def _llm_attrs(e: Event) -> Attrs:
    yield "gen_ai.operation.name", "chat" if e.chat else "text_completion"
    requested = _rows.request_model(e)
    if requested:
        yield "gen_ai.request.model", requested
    temperature = _rows.temperature(e)
    if temperature is not None:
        yield "gen_ai.request.temperature", temperature
    if not e.finished:
        return
    model = _rows.response_model(e)
    if model:
        yield "gen_ai.response.model", model
        yield "llm.model_name", model
    u = _rows.usage(e)
    if u.prompt_tokens is not None:
        yield "gen_ai.usage.input_tokens", u.prompt_tokens
        yield "gen_ai.usage.output_tokens", u.completion_tokens or 0
        yield "llm.token_count.prompt", u.prompt_tokens
        yield "llm.token_count.completion", u.completion_tokens or 0
        yield "llm.token_count.total", u.prompt_tokens + (u.completion_tokens or 0)
        yield from _token_details(u)
    yield "harness.usage_source", u.source
    if e.first_token_ns:
        yield "gen_ai.response.time_to_first_chunk", (e.first_token_ns - e.start_ns) / 1e9


def _token_details(u: Usage) -> Attrs:
    """The kinds of the call's tokens, parts of its input and output counts (never added to
    them), in the GenAI conventions (``gen_ai.usage.cache_read.input_tokens``,
    ``gen_ai.usage.cache_creation.input_tokens``, ``gen_ai.usage.reasoning.output_tokens``)
    and OpenInference's (``llm.token_count.prompt_details.*``, ``completion_details.*``);
    the cache write's lifetimes apart under ``harness.*``. A kind the response did not
    report is left out, not sent as 0."""
    if u.cache_read is not None:
        yield "gen_ai.usage.cache_read.input_tokens", u.cache_read
        yield "llm.token_count.prompt_details.cache_read", u.cache_read
    if u.cache_write_5m is not None or u.cache_write_1h is not None:
        written = (u.cache_write_5m or 0) + (u.cache_write_1h or 0)
        yield "gen_ai.usage.cache_creation.input_tokens", written
        yield "llm.token_count.prompt_details.cache_write", written
        yield "harness.usage.cache_write_5m.input_tokens", u.cache_write_5m or 0
        yield "harness.usage.cache_write_1h.input_tokens", u.cache_write_1h or 0
    if u.reasoning is not None:
        yield "gen_ai.usage.reasoning.output_tokens", u.reasoning
        yield "llm.token_count.completion_details.reasoning", u.reasoning
    if u.audio_input is not None:
        yield "llm.token_count.prompt_details.audio", u.audio_input
    if u.audio_output is not None:
        yield "llm.token_count.completion_details.audio", u.audio_output


def _tool_attrs(e: Event) -> Attrs:
    yield "gen_ai.operation.name", "execute_tool"
    yield "gen_ai.tool.name", e.name
    yield "tool.name", e.name
    yield "gen_ai.tool.call.id", str(e.id)


def _span_name(e: Event, workflow: str | None) -> str:
    if e.kind == "graph":
        return f"invoke_workflow {workflow or e.name}"
    if e.kind == "llm":
        model = _rows.request_model(e) or _rows.response_model(e) or e.name
        return f"{'chat' if e.chat else 'text_completion'} {model}"
    if e.kind == "tool":
        return f"execute_tool {e.name}"
    return e.name


def emit_spans(
    tracer: trace.Tracer,
    events: Sequence[Event],
    *,
    run_id: str,
    workflow: str | None,
    redact: Redactor,
    end_ns: int,
    run_attrs: dict[str, Any] | None = None,
    outer_span: trace.Span | None = None,
    agents: Mapping[Event, Agent] | None = None,
) -> dict[UUID, tuple[str, str, str | None]]:
    """Emit one span per record; returns record id -> (trace_id, span_id, parent_span_id) in hex.

    Records still open when the run ended are closed at ``end_ns`` and marked abandoned.
    ``agents``: each event's agent, as in the rows (see :mod:`.agents`).
    """
    agents = agents or {}
    spans: dict[UUID, trace.Span] = {}
    ids: dict[UUID, tuple[str, str, str | None]] = {}
    redact_name = functools.lru_cache(maxsize=64)(redact)  # thread id and workflow: one value per run
    outer = outer_span if outer_span is not None and outer_span.get_span_context().is_valid else trace.INVALID_SPAN
    for e in events:  # creation order: parents first
        parent = spans.get(e.parent_id) if e.parent_id else None
        context = trace.set_span_in_context(parent) if parent is not None else None
        attributes: dict[str, Any] = {}
        for producer, args in (
            (_common_attrs, (e, run_id, workflow, redact_name)),
            (_agent_attrs, (agents.get(e),)),
            (_io_attrs, (e, redact)),
            (_llm_attrs if e.kind == "llm" else _tool_attrs if e.kind == "tool" else None, (e,)),
        ):
            if producer is not None:
                attributes.update(_guarded(producer, *args))
        if e.kind == "graph" and run_attrs:
            attributes.update(run_attrs)
        span = tracer.start_span(
            _span_name(e, workflow),
            context=context if context is not None else trace.set_span_in_context(outer),
            kind=SpanKind.CLIENT if e.kind == "llm" else SpanKind.INTERNAL,
            attributes=attributes,
            start_time=e.start_ns,
        )
        spans[e.id] = span
        sc = span.get_span_context()
        if sc.is_valid:
            parent_sc = (parent or outer).get_span_context()
            parent_sc = parent_sc if parent_sc.is_valid else None
            ids[e.id] = (
                format(sc.trace_id, "032x"),
                format(sc.span_id, "016x"),
                format(parent_sc.span_id, "016x") if parent_sc is not None else None,
            )
    for e in events:
        span = spans[e.id]
        if e.status == "error":
            span.set_status(Status(StatusCode.ERROR, redact(e.error or "")))
            attributes = {"exception.type": e.error_type or "Exception", "exception.message": redact(e.error or "")}
            if e.traceback:
                attributes["exception.stacktrace"] = redact(e.traceback)
            span.add_event("exception", attributes, timestamp=e.end_ns or end_ns)
        elif e.status == "interrupted":
            span.set_attribute("harness.interrupted", True)
            span.set_status(Status(StatusCode.OK))
        elif not e.finished:
            span.set_attribute("harness.abandoned", True)
        span.end(end_time=e.end_ns or end_ns)
    return ids
