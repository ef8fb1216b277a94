"""Push the store's rows to a Google Sheet, every row exactly once.

Layout: one worksheet per sheet, named after it, with the schema's columns (spec columns,
then extras) and one more, hidden, trailing column ``row_key`` holding the store's key of
each row. Missing worksheets are created -- all sixteen (the fifteen and scores), one ``batchUpdate`` for the lot,
bold header included -- with a one-row grid, so the grid's row count is the header plus
the rows appended since. An existing worksheet whose header differs from the schema is an
error (never a silent column shift); an existing empty one gets the header.

Exactly once. The store records, per spreadsheet and sheet, the row keys the spreadsheet
has acknowledged (``export_marks``); a row is marked only after the append that carried it
succeeded, or after its key was read back from the sheet. So every marked row is in the
sheet, and the rows to send are the unmarked ones. The danger is an unmarked row that is
in the sheet anyway: an append whose response was lost (timeout, dropped connection, a
5xx after the server applied it), or a crash between the answer and the mark. Two checks
cover it before anything is re-sent:

- within a push, after an ambiguous failure of an append (anything but a 429, which is
  never applied), the sheet's ``row_key`` column is read and the keys found are marked
  and dropped from the retry;
- at the start of a push, the spreadsheet metadata (fetched anyway) gives each grid's row
  count. Since we append with ``INSERT_ROWS`` to a one-row grid, data rows = row count - 1.
  If that differs from the number of marks, some appended rows went unacknowledged (or
  someone else wrote to the sheet): the key column is read (in the same ``batchGet`` as
  the headers) and reconciled as above. If it is equal, the sheet holds exactly the marked
  rows (marks are a subset of the sheet's keys, keys are unique), so nothing unmarked is
  there and the pending rows can go.

Requests per push: one metadata read, one ``batchGet`` when touched worksheets already
exist, one ``batchUpdate`` when worksheets are missing, one ``values.append`` (``RAW``,
``INSERT_ROWS``) per worksheet with new rows, and one ``batchUpdate`` that shows the float
columns of those worksheets rounded (the cells keep exact values) -- more only when an
append would exceed ``SheetsPolicy.max_request_bytes`` (it is then split) or a request is
retried.
Limits: a request the server applies only after the client gave up *and* after the
read-back (longer than the backoff wait) could still duplicate; deleting rows from the
sheet by hand voids the row-count check. A row the store later replaces under the same
key (a recomputed ``log_tests`` row) is not sent again.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gspread
import requests
from google.auth.exceptions import GoogleAuthError
from gspread.exceptions import APIError
from gspread.utils import absolute_range_name, rowcol_to_a1

from harness.schema import ALL_SHEETS, Sheet
from harness.store import ROW_KEY, Store

from ._cells import SHEETS_CONVERTERS, number_format
from ._sheets_api import SheetsApi, SheetsExportError, SheetsPolicy, describe, sheets_client

SHEETS_MAX_CELLS = 10_000_000  # per spreadsheet, grid cells of every worksheet together
_TARGET_PREFIX = "gsheets:"

ProgressCallback = Callable[[str, int], None]
_Row = list[Any]  # cell values, the row key last


class SheetsTargetError(SheetsExportError):
    """The spreadsheet cannot take the rows: not found, not shared, or too many cells."""


class HeaderMismatchError(SheetsTargetError):
    """An existing worksheet's header differs from the schema's columns."""


@dataclass(frozen=True, slots=True)
class SheetsPushResult:
    """What :func:`push_google_sheets` did."""

    spreadsheet_id: str
    appended: Mapping[str, int]  # sheet -> rows this push appended (spec order, every sheet)
    recovered: Mapping[str, int]  # sheet -> rows found already in the sheet, marked, not re-sent
    created: tuple[str, ...]  # worksheets this push created
    requests: int  # HTTP requests to the Sheets API, retries included (token exchange not)
    retries: int
    seconds: float

    @property
    def total_rows(self) -> int:
        return sum(self.appended.values())


def sheet_header(sheet: Sheet) -> tuple[str, ...]:
    """A worksheet's header row: the schema's columns, then the hidden ``row_key``."""
    return (*sheet.all_column_names, ROW_KEY)


def push_google_sheets(
    store: Store,
    spreadsheet_id: str,
    *,
    credentials_file: str | os.PathLike[str] | None = None,
    run_ids: Sequence[str] | None = None,
    client: gspread.Client | None = None,
    policy: SheetsPolicy | None = None,
    progress: ProgressCallback | None = None,
) -> SheetsPushResult:
    """Append the rows of ``run_ids`` (all runs when None) that the spreadsheet lacks.

    ``client`` is a ready gspread client; without one a service account is loaded from
    ``credentials_file`` or ``$GOOGLE_APPLICATION_CREDENTIALS`` (ValueError when neither
    works). The policy's timeout is set on the client. Raises :class:`SheetsTargetError`
    when the spreadsheet cannot take the rows (nothing is written then) and
    :class:`SheetsExportError` when the API keeps failing; both leave the acknowledged
    rows recorded, so running the push again resumes it.
    """
    if not isinstance(spreadsheet_id, str) or not spreadsheet_id.strip() or "/" in spreadsheet_id:
        raise ValueError(f"not a spreadsheet id: {spreadsheet_id!r}")
    policy = policy or SheetsPolicy()
    client = client if client is not None else sheets_client(credentials_file)
    client.set_timeout(policy.timeout)
    started = time.perf_counter()
    api = SheetsApi(client, spreadsheet_id, policy)
    push = _Push(store, api, run_ids)
    try:
        push.run(progress)
    except (APIError, requests.RequestException, GoogleAuthError) as exc:
        raise SheetsExportError(
            f"push to spreadsheet {spreadsheet_id!r} stopped after {api.requests} requests "
            f"({describe(exc)}); acknowledged rows are recorded, run the export again to resume"
        ) from exc
    return SheetsPushResult(spreadsheet_id, push.appended, push.recovered, push.created,
                            api.requests, api.retries, time.perf_counter() - started)


def _key_range(sheet: Sheet) -> str:
    """The ``row_key`` column below the header, e.g. ``'runs'!AC2:AC``."""
    column = rowcol_to_a1(1, len(sheet_header(sheet))).rstrip("0123456789")
    return absolute_range_name(sheet.name, f"{column}2:{column}")


def _keys(values: list[list[Any]]) -> set[str]:
    return {str(row[0]) for row in values if row and row[0] != ""}


def _first_difference(found: Sequence[Any], expected: Sequence[str]) -> str:
    for i, (have, want) in enumerate(zip(found, expected), 1):
        if str(have) != want:
            return f"column {i} is {str(have)!r}, the schema has {want!r}"
    return f"it has {len(found)} columns, the schema {len(expected)}"


class _Push:
    def __init__(self, store: Store, api: SheetsApi, run_ids: Sequence[str] | None) -> None:
        self.store, self.api, self.run_ids = store, api, run_ids
        self.target = _TARGET_PREFIX + api.spreadsheet_id
        self.appended = {s.name: 0 for s in ALL_SHEETS}
        self.recovered = {s.name: 0 for s in ALL_SHEETS}
        self.created: tuple[str, ...] = ()
        self.marked: dict[str, int] = {}
        self.pending: dict[str, list[_Row]] = {}

    def run(self, progress: ProgressCallback | None) -> None:
        grids = self._open()
        for sheet in ALL_SHEETS:
            self.pending[sheet.name] = self._unacknowledged(sheet)
        touched = [s for s in ALL_SHEETS if self.pending[s.name]]
        self._check_cells(grids, touched)
        needs_header = self._inspect(grids, touched)
        ids = self._lay_out(grids, needs_header)
        for sheet in ALL_SHEETS:
            for chunk in self._chunks(self.pending[sheet.name]):
                self._append(sheet, chunk)
            if progress is not None:
                progress(sheet.name, self.appended[sheet.name])
        self._format_numbers([s for s in ALL_SHEETS if self.appended[s.name]], ids)

    # --- reading the target -------------------------------------------------------------
    def _open(self) -> dict[str, dict[str, Any]]:
        """Worksheet properties by title; a missing or unshared spreadsheet is a target error."""
        try:
            meta = self.api.metadata()
        except APIError as exc:
            status = exc.response.status_code
            if status not in (403, 404):
                raise
            email = getattr(getattr(self.api.http, "auth", None), "service_account_email", "the service account")
            problem = "not found" if status == 404 else "not accessible"
            raise SheetsTargetError(
                f"spreadsheet {self.api.spreadsheet_id!r} is {problem}: check the id and share it with "
                f"{email} as an editor") from None
        return {p["title"]: p for p in (s["properties"] for s in meta.get("sheets", []))}

    def _unacknowledged(self, sheet: Sheet) -> list[_Row]:
        marked = self.store.exported_keys(self.target, sheet.name)
        self.marked[sheet.name] = len(marked)
        converters = [(c.name, SHEETS_CONVERTERS[c.kind]) for c in sheet.all_columns]
        return [
            [*("" if row[n] is None else convert(row[n]) for n, convert in converters), row[ROW_KEY]]
            for row in self.store.rows(sheet, self.run_ids, with_keys=True, decode_json=False)
            if row[ROW_KEY] not in marked
        ]

    def _check_cells(self, grids: Mapping[str, dict[str, Any]], touched: Sequence[Sheet]) -> None:
        def cells(props: dict[str, Any]) -> int:
            grid = props.get("gridProperties", {})
            return int(grid.get("rowCount", 0)) * int(grid.get("columnCount", 0))

        total = sum(cells(p) for p in grids.values())
        total += sum(len(sheet_header(s)) for s in ALL_SHEETS if s.name not in grids)
        total += sum(len(self.pending[s.name]) * len(sheet_header(s)) for s in touched)
        if total > SHEETS_MAX_CELLS:
            raise SheetsTargetError(
                f"spreadsheet {self.api.spreadsheet_id!r} would hold {total:,} cells, more than Google "
                f"Sheets allows ({SHEETS_MAX_CELLS:,}); export fewer runs (--run) or to a new spreadsheet")

    def _inspect(self, grids: Mapping[str, dict[str, Any]], touched: Sequence[Sheet]) -> list[Sheet]:
        """One read for the headers of touched worksheets (and their key column where the row
        count disagrees with the marks); returns the existing worksheets with no header."""
        asks: list[tuple[Sheet, bool, str]] = []  # (sheet, is the header, range)
        for sheet in touched:
            props = grids.get(sheet.name)
            if props is None:
                continue
            asks.append((sheet, True, absolute_range_name(sheet.name, "1:1")))
            data_rows = int(props.get("gridProperties", {}).get("rowCount", 1)) - 1
            if data_rows != self.marked[sheet.name]:
                asks.append((sheet, False, _key_range(sheet)))
        if not asks:
            return []
        needs_header = []
        for (sheet, is_header, _), values in zip(asks, self.api.batch_get([rng for *_, rng in asks])):
            if not is_header:
                self.pending[sheet.name] = self._reconcile(sheet, self.pending[sheet.name], _keys(values))
                continue
            header = values[0] if values else []
            if not header:
                needs_header.append(sheet)
            elif [str(h) for h in header] != list(sheet_header(sheet)):
                raise HeaderMismatchError(
                    f"worksheet {sheet.name!r} of spreadsheet {self.api.spreadsheet_id!r} does not match "
                    f"the schema ({_first_difference(header, sheet_header(sheet))}); rename or delete "
                    f"it, or export to another spreadsheet")
        return needs_header

    def _reconcile(self, sheet: Sheet, rows: list[_Row], present: set[str]) -> list[_Row]:
        """Mark the keys the sheet holds; return the rows still to send."""
        self.store.mark_exported(self.target, sheet.name, present)
        kept = [row for row in rows if row[-1] not in present]
        self.recovered[sheet.name] += len(rows) - len(kept)
        return kept

    # --- writing ------------------------------------------------------------------------
    def _lay_out(self, grids: dict[str, dict[str, Any]], needs_header: list[Sheet]) -> dict[str, int]:
        """Create the missing worksheets and write missing headers, in one atomic batchUpdate.
        Returns every worksheet's id by title."""
        missing = [s for s in ALL_SHEETS if s.name not in grids]
        if not missing and not needs_header:
            return {title: int(p["sheetId"]) for title, p in grids.items()}
        created = tuple(s.name for s in missing)

        def look() -> bool:  # the lost batch may have been applied (it is atomic)
            nonlocal grids, missing
            grids = self._open()
            missing = [s for s in missing if s.name not in grids]
            return bool(missing or needs_header)

        sent: list[dict[str, Any]] = []

        def send() -> None:
            sent[:] = self._layout_requests(missing, needs_header, grids)
            self.api.send("write", self.api.http.batch_update, {"requests": sent})

        self.api.write(send, look)
        self.created = created
        ids = {title: int(p["sheetId"]) for title, p in grids.items()}
        ids.update({r["addSheet"]["properties"]["title"]: r["addSheet"]["properties"]["sheetId"]
                    for r in sent if "addSheet" in r})
        return ids

    def _format_numbers(self, sheets: Sequence[Sheet], ids: Mapping[str, int]) -> None:
        """Show the float columns of the worksheets that got rows rounded (:func:`number_format`;
        the cells keep their exact values): one batchUpdate, over every data row (so a push
        that failed here is made good by the next). Setting a format twice is harmless, so
        it is simply sent again after a failure."""
        requests_ = [
            {"repeatCell": {
                "range": {"sheetId": ids[sheet.name], "startRowIndex": 1,
                          "startColumnIndex": c, "endColumnIndex": c + 1},
                "cell": {"userEnteredFormat": {"numberFormat": {"type": "NUMBER", "pattern": pattern}}},
                "fields": "userEnteredFormat.numberFormat"}}
            for sheet in sheets for c, column in enumerate(sheet.all_columns)
            if (pattern := number_format(column)) is not None]
        if requests_:
            self.api.write(lambda: self.api.send("write", self.api.http.batch_update, {"requests": requests_}),
                           lambda: True)

    @staticmethod
    def _layout_requests(missing: Sequence[Sheet], needs_header: Sequence[Sheet],
                         grids: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
        next_id = max((int(p.get("sheetId", 0)) for p in grids.values()), default=0) + 1
        requests_: list[dict[str, Any]] = []
        for sheet in [*missing, *needs_header]:
            header = sheet_header(sheet)
            if sheet in missing:
                sheet_id, next_id = next_id, next_id + 1
                requests_.append({"addSheet": {"properties": {
                    "sheetId": sheet_id, "title": sheet.name,
                    "gridProperties": {"rowCount": 1, "columnCount": len(header)}}}})
            else:
                props = grids[sheet.name]
                sheet_id = int(props["sheetId"])
                columns = max(len(header), int(props.get("gridProperties", {}).get("columnCount", 0)))
                requests_.append({"updateSheetProperties": {
                    "properties": {"sheetId": sheet_id, "gridProperties": {"columnCount": columns}},
                    "fields": "gridProperties.columnCount"}})
            requests_.append({"updateCells": {
                "start": {"sheetId": sheet_id, "rowIndex": 0, "columnIndex": 0},
                "rows": [{"values": [{"userEnteredValue": {"stringValue": h},
                                      "userEnteredFormat": {"textFormat": {"bold": True}}} for h in header]}],
                "fields": "userEnteredValue,userEnteredFormat.textFormat.bold"}})
            requests_.append({"updateDimensionProperties": {
                "range": {"sheetId": sheet_id, "dimension": "COLUMNS",
                          "startIndex": len(header) - 1, "endIndex": len(header)},
                "properties": {"hiddenByUser": True}, "fields": "hiddenByUser"}})
        return requests_

    def _chunks(self, rows: list[_Row]) -> list[list[_Row]]:
        """Rows in as few appends as fit under the request size (a row is never split)."""
        limit = self.api.policy.max_request_bytes
        chunks: list[list[_Row]] = [[]]
        size = 0
        for row in rows:
            row_size = len(json.dumps(row)) + 1
            if chunks[-1] and size + row_size > limit:
                chunks.append([])
                size = 0
            chunks[-1].append(row)
            size += row_size
        return chunks if chunks[0] else []

    def _append(self, sheet: Sheet, rows: list[_Row]) -> None:
        """One values.append of ``rows``; after an ambiguous failure, read back before re-sending."""
        params = {"valueInputOption": "RAW", "insertDataOption": "INSERT_ROWS"}
        table = absolute_range_name(sheet.name, "A1")

        def look() -> bool:  # the lost append may have landed: keep only the rows that did not
            nonlocal rows
            (values,) = self.api.batch_get([_key_range(sheet)])
            rows = self._reconcile(sheet, rows, _keys(values))
            return bool(rows)

        self.api.write(lambda: self.api.send("write", self.api.http.values_append, table, params,
                                             {"majorDimension": "ROWS", "values": rows}), look)
        self.store.mark_exported(self.target, sheet.name, [row[-1] for row in rows])
        self.appended[sheet.name] += len(rows)
