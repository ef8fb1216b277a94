"""A gate that knows its instrument: before ``compare`` gates on a judge's score, how far
that score agrees with people, and whether that is enough to gate on.

A score of the comparison has a known agreement when ``--against`` pairs it with a label,
or when ``harness agreement SCORE --against LABEL`` measured it on this store (measured again
now, the same way, so new labels count). With ``min_agreement`` a gated score that is a
judge's (source ``llm``) or that has a known agreement must have at least ``min_labels``
labelled runs and an agreement interval whose lower end reaches ``min_agreement``; else the
gate is refused (:class:`GateRefused`): a release is not gated on an instrument nobody has
checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .agreement import AgreementError, of_score, remembered
from .errors import ExperimentError

#: Labelled runs a judge needs before it may gate (--min-labels).
MIN_LABELS = 30


class GateRefused(ExperimentError):
    """A gated score whose agreement with people is unknown, too thin or too low."""


def parse_against(given: Sequence[str] | Mapping[str, str] | str | None, gated_scores: Sequence[str]) -> dict[str, str]:
    """``--against`` as score -> label: ``SCORE=LABEL``, or ``LABEL`` alone for the one gated
    score. :class:`ExperimentError` when a bare label has no single score to go with."""
    if given is None:
        return {}
    if isinstance(given, Mapping):
        return dict(given)
    out: dict[str, str] = {}
    for item in [given] if isinstance(given, str) else given:
        score, sep, label = item.rpartition("=")
        if sep and score.strip() and label.strip():
            out[score.strip()] = label.strip()
        elif len(gated_scores) == 1:
            out[gated_scores[0]] = item.strip()
        else:
            raise ExperimentError(f"--against {item}: name the score it checks, --against SCORE={item} "
                                  f"({'gated scores: ' + ', '.join(gated_scores) if gated_scores else 'no score gates: add --gate SCORE'})")
    return out


def agreements(store: Any, scores: Sequence[str], *, against: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The agreement (``Agreement.to_dict()``) of each of ``scores`` that has a label to
    measure it against (given, else remembered), in that order."""
    against = dict(against or {})
    known = remembered(store)
    out = []
    for score in dict.fromkeys(scores):
        if score not in against and score not in known:
            continue
        try:
            found = of_score(store, score, against.get(score))
        except AgreementError as exc:
            if score in against:
                raise
            out.append({"score": score, "label": known[score].get("label"), "n": 0, "headline": None,
                        "notes": [str(exc)]})
            continue
        if found is not None:
            out.append(found.to_dict())
    return out


def check_gate(store: Any, gated: Sequence[str], measured: Sequence[Mapping[str, Any]], *,
               min_agreement: float | None, min_labels: int = MIN_LABELS) -> None:
    """Refuse (:class:`GateRefused`, one line) to gate on a score whose agreement is below
    ``min_agreement`` or over fewer than ``min_labels`` runs (module doc); nothing to do
    without ``min_agreement``."""
    if min_agreement is None:
        return
    if not -1 <= min_agreement <= 1:  # (also refuses nan)
        raise ExperimentError(f"--min-agreement is an agreement, between -1 and 1 (e.g. 0.6), not {min_agreement:g}")
    if min_labels < 1:
        raise ExperimentError(f"--min-labels is at least 1, not {min_labels}")
    by_score = {m["score"]: m for m in measured}
    for score in gated:
        found = by_score.get(score)
        if found is None and not _is_judge(store, score):
            continue
        head = (found or {}).get("headline")
        n = head["n"] if head else 0
        if found is None:
            raise GateRefused(f"refusing to gate on {score}: it is a judge's score and its agreement with people "
                              f"is unknown; label runs and run harness agreement {score} --against LABEL "
                              f"(--min-agreement {min_agreement:g} needs {min_labels} labelled runs)")
        if n < min_labels:
            raise GateRefused(f"refusing to gate on {score}: only {n} run(s) labelled {found['label']} have it "
                              f"(--min-labels {min_labels})")
        low = head.get("ci_low")
        if low is None or low < min_agreement:
            value, level = head.get("value"), head.get("ci_level") or 0.95
            raise GateRefused(f"refusing to gate on {score}: its agreement with {found['label']} "
                              f"({head.get('statistic') or 'agreement'} "
                              f"{'undefined' if value is None else format(value, '.2f')}, n {n}) has a {level:.0%} "
                              f"interval whose lower end, {'undefined' if low is None else format(low, '.2f')}, "
                              f"must reach --min-agreement {min_agreement:g}")


def _is_judge(store: Any, score: str) -> bool:
    return next(iter(store.rows("scores", columns=["source"], where={"name": score, "source": "llm"}, limit=1)),
                None) is not None


def with_agreements(store: Any, comparison: Any, *, against: Sequence[str] | Mapping[str, str] | str | None = None,
                    min_agreement: float | None = None, min_labels: int = MIN_LABELS) -> Any:
    """``comparison`` (a :class:`~.compare.Comparison`) with the agreement of each of its
    scores that has a label (``against``, else remembered), after refusing a gate on a
    judge that does not reach ``min_agreement`` (:func:`check_gate`)."""
    import dataclasses

    from .compare import METRICS

    gated = [m.name for m in comparison.metrics if m.gated and m.name not in METRICS]
    pairs = parse_against(against, gated)
    measured = agreements(store, [*(m.name for m in comparison.metrics), *pairs], against=pairs)
    check_gate(store, gated, measured, min_agreement=min_agreement, min_labels=min_labels)
    return dataclasses.replace(comparison, agreements=tuple(measured))
