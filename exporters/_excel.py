"""The xlsx workbook: all fifteen sheets and then scores, streamed from the store with xlsxwriter.

xlsxwriter in ``constant_memory`` mode writes each row to disk as soon as the next one
starts, so memory stays flat in the number of rows (measured against openpyxl
``write_only`` in ``benchmarks/export_excel.py``: xlsxwriter is the faster of the two).
The workbook is written to a temporary file beside the target and renamed over it
(:mod:`harness.outputs`), so a crash never leaves a half workbook under the final name; the
temporary file and scratch directory of an export that was killed are removed by the next
export to that target.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain, islice
from pathlib import Path
from typing import Any

import xlsxwriter
from xlsxwriter.format import Format
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from harness.outputs import replacing
from harness.schema import ALL_SHEETS, EVAL_STATUSES, VERIFICATION_STATUSES, Column, Sheet
from harness.store import Store

from ._cells import EXCEL_CONVERTERS, number_format

EXCEL_MAX_ROWS = 1_048_576  # rows per worksheet, header included

#: Status columns and their values from best to worst, coloured green, amber, red.
_STATUS_COLUMNS: dict[str, tuple[str, ...]] = {
    "eval_status": EVAL_STATUSES,
    "verification_status": VERIFICATION_STATUSES,
}
_LEVEL_COLOURS = (("#C6EFCE", "#006100"), ("#FFEB9C", "#9C5700"), ("#FFC7CE", "#9C0006"))  # (fill, font)
_DATE_FORMAT = "yyyy-mm-dd hh:mm:ss.000"
_DATE_WIDTH = 23
_WIDTH_SAMPLE = 200  # rows looked at to size the columns
_MIN_WIDTH, _MAX_WIDTH = 8, 60

ProgressCallback = Callable[[str, int], None]


@dataclass(frozen=True, slots=True)
class ExcelExportResult:
    """What :func:`write_excel` wrote."""

    path: Path
    rows: Mapping[str, int]  # sheet name -> data rows, in spec order (all parts together)
    worksheets: tuple[str, ...]  # worksheet names in workbook order (NAME, NAME_2, ...)
    seconds: float

    @property
    def total_rows(self) -> int:
        return sum(self.rows.values())


class _Styles:
    def __init__(self, workbook: Workbook) -> None:
        self.header = workbook.add_format({"bold": True, "bg_color": "#D9E1F2", "bottom": 1})
        self.date = workbook.add_format({"num_format": _DATE_FORMAT})
        self.levels = [workbook.add_format({"bg_color": bg, "font_color": font}) for bg, font in _LEVEL_COLOURS]
        self._workbook = workbook
        self._numbers: dict[str, Format] = {}

    def column(self, column: Column) -> Format | None:
        """The column's format: dates, or the number format of a float column."""
        if column.kind == "datetime":
            return self.date
        pattern = number_format(column)
        if pattern is None:
            return None
        if pattern not in self._numbers:
            self._numbers[pattern] = self._workbook.add_format({"num_format": pattern})
        return self._numbers[pattern]


def write_excel(
    store: Store,
    path: str | os.PathLike[str],
    run_ids: Sequence[str] | None = None,
    *,
    max_rows_per_sheet: int = EXCEL_MAX_ROWS,
    progress: ProgressCallback | None = None,
) -> ExcelExportResult:
    """Write the fifteen sheets and the scores of ``run_ids`` (all runs when None) to an ``.xlsx`` file.

    Sheets come in spec order, each present even when empty; spec columns first, then the
    schema's extra columns. A sheet that would pass ``max_rows_per_sheet`` rows (header
    included) continues in ``NAME_2``, ``NAME_3``... with the same header. ``progress`` is
    called with (sheet name, rows) after each sheet. Raises ValueError for a path that is
    not ``.xlsx``, whose directory does not exist or that is no file (a directory, a pipe, a
    device: :class:`harness.outputs.NotAFile`), or a row limit outside 2..1,048,576.
    """
    target = Path(path)
    if target.suffix.lower() != ".xlsx":
        raise ValueError(f"Excel output must end in .xlsx, got {str(target)!r}")
    directory = target.parent.resolve()
    if not directory.is_dir():
        raise ValueError(f"directory {str(directory)!r} does not exist")
    if not 2 <= max_rows_per_sheet <= EXCEL_MAX_ROWS:
        raise ValueError(f"max_rows_per_sheet must be between 2 and {EXCEL_MAX_ROWS}, got {max_rows_per_sheet}")

    started = time.perf_counter()
    # Written beside the target, synced and renamed over it (harness.outputs): a full disk or a
    # kill leaves the old workbook, a link at the target is replaced, its permissions are kept.
    with replacing(target) as written:
        # xlsxwriter streams each worksheet through scratch files until close(); keep them
        # beside the target (not on a RAM-backed /tmp) and gone whatever happens.
        with tempfile.TemporaryDirectory(prefix=f".{target.name}.{os.getpid()}.", dir=directory) as scratch:
            workbook = xlsxwriter.Workbook(str(written), {
                "constant_memory": True,
                "strings_to_formulas": False,
                "strings_to_urls": False,
                "strings_to_numbers": False,
                "tmpdir": scratch,
            })
            styles = _Styles(workbook)
            rows: dict[str, int] = {}
            worksheets: list[str] = []
            for sheet in ALL_SHEETS:
                source = store.rows(sheet, run_ids, decode_json=False)
                rows[sheet.name] = _write_sheet(workbook, styles, sheet, source, max_rows_per_sheet, worksheets)
                if progress is not None:
                    progress(sheet.name, rows[sheet.name])
            workbook.close()
    return ExcelExportResult(target, rows, tuple(worksheets), time.perf_counter() - started)


def _part_name(sheet: Sheet, part: int) -> str:
    return sheet.name if part == 1 else f"{sheet.name}_{part}"


def _write_sheet(
    workbook: Workbook,
    styles: _Styles,
    sheet: Sheet,
    source: Iterator[dict[str, Any]],
    max_rows: int,
    worksheets: list[str],
) -> int:
    """Stream one sheet into as many worksheets as the row limit needs; returns data rows."""
    columns = [(i, c.name, EXCEL_CONVERTERS[c.kind]) for i, c in enumerate(sheet.all_columns)]
    sample = list(islice(source, _WIDTH_SAMPLE))
    widths = _widths(sheet, sample, columns)
    date_format = styles.date
    per_part = max_rows - 1
    part, written, r = 1, 0, 0
    ws = _start_part(workbook, styles, sheet, _part_name(sheet, part), widths)
    worksheets.append(ws.name)
    write_string, write_number, write_datetime = ws.write_string, ws.write_number, ws.write_datetime
    for row in chain(sample, source):
        if r == per_part:
            _finish_part(ws, styles, sheet, r)
            part += 1
            ws = _start_part(workbook, styles, sheet, _part_name(sheet, part), widths)
            worksheets.append(ws.name)
            write_string, write_number, write_datetime = ws.write_string, ws.write_number, ws.write_datetime
            r = 0
        r += 1
        for c, name, convert in columns:
            value = row[name]
            if value is None:
                continue
            value = convert(value)
            kind = type(value)
            if kind is str:
                write_string(r, c, value)
            elif kind is datetime:
                write_datetime(r, c, value, date_format)
            else:
                write_number(r, c, value)
        written += 1
    _finish_part(ws, styles, sheet, r)
    return written


def _widths(sheet: Sheet, sample: Iterable[dict[str, Any]], columns: Sequence[tuple[int, str, Any]]) -> list[int]:
    """Column widths from the header and the first rows, clamped to a readable range."""
    widths = [len(name) for name in sheet.all_column_names]
    for row in sample:
        for c, name, convert in columns:
            value = row[name]
            if value is None:
                continue
            value = convert(value)
            shown = _DATE_WIDTH if type(value) is datetime else len(str(value))
            if shown > widths[c]:
                widths[c] = shown
    return [min(max(w + 2, _MIN_WIDTH), _MAX_WIDTH) for w in widths]


def _start_part(workbook: Workbook, styles: _Styles, sheet: Sheet, name: str, widths: list[int]) -> Worksheet:
    ws = workbook.add_worksheet(name)
    for c, (column, width) in enumerate(zip(sheet.all_columns, widths)):
        ws.set_column(c, c, width, styles.column(column))
    ws.freeze_panes(1, 0)
    for c, name_ in enumerate(sheet.all_column_names):
        ws.write_string(0, c, name_, styles.header)
    return ws


def _finish_part(ws: Worksheet, styles: _Styles, sheet: Sheet, last_row: int) -> None:
    """Autofilter over the written rows and status colours (set after the data is known)."""
    last_col = len(sheet.all_columns) - 1
    ws.autofilter(0, 0, last_row, last_col)
    if last_row == 0:
        return
    for c, name in enumerate(sheet.all_column_names):
        for value, fmt in zip(_STATUS_COLUMNS.get(name, ()), styles.levels):
            ws.conditional_format(1, c, last_row, c, {
                "type": "cell", "criteria": "==", "value": f'"{value}"', "format": fmt,
            })
