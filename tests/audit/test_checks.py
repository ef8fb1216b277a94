"""Each check, one edit at a time: what it catches and where the finding points.

Most edits are made on the store's data frames (``audit_frames``: the same checks behind a
different reader, and fast); what only a workbook can hold (continuation tabs, blank rows,
extra columns, appended rows) is edited in the exported workbook."""

from __future__ import annotations

import uuid
from pathlib import Path

import openpyxl
import pytest

from exporters import write_excel
from harness.audit import audit_frames, audit_workbook

from .conftest import (
    UNKNOWN_MODEL,
    column_number,
    edit,
    edited_frames,
    frame_value,
    where,
)


def _shift(value: float, by: float = 0.1) -> float:
    return round(value - by if value >= by else value + by, 6)


@pytest.mark.parametrize(("sheet", "row", "column"), [
    ("tool_selections", 2, "precision"),
    ("tool_selections", 5, "recall"),
    ("llm_calls", 3, "input_cost"),
    ("llm_calls", 4, "total_cost"),
    ("evaluations", 6, "overall_score"),
    ("consistency_scores", 2, "score_std"),
    ("consistency_scores", 3, "overall_consistency"),
    ("cross_model_eval", 2, "credit_score_mean"),
    ("cross_model_eval", 3, "confidence_agreement"),
    ("llm_judge_results", 2, "overall_score"),
    ("agent_metrics", 7, "overall_score"),
    ("agent_metrics", 8, "tool_completeness"),
    ("runs", 9, "evaluation_score"),
    ("runs", 4, "total_cost"),
    ("evaluations", 5, "tool_selection_score"),
])
def test_an_edited_derived_number_is_one_finding_at_that_cell(frames, sheet: str, row: int, column: str) -> None:
    old = frame_value(frames, sheet, row, column)
    findings = audit_frames(edited_frames(frames, (sheet, row, column,
                                                   _shift(old, 0.01 if "cost" in column else 0.1)))).findings
    assert [(f.sheet, f.row, f.column) for f in findings] == [(sheet, row, column)]
    assert findings[0].expected == pytest.approx(old)


@pytest.mark.parametrize(("sheet", "column", "value"), [
    ("runs", "total_steps", 7),
    ("runs", "total_llm_calls", 4),
    ("runs", "total_tokens", 1),
    ("runs", "tools_used", '["web_search"]'),
    ("runs", "credit_score", 301),
    ("log_tests", "tool_calls", 9),
    ("log_tests", "total_sheets_logged", 2),
    ("log_tests", "verification_status", "partial"),
    ("evaluations", "eval_status", "average"),
    ("consistency_scores", "num_runs", 5),
    ("cross_model_eval", "num_models", 3),
    ("llm_calls", "total_tokens", 1),
])
def test_an_edited_count_or_label_is_one_finding_at_that_cell(frames, sheet: str, column: str, value: object) -> None:
    if column == "eval_status":
        value = "average" if frame_value(frames, sheet, 2, column) != "average" else "bad"
    findings = audit_frames(edited_frames(frames, (sheet, 2, column, value))).findings
    assert [(f.sheet, f.row, f.column) for f in findings] == [(sheet, 2, column)]


def test_tolerance_decides_whether_a_small_difference_counts(frames) -> None:
    old = frame_value(frames, "tool_selections", 2, "f1_score")
    edited = edited_frames(frames, ("tool_selections", 2, "f1_score", old - 1e-7))
    assert audit_frames(edited).findings == ()
    assert len(audit_frames(edited, tolerance=1e-9).findings) == 1


def _row(frames, sheet: str, column: str, value: object) -> int:
    return int(frames[sheet].index[frames[sheet][column] == value][0]) + 2


def test_a_cost_for_a_model_without_a_price_is_a_finding(frames) -> None:
    row = _row(frames, "llm_calls", "model", UNKNOWN_MODEL)
    assert frame_value(frames, "llm_calls", row, "input_cost") != frame_value(frames, "llm_calls", row, "input_cost")
    (finding,) = audit_frames(edited_frames(frames, ("llm_calls", row, "input_cost", 0.0001))).findings
    assert (finding.sheet, finding.row, finding.column, finding.expected) == ("llm_calls", row, "input_cost", None)
    assert "no price for this model" in finding.rule


def test_a_failed_judge_with_an_overall_score_is_a_finding(frames) -> None:
    row = _row(frames, "llm_judge_results", "status", "error")
    findings = audit_frames(edited_frames(frames, ("llm_judge_results", row, "overall_score", 0.5))).findings
    assert where(findings) == {("llm_judge_results", row, "overall_score", "recompute")}


def test_consistency_recomputed_from_its_risk_levels_text(frames) -> None:
    levels = frame_value(frames, "consistency_scores", 2, "risk_levels").split(", ")
    if len(set(levels)) == 1:  # all agree: make one differ; else make all agree
        levels[0] = "CRITICAL" if levels[0] != "CRITICAL" else "LOW"
    else:
        levels = [levels[0]] * len(levels)
    edited = edited_frames(frames, ("consistency_scores", 2, "risk_levels", ", ".join(levels)))
    columns = {f.column for f in audit_frames(edited).findings}
    assert "risk_level_consistency" in columns and columns <= {"risk_level_consistency", "overall_consistency",
                                                               "eval_status"}


def test_score_out_of_range_is_a_type_finding(frames) -> None:
    findings = audit_frames(edited_frames(frames, ("llm_judge_results", 3, "accuracy_score", 1.7))).findings
    assert ("llm_judge_results", 3, "accuracy_score", "type") in where(findings)
    assert any(f.expected == "a number in [0, 1]" for f in findings)


def test_credit_score_out_of_range_is_a_type_finding(frames) -> None:
    findings = audit_frames(edited_frames(frames, ("assessments", 2, "credit_score", 900))).findings
    assert ("assessments", 2, "credit_score", "type") in where(findings)


def test_text_in_a_timestamp_column_is_a_type_finding(workbook: Path) -> None:
    edit(workbook, ("runs", 3, "started_at", "yesterday"))
    assert where(audit_workbook(workbook).findings) == {("runs", 3, "started_at", "type")}


def test_a_malformed_run_id_is_a_type_finding(frames) -> None:
    findings = audit_frames(edited_frames(frames, ("prompts", 2, "run_id", "run-1"))).findings
    assert ("prompts", 2, "run_id", "type") in where(findings)


def test_a_run_id_unknown_to_runs_is_a_reference_finding(frames) -> None:
    owner = frame_value(frames, "data_sources", 2, "run_id")
    findings = audit_frames(edited_frames(frames, ("data_sources", 2, "run_id", str(uuid.uuid4())))).findings
    assert where(findings) == {
        ("data_sources", 2, "run_id", "reference"),
        ("log_tests", _row(frames, "log_tests", "run_id", owner), "data_sources", "cross-sheet"),
    }


def test_a_duplicated_row_is_a_finding(workbook: Path) -> None:
    book = openpyxl.load_workbook(workbook)
    ws = book["plans"]
    ws.append([c.value for c in ws[3]])
    book.save(workbook)
    findings = audit_workbook(workbook).findings
    duplicate = [f for f in findings if f.kind == "duplicate"]
    assert [(f.sheet, f.row, f.found) for f in duplicate] == [("plans", ws.max_row, "duplicate of row 3")]


def test_continuation_sheets_are_merged_and_findings_name_their_tab(tmp_path: Path, clean_store) -> None:
    path = tmp_path / "split.xlsx"
    written = write_excel(clean_store, path, max_rows_per_sheet=101)
    assert "langgraph_events_3" in written.worksheets
    clean = audit_workbook(path)
    assert clean.findings == () and clean.rows["langgraph_events"] == 240
    edit(path, ("langgraph_events_2", 7, "step_number", -1))
    findings = audit_workbook(path).findings
    assert ("langgraph_events_2", 7, "step_number", "type") in where(findings)


def test_blank_rows_are_skipped_and_rows_keep_their_excel_numbers(workbook: Path) -> None:
    book = openpyxl.load_workbook(workbook)
    ws = book["tool_selections"]
    ws.insert_rows(4)
    f1 = ws.cell(row=6, column=column_number(ws, "f1_score"))
    f1.value = _shift(f1.value)
    book.save(workbook)
    assert where(audit_workbook(workbook).findings) == {("tool_selections", 6, "f1_score", "recompute")}


def test_extra_trailing_columns_are_allowed(workbook: Path) -> None:
    book = openpyxl.load_workbook(workbook)
    ws = book["runs"]
    extra = ws.max_column + 1
    ws.cell(row=1, column=extra).value = "reviewer_note"
    ws.cell(row=2, column=extra).value = "looked fine"
    book.save(workbook)
    assert audit_workbook(workbook).findings == ()
