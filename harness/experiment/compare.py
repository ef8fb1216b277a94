"""Two experiments compared case by case, with the paired tests of :mod:`evaluators`.

Runs are paired by ``case_id``; cases in one experiment only are named and left out. For
every metric a case's repeats are reduced to one value first (their mean, over the runs
that have a value), so the case is the unit and an extra repeat that agrees changes
nothing; then only the cases with a value on both sides count. Then, per metric, a
one-sided test both ways, an interval at ``1 - 2 * alpha`` from the same test, a margin and
one of four verdicts (:mod:`evaluators._verdict`). The gated metrics (``pass_rate`` unless
named) decide :attr:`Comparison.regressed`; with several, their p-values are Holm-adjusted.

Metrics are a registry (:data:`METRICS`): each says which way is better, whether its
per-run values are 0/1 outcomes, whether it lies in [0, 1], and where its per-run values
come from; a further metric is one more entry reading one more source.

What can make a comparison misleading is said in ``warnings``: different dataset contents,
unpaired cases, unequal repeats, runs without a value (a run whose ``passed`` is empty has
no pass: it is left out of ``pass_rate``, never counted as passing), non-finite values
(never a value), runs that did not complete (left out of latency, tokens and cost, so a run
that crashes fast does not make a version look faster), and a cost that is only tokens
times one price (not tested twice).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluators import SIGN_FLIP_DRAWS, fold_turns, holm, mean_of_repeats, needed_cases, paired_test, verdict

from .runner import ExperimentError

_CHUNK = 500  # run ids per query
_RUN_COLUMNS = ["run_id", "case_id", "passed", "status", "total_time_ms", "total_tokens", "total_cost",
                "repeat_index", "turn", "started_at"]
DEFAULT_GATE = ("pass_rate",)
UNIT_MARGIN = 0.05  # rates and scores in [0, 1]
RELATIVE_MARGIN = 0.10  # latency, tokens and cost: a share of A's mean


class UnknownExperiment(ExperimentError):
    """An experiment name the store has no runs of."""


class UnknownMetric(ValueError):
    """A metric name the experiments do not have, given as ``option`` (``metric``, ``gate``
    or ``margin``), so a command can name the option it came from."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


class ExperimentRuns:
    """The runs of one experiment and, read once on first use, the other sheets' columns
    the metrics need (run id -> value)."""

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

    def _ids(self) -> list[str]:
        return [run_id for r in self.runs for run_id in self.members.get(r["run_id"], (r["run_id"],))]

    def _folded(self, by_run: dict[str, Any]) -> dict[str, Any]:
        """Run id -> value, with a multi-turn unit's value the mean of its turns' that have one."""
        for unit, ids in self.members.items():
            values = [float(by_run[i]) for i in ids if by_run.get(i) is not None]
            for i in ids:
                by_run.pop(i, None)
            if values:
                by_run[unit] = math.fsum(values) / len(values)
        return by_run

    def scores(self) -> dict[str, dict[str, Any]]:
        """Score name -> run id -> its value (its pass, 1 or 0, for a score without a value),
        for every score of the experiment's runs (the scores sheet), read once."""
        if ("scores", "*") not in self._read:
            ids = self._ids()
            by_name: dict[str, dict[str, Any]] = defaultdict(dict)
            raters: dict[tuple[str, str], list[float]] = defaultdict(list)  # labels of one run by several people
            for start in range(0, len(ids), _CHUNK):
                for row in self._store.rows("scores", ids[start:start + _CHUNK],
                                            columns=["run_id", "name", "value", "passed", "source"]):
                    value = row["value"] if row["value"] is not None else row["passed"]
                    by_name[row["name"]][row["run_id"]] = value
                    self.sources.setdefault(row["name"], row["source"])
                    if row["source"] == "human" and value is not None:
                        raters[row["name"], row["run_id"]].append(float(value))
            for (name, run_id), values in raters.items():  # one value a run: the people's mean
                if len(values) > 1:
                    by_name[name][run_id] = math.fsum(values) / len(values)
            self._read["scores", "*"] = {name: self._folded(by_run) for name, by_run in by_name.items()}
        return self._read["scores", "*"]

    def column(self, sheet: str, column: str) -> dict[str, Any]:
        """Run id -> ``column`` of ``sheet`` (the last row of a run that has several)."""
        if sheet == "runs":
            return {r["run_id"]: r[column] for r in self.runs}
        if (sheet, column) not in self._read:
            ids = self._ids()
            self._read[sheet, column] = self._folded({
                row["run_id"]: row[column] for start in range(0, len(ids), _CHUNK)
                for row in self._store.rows(sheet, ids[start:start + _CHUNK], columns=["run_id", column])})
        return self._read[sheet, column]


@dataclass(frozen=True)
class Metric:
    """A metric compare knows (the module doc): its name, which way is better, whether
    its per-run values are 0/1 outcomes (the exact binomial applies) or lie in [0, 1]
    (margin 0.05, the delta as effect size), whether only completed runs have one, and
    ``values(runs) -> {run id: value or None}``."""

    name: str
    higher_is_better: bool
    outcome: bool
    unit_interval: bool
    values: Callable[[ExperimentRuns], Mapping[str, Any]]
    completed_only: bool = False


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


def score_metrics(*sides: ExperimentRuns) -> dict[str, Metric]:
    """A metric for every score name of the experiments' runs that is not a built-in metric
    (a user's scorer, a label, a check such as ``evaluation`` or ``judge``): higher is
    better; its per-run value is the score's value (its pass, for a score without one); it
    is a 0/1 outcome when every value is 0 or 1, and lies in [0, 1] when every value does."""
    values: dict[str, list[Any]] = defaultdict(list)
    for side in sides:
        for name, by_run in side.scores().items():
            values[name] += by_run.values()
    out = {}
    for name, seen in values.items():
        if name in METRICS:
            continue
        finite = [float(v) for v in seen if v is not None and math.isfinite(float(v))]
        out[name] = Metric(name, True, bool(finite) and all(v in (0.0, 1.0) for v in finite),
                           all(0.0 <= v <= 1.0 for v in finite),
                           lambda runs, name=name: runs.scores().get(name, {}))
    return out


#: Scores shown by default besides the built-in metrics: the user's own (scorers, judges and labels).
_DEFAULT_SCORE_SOURCES = ("code", "human", "llm")


@dataclass(frozen=True)
class Margins:
    """The smallest change that matters, per metric: ``unit`` for metrics in [0, 1],
    ``relative`` times A's mean for the others, unless ``by_name`` sets one (a number, or
    a share of A's mean)."""

    unit: float = UNIT_MARGIN
    relative: float = RELATIVE_MARGIN
    by_name: Mapping[str, tuple[float, bool]] = field(default_factory=dict)  # name -> (value, relative)

    @classmethod
    def parse(cls, spec: float | str | Sequence[str] | Mapping[str, float | str] | None) -> Margins:
        """``0.03`` (metrics in [0, 1]), ``"5%"`` (the others, of A's mean),
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

    def of(self, m: Metric, a_mean: float | None) -> float | None:
        value, is_share = self.by_name.get(m.name, (self.unit, False) if m.unit_interval else (self.relative, True))
        if not is_share:
            return value
        return None if a_mean is None else abs(a_mean) * value


def _margin_value(text: str, item: str) -> tuple[float, bool]:
    match = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(%?)", text)
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"margin {item!r} must be a positive number, a percentage (5%) or NAME=either")
    return (float(match.group(1)) / 100, True) if match.group(2) else (float(match.group(1)), False)


@dataclass(frozen=True)
class MetricComparison:
    """One metric compared (the keys of ``harness compare --json``, :meth:`to_dict`). ``p_worse``/``p_better``
    are the test's one-sided p-values; ``p_value`` is the one of the reported direction
    (the smaller), Holm-adjusted when several gated metrics share the gate (``holm``).
    ``needed_cases``: for an inconclusive verdict, the paired cases that would show a change
    of the observed size (None: no number could, or not inconclusive)."""

    name: str
    higher_is_better: bool
    gated: bool
    n: int
    a: float | None
    b: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    p_worse: float | None
    p_better: float | None
    p_value: float | None
    test: str | None
    margin: float | None
    effect_size: float | None
    verdict: str
    needed_cases: int | None
    holm: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The metric as ``harness compare --json`` prints it; an interval end the test
        cannot bound (infinite) is null."""
        return {"name": self.name, "higher_is_better": self.higher_is_better, "gated": self.gated, "n": self.n,
                "a": self.a, "b": self.b, "delta": self.delta, "ci_low": _finite(self.ci_low),
                "ci_high": _finite(self.ci_high), "ci_level": self.ci_level, "p_worse": self.p_worse,
                "p_better": self.p_better, "p_value": self.p_value, "test": self.test, "margin": self.margin,
                "effect_size": self.effect_size, "verdict": self.verdict, "needed_cases": self.needed_cases}


@dataclass(frozen=True)
class Comparison:
    """Experiment ``b`` against experiment ``a``: per metric, ``delta = b - a``."""

    a: str
    b: str
    alpha: float
    paired_cases: int
    a_only: tuple[str, ...]
    b_only: tuple[str, ...]
    gate: tuple[str, ...]
    warnings: tuple[str, ...]
    metrics: tuple[MetricComparison, ...]
    #: the agreement with people of the scores that have labels (harness.experiment.instruments)
    agreements: tuple[dict[str, Any], ...] = ()
    #: a judge's preference, case by case (harness.experiment.pairwise): it gates when present
    pairwise: Any = None

    @property
    def regressed(self) -> bool:
        """True when a gated metric regressed (the CI gate, ``--fail-on-regression``), or the
        pairwise judge prefers A."""
        return any(m.gated and m.verdict == "regressed" for m in self.metrics) or bool(
            self.pairwise is not None and self.pairwise.regressed)

    @property
    def inconclusive(self) -> bool:
        """True when a gated metric is inconclusive (``--fail-on-inconclusive``), or the pairwise preference is."""
        return any(m.gated and m.verdict == "inconclusive" for m in self.metrics) or bool(
            self.pairwise is not None and self.pairwise.inconclusive)

    def metric(self, name: str) -> MetricComparison:
        return next(m for m in self.metrics if m.name == name)

    def to_dict(self) -> dict[str, Any]:
        """The object ``harness compare --json`` prints (the README's Evaluate your own agent shows it)."""
        return {"a": self.a, "b": self.b, "alpha": self.alpha, "paired_cases": self.paired_cases,
                "unpaired": {"a_only": list(self.a_only), "b_only": list(self.b_only)}, "gate": list(self.gate),
                "warnings": list(self.warnings), "metrics": [m.to_dict() for m in self.metrics],
                "regressed": self.regressed, "inconclusive": self.inconclusive,
                **({"agreement": list(self.agreements)} if self.agreements else {}),
                **({"pairwise": self.pairwise.to_dict()} if self.pairwise is not None else {})}


@dataclass
class _Side:
    """One experiment's values of one metric: per case the finite values of its runs, and
    how many runs had none, a non-finite one, or did not complete."""

    cases: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    missing: int = 0
    non_finite: int = 0
    not_completed: int = 0


def compare_experiments(store: Any, a: str, b: str, *, alpha: float = 0.05, metrics: Sequence[str] | None = None,
                        gate: Sequence[str] | None = None,
                        margin: float | str | Sequence[str] | Mapping[str, float | str] | None = None,
                        draws: int = SIGN_FLIP_DRAWS,
                        read: MutableMapping[str, ExperimentRuns] | None = None) -> Comparison:
    """Compare experiment ``b`` with ``a`` in ``store`` (see the module doc). ``metrics``:
    the metrics to report (default: every metric some paired case has a value of);
    ``gate``: the metrics that gate (default ``pass_rate`` when it is reported); ``margin``:
    :meth:`Margins.parse`; ``read``: experiments already read (name -> runs), filled as they
    are read, for a caller comparing several pairs of one store (the report compares every
    pair): each experiment is then read from the store once. :class:`UnknownExperiment` for a
    name without runs; ValueError for an unknown metric, a bad margin or an alpha outside
    (0, 0.5)."""
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be between 0 and 0.5, got {alpha}")
    margins = Margins.parse(margin)
    for name in (a, b):
        if not isinstance(name, str) or not name.strip():
            raise ExperimentError(f"an experiment name must be a text that is not blank, not {name!r}")
    read = {} if read is None else read
    for name in dict.fromkeys((a, b)):
        if name not in read:
            read[name] = ExperimentRuns(store, name)
    sides = {name: read[name] for name in (a, b)}
    ra, rb = sides[a], sides[b]
    known = {**METRICS, **score_metrics(ra, rb)}

    def resolve(name: str, option: str) -> str:
        if name not in known:
            raise UnknownMetric(f"unknown metric {name!r}; metrics are {', '.join(METRICS)} and the experiments' "
                                f"scores ({', '.join(n for n in known if n not in METRICS) or 'none'})", option)
        return name

    asked = [resolve(name, "metric") for name in dict.fromkeys(metrics or ())]
    gated = [resolve(name, "gate") for name in dict.fromkeys(gate or ())]
    for name in margins.by_name:
        if name not in known:
            raise UnknownMetric(f"margin {name}=… names an unknown metric; metrics are {', '.join(known)}", "margin")
    cases_a, cases_b = _cases(ra), _cases(rb)
    paired = [c for c in cases_a if c in cases_b]
    paired_set = set(paired)
    warnings = _pairing_warnings(store, ra, rb, cases_a, cases_b, paired)
    if gate is None:
        gated = [name for name in DEFAULT_GATE if not asked or name in asked]
    own = [n for n in known if n not in METRICS and {ra.sources.get(n), rb.sources.get(n)} & set(_DEFAULT_SCORE_SOURCES)]
    names = ([n for n in known if n in asked or n in gated] if asked
             else [*METRICS, *own, *(n for n in gated if n not in METRICS and n not in own)])

    values: dict[str, tuple[_Side, _Side]] = {}
    for name in names:
        m = known[name]
        side_a, side_b = _side(m, ra, paired_set), _side(m, rb, paired_set)
        has_any = any(side_a.cases.values()) or any(side_b.cases.values())
        if not has_any and name not in asked and name not in gated:
            continue
        values[name] = (side_a, side_b)
    if "total_cost" in values and (price := _one_price(ra, rb, paired_set)) is not None:
        del values["total_cost"]
        warnings.append(f"total_cost is total_tokens times one price (${price * 1e6:.6g} per million tokens) in "
                        "every paired run: it is not tested apart from total_tokens")
    if "total_cost" in values and (priced := _price_table_warning(ra, rb, paired_set)):
        warnings.append(priced)
    warnings.extend(_value_warnings(values, a, b, known))

    tested = []
    for name, (side_a, side_b) in values.items():
        m = known[name]
        both = [c for c in paired if side_a.cases.get(c) and side_b.cases.get(c)]
        xa = [mean_of_repeats(side_a.cases[c]) for c in both]
        xb = [mean_of_repeats(side_b.cases[c]) for c in both]
        tested.append((m, xa, xb, paired_test(xa, xb, outcome=m.outcome, bounded=m.unit_interval, alpha=alpha,
                                              draws=draws)))
    family = [i for i, (m, _, _, t) in enumerate(tested) if m.name in gated and t.n > 0]
    worse = {i: t.p_worse(m.higher_is_better) for i, (m, _, _, t) in enumerate(tested)}
    better = {i: t.p_better(m.higher_is_better) for i, (m, _, _, t) in enumerate(tested)}
    if len(family) > 1:
        worse.update(zip(family, holm([worse[i] for i in family])))
        better.update(zip(family, holm([better[i] for i in family])))
    results = []
    for i, (m, xa, xb, t) in enumerate(tested):
        is_gated, adjusted = m.name in gated, i in family and len(family) > 1
        margin_of = margins.of(m, t.a)
        if t.n == 0:
            results.append(MetricComparison(m.name, m.higher_is_better, is_gated, 0, None, None, None, None, None,
                                            t.ci_level, None, None, None, None, margin_of, None, "inconclusive",
                                            None, adjusted))
            continue
        said = verdict(worse[i], better[i], t.ci_low, t.ci_high, alpha=alpha,
                       margin=margin_of if margin_of is not None else 0.0)
        level = alpha / len(family) if adjusted else alpha
        results.append(MetricComparison(
            name=m.name, higher_is_better=m.higher_is_better, gated=is_gated, n=t.n, a=t.a, b=t.b, delta=t.delta,
            ci_low=t.ci_low, ci_high=t.ci_high, ci_level=t.ci_level, p_worse=t.p_worse(m.higher_is_better),
            p_better=t.p_better(m.higher_is_better), p_value=min(worse[i], better[i]), test=t.test,
            margin=margin_of, effect_size=t.effect_size, verdict=said,
            needed_cases=needed_cases(xa, xb, alpha=level, outcome=m.outcome) if said == "inconclusive" else None,
            holm=adjusted))
    return Comparison(a=a, b=b, alpha=alpha, paired_cases=len(paired),
                      a_only=tuple(c for c in cases_a if c not in cases_b),
                      b_only=tuple(c for c in cases_b if c not in cases_a), gate=tuple(gated),
                      warnings=tuple(warnings), metrics=tuple(results))


def _cases(runs: ExperimentRuns) -> dict[str, int]:
    """Case -> its number of runs, in the order the cases were first written."""
    counts: dict[str, int] = {}
    for r in runs.runs:
        if r["case_id"] is not None:
            counts[r["case_id"]] = counts.get(r["case_id"], 0) + 1
    return counts


def _side(m: Metric, runs: ExperimentRuns, paired: set[str]) -> _Side:
    """``m``'s values of the runs of the paired cases (module doc)."""
    side = _Side()
    values = m.values(runs)
    for r in runs.runs:
        if r["case_id"] not in paired:
            continue
        if m.completed_only and r["status"] != "completed":
            side.not_completed += 1
            continue
        value = values.get(r["run_id"])
        if value is None:
            side.missing += 1
        elif not math.isfinite(float(value)):
            side.non_finite += 1
        else:
            side.cases[r["case_id"]].append(float(value))
    return side


def _one_price(ra: ExperimentRuns, rb: ExperimentRuns, paired: set[str]) -> float | None:
    """The one price per token every completed paired run's cost is, if there is one."""
    ratios = [float(r["total_cost"]) / float(r["total_tokens"]) for runs in (ra, rb) for r in runs.runs
              if r["case_id"] in paired and r["status"] == "completed" and r["total_cost"] is not None
              and r["total_tokens"] and math.isfinite(float(r["total_cost"]))]
    if not ratios:
        return None
    first = ratios[0]
    return first if all(math.isclose(x, first, rel_tol=1e-9, abs_tol=0.0) for x in ratios) else None


def _price_table_warning(ra: ExperimentRuns, rb: ExperimentRuns, paired: set[str]) -> str | None:
    """A warning when the paired runs' costs come from different price tables
    (``llm_calls.price_table``): their difference is then partly one of prices."""
    tables = []
    for runs in (ra, rb):
        ids = [r["run_id"] for r in runs.runs if r["case_id"] in paired]
        found: set[str] = set()
        for start in range(0, len(ids), _CHUNK):
            found.update(row["price_table"] for row in runs._store.rows(
                "llm_calls", ids[start:start + _CHUNK], columns=["price_table"]) if row["price_table"])
        tables.append(found)
    if not all(tables) or tables[0] == tables[1]:
        return None
    return (f"the costs were priced with different price tables ({ra.name}: {', '.join(sorted(tables[0]))}; "
            f"{rb.name}: {', '.join(sorted(tables[1]))}): total_cost compares prices as well as runs (give both the "
            f"same prices: harness reprice {ra.name} {rb.name} --prices FILE)")


def _pairing_warnings(store: Any, ra: ExperimentRuns, rb: ExperimentRuns, cases_a: Mapping[str, int],
                      cases_b: Mapping[str, int], paired: Sequence[str]) -> list[str]:
    warnings = []
    hashes = [(store.experiment_record(r.name) or {}).get("dataset_sha256") for r in (ra, rb)]
    if all(hashes) and hashes[0] != hashes[1]:
        warnings.append(f"the datasets differ: {ra.name} used sha256 {hashes[0][:12]}…, {rb.name} used "
                        f"{hashes[1][:12]}…; cases are paired by id only")
    for side, ids in ((ra.name, [c for c in cases_a if c not in cases_b]),
                      (rb.name, [c for c in cases_b if c not in cases_a])):
        if ids:
            warnings.append(f"{len(ids)} case(s) only in {side}, left out: {_ids(ids)}")
    counts_a, counts_b = {cases_a[c] for c in paired}, {cases_b[c] for c in paired}
    if len(counts_a | counts_b) > 1:
        warnings.append(f"unequal repeats: {ra.name} has {_span(counts_a)} run(s) per case, {rb.name} "
                        f"{_span(counts_b)}; each case counts once, as the mean of its runs")
    return warnings


def _value_warnings(values: Mapping[str, tuple[_Side, _Side]], a: str, b: str,
                    known: Mapping[str, Metric]) -> list[str]:
    warnings = []
    left_out = [name for name, (sa, sb) in values.items() if sa.not_completed + sb.not_completed]
    if left_out:
        sa, sb = values[left_out[0]]
        warnings.append(f"{sa.not_completed + sb.not_completed} run(s) that did not complete ({a} "
                        f"{sa.not_completed}, {b} {sb.not_completed}) are left out of {', '.join(left_out)}")
    for name, (sa, sb) in values.items():
        if sa.missing + sb.missing:
            what = "a pass (passed is empty)" if name == "pass_rate" else f"a value of {name}"
            warnings.append(f"{sa.missing + sb.missing} run(s) without {what} are left out of {name} "
                            f"({a} {sa.missing}, {b} {sb.missing})")
        if sa.non_finite + sb.non_finite:
            warnings.append(f"{sa.non_finite + sb.non_finite} run(s) with a non-finite {name} (NaN or infinity) "
                            f"are left out of it ({a} {sa.non_finite}, {b} {sb.non_finite})")
    return warnings


def _ids(ids: Sequence[str], shown: int = 20) -> str:
    return ", ".join(ids[:shown]) + (" …" if len(ids) > shown else "")


def _span(counts: Iterable[int]) -> str:
    low, high = min(counts), max(counts)
    return str(low) if low == high else f"{low}–{high}"


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None
