"""What compare measures: the metrics, each run's reading of one, which way is better, and
the margin that matters.

Metrics are a registry (:data:`METRICS`) plus one metric per score name of the experiments'
runs (:func:`score_metrics`). Each says which way is better, whether its per-run values are
0/1 outcomes, whether it lies in [0, 1], and where its per-run readings come from. A reading
is a number, or :class:`Missing` with why: a score that errored, a pass that is unknown, a
row without a value. Missing is never 0 and never a fail (:mod:`.compare` leaves it out).

A score declares its direction where it is made (``Score(higher_is_better=False)``, or a
scorer's ``higher_is_better`` attribute, stored in ``scores.higher_is_better``); a
comparison may override it by name. The margin of a metric in [0, 1] is 0.05 unless set; of
any other metric a share (10%) of its scale, the mean absolute per-case value over both
experiments: symmetric (swapping A and B keeps it) and not near 0 for a score whose values
straddle 0.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from evaluators import fold_turns

from .errors import ExperimentError

_CHUNK = 500  # run ids per query
_RUN_COLUMNS = ["run_id", "case_id", "repeat_index", "passed", "status", "total_time_ms", "total_tokens",
                "total_cost", "turn", "started_at"]
_SCORE_COLUMNS = ["run_id", "name", "value", "passed", "source", "error", "higher_is_better"]
UNIT_MARGIN = 0.05  # rates and scores in [0, 1]
RELATIVE_MARGIN = 0.10  # any other metric: a share of its scale


class UnknownExperiment(ExperimentError):
    """An experiment name the store has no runs of."""


class UnknownMetric(ValueError):
    """A metric name the experiments do not have, given as ``option`` (``metric``, ``gate``,
    ``margin`` or a direction), so a command can name the option it came from."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True, slots=True)
class Missing:
    """A run's reading of a metric that is not a value: ``errored`` (its score could not be
    made), ``unknown`` (its pass is empty), ``empty`` (a row without a value)."""

    why: Literal["errored", "unknown", "empty"]


ERRORED, UNKNOWN, EMPTY = Missing("errored"), Missing("unknown"), Missing("empty")


class ExperimentRuns:
    """The runs of one experiment and, read once on first use, the other sheets' columns
    the metrics need (run id -> reading)."""

    def __init__(self, store: Any, name: str) -> None:
        self.name = name
        # A multi-turn case's turns are one unit (its last turn, latency, tokens and cost summed):
        # see evaluators.fold_turns; ``members`` maps each unit to its runs.
        folded = fold_turns(list(store.rows("runs", columns=_RUN_COLUMNS, where={"experiment": name})))
        self.runs = [unit for unit, _ in folded]
        self.members = {unit["run_id"]: ids for unit, ids in folded if len(ids) > 1}
        if not self.runs:
            known = sorted({r["experiment"] for r in store.rows("runs", columns=["experiment"])} - {None})
            raise UnknownExperiment(f"no experiment {name!r} in the store"
                                    + (f" (experiments: {', '.join(known[:10])}{' …' if len(known) > 10 else ''})"
                                       if known else " (it has no experiments)"))
        self._store = store
        self._read: dict[tuple[str, str], dict[str, Any]] = {}
        self.sources: dict[str, str] = {}  # score name -> its source (rule, llm, code, human)
        self.directions: dict[str, set[bool]] = defaultdict(set)  # score name -> the directions its rows declare

    def _ids(self) -> list[str]:
        return [run_id for r in self.runs for run_id in self.members.get(r["run_id"], (r["run_id"],))]

    def _folded(self, by_run: dict[str, Any]) -> dict[str, Any]:
        """Run id -> reading, with a multi-turn unit's the mean of its turns' values; a unit one
        of whose turns has no value (its score errored) has none either: it is missing, as a
        run would be, never the mean of the turns that are left."""
        for unit, ids in self.members.items():
            readings = [by_run.pop(i) for i in ids if i in by_run]
            missing = next((v for v in readings if isinstance(v, Missing)), None)
            values = [float(v) for v in readings if missing is None and math.isfinite(float(v))]
            if values:
                by_run[unit] = math.fsum(values) / len(values)
            elif readings:
                by_run[unit] = missing if missing is not None else readings[0]
        return by_run

    def scores(self) -> dict[str, dict[str, Any]]:
        """Score name -> run id -> its reading: the value; for a score without one its pass
        (1 or 0: a pass/fail score); :data:`ERRORED` for a score that could not be made,
        :data:`EMPTY` for one with neither; for labels of one run by several people, their
        mean. Read once."""
        if ("scores", "*") not in self._read:
            ids = self._ids()
            by_name: dict[str, dict[str, Any]] = defaultdict(dict)
            raters: dict[tuple[str, str], list[float]] = defaultdict(list)  # labels of one run by several people
            for start in range(0, len(ids), _CHUNK):
                for row in self._store.rows("scores", ids[start:start + _CHUNK], columns=_SCORE_COLUMNS):
                    reading = _score_reading(row)
                    by_name[row["name"]][row["run_id"]] = reading
                    self.sources.setdefault(row["name"], row["source"])
                    if row["higher_is_better"] is not None:
                        self.directions[row["name"]].add(bool(row["higher_is_better"]))
                    if row["source"] == "human" and not isinstance(reading, Missing):
                        raters[row["name"], row["run_id"]].append(float(reading))
            for (name, run_id), values in raters.items():  # one value a run: the people's mean
                if len(values) > 1:
                    by_name[name][run_id] = math.fsum(values) / len(values)
            self._read["scores", "*"] = {name: self._folded(by_run) for name, by_run in by_name.items()}
        return self._read["scores", "*"]

    def column(self, sheet: str, column: str) -> dict[str, Any]:
        """Run id -> ``column`` of ``sheet`` (the last row of a run that has several; a run
        without a row is not in it; an empty cell is :data:`EMPTY`, an empty pass
        :data:`UNKNOWN`)."""
        if sheet == "runs":
            empty = UNKNOWN if column == "passed" else EMPTY
            return {r["run_id"]: empty if r[column] is None else r[column] for r in self.runs}
        if (sheet, column) not in self._read:
            ids = self._ids()
            self._read[sheet, column] = self._folded({
                row["run_id"]: EMPTY if row[column] is None else row[column] for start in range(0, len(ids), _CHUNK)
                for row in self._store.rows(sheet, ids[start:start + _CHUNK], columns=["run_id", column])})
        return self._read[sheet, column]


def _score_reading(row: Mapping[str, Any]) -> Any:
    if row["error"] is not None:
        return ERRORED
    if row["value"] is not None:
        return row["value"]
    return EMPTY if row["passed"] is None else row["passed"]


@dataclass(frozen=True)
class Metric:
    """A metric compare knows (the module doc): its name, which way is better, whether its
    per-run values are 0/1 outcomes (the exact binomial applies) or lie in [0, 1] (margin
    0.05, bounded intervals, the delta as effect size), whether only completed runs have
    one, and ``values(runs) -> {run id: reading}`` (a run without a record is not in it)."""

    name: str
    higher_is_better: bool
    outcome: bool
    unit_interval: bool
    values: Callable[[ExperimentRuns], Mapping[str, Any]]
    completed_only: bool = False
    built_in: bool = True


def _column(sheet: str, column: str) -> Callable[[ExperimentRuns], Mapping[str, Any]]:
    return lambda runs: runs.column(sheet, column)


#: The metrics compare knows, in the order they are reported.
METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("pass_rate", True, True, True, _column("runs", "passed")),
    Metric("answer_score", True, False, True, _column("agent_metrics", "final_answer_quality")),
    Metric("tool_f1", True, False, True, _column("tool_selections", "f1_score")),
    Metric("trajectory_match", True, False, True, _column("agent_metrics", "trajectory_match")),
    Metric("latency_ms", False, False, False, _column("runs", "total_time_ms"), completed_only=True),
    Metric("total_tokens", False, False, False, _column("runs", "total_tokens"), completed_only=True),
    Metric("total_cost", False, False, False, _column("runs", "total_cost"), completed_only=True),
)}


def score_metrics(*sides: ExperimentRuns, lower: Sequence[str] = (), higher: Sequence[str] = ()) -> tuple[
        dict[str, Metric], list[str]]:
    """A metric for every score name of the experiments' runs that is not a built-in metric
    (a user's scorer, a label, a check such as ``evaluation`` or ``judge``): its per-run
    reading is the score's (:meth:`ExperimentRuns.scores`); it is a 0/1 outcome when every
    value is 0 or 1, and lies in [0, 1] when every value does. Higher is better unless its
    rows declare lower, or ``lower`` names it (``higher`` overrides a declared lower).
    Returns the metrics and warnings (directions that disagree)."""
    values: dict[str, list[Any]] = defaultdict(list)
    declared: dict[str, set[bool]] = defaultdict(set)
    for side in sides:
        for name, by_run in side.scores().items():
            values[name] += by_run.values()
            declared[name] |= side.directions.get(name, set())
    out, warnings = {}, []
    for name, seen in values.items():
        if name in METRICS:
            continue
        finite = [float(v) for v in seen if not isinstance(v, Missing) and math.isfinite(float(v))]
        if name in lower or name in higher:
            better = name not in lower
        elif len(declared[name]) > 1:
            better = True
            warnings.append(f"{name}'s runs disagree on which way it is better (its scorers declared both); "
                            "higher is taken as better: say which with --lower-is-better or --higher-is-better")
        else:
            better = next(iter(declared[name]), True)
        out[name] = Metric(name, better, bool(finite) and all(v in (0.0, 1.0) for v in finite),
                           all(0.0 <= v <= 1.0 for v in finite), lambda runs, name=name: runs.scores().get(name, {}),
                           built_in=False)
    return out, warnings


@dataclass(frozen=True)
class Margins:
    """The smallest change that matters, per metric: ``unit`` for metrics in [0, 1],
    ``relative`` times the metric's scale for the others, unless ``by_name`` sets one (a
    number, or a share of the scale)."""

    unit: float = UNIT_MARGIN
    relative: float = RELATIVE_MARGIN
    by_name: Mapping[str, tuple[float, bool]] = field(default_factory=dict)  # name -> (value, relative)

    @classmethod
    def parse(cls, spec: float | str | Sequence[str] | Mapping[str, float | str] | None) -> Margins:
        """``0.03`` (metrics in [0, 1]), ``"5%"`` (the others, of their scale),
        ``"latency_ms=200"`` or ``"latency_ms=5%"`` (one metric), several of these in a
        list, or a mapping name -> value. ValueError for anything else."""
        if spec is None:
            return cls()
        if isinstance(spec, Mapping):
            items: list[str] = [f"{k}={v}" for k, v in spec.items()]
        elif isinstance(spec, (str, int, float)) and not isinstance(spec, bool):
            items = [str(spec)]
        else:
            items = [str(s) for s in spec]
        unit, relative, by_name = UNIT_MARGIN, RELATIVE_MARGIN, {}
        for item in items:
            name, _, text = item.rpartition("=")
            value, is_share = _margin_value(text.strip(), item)
            if name:  # (a metric's name is checked against the experiments' metrics when they are read)
                by_name[name.strip()] = (value, is_share)
            elif is_share:
                relative = value
            else:
                unit = value
        return cls(unit, relative, by_name)

    def of(self, m: Metric, scale: float | None) -> float | None:
        """``m``'s margin; ``scale``: the mean absolute per-case value over both sides
        (None without cases), which a share is taken of."""
        value, is_share = self.by_name.get(m.name, (self.unit, False) if m.unit_interval else (self.relative, True))
        if not is_share:
            return value
        return None if scale is None else scale * value


def _margin_value(text: str, item: str) -> tuple[float, bool]:
    match = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(%?)", text)
    if not match or not 0 < float(match.group(1)) < math.inf:
        raise ValueError(f"margin {item!r} must be a positive number, a percentage (5%) or NAME=either")
    return (float(match.group(1)) / 100, True) if match.group(2) else (float(match.group(1)), False)
