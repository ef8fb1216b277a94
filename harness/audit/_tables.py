"""Sheets as tables: what a source of tabs provides, and how its tabs become one
:class:`Table` per sheet.

A sheet longer than the target's row limit continues in ``NAME_2``, ``NAME_3`` ...; the
parts are merged into one table that still knows, for every row, its tab and the row
number Excel shows (header = row 1). Rows with no value at all are skipped.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..schema import SHEETS, Sheet
from ._model import AuditInputError

#: A cell value: str, int, float, bool, datetime / date / time / timedelta, "" when empty.
#: Sources keep to these (JSON as text) so that cells can be hashed and compared.
Cell = Any
Formula = tuple[int, int, str]  # 0-based row and column in the tab, formula text


class Source(Protocol):
    label: str

    def tabs(self) -> list[str]: ...

    def prefetch(self, tabs: Sequence[str]) -> None:
        """The tabs that will be read, in this order (a source may start reading them)."""

    def read(self, tab: str) -> Iterable[list[Cell]]:
        """The rows of a tab in order, header first, each padded to the tab's width (a
        source may stream them: each row is used once, as it comes)."""

    def formulas(self, tab: str) -> list[Formula]:
        """Cells of the tab that hold a formula rather than a value."""


@dataclass(frozen=True, slots=True)
class Part:
    tab: str
    start: int  # index in Table.rows of the part's first row
    first_row: int  # the Excel row number of that row


@dataclass(slots=True, eq=False)
class Table:
    """One logical sheet: the header of its first tab and the rows of all its tabs."""

    sheet: Sheet
    header: tuple[str, ...]
    rows: list[list[Cell]]
    parts: list[Part]
    formulas: list[tuple[str, int, int, str]] = field(default_factory=list)  # tab, Excel row, col, text
    _index: dict[str, int] = field(default_factory=dict)
    _columns: dict[str, list[Cell]] = field(default_factory=dict)
    _starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        for i, name in enumerate(self.header):
            self._index.setdefault(name, i)
        self._starts = [p.start for p in self.parts]

    @property
    def name(self) -> str:
        return self.sheet.name

    def has(self, column: str) -> bool:
        return column in self._index

    def position(self, column: str) -> int:
        return self._index[column]

    def column(self, name: str) -> list[Cell]:
        """The cells of one column, top to bottom (cached)."""
        cells = self._columns.get(name)
        if cells is None:
            i = self._index[name]
            cells = self._columns[name] = [row[i] for row in self.rows]
        return cells

    def locate(self, index: int) -> tuple[str, int]:
        """(tab, Excel row number) of the row at ``index``."""
        part = self.parts[bisect.bisect_right(self._starts, index) - 1]
        return part.tab, part.first_row + index - part.start

    def records(self) -> Iterator[tuple[int, dict[str, Cell]]]:
        """(index, {column: cell}) per row; for the small sheets."""
        names = self.header
        for i, row in enumerate(self.rows):
            yield i, dict(zip(names, row))


# --- merging tabs into tables ---------------------------------------------------------------

def continuation_tabs(name: str, tabs: Sequence[str]) -> list[str]:
    """``name`` then ``name_2``, ``name_3`` ... present in ``tabs``, by number."""
    pattern = re.compile(rf"{re.escape(name)}_([2-9]|[1-9]\d+)")
    numbered = sorted((int(m.group(1)), t) for t in tabs if (m := pattern.fullmatch(t)))
    return [name] + [t for _, t in numbered]


def _header(cells: Sequence[Cell]) -> tuple[str, ...]:
    names = [c.strip() if isinstance(c, str) else ("" if c is None else str(c)) for c in cells]
    while names and not names[-1]:
        names.pop()
    return tuple(names)


def header_problem(sheet: Sheet, header: tuple[str, ...], tab: str) -> str | None:
    """Why ``header`` is unusable: spec columns missing or out of spec order (trailing extra
    columns are allowed)."""
    expected = sheet.column_names
    missing = [c for c in expected if c not in header]
    if missing:
        return f"sheet {tab!r} is missing column(s) {', '.join(missing)}"
    got = header[: len(expected)]
    if got != expected:
        at = next(i for i, (a, b) in enumerate(zip(got, expected)) if a != b)
        return (f"sheet {tab!r}: column {at + 1} is {got[at]!r} where the spec has {expected[at]!r} "
                f"(spec columns must come first, in spec order)")
    return None


def _is_blank(row: Sequence[Cell]) -> bool:
    return not any(row) and all(c is None or c == "" for c in row)


def load_chunks(source: Source, sheet: Sheet, tabs: Sequence[str], chunk_rows: int | None = None) -> Iterator[Table]:
    """The rows of one sheet's tabs, merged, as tables of at most ``chunk_rows`` rows (all in
    one table when None), in order: a long sheet is checked chunk by chunk, so memory holds
    one chunk, not the sheet. Each table knows its rows' tabs and Excel row numbers; the
    last one holds the sheet's formula cells. AuditInputError on an unusable header."""
    names = continuation_tabs(sheet.name, tabs)
    header: tuple[str, ...] = ()
    rows: list[list[Cell]] = []
    parts: list[Part] = []
    formulas: list[tuple[str, int, int, str]] = []
    for n, tab in enumerate(names):
        first_data = 0
        open_part = False
        width = len(header)
        for r, row in enumerate(source.read(tab)):
            if r == 0:
                if n == 0:
                    header = _header(row)
                    if not header:
                        raise AuditInputError(f"sheet {tab!r} has no header row")
                    problem = header_problem(sheet, header, tab)
                    if problem:
                        raise AuditInputError(problem)
                    first_data, width = 1, len(header)
                    continue
                if _header(row)[:1] == header[:1]:
                    if _header(row) != header:
                        raise AuditInputError(f"sheet {tab!r}: its header differs from the header of {sheet.name!r}")
                    first_data = 1
                    continue
            if (not row or not row[0]) and _is_blank(row):  # a blank row has, first of all, no run_id
                open_part = False
                continue
            if not open_part:
                parts.append(Part(tab, len(rows), r + 1))
                open_part = True
            if len(row) != width:
                row = list(row[:width]) + [""] * (width - len(row))
            rows.append(row)
            if chunk_rows is not None and len(rows) >= chunk_rows:
                yield Table(sheet, header, rows, parts)
                rows, parts, open_part = [], [], False
        if n == 0 and not header:
            raise AuditInputError(f"sheet {tab!r} has no header row")
        formulas.extend((tab, r + 1, c, text) for r, c, text in source.formulas(tab) if r >= first_data)
    if not parts:
        parts.append(Part(names[0], len(rows), 2))
    yield Table(sheet, header, rows, parts, formulas)


def check_sheets_present(source: Source) -> list[str]:
    """The tabs of the source; AuditInputError naming every spec sheet that is absent."""
    tabs = source.tabs()
    missing = [s.name for s in SHEETS if s.name not in tabs]
    if missing:
        raise AuditInputError(f"{source.label}: missing sheet(s) {', '.join(missing)}")
    return tabs
