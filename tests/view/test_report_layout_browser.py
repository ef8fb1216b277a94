"""The report as a newcomer reads it, in a real headless Chromium: every column of the compare
view and of every table in sight from 1,280 px (narrower, a table scrolls in its own box, never
the page); a link to a run and a click on its row bring the run into sight; the filter finds
what the list shows; agents' colours never look like an error; a run's pass cell says yes, no,
? (unknown) or — by the one definition."""

from __future__ import annotations

import colorsys
import re
from pathlib import Path

import pytest
from langgraph.graph import END, START, StateGraph

from harness import Harness, Store
from harness.experiment.compare import compare_experiments
from harness.view.report import write_report
from tests.harness import graphs

WIDTHS = [1280, 1920]

#: Every table cell of the first row of each table of the compare view, and the run list's head.
_EDGES = """() => {
  const cells = [];
  for (const table of document.querySelectorAll('#compare table, #experiments table, #scores table')) {
    const row = table.querySelector('tr');
    if (!row || !table.getClientRects().length) continue;
    for (const cell of row.children) {
      const box = cell.getBoundingClientRect();
      cells.push([(table.closest('[id]') || {}).id + ' ' + cell.textContent.trim(), box.left, box.right]);
    }
  }
  for (const b of document.querySelectorAll('#head > *')) {
    const box = b.getBoundingClientRect();
    cells.push(['list ' + b.textContent, box.left, box.right]);
  }
  return {cells, width: document.documentElement.clientWidth, page: document.documentElement.scrollWidth};
}"""


@pytest.fixture(scope="module")
def report(compared, tmp_path_factory) -> Path:
    store = Store(compared.path)
    written = write_report(store, tmp_path_factory.mktemp("layout") / "runs.html",
                           compare=lambda a, b: compare_experiments(store, a, b).to_dict())
    store.close()
    return written.path


def _compare(tabs, width, report, fragment="#compare=base,cand"):
    opened = tabs(width)
    page = opened.open(report, fragment)
    page.wait_for_selector("#compare[data-ready=yes]")
    return page


def assert_in_sight(page) -> None:
    found = page.evaluate(_EDGES)
    assert found["page"] <= found["width"], "the page scrolls sideways"
    outside = [(name, round(right)) for name, left, right in found["cells"] if left < 0 or right > found["width"]]
    assert outside == [], f"columns beyond the {found['width']} px window: {outside}"
    assert len(found["cells"]) > 40  # the comparison's, the cases', the experiments' and the list's columns


@pytest.mark.parametrize("width", WIDTHS)
def test_every_column_of_the_compare_view_and_of_every_table_is_in_sight(tabs, report, compared, width):
    page = _compare(tabs, width, report)
    headings = page.eval_on_selector_all("#cmp-stats th", "ths => ths.map(t => t.textContent)")
    assert {"Effect size", "Verdict", "Test", "p"} <= set(headings)
    assert_in_sight(page)
    page.locator("#cmp-cases tr.case[data-case=q0]").click()
    page.wait_for_selector("#cmp-runs[data-ready=yes]")
    for waterfall in page.query_selector_all("#cmp-runs .waterfall svg"):
        box = waterfall.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    page.goto(report.as_uri() + f"#run={compared.labelled}")
    page.wait_for_selector("#scores table")
    assert_in_sight(page)


def test_a_narrower_window_scrolls_the_comparison_in_its_box_not_the_page(tabs, report):
    page = _compare(tabs, 900, report)
    boxes = page.evaluate("() => [...document.querySelectorAll('#cmp-stats, #cmp-cases')].map("
                          "b => [b.scrollWidth, b.clientWidth])")
    assert any(scroll > client for scroll, client in boxes)  # a table wider than its box scrolls in it
    assert page.evaluate("document.documentElement.scrollWidth") <= 900


def _run_in_sight(page) -> None:
    page.wait_for_selector("#run:not([hidden]) #waterfall svg")
    page.wait_for_function("() => { const top = document.getElementById('run-head').getBoundingClientRect().top;"
                           " return top >= 0 && top < innerHeight - 60; }", timeout=5_000)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_link_to_a_run_brings_it_into_sight(tabs, report, compared, width):
    page = tabs(width).open(report, f"#run={compared.cand['q3'][:8]}")
    _run_in_sight(page)
    assert page.text_content("#run-head h2") == compared.cand["q3"]
    assert page.evaluate("window.scrollY") > 500  # the run view is far below the compare view


@pytest.mark.parametrize("width", WIDTHS)
def test_a_click_on_a_run_in_the_list_brings_it_into_sight(tabs, report, compared, width):
    page = tabs(width).open(report)
    page.wait_for_selector("#compare[data-ready=yes]")
    page.locator("#runs").scroll_into_view_if_needed()
    page.locator("#spacer .row", has_text=compared.base["q5"]).click()
    _run_in_sight(page)
    assert page.text_content("#run-head h2") == compared.base["q5"]


def test_the_filter_finds_what_the_list_shows(opened, report, compared):
    page = opened.open(report)
    heads = page.eval_on_selector_all("#head button", "bs => bs.map(b => b.textContent)")
    row = page.locator("#spacer .row", has_text=compared.cand["q3"])
    shown = row.locator("span").nth(heads.index("experiment")).text_content()
    assert shown == "cand / q3"
    ended = row.locator("span").nth(heads.index("ended")).text_content()
    page.fill("#filter", shown)
    assert page.text_content("#count").startswith("1 of ")
    assert page.locator("#spacer .row").count() == 1
    page.fill("#filter", ended)  # the time as the list shows it, in the reader's zone
    assert page.locator("#spacer .row", has_text=compared.cand["q3"]).count() == 1


def _hue(colour: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", colour)[:3])
    return colorsys.rgb_to_hls(r, g, b)[0] * 360


def test_agents_colours_keep_clear_of_the_error_colour(opened, tmp_path):
    """Fourteen agents (more than the palette holds): none of their colours is near the error red."""
    names = [f"step{i}" for i in range(14)]
    builder = StateGraph(graphs.State)
    for a, b in zip([START, *names], [*names, END]):
        if b != END:
            builder.add_node(b, lambda state: {"log": ["."]})
        builder.add_edge(a, b)
    h = Harness(tmp_path / "agents.db", writer="inline")
    with h.run(workflow="team", agent_names={n: f"agent {n}" for n in names}) as run:
        builder.compile().invoke({"log": []}, config=run.config)
    h.close()
    report = write_report(Store(tmp_path / "agents.db"), tmp_path / "agents.html").path
    page = opened.open(report, f"#run={run.run_id}")
    page.wait_for_selector("#waterfall .legend.agents")
    error = page.evaluate("getComputedStyle(document.querySelector('.key.error')).backgroundColor")
    colours = page.eval_on_selector_all(".legend.agents .key", "keys => keys.map(k => getComputedStyle(k).backgroundColor)")
    assert len(colours) == 14 and len(set(colours)) == 14
    for colour in colours:
        distance = abs(_hue(colour) - _hue(error)) % 360
        assert min(distance, 360 - distance) >= 30, colour


def said_paris(run, case):
    return "Paris" in str(run.outputs)


def broken_scorer(run, case):
    raise KeyError("no answer field")


def test_a_runs_pass_cell_follows_the_one_definition(opened, tmp_path):
    """Outside experiments: a failed run a scorer failed says no; a run whose only gate could
    not be made (a scorer that raised) has an unknown pass (?), in the list and in its panel;
    a run no score gates has none (—)."""
    h = Harness(tmp_path / "pass.db", writer="inline")
    ids = {}
    for key in ("failed", "unknown", "none"):
        run = h.run(workflow=key)
        try:
            with run:
                node = (lambda s, config: graphs.broken.invoke({"query": "q"}, config)) if key == "failed" else \
                    (lambda s: {"log": ["Paris"]})
                graphs.single_node(node).invoke({"log": []}, config=run.config)
        except ValueError:
            pass
        ids[key] = run.run_id
    h.rescore(runs=[ids["failed"]], scorers=[said_paris])
    h.rescore(runs=[ids["unknown"]], scorers=[broken_scorer])
    h.close()
    report = write_report(Store(tmp_path / "pass.db"), tmp_path / "pass.html").path
    page = opened.open(report)
    heads = page.eval_on_selector_all("#head button", "bs => bs.map(b => b.textContent)")
    for key, word in (("failed", "no"), ("unknown", "?"), ("none", "—")):
        cell = page.locator("#spacer .row", has_text=ids[key]).locator("span").nth(heads.index("pass"))
        assert cell.text_content() == word, key
    page.goto(report.as_uri() + f"#run={ids['unknown']}")
    page.wait_for_selector("#scores .pass-line")
    assert page.text_content("#scores .pass-line").startswith("pass: ? unknown: a score that could gate the run")
