"""The judges' agreement with people, recomputed from the scores sheet.

A workbook does not say which label checks which score, so every pairing the sheet can
support is measured: each people's label (source ``human``) against each judge's or
scorer's score (source ``llm`` or ``code``) that at least :data:`MIN_SHARED` of its runs
also have, with :func:`evaluators.agreement` (the same figures as ``harness agreement``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import evaluators

from ._values import number_or_none

#: Runs a score and a label must share to be measured against each other.
MIN_SHARED = 5


def agreements(judgements: Sequence[tuple[Any, ...]]) -> tuple[dict[str, Any], ...]:
    """``Agreement.to_dict()`` per (score, label) pair (module doc), the pairs over most runs first."""
    labels: dict[str, dict[str, dict[str, tuple[float | None, bool | None]]]] = defaultdict(dict)
    scores: dict[str, dict[str, tuple[float | None, bool | None]]] = defaultdict(dict)
    for run, name, value, passed, source, _, rater in judgements:
        judged = (number_or_none(value), _pass(passed))
        if source == "human":
            labels[name].setdefault(run, {})[rater if isinstance(rater, str) else ""] = judged
        else:
            scores[name][run] = judged
    found = []
    for label, by_run in labels.items():
        for score, values in scores.items():
            shared = [run for run in by_run if run in values]
            if len(shared) < MIN_SHARED:
                continue
            rated = [evaluators.Rated(run, values[run][0], values[run][1], by_run[run]) for run in shared]
            found.append(evaluators.agreement(rated, score=score, label=label).to_dict())
    return tuple(sorted(found, key=lambda a: (-a["n"], a["score"], a["label"])))


def _pass(value: Any) -> bool | None:
    number = number_or_none(value)
    return None if number is None else number == 1
