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

from .encode import CAPTURE_CHARS, RUN_PAYLOAD_CHARS, Truncated, jsonable, jsonable_prefix

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
#: A payload whose frozen form is larger than this is kept as a live reference instead: a
#: copy of it per step would hold memory that the rows cannot use (a sheet cell takes at
#: most 32,767 characters).
MAX_FROZEN_BYTES = 1 << 20


def _bounded(value: Any, frozen: Any) -> Any:
    if type(frozen) is bytes and len(frozen) > MAX_FROZEN_BYTES:
        logger.debug("payload of %d bytes frozen is kept as a reference", len(frozen))
        return f"<{len(value)} bytes>" if type(value) is bytes else value  # bytes would read as frozen
    return frozen


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
        # (a live reference, which _freeze keeps of what is too large to copy, is no snapshot)
        if len(frozen) <= PREVIEW_FROZEN_BYTES if type(frozen) is bytes else frozen is not value:
            return frozen
    kept = jsonable_prefix(value)
    return kept if type(kept) is Truncated else _freeze(kept)


def freeze_whole(value: Any) -> Any:
    """The graph's own input or output (the run's ``runs.inputs`` / ``runs.outputs``), frozen
    whole when that takes at most :data:`MAX_FROZEN_BYTES`, else as the first
    :data:`~.encode.RUN_PAYLOAD_CHARS` characters of its JSON (a :class:`~.encode.Truncated`,
    frozen too): never a live reference, whose size a record sent to the writer would not
    say."""
    if value is None:
        return None
    if type(value) is str:
        return value if len(value) <= RUN_PAYLOAD_CHARS else Truncated(value[:RUN_PAYLOAD_CHARS], len(value))
    if _looks_small(value):
        frozen = _freeze(value)
        if frozen is not value:
            return frozen
    # (what is kept is copied, not the whole payload first: a large state costs what is kept)
    return _freeze(jsonable_prefix(value, RUN_PAYLOAD_CHARS))


def held_bytes(frozen: Any) -> int:
    """About how much memory a frozen payload holds, to bound what a host keeps for runs not
    yet written (a payload kept as a reference counts as the largest copy it replaced)."""
    t = type(frozen)
    if t is bytes or t is str:
        return len(frozen)
    if frozen is None:
        return 0
    if t is Truncated:
        return len(frozen.value) if type(frozen.value) is str else CAPTURE_CHARS
    return MAX_FROZEN_BYTES


def _thaw(value: Any, rebuild: Callable[[Any], Any] | None = None) -> Any:
    """What :func:`_freeze` kept; plain data frozen from ``fields`` is given to ``rebuild``."""
    if type(value) is not bytes:
        return value
    if value[0] == _PICKLE_START:
        return pickle.loads(value)
    plain = marshal.loads(value)
    return plain if rebuild is None else rebuild(plain)


def freeze(value: Any) -> Any:
    """``value`` as it is now, apart from the live object."""
    if value is None or type(value) is str:
        return value
    return _freeze(value)


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
    return _freeze(batches, _messages_fields)


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
    return _freeze(response, _result_fields)


def thaw_result(value: Any) -> Any:
    return _thaw(value, _result_from)
