"""Multi-turn cases: what each turn is expected to do, and the case's verdict on its turns.

A multi-turn case (:class:`~.dataset.Case` with ``turns``) is played in order on one fresh
thread, a run per turn (:mod:`.runner`). A turn is expected to stop at an interrupt when the
case says so (``interrupt``), else exactly when the next turn answers one (``resume``). The
first turn that fails, stops at an interrupt the case does not expect, or finishes where the
case expects an interrupt ends the case there: the rest of the conversation would not be the
one the case describes. The verdict is the ``turns`` score of the case's last run (rule):
value = the share of the case's turns that did what it expects, passed when all did, and the
reason in words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..tracing.encode import payload_text
from .dataset import Case


def asked_of(output: Any) -> list[Any] | None:
    """What a graph's output says it stopped at: the values of its ``__interrupt__`` (LangGraph's
    result of an interrupted invocation), or None when it did not stop at one."""
    found = output.get("__interrupt__") if isinstance(output, Mapping) else None
    if not found:
        return None
    return [getattr(i, "value", i) for i in found]


def turn_case(case: Case, index: int) -> Case | None:
    """The answer check of turn ``index`` as a case of its own: the turn's reference, else for
    the last turn the case's; None when the turn has none."""
    turn = (case.turns or ())[index]
    if turn.reference_answer is not None:
        return dataclasses.replace(case, reference_answer=turn.reference_answer, answer_check=turn.answer_check,
                                   tolerance=turn.tolerance, threshold=turn.threshold)
    if index == len(case.turns or ()) - 1 and case.reference_answer is not None:
        return case
    return None


def _glance(value: Any, limit: int) -> str:
    """``value`` as one line of at most ``limit`` characters (text, else its JSON), ``…`` where cut."""
    line = " ".join(payload_text(value).split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


class TurnsVerdict:
    """The case's verdict on its turns, as they are played (module doc)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.good = 0
        self.reason: str | None = None

    @property
    def stopped(self) -> bool:
        return self.reason is not None

    def played(self, index: int, *, ok: bool, asked: list[Any] | None, expected: bool, error: str | None) -> None:
        """Turn ``index`` (0-based) ended: completed or not (``error``), stopping at the
        interrupts ``asked`` or at none; the case ``expected`` it to stop at one or not."""
        turn = f"turn {index + 1} of {self.total}"
        if not ok:
            self.reason = f"{turn} failed: {_glance(error or 'it did not complete', 300)}"
        elif asked and not expected:
            self.reason = (f"{turn} stopped at an interrupt the case does not expect (it asked "
                           f"{_glance(asked[0], 120)})")
        elif expected and not asked:
            self.reason = f"{turn} finished without stopping at the interrupt the case expects"
        else:
            self.good += 1

    def score(self) -> dict[str, Any]:
        """The ``turns`` score: value, passed, explanation."""
        if self.reason is None and self.good == self.total:
            said = f"all {self.total} turns did what the case expects"
        else:
            said = self.reason or f"{self.good} of {self.total} turns played"
        return {"value": self.good / self.total if self.total else 1.0, "passed": self.good == self.total,
                "explanation": said}
