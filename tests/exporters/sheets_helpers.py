"""Reading a pushed spreadsheet back from the local Sheets server."""

from __future__ import annotations

from collections.abc import Sequence

from harness.schema import SHEETS
from harness.store import Store
from tests.support.sheets_server import SheetsServer


def sheet_keys(server: SheetsServer, spreadsheet_id: str, name: str) -> list[str]:
    """The hidden ``row_key`` column of a worksheet, top to bottom."""
    values = server.values(spreadsheet_id, name)
    column = values[0].index("row_key")
    return [row[column] for row in values[1:]]


def assert_exactly_once(server: SheetsServer, spreadsheet_id: str, store: Store,
                        run_ids: Sequence[str] | None = None) -> None:
    """Every worksheet holds the store's rows once each, in the store's order."""
    for sheet in SHEETS:
        want = [row["row_key"] for row in store.rows(sheet, run_ids, with_keys=True)]
        assert sheet_keys(server, spreadsheet_id, sheet.name) == want, sheet.name
