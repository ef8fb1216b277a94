"""How a sheet's values are stored: row keys, and each value as its schema kind says (JSON
columns as compact JSON text, timestamps as ISO 8601 text, numbers as numbers)."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..schema import Sheet, sheet as sheet_named
from .errors import StoreError

ROW_KEY = "row_key"


def json_text(value: Any) -> str:
    """Compact, stable JSON; anything json cannot encode is written with ``str``."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def content_key(sheet: str, row: Mapping[str, Any]) -> str:
    """A row key from the row's content, for rows without a natural id."""
    return hashlib.sha1(f"{sheet}\x00{json_text(sorted(row.items()))}".encode()).hexdigest()


def _encode_int(value: Any) -> int | None:
    if isinstance(value, float):
        return int(round(value)) if value == value else None
    return int(value)


_ENCODERS = {
    "json": lambda v: v if isinstance(v, str) else json_text(v),
    "int": _encode_int,
    "float": float,
    "datetime": lambda v: v if isinstance(v, str) else v.isoformat(),
    "text": lambda v: v if isinstance(v, str) else str(v),
}

#: The type a value of each kind is stored as: a value already of that type is stored as it is.
_STORED_TYPES = {"json": str, "int": int, "float": float, "datetime": str, "text": str}


@functools.cache
def _plan(name: str) -> tuple[frozenset[str], tuple[str, ...], tuple[frozenset[type], ...],
                              tuple[tuple[type, Any], ...]]:
    """Per sheet, once: the allowed keys, the stored names in order (row key first), the
    types each position stores as they are, and its stored type and encoder."""
    s = sheet_named(name)
    kinds = ("text", *(c.kind for c in s.all_columns))
    return (
        frozenset(s.all_column_names) | {ROW_KEY},
        (ROW_KEY, *s.all_column_names),
        tuple(frozenset({_STORED_TYPES[k], type(None)}) for k in kinds),
        tuple((_STORED_TYPES[k], _ENCODERS[k]) for k in kinds),
    )


def encode_rows(s: Sheet, rows: Iterable[Mapping[str, Any]]) -> list[list[Any]]:
    """Rows as lists of stored values in the table's column order, row key first (made from
    the content when a row has none). Unknown columns are an error, never a silent drop."""
    allowed, names, accepted, encoders = _plan(s.name)
    batch = []
    for row in rows:
        if not allowed.issuperset(row):
            unknown = set(row) - allowed
            raise StoreError(f"sheet {s.name!r} has no column(s) {', '.join(sorted(unknown))}")
        values = list(map(row.get, names))
        if not values[0]:
            values[0] = content_key(s.name, row)
        # Most rows hold only values already of their stored type: checked in one C pass.
        if not all(map(frozenset.__contains__, accepted, map(type, values))):
            for i, (value, (stored, encode)) in enumerate(zip(values, encoders)):
                if value is not None and value.__class__ is not stored:
                    values[i] = encode(value)
        batch.append(values)
    return batch


def encode_value(kind: str, value: Any) -> Any:
    """One value as a column of ``kind`` stores it (None stays None)."""
    if value is None or value.__class__ is _STORED_TYPES[kind]:
        return value
    return _ENCODERS[kind](value)


def decode(kind: str, value: Any) -> Any:
    """A stored value read back: JSON text decoded (kept as text when it is not JSON, e.g. cut)."""
    if value is None or kind != "json":
        return value
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def preview_data(preview: Any) -> Any:
    """A preview cell read as data when it is a whole JSON object or list (else, cut or plain
    text, as it is)."""
    if isinstance(preview, str) and preview[:1] in "{[":
        try:
            return json.loads(preview)
        except ValueError:
            pass
    return preview
