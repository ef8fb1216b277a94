"""A run's pass and scores in the report, in a real headless Chromium (no console error,
nothing fetched): the run list's pass column, and every score of a run in its panel."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import Store
from harness.view.report import write_report


@pytest.fixture(scope="module")
def report(compared, tmp_path_factory) -> Path:
    return write_report(Store(compared.path), tmp_path_factory.mktemp("scores") / "runs.html").path


def _open(opened, report: Path, fragment: str = ""):
    return opened.open(report, fragment)


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
