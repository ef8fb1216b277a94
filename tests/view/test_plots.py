"""Plots that are honest about small and flat data (shared by the run and audit reports)."""

import re

from matplotlib.collections import PathCollection

from harness.view import plots
from harness.view.plots import Scale


def _drawn(groups, scale, horizontal=False):
    fig, (axes,) = plots.figure()
    plots.draw_distribution(axes, groups, scale, "test", horizontal=horizontal)
    fig.canvas.draw()  # matplotlib settles limits and tick labels when drawn
    return axes


def _tick_labels(axis):
    return [t.get_text() for t in axis.get_ticklabels() if t.get_text()]


def test_a_group_of_fewer_than_five_values_is_drawn_as_its_points_without_a_box():
    axes = _drawn({"small": [0.2, 0.5, 0.9], "large": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}, Scale("score", (0, 1)))
    boxes = [line for line in axes.lines if len(line.get_xdata()) == 5]  # a box is one closed 5-point line
    assert len(boxes) == 1 and min(boxes[0].get_xdata()) > 1.5  # only the group at position 2 has a box
    points = [c for c in axes.collections if isinstance(c, PathCollection)]
    assert sorted(len(c.get_offsets()) for c in points) == [3, 6]


def test_an_axis_whose_values_are_all_equal_shows_that_value_alone():
    axes = _drawn({"a": [0.0, 0.0, 0.0], "b": [0.0, 0.0]}, Scale("run cost (USD)", non_negative=True))
    assert list(axes.get_yticks()) == [0.0]
    assert _tick_labels(axes.yaxis) == ["0"]
    assert axes.get_ylabel() == "run cost (USD) (all equal)"


def test_a_bounded_score_is_drawn_on_its_whole_range_even_when_flat():
    axes = _drawn({"public": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]}, Scale("tool-selection F1", (0.0, 1.0)))
    low, high = axes.get_ylim()
    assert low < 0.0 and high > 1.0 and high - low < 1.2


def test_a_quantity_that_cannot_be_negative_gets_no_negative_tick():
    axes = _drawn({"n": [0.0, 0.5, 20.0, 1.0, 3.0]}, Scale("latency (ms)", non_negative=True), horizontal=True)
    assert axes.get_xlim()[0] >= 0


def test_tick_labels_are_positional_numbers_never_scientific_or_offset():
    for values in ([230.0, 231.5, 233.0], [0.00001, 0.00002, 0.00004], [1.5e6, 2.5e6, 3e6]):
        axes = _drawn({"g": values}, Scale("value"))
        labels = _tick_labels(axes.yaxis)
        assert labels and not any(re.search(r"\de[+-]?\d", label) for label in labels), labels
        assert axes.yaxis.get_offset_text().get_text() == ""


def test_each_figure_is_an_inline_svg_with_text_kept_as_text():
    page = plots.distribution({"a": [1.0, 2.0]}, Scale("x"), "salt-a")
    assert page.startswith("<svg") and "<text" in page and "http://" not in page.split("xmlns", 1)[0]
    assert plots.empty("e", "nothing here").count("nothing here") == 1
