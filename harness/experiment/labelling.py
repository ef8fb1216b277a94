"""Labelling runs by the file: a queue of the runs most worth a person's look, written as
JSONL for them to fill in, and the filled-in file read back as labels.

**Which runs** (:func:`queue`), in this order, each with its reason:

1. the judge and a rule disagree: a judge's score (source ``llm``, or the ``--score``
   named) passes where a rule check (``answer``, ``tool_f1`` ...) fails, or the other way;
2. failures: the run failed, or the judge could not score it;
3. the judge near its threshold (given, else the middle of the gap between the highest
   failing and the lowest passing value of its runs in the store), nearest first;
4. a random sample of the other runs (in an order drawn from a fixed seed), a quarter of
   the queue, and whatever the three above leave free: κ measured only on hard runs
   understates how often the judge agrees.

Runs that already have the label (by the same person) are not queued again.

**The file**: one JSON object per line, ``{"run_id", "experiment", "case_id", "picked"
(which of the four), "reason",
"input", "output", "answer", "reference_answer", "scores": {name: {value, passed, source,
explanation}}, "label": {NAME: null}, "by": ..., "comment": null}``. A person replaces
``null`` with ``true``/``false`` or a number (and may write a comment); :func:`import_labels`
stores every filled label, skips the lines left ``null``, and refuses the whole file, with
its line, when any line is wrong.
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..inputs import LABELS, InputError, parse_json, read_lines
from ..outputs import text_file
from .errors import ExperimentError
from .scoring import BATCH_RUNS, label_row, rater_name, score_name, snapshots, write_labels

QUEUE_SEED = 20_250_302
_BOUNDARY_ROWS = 100_000  # a score's values read to find where its pass turns
_ANSWER_CHARS = 4_000
_RULE_NAMES_LEFT_OUT = ("completed",)
#: Why a run was queued, by its rank (module doc).
_KINDS = ("judge and rule disagree", "failure", "near the threshold", "random sample")  # every run has it: it says nothing a judge could disagree with


@dataclass(frozen=True)
class Queued:
    run_id: str
    reason: str
    rank: tuple[int, float, int]


@dataclass
class Imported:
    """What an import stored: labels written, lines left unfilled, per label name."""

    stored: int = 0
    unfilled: int = 0
    names: dict[str, int] = field(default_factory=dict)


def queue(store: Any, experiments: str | Sequence[str], *, name: str, n: int = 20, score: str | None = None,
          threshold: float | None = None, by: str | None = None, seed: int = QUEUE_SEED) -> list[dict[str, Any]]:
    """The ``n`` runs of ``experiments`` most worth labelling ``name`` (module doc), as the
    lines of the queue file."""
    name, by = score_name(name, "label"), rater_name(by)
    if n < 1:
        raise ExperimentError(f"--n is at least 1, not {n}")
    runs = []
    for experiment in [experiments] if isinstance(experiments, str) else experiments:
        found = list(store.rows("runs", columns=["run_id", "status", "case_id"], where={"experiment": experiment}))
        if not found:
            raise ExperimentError(f"no experiment {experiment!r} in the store")
        runs += found
    experiment = "experiment " + ", ".join(map(repr, [experiments] if isinstance(experiments, str) else experiments))
    ids = [r["run_id"] for r in runs]
    scores: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    labelled: set[str] = set()
    for start in range(0, len(ids), BATCH_RUNS):
        for row in store.rows("scores", ids[start:start + BATCH_RUNS],
                              columns=["run_id", "name", "value", "passed", "source", "explanation", "error", "rater"]):
            if row["name"] == name and (row["rater"] or None) == by:
                labelled.add(row["run_id"])
            if row["source"] != "human":
                scores[row["run_id"]][row["name"]] = row
    sources = {s["name"]: s["source"] for by_name in scores.values() for s in by_name.values()}
    judges = [score] if score is not None else sorted(n for n, src in sources.items() if src == "llm")
    if score is not None and score not in sources:
        raise ExperimentError(f"{experiment} has no score named {score!r} "
                              f"(its scores: {', '.join(sorted(sources)) or 'none'})")
    rules = sorted(n for n, src in sources.items() if src == "rule" and n not in _RULE_NAMES_LEFT_OUT
                   and n not in judges)
    bars = {j: threshold if threshold is not None else _boundary(
        store.rows("scores", columns=["value", "passed"], where={"name": j}, limit=_BOUNDARY_ROWS)) for j in judges}
    order = list(range(len(runs)))
    random.Random(seed).shuffle(order)
    drawn = {runs[i]["run_id"]: place for place, i in enumerate(order)}
    ranked = sorted((_why(r, scores.get(r["run_id"], {}), judges, rules, bars, drawn[r["run_id"]])
                     for r in runs if r["run_id"] not in labelled), key=lambda q: q.rank)
    hard = [q for q in ranked if q.rank[0] < 3][:n - n // 4]
    taken = {q.run_id for q in hard}
    sample = sorted((q for q in ranked if q.run_id not in taken), key=lambda q: q.rank[2])[:n - len(hard)]
    picked = hard + [Queued(q.run_id, "sampled at random", (3, 0.0, q.rank[2])) for q in sample]
    reasons = {q.run_id: (_KINDS[q.rank[0]], q.reason) for q in picked}
    chosen = [q.run_id for q in picked]
    lines = []
    for run, case in snapshots(store, chosen):
        lines.append({"run_id": run.run_id, "experiment": run.experiment, "case_id": run.case_id,
                      "picked": reasons[run.run_id][0], "reason": reasons[run.run_id][1], "input": run.inputs, "output": run.outputs,
                      "answer": _short(run.answer), "reference_answer": case.reference_answer,
                      "scores": {k: {"value": s["value"], "passed": None if s["passed"] is None else bool(s["passed"]),
                                     "source": s["source"], "explanation": s["explanation"] or s["error"]}
                                 for k, s in scores.get(run.run_id, {}).items()},
                      "label": {name: None}, "by": by, "comment": None})
    return lines


def write_queue(lines: Sequence[Mapping[str, Any]], path: Path) -> None:
    """The queue as JSONL, written whole or not at all (:mod:`harness.outputs`)."""
    with text_file(path) as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")


def import_labels(store: Any, path: str | os.PathLike[str], *, by: str | None = None,
                  redact: Any = None) -> Imported:
    """Store the labels a person filled in (module doc); ``by`` names the person for lines
    that do not. :class:`ExperimentError` naming the file and line for a line that is wrong;
    nothing is stored then."""
    from ..store import RunIdError

    where = os.fspath(path)
    by = rater_name(by)
    rows: list[dict[str, Any]] = []
    done = Imported()
    try:
        for number, entry in _entries(where):
            at = f"{where}:{number}"
            run = entry.get("run_id")
            labels = entry.get("label")
            if not isinstance(run, str) or not isinstance(labels, Mapping) or not labels:
                raise ExperimentError(f"{at}: a line holds a run_id and a label object ({{\"NAME\": true}}), "
                                      "as harness label --queue writes them")
            who = entry.get("by")
            if who is not None and by is not None and who != by:
                raise ExperimentError(f"{at}: the line is by {who!r} but --by says {by!r}")
            comment = entry.get("comment")
            if comment is not None and not isinstance(comment, str):
                raise ExperimentError(f"{at}: comment is a text")
            try:
                run_id = store.resolve_run_id(run)
            except (RunIdError, ValueError) as exc:
                raise ExperimentError(f"{at}: {exc}") from None
            for label_name, value in labels.items():
                if value is None:
                    done.unfilled += 1
                    continue
                try:
                    rows.append(label_row(run_id, label_name, value, comment=comment, by=who if who is not None else by))
                except ValueError as exc:
                    raise ExperimentError(f"{at}: label {label_name!r}: {exc}") from None
                done.names[label_name.strip()] = done.names.get(label_name.strip(), 0) + 1
    except InputError as exc:
        raise ExperimentError(str(exc)) from None
    keys = [r["row_key"] for r in rows]
    if len(set(keys)) != len(keys):
        raise ExperimentError(f"{where}: a run is labelled twice with one name by one person")
    if rows:
        try:
            write_labels(store, rows, redact)
        except ValueError as exc:
            raise ExperimentError(f"{where}: {exc}") from None
    done.stored = len(rows)
    return done


def _entries(where: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in read_lines(where, LABELS):
        if not line.strip():
            continue
        entry = parse_json(line, where, line=number)
        if not isinstance(entry, dict):
            raise ExperimentError(f"{where}:{number}: a line is a JSON object")
        yield number, entry


def _why(run: Mapping[str, Any], scores: Mapping[str, Mapping[str, Any]], judges: Sequence[str],
         rules: Sequence[str], bars: Mapping[str, float | None], drawn: int) -> Queued:
    run_id = run["run_id"]
    for j in judges:
        judged = scores.get(j)
        verdict = _passes(judged, bars.get(j))
        for rule in rules:
            said = _passes(scores.get(rule), None)
            if verdict is not None and said is not None and verdict != said:
                return Queued(run_id, f"{j} {'passes' if verdict else 'fails'} but {rule} "
                                      f"{'passes' if said else 'fails'}", (0, 0.0, drawn))
    if run["status"] != "completed":
        return Queued(run_id, f"the run {run['status'] or 'did not end'}", (1, 0.0, drawn))
    for j in judges:
        if j in scores and scores[j]["error"]:
            return Queued(run_id, f"{j} could not score it: {scores[j]['error'][:120]}", (1, 0.0, drawn))
    near = [(abs(scores[j]["value"] - bars[j]), j) for j in judges
            if j in scores and scores[j]["value"] is not None and bars.get(j) is not None]
    if near:
        distance, j = min(near)
        return Queued(run_id, f"{j} {scores[j]['value']:.3g} is {distance:.3g} from its threshold {bars[j]:.3g}",
                      (2, distance, drawn))
    return Queued(run_id, "sampled at random", (3, 0.0, drawn))


def _passes(score: Mapping[str, Any] | None, bar: float | None) -> bool | None:
    if score is None or score["error"]:
        return None
    if bar is not None and score["value"] is not None:
        return score["value"] >= bar - 1e-12
    return None if score["passed"] is None else bool(score["passed"])


def _boundary(rows: Iterable[Mapping[str, Any]]) -> float | None:
    """Where a score's pass turns (over its runs in the store): between its highest failing
    and lowest passing value."""
    rows = list(rows)
    failing = [r["value"] for r in rows if r["value"] is not None and r["passed"] == 0]
    passing = [r["value"] for r in rows if r["value"] is not None and r["passed"] == 1]
    if failing and passing:
        return (max(failing) + min(passing)) / 2
    values = [r["value"] for r in rows if r["value"] is not None]
    return 0.5 if values and all(0 <= v <= 1 for v in values) else None


def _short(text: str | None) -> str | None:
    return text if text is None or len(text) <= _ANSWER_CHARS else text[:_ANSWER_CHARS] + "…"
