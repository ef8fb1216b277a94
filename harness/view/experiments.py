"""The report's experiment sections: a summary per experiment from its runs rows, and the
comparison of two experiments (the dict ``Comparison.to_dict()`` gives) with its intervals.
"""

from __future__ import annotations

import html
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluators import aggregate, pass_rate

from . import plots
from .formats import MISSING, duration, money, number, score
from .plots import Scale


@dataclass(frozen=True, slots=True)
class ExperimentSummary:
    """What an experiment's runs rows say: how many ran and finished, how long they took,
    what they used and how they scored. Costs sum the runs whose price is known
    (``priced`` of ``runs``); scores average the runs that have one."""

    name: str
    runs: int
    completed: int
    failed: int
    cases: int
    latency_median_ms: float | None
    latency_p95_ms: float | None
    tokens_total: int
    tokens_mean: float | None
    cost_total: float | None
    priced: int
    evaluation_mean: float | None
    evaluated: int
    pass_rate: float | None = None  # passed runs / runs with a pass (runs.passed: evaluators.run_passed)
    judged: int = 0  # runs with a pass


def _p95(values: Sequence[float]) -> float:
    return values[0] if len(values) == 1 else statistics.quantiles(values, n=20, method="inclusive")[-1]


def summarise(name: str, rows: Sequence[Mapping[str, Any]]) -> ExperimentSummary:
    """One experiment's summary from its ``runs`` rows (:data:`~.read.LIST_COLUMNS`)."""
    def present(column: str) -> list[float]:
        return [float(r[column]) for r in rows if isinstance(r.get(column), (int, float))
                and math.isfinite(r[column])]

    latency, tokens, costs, scores = (present(c) for c in ("total_time_ms", "total_tokens", "total_cost",
                                                              "evaluation_score"))
    return ExperimentSummary(
        name=name, runs=len(rows), completed=sum(r.get("status") == "completed" for r in rows),
        failed=sum(r.get("status") == "failed" for r in rows),
        cases=len({r["case_id"] for r in rows if r.get("case_id")}),
        latency_median_ms=aggregate(latency).median if latency else None,
        latency_p95_ms=_p95(latency) if latency else None,
        tokens_total=int(sum(tokens)), tokens_mean=aggregate(tokens).mean if tokens else None,
        cost_total=math.fsum(costs) if costs else None, priced=len(costs),
        evaluation_mean=aggregate(scores).mean if scores else None, evaluated=len(scores),
        **dict(zip(("pass_rate", "judged"), pass_rate(r.get("passed") for r in rows))))


def summarise_all(rows: Iterable[Mapping[str, Any]], order: Sequence[str] = ()) -> list[ExperimentSummary]:
    """A summary per experiment named in ``rows``: those of ``order`` first, in that order
    (the order they were asked for), then the others by name."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get("experiment"):
            groups[r["experiment"]].append(r)
    names = [n for n in dict.fromkeys(order) if n in groups] + sorted(set(groups) - set(order))
    return [summarise(name, groups[name]) for name in names]


def _rate(value: float | None) -> str:
    return MISSING if value is None else f"{value:.0%}"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def summaries_html(summaries: Sequence[ExperimentSummary], rows: Iterable[Mapping[str, Any]]) -> str:
    """The experiments table, and the latency and evaluation score of their runs side by side."""
    if not summaries:
        return ""
    head = ("<tr><th>Experiment</th><th>Runs</th><th>Completed</th><th>Failed</th><th>Cases</th>"
            "<th>Pass rate</th><th>Latency median</th><th>Latency p95</th><th>Tokens (mean / run)</th><th>Cost (total)</th>"
            "<th>Evaluation score (mean)</th></tr>")
    body = "".join(
        f"<tr><td>{_e(s.name)}</td><td class=num>{s.runs:,}</td><td class=num>{s.completed:,}</td>"
        f"<td class=num>{s.failed:,}</td><td class=num>{s.cases:,}</td><td class=num>{_rate(s.pass_rate)}{_of(s.judged, s.runs, 'with a pass')}</td>"
        f"<td class=num>{duration(s.latency_median_ms)}</td><td class=num>{duration(s.latency_p95_ms)}</td>"
        f"<td class=num>{number(s.tokens_mean, 3)}</td>"
        f"<td class=num>{money(s.cost_total)}{_of(s.priced, s.runs, 'priced')}</td>"
        f"<td class=num>{score(s.evaluation_mean)}{_of(s.evaluated, s.runs, 'scored')}</td></tr>"
        for s in summaries)
    names = [s.name for s in summaries]
    latency: dict[str, list[float]] = {n: [] for n in names}
    evaluation: dict[str, list[float]] = {n: [] for n in names}
    for r in rows:
        if r.get("experiment") in latency:
            if isinstance(r.get("total_time_ms"), (int, float)):
                latency[r["experiment"]].append(r["total_time_ms"])
            if isinstance(r.get("evaluation_score"), (int, float)):
                evaluation[r["experiment"]].append(r["evaluation_score"])
    figures = (
        ("Run latency per experiment",
         plots.distribution(latency, Scale("run latency (ms)", non_negative=True), "exp-latency")),
        ("Evaluation score per experiment",
         plots.distribution(evaluation, Scale("evaluation score", (0.0, 1.0)), "exp-eval",
                            empty_message="no evaluation scores")),
    )
    return (f"<section id=experiments><h2>Experiments</h2><table class=summary><thead>{head}</thead>"
            f"<tbody>{body}</tbody></table><div class=plots>"
            + "".join(f"<figure><figcaption>{_e(c)}</figcaption>{svg}</figure>" for c, svg in figures)
            + "</div></section>")


def _of(part: int, whole: int, what: str) -> str:
    return "" if part == whole else f" <span class=muted>({part:,} of {whole:,} {what})</span>"


#: How each compared metric's values read (the rest: three significant digits).
_METRIC_FORMATS = {"latency_ms": duration, "total_cost": money, "total_tokens": lambda v: number(v, 4)}
_VERDICT_COLOURS = {"regressed": "#b33a3a", "improved": "#3a9a5b", "unchanged": "#5f6b7a"}


def _value(metric: str, value: Any) -> str:
    if not isinstance(value, (int, float)):
        return MISSING
    return _METRIC_FORMATS.get(metric, lambda v: number(v, 3))(value)


def _signed(metric: str, value: Any) -> str:
    if not isinstance(value, (int, float)):
        return MISSING
    text = _value(metric, abs(value))
    return text if value == 0 else ("+" if value > 0 else "−") + text


def ci_svg(delta: float | None, low: float | None, high: float | None, verdict: str) -> str:
    """The delta and its confidence interval on an axis centred on zero (no change)."""
    known = [abs(v) for v in (delta, low, high) if isinstance(v, (int, float)) and math.isfinite(v)]
    reach = max(known, default=0.0) * 1.15 or 1.0
    width, height, mid = 160, 18, 80

    def x(v: float) -> float:
        return round(mid + v / reach * (mid - 6), 2)

    colour = _VERDICT_COLOURS.get(verdict, "#5f6b7a")
    parts = [f"<line x1={mid} y1=2 x2={mid} y2={height - 2} stroke='#b8c2cc' stroke-dasharray='2 2'/>"]
    if isinstance(low, (int, float)) and isinstance(high, (int, float)):
        parts.append(f"<line class=ci x1={x(low)} y1=9 x2={x(high)} y2=9 stroke='{colour}' stroke-width=3 "
                     "stroke-linecap=round/>")
    if isinstance(delta, (int, float)):
        parts.append(f"<circle cx={x(delta)} cy=9 r=4 fill='{colour}'/>")
    return (f"<svg class=ci-plot width={width} height={height} viewBox='0 0 {width} {height}' role=img "
            f"aria-label='delta and 95% interval'>{''.join(parts)}</svg>")


def comparison_html(comparison: Mapping[str, Any]) -> str:
    """Two experiments compared, from ``Comparison.to_dict()``: per metric both values, the
    delta with its 95% interval (drawn), the test and its p-value, the effect size and the
    verdict; the cases that could not be paired are named."""
    a, b = str(comparison.get("a")), str(comparison.get("b"))
    regressed = bool(comparison.get("regressed"))
    unpaired = comparison.get("unpaired") or {}
    a_only, b_only = list(unpaired.get("a_only") or []), list(unpaired.get("b_only") or [])
    rows = []
    for m in comparison.get("metrics") or []:
        name, verdict = str(m.get("name")), str(m.get("verdict") or "")
        p = m.get("p_value")
        rows.append(
            f"<tr class='verdict-{_e(verdict)}'><td>{_e(name)}</td>"
            f"<td>{'higher' if m.get('higher_is_better') else 'lower'}</td><td class=num>{_e(m.get('n', MISSING))}</td>"
            f"<td class=num>{_value(name, m.get('a'))}</td><td class=num>{_value(name, m.get('b'))}</td>"
            f"<td class=num>{_signed(name, m.get('delta'))}</td>"
            f"<td class=num>[{_signed(name, m.get('ci_low'))}, {_signed(name, m.get('ci_high'))}]</td>"
            f"<td>{ci_svg(m.get('delta'), m.get('ci_low'), m.get('ci_high'), verdict)}</td>"
            f"<td class=num>{number(p, 3) if isinstance(p, (int, float)) else MISSING}</td>"
            f"<td>{_e(m.get('test') or MISSING)}</td><td class=num>{_signed('', m.get('effect_size'))}</td>"
            f"<td><span class='badge {_e(verdict)}'>{_e(verdict or MISSING)}</span></td></tr>")
    unpaired_text = "".join(
        f"<p class=muted>{len(ids):,} case{'s' if len(ids) != 1 else ''} only in {_e(side)}: "
        f"{_e(', '.join(map(str, ids[:20])))}{' …' if len(ids) > 20 else ''}</p>"
        for side, ids in ((a, a_only), (b, b_only)) if ids)
    verdict = ("<span class='badge regressed'>regressed</span> a quality metric is worse with its interval "
               "wholly on the worse side" if regressed else
               "<span class='badge unchanged'>no regression</span> no quality metric regressed")
    return (f"<section id=comparison><h2>Comparison: {_e(a)} → {_e(b)}</h2>"
            f"<p>{verdict} · {_e(comparison.get('paired_cases', MISSING))} paired cases · alpha "
            f"{_e(comparison.get('alpha', MISSING))} · delta = {_e(b)} − {_e(a)}, 95% paired bootstrap interval</p>"
            f"{unpaired_text}<table class=summary><thead><tr><th>Metric</th><th>Better</th><th>n</th>"
            f"<th>{_e(a)}</th><th>{_e(b)}</th><th>Delta</th><th>95% CI</th><th></th><th>p</th><th>Test</th>"
            f"<th>Effect size</th><th>Verdict</th></tr></thead><tbody>{''.join(rows)}</tbody></table></section>")
