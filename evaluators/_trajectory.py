"""Node trajectories: the observed path of a LangGraph run, and its match to a reference."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ._checks import names

ORDER_WEIGHT = 0.4
JACCARD_WEIGHT = 0.6


@dataclass(frozen=True, slots=True)
class TrajectoryMatch:
    jaccard: float
    order: float
    score: float
    strict: bool
    unordered: bool
    subset: bool
    superset: bool
    missing: tuple[str, ...]
    extra: tuple[str, ...]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (dynamic programming, O(|a|·|b|))."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def _multiset_minus(seq: Sequence[str], other: Counter[str]) -> tuple[str, ...]:
    """Items of ``seq`` left after removing ``other``'s counts, in ``seq`` order."""
    budget = Counter(other)
    out = []
    for x in seq:
        if budget[x] > 0:
            budget[x] -= 1
        else:
            out.append(x)
    return tuple(out)


def trajectory_match(actual: Sequence[str], expected: Sequence[str]) -> TrajectoryMatch:
    """Graded and boolean match of an actual node path against a reference path.

    ``jaccard = |set(A) ∩ set(E)| / |set(A) ∪ set(E)|``; ``order = LCS(A, E) / max(|A|, |E|)``;
    ``score = 0.6·jaccard + 0.4·order``. Both empty -> every score 1; one empty -> 0.
    Booleans: ``strict`` (same sequence), ``unordered`` (same multiset), ``subset``
    (A ⊆ E as multisets), ``superset`` (A ⊇ E). ``missing`` = E minus A and ``extra`` = A
    minus E as multisets, in path order (a node visited twice in E but once in A is
    missing once), so ``superset`` ⇔ no missing and ``subset`` ⇔ no extra.
    """
    a = names("actual", actual)
    e = names("expected", expected)
    if not a and not e:
        jaccard = order = 1.0
    else:
        sa, se = set(a), set(e)
        jaccard = len(sa & se) / len(sa | se)
        order = lcs_length(a, e) / max(len(a), len(e))
    ca, ce = Counter(a), Counter(e)
    missing = _multiset_minus(e, ca)
    extra = _multiset_minus(a, ce)
    score = min(1.0, JACCARD_WEIGHT * jaccard + ORDER_WEIGHT * order)
    return TrajectoryMatch(
        jaccard, order, score, a == e, ca == ce, not extra, not missing, missing, extra,
    )


def as_time(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"timestamp is not ISO-8601: {value!r}") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    raise ValueError(f"timestamp must be an ISO-8601 string or datetime, got {value!r}")


def event_int(row: Mapping[str, Any], key: str) -> int:
    value = row.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise ValueError(f"langgraph_events row needs an integer {key}, got {value!r} in {dict(row)!r}")


def text(value: Any) -> str | None:
    """A non-empty string, else None (rows read back from frames carry NaN/NA for empty)."""
    return value if isinstance(value, str) and value else None


def node_name(row: Mapping[str, Any]) -> str | None:
    return text(row.get("node")) or text(row.get("event_name"))


def is_node_start(row: Mapping[str, Any]) -> bool:
    """A node execution's start row (any depth); LangGraph's ``__start__``-style
    pseudo-nodes are not node executions."""
    name = node_name(row) or ""
    return (
        row.get("event_kind") == "node"
        and (text(row.get("event_type")) or "").endswith("_start")
        and not (name.startswith("__") and name.endswith("__"))
    )


def observed_trajectory(events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The observed sequence of top-level node visits of a run, from ``langgraph_events`` rows.

    Kept: node start rows (``event_kind == "node"``, ``event_type`` ending in ``_start``)
    of the top-level graph (``subgraph_depth == 0``). All executions of one node within one
    ``langgraph_step`` are one visit (parallel tool calls, ``Send`` fan-out). Visits are
    ordered by step, then by first start timestamp, then by name. So a ReAct agent that
    calls two tools at once, then one more, gives ``agent, tools, agent, tools, agent``.
    No rows -> ``[]``. A kept row without ``langgraph_step``/``timestamp`` is a ValueError.
    """
    first: dict[tuple[int, str], datetime] = {}
    for row in events:
        if not isinstance(row, Mapping):
            raise ValueError(f"langgraph_events rows must be mappings, got {row!r}")
        if not is_node_start(row) or event_int(row, "subgraph_depth") != 0:
            continue
        key = (event_int(row, "langgraph_step"), node_name(row) or "")
        when = as_time(row.get("timestamp"))
        if key not in first or when < first[key]:
            first[key] = when
    ordered = sorted(first.items(), key=lambda kv: (kv[0][0], kv[1], kv[0][1]))
    return [name for (_, name), _ in ordered]
