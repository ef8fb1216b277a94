"""A Google Sheet (the local Sheets v4 server, real gspread traffic) audits as its Excel twin."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from exporters import push_google_sheets
from harness.audit import AuditInputError, audit_google_sheet, audit_workbook
from harness.audit._model import jsonable
from harness.cli import main
from tests.support.sheets_server import SheetsServer

from .conftest import cell_value, edit, where


@pytest.fixture(scope="module")
def server() -> Iterator[SheetsServer]:
    with SheetsServer() as running:
        yield running


@pytest.fixture
def spreadsheet(server: SheetsServer, clean_store) -> str:
    sid = server.create_spreadsheet()
    push_google_sheets(clean_store, sid, client=server.client(timeout=5))
    return sid


def _close(a: Any, b: Any) -> bool:
    """Equal, floats within 1e-12 (Excel keeps 16 significant digits, Sheets RAW keeps all)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


def _set(server: SheetsServer, sid: str, sheet: str, row: int, column: str, value: Any) -> None:
    ws = server.worksheet(sid, sheet)
    ws.cells[row - 1][ws.cells[0].index(column)] = value


def test_google_sheet_audits_the_same_as_its_excel_twin(server: SheetsServer, spreadsheet: str,
                                                         workbook: Path) -> None:
    online = audit_google_sheet(spreadsheet, client=server.client(timeout=5))
    offline = audit_workbook(workbook)
    assert online.findings == offline.findings == ()
    assert online.rows == offline.rows
    assert _close(jsonable(online.aggregates), jsonable(offline.aggregates))
    assert online.source == f"Google Sheet {spreadsheet}"


def test_the_same_edit_gives_the_same_findings_online_and_offline(server: SheetsServer, spreadsheet: str,
                                                                  workbook: Path) -> None:
    old = cell_value(workbook, "tool_selections", 4, "f1_score")
    edit(workbook, ("tool_selections", 4, "f1_score", old / 2), ("runs", 3, "total_llm_calls", 7))
    _set(server, spreadsheet, "tool_selections", 4, "f1_score", old / 2)
    _set(server, spreadsheet, "runs", 3, "total_llm_calls", 7)
    online = audit_google_sheet(spreadsheet, client=server.client(timeout=5)).findings
    offline = audit_workbook(workbook).findings
    assert where(online) == where(offline) == {("tool_selections", 4, "f1_score", "recompute"),
                                               ("runs", 3, "total_llm_calls", "cross-sheet")}


def test_reading_a_sheet_takes_two_batch_reads(server: SheetsServer, spreadsheet: str) -> None:
    server.reset_requests()
    audit_google_sheet(spreadsheet, client=server.client(timeout=5))
    assert server.count("batchGet") == 2


def test_a_rate_limited_read_is_retried(server: SheetsServer, spreadsheet: str) -> None:
    server.reset_requests()
    server.fail("batchGet", status=429)
    result = audit_google_sheet(spreadsheet, client=server.client(timeout=5))
    assert result.findings == ()
    assert server.count("batchGet") == 3


def test_an_unknown_spreadsheet_is_unusable_input(server: SheetsServer) -> None:
    with pytest.raises(AuditInputError, match="Google Sheet nope: not found"):
        audit_google_sheet("nope", client=server.client(timeout=5))


def test_cli_audits_a_google_sheet_with_a_credentials_file(server: SheetsServer, spreadsheet: str, tmp_path: Path,
                                                           capsys) -> None:
    key = server.service_account_file(tmp_path / "sa.json")
    with server.redirect_gspread(), pytest.raises(SystemExit) as done:
        main(["audit", "--gsheet", spreadsheet, "--credentials", str(key)])
    assert done.value.code == 0
    assert f"Google Sheet {spreadsheet}" in capsys.readouterr().out
