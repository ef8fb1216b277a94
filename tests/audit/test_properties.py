"""Properties over random single edits of the store's frames: an edited derived value is
found exactly where it was edited, and a change within the tolerance is never found."""

from __future__ import annotations

import math

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.audit import audit_frames
from harness.schema import COUNTED_SHEETS

DERIVED_NUMBERS = (
    ("tool_selections", "precision"), ("tool_selections", "recall"), ("tool_selections", "f1_score"),
    ("llm_calls", "input_cost"), ("llm_calls", "output_cost"), ("llm_calls", "total_cost"),
    ("evaluations", "tool_selection_score"), ("evaluations", "overall_score"),
    ("consistency_scores", "risk_level_consistency"), ("consistency_scores", "score_consistency"),
    ("consistency_scores", "score_std"), ("consistency_scores", "overall_consistency"),
    ("cross_model_eval", "risk_level_agreement"), ("cross_model_eval", "credit_score_mean"),
    ("cross_model_eval", "credit_score_std"), ("cross_model_eval", "credit_score_range"),
    ("cross_model_eval", "confidence_agreement"), ("cross_model_eval", "cross_model_agreement"),
    ("llm_judge_results", "overall_score"),
    ("agent_metrics", "tool_choice_correctness"), ("agent_metrics", "tool_completeness"),
    ("agent_metrics", "trajectory_match"), ("agent_metrics", "overall_score"),
    ("runs", "evaluation_score"), ("runs", "confidence"), ("runs", "total_cost"),
)
DERIVED_COUNTS = (
    ("llm_calls", "total_tokens"), ("runs", "total_steps"), ("runs", "total_llm_calls"), ("runs", "credit_score"),
    ("runs", "total_tokens"),
    ("consistency_scores", "num_runs"), ("cross_model_eval", "num_models"), ("log_tests", "total_sheets_logged"),
    *(("log_tests", name) for name in COUNTED_SHEETS),
)


def _filled_rows(frame: pd.DataFrame, column: str) -> list[int]:
    return [i for i, v in enumerate(frame[column]) if v is not None and not (isinstance(v, float) and math.isnan(v))]


def _edited(frames: dict[str, pd.DataFrame], sheet: str, column: str, pick: int, change) -> tuple[dict, int]:
    copy = {name: frame.copy() for name, frame in frames.items()}
    rows = _filled_rows(copy[sheet], column)
    i = rows[pick % len(rows)]
    copy[sheet] = copy[sheet].astype({column: object})
    copy[sheet].at[i, column] = change(copy[sheet].at[i, column])
    return copy, i + 2  # Excel numbering: the header is row 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.sampled_from(DERIVED_NUMBERS), pick=st.integers(0, 1000),
       delta=st.floats(1e-4, 0.5), sign=st.sampled_from((-1, 1)))
def test_an_edited_derived_number_is_found_only_where_it_was_edited(frames, target, pick, delta, sign) -> None:
    sheet, column = target
    edited, row = _edited(frames, sheet, column, pick, lambda v: float(v) + sign * delta)
    findings = audit_frames(edited).findings
    assert findings
    assert {(f.sheet, f.row, f.column) for f in findings} == {(sheet, row, column)}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.sampled_from(DERIVED_COUNTS), pick=st.integers(0, 1000), delta=st.integers(1, 40))
def test_an_edited_count_is_found_only_where_it_was_edited(frames, target, pick, delta) -> None:
    sheet, column = target
    edited, row = _edited(frames, sheet, column, pick, lambda v: int(v) + delta)
    findings = audit_frames(edited).findings
    assert findings
    assert {(f.sheet, f.row, f.column) for f in findings} == {(sheet, row, column)}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.sampled_from(DERIVED_NUMBERS), pick=st.integers(0, 1000), delta=st.floats(-9e-7, 9e-7))
def test_a_change_within_the_tolerance_is_never_a_finding(frames, target, pick, delta) -> None:
    sheet, column = target
    # towards the inside of the range, so the edit cannot leave [0, 1] or go negative
    edited, _ = _edited(frames, sheet, column, pick,
                        lambda v: float(v) - abs(delta) if float(v) >= 1e-6 else float(v) + abs(delta))
    assert audit_frames(edited, tolerance=1e-6).findings == ()


_ANY_CELL = st.one_of(
    st.none(), st.text(max_size=30), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "[", "{}", "[1, 2]", '["x", ""]', "LOW, HIGH", "nan", "inf", "-1", "2026-13-40",
                     '{"a": [1, 2]}', "…[truncated, 99 chars]"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sheet=st.sampled_from(sorted(COUNTED_SHEETS) + ["log_tests"]), column_pick=st.integers(0, 100),
       pick=st.integers(0, 1000), value=_ANY_CELL)
def test_any_single_cell_edit_is_audited_without_crashing(frames, sheet, column_pick, pick, value) -> None:
    copy = {name: frame.copy() for name, frame in frames.items()}
    frame = copy[sheet]
    if frame.empty:
        return
    column = frame.columns[column_pick % len(frame.columns)]
    copy[sheet] = frame.astype({column: object})
    copy[sheet].at[pick % len(frame), column] = value
    result = audit_frames(copy)
    assert result.exit_code in (0, 1)
