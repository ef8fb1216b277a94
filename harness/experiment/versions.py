"""A scorer's version: what, with the run and the score's name, keys a score in online scoring.

A worker scores a run once per scorer version: when the scorer changes, its version changes
and the runs are scored again (the new score replaces the old one of the same name); while it
does not, a run scored once is never scored again, by any worker, after any restart.

The version is the function's ``version`` attribute when it has one (a text or a number:
``my_scorer.version = "2"``; the way to say "this is the same scorer" across edits of its
formatting, or "this changed" when what changed is outside its source, like a prompt file).
Otherwise it is ``src-`` and 12 hex digits of a SHA-256 over what decides the scorer's
behaviour that can be read without running it: the source code of the function (of a
``functools.partial``'s function, of a callable object's class), and the plain values it is
given or closes over (texts, numbers, booleans, None, and lists, tuples, sets and dicts of
them; a function among them by its own version; any other object by its type and its
``model``, ``model_name`` and ``temperature`` when it has them: a chat model's settings that
matter), as they are when the scorer is loaded. So ``contains("Paris")`` and
``contains("Rome")`` have different versions, and a judge on another model has another
version. A scorer that keeps state it changes (a cache in a list or dict it closes over)
should carry a ``version``: its state is not what it is. A function without readable source (built in C,
typed at a prompt) is versioned by its compiled code.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import marshal
from collections.abc import Mapping
from typing import Any

#: Characters of an explicit ``version`` kept (a longer one is refused).
MAX_VERSION_CHARS = 100
#: How deep functions inside functions are followed.
_DEPTH = 3
#: Items of a list, set or dict read (the rest counted): a version is made in microseconds.
_ITEMS = 1_000
#: Attributes of an object that say which model it calls and how.
_MODEL_ATTRIBUTES = ("model", "model_name", "temperature")


def scorer_version(fn: Any) -> str:
    """The version of the scorer ``fn`` (see the module doc); ValueError for an explicit
    ``version`` that is not a short one-line text or a number."""
    explicit = getattr(fn, "version", None)
    if explicit is not None and not callable(explicit):
        if isinstance(explicit, bool) or not isinstance(explicit, (str, int, float)):
            raise ValueError(f"a scorer's version is a text or a number, not {type(explicit).__name__}")
        text = str(explicit).strip()
        if not text or len(text) > MAX_VERSION_CHARS or any(ch < " " for ch in text):
            raise ValueError(f"a scorer's version is one line of 1 to {MAX_VERSION_CHARS} characters, not {text!r}")
        return text
    digest = hashlib.sha256()
    _feed(digest, fn, _DEPTH)
    return "src-" + digest.hexdigest()[:12]


def _feed(digest: Any, value: Any, depth: int) -> None:
    digest.update(_describe(value, depth).encode("utf-8", "surrogatepass"))


def _describe(value: Any, depth: int) -> str:
    """What of ``value`` the version is made of, as text."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}[" + ",".join(_describe(v, depth) for v in value[:_ITEMS]) + f"]{len(value)}"
    if isinstance(value, (set, frozenset)):
        return "set[" + ",".join(sorted(_describe(v, depth) for v in list(value)[:_ITEMS])) + f"]{len(value)}"
    if isinstance(value, Mapping):
        items = list(value.items())[:_ITEMS]
        return "map{" + ",".join(sorted(f"{_describe(k, depth)}:{_describe(v, depth)}" for k, v in items)) + \
            f"}}{len(value)}"
    if depth <= 0:
        return _settings(value)
    if isinstance(value, functools.partial):
        return (f"partial({_describe(value.func, depth - 1)},{_describe(value.args, depth - 1)},"
                f"{_describe(value.keywords, depth - 1)})")
    if inspect.isfunction(value) or inspect.ismethod(value):
        return _function(inspect.unwrap(value) if inspect.isfunction(value) else value, depth)
    if not isinstance(value, type) and inspect.isfunction(getattr(type(value), "__call__", None)):
        return f"object({_source(type(value))},{_settings(value)})"  # a callable object: its class's code
    return _settings(value)


def _function(fn: Any, depth: int) -> str:
    target = fn.__func__ if inspect.ismethod(fn) else fn
    parts = [_source(target)]
    for default in (target.__defaults__ or ()):
        parts.append(_describe(default, depth - 1))
    for name, default in sorted((target.__kwdefaults__ or {}).items()):
        parts.append(f"{name}={_describe(default, depth - 1)}")
    for cell in target.__closure__ or ():
        try:
            content = cell.cell_contents
        except ValueError:  # an empty cell (a name bound later)
            continue
        parts.append(_describe(content, depth - 1))
    if inspect.ismethod(fn):
        parts.append(_settings(fn.__self__))
    return "fn(" + ",".join(parts) + ")"


def _source(obj: Any) -> str:
    """The source text of a function or class, else its compiled code, else its name."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        pass
    code = getattr(obj, "__code__", None)
    if code is not None:
        try:
            return marshal.dumps(code).hex()
        except ValueError:
            pass
    return _settings(obj)


def _settings(obj: Any) -> str:
    """An object by its type (a function or class by its name) and the settings that say
    which model it calls."""
    if isinstance(obj, type) or inspect.isroutine(obj):
        return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"
    kind = type(obj)
    found = []
    for name in _MODEL_ATTRIBUTES:
        try:
            value = getattr(obj, name, None)
        except Exception:  # noqa: BLE001 - a property that fails says nothing
            value = None
        if isinstance(value, (str, int, float, bool)):
            found.append(f"{name}={value!r}")
    return f"{kind.__module__}.{kind.__qualname__}({','.join(found)})"
