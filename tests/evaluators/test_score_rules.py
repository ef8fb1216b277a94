"""The pass a score's value gives it, where a rule decides it (what the audit checks a score's
pass against)."""

from __future__ import annotations

import pytest

from evaluators import expected_pass


@pytest.mark.parametrize(("name", "source", "value", "passed", "threshold", "expected"), [
    ("completed", "rule", 1.0, 1, None, True), ("completed", "rule", 0.0, 1, None, False),
    ("tool_f1", "rule", 0.5, 0, None, False), ("tool_f1", "rule", 0.5, None, None, None),  # does not gate
    ("log_test", "rule", 1.0, 0, None, True),
    ("evaluation", "rule", 0.8, 0, None, True), ("evaluation", "rule", 0.79, 1, None, False),
    ("answer", "rule", 0.0, 1, 1.0, False), ("answer", "llm", 0.85, 0, 0.8, True),
    ("answer", "rule", 0.5, 1, None, None),  # its threshold unknown
    ("answer", "rule", None, 0, 1.0, None),  # could not be scored
    ("reviewed", "human", 1.0, 0, None, True), ("tone", "human", 4.0, None, None, None),
    ("short", "code", 12.0, 1, None, None),  # a user's scorer decides its own pass
])
def test_the_pass_a_scores_value_gives_where_a_rule_decides_it(name, source, value, passed, threshold, expected):
    assert expected_pass(name, source, value, passed, threshold=threshold) is expected
