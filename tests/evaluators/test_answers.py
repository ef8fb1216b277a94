"""Answer checks of dataset cases and the pass rule (evaluators._answers)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators import (
    ANSWER_CHECKS, answer_threshold, check_answer, default_check, last_number, token_f1,
)


def test_exact_trims_whitespace_and_is_case_sensitive():
    assert check_answer("exact", "  Paris\n", "Paris") == 1.0
    assert check_answer("exact", "paris", "Paris") == 0.0


def test_contains_ignores_case_and_accepts_any_alternative():
    assert check_answer("contains", "The capital is PARIS.", "paris") == 1.0
    assert check_answer("contains", "It is Lyon.", ["Paris", "Lyon"]) == 1.0
    assert check_answer("contains", "It is Nice.", ["Paris", "Lyon"]) == 0.0


def test_regex_searches_anywhere():
    assert check_answer("regex", "order #A-1234 shipped", r"#A-\d{4}") == 1.0
    assert check_answer("regex", "order shipped", r"#A-\d{4}") == 0.0


def test_numeric_reads_the_last_number_with_thousands_separators():
    assert check_answer("numeric", "from 12 items, the total is 1,234.5", 1234.5) == 1.0
    assert check_answer("numeric", "the total is 1,234.5 from 12 items", 1234.5) == 0.0


def test_numeric_tolerance_is_absolute():
    assert check_answer("numeric", "about 3.14", 3.14159, tolerance=0.01) == 1.0
    assert check_answer("numeric", "about 3.1", 3.14159, tolerance=0.01) == 0.0


def test_a_missing_answer_scores_zero():
    for check in ("exact", "contains", "regex", "numeric"):
        assert check_answer(check, None, "1") == 0.0


def test_judge_check_is_the_judges_grade_clamped():
    assert check_answer("judge", "x", "y", judge=lambda a, r: 0.7) == 0.7
    assert check_answer("judge", "x", "y", judge=lambda a, r: 3.0) == 1.0


@pytest.mark.parametrize("grade", [math.nan, math.inf, -math.inf])
def test_a_judge_grade_that_is_not_a_number_is_an_error_never_a_pass(grade):
    # min(1.0, nan) is 1.0: clamped, a NaN grade would pass every case.
    with pytest.raises(ValueError, match="not a finite number"):
        check_answer("judge", "x", "y", judge=lambda a, r: grade)


def test_unknown_check_is_refused():
    with pytest.raises(ValueError, match="answer_check must be one of"):
        check_answer("fuzzy", "a", "b")


def test_default_check_is_numeric_for_numbers_else_contains():
    assert default_check(42) == "numeric"
    assert default_check("Paris") == "contains"
    assert default_check(True) == "contains"


def test_thresholds_apply_to_graded_checks_only():
    assert answer_threshold("semantic", None) == 0.8
    assert answer_threshold("judge", 0.6) == 0.6
    assert answer_threshold("exact", 0.5) == 1.0


@given(st.sampled_from([c for c in ANSWER_CHECKS if c not in ("semantic", "judge")]),
       st.text(max_size=40), st.text(min_size=1, max_size=20).filter(lambda t: t.isprintable()))
def test_scores_are_zero_or_one_for_yes_no_checks(check, answer, reference):
    import re

    reference = re.escape(reference) if check == "regex" else reference
    assert check_answer(check, answer, reference) in (0.0, 1.0)


@given(st.text(max_size=60), st.text(max_size=60))
def test_token_f1_is_bounded_and_symmetric(a, b):
    assert 0.0 <= token_f1(a, b) <= 1.0
    assert token_f1(a, b) == pytest.approx(token_f1(b, a))


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12))
def test_a_number_written_plainly_reads_back(x):
    assert last_number(f"the answer is {x!r}") == pytest.approx(x)
