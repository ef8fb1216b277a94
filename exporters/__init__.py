"""Exporters: the store's fifteen sheets as an Excel workbook or a Google Sheet.

Each reads the store (the system of record), never a live run, so an export can always
be redone and a failed Google Sheets push resumed.
"""

from ._cells import EXCEL_CELL_LIMIT, SHEETS_CELL_LIMIT, excel_cell, sheets_cell, truncation_marker
from ._excel import EXCEL_MAX_ROWS, ExcelExportResult, write_excel

__all__ = [
    "EXCEL_CELL_LIMIT",
    "EXCEL_MAX_ROWS",
    "SHEETS_CELL_LIMIT",
    "ExcelExportResult",
    "excel_cell",
    "sheets_cell",
    "truncation_marker",
    "write_excel",
]
