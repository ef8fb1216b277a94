"""Turning LangChain / LangGraph payloads into JSON-able values and text."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..schema import truncation_marker
from ..secrets.redact import REDACTED

if TYPE_CHECKING:
    from ..secrets.redact import Redactor

PREVIEW_CHARS = 10_000
#: What capture keeps of a payload that rows and spans only preview (a node's or the graph's
#: input and output): the first characters of its JSON, a margin beyond the preview, so a
#: secret that straddles the preview's cut is still whole when redaction runs.
CAPTURE_CHARS = PREVIEW_CHARS + 2_048
#: The most characters a payload's cell keeps (a tool's input and output, a prompt, a
#: response, an error): a longer payload is cut, its cell ending with the truncation marker.
#: A run whose tool returned 250 MB is stored, with what a cell can show of it.
STORED_CHARS = 1_000_000
#: What capture keeps of a payload longer than a cell: its beginning, with the same margin.
PAYLOAD_CAPTURE_CHARS = STORED_CHARS + 2_048


class Truncated:
    """A payload cut at capture: ``value`` is what was kept of it, whose text (see
    :func:`payload_text`) is the payload's text for at least its first ``size`` characters
    (a text: its first characters; data: JSON-able data; a message or a model's result: a
    copy with its texts cut); the rest was never copied. ``length``: the whole payload's
    text length, when known without reading it all (a text's), else None."""

    __slots__ = ("value", "length", "size")

    def __init__(self, value: Any, length: int | None = None, size: int = CAPTURE_CHARS) -> None:
        self.value = value
        self.length = length
        self.size = size

    def __reduce__(self) -> tuple[Any, ...]:
        return Truncated, (self.value, self.length, self.size)

    def __eq__(self, other: object) -> bool:
        return type(other) is Truncated and other.value == self.value and other.length == self.length

    def __repr__(self) -> str:
        return f"Truncated({self.value!r}, {self.length!r})"


def _key(key: Any) -> str:
    """A mapping key as JSON text names it (as :mod:`json` does for the keys it accepts)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (int, float)):  # bool is an int: true / false
        return json.dumps(key)
    return str(key)


def jsonable(value: Any, _depth: int = 0) -> Any:
    """A JSON-able copy of ``value``: messages and pydantic models as dicts, sets as lists."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if _depth > 32:
        return repr(value)
    if isinstance(value, Mapping):
        return {_key(k): jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [jsonable(v, _depth + 1) for v in items]
    return jsonable(_plain(value), _depth + 1)


def _plain(value: Any) -> Any:
    """What an object that is not plain data stands for in JSON."""
    if type(value) is Truncated:  # what capture kept of a payload
        return value.value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if hasattr(value, "model_dump"):
        try:
            return value.model_dump(exclude_none=True)
        except Exception:  # noqa: BLE001 - fall back to text
            return repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return str(value)


def jsonable_prefix(value: Any, chars: int = CAPTURE_CHARS) -> Any:
    """``value`` as JSON-able data, walked only as far as the first ``chars`` characters of its
    JSON need: a :class:`Truncated` when the rest was left out, else all of it (as
    :func:`jsonable` makes it). The cost is in proportion to what is kept, not to the payload.

    Lengths are counted low (escapes, numbers and punctuation are not counted in full), so a
    value is cut only when its JSON is longer than ``chars``, and the JSON of what is kept
    equals the payload's JSON for at least ``chars`` characters."""
    budget = [chars]
    kept = _walk(value, budget, 0)
    return Truncated(kept, size=chars) if budget[0] < 0 else kept


def walked(value: Any, budget: list[int]) -> Any:
    """``value`` as :func:`jsonable_prefix` keeps it, out of what is left of a ``budget`` of
    characters shared with other values (spent by what is kept, never below 0)."""
    kept = _walk(value, budget, 0)
    budget[0] = max(budget[0], 0)
    return kept


def _walk(value: Any, budget: list[int], depth: int) -> Any:
    t = type(value)  # the plain types first, by their exact type (an isinstance of an ABC costs more)
    if t is str:
        return _walk_text(value, budget)
    if value is None or t is int or t is float or t is bool:
        budget[0] -= 1
        return value
    if depth > 32:
        return _walk(repr(value), budget, depth)
    if t is dict:
        return _walk_mapping(value, budget, depth)
    if t is list or t is tuple:
        return _walk_items(value, budget, depth)
    if isinstance(value, (bool, int, float)):
        budget[0] -= 1
        return value
    if isinstance(value, str):
        return _walk_text(value, budget)
    if isinstance(value, Mapping):
        return _walk_mapping(value, budget, depth)
    if isinstance(value, (list, tuple, set, frozenset)):
        return _walk_items(sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value, budget, depth)
    return _walk(_plain(value), budget, depth + 1)


def _walk_text(value: str, budget: list[int]) -> str:
    if len(value) >= budget[0]:
        kept = value[:max(budget[0], 0)]
        budget[0] = -1
        return kept
    budget[0] -= len(value) + 2
    return value


def _walk_mapping(value: Mapping[Any, Any], budget: list[int], depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    budget[0] -= 2
    for key, item in value.items():
        if budget[0] < 0:
            break
        name = key if type(key) is str else _key(key)
        budget[0] -= len(name) + 4
        out[name] = _walk(item, budget, depth + 1)
    return out


def _walk_items(items: Any, budget: list[int], depth: int) -> list[Any]:
    kept_items: list[Any] = []
    budget[0] -= 2
    for item in items:
        if budget[0] < 0:
            break
        budget[0] -= 1
        kept_items.append(_walk(item, budget, depth + 1))
    return kept_items


# The C encoder walks plain data itself and asks _plain only for the other objects.
_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=_plain)


def to_json(value: Any) -> str:
    """``value`` as compact JSON text, as :func:`jsonable` makes it."""
    try:
        return _encoder.encode(value)
    except (TypeError, ValueError, RecursionError):  # keys json refuses, cycles, great depth
        return json.dumps(jsonable(value), separators=(",", ":"), ensure_ascii=False)


def payload_text(value: Any) -> str:
    """A payload as text: text as it is (also when capture cut it), anything else as JSON."""
    if type(value) is Truncated:
        value = value.value
    return value if isinstance(value, str) else to_json(value)


def payload_window(value: Any, chars: int) -> tuple[str, int | None, bool]:
    """The beginning of a payload's text (:func:`payload_text`), at least its first ``chars``
    characters when it has them, made walking only as far as they need (a large value is
    never encoded whole): ``(text, length, cut)``, ``length`` being the whole text's length
    when known and ``cut`` whether ``text`` is less than all of it (also when capture cut it)."""
    if type(value) is str:
        return (value, len(value), False) if len(value) <= chars else (value[:chars], len(value), True)
    if type(value) is Truncated:  # bounded when it was kept
        return payload_text(value), value.length, True
    if _plain_within(value, [chars], 0):  # small plain data (nearly all): encoded whole, in C
        text = to_json(value)
        return text, len(text), False
    # Walked a little beyond the window, so a value not much longer is encoded whole and its
    # length is known (the walk counts numbers and punctuation low: what it keeps is bounded).
    kept = jsonable_prefix(value, 2 * chars)
    if type(kept) is Truncated:
        return to_json(kept.value), None, True
    text = to_json(kept)
    return text, len(text), False


def _plain_within(value: Any, budget: list[int], depth: int) -> bool:
    """Whether ``value`` is plain JSON data (dicts with text keys, lists, texts, numbers)
    whose JSON has at most about ``budget`` characters: then encoding it whole costs no more
    than the window it is cut to. Counted as the walk counts (numbers and punctuation low), so
    data that shares a list many times over (a payload can) is never taken for small."""
    t = type(value)
    if t is dict:
        if depth > 32:
            return False
        left = budget[0] - 2
        for key, item in value.items():
            if type(key) is not str:
                return False
            u = type(item)
            if u is str:  # the leaves inline: most of a state is texts
                left -= len(key) + len(item) + 6
            elif item is None or u is int or u is float or u is bool:
                left -= len(key) + 5
            else:
                budget[0] = left - len(key) - 4
                if not _plain_within(item, budget, depth + 1):
                    return False
                left = budget[0]
            if left < 0:
                return False
        budget[0] = left
        return True
    if t is list:
        if depth > 32:
            return False
        left = budget[0] - 2
        for item in value:
            u = type(item)
            if u is str:
                left -= len(item) + 3
            elif item is None or u is int or u is float or u is bool:
                left -= 2
            else:
                budget[0] = left - 1
                if not _plain_within(item, budget, depth + 1):
                    return False
                left = budget[0]
            if left < 0:
                return False
        budget[0] = left
        return True
    if t is str:
        budget[0] -= len(value) + 2
    elif value is None or t is int or t is float or t is bool:
        budget[0] -= 1
    else:
        return False
    return budget[0] >= 0


def cell_text(value: Any, limit: int, redact: Redactor | None = None) -> tuple[str | None, bool]:
    """A payload as a cell's text of at most ``limit`` characters, and whether that text is
    scrubbed already. A text that fits is given whole and unscrubbed: its row scrubs it with
    its other cells, in one scan. A longer one is redacted over its kept part and the cut's
    margin (only that much of it is ever made: see :func:`payload_window`), then cut (see
    :func:`cut`); scrubbed, when ``redact`` is given."""
    if value is None:
        return None, False
    text, length, was_cut = payload_window(value, limit + (redact.margin if redact is not None else 0))
    if not was_cut and len(text) <= limit:
        return text, False
    return cut(text, limit, redact, length, at_least=length is None), redact is not None


def preview(value: Any, limit: int = PREVIEW_CHARS, redact: Redactor | None = None) -> str | None:
    """``value`` as text (:func:`payload_text`), cut to ``limit`` (see :func:`cell_text`). Only
    a text that is cut is redacted here (before the cut): one kept whole is left for the
    caller to scrub with the rest of its row."""
    return cell_text(value, limit, redact)[0]


def payload_cut(value: Any, limit: int, redact: Redactor | None = None) -> str:
    """A payload as text, redacted and cut to ``limit`` (:func:`cut`); for one capture cut
    (:class:`Truncated`), the marker gives its whole length when known, else what was kept."""
    text, length, was_cut = payload_window(value, limit + (redact.margin if redact is not None else 0))
    if not was_cut:
        return cut(text, limit, redact)
    return cut(text, limit, redact, length, at_least=length is None)


def cut(text: str, limit: int, redact: Redactor | None = None, length: int | None = None, *,
        at_least: bool = False) -> str:
    """``text`` redacted, then, when longer than ``limit``, cut to at most ``limit``
    characters ending with the visible marker ``…[truncated, N chars]`` (N = ``length``,
    default ``len(text)``: the whole value's length; ``at_least``: N+, the whole length being
    unknown beyond what ``text`` holds).

    Redaction comes first, over the kept part and ``redact.margin`` characters beyond it, so
    a secret straddling the cut is recognised whole and no fragment of it survives (a rule
    whose secret reaches the end of that window redacts it to the end). A caller that
    encodes only part of a large value (a bounded encoder) must hand over at least its
    first ``limit + redact.margin`` characters, and its whole ``length``.
    """
    total = len(text) if length is None else length
    if total <= limit and len(text) <= limit and not at_least:
        return redact(text) if redact is not None else text
    window = text[:limit + redact.margin] if redact is not None else text
    if redact is not None:
        window = redact(window)
    marker = truncation_marker(total, at_least=at_least)
    keep = max(0, limit - len(marker))
    if len(window) <= keep:
        return window + marker
    # Never end inside a [REDACTED] (cut before it instead).
    straddling = window.rfind(REDACTED, max(0, keep - len(REDACTED) + 1), keep + len(REDACTED) - 1)
    return window[:keep if straddling == -1 else straddling] + marker


#: What a run keeps of its input and its output (``runs.inputs``, ``runs.outputs``): characters
#: of JSON, as every payload's cell.
RUN_PAYLOAD_CHARS = STORED_CHARS


def run_payload(value: Any, redact: Redactor | None = None, scrubbed: dict[int, str] | None = None) -> Any:
    """A run's input or output as ``runs.inputs`` / ``runs.outputs`` keep it: JSON data, or,
    past :data:`RUN_PAYLOAD_CHARS` of JSON, its text cut there with the visible marker
    (redacted before the cut, over the kept part and the cut's margin, and then put in
    ``scrubbed``; what is kept whole is scrubbed with the rest of its row)."""
    kept = value if type(value) is Truncated else jsonable_prefix(value, RUN_PAYLOAD_CHARS)
    if type(kept) is not Truncated:
        return kept
    text = payload_cut(value, RUN_PAYLOAD_CHARS, redact)  # from the value: the margin is in it
    if scrubbed is not None and redact is not None:
        scrubbed[id(text)] = text
    return text


def message_text(message: Any) -> str:
    """The text of a LangChain message (content blocks joined), tool calls appended as JSON."""
    content = getattr(message, "content", message)
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and "text" in block:
                parts.append(str(block["text"]))
        content = "".join(parts)
    text = content if isinstance(content, str) else to_json(content)
    # (read from the instance's fields: a pydantic model answers a missing attribute only after
    # two raised AttributeErrors, which cost more than the rest of a model call's rows)
    tool_calls = getattr(message, "__dict__", {}).get("tool_calls")
    if tool_calls:
        calls = [{"name": c.get("name"), "args": c.get("args")} for c in tool_calls]
        text = f"{text}\n{to_json({'tool_calls': calls})}" if text else to_json({"tool_calls": calls})
    return text


def message_role(message: Any) -> str:
    return str(getattr(message, "type", None) or getattr(message, "role", None) or "user")
