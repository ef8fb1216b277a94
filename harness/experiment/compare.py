"""Experiments compared case by case, with the paired tests of :mod:`evaluators`.

Runs are paired by ``case_id``; cases in one experiment only are named and left out. Per
metric (:mod:`.metrics`):

- **Missing is missing.** A run's reading that is not a value (a score that errored, a pass
  that is unknown, an empty cell, a non-finite number, a run without the score) is left out
  of that metric's test and counted per side in a warning, never read as 0 or as a fail.
  A case with no value left on one side is lost to the test; a gated metric that lost more
  than :data:`LOST_CASES_LIMIT` of its cases (any case, with ``strict``), or has none, fails
  the gate: a gate is never passed by missing data.
- **The case is the unit, on an equal design.** A case's repeats are reduced to one value,
  their exact mean (fractions: 1/3 + 1/3 is 2/3), over the same number of repeats on both
  sides (the first k by repeat index, k the fewer of the two), so the two means of a case
  are exchangeable when nothing changed and one more repeat of a case changes nothing; the
  runs this leaves out are reported.
- **Test, interval, verdict.** A one-sided test both ways, an interval at ``1 - 2 * alpha``
  from the same test, an equivalence interval valid without the test's shift model, a margin
  and one of four verdicts (:mod:`evaluators._verdict`); ``sequential`` swaps in the
  always-valid test and interval (a comparison looked at again as shards arrive).
- **The gate.** The gated metrics (``pass_rate`` unless named) decide
  :attr:`Comparison.regressed`. Several gated metrics, or several candidates against one
  baseline (:func:`compare_candidates`), form one family: their p-values are Holm-adjusted,
  and each interval is at the level its decision was made at, so it never contradicts it.

What can make a comparison misleading is said in ``warnings``: different dataset contents,
unpaired cases, unequal repeats, readings that are not values (per side and why), lost
cases, runs that did not complete (left out of latency, tokens and cost, so a run that
crashes fast does not make a version look faster), and a cost that is only tokens times one
price (not tested twice).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from evaluators import (
    SIGN_FLIP_DRAWS,
    PairedTest,
    exact_mean,
    holm,
    holm_levels,
    needed_cases,
    paired_test,
    verdict,
)

from .caveats import pairing_warnings, price_table_warning, value_warnings
from .errors import ExperimentError
from .metrics import (
    EMPTY,
    METRICS,
    ExperimentRuns,
    Margins,
    Metric,
    Missing,
    UnknownExperiment,
    UnknownMetric,
    score_metrics,
)
from .outcome import Comparison, Comparisons, MetricComparison

DEFAULT_GATE = ("pass_rate",)
LOST_CASES_LIMIT = 0.10  # a gated metric that lost more of its cases than this fails the gate
#: Scores shown by default besides the built-in metrics: the user's own (scorers, judges and labels).
DEFAULT_SCORE_SOURCES = frozenset({"code", "human", "llm"})

__all__ = ["DEFAULT_GATE", "LOST_CASES_LIMIT", "METRICS", "Comparison", "Comparisons", "ExperimentRuns", "Margins",
           "MetricComparison", "UnknownExperiment", "UnknownMetric", "compare_candidates", "compare_experiments"]


@dataclass
class _Side:
    """One experiment's readings of one metric over the paired cases: per case its values
    in repeat order, the readings that were not values by why, and the cases with any."""

    cases: dict[str, list[tuple[float, int, float]]] = field(default_factory=lambda: defaultdict(list))
    left_out: Counter[str] = field(default_factory=Counter)  # why -> runs
    recorded: set[str] = field(default_factory=set)
    unrecorded: Counter[str] = field(default_factory=Counter)  # case -> its runs without a reading at all

    @property
    def missing(self) -> int:
        """Runs whose reading is not a value (not those that did not complete)."""
        return sum(n for why, n in self.left_out.items() if why != "not_completed")


@dataclass
class _Tested:
    """One metric of one pair, tested at alpha, before the family decides."""

    metric: Metric
    gated: bool
    xa: list[Fraction]
    xb: list[Fraction]
    test: PairedTest
    cases: int
    lost: int
    missing: tuple[int, int]
    margin: float | None


@dataclass
class _Pair:
    a: str
    b: str
    paired: list[str]
    a_only: tuple[str, ...]
    b_only: tuple[str, ...]
    gate: tuple[str, ...]
    warnings: list[str]
    tested: list[_Tested]


def compare_experiments(store: Any, a: str, b: str, *, alpha: float = 0.05, metrics: Sequence[str] | None = None,
                        gate: Sequence[str] | None = None,
                        margin: float | str | Sequence[str] | Mapping[str, float | str] | None = None,
                        lower_is_better: Sequence[str] = (), higher_is_better: Sequence[str] = (),
                        strict: bool = False, sequential: bool = False, draws: int = SIGN_FLIP_DRAWS,
                        read: MutableMapping[str, ExperimentRuns] | None = None) -> Comparison:
    """Compare experiment ``b`` with ``a`` in ``store`` (see the module doc). ``metrics``:
    the metrics to report (default: the built-in ones some paired case has a value of, and
    the user's scores); ``gate``: the metrics that gate (default ``pass_rate`` when it is
    reported); ``margin``: :meth:`Margins.parse`; ``lower_is_better``/``higher_is_better``:
    score names whose direction is set here (over what their scorers declared);
    ``strict``: any case lost by a gated metric fails the gate; ``sequential``: always-valid
    results for a comparison looked at again as cases arrive; ``read``: experiments already
    read (name -> runs), filled as they are read, for a caller comparing several pairs of
    one store. :class:`UnknownExperiment` for a name without runs; ValueError
    (:class:`UnknownMetric`) for an unknown metric, a bad margin or an alpha outside (0, 0.5)."""
    return compare_candidates(store, a, [b], alpha=alpha, metrics=metrics, gate=gate, margin=margin,
                              lower_is_better=lower_is_better, higher_is_better=higher_is_better, strict=strict,
                              sequential=sequential, draws=draws, read=read).comparisons[0]


def compare_candidates(store: Any, a: str, candidates: Sequence[str], *, alpha: float = 0.05,
                       metrics: Sequence[str] | None = None, gate: Sequence[str] | None = None,
                       margin: float | str | Sequence[str] | Mapping[str, float | str] | None = None,
                       lower_is_better: Sequence[str] = (), higher_is_better: Sequence[str] = (),
                       strict: bool = False, sequential: bool = False, draws: int = SIGN_FLIP_DRAWS,
                       read: MutableMapping[str, ExperimentRuns] | None = None) -> Comparisons:
    """Every candidate against the baseline ``a`` (options as :func:`compare_experiments`),
    the gated metrics of all candidates one Holm family: the chance that any candidate's gate
    fails falsely stays within alpha."""
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be between 0 and 0.5, got {alpha}")
    if not candidates:
        raise ExperimentError("give at least one experiment to compare with the baseline")
    margins = Margins.parse(margin)
    for name in (a, *candidates):
        if not isinstance(name, str) or not name.strip():
            raise ExperimentError(f"an experiment name must be a text that is not blank, not {name!r}")
    # Among several candidates, each once and never the baseline: a name given twice would be a
    # second test in the Holm family and make every candidate's gate stricter for nothing.
    twice = next((name for i, name in enumerate(candidates) if name == a or name in candidates[:i]), None)
    if twice is not None and len(candidates) > 1:
        raise ExperimentError(f"experiment {twice!r} is given twice (as the baseline or as a candidate): "
                              "compare each experiment once")
    both = set(lower_is_better) & set(higher_is_better)
    if both:
        raise UnknownMetric(f"{sorted(both)[0]!r} is given as both lower and higher is better", "lower-is-better")
    read = {} if read is None else read
    for name in dict.fromkeys((a, *candidates)):
        if name not in read:
            read[name] = ExperimentRuns(store, name)
    options = _Options(alpha, metrics, gate, margins, tuple(lower_is_better), tuple(higher_is_better), draws,
                       sequential)
    pairs = [_prepare(store, read[a], read[b], options) for b in candidates]
    return _decide(a, pairs, options, strict)


@dataclass(frozen=True)
class _Options:
    alpha: float
    metrics: Sequence[str] | None
    gate: Sequence[str] | None
    margins: Margins
    lower: tuple[str, ...]
    higher: tuple[str, ...]
    draws: int
    sequential: bool


def _prepare(store: Any, ra: ExperimentRuns, rb: ExperimentRuns, o: _Options) -> _Pair:
    """One pair's metrics read, paired and tested at alpha (module doc)."""
    scored, warnings = score_metrics(ra, rb, lower=o.lower, higher=o.higher)
    known = {**METRICS, **scored}

    def resolve(name: str, option: str) -> str:
        if name not in known:
            raise UnknownMetric(f"unknown metric {name!r}; metrics are {', '.join(METRICS)} and the experiments' "
                                f"scores ({', '.join(n for n in known if n not in METRICS) or 'none'})", option)
        return name

    asked = [resolve(name, "metric") for name in dict.fromkeys(o.metrics or ())]
    gated = [resolve(name, "gate") for name in dict.fromkeys(o.gate or ())]
    for name in o.margins.by_name:
        if name not in known:
            raise UnknownMetric(f"margin {name}=… names an unknown metric; metrics are {', '.join(known)}", "margin")
    for names, option, lower in ((o.lower, "lower-is-better", True), (o.higher, "higher-is-better", False)):
        for name in names:
            resolve(name, option)
            if name in METRICS and METRICS[name].higher_is_better == lower:
                raise UnknownMetric(f"--{option} {name}: {name}'s direction is fixed ("
                                    f"{'higher' if METRICS[name].higher_is_better else 'lower'} is better)", option)
    cases_a, cases_b = _cases(ra), _cases(rb)
    paired = [c for c in cases_a if c in cases_b]
    warnings = pairing_warnings(store, ra, rb, cases_a, cases_b, paired) + warnings
    if o.gate is None:
        gated = [name for name in DEFAULT_GATE if not asked or name in asked]
    own = [n for n in known if n not in METRICS and {ra.sources.get(n), rb.sources.get(n)} & DEFAULT_SCORE_SOURCES]
    names = ([n for n in known if n in asked or n in gated] if asked
             else [*METRICS, *own, *(n for n in gated if n not in METRICS and n not in own)])
    paired_set = set(paired)
    sides: dict[str, tuple[_Side, _Side]] = {}
    for name in names:
        m = known[name]
        side_a, side_b = _side(m, ra, paired_set), _side(m, rb, paired_set)
        if not (side_a.cases or side_b.cases) and name not in asked and name not in gated:
            continue
        for side in (side_a, side_b):  # a run without the metric, in a case that has it on some side
            side.left_out["no_record"] = sum(n for c, n in side.unrecorded.items()
                                             if c in side_a.recorded or c in side_b.recorded)
        sides[name] = (side_a, side_b)
    if ("total_cost" in sides and "total_cost" not in gated and "total_cost" not in asked
            and (price := _one_price(ra, rb, paired_set)) is not None):
        del sides["total_cost"]
        warnings.append(f"total_cost is total_tokens times one price (${price * 1e6:.6g} per million tokens) in "
                        "every paired run: it is not tested apart from total_tokens")
    if "total_cost" in sides and (priced := price_table_warning(ra, rb, paired_set)):
        warnings.append(priced)
    warnings.extend(value_warnings({n: (sa.left_out, sb.left_out) for n, (sa, sb) in sides.items()}, ra.name,
                                   rb.name))
    tested = []
    for name, (side_a, side_b) in sides.items():
        m = known[name]
        both = [c for c in paired if side_a.cases.get(c) and side_b.cases.get(c)]
        xa, xb = [], []
        for c in both:
            k = min(len(side_a.cases[c]), len(side_b.cases[c]))
            xa.append(exact_mean(v for *_, v in sorted(side_a.cases[c])[:k]))
            xb.append(exact_mean(v for *_, v in sorted(side_b.cases[c])[:k]))
        cases = len(side_a.recorded | side_b.recorded)
        scale = (math.fsum(abs(float(x)) for x in (*xa, *xb)) / (2 * len(xa))) if xa else None
        test = paired_test(xa, xb, outcome=m.outcome, bounded=m.unit_interval, alpha=o.alpha, draws=o.draws,
                           sequential=o.sequential)
        tested.append(_Tested(m, name in gated, xa, xb, test, cases, cases - len(both),
                              (side_a.missing, side_b.missing), o.margins.of(m, scale)))
        if cases > len(both):
            warnings.append(f"{name}: {cases - len(both)} of {cases} paired case(s) have no value left on one side "
                            "and are left out of its test")
    return _Pair(ra.name, rb.name, paired, tuple(c for c in cases_a if c not in cases_b),
                 tuple(c for c in cases_b if c not in cases_a), tuple(gated), warnings, tested)


def _decide(a: str, pairs: list[_Pair], o: _Options, strict: bool) -> Comparisons:
    """The family's verdicts: Holm over every gated metric of every pair, intervals at the
    level each decision was made at, the cases inconclusive metrics would need, the gate."""
    alpha = o.alpha
    family = [(p, i) for p, pair in enumerate(pairs) for i, t in enumerate(pair.tested) if t.gated and t.test.n > 0]
    worse = {key: _p_worse(pairs, key) for key in family}
    better = {key: _p_better(pairs, key) for key in family}
    adjusted = len(family) > 1
    if adjusted:
        worse_adj = dict(zip(family, holm([worse[k] for k in family])))
        better_adj = dict(zip(family, holm([better[k] for k in family])))
        worse_level = dict(zip(family, holm_levels([worse[k] for k in family], alpha)))
        better_level = dict(zip(family, holm_levels([better[k] for k in family], alpha)))
    comparisons = []
    for p, pair in enumerate(pairs):
        results = []
        for i, t in enumerate(pair.tested):
            m, key = t.metric, (p, i)
            in_family = adjusted and key in worse_adj
            p_worse, p_better = t.test.p_worse(m.higher_is_better), t.test.p_better(m.higher_is_better)
            adj_worse, adj_better = (worse_adj[key], better_adj[key]) if in_family else (p_worse, p_better)
            level = alpha
            if in_family:
                level = (worse_level[key] if adj_worse < alpha else better_level[key] if adj_better < alpha
                         else min(worse_level[key], better_level[key]))
            test = t.test if level == alpha else paired_test(
                t.xa, t.xb, outcome=m.outcome, bounded=m.unit_interval, alpha=level, draws=o.draws,
                sequential=o.sequential)
            fails = t.gated and (test.n == 0 or t.lost > LOST_CASES_LIMIT * t.cases or (strict and t.lost > 0))
            common = dict(name=m.name, higher_is_better=m.higher_is_better, gated=t.gated, margin=t.margin,
                          holm=in_family, cases=t.cases, cases_lost=t.lost, runs_missing=t.missing,
                          missing_data_fails=fails)
            if test.n == 0:
                results.append(MetricComparison(n=0, a=None, b=None, delta=None, ci_low=None, ci_high=None,
                                                ci_level=test.ci_level, p_worse=None, p_better=None, p_value=None,
                                                test=None, effect_size=None, verdict="inconclusive",
                                                needed_cases=None, **common))
                continue
            said = verdict(adj_worse, adj_better, test.ci_low, test.ci_high, alpha=alpha,
                           margin=t.margin if t.margin is not None else 0.0, eq_low=test.eq_low, eq_high=test.eq_high)
            needed = None
            if said == "inconclusive" and not o.sequential:
                needed = needed_cases(t.xa, t.xb, alpha=alpha / len(family) if in_family else alpha,
                                      outcome=m.outcome, bounded=m.unit_interval, margin=t.margin)
            results.append(MetricComparison(
                n=test.n, a=test.a, b=test.b, delta=test.delta, ci_low=test.ci_low, ci_high=test.ci_high,
                ci_level=test.ci_level, p_worse=p_worse, p_better=p_better, p_value=min(adj_worse, adj_better),
                test=test.test, effect_size=test.effect_size, verdict=said, needed_cases=needed,
                eq_low=test.eq_low, eq_high=test.eq_high, eq_method=test.eq_method, **common))
        comparisons.append(Comparison(a=pair.a, b=pair.b, alpha=alpha, paired_cases=len(pair.paired),
                                      a_only=pair.a_only, b_only=pair.b_only, gate=pair.gate,
                                      warnings=tuple(pair.warnings), metrics=tuple(results),
                                      sequential=o.sequential, strict=strict))
    gates = tuple(dict.fromkeys(g for pair in pairs for g in pair.gate))
    return Comparisons(a=a, comparisons=tuple(comparisons), alpha=alpha, gate=gates)


def _p_worse(pairs: Sequence[_Pair], key: tuple[int, int]) -> float:
    t = pairs[key[0]].tested[key[1]]
    return t.test.p_worse(t.metric.higher_is_better)


def _p_better(pairs: Sequence[_Pair], key: tuple[int, int]) -> float:
    t = pairs[key[0]].tested[key[1]]
    return t.test.p_better(t.metric.higher_is_better)


def _cases(runs: ExperimentRuns) -> dict[str, int]:
    """Case -> its number of runs, in the order the cases were first written."""
    counts: dict[str, int] = {}
    for r in runs.runs:
        if r["case_id"] is not None:
            counts[r["case_id"]] = counts.get(r["case_id"], 0) + 1
    return counts


def _side(m: Metric, runs: ExperimentRuns, paired: set[str]) -> _Side:
    """``m``'s readings of the runs of the paired cases (module doc)."""
    side = _Side()
    values = m.values(runs)
    for position, r in enumerate(runs.runs):
        case = r["case_id"]
        if case not in paired:
            continue
        if m.completed_only and r["status"] != "completed":
            side.left_out["not_completed"] += 1
            side.recorded.add(case)
            continue
        if r["run_id"] not in values:
            side.unrecorded[case] += 1
            continue
        value = values[r["run_id"]]
        if value is not EMPTY:  # a row without a value (a cost without a price) does not make a case count
            side.recorded.add(case)
        if isinstance(value, Missing):
            side.left_out[value.why] += 1
        elif not math.isfinite(float(value)):
            side.left_out["non_finite"] += 1
        else:
            order = r["repeat_index"] if r["repeat_index"] is not None else math.inf
            side.cases[case].append((order, position, value))
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
