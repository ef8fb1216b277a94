"""The exporters' public surface, pinned."""

import exporters


def test_public_names_are_pinned():
    assert sorted(exporters.__all__) == sorted([
        "ENV_CREDENTIALS", "EXCEL_CELL_LIMIT", "EXCEL_MAX_ROWS", "SHEETS_CELL_LIMIT", "SHEETS_MAX_CELLS",
        "SHEETS_SCOPE", "ExcelExportResult", "HeaderMismatchError", "SheetsExportError", "SheetsPolicy",
        "SheetsPushResult", "SheetsTargetError", "excel_cell", "push_google_sheets", "sheet_header",
        "sheets_cell", "sheets_client", "truncation_marker", "write_excel",
    ])
    assert all(hasattr(exporters, name) for name in exporters.__all__)


def test_limits_are_the_targets_documented_limits():
    assert (exporters.EXCEL_CELL_LIMIT, exporters.SHEETS_CELL_LIMIT) == (32_767, 50_000)
    assert (exporters.EXCEL_MAX_ROWS, exporters.SHEETS_MAX_CELLS) == (1_048_576, 10_000_000)
    assert exporters.SHEETS_SCOPE == "https://www.googleapis.com/auth/spreadsheets"
