"""``log_tests``: did every sheet the run needs get its rows?

``pass`` when every sheet the run's profile requires has at least one row and every count
equals what the harness wrote; ``partial`` when some are missing or short; ``fail`` when
the ``runs`` row itself is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..schema import COUNTED_SHEETS

#: Sheets each profile requires. A generic wrapped run needs its trace; the evaluation
#: sheets are added when the run was given expected tools / a reference trajectory.
PROFILES: dict[str, tuple[str, ...]] = {
    "generic": ("runs", "langgraph_events"),
    "credit": (
        "runs", "langgraph_events", "llm_calls", "prompts", "plans", "tool_calls", "data_sources",
        "assessments", "tool_selections", "evaluations", "agent_metrics",
    ),
}


def verification_status(
    counts: Mapping[str, int], required: Iterable[str], written: Mapping[str, int] | None = None
) -> str:
    """``fail`` without a runs row; ``partial`` if a required sheet is empty or any count
    differs from ``written`` (rows the harness wrote, when known); else ``pass``."""
    if counts.get("runs", 0) < 1:
        return "fail"
    if any(counts.get(name, 0) < 1 for name in required):
        return "partial"
    if written is not None and any(counts.get(name, 0) != n for name, n in written.items()):
        return "partial"
    return "pass"


def total_sheets_logged(counts: Mapping[str, int]) -> int:
    return sum(1 for name in COUNTED_SHEETS if counts.get(name, 0) > 0)
