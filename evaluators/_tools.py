"""Tool-use metrics: set precision/recall/F1 on tool names, and call-level matching with
arguments (multisets, optimal assignment)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._checks import names

ArgsMode = Literal["exact", "subset", "superset", "ignore"]
ARGS_MODES: tuple[str, ...] = ("exact", "subset", "superset", "ignore")


@dataclass(frozen=True, slots=True)
class ToolSelection:
    correct: tuple[str, ...]  # sorted S ∩ E
    missing: tuple[str, ...]  # sorted E − S
    extra: tuple[str, ...]  # sorted S − E
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True, slots=True)
class ToolCallMatch:
    precision: float
    recall: float
    f1: float
    matched: tuple[tuple[int, int], ...]  # (actual index, expected index), by actual index
    unmatched_actual: tuple[int, ...]
    unmatched_expected: tuple[int, ...]


def prf(true_positives: int, n_selected: int, n_expected: int) -> tuple[float, float, float]:
    """Precision, recall, F1, with the project's edge cases for empty sets.

    ``P = tp/|S|`` (|S| = 0: 1 if |E| = 0 else 0); ``R = tp/|E|`` (|E| = 0: 1 if |S| = 0
    else 0); ``F1 = 2PR/(P+R)``, 0 when P + R = 0.
    """
    p = true_positives / n_selected if n_selected else (1.0 if n_expected == 0 else 0.0)
    r = true_positives / n_expected if n_expected else (1.0 if n_selected == 0 else 0.0)
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f1


def tool_selection(selected: Sequence[str], expected: Sequence[str]) -> ToolSelection:
    """Precision/recall/F1 of the selected tool names against the expected ones, as sets.

    ``C = S ∩ E``, ``P = |C|/|S|``, ``R = |C|/|E|``, ``F1 = 2PR/(P+R)``. Duplicates are
    ignored (a tool is chosen or not). Empty S: P = 1 if E is empty else 0; empty E: R = 1
    if S is empty else 0; both empty -> P = R = F1 = 1; F1 = 0 when P + R = 0.
    """
    s = set(names("selected", selected))
    e = set(names("expected", expected))
    c = s & e
    p, r, f1 = prf(len(c), len(s), len(e))
    return ToolSelection(tuple(sorted(c)), tuple(sorted(e - s)), tuple(sorted(s - e)), p, r, f1)


class _Bool(int):
    """A JSON boolean: equal only to the same boolean, never to the numbers 0 and 1."""

    def __eq__(self, other: object) -> bool:
        return type(other) is _Bool and int(self) == int(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = int.__hash__


def _canon(value: Any) -> Any:
    """Arguments as JSON values: mappings -> dicts with text keys, tuples -> lists, and a
    boolean its own type (Python's ``True == 1`` would let a flag match a count)."""
    if isinstance(value, bool):
        return _Bool(value)
    if isinstance(value, Mapping):
        return {str(k): _canon(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canon(v) for v in value]
    return value


def _call(label: str, call: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(call, Mapping):
        raise ValueError(f"{label} must be a mapping with 'name' and 'args', got {call!r}")
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{label} has no tool name: {call!r}")
    args = call.get("args")
    if args is None:
        args = {}
    elif isinstance(args, str):  # OpenAI-style JSON-encoded arguments
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            raise ValueError(f"{label} args are not valid JSON: {args!r}") from None
    if not isinstance(args, Mapping):
        raise ValueError(f"{label} args must be a mapping, got {args!r}")
    return name, _canon(args)


def _args_match(actual: dict[str, Any], expected: dict[str, Any], mode: str) -> bool:
    if mode == "ignore":
        return True
    if mode == "exact":
        return actual == expected
    inner, outer = (actual, expected) if mode == "subset" else (expected, actual)
    return all(k in outer and outer[k] == v for k, v in inner.items())


def tool_call_match(
    actual_calls: Sequence[Mapping[str, Any]],
    expected_calls: Sequence[Mapping[str, Any]],
    args_mode: ArgsMode = "exact",
) -> ToolCallMatch:
    """Match actual tool calls to expected ones, one to one, as multisets.

    A pair is compatible when the names are equal and the arguments agree under
    ``args_mode``: ``exact`` (equal), ``subset`` (actual key/values ⊆ expected),
    ``superset`` (expected ⊆ actual), ``ignore`` (names only). Arguments are compared as
    JSON values, by content (nested mappings/lists; a JSON string is decoded): numbers by
    value (``1 == 1.0``), a boolean only with a boolean (``true`` never matches ``1``).
    The pairing is a maximum matching found by optimal assignment (Hungarian), never greedy
    first-fit, so the result does not depend on the order of either list. With ``tp`` matched pairs, P/R/F1 follow
    :func:`prf` (both empty -> 1, 1, 1). Two identical expected calls need two actual calls.
    """
    if args_mode not in ARGS_MODES:
        raise ValueError(f"args_mode must be one of {', '.join(ARGS_MODES)}, got {args_mode!r}")
    if isinstance(actual_calls, (str, bytes, Mapping)) or isinstance(expected_calls, (str, bytes, Mapping)):
        raise ValueError("actual_calls and expected_calls must be lists of calls")
    actual = [_call(f"actual_calls[{i}]", c) for i, c in enumerate(actual_calls)]
    expected = [_call(f"expected_calls[{j}]", c) for j, c in enumerate(expected_calls)]
    pairs: list[tuple[int, int]] = []
    if actual and expected:
        import numpy as np
        from scipy.optimize import linear_sum_assignment  # deferred: scipy import is slow

        fits = np.array(
            [[na == ne and _args_match(aa, ae, args_mode) for ne, ae in expected] for na, aa in actual],
            dtype=float,
        )
        rows, cols = linear_sum_assignment(fits, maximize=True)
        pairs = sorted((int(i), int(j)) for i, j in zip(rows, cols, strict=True) if fits[i, j] > 0)
    p, r, f1 = prf(len(pairs), len(actual), len(expected))
    used_a = {i for i, _ in pairs}
    used_e = {j for _, j in pairs}
    return ToolCallMatch(
        p, r, f1, tuple(pairs),
        tuple(i for i in range(len(actual)) if i not in used_a),
        tuple(j for j in range(len(expected)) if j not in used_e),
    )
