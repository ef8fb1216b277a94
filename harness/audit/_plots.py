"""The report's plots as inline SVG text (matplotlib, no pyplot, no files, no network).

Each figure gets its own ``svg.hashsalt`` so the element ids of several SVGs in one HTML
page never collide; text stays text (``svg.fonttype = none``) so the page is searchable.
"""

from __future__ import annotations

import io
import random
from collections.abc import Mapping, Sequence

from ._model import PlotData

_SIZE = (6.4, 3.6)
_COLOURS = ("#2f6db5", "#d9822b", "#3a9a5b", "#b33a3a", "#7b5ea7", "#8c6d31", "#c2549d", "#5f6b7a")


def _svg(figure, salt: str) -> str:
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9}):
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _figure(panels: int = 1):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(_SIZE[0] * (1 + 0.45 * (panels - 1)), _SIZE[1]))
    axes = figure.subplots(1, panels, squeeze=False)[0]
    for ax in axes:
        ax.spines[["top", "right"]].set_visible(False)
        ax.grid(True, axis="y", color="#e5e5e5", linewidth=0.8)
        ax.set_axisbelow(True)
    return figure, axes


def _empty(salt: str, message: str) -> str:
    figure, (axes,) = _figure()
    _no_data(axes, message)
    return _svg(figure, salt)


def _no_data(axes, message: str) -> None:
    axes.axis("off")
    axes.text(0.5, 0.5, message, ha="center", va="center", color="#666666", transform=axes.transAxes)


def _draw(axes, groups: Mapping[str, Sequence[float]], label: str, salt: str, horizontal: bool = False,
          empty: str = "no data") -> None:
    """Box plots with every value drawn as a jittered dot."""
    groups = {k: list(v) for k, v in groups.items() if v}
    if not groups:
        _no_data(axes, empty)
        return
    labels = list(groups)
    data = [groups[k] for k in labels]
    axes.boxplot(data, orientation="horizontal" if horizontal else "vertical", widths=0.5, showfliers=False,
                 medianprops={"color": "#222222"}, boxprops={"color": "#555555"})
    jitter = random.Random(salt + label)
    for i, values in enumerate(data, start=1):
        offsets = [i + jitter.uniform(-0.12, 0.12) for _ in values]
        xs, ys = (values, offsets) if horizontal else (offsets, values)
        axes.scatter(xs, ys, s=12, alpha=0.7, color=_COLOURS[(i - 1) % len(_COLOURS)], zorder=3)
    if horizontal:
        axes.set_yticks(range(1, len(labels) + 1), labels)
        axes.set_xlabel(label)
        axes.grid(True, axis="x", color="#e5e5e5", linewidth=0.8)
    else:
        axes.set_xticks(range(1, len(labels) + 1), labels, rotation=20 if len(labels) > 2 else 0,
                        ha="right" if len(labels) > 2 else "center")
        axes.set_ylabel(label)


def _distribution(groups: Mapping[str, Sequence[float]], salt: str, label: str, horizontal: bool = False,
                  empty: str = "no data") -> str:
    figure, (axes,) = _figure()
    _draw(axes, groups, label, salt, horizontal, empty)
    return _svg(figure, salt)


def scores_by_model(plots: PlotData) -> str:
    """One panel per score (evaluation, judge overall, credit score), one box per model."""
    figure, panels = _figure(len(plots.scores_by_model))
    for axes, (score, groups) in zip(panels, plots.scores_by_model.items()):
        _draw(axes, groups, score, "scores", empty=f"no {score}")
    figure.tight_layout()
    return _svg(figure, "scores")


def cost_vs_score(plots: PlotData) -> str:
    if not plots.cost_vs_score:
        return _empty("cost", "no runs with both a known cost and an evaluation score")
    figure, (axes,) = _figure()
    models = list(dict.fromkeys(m for _, _, m in plots.cost_vs_score))
    for i, model in enumerate(models):
        points = [(c, s) for c, s, m in plots.cost_vs_score if m == model]
        axes.scatter([c for c, _ in points], [s for _, s in points], s=18, alpha=0.8,
                     color=_COLOURS[i % len(_COLOURS)], label=model)
    axes.set_xlabel("run cost (USD)")
    axes.set_ylabel("evaluation score")
    axes.legend(frameon=False, fontsize=8)
    return _svg(figure, "cost")


def latency_by_node(plots: PlotData) -> str:
    ordered = dict(sorted(plots.latency_by_node.items(), key=lambda kv: sorted(kv[1])[len(kv[1]) // 2]))
    return _distribution(ordered, "latency", "node duration (ms)", horizontal=True,
                         empty="no node events with a duration")


def f1_by_type(plots: PlotData) -> str:
    return _distribution(plots.f1_by_type, "f1", "tool-selection F1", empty="no tool selections")
