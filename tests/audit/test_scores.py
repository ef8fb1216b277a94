"""The scores sheet in an audit: its cells are checked, and each run's pass is recomputed from it
with the one definition (evaluators.run_passed), which the pass rates, pass@k and cost of pass use."""

from __future__ import annotations


import openpyxl
import pytest

from harness import Harness
from harness.audit import audit_frames, audit_workbook

from .conftest import edit, edited_frames, row_of


def test_a_clean_workbook_has_its_scores_audited_without_findings(workbook) -> None:
    result = audit_workbook(workbook)
    assert result.findings == () and result.rows["scores"] == 12 * 6
    # (a run that also called a model without a price counts in that model's group too)
    assert {g.key: g.judged for g in result.aggregates.by_model} == {
        "llama-3.3-70b-versatile": 6, "llama-3.1-8b-instant": 6, "house-model-x": 1}


def test_a_pass_edited_in_the_scores_sheet_makes_the_runs_pass_wrong(workbook) -> None:
    row = row_of(workbook, "scores", "name", "log_test")
    edit(workbook, ("scores", row, "passed", 0))
    findings = audit_workbook(workbook).findings
    assert [(f.sheet, f.column, f.found, f.expected) for f in findings] == [("runs", "passed", 1, 0)]
    assert "evaluators.run_passed" in findings[0].rule


def test_a_runs_pass_that_its_scores_do_not_give_is_a_finding(frames) -> None:
    findings = audit_frames(edited_frames(frames, ("runs", 3, "passed", 0))).findings
    assert [(f.sheet, f.row, f.column, f.expected) for f in findings] == [("runs", 3, "passed", 1)]


@pytest.mark.parametrize(("column", "value", "expected"), [
    ("source", "robot", "one of rule, llm, code, human"),
    ("passed", 2, "in [0, 1]"),
    ("value", "high", "a number"),
    ("run_id", "0c4e8f3a-5b7d-4e21-9a6f-2d8b1c3e4f50", "a run_id of the runs sheet"),  # a run the sheet lacks
])
def test_a_bad_score_cell_is_a_finding_at_that_cell(frames, column, value, expected) -> None:
    findings = [f for f in audit_frames(edited_frames(frames, ("scores", 4, column, value))).findings
                if f.sheet == "scores"]
    assert [(f.sheet, f.row, f.column) for f in findings] == [("scores", 4, column)]
    assert expected in findings[0].expected


def test_an_older_export_without_a_scores_sheet_is_still_audited(workbook) -> None:
    book = openpyxl.load_workbook(workbook)
    del book["scores"]
    book.save(workbook)
    result = audit_workbook(workbook)
    assert result.findings == () and "scores" not in result.rows
    assert {g.key: g.judged for g in result.aggregates.by_model} == {  # the credit runs' evaluation and log test
        "llama-3.3-70b-versatile": 6, "llama-3.1-8b-instant": 6, "house-model-x": 1}


def test_traced_runs_outside_experiments_have_no_pass_and_no_cost_of_pass(tmp_path) -> None:
    from tests.harness import graphs

    h = Harness(tmp_path / "runs.db", writer="inline")
    for _ in range(3):
        with h.run(subject="Acme", expected_tools=["lookup"]) as run:
            graphs.sequential().invoke({"question": "Acme"}, run.config)
    result = audit_frames(h.sheets())
    assert result.findings == ()
    (group,) = result.aggregates.by_model
    assert (group.runs, group.judged, group.pass_rate, group.cost_of_pass) == (3, 0, None, None)
    assert result.aggregates.pass_k == ()
