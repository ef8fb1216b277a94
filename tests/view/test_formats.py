"""Numbers for people: positional, never scientific notation."""

import math

from hypothesis import given, strategies as st

from harness.view.formats import abbreviate, duration, money, number, score


def test_numbers_are_positional_with_thousands_separators():
    assert number(230.456) == "230.5"
    assert number(1234567) == "1,234,567"
    assert number(23456.7) == "23,457"
    assert number(0.0000123456) == "0.00001235"
    assert number(2.5e-10) == "0"
    assert number(None) == "—" and number(float("nan")) == "—" and number(float("inf")) == "∞"


@given(st.floats(min_value=1e-8, max_value=1e15) | st.floats(min_value=-1e15, max_value=-1e-8),
       st.integers(min_value=1, max_value=6))
def test_a_number_reads_back_within_its_significant_digits_and_never_in_scientific_notation(value, digits):
    text = number(value, digits)
    assert "e" not in text.lower()
    back = float(text.replace(",", ""))
    assert math.isclose(back, value, rel_tol=0.5 * 10 ** (1 - digits) + 1e-12)


def test_durations_money_and_scores():
    assert [duration(v) for v in (0.4213, 26.61, 1250.0, 125_000.0, None)] == [
        "0.421 ms", "26.6 ms", "1.25 s", "2 m 05 s", "—"]
    assert money(0.0000169) == "$0.0000169" and money(0.0) == "$0" and money(None) == "—"
    assert score(0.8333) == "0.83" and score(None) == "—"


def test_abbreviate_keeps_one_line_and_marks_the_cut():
    assert abbreviate("a\n  b") == "a b"
    assert abbreviate({"query": "x" * 100}, 20) == '{"query":"xxxxxxxxx…'
    assert len(abbreviate("y" * 100, 20)) == 20 and abbreviate(None) == ""
