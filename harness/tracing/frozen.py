"""Payloads frozen at their callback, and the pickling a run record travels in.

A callback's payload (a node's input state, its output, a model's messages and result, a
tool's input and output) is a reference into the application's live objects: a later node
that appends to a list in the state, or edits a message, would change what the trace says
an earlier step saw. So the callback adapter keeps a serialised copy of each payload, made
as the callback happens (:func:`freeze`), and the rows and spans are built from what it
thaws (:func:`thaw`): each step shows its payload as it was then, whenever the rows are made.

One pickling for both freezing and the records sent to the writer process (:func:`dumps`):
the objects every run has many of go as their few fields, not through their generic
(pydantic, copyreg) pickling, and an object of the application's own classes goes as its
JSON form (which is all the rows keep of it), so whoever unpickles it need not import the
application.
"""

from __future__ import annotations

import io
import logging
import marshal
import pickle
from collections.abc import Callable
from typing import Any
from uuid import UUID

from langchain_core import messages as messages_module
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, Generation, GenerationChunk, LLMResult

from .encode import CAPTURE_CHARS, PAYLOAD_CAPTURE_CHARS, Truncated, jsonable, jsonable_prefix, walked

logger = logging.getLogger("harness")

# Types whose pickles the writer process can always read: the libraries the events come
# from and the standard types they hold. Any other object in a payload (the application's
# own classes, which the writer process may be unable to import) is sent as its JSON form.
_NATIVE_MODULES = ("builtins", "langchain_core", "langgraph", "harness", "uuid", "datetime", "decimal", "re",
                   "collections", "pydantic", "pydantic_core", "copyreg")
_PROTOCOL = pickle.HIGHEST_PROTOCOL


def _as_is(value: Any) -> Any:
    return value


def _uuid(number: int) -> UUID:
    return UUID(int=number)


def _llm_result(generations: Any, llm_output: Any) -> LLMResult:
    return LLMResult(generations=generations, llm_output=llm_output)


def _chat_generation(message: Any, generation_info: Any) -> ChatGeneration:
    return ChatGeneration(message=message, generation_info=generation_info)


def _message(cls: type[BaseMessage], fields: dict[str, Any], extra: dict[str, Any] | None) -> BaseMessage:
    return cls.model_construct(**fields, **(extra or {}))


def _reduce_uuid(obj: UUID) -> Any:
    return _uuid, (obj.int,)


def _reduce_chat_generation(obj: ChatGeneration) -> Any:
    return _chat_generation, (obj.message, obj.generation_info)


def _reduce_llm_result(obj: LLMResult) -> Any:
    return _llm_result, (obj.generations, obj.llm_output)


def _reduce_message(obj: BaseMessage) -> Any:
    # A message's fields, not pydantic's generic state (about 5x cheaper to pickle).
    return _message, (_langchain_class(type(obj)), obj.__dict__, obj.__pydantic_extra__)


def _reduce_foreign(obj: Any) -> Any:
    # A subclass of a plain type (an enum member, say) goes as its plain value: as itself it
    # would come straight back here.
    if isinstance(obj, str):
        return _as_is, (str.__str__(obj),)
    if isinstance(obj, int):
        return _as_is, (int.__int__(obj),)
    if isinstance(obj, float):
        return _as_is, (float.__float__(obj),)
    try:
        return _as_is, (jsonable(obj),)
    except Exception:  # noqa: BLE001 - the rows would keep only its text anyway
        return _as_is, (repr(obj),)


#: How each class met is pickled: a reducer, or None for pickle's own way.
_reducers: dict[type, Callable[[Any], Any] | None] = {
    UUID: _reduce_uuid, ChatGeneration: _reduce_chat_generation,
    LLMResult: _reduce_llm_result,
}


def register(cls: type, reduce: Callable[[Any], Any]) -> None:
    """Pickle instances of ``cls`` as ``reduce`` says (for the harness's own record types)."""
    _reducers[cls] = reduce


def _reducer_for(cls: type) -> Callable[[Any], Any] | None:
    if issubclass(cls, BaseMessage):
        return _reduce_message
    module = getattr(cls, "__module__", None) or ""
    if module.split(".", 1)[0] in _NATIVE_MODULES or issubclass(cls, type):
        return None
    return _reduce_foreign


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        try:
            reduce = _reducers[cls]
        except KeyError:
            reduce = _reducers[cls] = _reducer_for(cls)
        return NotImplemented if reduce is None else reduce(obj)


def dumps(value: Any) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=_PROTOCOL).dump(value)
    return buffer.getvalue()


# --- freezing ---------------------------------------------------------------------------
# A frozen payload is None, text (both immutable: kept as they are) or bytes: plain data
# (exact builtin types only) as :mod:`marshal` writes it, the quick common case, else a
# pickle. A pickle starts with its PROTO opcode, 0x80; a marshal stream never does (its
# first byte is an ASCII type code, with 0x80 added when the object is referenced), so
# the first byte says which. A model call's messages and result are frozen as their fields
# (plain data) and rebuilt when thawed: pickling them takes an import lookup per class.

_PICKLE_START = pickle.PROTO[0]
#: A payload whose frozen form is larger than this keeps only its beginning (see :func:`kept_of`):
#: a cell keeps at most :data:`~.encode.STORED_CHARS` characters of it.
MAX_FROZEN_BYTES = 1 << 20


def _bounded(value: Any, frozen: Any) -> Any:
    if type(frozen) is bytes and len(frozen) > MAX_FROZEN_BYTES:
        logger.debug("payload of %d bytes frozen keeps its beginning", len(frozen))
        return kept_of(value)
    return frozen


# --- payloads larger than a cell -------------------------------------------------------------
# A payload is copied when its callback fires; one far larger than a cell keeps (a tool that
# returns 250 MB) keeps only the beginning its cells and spans can show, with a margin for
# redaction, so a run's memory, its trip to the writer process and every scan of it follow
# what is stored, not what went through the graph. A cheap look at the payload's first levels
# finds most large ones before they are serialised at all; the frozen size catches the rest.

_LOOK_VISITS = 512  # values a look at a payload visits at most


def _large(value: Any) -> bool:
    """Whether the payload holds more text than a cell keeps, as far as a look at its first
    levels (texts, messages' contents, a model result's generations) can tell."""
    return _text_size(value, [_LOOK_VISITS], 0) > PAYLOAD_CAPTURE_CHARS


def _text_size(value: Any, visits: list[int], depth: int) -> int:
    """About how many characters of text ``value`` holds (containers estimated from the
    items looked at), looking at most ``visits`` values and four levels down."""
    visits[0] -= 1
    t = type(value)  # plain types by their exact type first: this runs on the graph's path
    if t is str:
        return len(value)
    if value is None or t is int or t is float or t is bool or visits[0] < 0 or depth > 3:
        return 0
    if t is dict:
        items: Any = value.values()
    elif t is list or t is tuple:
        items = value
    elif t is LLMResult:
        items = [g for batch in value.generations for g in batch]
    elif isinstance(value, BaseMessage):
        return _text_size(value.content, visits, depth + 1)
    elif isinstance(value, Generation):
        return _text_size(getattr(value, "message", None) or value.text, visits, depth + 1)
    else:
        return 0
    total = looked = 0
    for item in items:
        if visits[0] < 0 or total > PAYLOAD_CAPTURE_CHARS:
            break
        total += _text_size(item, visits, depth + 1)
        looked += 1
    return total if looked in (0, len(items)) else total * len(items) // looked


def kept_of(value: Any) -> Any:
    """What capture keeps of a payload larger than a cell: its first
    :data:`~.encode.PAYLOAD_CAPTURE_CHARS` characters of text. A message (or a conversation
    of them, or a model's result) stays one, its texts cut in order; anything else becomes
    the JSON-able data of its beginning (:func:`~.encode.jsonable_prefix`)."""
    size = PAYLOAD_CAPTURE_CHARS
    if type(value) is str:
        return Truncated(value[:size], len(value), size)
    budget = [size]
    if isinstance(value, BaseMessage):
        content = value.content
        return Truncated(_cut_message(value, budget), len(content) if isinstance(content, str) else None, size)
    if type(value) is LLMResult:
        generations = [[_cut_generation(g, budget) for g in batch] for batch in value.generations]
        return Truncated(_llm_result(generations, walked(value.llm_output, [_FIELD_CHARS])), None, size)
    if type(value) is list and value and all(type(batch) is list for batch in value) and any(
            isinstance(m, BaseMessage) for batch in value for m in batch):  # a chat model's conversations
        return Truncated([[_cut_message(m, budget) if isinstance(m, BaseMessage) else walked(m, budget)
                           for m in batch] for batch in value], None, size)
    # (data within the size after all, such as bytes shown as their length: a copy of it, whole)
    return jsonable_prefix(value, size)


#: A message's fields kept as they are (short names and ids); the others are cut in order.
_MESSAGE_IDS = frozenset({"type", "id", "name", "tool_call_id", "status", "role"})


def _cut_message(message: BaseMessage, budget: list[int]) -> BaseMessage:
    """A copy of ``message`` whose content and other fields hold at most what is left of
    ``budget`` characters (their first ones), the content first."""
    fields = message.__dict__
    cut: dict[str, Any] = {key: fields[key] for key in _MESSAGE_IDS & fields.keys()}
    cut["content"] = walked(fields.get("content"), budget)
    for key, item in fields.items():  # usage, metadata, tool calls: each at least its beginning
        if key not in cut:
            cut[key] = walked(item, budget if budget[0] >= _FIELD_CHARS else [_FIELD_CHARS])
    return _message(_langchain_class(type(message)), cut, walked(message.__pydantic_extra__, [_FIELD_CHARS]))


_FIELD_CHARS = 4_096  # what a message's other fields keep at least, however long its content


def _cut_generation(generation: Any, budget: list[int]) -> Any:
    message = getattr(generation, "message", None)
    info = walked(generation.generation_info, [_FIELD_CHARS])
    if isinstance(message, BaseMessage):
        return _chat_generation(_cut_message(message, budget), info)
    return Generation(text=walked(generation.text, budget), generation_info=info)


def _pickled(value: Any) -> Any:
    try:
        return dumps(value)
    except Exception:  # what pickle refuses (a generator, a lock) is kept as its JSON form
        logger.debug("payload of type %s kept as its JSON form", type(value).__name__, exc_info=True)
        try:
            return dumps(jsonable(value))
        except Exception:  # noqa: BLE001
            return repr(value)


def _freeze(value: Any, fields: Callable[[Any], Any] | None = None) -> Any:
    """``value`` frozen as plain data (``fields(value)`` when given) if it is that, else pickled."""
    try:
        frozen = marshal.dumps(value if fields is None else fields(value))
    except (ValueError, TypeError, AttributeError):  # not plain data, or not of the shape ``fields`` takes
        frozen = _pickled(value)
    return _bounded(value, frozen)


#: A payload rows only preview is kept whole when frozen it takes at most this many bytes.
PREVIEW_FROZEN_BYTES = 4 * CAPTURE_CHARS
_PROBE_CHARS = 16_384  # a longer text in a payload's top two levels: cut at capture
_PROBE_ITEMS = 256  # a container with more items in a payload's top two levels: likewise


def _looks_small(value: Any) -> bool:
    """No long text or long container in the payload's top two levels (a cheap look: the
    payload is then frozen whole, and its frozen size checked)."""
    t = type(value)
    if t is dict:
        items: Any = value.values()
    elif t is list or t is tuple:
        items = value
    else:
        return True
    if len(items) > _PROBE_ITEMS:
        return False
    for item in items:
        t = type(item)
        if t is str:
            if len(item) > _PROBE_CHARS:
                return False
        elif t is dict or t is list or t is tuple:
            if len(item) > _PROBE_ITEMS:
                return False
            for inner in (item.values() if t is dict else item):
                if type(inner) is str and len(inner) > _PROBE_CHARS:
                    return False
    return True


def freeze_preview(value: Any) -> Any:
    """A payload that rows and spans only preview (a node's or the graph's input and output),
    frozen as far as the preview needs: whole when small, else its beginning as a
    :class:`~.encode.Truncated` (:func:`~.encode.jsonable_prefix`), so that capturing a large
    graph state costs what is kept, not the state's size."""
    if value is None:
        return None
    if type(value) is str:
        return value if len(value) <= CAPTURE_CHARS else Truncated(value[:CAPTURE_CHARS], len(value))
    if _looks_small(value):
        frozen = _freeze(value)
        if type(frozen) is bytes and len(frozen) <= PREVIEW_FROZEN_BYTES:
            return frozen
    kept = jsonable_prefix(value)
    return kept if type(kept) is Truncated else _freeze(kept)


def freeze_whole(value: Any) -> Any:
    """The graph's own input or output (the run's ``runs.inputs`` / ``runs.outputs``), frozen
    whole when that takes at most :data:`MAX_FROZEN_BYTES`, else as the first
    :data:`~.encode.PAYLOAD_CAPTURE_CHARS` characters of its JSON (see :func:`kept_of`): never
    a live reference, whose size a record sent to the writer would not say."""
    if value is None:
        return None
    if type(value) is str:
        return value if len(value) <= PAYLOAD_CAPTURE_CHARS else kept_of(value)
    if _looks_small(value):
        frozen = _freeze(value)
        if type(frozen) is bytes or type(frozen) is Truncated:
            return frozen
    # (what is kept is copied, not the whole payload first: a large state costs what is kept,
    # with the margin beyond the cut that redaction reads)
    return kept_of(value)


def held_bytes(frozen: Any) -> int:
    """About how much memory a frozen payload holds, to bound what a host keeps for runs not
    yet written (a payload cut at capture counts what it kept)."""
    t = type(frozen)
    if t is bytes or t is str:
        return len(frozen)
    if frozen is None:
        return 0
    return frozen.size if t is Truncated else MAX_FROZEN_BYTES


def _thaw(value: Any, rebuild: Callable[[Any], Any] | None = None) -> Any:
    """What :func:`_freeze` kept; plain data frozen from ``fields`` is given to ``rebuild``."""
    if type(value) is not bytes:
        return value
    if value[0] == _PICKLE_START:
        return pickle.loads(value)
    plain = marshal.loads(value)
    return plain if rebuild is None else rebuild(plain)


def freeze(value: Any) -> Any:
    """``value`` as it is now, apart from the live object (its beginning, when it is larger
    than a cell keeps: see :func:`kept_of`)."""
    if value is None:
        return None
    if type(value) is str:
        return value if len(value) <= PAYLOAD_CAPTURE_CHARS else kept_of(value)
    return kept_of(value) if _large(value) else _freeze(value)


def thaw(value: Any) -> Any:
    """What :func:`freeze` kept."""
    return _thaw(value)


_MESSAGE_CLASSES: dict[str, type[BaseMessage]] = {
    name: cls for name in dir(messages_module)
    if isinstance(cls := getattr(messages_module, name), type) and issubclass(cls, BaseMessage)
}
_langchain_classes: dict[type, type[BaseMessage]] = {}


def _langchain_class(cls: type[BaseMessage]) -> type[BaseMessage]:
    """A LangChain message class itself; for an application's own subclass, the LangChain
    class it extends (rebuilt as that, its own fields kept as extra fields), so any process
    can rebuild it and the rows still read its role and text."""
    try:
        return _langchain_classes[cls]
    except KeyError:
        found = next(base for base in cls.__mro__ if _MESSAGE_CLASSES.get(base.__name__) is base)
        _langchain_classes[cls] = found
        return found


def _message_fields(message: BaseMessage) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    return _langchain_class(type(message)).__name__, message.__dict__, message.__pydantic_extra__


def _message_from(fields: tuple[str, dict[str, Any], dict[str, Any] | None]) -> BaseMessage:
    name, values, extra = fields
    return _message(_MESSAGE_CLASSES[name], values, extra)


def _messages_fields(batches: Any) -> list[list[tuple[str, dict[str, Any], dict[str, Any] | None]]]:
    return [[_message_fields(m) for m in batch] for batch in batches]


def _messages_from(batches: Any) -> list[list[BaseMessage]]:
    return [[_message_from(m) for m in batch] for batch in batches]


def freeze_messages(batches: Any) -> Any:
    """A chat model's input (lists of messages), frozen as the messages' fields."""
    return kept_of(batches) if _large_messages(batches) else _freeze(batches, _messages_fields)


def _large_messages(batches: Any) -> bool:
    """:func:`_large` for a chat model's input, the messages' texts added up directly."""
    total = 0
    try:
        for batch in batches:
            for message in batch:
                content = message.content
                total += len(content) if type(content) is str else _text_size(content, [_LOOK_VISITS], 1)
    except (AttributeError, TypeError):  # not lists of messages: looked at as any payload
        return _large(batches)
    return total > PAYLOAD_CAPTURE_CHARS


def thaw_messages(value: Any) -> Any:
    return _thaw(value, _messages_from)


def _generation_fields(generation: Any) -> tuple[Any, Any]:
    cls = type(generation)
    if cls is ChatGeneration or cls is ChatGenerationChunk:
        return _message_fields(generation.message), generation.generation_info
    if cls is Generation or cls is GenerationChunk:
        return generation.text, generation.generation_info
    raise TypeError(cls)


def _generation_from(fields: tuple[Any, Any]) -> Generation:
    content, info = fields
    if type(content) is str:
        return Generation(text=content, generation_info=info)
    return _chat_generation(_message_from(content), info)


def _result_fields(response: Any) -> tuple[list[list[tuple[Any, Any]]], Any]:
    if type(response) is not LLMResult:
        raise TypeError(type(response))
    return [[_generation_fields(g) for g in batch] for batch in response.generations], response.llm_output


def _result_from(fields: tuple[Any, Any]) -> LLMResult:
    generations, llm_output = fields
    return _llm_result([[_generation_from(g) for g in batch] for batch in generations], llm_output)


def freeze_result(response: Any) -> Any:
    """A model's result (an ``LLMResult``), frozen as its generations' fields."""
    return kept_of(response) if _large_result(response) else _freeze(response, _result_fields)


def _large_result(response: Any) -> bool:
    """:func:`_large` for a model's result, its generations' texts added up directly."""
    if type(response) is not LLMResult:
        return _large(response)
    total = 0
    for batch in response.generations:
        for generation in batch:
            message = getattr(generation, "message", None)
            content = message.content if message is not None else generation.text
            total += len(content) if type(content) is str else _text_size(content, [_LOOK_VISITS], 1)
    return total > PAYLOAD_CAPTURE_CHARS


def thaw_result(value: Any) -> Any:
    return _thaw(value, _result_from)
