"""The report's compare view and a run's pass and scores, in a real headless Chromium (no
console error, nothing fetched): two experiments of a ReAct agent, the second a regressed
version, compared case by case with the statistics of ``harness compare``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harness import Store
from harness.experiment.compare import compare_experiments
from harness.view.comparison import p_text
from harness.view.report import write_report
from tests.view.conftest import harness_cli

REGRESSED = [f"q{i}" for i in range(8)]


@pytest.fixture(scope="module")
def report(compared, tmp_path_factory) -> Path:
    """The report of every run of the three experiments, each pair compared as the CLI does."""
    store = Store(compared.path)
    written = write_report(store, tmp_path_factory.mktemp("compare") / "runs.html",
                           compare=lambda a, b: compare_experiments(store, a, b).to_dict())
    store.close()
    return written.path


def _open(opened, report: Path, fragment: str = ""):
    page = opened.open(report, fragment)
    page.wait_for_selector("#compare[data-ready=yes]")
    return page


def _cases(page) -> list[str]:
    return page.eval_on_selector_all("#cmp-cases tr.case:not([hidden])", "rows => rows.map(r => r.dataset.case)")


def _entries(path: Path, run_id: str) -> int:
    """Node, LLM and tool executions the store recorded for a run (straight from SQLite)."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(DISTINCT event_id) FROM langgraph_events WHERE run_id = ? "
                          "AND event_kind IN ('node', 'llm', 'tool')", (run_id,)).fetchone()[0]


def test_the_view_opens_on_the_two_newest_experiments(opened, report):
    page = _open(opened, report)
    picked = [page.eval_on_selector(f"#cmp-{side}", "s => s.options[s.selectedIndex].text") for side in "ab"]
    assert picked == ["cand", "twice"]  # B: the newest
    assert "Comparison: cand → twice" in page.text_content("#cmp-stats")


def test_regressed_cases_come_before_improved_and_unchanged_ones(opened, report):
    page = _open(opened, report, "#compare=base,cand")
    shown = _cases(page)
    assert shown == [*REGRESSED, "spring", "atlantis", "plain"]
    outcomes = page.eval_on_selector_all("#cmp-cases tr.case td:nth-child(2)", "cells => cells.map(c => c.textContent)")
    assert outcomes[0] == "regressed" and outcomes[8] == "improved" and outcomes[-1] == "unchanged, passing"
    q0 = page.locator("#cmp-cases tr.case[data-case=q0] td")
    assert q0.nth(2).text_content() == "pass" and q0.nth(3).text_content() == "fail"
    assert q0.nth(4).text_content() == "The capital is Paris." and q0.nth(5).text_content() == "The capital is Springfield."


def test_the_statistics_shown_are_those_of_harness_compare_json(opened, report, compared):
    done = harness_cli("compare", "base", "cand", "--json", "--store", str(compared.path))
    expected = json.loads(done.stdout)
    page = _open(opened, report, "#compare=base,cand")
    shown = page.eval_on_selector_all("#cmp-stats tr[data-metric]", "rows => rows.map(r => [r.dataset.metric, "
                                      "r.dataset.verdict, r.dataset.pValue, r.querySelectorAll('td')[10].textContent])")
    assert [row[0] for row in shown] == [m["name"] for m in expected["metrics"]]
    for (name, verdict, p_value, p_cell), m in zip(shown, expected["metrics"]):
        assert verdict == m["verdict"] and float(p_value) == m["p_value"] and p_cell == p_text(m), name
    assert {r[0]: r[1] for r in shown}["pass_rate"] == "regressed"
    text = page.text_content("#cmp-stats")
    assert all(warning in text for warning in expected["warnings"])
    assert "regressed: pass_rate" in text


def test_the_filter_shows_the_cases_of_one_outcome(opened, report):
    page = _open(opened, report, "#compare=base,cand")
    for outcome, cases in (("improved", ["spring"]), ("unchanged-pass", ["plain"]), ("unchanged-fail", ["atlantis"]),
                           ("regressed", REGRESSED), ("all", [*REGRESSED, "spring", "atlantis", "plain"])):
        page.select_option("#cmp-filter", outcome)
        assert _cases(page) == cases, outcome
        assert page.text_content("#cmp-count") == f"{len(cases)} of 11 cases"
    assert page.eval_on_selector("#cmp-filter", "s => s.options[1].text") == "regressed (pass → fail) (8)"


def test_picking_two_experiments_compares_them_and_says_so_in_the_hash(opened, report):
    page = _open(opened, report)
    page.select_option("#cmp-a", label="cand")
    page.select_option("#cmp-b", label="base")
    page.wait_for_selector("#compare[data-ready=yes]")
    assert "Comparison: cand → base" in page.text_content("#cmp-stats")
    assert _cases(page)[0] == "spring"  # from cand to base, spring is the one that fell
    assert page.evaluate("location.hash") == "#compare=cand,base"
    page.click("#cmp-swap")
    page.wait_for_function("location.hash === '#compare=base,cand'")
    assert _cases(page)[:8] == REGRESSED


def test_a_click_on_a_case_opens_its_two_runs_waterfalls_side_by_side(opened, report, compared):
    page = _open(opened, report, "#compare=base,cand")
    page.click("#cmp-cases tr.case[data-case=q3]")
    page.wait_for_selector("#cmp-runs[data-ready=yes]")
    sides = page.locator("#cmp-runs .side")
    assert sides.count() == 2 and page.locator("#cmp-runs .waterfall svg").count() == 2
    for i, run_id in enumerate((compared.base["q3"], compared.cand["q3"])):
        assert sides.nth(i).locator(".run-link").text_content() == run_id
        assert sides.nth(i).locator(".bar").count() == _entries(compared.path, run_id)
    axes = page.eval_on_selector_all("#cmp-runs .waterfall svg", "svgs => svgs.map(s => "
                                     "[...s.querySelectorAll('text.axis')].map(t => t.textContent).join())")
    assert axes[0] == axes[1]  # one time axis for both
    assert page.evaluate("location.hash") == "#compare=base,cand&case=q3"
    sides.nth(1).locator(".bar[data-kind=tool]").click()
    assert sides.nth(1).locator(".panel .entry-head h3").text_content() == "tool call capital_of"
    assert sides.nth(0).locator(".panel .entry-head").count() == 0  # each side has its own panel


def test_enter_on_a_focused_case_opens_its_runs(opened, report, compared):
    page = _open(opened, report, "#compare=base,cand")
    page.focus("#cmp-cases tr.case[data-case=spring]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#cmp-runs[data-ready=yes]")
    assert page.locator("#cmp-runs .run-link").all_text_contents() == [compared.base["spring"],
                                                                       compared.cand["spring"]]


def test_a_link_to_a_case_of_a_pair_opens_its_runs_and_a_case_run_twice_offers_both(opened, report):
    page = _open(opened, report, "#compare=cand,twice&case=q0")
    page.wait_for_selector("#cmp-runs[data-ready=yes]")
    assert page.text_content("#cmp-runs h3") == "Case q0: improved"
    twice = page.locator("#cmp-runs .side").nth(1)
    assert twice.locator("select.repeat option").all_text_contents() == ["run 1 of 2", "run 2 of 2"]
    assert page.locator("#cmp-cases tr.case[data-case=q0] td").nth(3).text_content() == "1 of 2 pass"
    first = twice.locator(".run-link").text_content()
    twice.locator("select.repeat").select_option(label="run 2 of 2")
    page.wait_for_function("document.querySelectorAll('#cmp-runs .run-link')[1].textContent !== " + json.dumps(first))
    assert page.locator("#cmp-runs .waterfall svg").count() == 2


@pytest.mark.parametrize("fragment", ["#compare=nope,cand", "#compare=base", "#compare=base,base", "#compare=,",
                                      "#compare=%E0%A4%A,cand", "#compare=base,cand&case=nope", "#compare="])
def test_a_compare_hash_naming_no_pair_is_ignored_with_the_page_ready(opened, report, fragment):
    page = _open(opened, report, fragment)
    assert page.text_content("#count") == "26 of 26 runs"
    if "case=nope" in fragment:  # the pair opens, the case it cannot find is left out
        assert "Comparison: base → cand" in page.text_content("#cmp-stats")
    else:
        assert "Comparison: cand → twice" in page.text_content("#cmp-stats")
    assert page.locator("#cmp-runs").is_hidden()


def test_the_compare_view_keeps_the_page_from_scrolling_sideways_at_700_px(tabs, report):
    page = _open(tabs(700), report, "#compare=base,cand&case=q0")
    page.wait_for_selector("#cmp-runs[data-ready=yes]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 700


def test_the_run_list_says_whether_each_run_passed(opened, report, compared):
    page = _open(opened, report)
    heads = page.eval_on_selector_all("#head button", "bs => bs.map(b => b.textContent)")
    column = heads.index("pass")
    for run_id, word in ((compared.base["q0"], "yes"), (compared.cand["q0"], "no"), (compared.cand["plain"], "yes")):
        row = page.locator("#spacer .row", has_text=run_id)
        assert row.locator("span").nth(column).text_content() == word, run_id


def test_a_runs_panel_lists_every_score_with_its_pass_source_and_explanation(opened, report, compared):
    page = _open(opened, report, f"#run={compared.labelled}")
    page.wait_for_selector("#scores table")
    assert page.text_content("#scores .pass-line") == "pass: no a score that gates the run does not hold"
    rows = {r[0]: r[1:] for r in page.eval_on_selector_all(
        "#scores tr[data-score]", "rows => rows.map(r => [...r.querySelectorAll('td')].map(c => c.textContent))")}
    assert list(rows) == ["completed", "answer", "tool_f1", "agent_metrics", "short_answer", "reviewed"]
    assert rows["short_answer"] == ["4", "pass", "code · tests.view.conftest:short_answer", "4 words in the answer"]
    assert rows["reviewed"] == ["0", "fail", "human · harness label", "wrong city: Springfield is no capital"]
    assert rows["answer"][:2] == ["0", "fail"] and rows["answer"][2].startswith("rule")
    assert "answer 'The capital is Springfield.' against reference 'Paris'" in rows["answer"][3]
    assert rows["tool_f1"][1] == "does not gate"
    assert "pass: no" in page.text_content("#run-head .facts-line")
