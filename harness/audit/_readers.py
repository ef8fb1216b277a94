"""The readers: an xlsx file (python-calamine), a Google Sheet (gspread), data frames."""

from __future__ import annotations

import math
import re
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Self
from xml.etree import ElementTree

from ..store import json_text
from ._model import AuditInputError
from ._tables import Cell, Formula

# --- xlsx ---------------------------------------------------------------------------------

_REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_CELL_REF = re.compile(rb'<c\b[^>]*?\br="([A-Z]+)(\d+)"')
_FORMULA_END = re.compile(rb"</f>|/>")


def column_index(letters: str) -> int:
    """``A`` -> 0, ``AB`` -> 27."""
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


class WorkbookSource:
    """An .xlsx file read with python-calamine; formula cells found in the sheet XML (calamine
    gives only their cached values).

    After :meth:`prefetch` one worker thread reads the next tab while the caller checks the
    current one, and another scans the tabs for formulas: calamine parses and zlib inflates
    without holding the GIL, so on two cores reading and checking overlap. At most two tabs
    are in memory at a time. Use as a context manager (or call :meth:`close`) to stop the
    workers."""

    def __init__(self, path: str | Path) -> None:
        import python_calamine

        self.path = Path(path)
        self.label = str(path)
        try:
            self._book = python_calamine.CalamineWorkbook.from_path(str(self.path))
        except (OSError, python_calamine.CalamineError) as exc:
            reason = " ".join(str(exc).split())
            raise AuditInputError(f"{self.label}: not a readable workbook ({reason})") from None
        self._xml_paths: dict[str, str] | None = None
        self._order: list[str] = []
        self._grids: dict[str, Future[list[list[Cell]]]] = {}
        self._scans: dict[str, Future[list[Formula]]] = {}
        self._reader: ThreadPoolExecutor | None = None
        self._scanner: ThreadPoolExecutor | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for pool in (self._reader, self._scanner):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self._reader = self._scanner = None

    def tabs(self) -> list[str]:
        return list(self._book.sheet_names)

    def prefetch(self, tabs: Sequence[str]) -> None:
        """The tabs that will be read, in order: start reading the first, scanning them all."""
        self._order = list(tabs)
        self._reader = self._reader or ThreadPoolExecutor(1, thread_name_prefix="audit-read")
        self._scanner = self._scanner or ThreadPoolExecutor(1, thread_name_prefix="audit-scan")
        for tab in self._order:
            self._scans[tab] = self._scanner.submit(self._scan, tab)
        self._schedule(0)

    def _schedule(self, index: int) -> None:
        if self._reader is not None and index < len(self._order) and self._order[index] not in self._grids:
            tab = self._order[index]
            self._grids[tab] = self._reader.submit(self._load, tab)

    def _load(self, tab: str) -> list[list[Cell]]:
        return self._book.get_sheet_by_name(tab).to_python(skip_empty_area=False)

    def read(self, tab: str) -> list[list[Cell]]:
        future = self._grids.pop(tab, None)
        if future is None:
            return self._load(tab)
        if tab in self._order:
            self._schedule(self._order.index(tab) + 1)
        return future.result()

    def formulas(self, tab: str) -> list[Formula]:
        future = self._scans.pop(tab, None)
        return future.result() if future is not None else self._scan(tab)

    def _scan(self, tab: str) -> list[Formula]:
        xml_path = self._sheet_xml().get(tab)
        if xml_path is None:
            return []
        with zipfile.ZipFile(self.path) as archive:
            return list(_scan_formulas(_blocks(archive, xml_path)))

    def _sheet_xml(self) -> dict[str, str]:
        """Tab name -> path of its XML part (from workbook.xml and its relationships)."""
        if self._xml_paths is None:
            self._xml_paths = {}
            try:
                with zipfile.ZipFile(self.path) as archive:
                    book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
                    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
            except (KeyError, zipfile.BadZipFile, ElementTree.ParseError):
                return self._xml_paths  # not an xlsx (xls, ods): formulas cannot be located
            targets = {r.get("Id"): r.get("Target", "") for r in rels}
            for element in book.iter():
                if element.tag.endswith("}sheet") and element.get(_REL_NS) in targets:
                    target = targets[element.get(_REL_NS)]
                    path = target.lstrip("/") if target.startswith("/") else str(PurePosixPath("xl") / target)
                    self._xml_paths[element.get("name", "")] = path
        return self._xml_paths


def _blocks(archive: zipfile.ZipFile, name: str, chunk: int = 1 << 22) -> Iterator[bytes]:
    """The uncompressed bytes of one archive member, block by block, then ``b""``."""
    with archive.open(name) as stream:
        while block := stream.read(chunk):
            yield block
    yield b""


def _scan_formulas(blocks: Iterator[bytes]) -> Iterator[Formula]:
    """Formula cells in a worksheet's XML, without parsing the XML: a formula is an ``<f>``
    element, and ``<f`` cannot occur in text (``<`` is escaped there). Each block is searched
    up to 4 KiB before its end (all of it at the final empty block); that tail and 1 KiB of
    context carry over."""
    data, searched = b"", 0  # data[:searched] has been searched
    for block in blocks:
        data += block
        limit = len(data) if not block else max(searched, len(data) - 4096)
        pos = data.find(b"<f", searched, limit)
        while pos != -1:
            if data[pos + 2: pos + 3] in (b">", b" ", b"/"):
                start = data.rfind(b"<c", 0, pos)
                cell = _CELL_REF.match(data, start) if start != -1 else None
                if cell is not None:
                    end = _FORMULA_END.search(data, pos)
                    text = data[data.find(b">", pos) + 1: end.start()] if end and end.group() == b"</f>" else b""
                    yield (int(cell.group(2)) - 1, column_index(cell.group(1).decode()),
                           "=" + text.decode("utf-8", "replace"))
            pos = data.find(b"<f", pos + 2, limit)
        if not block:
            return
        keep = max(0, limit - 1024)
        data, searched = data[keep:], limit - keep


# --- Google Sheets ------------------------------------------------------------------------

#: HTTP statuses worth another read: timeouts, rate limits and server errors.
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
READ_ATTEMPTS = 5


def _transient(exc: BaseException) -> bool:
    import gspread
    import requests

    if isinstance(exc, (requests.ConnectionError, requests.Timeout)):
        return True
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return isinstance(exc, gspread.exceptions.APIError) and status in RETRY_STATUSES


def _with_retries(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call`` (a read, so safe to repeat), retried on transient failures with exponential
    backoff and jitter, :data:`READ_ATTEMPTS` attempts at most."""
    from tenacity import (
        Retrying,
        retry_if_exception,
        stop_after_attempt,
        wait_random_exponential,
    )

    retrying = Retrying(retry=retry_if_exception(_transient), stop=stop_after_attempt(READ_ATTEMPTS),
                        wait=wait_random_exponential(multiplier=0.5, max=8), reraise=True)
    return retrying(call, *args, **kwargs)


class GoogleSheetSource:
    """A spreadsheet read through gspread: every tab in one ``values:batchGet`` of
    unformatted values, and one more with ``FORMULA`` rendering to find formula cells (a
    cell whose formula rendering starts with ``=`` and differs from its value). Reads are
    retried on 408/429/5xx and connection errors."""

    def __init__(self, spreadsheet_id: str, client: Any) -> None:
        self.label = f"Google Sheet {spreadsheet_id}"
        self._book = _with_retries(client.open_by_key, spreadsheet_id)
        self._titles = [ws.title for ws in _with_retries(self._book.worksheets)]
        self._values: dict[str, list[list[Cell]]] = {}
        self._formulas: dict[str, list[Formula]] = {}

    def tabs(self) -> list[str]:
        return list(self._titles)

    def prefetch(self, tabs: Sequence[str]) -> None:
        """Read the tabs: two ``values:batchGet`` requests for all of them."""
        ranges = [_a1_sheet(t) for t in tabs]
        values = self._batch(ranges, "UNFORMATTED_VALUE")
        shown = self._batch(ranges, "FORMULA")
        for tab, grid, formula_grid in zip(tabs, values, shown):
            width = max((len(r) for r in grid), default=0)
            self._values[tab] = [list(r) + [""] * (width - len(r)) for r in grid]
            self._formulas[tab] = [
                (r, c, text)
                for r, row in enumerate(formula_grid)
                for c, text in enumerate(row)
                if type(text) is str and text.startswith("=")
                and (r >= len(grid) or c >= len(grid[r]) or grid[r][c] != text)
            ]

    def _batch(self, ranges: list[str], render: str) -> list[list[list[Cell]]]:
        params = {"valueRenderOption": render, "dateTimeRenderOption": "FORMATTED_STRING"}
        answer = _with_retries(self._book.values_batch_get, ranges, params=params)
        return [vr.get("values", []) for vr in answer.get("valueRanges", [])]

    def read(self, tab: str) -> list[list[Cell]]:
        if tab not in self._values:
            self.prefetch([tab])
        return self._values.pop(tab)

    def formulas(self, tab: str) -> list[Formula]:
        return self._formulas.pop(tab, [])


def _a1_sheet(title: str) -> str:
    return "'" + title.replace("'", "''") + "'"


# --- data frames ----------------------------------------------------------------------------

class FrameSource:
    """Data frames such as ``Harness.sheets()`` returns: JSON values become compact JSON
    text and missing values empty cells, as an export would hold them."""

    label = "data frames"

    def __init__(self, frames: Mapping[str, Any]) -> None:
        self._frames = dict(frames)

    def tabs(self) -> list[str]:
        return list(self._frames)

    def read(self, tab: str) -> list[list[Cell]]:
        frame = self._frames[tab]
        return [[str(c) for c in frame.columns]] + [
            [_cell(v) for v in row] for row in frame.to_numpy(dtype=object).tolist()]

    def prefetch(self, tabs: Sequence[str]) -> None:
        """Nothing to do: the frames are in memory."""

    def formulas(self, tab: str) -> list[Formula]:
        return []


def _cell(value: Any) -> Cell:
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is datetime or kind is date:
        return value
    if value is None:
        return ""
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else ("" if math.isnan(value) else repr(float(value)))
    if isinstance(value, (list, dict, tuple)):
        return json_text(value)
    import pandas

    if pandas.isna(value):  # pandas.NA, NaT
        return ""
    if hasattr(value, "to_pydatetime"):
        return value.to_pydatetime()
    if hasattr(value, "item"):  # numpy scalars
        return _cell(value.item())
    return str(value)
