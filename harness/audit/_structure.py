"""Cell-level checks of one sheet: types parse, values in range, run ids known, no duplicate
rows, no formulas.

The checks work column by column on the *distinct* values of a column (a sheet of a
million rows holds far fewer distinct run ids, nodes, steps or statuses), and go back to
the rows only for the values that failed, so a clean sheet costs a few passes in C.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..schema import Column, Sheet
from ._model import Finding, FindingKind
from ._tables import Table
from ._values import (
    as_int,
    as_number,
    is_empty,
    is_timestamp,
    is_truncated,
    is_uuid,
    parse_list,
)

#: Sheets whose run_id is not a run of the ``runs`` sheet (spec: an evaluation id).
RUN_ID_EXEMPT = frozenset({"runs", "cross_model_eval"})


@dataclass(frozen=True, slots=True)
class Rule:
    """A test of one distinct cell value, and how the finding describes what was expected."""

    ok: Callable[[Any], bool]
    expected: str


def _number_ok(lo: float, hi: float, whole: bool) -> Callable[[Any], bool]:
    def ok(value: Any) -> bool:
        try:
            number = as_int(value) if whole else as_number(value)
        except ValueError:
            return False
        return number is None or lo <= number <= hi

    return ok


def _json_ok(value: Any) -> bool:
    if is_empty(value) or is_truncated(value):
        return True
    if type(value) is not str:
        return False
    try:
        json.loads(value)
    except ValueError:
        return False
    return True


def _list_ok(value: Any) -> bool:
    if is_truncated(value):
        return True
    try:
        parse_list(value)
    except ValueError:
        return False
    return True


def rule_for(column: Column) -> Rule | None:
    """The type/range rule of a column, from what the schema declares of it (kind, spec type,
    labels, value range)."""
    kind = column.kind
    if column.spec_type == "UUID":
        return Rule(is_uuid, "a UUID")
    if column.labels is not None:
        allowed = column.labels
        return Rule(lambda v: is_empty(v) or v in allowed, "one of " + ", ".join(allowed))
    if column.value_range is not None:
        lo, hi = column.value_range
        whole = kind == "int"
        what = "a whole number" if whole else "a number"
        bounds = f" >= {lo:g}" if hi == float("inf") else f" in [{lo:g}, {hi:g}]"
        return Rule(_number_ok(lo, hi, whole), what + bounds)
    if kind == "datetime":
        return Rule(lambda v: is_empty(v) or is_timestamp(v), "an ISO 8601 timestamp or an Excel date")
    if kind == "json":
        if column.spec_type == "List":
            return Rule(_list_ok, "a JSON list or comma-separated names")
        return Rule(_json_ok, "JSON")
    return None


def _fast_ok(column: Column, rule: Rule, values: set[Any]) -> bool:
    """True when a column's distinct values pass as a whole: Excel date cells, or numbers of
    the right sort whose minimum and maximum are in range. Anything else is tested value by
    value."""
    filled = values - {""}
    types = set(map(type, filled))
    if column.kind == "datetime":
        return types <= {datetime}
    if column.kind not in ("int", "float") or column.labels is not None or not types <= {float, int}:
        return False
    if not filled:
        return True
    if any(map(math.isnan, filled)):
        return False
    whole = column.kind == "float" or all(map(float.is_integer, map(float, filled)))
    return whole and rule.ok(min(filled)) and rule.ok(max(filled))


#: The most characters an Excel cell holds; a longer one was not written by Excel or an exporter.
EXCEL_CELL_CHARS = 32_767


def check_cells(table: Table, run_ids: set[str] | None) -> Iterator[Finding]:
    """Types and ranges of every schema column present, then run ids known to ``runs``."""
    sheet: Sheet = table.sheet
    for column in sheet.all_columns:
        if not table.has(column.name):
            continue
        cells = table.column(column.name)
        distinct = set(cells)
        oversized = {v for v in distinct if type(v) is str and len(v) > EXCEL_CELL_CHARS}
        if oversized:
            yield from _findings(table, column.name, cells, oversized,
                                 f"at most {EXCEL_CELL_CHARS:,} characters (Excel's cell limit)", "range")
        rule = rule_for(column)
        if rule is None:
            continue
        if _fast_ok(column, rule, distinct):
            continue
        bad = {v for v in distinct if not rule.ok(v)}
        if bad:
            yield from _findings(table, column.name, cells, bad, rule.expected, "type")
    if run_ids is not None and sheet.name not in RUN_ID_EXEMPT:
        cells = table.column("run_id")
        unknown = {v for v in set(cells) if is_uuid(v)} - run_ids
        if unknown:
            yield from _findings(table, "run_id", cells, unknown, "a run_id of the runs sheet", "reference")


def _findings(table: Table, column: str, cells: list[Any], bad: set[Any], expected: str,
              kind: FindingKind) -> Iterator[Finding]:
    for i, value in enumerate(cells):
        if value in bad:
            tab, row = table.locate(i)
            yield Finding(tab, row, column, value, expected, f"{column}: {expected}", kind)


class DuplicateRows:
    """Rows identical in every column to an earlier row of the same sheet, found chunk by
    chunk (:func:`~._tables.load_chunks`). Only each row's hash and place are kept, not the
    row: two rows are taken for identical when their 64-bit hashes are (among
    a million rows, the chance of any false match is about 3 in 100 million)."""

    def __init__(self) -> None:
        self._first: dict[int, tuple[str, int]] = {}  # hash of the whole row -> (tab, Excel row)

    def check(self, table: Table) -> Iterator[Finding]:
        first = self._first
        for i, row in enumerate(table.rows):
            key = hash(tuple(row))
            here = table.locate(i)
            place = first.setdefault(key, here)
            if place is not here:
                yield Finding(here[0], here[1], None, f"duplicate of row {place[1]}", "a unique row",
                              "no duplicate rows", "duplicate")


def check_formulas(table: Table) -> Iterator[Finding]:
    for tab, row, col, text in table.formulas:
        name = table.header[col] if col < len(table.header) else None
        yield Finding(tab, row, name, text, "a value, not a formula", "cells hold values, never formulas", "formula")
