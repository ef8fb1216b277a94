"""The workbook, read back with an independent reader (python-calamine) and its XML."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from python_calamine import CalamineWorkbook
from xlsxwriter.utility import xl_col_to_name

from exporters import EXCEL_CELL_LIMIT, ExcelExportResult, write_excel
from exporters._cells import parse_utc
from harness.schema import ALL_SHEET_NAMES, SHEETS, SHEETS_BY_NAME, sheet
from harness.store import Store

from .conftest import fill, make_rows


def read_book(path: Path) -> dict[str, list[list[Any]]]:
    book = CalamineWorkbook.from_path(str(path))
    return {name: book.get_sheet_by_name(name).to_python(skip_empty_area=False) for name in book.sheet_names}


def sheet_xml(path: Path) -> dict[str, str]:
    """Worksheet XML by worksheet name (xlsxwriter numbers sheet files in workbook order)."""
    with zipfile.ZipFile(path) as z:
        names = re.findall(r'<sheet name="([^"]+)"', z.read("xl/workbook.xml").decode())
        return {n: z.read(f"xl/worksheets/sheet{i}.xml").decode() for i, n in enumerate(names, 1)}


def styles_xml(path: Path) -> str:
    with zipfile.ZipFile(path) as z:
        return z.read("xl/styles.xml").decode()


def expected_cell(kind: str, stored: Any) -> Any:
    if stored is None:
        return ""
    if kind == "datetime":
        return parse_utc(stored)
    if kind in ("int", "float"):
        return float(stored)
    return stored


def test_every_sheet_is_present_in_spec_order_even_when_empty(store, tmp_path):
    store.write("runs", make_rows(sheet("runs"), 1, 1))
    out = tmp_path / "runs.xlsx"
    write_excel(store, out)
    book = read_book(out)
    assert list(book) == list(ALL_SHEET_NAMES)
    assert [len(rows) for rows in book.values()] == [2] + [1] * 15


def test_each_sheet_has_spec_columns_then_extra_columns(store, tmp_path):
    out = tmp_path / "runs.xlsx"
    write_excel(store, out)
    book = read_book(out)
    for s in SHEETS:
        assert tuple(book[s.name][0]) == s.column_names + tuple(c.name for c in s.extra)


def test_every_cell_round_trips_through_an_independent_reader(filled, tmp_path):
    out = tmp_path / "runs.xlsx"
    write_excel(filled, out)
    book = read_book(out)
    for s in SHEETS:
        stored = list(filled.rows(s, decode_json=False))
        assert len(book[s.name]) == len(stored) + 1
        for got_row, row in zip(book[s.name][1:], stored):
            for column, got in zip(s.all_columns, got_row):
                want = expected_cell(column.kind, row[column.name])
                if isinstance(want, datetime):
                    assert abs(got - want) <= timedelta(milliseconds=1), (s.name, column.name)
                elif isinstance(want, float):
                    assert got == pytest.approx(want, rel=1e-15), (s.name, column.name)
                else:
                    assert got == want, (s.name, column.name)


def test_formula_like_text_is_stored_as_a_string_never_a_formula(store, tmp_path):
    rows = make_rows(sheet("assessments"), 1, 1)
    tricky = ["=HYPERLINK(\"http://x\")", "+1+1", "-5", "@SUM(1)", "\t=1", "\r=1"]
    for row, text in zip(rows * len(tricky), tricky):
        store.write("assessments", [{**row, "reasoning": text, "row_key": text}])
    out = tmp_path / "runs.xlsx"
    write_excel(store, out)
    assert [r[12] for r in read_book(out)["assessments"][1:]] == tricky
    for xml in sheet_xml(out).values():
        assert "<f>" not in xml and "<f " not in xml


def test_numbers_stay_numbers_and_numbers_held_as_text_stay_text(store, tmp_path):
    row = make_rows(sheet("runs"), 1, 1)[0]
    store.write("runs", [{**row, "credit_score": -5, "company_name": "-5", "confidence": 0.25}])
    out = tmp_path / "runs.xlsx"
    write_excel(store, out)
    data = read_book(out)["runs"][1]
    assert data[1] == "-5"
    assert data[10] == -5 and not isinstance(data[10], str)
    assert data[11] == 0.25


def test_timestamps_are_real_dates_in_utc_with_a_date_format(store, tmp_path):
    row = make_rows(sheet("runs"), 1, 1)[0]
    store.write("runs", [{**row, "started_at": "2025-03-01T12:00:00.500000+02:00"}])
    out = tmp_path / "runs.xlsx"
    write_excel(store, out)
    assert read_book(out)["runs"][1][7] == datetime(2025, 3, 1, 10, 0, 0, 500000)
    cell = re.search(r'<c r="H2"([^>]*)>', sheet_xml(out)["runs"]).group(1)
    assert "t=" not in cell and 's="' in cell  # a number with a style, not a string
    assert "yyyy-mm-dd hh:mm:ss.000" in styles_xml(out)


def test_long_cells_carry_the_marker_while_the_store_keeps_the_full_value(store, tmp_path):
    row = make_rows(sheet("llm_calls"), 1, 1)[0]
    store.write("llm_calls", [{**row, "response": "r" * 81_234}])
    out = tmp_path / "runs.xlsx"
    write_excel(store, out)
    cell = read_book(out)["llm_calls"][1][10]
    assert len(cell) == EXCEL_CELL_LIMIT
    assert cell.endswith("…[truncated, 81234 chars]")
    assert len(next(store.rows("llm_calls"))["response"]) == 81_234


def test_control_characters_round_trip_as_excels_escapes_and_what_no_workbook_holds_is_removed(store, tmp_path):
    row = make_rows(sheet("runs"), 1, 1)[0]
    store.write("runs", [{**row, "error": "bad\x00byte\x1b[31m\ufffe end _x000B_"}])
    out = tmp_path / "runs.xlsx"
    write_excel(store, out)
    assert read_book(out)["runs"][1][22] == "bad\x00byte\x1b[31m end _x000B_"
    assert "bad_x0000_byte_x001B_[31m end _x005F_x000B_" in sheet_xml(out)["runs"]  # valid XML: escaped
    openpyxl.load_workbook(out, read_only=True).close()


def test_a_sheet_over_the_row_limit_continues_in_numbered_sheets_with_the_same_header(store, tmp_path):
    store.write("tool_calls", make_rows(sheet("tool_calls"), 1, 8))
    out = tmp_path / "runs.xlsx"
    result = write_excel(store, out, max_rows_per_sheet=4)
    book = read_book(out)
    assert list(book)[:5] == ["runs", "tool_calls", "tool_calls_2", "tool_calls_3", "assessments"]
    assert result.worksheets == tuple(book)
    parts = [book["tool_calls"], book["tool_calls_2"], book["tool_calls_3"]]
    assert [len(p) for p in parts] == [4, 4, 3]
    assert parts[0][0] == parts[1][0] == parts[2][0]
    keys = [r[16] for p in parts for r in p[1:]]  # timestamp column keeps the row order
    assert keys == sorted(keys) and len(set(keys)) == 8
    assert result.rows["tool_calls"] == 8


def test_only_the_requested_runs_are_exported(filled, tmp_path):
    out = tmp_path / "runs.xlsx"
    result = write_excel(filled, out, ["run-2"])
    book = read_book(out)
    assert {r[0] for r in book["tool_calls"][1:]} == {"run-2"}
    assert result.rows["tool_calls"] == 2 and result.rows["assessments"] == 0
    assert len(book["assessments"]) == 1


def test_header_is_bold_frozen_and_filtered_with_readable_widths(filled, tmp_path):
    out = tmp_path / "runs.xlsx"
    write_excel(filled, out)
    xml = sheet_xml(out)["runs"]
    assert re.search(r'<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>', xml)
    last_column = xl_col_to_name(len(SHEETS_BY_NAME["runs"].all_columns) - 1)
    assert f'<autoFilter ref="A1:{last_column}5"/>' in xml
    widths = [float(w) for w in re.findall(r'<col [^>]*width="([\d.]+)"', xml)]
    assert len(widths) >= 1 and all(8 <= w <= 61 for w in widths)
    assert "<b/>" in styles_xml(out)


def test_status_cells_are_coloured_green_amber_red(filled, tmp_path):
    out = tmp_path / "runs.xlsx"
    write_excel(filled, out)
    xml = sheet_xml(out)
    for name, values in (("evaluations", ("good", "average", "bad")), ("log_tests", ("pass", "partial", "fail"))):
        rules = re.findall(r'<cfRule type="cellIs" dxfId="(\d+)"[^>]*operator="equal"><formula>"(\w+)"</formula>', xml[name])
        assert [v for _, v in rules] == list(values)
    fills = re.findall(r'<dxf>.*?<bgColor rgb="FF([0-9A-F]{6})"/>', styles_xml(out))
    assert fills[:3] == ["C6EFCE", "FFEB9C", "FFC7CE"]


def test_result_reports_rows_per_sheet_path_and_time(filled, tmp_path):
    result = write_excel(filled, tmp_path / "runs.xlsx")
    assert isinstance(result, ExcelExportResult)
    assert list(result.rows) == list(ALL_SHEET_NAMES)
    assert result.rows["runs"] == 4 and result.total_rows == 15 * 3 + 6
    assert result.path == tmp_path / "runs.xlsx" and result.seconds > 0


def test_an_interrupted_export_keeps_the_previous_workbook_and_leaves_no_temporary_file(filled, tmp_path):
    out = tmp_path / "runs.xlsx"
    write_excel(filled, out, ["run-2"])
    before = out.read_bytes()

    def interrupt(sheet_name: str, rows: int) -> None:
        if sheet_name == "evaluations":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_excel(filled, out, progress=interrupt)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.db", "runs.db-shm", "runs.db-wal", "runs.xlsx"]


_KILLED_EXPORT = """
import sys
from harness.store import Store
from exporters import write_excel
write_excel(Store(sys.argv[1]), sys.argv[2])
"""


def test_a_killed_export_never_leaves_a_half_workbook_under_the_final_name(tmp_path):
    store = Store(tmp_path / "big.db")
    fill(store, 1, 1)
    out = tmp_path / "runs.xlsx"
    write_excel(store, out)
    store.write("langgraph_events", make_rows(sheet("langgraph_events"), 2, 8_000))
    store.close()
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-c", _KILLED_EXPORT, str(tmp_path / "big.db"), str(out)],
                             cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    deadline = time.monotonic() + 30
    while not any(p.suffix == ".tmp" for p in tmp_path.iterdir()):
        assert child.poll() is None and time.monotonic() < deadline, "export ended before it could be killed"
        time.sleep(0.02)
    time.sleep(0.3)
    child.send_signal(signal.SIGKILL)
    assert child.wait() == -signal.SIGKILL, "the export finished before the kill"
    assert [len(rows) for rows in read_book(out).values()] == [2] * 15 + [1]  # the previous, complete workbook


@pytest.mark.parametrize("name", ["runs.xls", "runs.csv", "runs"])
def test_a_path_that_is_not_xlsx_is_a_value_error(filled, tmp_path, name):
    with pytest.raises(ValueError, match=r"\.xlsx"):
        write_excel(filled, tmp_path / name)


def test_a_missing_directory_is_a_value_error(filled, tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        write_excel(filled, tmp_path / "nope" / "runs.xlsx")


@pytest.mark.parametrize("limit", [1, 0, 1_048_577])
def test_a_row_limit_outside_the_excel_range_is_a_value_error(filled, tmp_path, limit):
    with pytest.raises(ValueError, match="max_rows_per_sheet"):
        write_excel(filled, tmp_path / "runs.xlsx", max_rows_per_sheet=limit)


def test_a_sheet_of_more_rows_than_a_store_page_is_exported_whole_and_in_order(store, tmp_path):
    rows = make_rows(sheet("data_sources"), 1, 4_500)  # the store reads 2,000 rows per page
    store.write("data_sources", rows)
    out = tmp_path / "runs.xlsx"
    assert write_excel(store, out).rows["data_sources"] == 4_500
    written = read_book(out)["data_sources"][1:]
    assert [r[12] for r in written] == [parse_utc(r["timestamp"]) for r in rows]


def test_the_workbook_gets_the_usual_file_permissions_not_the_temporary_files(tmp_path):
    import os
    import stat

    from exporters import write_excel
    from harness import Store

    out = tmp_path / "perm.xlsx"
    mask = os.umask(0o022)
    try:
        write_excel(Store(tmp_path / "s.db"), out)
    finally:
        os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_floats_are_shown_rounded_while_the_cell_keeps_the_exact_value(store, tmp_path):
    import openpyxl

    store.write("evaluations", [{"run_id": "r1", "overall_score": 0.9999999999999999, "duration_ms": 1.8423020001137}])
    store.write("llm_calls", [{"run_id": "r1", "total_cost": 0.000118, "total_tokens": 7}])
    out = write_excel(store, tmp_path / "runs.xlsx").path
    book = openpyxl.load_workbook(out)
    evaluations = {c.value: i for i, c in enumerate(book["evaluations"][1])}
    row = book["evaluations"][2]
    assert row[evaluations["overall_score"]].value == 0.9999999999999999
    assert row[evaluations["overall_score"]].number_format == "0.0##"
    assert row[evaluations["duration_ms"]].number_format == "0.0"
    calls = {c.value: i for i, c in enumerate(book["llm_calls"][1])}
    assert book["llm_calls"][2][calls["total_cost"]].number_format == "0.00######"
    assert book["llm_calls"][2][calls["total_tokens"]].number_format == "General"
    assert CalamineWorkbook.from_path(str(out)).get_sheet_by_name("evaluations").to_python()[1][
        evaluations["overall_score"]] == 0.9999999999999999  # what the audit reads
