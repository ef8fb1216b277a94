"""The other readers: a Google Sheet (gspread) and data frames (the xlsx reader is `_xlsx`)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from ..schema import SHEETS_BY_NAME
from ..store import json_text
from ._tables import Cell, Formula
from ._values import TRUNCATED

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
        sheet = SHEETS_BY_NAME.get(tab)
        kinds = [sheet.column(c).kind if sheet is not None and c in sheet.all_column_names else None
                 for c in frame.columns]
        return [[str(c) for c in frame.columns]] + [
            [_json_cell(v) if kind == "json" else _cell(v) for v, kind in zip(row, kinds)]
            for row in frame.to_numpy(dtype=object).tolist()]

    def prefetch(self, tabs: Sequence[str]) -> None:
        """Nothing to do: the frames are in memory."""

    def formulas(self, tab: str) -> list[Formula]:
        return []


def _json_cell(value: Any) -> Cell:
    """A JSON column's value as an export holds it: a text that is not JSON text is a JSON
    string the store decoded (a tool's plain-text output), written back as one."""
    if type(value) is str and value:
        try:
            json.loads(value)
        except ValueError:
            return value if TRUNCATED.search(value) else json_text(value)
    return _cell(value)


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
