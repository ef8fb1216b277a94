"""Plots as inline SVG text (matplotlib without pyplot: no files, no network, no display),
shared by the run report and the audit report.

Three rules keep a plot honest about small or flat data:

- a group of fewer than :data:`BOX_FROM` values is drawn as its points alone: a box over
  three values draws quartiles that do not exist;
- an axis whose values are all equal shows that one value (one tick, "all equal" in its
  label) instead of a range matplotlib invents around it (``-0.04 .. 0.04`` for costs that
  are all zero); a quantity that cannot be negative never gets a negative tick; a score
  with known bounds is drawn on its whole range, so a flat F1 of 1.0 reads as full marks;
- tick labels are positional numbers (:func:`~.formats.number`), never ``2.3e+02`` or an
  offset such as ``1e-5`` in the corner.

Each figure gets its own ``svg.hashsalt`` so the element ids of several SVGs in one HTML
page never collide; text stays text (``svg.fonttype = none``) so the page is searchable. A
name drawn as text (a node's, a model's) shows its control and invisible characters as
escapes (``\\x0b``), which keeps the SVG valid XML; a character the font lacks is drawn as
its box, without a warning on the terminal.
"""

from __future__ import annotations

import io
import random
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .formats import number

#: Groups with fewer values are drawn as points only.
BOX_FROM = 5
#: Groups with more values are drawn as a box with its outliers, without every point.
POINTS_UP_TO = 300
COLOURS = ("#2f6db5", "#d9822b", "#3a9a5b", "#b33a3a", "#7b5ea7", "#8c6d31", "#c2549d", "#5f6b7a")
_SIZE = (6.4, 3.6)


@dataclass(frozen=True, slots=True)
class Scale:
    """What is known about a quantity's range: ``bounds`` of a score (drawn whole), or only
    that it is never negative (counts, durations, money)."""

    label: str
    bounds: tuple[float, float] | None = None
    non_negative: bool = False


#: Characters a label shows as escapes: C0 (line breaks included), DEL and C1, and those that
#: hide or reorder text (bidirectional controls, zero-width characters, line separators).
_UNSHOWN = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
                      "\u2066-\u206f\ufeff\ufff9-\ufffb]")


def drawn(text: str) -> str:
    """``text`` as a plot draws it: its control and invisible characters as escapes."""
    return _UNSHOWN.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                        text)


def svg(figure: Any, salt: str) -> str:
    """The figure as an ``<svg>`` element."""
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9}), \
            warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def figure(panels: int = 1) -> tuple[Any, Sequence[Any]]:
    """A figure of ``panels`` side-by-side axes, light grid, no top or right spine."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(_SIZE[0] * (1 + 0.45 * (panels - 1)), _SIZE[1]))
    axes = fig.subplots(1, panels, squeeze=False)[0]
    for ax in axes:
        ax.spines[["top", "right"]].set_visible(False)
        ax.grid(True, axis="y", color="#e5e5e5", linewidth=0.8)
        ax.set_axisbelow(True)
    return fig, axes


def no_data(axes: Any, message: str) -> None:
    axes.axis("off")
    axes.text(0.5, 0.5, message, ha="center", va="center", color="#666666", transform=axes.transAxes)


def empty(salt: str, message: str) -> str:
    fig, (axes,) = figure()
    no_data(axes, message)
    return svg(fig, salt)


def fit_axis(axes: Any, which: str, values: Sequence[float], scale: Scale) -> None:
    """Limits, ticks and label of one axis (``"x"`` or ``"y"``) for ``values`` on ``scale``."""
    from matplotlib.ticker import FuncFormatter

    axis = axes.xaxis if which == "x" else axes.yaxis
    set_lim = axes.set_xlim if which == "x" else axes.set_ylim
    label = scale.label
    if scale.bounds is not None:
        low, high = scale.bounds
        margin = (high - low) * 0.04
        set_lim(low - margin, high + margin)
    elif values and min(values) == max(values):
        value = values[0]
        spread = abs(value) * 0.5 or 1.0
        set_lim(value - spread, value + spread)
        axis.set_ticks([value])
        label += " (all equal)"
    elif values and scale.non_negative:
        low, high = (axes.get_xlim() if which == "x" else axes.get_ylim())
        if low < 0:
            set_lim(0, high)
    axis.set_major_formatter(FuncFormatter(lambda v, _: number(v, 3)))
    (axes.set_xlabel if which == "x" else axes.set_ylabel)(label)


def draw_distribution(axes: Any, groups: Mapping[str, Sequence[float]], scale: Scale, salt: str,
                      horizontal: bool = False, empty_message: str = "no data") -> None:
    """One group per position: its points (jittered), and a box of its quartiles when it has
    at least :data:`BOX_FROM` values."""
    groups = {drawn(str(k)): [float(v) for v in values] for k, values in groups.items() if values}
    if not groups:
        no_data(axes, empty_message)
        return
    labels = list(groups)
    jitter = random.Random(salt + scale.label)
    for i, label in enumerate(labels, start=1):
        values = groups[label]
        colour = COLOURS[(i - 1) % len(COLOURS)]
        if len(values) >= BOX_FROM:
            axes.boxplot([values], positions=[i], orientation="horizontal" if horizontal else "vertical",
                         widths=0.5, showfliers=len(values) > POINTS_UP_TO, medianprops={"color": "#222222"},
                         boxprops={"color": "#555555"}, flierprops={"markersize": 3, "markeredgecolor": colour})
        if len(values) <= POINTS_UP_TO:
            offsets = [i + jitter.uniform(-0.12, 0.12) for _ in values]
            xs, ys = (values, offsets) if horizontal else (offsets, values)
            axes.scatter(xs, ys, s=14, alpha=0.75, color=colour, zorder=3)
    positions = range(1, len(labels) + 1)
    every = [v for values in groups.values() for v in values]
    if horizontal:
        axes.set_yticks(positions, labels)
        axes.set_ylim(0.4, len(labels) + 0.6)
        axes.grid(True, axis="x", color="#e5e5e5", linewidth=0.8)
        fit_axis(axes, "x", every, scale)
    else:
        tilt = len(labels) > 2
        axes.set_xticks(positions, labels, rotation=20 if tilt else 0, ha="right" if tilt else "center")
        axes.set_xlim(0.4, len(labels) + 0.6)
        fit_axis(axes, "y", every, scale)


def distribution(groups: Mapping[str, Sequence[float]], scale: Scale, salt: str, horizontal: bool = False,
                 empty_message: str = "no data") -> str:
    """:func:`draw_distribution` as a figure of its own."""
    fig, (axes,) = figure()
    draw_distribution(axes, groups, scale, salt, horizontal, empty_message)
    return svg(fig, salt)


def scatter(points: Sequence[tuple[float, float, str]], x: Scale, y: Scale, salt: str,
            empty_message: str = "no data") -> str:
    """(x, y, group) points, one colour per group, the legend outside the axes."""
    if not points:
        return empty(salt, empty_message)
    fig, (axes,) = figure()
    groups = list(dict.fromkeys(g for _, _, g in points))
    for i, group in enumerate(groups):
        mine = [(a, b) for a, b, g in points if g == group]
        axes.scatter([a for a, _ in mine], [b for _, b in mine], s=18, alpha=0.8, color=COLOURS[i % len(COLOURS)],
                     label=drawn(str(group)))
    fit_axis(axes, "x", [a for a, _, _ in points], x)
    fit_axis(axes, "y", [b for _, b, _ in points], y)
    axes.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return svg(fig, salt)
