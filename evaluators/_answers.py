"""Checks of an agent's final answer against a dataset case's reference, and the case's pass rule.

Each check scores in [0, 1]:

- ``exact``: 1.0 when the answer equals a reference after trimming surrounding whitespace
  (case-sensitive), else 0.0.
- ``contains``: 1.0 when a reference occurs in the answer, ignoring case, else 0.0.
- ``regex``: 1.0 when the pattern (the reference) matches somewhere in the answer
  (:func:`re.search`), else 0.0.
- ``numeric``: 1.0 when the answer's number is within ``tolerance`` (absolute; default 0,
  i.e. equal up to float rounding) of the reference, else 0.0. The answer's number is the
  answer itself when it is a number, else the *last* number written in its text (``1,234.5``
  and ``-3e2`` read as numbers): agents state the result last ("... so the total is 42").
- ``semantic``: the embedding cosine of answer and reference (:func:`semantic_similarity`).
- ``judge``: the LLM judge's 0-10 correctness grade of the answer against the reference, / 10.

A model's score that is not a finite number (NaN, infinity) is an error, never a score.

For ``exact``, ``contains`` and ``regex`` the reference may be a list of acceptable answers:
the best score over them counts. A check of a missing answer (the run produced none) scores 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ._text import semantic_similarity

ANSWER_CHECKS = ("exact", "contains", "regex", "numeric", "semantic", "judge")
#: The score an answer must reach to pass, per check, when the case sets no ``threshold``.
GRADED_CHECKS = frozenset({"semantic", "judge"})  # scores between 0 and 1; the rest are 0 or 1
DEFAULT_THRESHOLDS = {"exact": 1.0, "contains": 1.0, "regex": 1.0, "numeric": 1.0, "semantic": 0.8, "judge": 0.8}

_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?")


def default_check(reference: Any) -> str:
    """The check of a case that names a reference but no ``answer_check``: ``numeric`` for a
    number, else ``contains`` (agents answer in sentences; ``exact`` is asked for by name)."""
    return "numeric" if isinstance(reference, (int, float)) and not isinstance(reference, bool) else "contains"


def last_number(answer: Any) -> float | None:
    """The answer as a number: itself when it is one, else the last number in its text."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, (int, float)):
        return float(answer)
    if not isinstance(answer, str):
        return None
    found = [m.group(0) for m in _NUMBER.finditer(answer) if any(ch.isdigit() for ch in m.group(0))]
    if not found:
        return None
    try:
        return float(found[-1].replace(",", ""))
    except ValueError:
        return None


def _alternatives(reference: Any) -> list[str]:
    items = reference if isinstance(reference, (list, tuple)) else [reference]
    return [str(r) for r in items]


def check_answer(check: str, answer: str | None, reference: Any, *, tolerance: float | None = None,
                 judge: Callable[[str, str], float] | None = None) -> float:
    """The score of ``answer`` under ``check`` (rules in the module doc).

    ``judge(answer, reference) -> score in [0, 1]`` grades the ``judge`` check; it is the
    caller's (a model call). Unknown check -> ValueError.
    """
    if check not in ANSWER_CHECKS:
        raise ValueError(f"answer_check must be one of {', '.join(ANSWER_CHECKS)}, not {check!r}")
    if answer is None:
        return 0.0
    if check == "numeric":
        got, want = last_number(answer), last_number(reference)
        if got is None or want is None:
            return 0.0
        allowed = float(tolerance or 0.0)
        return 1.0 if abs(got - want) <= allowed or math.isclose(got, want, rel_tol=1e-9) else 0.0
    if check == "semantic":
        return _finite(max(semantic_similarity(answer, ref) for ref in _alternatives(reference)), "similarity")
    if check == "judge":
        if judge is None:
            raise ValueError("the judge check needs a judge")
        return max(0.0, min(1.0, _finite(float(judge(answer, str(reference))), "judge's grade")))
    refs = _alternatives(reference)
    if check == "exact":
        return 1.0 if answer.strip() in {r.strip() for r in refs} else 0.0
    if check == "contains":
        low = answer.casefold()
        return 1.0 if any(r.casefold() in low for r in refs) else 0.0
    return 1.0 if any(re.search(r, answer) for r in refs) else 0.0


def _finite(score: float, what: str) -> float:
    """A model's score as it is, or ValueError when it is NaN or infinite: clamping NaN to
    [0, 1] would make it 1.0, a pass."""
    if not math.isfinite(score):
        raise ValueError(f"the {what} is not a finite number ({score})")
    return score


def token_f1(answer: str, reference: str) -> float:
    """F1 of the lower-cased word tokens of two texts (SQuAD's answer overlap); both empty -> 1.0."""
    a, b = re.findall(r"\w+", answer.lower()), re.findall(r"\w+", reference.lower())
    if not a or not b:
        return 1.0 if not a and not b else 0.0
    common = sum(min(a.count(w), b.count(w)) for w in set(a) & set(b))
    if common == 0:
        return 0.0
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


def answer_threshold(check: str, threshold: float | None) -> float:
    """The score ``check`` must reach: 1.0 for the yes/no checks, the case's threshold (else
    0.8) for ``semantic`` and ``judge``."""
    if check in GRADED_CHECKS and threshold is not None:
        return float(threshold)
    return DEFAULT_THRESHOLDS[check]
