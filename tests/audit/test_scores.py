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


def test_a_pass_edited_in_the_scores_sheet_against_its_value_is_one_finding_there(workbook) -> None:
    """A log test valued 1 passes: the pass cell edited to 0 is the finding; the run's pass is
    recomputed from what the score's value gives, so it stands."""
    row = row_of(workbook, "scores", "name", "log_test")
    edit(workbook, ("scores", row, "passed", 0))
    findings = audit_workbook(workbook).findings
    assert [(f.sheet, f.row, f.column, f.found, f.expected) for f in findings] == [("scores", row, "passed", 0, 1)]
    assert "evaluators.expected_pass(log_test" in findings[0].rule


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


def _experiment_frames(tmp_path):
    """An experiment of the capital agent (its answer checks) scored by a user's scorer."""
    from tests.experiment.agents import react_agent
    from tests.experiment.test_runner import capital_cases

    def short(run, case):
        return len((run.answer or "").split()) < 12

    h = Harness(tmp_path / "runs.db", writer="inline")
    h.experiment("exp", react_agent(), capital_cases(2), context={"wrong": False}, scorers=[short])
    frames = h.sheets()
    h.close()
    return frames


def _row(frames, run_id, name) -> int:
    scores = frames["scores"]
    return next(i for i, (run, n) in enumerate(zip(scores["run_id"], scores["name"]), start=2)
                if run == run_id and n == name)


def test_an_answer_score_whose_pass_contradicts_its_value_and_threshold_is_a_finding(tmp_path) -> None:
    frames = _experiment_frames(tmp_path)
    assert audit_frames(frames).findings == ()
    run_id = frames["runs"]["run_id"][0]
    row = _row(frames, run_id, "answer")
    findings = audit_frames(edited_frames(frames, ("scores", row, "value", 0.0))).findings
    assert [(f.sheet, f.row, f.column, f.found, f.expected) for f in findings] == [
        ("runs", 2, "passed", 1, 0), ("scores", row, "passed", 1, 0)]
    assert "expected_pass(answer, its value, threshold 1)" in findings[1].rule


def test_a_pass_no_rule_decides_is_taken_as_the_sheet_gives_it(tmp_path) -> None:
    """A user's scorer decides its own pass: edited, the run's pass no longer follows from it."""
    frames = _experiment_frames(tmp_path)
    run_id = frames["runs"]["run_id"][0]
    findings = audit_frames(edited_frames(frames, ("scores", _row(frames, run_id, "short"), "passed", 0))).findings
    assert [(f.sheet, f.column, f.found, f.expected) for f in findings] == [("runs", "passed", 1, 0)]
    assert "evaluators.run_passed" in findings[0].rule


def test_a_scores_experiment_and_case_are_its_runs(tmp_path) -> None:
    frames = _experiment_frames(tmp_path)
    run_id = frames["runs"]["run_id"][0]
    row = _row(frames, run_id, "completed")
    findings = audit_frames(edited_frames(frames, ("scores", row, "experiment", "other"),
                                          ("scores", row, "case_id", "q9"))).findings
    assert [(f.column, f.found, f.expected) for f in findings] == [("experiment", "other", "exp"),
                                                                   ("case_id", "q9", "q0")]


def test_a_models_mean_cost_is_over_its_priced_runs_and_says_how_many_were_not(frames) -> None:
    from harness.audit._html import render_html

    calls = frames["llm_calls"]
    model = "llama-3.3-70b-versatile"
    first = next(i for i, (m, kind) in enumerate(zip(calls["model"], calls["call_type"])) if m == model
                 and kind != "llm_judge")
    unpriced_run = calls["run_id"][first]
    result = audit_frames(edited_frames(frames, ("llm_calls", first + 2, "total_cost", None)))
    (group,) = [g for g in result.aggregates.by_model if g.key == model]
    costs = {}
    for run, m, cost, kind in zip(calls["run_id"], calls["model"], calls["total_cost"], calls["call_type"]):
        if m == model and kind != "llm_judge" and run != unpriced_run:
            costs[run] = costs.get(run, 0.0) + cost
    assert group.unpriced == 1 and group.mean_cost == pytest.approx(sum(costs.values()) / len(costs))
    assert group.cost_of_pass is None  # the unpriced run has a pass: its cost is not known
    assert "(1 unpriced)" in render_html(result)
