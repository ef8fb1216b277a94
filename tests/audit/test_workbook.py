"""A workbook exported by the project audits clean; single edits give exactly the expected
finding, or make the workbook unusable (AuditInputError, the CLI's exit 2)."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from harness.audit import AuditInputError, audit_frames, audit_workbook

from .conftest import cell_value, column_number, edit, row_of, where


def test_exported_workbook_audits_clean(workbook: Path) -> None:
    result = audit_workbook(workbook)
    assert result.findings == ()
    assert result.exit_code == 0
    assert result.rows["runs"] == 12 and result.rows["llm_calls"] == 36


def test_formula_like_text_written_as_text_is_not_a_finding(workbook: Path) -> None:
    assert str(cell_value(workbook, "assessments", 2, "reasoning")).startswith("=Revenue")
    assert audit_workbook(workbook).findings == ()


def test_data_frames_of_the_store_audit_like_their_workbook(clean_store, workbook: Path) -> None:
    frames = audit_frames(clean_store.sheets())
    book = audit_workbook(workbook)
    assert frames.findings == book.findings == ()
    assert frames.rows == book.rows
    assert frames.aggregates == book.aggregates


def test_a_workbook_without_runs_audits_clean_with_empty_statistics(tmp_path: Path) -> None:
    from exporters import write_excel
    from harness import Store

    path = tmp_path / "empty.xlsx"
    write_excel(Store(tmp_path / "empty.db"), path)
    result = audit_workbook(path)
    assert result.exit_code == 0 and sum(result.rows.values()) == 0
    assert result.aggregates.by_model == () and result.aggregates.pass_k == ()


def test_changed_f1_is_one_finding_at_that_cell(workbook: Path) -> None:
    old = cell_value(workbook, "tool_selections", 3, "f1_score")
    edit(workbook, ("tool_selections", 3, "f1_score", round(old - 0.25, 4)))
    result = audit_workbook(workbook)
    assert where(result.findings) == {("tool_selections", 3, "f1_score", "recompute")}
    (finding,) = result.findings
    assert finding.found == pytest.approx(old - 0.25)
    assert finding.expected == pytest.approx(old)
    assert "tool_selection(selected_tools, expected_tools)" in finding.rule
    assert result.exit_code == 1


def test_deleted_llm_calls_row_shows_in_the_run_and_log_tests_counts(workbook: Path) -> None:
    run_id = cell_value(workbook, "llm_calls", 5, "run_id")
    tokens = cell_value(workbook, "llm_calls", 5, "total_tokens")
    book = openpyxl.load_workbook(workbook)
    book["llm_calls"].delete_rows(5)
    book.save(workbook)
    result = audit_workbook(workbook)
    runs_row = row_of(workbook, "runs", "run_id", run_id)
    log_row = row_of(workbook, "log_tests", "run_id", run_id)
    assert where(result.findings) == {
        ("runs", runs_row, "total_llm_calls", "cross-sheet"),
        ("runs", runs_row, "total_tokens", "cross-sheet"),
        ("runs", runs_row, "total_cost", "cross-sheet"),
        ("log_tests", log_row, "llm_calls", "cross-sheet"),
    }
    by_column = {f.column: f for f in result.findings}
    assert by_column["total_llm_calls"].found == 3 and by_column["total_llm_calls"].expected == 2
    assert by_column["total_tokens"].found - by_column["total_tokens"].expected == tokens


def test_swapped_risk_levels_are_findings_on_both_runs(workbook: Path) -> None:
    ws = openpyxl.load_workbook(workbook)["runs"]
    col = column_number(ws, "risk_level")
    levels = {r: ws.cell(row=r, column=col).value for r in range(2, ws.max_row + 1)}
    a = 2
    b = next(r for r, level in levels.items() if level != levels[a])
    edit(workbook, ("runs", a, "risk_level", levels[b]), ("runs", b, "risk_level", levels[a]))
    result = audit_workbook(workbook)
    assert where(result.findings) == {("runs", a, "risk_level", "cross-sheet"),
                                      ("runs", b, "risk_level", "cross-sheet")}
    assert {(f.found, f.expected) for f in result.findings} == {(levels[b], levels[a]), (levels[a], levels[b])}


def test_risk_level_outside_the_closed_set_is_a_type_finding(workbook: Path) -> None:
    edit(workbook, ("assessments", 4, "risk_level", "MEDIUM"))
    result = audit_workbook(workbook)
    assert ("assessments", 4, "risk_level", "type") in where(result.findings)


def test_reordered_columns_make_the_workbook_unusable(workbook: Path) -> None:
    book = openpyxl.load_workbook(workbook)
    ws = book["llm_calls"]
    a, b = column_number(ws, "prompt_tokens"), column_number(ws, "completion_tokens")
    for row in ws.iter_rows(min_row=1, max_row=ws.max_row):
        row[a - 1].value, row[b - 1].value = row[b - 1].value, row[a - 1].value
    book.save(workbook)
    with pytest.raises(AuditInputError, match=r"sheet 'llm_calls': column 15 is 'completion_tokens' where the spec has 'prompt_tokens'"):
        audit_workbook(workbook)


def test_missing_sheet_makes_the_workbook_unusable(workbook: Path) -> None:
    book = openpyxl.load_workbook(workbook)
    book.remove(book["plans"])
    book.save(workbook)
    with pytest.raises(AuditInputError, match=r"missing sheet\(s\) plans$"):
        audit_workbook(workbook)


def test_missing_spec_column_makes_the_workbook_unusable(workbook: Path) -> None:
    book = openpyxl.load_workbook(workbook)
    ws = book["tool_calls"]
    ws.delete_cols(column_number(ws, "tool_name"))
    book.save(workbook)
    with pytest.raises(AuditInputError, match=r"sheet 'tool_calls' is missing column\(s\) tool_name"):
        audit_workbook(workbook)


def test_formula_typed_into_a_cell_is_one_finding(workbook: Path) -> None:
    edit(workbook, ("plans", 2, "plan_summary", "=CONCAT(A2,B2)"))
    result = audit_workbook(workbook)
    assert where(result.findings) == {("plans", 2, "plan_summary", "formula")}
    assert result.findings[0].found == "=CONCAT(A2,B2)"


def test_a_file_that_is_not_a_workbook_is_unusable(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.xlsx"
    bogus.write_text("just text")
    with pytest.raises(AuditInputError, match=r"notes.xlsx: not a readable workbook"):
        audit_workbook(bogus)


def test_a_missing_file_is_unusable(tmp_path: Path) -> None:
    with pytest.raises(AuditInputError, match=r"no such file"):
        audit_workbook(tmp_path / "absent.xlsx")


def test_long_sheets_checked_in_chunks_give_the_findings_of_the_whole_sheet(workbook: Path, monkeypatch) -> None:
    from harness.audit import _audit

    book = openpyxl.load_workbook(workbook)
    for name in ("langgraph_events", "llm_calls"):  # duplicates far from their originals, in later chunks
        ws = book[name]
        ws.append([c.value for c in ws[3]])
    book.save(workbook)
    edit(workbook, ("llm_calls", 2, "total_tokens", 1), ("llm_calls", 30, "completion_tokens", 3),
         ("langgraph_events", 50, "step_number", 99), ("tool_calls", 7, "run_id", "not-a-run"))
    whole = audit_workbook(workbook)
    monkeypatch.setattr(_audit, "CHUNK_ROWS", 7)
    chunked = audit_workbook(workbook)
    assert len(whole.findings) >= 6 and {f.kind for f in whole.findings} >= {"duplicate"}
    assert chunked.findings == whole.findings
    assert chunked.rows == whole.rows and chunked.aggregates == whole.aggregates
