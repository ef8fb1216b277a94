"""The report's experiment sections: a summary per experiment from its runs rows, and the
comparison of two experiments (the dict ``Comparison.to_dict()`` gives) with its intervals,
in the words of ``harness compare`` (:mod:`.comparison`).
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
from .comparison import (VERDICT_MEANINGS, ci_heading, gate_state, holm_sentence, interval_ends, level_note,
                         missing_sentence, needed_sentence, p_text)
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
    score_mean: float | None  # of run_score
    scored: int
    pass_rate: float | None = None  # passed runs / runs with a pass (runs.passed: evaluators.run_passed)
    judged: int = 0  # runs with a pass


def _p95(values: Sequence[float]) -> float:
    return values[0] if len(values) == 1 else statistics.quantiles(values, n=20, method="inclusive")[-1]


def run_score(row: Mapping[str, Any]) -> float | None:
    """What a run scored, for the summaries: its evaluation score (a credit run), else its
    answer check's score (``answer_score``: a run of an experiment whose case has one)."""
    for column in ("evaluation_score", "answer_score"):
        value = row.get(column)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
    return None


def summarise(name: str, rows: Sequence[Mapping[str, Any]]) -> ExperimentSummary:
    """One experiment's summary from its ``runs`` rows (:data:`~.read.LIST_COLUMNS`, and
    ``answer_score``)."""
    def present(column: str) -> list[float]:
        return [float(r[column]) for r in rows if isinstance(r.get(column), (int, float))
                and math.isfinite(r[column])]

    latency, tokens, costs = (present(c) for c in ("total_time_ms", "total_tokens", "total_cost"))
    scores = [s for s in map(run_score, rows) if s is not None]
    passed, judged = pass_rate(r.get("passed") for r in rows)
    return ExperimentSummary(
        name=name, runs=len(rows), completed=sum(r.get("status") == "completed" for r in rows),
        failed=sum(r.get("status") == "failed" for r in rows),
        cases=len({r["case_id"] for r in rows if r.get("case_id")}),
        latency_median_ms=aggregate(latency).median if latency else None,
        latency_p95_ms=_p95(latency) if latency else None,
        tokens_total=int(sum(tokens)), tokens_mean=aggregate(tokens).mean if tokens else None,
        cost_total=math.fsum(costs) if costs else None, priced=len(costs),
        score_mean=aggregate(scores).mean if scores else None, scored=len(scores),
        pass_rate=passed, judged=judged)


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
    """The experiments table, and the latency and score (:func:`run_score`) of their runs side
    by side."""
    if not summaries:
        return ""
    head = ("<tr><th>Experiment</th><th>Runs</th><th>Completed</th><th>Failed</th><th>Cases</th>"
            "<th>Pass rate</th><th>Latency median</th><th>Latency p95</th><th>Tokens (mean / run)</th><th>Cost (total)</th>"
            "<th>Score (mean)</th></tr>")
    body = "".join(
        f"<tr><td>{_e(s.name)}</td><td class=num>{s.runs:,}</td><td class=num>{s.completed:,}</td>"
        f"<td class=num>{s.failed:,}</td><td class=num>{s.cases:,}</td><td class=num>{_rate(s.pass_rate)}{_of(s.judged, s.runs, 'with a pass')}</td>"
        f"<td class=num>{duration(s.latency_median_ms)}</td><td class=num>{duration(s.latency_p95_ms)}</td>"
        f"<td class=num>{number(s.tokens_mean, 3)}</td>"
        f"<td class=num>{money(s.cost_total)}{_of(s.priced, s.runs, 'priced')}</td>"
        f"<td class=num>{score(s.score_mean)}{_of(s.scored, s.runs, 'scored')}</td></tr>"
        for s in summaries)
    names = [s.name for s in summaries]
    latency: dict[str, list[float]] = {n: [] for n in names}
    scored: dict[str, list[float]] = {n: [] for n in names}
    for r in rows:
        if r.get("experiment") in latency:
            if isinstance(r.get("total_time_ms"), (int, float)):
                latency[r["experiment"]].append(r["total_time_ms"])
            value = run_score(r)
            if value is not None:
                scored[r["experiment"]].append(value)
    figures = (
        ("Run latency per experiment",
         plots.distribution(latency, Scale("run latency (ms)", non_negative=True), "exp-latency")),
        ("Score per experiment (evaluation, else answer check)",
         plots.distribution(scored, Scale("score", (0.0, 1.0)), "exp-eval",
                            empty_message="no evaluation or answer scores")),
    )
    return (f"<section id=experiments><h2>Experiments</h2><div class=table-box><table class=summary><thead>{head}"
            f"</thead><tbody>{body}</tbody></table></div><div class=plots>"
            + "".join(f"<figure><figcaption>{_e(c)}</figcaption>{svg}</figure>" for c, svg in figures)
            + "</div></section>")


def _of(part: int, whole: int, what: str) -> str:
    return "" if part == whole else f" <span class=muted>({part:,} of {whole:,} {what})</span>"


#: How each compared metric's values read (the rest: three significant digits).
_METRIC_FORMATS = {"latency_ms": duration, "total_cost": money, "total_tokens": lambda v: number(v, 4)}
_VERDICT_COLOURS = {"regressed": "#b33a3a", "improved": "#3a9a5b", "no_change": "#3a9a5b",
                    "inconclusive": "#a07800"}


def _value(metric: str, value: Any) -> str:
    if not isinstance(value, (int, float)):
        return MISSING
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    return _METRIC_FORMATS.get(metric, lambda v: number(v, 3))(value)


def _signed(metric: str, value: Any) -> str:
    if not isinstance(value, (int, float)):
        return MISSING
    text = _value(metric, abs(value))
    return text if value == 0 else ("+" if value > 0 else "−") + text


def ci_svg(delta: float | None, low: float | None, high: float | None, verdict: str, margin: float | None = None,
           level: float | None = None) -> str:
    """The delta and its interval on an axis centred on zero (no change), the margin's
    band shaded; an end the test could not bound runs to the edge."""
    known = [abs(v) for v in (delta, low, high, margin) if isinstance(v, (int, float)) and math.isfinite(v)]
    reach = max(known, default=0.0) * 1.15 or 1.0
    width, height, mid = 160, 18, 80

    def x(v: float) -> float:
        return round(mid + max(-1.0, min(1.0, v / reach)) * (mid - 6), 2)

    colour = _VERDICT_COLOURS.get(verdict, "#5f6b7a")
    parts = []
    if isinstance(margin, (int, float)) and margin > 0:
        parts.append(f"<rect class=margin x={x(-margin)} y=3 width={round(x(margin) - x(-margin), 2)} height=12 "
                     "fill='#eef3ea'/>")
    parts.append(f"<line x1={mid} y1=2 x2={mid} y2={height - 2} stroke='#b8c2cc' stroke-dasharray='2 2'/>")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)):
        parts.append(f"<line class=ci x1={x(low)} y1=9 x2={x(high)} y2=9 stroke='{colour}' stroke-width=3 "
                     "stroke-linecap=round/>")
    if isinstance(delta, (int, float)):
        parts.append(f"<circle cx={x(delta)} cy=9 r=4 fill='{colour}'/>")
    label = f"{level:.0%}" if isinstance(level, (int, float)) else "the"
    return (f"<svg class=ci-plot width={width} height={height} viewBox='0 0 {width} {height}' role=img "
            f"aria-label='delta and {label} interval'>{''.join(parts)}</svg>")


def _breakable(name: str) -> str:
    """A name that may break after its underscores (``exact_binomial_discordant``), escaped."""
    return _e(name).replace("_", "_<wbr>")


def comparison_html(comparison: Mapping[str, Any]) -> str:
    """Two experiments compared, from ``Comparison.to_dict()``, in the words of ``harness
    compare``: per metric whether it gates, both values, the delta with its interval (drawn,
    with the margin), the p-value of the reported direction, the test, the effect size and
    the verdict; then the warnings, what inconclusive gated metrics would need, and the gate."""
    a, b = str(comparison.get("a")), str(comparison.get("b"))
    rows = []
    for m in comparison.get("metrics") or []:
        name, verdict = str(m.get("name")), str(m.get("verdict") or "")
        low, high = interval_ends(m)
        badge = (f"<span class='badge {_e(verdict)}'>{_e(verdict or MISSING)}</span>" if m.get("gated") else
                 f"<span class='badge ungated'>{_e(verdict or MISSING)}</span> <span class=muted>not gating</span>")
        rows.append(
            f"<tr class='verdict-{_e(verdict)}' data-metric='{_e(name)}' data-verdict='{_e(verdict)}' "
            f"data-p-value='{_e(repr(m.get('p_value')) if isinstance(m.get('p_value'), (int, float)) else '')}'>"
            f"<td>{_e(name)}</td><td>{'gate' if m.get('gated') else 'no'}</td>"
            f"<td>{'higher' if m.get('higher_is_better') else 'lower'}</td><td class=num>{_e(m.get('n', MISSING))}</td>"
            f"<td class=num>{_value(name, m.get('a'))}</td><td class=num>{_value(name, m.get('b'))}</td>"
            f"<td class=num>{_signed(name, m.get('delta'))}</td>"
            f"<td class='num ci'>{f'[{_signed(name, low)}, {_signed(name, high)}]{_e(level_note(m, comparison))}' if m.get('n') else MISSING}</td>"
            f"<td class=ci-plot>{ci_svg(m.get('delta'), low, high, verdict, m.get('margin'), m.get('ci_level'))}</td>"
            f"<td class=num>{'±' + _value(name, m.get('margin')) if isinstance(m.get('margin'), (int, float)) else MISSING}</td>"
            f"<td class=num>{_e(p_text(m))}</td>"
            f"<td class=test>{_breakable(m.get('test') or MISSING)}</td>"
            f"<td class=num>{_signed('', m.get('effect_size'))}</td>"
            f"<td>{badge}</td></tr>")
    notes = [f"<p><span class='badge warning'>warning</span> {_e(w)}</p>" for w in comparison.get("warnings") or []]
    if (holm := holm_sentence(comparison)) is not None:
        notes.append(f"<p>{_e(holm)}</p>")
    for m in comparison.get("metrics") or []:
        name = str(m.get("name"))
        if m.get("gated") and (sentence := missing_sentence(m, comparison)):
            notes.append(f"<p><span class='badge regressed'>missing data</span> {_e(sentence)}</p>")
        if m.get("gated") and (sentence := needed_sentence(
                m, comparison, lambda v, signed, name=name: (_signed if signed else _value)(name, v))):
            notes.append(f"<p>{_e(sentence)}</p>")
    state, sentence = gate_state(comparison)
    badge = {"passed": "ok", "missing_data": "regressed"}.get(state, state)
    gate = f"<span class='badge {badge}'>gate</span> {_e(sentence)}"
    meanings = "; ".join(f"{_e(v)}: {_e(text)}" for v, text in VERDICT_MEANINGS.items())
    return (f"<section class=comparison><h3>Comparison: {_e(a)} → {_e(b)}</h3>"
            f"<p>{gate} · {_e(comparison.get('paired_cases', MISSING))} paired cases · alpha "
            f"{_e(comparison.get('alpha', MISSING))} · delta = {_e(b)} − {_e(a)}</p>{''.join(notes)}"
            f"<table class=summary><thead><tr><th>Metric</th><th>Gate</th><th>Better</th><th>n</th>"
            f"<th>{_e(a)}</th><th>{_e(b)}</th><th>Delta</th><th>{_e(ci_heading(comparison))}</th><th></th>"
            f"<th>Margin</th><th>p</th><th>Test</th><th>Effect size</th><th>Verdict</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table><p class=muted>{meanings}</p></section>")
