"""Event records -> rows of ``langgraph_events``, ``llm_calls``, ``tool_calls`` and ``prompts``.

Pure functions over a run's :class:`~harness.tracing.events.Event` records; the span emitter reads
the same records. Meanings (as docs/sheets.md states them): ``step_number`` is the 1-based order of node
executions in the run (by start time) and every row made inside a node carries that node's
step; ``parent_node`` is the node that contains the call; ``call_depth`` counts enclosing
tool calls (0 = called from a node); ``parent_tool_id`` is the enclosing tool call's id.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from uuid import UUID

from .. import costs
from .agents import Agent
from .encode import (PAYLOAD_CAPTURE_CHARS, PREVIEW_CHARS, STORED_CHARS, Truncated, cell_text, cut, jsonable,
                     jsonable_prefix, message_role, message_text, to_json)
from .events import Event
from .usage import Usage, read_usage
from ..secrets.redact import Redactor, redactor

GENERATED_BY_FW = "FW"


def iso(ns: int | None) -> str | None:
    if ns is None:
        return None
    return datetime.fromtimestamp(ns / 1e9, tz=timezone.utc).isoformat(timespec="microseconds")


@dataclass(slots=True)
class RunContext:
    """What the row builder needs to know about the run besides its events."""

    run_id: str
    company_name: str | None
    agent_names: Mapping[str, str] = field(default_factory=dict)
    node_types: Mapping[str, str] = field(default_factory=dict)
    phases: Mapping[str, str] = field(default_factory=dict)
    span_ids: Mapping[UUID, tuple[str, str, str | None]] = field(default_factory=dict)  # trace, span, parent
    #: scrubs the payloads that are cut, before the cut (the other cells are scrubbed whole later)
    redact: Redactor | None = None
    #: the host's prices that differ from the bundled table (see :func:`harness.costs.user_prices`)
    prices: Mapping[str, Any] = field(default_factory=dict)
    #: the cells scrubbed already (cut after redaction), by identity: never scanned again
    scrubbed: dict[int, str] = field(default_factory=dict)

    def cell(self, value: Any, limit: int = STORED_CHARS) -> str | None:
        """A payload as a cell of at most ``limit`` characters (:func:`~.encode.cell_text`):
        only what the cell keeps, and the cut's margin, is ever made into text and scanned."""
        if value is None or (type(value) is str and len(value) <= limit):  # nearly every cell
            return value
        text, scrubbed = cell_text(value, limit, self.redact)
        if scrubbed:
            self.scrubbed[id(text)] = text
        return text

    def data(self, value: Any) -> Any:
        """A payload for a JSON cell: JSON-able data, or its cut text (:meth:`cell`) when its
        JSON is longer than a cell keeps."""
        kept = jsonable_prefix(value, STORED_CHARS)
        return self.cell(value) if type(kept) is Truncated else kept

    def error(self, text: str | None) -> str | None:
        """An error's text: bounded when it was captured (see :func:`~.events.describe_error`)."""
        if text is None or len(text) <= STORED_CHARS:
            return text
        return self.cell(Truncated(text, None, len(text)) if len(text) >= PAYLOAD_CAPTURE_CHARS else text)


@dataclass(slots=True)
class Tree:
    """Derived structure of a run: node steps and, for every event, its containing node.

    Keyed by the event records themselves (identity hashing: cheaper than hashing UUIDs)."""

    events: Sequence[Event]
    by_id: dict[UUID, Event]
    parent: dict[Event, Event | None]  # nearest recorded ancestor
    steps: dict[Event, int]  # node event -> step_number
    owner: dict[Event, Event | None]  # event -> innermost enclosing node (itself for nodes)
    tool_parent: dict[Event, Event | None]  # event -> nearest enclosing tool call
    depth: dict[Event, int]  # event -> number of enclosing tool calls
    text_id: dict[Event, str]  # event -> its id as text
    agents: dict[Event, Agent]  # event -> its agent (see .agents)

    @classmethod
    def build(cls, events: Sequence[Event], agents: dict[Event, Agent]) -> Tree:
        """The tree of ``events`` (in creation order), with each one's agent from
        :func:`.agents.attribute`."""
        by_id = {e.id: e for e in events}
        nodes = sorted((e for e in events if e.kind == "node"), key=lambda e: (e.start_ns, e.name))
        steps = {e: i for i, e in enumerate(nodes, start=1)}
        parents: dict[Event, Event | None] = {}
        owner: dict[Event, Event | None] = {}
        tool_parent: dict[Event, Event | None] = {}
        depth: dict[Event, int] = {}
        for e in events:  # creation order: a parent is always seen before its children
            parent = parents[e] = by_id.get(e.parent_id) if e.parent_id else None
            if parent is None:
                owner[e], tool_parent[e], depth[e] = (e if e.kind == "node" else None), None, 0
                continue
            owner[e] = e if e.kind == "node" else owner.get(parent)
            if parent.kind == "tool":
                tool_parent[e], depth[e] = parent, depth.get(parent, 0) + 1
            elif parent.kind == "node":
                tool_parent[e], depth[e] = None, 0
            else:
                tool_parent[e], depth[e] = tool_parent.get(parent), depth.get(parent, 0)
        text_id = {e: str(e.id) for e in events}
        return cls(events, by_id, parents, steps, owner, tool_parent, depth, text_id, agents)

    def parent_text_id(self, event: Event) -> str | None:
        parent = self.parent.get(event)
        if parent is not None:
            return self.text_id[parent]
        return str(event.parent_id) if event.parent_id else None


# --- models -------------------------------------------------------------------------------

def _per_event(fn):
    """Compute a derived value once per finished event (rows and spans share it)."""
    key = fn.__name__

    def cached(event: Event):
        if not event.finished:
            return fn(event)
        try:
            return event.extra[key]
        except KeyError:
            value = event.extra[key] = fn(event)
            return value

    cached.__name__, cached.__doc__ = fn.__name__, fn.__doc__
    return cached


def unwrapped(value: Any) -> Any:
    """A payload as captured, a payload cut at capture (:class:`~.encode.Truncated`) as what was kept."""
    return value.value if type(value) is Truncated else value


def _first_generation(response: Any) -> Any:
    generations = getattr(unwrapped(response), "generations", None)
    if generations and generations[0]:
        return generations[0][0]
    return None


def response_message(event: Event) -> Any:
    gen = _first_generation(event.outputs)
    return getattr(gen, "message", None) if gen is not None else None


@_per_event
def response_text(event: Event) -> str | None:
    gen = _first_generation(event.outputs)
    if gen is None:
        return None
    message = getattr(gen, "message", None)
    return message_text(message) if message is not None else getattr(gen, "text", None)


@_per_event
def response_model(event: Event) -> str | None:
    """The model the provider says answered; configuration only when the response is silent."""
    message = response_message(event)
    meta = getattr(message, "response_metadata", None) or {}
    for key in ("model_name", "model", "model_id"):
        if meta.get(key):
            return str(meta[key])
    llm_output = getattr(unwrapped(event.outputs), "llm_output", None) or {}
    for key in ("model_name", "model"):
        if llm_output.get(key):
            return str(llm_output[key])
    md, inv = event.metadata or {}, event.invocation or {}
    configured = md.get("ls_model_name") or inv.get("model") or inv.get("model_name")
    return str(configured) if configured else None


@_per_event
def request_model(event: Event) -> str | None:
    md, inv = event.metadata or {}, event.invocation or {}
    configured = md.get("ls_model_name") or inv.get("model") or inv.get("model_name")
    return str(configured) if configured else None


@_per_event
def temperature(event: Event) -> float | None:
    inv, md = event.invocation or {}, event.metadata or {}
    value = inv.get("temperature", md.get("ls_temperature"))
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


@_per_event
def prompt_messages(event: Event) -> list[tuple[str, str]]:
    """(role, text) pairs of the first prompt of the call; a provider's key split over two
    messages (half in each) is redacted in both (:meth:`~harness.secrets.redact.Redactor.across`),
    which the scrub of the joined text could not see."""
    inputs = unwrapped(event.inputs)
    if not inputs:
        return []
    first = inputs[0]
    if not event.chat:
        return [("user", str(first))]
    roles, texts = [message_role(m) for m in first], [message_text(m) for m in first]
    return list(zip(roles, redactor().across(texts) if len(texts) > 1 else texts))


@_per_event
def prompt_text(event: Event) -> str:
    return "\n\n".join(f"{role}: {text}" for role, text in prompt_messages(event))


def prompt_value(event: Event) -> str | Truncated:
    """The call's prompt text, as cut at capture when its messages were."""
    text = prompt_text(event)
    return Truncated(text, None, len(text)) if type(event.inputs) is Truncated else text


def response_value(event: Event) -> str | Truncated | None:
    """The call's response text, as cut at capture when its result was."""
    text = response_text(event)
    return Truncated(text, None, len(text)) if text is not None and type(event.outputs) is Truncated else text


@_per_event
def usage(event: Event) -> Usage:
    """The call's tokens as the provider reported them, each kind once (see :mod:`.usage`),
    from the aggregated message (stream chunks are never added again here), else an estimate."""
    found = read_usage(response_message(event), getattr(unwrapped(event.outputs), "llm_output", None))
    if found is not None:
        return found
    if event.status != "ok" or event.outputs is None:
        return Usage(None, None, "missing")
    # ~4 characters per token: flagged as an estimate, never passed off as measured.
    text_in, text_out = prompt_text(event), response_text(event) or ""
    return Usage(max(1, round(len(text_in) / 4)), max(1, round(len(text_out) / 4)) if text_out else 0, "estimated")


def reasoning_of(event: Event, text: str | None) -> str | None:
    message = response_message(event)
    extra = getattr(message, "additional_kwargs", None) or {}
    if extra.get("reasoning_content"):
        return str(extra["reasoning_content"])
    if text and text.lstrip().startswith("{"):
        try:
            parsed = json.loads(text)
        except ValueError:
            return None
        if isinstance(parsed, dict) and isinstance(parsed.get("reasoning"), str):
            return parsed["reasoning"]
    tool_calls = getattr(message, "tool_calls", None) or []
    for call in tool_calls:
        args = call.get("args") or {}
        if isinstance(args.get("reasoning"), str):
            return args["reasoning"]
    return None


# --- row builders -------------------------------------------------------------------------

def _common(ctx: RunContext, tree: Tree, event: Event, node: Event | None) -> dict[str, Any]:
    agent = tree.agents.get(event)
    return {
        "run_id": ctx.run_id,
        "company_name": ctx.company_name,
        "node": node.name if node is not None else None,
        "agent_name": agent.name if agent is not None else None,
        "agent_path": agent.path if agent is not None else None,
        "step_number": tree.steps.get(node) if node is not None else None,
    }


def _trace(ctx: RunContext, event: Event) -> dict[str, Any]:
    ids = ctx.span_ids.get(event.id) if ctx.span_ids else None
    if not ids:
        return {}
    return {"trace_id": ids[0], "span_id": ids[1], "parent_span_id": ids[2]}


_EVENT_TYPES = {
    ("graph", "start"): "on_chain_start", ("graph", "ok"): "on_chain_end", ("graph", "error"): "on_chain_error",
    ("node", "start"): "on_chain_start", ("node", "ok"): "on_chain_end", ("node", "error"): "on_chain_error",
    ("llm", "start"): "on_chat_model_start", ("llm", "ok"): "on_llm_end", ("llm", "error"): "on_llm_error",
    ("tool", "start"): "on_tool_start", ("tool", "ok"): "on_tool_end", ("tool", "error"): "on_tool_error",
}
#: ``langgraph_events.event_type`` of a node's start row.
NODE_START = _EVENT_TYPES[("node", "start")]


def node_type_of(ctx: RunContext, event: Event) -> str:
    if event.kind == "node":
        return ctx.node_types.get(event.name, "node")
    return {"graph": "graph", "llm": "llm", "tool": "tool"}[event.kind]


def langgraph_event_rows(ctx: RunContext, tree: Tree) -> list[dict[str, Any]]:
    rows = []
    for e in tree.events:
        node = tree.owner.get(e) if e.kind != "graph" else None
        base = _common(ctx, tree, e, node)
        if e.kind == "graph":
            base["node"] = e.name
        is_llm = e.kind == "llm"
        model = response_model(e) if is_llm and e.finished else (request_model(e) if is_llm else None)
        u = usage(e) if is_llm and e.finished else None
        common = {
            **base,
            "node_type": node_type_of(ctx, e),
            "event_name": e.name,
            "model": model,
            "temperature": temperature(e) if is_llm else None,
            "event_id": tree.text_id[e],
            "parent_event_id": tree.parent_text_id(e),
            "langgraph_step": e.langgraph_step,
            "checkpoint_ns": e.checkpoint_ns,
            "subgraph_depth": e.subgraph_depth,
            "thread_id": (e.metadata or {}).get("thread_id"),
            "event_kind": e.kind,
            "generated_by": GENERATED_BY_FW,
            **_trace(ctx, e),
        }
        start_type = _EVENT_TYPES[(e.kind, "start")] if (e.kind != "llm" or e.chat) else "on_llm_start"
        rows.append({
            **common,
            "row_key": f"{tree.text_id[e]}:start",
            "event_type": start_type,
            "input_preview": ctx.cell(prompt_value(e) if is_llm else e.inputs, PREVIEW_CHARS),
            "status": "started",
            "timestamp": iso(e.start_ns),
        })
        if not e.finished:
            continue
        outcome = "error" if e.status == "error" else "ok"
        tokens = None if u is None or u.prompt_tokens is None else u.prompt_tokens + (u.completion_tokens or 0)
        rows.append({
            **common,
            "row_key": f"{tree.text_id[e]}:end",
            "event_type": _EVENT_TYPES[(e.kind, outcome)],
            "tokens": tokens,
            "output_preview": ctx.cell(response_value(e) if is_llm else e.outputs, PREVIEW_CHARS),
            "duration_ms": e.duration_ms,
            "status": e.status,
            "error": ctx.error(e.error),
            "timestamp": iso(e.end_ns),
            "traceback": e.traceback,
            "handoff_to": e.handoff,
        })
    return rows


def llm_call_rows(ctx: RunContext, tree: Tree) -> list[dict[str, Any]]:
    rows = []
    for e in tree.events:
        if e.kind != "llm" or not e.finished:
            continue
        md = e.metadata or {}
        node = tree.owner.get(e)
        text = response_text(e)
        model = response_model(e)
        u = usage(e)
        price, priced = priced_call(model, u, ctx.prices)
        total = None if u.prompt_tokens is None else u.prompt_tokens + (u.completion_tokens or 0)
        parent_tool = tree.tool_parent.get(e)
        rows.append({
            **_common(ctx, tree, e, node),
            "row_key": f"{tree.text_id[e]}:llm",
            "node_type": "llm",
            "call_type": md.get("harness.call_type") or ("chat" if e.chat else "completion"),
            "model": model,
            "temperature": temperature(e),
            "prompt": ctx.cell(prompt_value(e)),
            "response": ctx.cell(response_value(e)),
            "reasoning": ctx.cell(reasoning_of(e, text)),
            "context": ctx.cell(md.get("harness.context")),
            "current_task": ctx.cell(md.get("harness.current_task")),
            "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens,
            "total_tokens": total,
            "input_cost": priced.input_cost if priced else None,
            "output_cost": priced.output_cost if priced else None,
            "total_cost": priced.total_cost if priced else None,
            "execution_time_ms": e.duration_ms,
            "status": "ok" if e.status != "error" else "error",
            "error": ctx.error(e.error),
            "timestamp": iso(e.end_ns),
            "generated_by": "Mixed",
            "llm_call_id": tree.text_id[e],
            "usage_source": u.source,
            "time_to_first_token_ms": (e.first_token_ns - e.start_ns) / 1e6 if e.first_token_ns else None,
            "price_table": price.table if priced else None,
            "parent_tool_id": tree.text_id[parent_tool] if parent_tool is not None else None,
            "traceback": e.traceback,
            **_trace(ctx, e),
            "cache_read_tokens": u.cache_read,
            "cache_write_5m_tokens": u.cache_write_5m,
            "cache_write_1h_tokens": u.cache_write_1h,
            "reasoning_tokens": u.reasoning,
            "audio_input_tokens": u.audio_input,
            "audio_output_tokens": u.audio_output,
            "usage_note": u.note,
            "cost_note": priced.note if priced else None,
        })
    return rows


def priced_call(model: str | None, u: Usage,
                prices: Mapping[str, Any] | None) -> tuple[costs.Price | None, costs.Cost | None]:
    """The price of ``model`` and the call's cost at it (None without a price or tokens)."""
    price = costs.price_for(model, prices)
    tokens = u.tokens
    if price is None or tokens is None:
        return price, None
    try:
        return price, costs.cost_of(price, tokens, model)
    except ValueError:  # counts that contradict themselves (read_usage makes them agree): no cost, not a wrong one
        return price, None


def _tool_payload(value: Any, limit: int | None = None) -> Any:
    """Tool input/output as JSON-able data: ToolMessage content, JSON strings decoded; a
    handoff's command with its destination (``goto``) first. ``limit``: data is walked only
    as far as that many characters of JSON (:class:`~.encode.Truncated` when it had more)."""
    content = getattr(value, "content", value) if hasattr(value, "tool_call_id") else value
    if type(content).__name__ == "Command":
        data = jsonable(content)
        return {"goto": data.pop("goto", None), **data} if isinstance(data, dict) else data
    if isinstance(content, str):
        stripped = content.strip()
        if stripped[:1] in ("{", "["):
            try:
                return json.loads(stripped)
            except ValueError:
                return content
    return jsonable(content) if limit is None else jsonable_prefix(content, limit)


def _tool_json(ctx: RunContext, value: Any) -> Any:
    """A tool's input or output for its JSON column: data as it is; a plain text (most tools
    return one) as a JSON string, so the cell is JSON like every other. A payload longer than
    a cell keeps (cut at capture, or once made) is its text cut, ending with the marker."""
    if type(value) is Truncated:
        return ctx.cell(Truncated(_tool_payload(value.value), value.length, value.size))
    payload = _tool_payload(value, STORED_CHARS)
    if isinstance(payload, str):
        return to_json(payload) if len(payload) <= STORED_CHARS else ctx.cell(payload)
    return ctx.cell(payload) if type(payload) is Truncated else payload


def tool_call_rows(ctx: RunContext, tree: Tree) -> list[dict[str, Any]]:
    rows = []
    for e in tree.events:
        if e.kind != "tool" or not e.finished:
            continue
        node = tree.owner.get(e)
        parent_tool = tree.tool_parent.get(e)
        md = e.metadata or {}
        status = "fail" if e.status == "error" else "ok"
        if status == "ok" and getattr(unwrapped(e.outputs), "status", None) == "error":  # ToolMessage(status="error")
            status = "fail"
        rows.append({
            **_common(ctx, tree, e, node),
            "row_key": f"{tree.text_id[e]}:tool",
            "node_type": "tool",
            "tool_name": e.name,
            "tool_input": _tool_json(ctx, e.inputs),
            "tool_output": _tool_json(ctx, e.outputs) if e.status != "error" else None,
            "parent_node": node.name if node is not None else None,
            "workflow_phase": md.get("harness.workflow_phase") or (ctx.phases.get(node.name) if node else None),
            "call_depth": tree.depth.get(e, 0),
            "parent_tool_id": tree.text_id[parent_tool] if parent_tool is not None else None,
            "execution_time_ms": e.duration_ms,
            "status": status,
            "error": ctx.error(e.error) or (ctx.data(_tool_payload(unwrapped(e.outputs))) if status == "fail" else None),
            "timestamp": iso(e.end_ns),
            "generated_by": "Us",
            "tool_call_id": tree.text_id[e],
            "traceback": e.traceback,
            "handoff_to": e.handoff,
            **_trace(ctx, e),
        })
        if isinstance(rows[-1]["error"], (dict, list)):
            rows[-1]["error"] = to_json(rows[-1]["error"])
    return rows


def prompt_rows(ctx: RunContext, tree: Tree) -> list[dict[str, Any]]:
    rows = []
    for e in tree.events:
        if e.kind != "llm":
            continue
        md = e.metadata or {}
        messages = prompt_messages(e)
        system = "\n\n".join(t for r, t in messages if r == "system") or None
        user = "\n\n".join(f"{r}: {t}" if r not in ("human", "user") else t for r, t in messages if r != "system")
        rows.append({
            **_common(ctx, tree, e, tree.owner.get(e)),
            "row_key": f"{tree.text_id[e]}:prompt",
            "prompt_id": md.get("harness.prompt_id"),
            "prompt_name": md.get("harness.prompt_name"),
            "category": md.get("harness.prompt_category"),
            "system_prompt": ctx.cell(system),
            "user_prompt": ctx.cell(user or None),
            "variables_json": ctx.data(md.get("harness.prompt_variables")),
            "model": request_model(e) if not e.finished else response_model(e),
            "temperature": temperature(e),
            "timestamp": iso(e.start_ns),
            "generated_by": "Us",
            "llm_call_id": tree.text_id[e],
        })
    return rows


def captured_rows(ctx: RunContext, events: Sequence[Event],
                  agents: dict[Event, Agent]) -> tuple[Tree, dict[str, list[dict[str, Any]]]]:
    tree = Tree.build(events, agents)
    return tree, {
        "langgraph_events": langgraph_event_rows(ctx, tree),
        "llm_calls": llm_call_rows(ctx, tree),
        "tool_calls": tool_call_rows(ctx, tree),
        "prompts": prompt_rows(ctx, tree),
    }


#: Columns of captured rows that carry payloads (prompts, responses, tool I/O, errors) or
#: the application's metadata; the other captured columns hold ids, names, numbers and enums
#: the harness produced. (A preview that was cut was scrubbed before the cut as well.)
PAYLOAD_COLUMNS = frozenset({
    "company_name", "prompt", "response", "reasoning", "context", "current_task", "input_preview", "output_preview",
    "tool_input", "tool_output", "traceback",
    "error", "system_prompt", "user_prompt", "variables_json", "thread_id", "workflow", "batch_id", "experiment",
    "case_id", "checkpoint_ns", "prompt_id", "prompt_name", "category", "workflow_phase", "call_type",
    "inputs", "outputs", "reference", "interrupts", "resume",
})


def redact_rows(rows: Iterable[dict[str, Any]], redact: Redactor, columns: frozenset[str] | None = None) -> None:
    """Scrub secrets in place from ``columns`` (default: every text and JSON cell)."""
    scrub_cells(text_cells(rows, columns), redact)


Cell = tuple[dict[str, Any], str, str]  # (row, column, text)


def text_cells(rows: Iterable[dict[str, Any]], columns: frozenset[str] | None = None,
               scrubbed: Mapping[int, str] | None = None) -> list[Cell]:
    """(row, column, text) of the text and JSON cells of ``columns`` (default: all) but those
    ``scrubbed`` already (by identity). JSON values are turned into their JSON text, so a
    secret inside a nested payload is found; the store keeps that text as the cell's JSON."""
    cells: list[Cell] = []
    for row in rows:
        for key in (row.keys() & columns if columns is not None else list(row)):
            value = row[key]
            if isinstance(value, str):
                if not scrubbed or scrubbed.get(id(value)) is not value:
                    cells.append((row, key, value))
            elif isinstance(value, (dict, list)):
                text = row[key] = to_json(value)
                cells.append((row, key, text))
    return cells


def scrub_cells(cells: Sequence[Cell], redact: Redactor) -> None:
    """Scrub the cells in place. Their distinct texts (rows repeat names, sources, specs) are
    scanned together first, and scrubbed one by one only when that scan finds something. A
    cell longer than a payload's cell (a value the row builders do not bound: the
    application's metadata) is cut there, redacted before."""
    texts = [text for _, _, text in cells]
    kept = cells
    if texts and max(map(len, texts)) > STORED_CHARS:
        kept = []
        for row, key, text in cells:
            if len(text) > STORED_CHARS:
                row[key] = cut(text, STORED_CHARS, redact)
            else:
                kept.append((row, key, text))
        texts = [text for _, _, text in kept]
    texts = list(dict.fromkeys(texts))
    if texts and redact.finds_any(texts):
        scrubbed = {text: redact(text) for text in texts}
        for row, key, text in kept:
            row[key] = scrubbed[text]
