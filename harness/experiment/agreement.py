"""A score's agreement with people's labels, read from the store (the statistics are
:func:`evaluators.agreement`'s).

The runs measured are those with both the score and the label, of the experiments named or
of the whole store. A score that errored on a run is no judgement of it: that run is left
out, and counted. A measured pair is remembered in the store (``harness_meta``), so that
``compare`` gating on the score, and the report showing it, can say how far the
instrument is trusted without being told again.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from evaluators import KAPPA_WEIGHTS, Agreement, Rated, agreement

from .errors import ExperimentError

_CHUNK = 500
#: The store's record of the pairs measured: score name -> how it was measured.
REMEMBERED = "judge_agreements"


class AgreementError(ExperimentError):
    """What the agreement cannot be measured on (no such label, no run with both)."""


def measure(store: Any, score: str, against: str, *, experiments: Sequence[str] = (), threshold: float | None = None,
            label_threshold: float | None = None, weights: str = "quadratic", by: str | None = None,
            remember: bool = True) -> Agreement:
    """The agreement of ``score`` with the label ``against`` (module doc); ``remember``
    records the pair for ``compare`` and the report. :class:`AgreementError` when there is
    nothing to measure."""
    if not score or not against or score == against:
        raise AgreementError("give a score and a label of another name (harness agreement SCORE --against LABEL)")
    if weights not in KAPPA_WEIGHTS:
        raise AgreementError(f"--weights is {' or '.join(KAPPA_WEIGHTS)}, not {weights!r}")
    settings = {"label": against, "experiments": list(experiments), "threshold": threshold,
                "label_threshold": label_threshold, "weights": weights, "by": by}
    result = _measured(store, score, settings)
    if remember:
        known = remembered(store)
        known[score] = settings
        store.set_meta(REMEMBERED, json.dumps(known, sort_keys=True))
    return result


def remembered(store: Any) -> dict[str, dict[str, Any]]:
    """Score name -> how its agreement was last measured (``harness agreement``)."""
    try:
        found = json.loads(store.meta(REMEMBERED) or "{}")
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def of_score(store: Any, score: str, against: str | None = None) -> Agreement | None:
    """The score's agreement with ``against``, else with the label it was last measured
    against on this store (as it was measured then: experiments, thresholds); None when
    neither is known. :class:`AgreementError` when the label is named but not found."""
    settings = remembered(store).get(score)
    if against is not None and (settings is None or settings.get("label") != against):
        settings = {"label": against}
    if settings is None:
        return None
    return _measured(store, score, settings)


def _measured(store: Any, score: str, settings: Mapping[str, Any]) -> Agreement:
    against = settings["label"]
    experiments = list(settings.get("experiments") or [])
    if experiments:
        run_ids: list[str] = []
        for name in experiments:
            ids = [r["run_id"] for r in store.rows("runs", columns=["run_id"], where={"experiment": name})]
            if not ids:
                raise AgreementError(f"no experiment {name!r} in the store")
            run_ids += ids
        labels = list(_rows(store, run_ids, against))
    else:
        labels = list(store.rows("scores", columns=_SCORE_COLUMNS, where={"name": against}))
    if not labels:
        names = sorted({r["name"] for r in store.rows("scores", columns=["name"], where={"source": "human"})})
        raise AgreementError(f"no run{' of ' + ', '.join(map(repr, experiments)) if experiments else ''} has a label "
                             f"named {against!r} (labels in the store: {', '.join(names[:10]) or 'none'})")
    labelled = list(dict.fromkeys(r["run_id"] for r in labels))
    scores = {r["run_id"]: r for r in _rows(store, labelled, score)}
    if not scores:
        raise AgreementError(f"none of the {len(labelled)} run(s) labelled {against!r} has a score named {score!r}")
    by_run: dict[str, dict[str, tuple[float | None, bool | None]]] = {}
    for r in labels:
        if r["error"] is None:
            by_run.setdefault(r["run_id"], {})[r["rater"] or ""] = (r["value"], _pass(r["passed"]))
    errored = [run for run, row in scores.items() if row["error"] is not None and run in by_run]
    rated = [Rated(run, row["value"], _pass(row["passed"]), by_run[run], note=row["explanation"] or "")
             for run, row in scores.items() if row["error"] is None and run in by_run]
    found = agreement(rated, score=score, label=against, threshold=settings.get("threshold"),
                      label_threshold=settings.get("label_threshold"), weights=settings.get("weights") or "quadratic",
                      by=settings.get("by"))
    notes = list(found.notes)
    if errored:
        notes.insert(0, f"{len(errored)} run(s) whose {score} errored are left out")
    if settings.get("by") and not found.n:
        notes.append(f"no run has a label {against!r} by {settings['by']!r}")
    places = _places(store, [d["run_id"] for d in found.disagreements])
    shown = tuple({**d, **places.get(d["run_id"], {})} for d in found.disagreements)
    return dataclasses.replace(found, notes=tuple(notes), disagreements=shown,
                               settings={**found.settings, "experiments": experiments})


_SCORE_COLUMNS = ["run_id", "value", "passed", "error", "rater", "explanation", "source"]


def _rows(store: Any, run_ids: Sequence[str], name: str) -> Any:
    for start in range(0, len(run_ids), _CHUNK):
        yield from store.rows("scores", run_ids[start:start + _CHUNK], columns=_SCORE_COLUMNS, where={"name": name})


def _places(store: Any, run_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {r["run_id"]: {"experiment": r["experiment"], "case_id": r["case_id"]}
            for r in store.rows("runs", list(run_ids), columns=["run_id", "experiment", "case_id"])} if run_ids else {}


def _pass(value: Any) -> bool | None:
    return None if value is None else bool(value)
