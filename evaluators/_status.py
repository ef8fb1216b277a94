"""Score -> label mappings: eval_status (the sheets' spec: good >= 0.80, average >= 0.60)."""

from __future__ import annotations

from typing import Any, Literal

from ._checks import is_missing, unit

EvalStatus = Literal["good", "average", "bad"]

GOOD_THRESHOLD = 0.80
AVERAGE_THRESHOLD = 0.60


def eval_status(score: Any) -> EvalStatus | None:
    """``good`` if score >= 0.80, ``average`` if >= 0.60, else ``bad`` (every score sheet).

    None or NaN (not scored) -> None, never a label. A score outside [0, 1] is a ValueError.
    """
    if is_missing(score):
        return None
    x = unit("score", score)
    if x >= GOOD_THRESHOLD:
        return "good"
    if x >= AVERAGE_THRESHOLD:
        return "average"
    return "bad"
