"""The pass a score's value gives it, where a rule decides it: what the audit checks a score's
``passed`` against."""

from __future__ import annotations

from typing import Any

from ._status import eval_status

#: Built-in checks that pass exactly when their value is 1 (a yes/no check: value 1 or 0).
PASS_AT_ONE = frozenset({"completed", "tool_f1", "log_test"})
_EPSILON = 1e-12


def expected_pass(name: str, source: str | None, value: float | None, passed: Any, *,
                  threshold: float | None = None) -> bool | None:
    """The pass ``value`` gives a score that gates its run, where a rule decides it:

    - ``completed``, ``tool_f1`` (when it gates: a case that requires its tools) and
      ``log_test`` pass at 1;
    - ``evaluation`` passes when its eval_status is ``good`` (value >= 0.80);
    - ``answer`` passes at its case's ``threshold`` (:func:`answer_threshold`);
    - a person's pass/fail label (source ``human``, value 1 or 0) passes at 1.

    None where the value does not decide it: a score that does not gate (``passed`` empty),
    one without a value (it could not be made), a user's scorer (its pass is its own), an
    answer check whose threshold is not known, a value outside its range."""
    if passed is None or value is None:
        return None
    if source == "human":
        return value >= 1 if value in (0, 1) else None
    if source not in ("rule", "llm"):
        return None
    if name in PASS_AT_ONE:
        return value >= 1.0 - _EPSILON
    if name == "evaluation":
        try:
            return eval_status(value) == "good"
        except ValueError:
            return None
    if name == "answer" and threshold is not None:
        return value >= threshold - _EPSILON
    return None
