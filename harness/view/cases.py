"""The report's compare view as data: each experiment's cases, carried once per experiment,
and the comparison of every ordered pair of the newest experiments.

A case's row says, per experiment, how its runs went: their pass (the mean over the runs
that have one, as ``harness compare`` reduces repeats), the answer (what the answer check
compared, else the run's output), every score (the scores sheet: the mean of its values and
of its passes), latency and tokens (the mean over completed runs, as ``compare`` counts
them). Which case regressed is then a matter of two numbers, decided in the page for the
pair the reader picks; the statistics of a pair are ``harness compare``'s own, computed by
the ``compare`` function the caller gives (the view runs no test of its own) and rendered
with :func:`.experiments.comparison_html`.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluators import mean_of_repeats

from .experiments import comparison_html
from .formats import abbreviate
from .model import RunView

#: The newest experiments of a report the compare view pairs: every ordered pair of them is
#: compared when the report is written (132 comparisons at most). Older experiments keep their
#: summary; ``harness report --experiment A --experiment B`` compares any two.
COMPARE_EXPERIMENTS = 12
#: Characters of a case's answer the compare view carries (the run's panel has it whole).
ANSWER_CHARS = 400
#: Characters of a score's error the compare view carries.
ERROR_CHARS = 200

#: ``compare(a, b)``: experiment ``b`` against ``a`` as ``Comparison.to_dict()`` gives it.
Compare = Callable[[str, str], Mapping[str, Any]]


@dataclass(slots=True)
class _Run:
    """What the compare view needs of one run of a case."""

    index: int  # its place in the report's run list
    repeat: int
    passed: int | None
    completed: bool
    latency_ms: float | None
    tokens: float | None
    answer: str | None
    scores: dict[str, tuple[float | None, float | None, str | None]]  # name -> value, passed, error


@dataclass
class CaseTable:
    """The runs of the experiments the compare view pairs, gathered as the report reads its
    runs (newest first): the ``named`` experiments (the order they were asked for), else the
    newest, at most ``limit`` of them."""

    named: Sequence[str] = ()
    limit: int = COMPARE_EXPERIMENTS
    _runs: dict[str, dict[str, list[_Run]]] = field(default_factory=dict)
    _seen: dict[str, None] = field(default_factory=dict)  # every experiment of the report, newest first

    def add(self, index: int, view: RunView) -> None:
        """Note run ``index`` of the report, if it is a case of an experiment the view pairs."""
        run = view.run
        experiment, case = run.get("experiment"), run.get("case_id")
        if not experiment:
            return
        self._seen.setdefault(experiment)
        if experiment not in self._runs:
            if not self._pairs(experiment):
                return
            self._runs[experiment] = {}
        if case is None:
            return
        scores: dict[str, tuple[float | None, float | None, str | None]] = {}
        for s in view.scores.get("list") or []:
            scores.setdefault(str(s.get("name")), (_finite(s.get("value")), _finite(s.get("passed")),
                                                   abbreviate(s.get("error"), ERROR_CHARS) or None))
        completed = run.get("status") == "completed"
        self._runs[experiment].setdefault(str(case), []).append(_Run(
            index=index, repeat=int(run.get("repeat_index") or 0), passed=run.get("passed"), completed=completed,
            latency_ms=_finite(run.get("total_time_ms")), tokens=_finite(run.get("total_tokens")),
            answer=shown_answer(view), scores=scores))

    def _pairs(self, experiment: str) -> bool:
        """Whether the view pairs ``experiment``, met for the first time: one of the first
        ``limit`` named, or, naming none, while fewer than ``limit`` newer ones are taken."""
        if self.named:
            return experiment in list(dict.fromkeys(self.named))[:self.limit]
        return len(self._runs) < self.limit

    @property
    def experiments(self) -> list[str]:
        """The experiments the view pairs: as named, else newest first."""
        if self.named:
            return [name for name in dict.fromkeys(self.named) if name in self._runs]
        return list(self._runs)

    @property
    def left_out(self) -> list[str]:
        """The report's experiments beyond :attr:`limit` (summarised, not paired)."""
        return [name for name in self._seen if name not in self._runs]

    def default_pair(self) -> tuple[str, str] | None:
        """The pair shown first: the first two named (A the first), else the two newest (B the newest)."""
        names = self.experiments
        if len(names) < 2:
            return None
        return (names[0], names[1]) if self.named else (names[1], names[0])

    def data(self) -> dict[str, Any]:
        """Per experiment: its score names and its cases (in the order they ran), each
        ``{"id", "runs": [run indices by repeat], "p": pass mean, "pn": runs with a pass,
        "ans": the first run's answer, "ms", "tok": means over completed runs, "s": per score
        name [value mean, pass mean] or null, "e": {score name: its first error}}``."""
        out = {}
        for experiment in self.experiments:
            cases = self._runs[experiment]
            names = list(dict.fromkeys(name for runs in cases.values() for r in runs for name in r.scores))
            rows = [_case(case, sorted(runs, key=lambda r: r.repeat), names)
                    for case, runs in reversed(cases.items())]  # read newest first: the oldest case first
            out[experiment] = {"names": names, "cases": rows}
        return out


def _case(case: str, runs: list[_Run], names: Sequence[str]) -> dict[str, Any]:
    passes = [float(r.passed) for r in runs if r.passed is not None]
    row: dict[str, Any] = {
        "id": case, "runs": [r.index for r in runs], "p": mean_of_repeats(passes), "pn": len(passes),
        "ans": runs[0].answer,
        "ms": mean_of_repeats(r.latency_ms for r in runs if r.completed and r.latency_ms is not None),
        "tok": mean_of_repeats(r.tokens for r in runs if r.completed and r.tokens is not None),
    }
    cells: list[Any] = []
    errors = {}
    for name in names:
        got = [r.scores[name] for r in runs if name in r.scores]
        if not got:
            cells.append(None)
            continue
        cells.append([mean_of_repeats(v for v, _, _ in got if v is not None),
                      mean_of_repeats(p for _, p, _ in got if p is not None)])
        if error := next((e for _, _, e in got if e), None):
            errors[name] = error
    row["s"] = cells
    if errors:
        row["e"] = errors
    return row


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def shown_answer(view: RunView) -> str | None:
    """A run's answer as the compare view shows it: what its case's answer check compared;
    without a check, its output (the last AI message's text when the output is messages, the
    output's JSON otherwise), on one line of at most :data:`ANSWER_CHARS` characters."""
    case = view.scores.get("case") or {}
    checked = (case.get("answer") or {}).get("answer") if isinstance(case, Mapping) else None
    if checked is not None:
        return abbreviate(checked, ANSWER_CHARS)
    output = view.run.get("outputs")
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except ValueError:
            return abbreviate(output, ANSWER_CHARS) or None
    messages = output.get("messages") if isinstance(output, Mapping) else None
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, Mapping) and (message.get("type") or message.get("role")) in ("ai", "assistant"):
                content = message.get("content")
                if isinstance(content, str) and content:
                    return abbreviate(content, ANSWER_CHARS)
    return abbreviate(output, ANSWER_CHARS) or None


def comparisons(compare: Compare | None, names: Sequence[str]) -> Iterable[tuple[int, int, str]]:
    """Every ordered pair of ``names`` (by their places) compared with ``compare`` and
    rendered in the words of ``harness compare``; nothing without ``compare``."""
    if compare is None:
        return
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                yield i, j, comparison_html(compare(a, b))


#: The case filter's choices: an outcome of a case between A and B (decided in the page).
OUTCOMES = (("all", "all cases"), ("regressed", "regressed (pass → fail)"), ("improved", "improved (fail → pass)"),
            ("unchanged-pass", "unchanged, passing"), ("unchanged-fail", "unchanged, failing"))


@dataclass(frozen=True, slots=True)
class CompareView:
    """The compare view's parts in the page: its section (filled by the script), what the
    inline data says of it, and what comes after the script (the cases of every experiment,
    once each, and a template per ordered pair with its statistics)."""

    section: str
    data: dict[str, Any] | None
    after: str


def compare_view(table: CaseTable, compare: Compare | None,
                 to_script: Callable[[Any], str]) -> CompareView:
    """The compare view of ``table``'s experiments (none with fewer than two); ``to_script``
    writes JSON that cannot end the script element it sits in."""
    names, pair = table.experiments, table.default_pair()
    if pair is None:
        return CompareView("", None, "")
    left_out = table.left_out
    note = (f"<p class=muted>{len(left_out):,} older experiment(s) ({_e(', '.join(left_out[:5]))}"
            f"{' …' if len(left_out) > 5 else ''}) are summarised above and not paired here: the compare view "
            f"pairs the {len(names):,} newest. <code>harness report --experiment A --experiment B</code> pairs "
            "any two.</p>" if left_out else "")
    options = "".join(f"<option value='{_e(value)}'>{_e(label)}</option>" for value, label in OUTCOMES)
    section = (
        "<section id=compare><h2>Compare two experiments</h2><div class=controls>"
        "<label>A (baseline) <select id=cmp-a></select></label>"
        "<button type=button id=cmp-swap class=plain aria-label='Swap A and B'>⇄ swap</button>"
        "<label>B (candidate) <select id=cmp-b></select></label></div>"
        f"{note}<div id=cmp-stats></div><h3>Cases</h3>"
        "<p class=muted>One row per case: its pass in A and in B (the mean over a case's runs when it ran several "
        "times), its answer, every score (A → B), latency and tokens; regressions first, then improvements. Click a "
        "case to see its two runs side by side.</p>"
        f"<div class=controls><label>Show <select id=cmp-filter>{options}</select></label>"
        "<span id=cmp-count class=muted></span></div>"
        "<div id=cmp-cases></div><div id=cmp-runs hidden></div></section>")
    templates = "".join(f"<template id=cmp-{i}-{j}>{body}</template>" for i, j, body in comparisons(compare, names))
    after = (f"<script type=application/json id=report-cases>{to_script(table.data())}</script>"
             f"<div hidden>{templates}</div>")
    data = {"experiments": names, "default": [names.index(pair[0]), names.index(pair[1])],
            "stats": compare is not None}
    return CompareView(section, data, after)


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)
