"""Exporters: the store's fifteen sheets and its scores as an Excel workbook or a Google Sheet.

Each reads the store (the system of record), never a live run, so an export can always
be redone and a failed Google Sheets push resumed.
"""

from ._cells import EXCEL_CELL_LIMIT, SHEETS_CELL_LIMIT, excel_cell, sheets_cell, truncation_marker
from ._excel import EXCEL_MAX_ROWS, ExcelExportResult, write_excel
from ._sheets import (
    SHEETS_MAX_CELLS,
    HeaderMismatchError,
    SheetsPushResult,
    SheetsTargetError,
    push_google_sheets,
    sheet_header,
)
from ._sheets_api import ENV_CREDENTIALS, SHEETS_SCOPE, SheetsExportError, SheetsPolicy, sheets_client

__all__ = [
    "ENV_CREDENTIALS",
    "EXCEL_CELL_LIMIT",
    "EXCEL_MAX_ROWS",
    "SHEETS_CELL_LIMIT",
    "SHEETS_MAX_CELLS",
    "SHEETS_SCOPE",
    "ExcelExportResult",
    "HeaderMismatchError",
    "SheetsExportError",
    "SheetsPolicy",
    "SheetsPushResult",
    "SheetsTargetError",
    "excel_cell",
    "push_google_sheets",
    "sheet_header",
    "sheets_cell",
    "sheets_client",
    "truncation_marker",
    "write_excel",
]
