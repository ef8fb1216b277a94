"""What a scorer reads is read-only: JSON data as dicts and lists that refuse to change.

A run's snapshot is built once and handed to every scorer of the run (and the case to every
scorer of every repeat), so one scorer that wrote into ``run.outputs`` would change what the
next one reads. These types are still ``dict`` and ``list`` (``json.dumps``, ``==``,
``isinstance`` work as before); a scorer that wants to change one copies it first
(``dict(run.outputs)``, ``copy.deepcopy(run.outputs)``, which gives a changeable copy).
"""

from __future__ import annotations

import json
from typing import Any, NoReturn


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"what a scorer reads is read-only: copy it to change it (e.g. {type(self).__mro__[1].__name__}(...)"
                    " or copy.deepcopy)")


class ReadOnlyDict(dict):
    """A dict that refuses to change (JSON objects a scorer reads)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (a worker process) as itself, built whole
        return (ReadOnlyDict, (dict(self),))

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        import copy

        return {copy.deepcopy(k, memo): copy.deepcopy(v, memo) for k, v in self.items()}


class ReadOnlyList(list):
    """A list that refuses to change (JSON arrays a scorer reads)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReadOnlyList, (list(self),))

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        import copy

        return [copy.deepcopy(v, memo) for v in self]


def read_only(value: Any) -> Any:
    """``value`` (JSON data) with every dict and list in it read-only; anything else as it is."""
    if isinstance(value, dict):
        if type(value) is ReadOnlyDict:
            return value
        return ReadOnlyDict((k, read_only(v)) for k, v in value.items())
    if isinstance(value, list):
        if type(value) is ReadOnlyList:
            return value
        return ReadOnlyList(read_only(v) for v in value)
    if isinstance(value, tuple):
        return tuple(read_only(v) for v in value)
    return value


_read_only_decoder = json.JSONDecoder(object_pairs_hook=ReadOnlyDict)


def read_only_json(text: Any) -> Any:
    """A stored JSON cell as :func:`read_only` data, its objects decoded straight into
    read-only dicts (no copy of what was just decoded); a text that is not JSON (a cell that
    was cut) as it is, and a value that is not text as :func:`read_only` makes it."""
    if not isinstance(text, str):
        return read_only(text)
    try:
        value = _read_only_decoder.decode(text)
    except ValueError:
        return text
    return _lists_read_only(value)


def _lists_read_only(value: Any) -> Any:
    """``value`` (decoded with read-only dicts) with its lists read-only too."""
    t = type(value)
    if t is ReadOnlyDict:
        for key, item in value.items():
            u = type(item)
            if u is list:
                dict.__setitem__(value, key, _lists_read_only(item))
            elif u is ReadOnlyDict:
                _lists_read_only(item)
        return value
    if t is list:
        return ReadOnlyList([_lists_read_only(item) if type(item) in (list, ReadOnlyDict) else item for item in value])
    return value
