"""The report's production view in a real headless Chromium: per workflow of the runs outside
experiments, the pass rate and scores over time and the latest windows, the same figures
``harness monitor`` prints, with no console error and nothing fetched."""

from __future__ import annotations

import pytest

from harness import Harness, Store
from harness.experiment.scoring import scorers_of
from harness.online import Worker, WorkerSettings
from harness.view.production import aligned, production_runs, series
from harness.view.report import write_report
from tests.online.support import graph, record_runs


def helped(run, case):
    return run.status == "completed" and len(run.run_id) % 2 == 0 or run.run_id[0] in "01234567"


def tone(run, case):
    return {"tone": 0.8}


@pytest.fixture(scope="module")
def production(tmp_path_factory):
    path = tmp_path_factory.mktemp("production") / "prod.db"
    record_runs(path, 40, workflow="support_bot")
    record_runs(path, 15, workflow="billing")
    h = Harness(path, writer="thread")
    h.experiment("offline", graph(), [{"id": "a", "input": {"question": "q"}}])
    h.close()
    store = Store(path)
    Worker(store, scorers_of([helped, tone]), WorkerSettings()).run(follow=False)
    store.close()
    return path


def test_the_production_view_draws_each_workflows_pass_rate_and_scores(opened, production, tmp_path):
    report = write_report(Store(production), tmp_path / "report.html").path
    page = opened.open(report)
    assert page.locator("#production h2").text_content() == "Production"
    workflows = page.eval_on_selector_all("#production .production", "ds => ds.map(d => d.dataset.workflow)")
    assert workflows == ["support_bot", "billing"]  # most runs first; the experiment's run is not production
    assert page.locator("#production .production svg").count() == 2
    legend = page.locator("#production .production >> nth=0").text_content()
    assert "pass rate" in legend and "tone (mean)" in legend
    store = Store(production)
    runs = production_runs(store)
    bounds = aligned(min(r["started"] for r in runs), max(r["started"] for r in runs))
    latest = next(w for w in reversed(series(store, bounds)[0].windows) if w.metrics.runs)
    cells = page.eval_on_selector_all("#production .production >> nth=0 >> tbody tr >> nth=0 >> td",
                                      "tds => tds.map(t => t.textContent)")
    assert cells[1] == str(latest.metrics.runs)
    p = latest.metrics.pass_rate
    assert cells[2].startswith(f"{round(p.value, 3):g}") and cells[2].endswith(f"of {p.n}")
    store.close()


def test_a_report_of_named_experiments_has_no_production_view(production, tmp_path):
    report = write_report(Store(production), tmp_path / "report.html", experiments=["offline"]).path
    assert "<section id=production>" not in report.read_text(encoding="utf-8")
