"""The audit report's plots, drawn with the run view's plotting (:mod:`harness.view.plots`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..schema import CREDIT_SCORE_RANGE
from ..secrets.redact import host_redactor
from ..view import plots
from ..view.plots import Scale
from ._model import PlotData

_UNIT = (0.0, 1.0)
#: The range each plotted score can take, so a flat score reads against its whole scale.
_SCORE_SCALES = {
    "evaluation score": Scale("evaluation score", _UNIT),
    "judge overall": Scale("judge overall", _UNIT),
    "credit score": Scale("credit score", (float(CREDIT_SCORE_RANGE[0]), float(CREDIT_SCORE_RANGE[1]))),
}


def _named(groups: Mapping[str, Sequence[float]]) -> dict[str, list[float]]:
    """The groups under redacted names (a model or node name is drawn as text in the SVG)."""
    redact = host_redactor()
    named: dict[str, list[float]] = {}
    for name, values in groups.items():
        named.setdefault(redact(str(name)), []).extend(values)
    return named


def scores_by_model(data: PlotData) -> str:
    """One panel per score (evaluation, judge overall, credit score), one group per model."""
    fig, panels = plots.figure(len(data.scores_by_model))
    for axes, (score, groups) in zip(panels, data.scores_by_model.items()):
        plots.draw_distribution(axes, _named(groups), _SCORE_SCALES.get(score, Scale(score)), "scores",
                                empty_message=f"no {score}")
    fig.tight_layout()
    return plots.svg(fig, "scores")


def cost_vs_score(data: PlotData) -> str:
    redact = host_redactor()
    points = [(cost, score, redact(str(model))) for cost, score, model in data.cost_vs_score]
    return plots.scatter(points, Scale("run cost (USD)", non_negative=True),
                         _SCORE_SCALES["evaluation score"], "cost",
                         empty_message="no runs with both a known cost and an evaluation score")


def latency_by_node(data: PlotData) -> str:
    ordered = dict(sorted(_named(data.latency_by_node).items(), key=lambda kv: sorted(kv[1])[len(kv[1]) // 2]))
    return plots.distribution(ordered, Scale("node duration (ms)", non_negative=True), "latency", horizontal=True,
                              empty_message="no node events with a duration")


def f1_by_type(data: PlotData) -> str:
    return plots.distribution(_named(data.f1_by_type), Scale("tool-selection F1", _UNIT), "f1",
                              empty_message="no tool selections")
