"""The run report in a real headless Chromium (Debian's, driven by Playwright, which
downloads no browser): no console error, no request beyond the file, a click opens a run
whose waterfall has one bar per recorded node, LLM and tool call."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from harness import Store
from harness.view.report import write_report
from tests.support.browser import chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def report(recorded, tmp_path_factory) -> Path:
    return write_report(Store(recorded.path), tmp_path_factory.mktemp("report") / "runs.html").path


class Opened:
    """A page with what it logged as errors and what it tried to fetch."""

    def __init__(self, page: Page) -> None:
        self.page, self.errors, self.requests = page, [], []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def only_the_file(route):
            if route.request.url.startswith("file:"):
                route.continue_()
            else:
                self.requests.append(route.request.url)
                route.abort()

        page.route("**/*", only_the_file)

    def open(self, path: Path, fragment: str = "") -> Page:
        self.page.goto(path.as_uri() + fragment)
        self.page.wait_for_selector("body[data-ready=yes]")
        return self.page

    def click_run(self, run_id: str) -> None:
        self.page.locator("#spacer .row", has_text=run_id).click()
        self.page.wait_for_selector("#run:not([hidden]) #waterfall svg, #run:not([hidden]) #waterfall p")

    def bars(self) -> Counter:
        return Counter(self.page.eval_on_selector_all("#waterfall .bar", "bars => bars.map(b => b.dataset.kind)"))


@pytest.fixture
def opened(browser) -> Iterator[Opened]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = Opened(context.new_page())
    yield tab
    context.close()
    assert tab.errors == [], tab.errors  # a console error fails the test
    assert tab.requests == [], tab.requests  # nothing is fetched from the network


@pytest.mark.parametrize("which", ["agent", "credit", "failed"])
def test_clicking_a_run_draws_one_bar_per_recorded_node_llm_and_tool_call(opened, report, recorded, which):
    run_id = getattr(recorded, which)
    page = opened.open(report)
    assert page.text_content("#count") == "3 of 3 runs"
    opened.click_run(run_id)
    assert page.text_content("#run-head h2") == run_id
    assert opened.bars() == recorded.entries(run_id)
    assert page.locator("#scores tr").count() >= 1


def test_a_failed_run_marks_its_error_in_the_header_and_the_waterfall(opened, report, recorded):
    page = opened.open(report)
    opened.click_run(recorded.failed)
    assert "ValueError: backend unavailable for q" in page.text_content("#run-head .error")
    errors = page.eval_on_selector_all("#waterfall .bar.error", "bars => bars.map(b => b.dataset.kind)")
    assert sorted(errors) == ["node", "tool"]
    assert page.locator("#waterfall text.label.error").count() >= 2


def test_hovering_a_model_call_shows_its_tokens_cost_input_and_output(opened, report, recorded):
    page = opened.open(report)
    opened.click_run(recorded.agent)
    page.hover("#waterfall .bar[data-kind=llm] >> nth=0")
    tip = page.locator("#tip")
    assert tip.is_visible()
    text = tip.text_content()
    assert "llm GenericFakeChatModel" in text and "11 in → 7 out" in text and "cost $0.0000011" in text
    assert "input human: make a plan" in text and "output plan: look it up" in text
    page.hover("#waterfall .bar[data-kind=tool] >> nth=0")
    assert '{"query":"facts"}' in tip.text_content()


def test_the_list_sorts_by_a_column_and_filters_by_text_and_status(opened, report, recorded):
    page = opened.open(report)
    ids = lambda: page.eval_on_selector_all("#spacer .row .id", "cells => cells.map(c => c.textContent)")  # noqa: E731
    assert ids() == [recorded.failed, recorded.agent, recorded.credit]
    page.click("#head button[data-key=tok]")
    assert ids()[0] == recorded.agent  # fewest tokens first; runs without tokens last
    page.click("#head button[data-key=tok]")
    assert ids()[:2] == [recorded.credit, recorded.agent]
    page.fill("#filter", "acme corp")
    assert ids() == [recorded.credit] and page.text_content("#count") == "1 of 3 runs"
    page.fill("#filter", "")
    page.select_option("#status", "failed")
    assert ids() == [recorded.failed]


def test_a_link_with_a_run_id_opens_that_run(opened, report, recorded):
    page = opened.open(report, f"#run={recorded.credit[:8]}")
    assert page.text_content("#run-head h2") == recorded.credit
    assert opened.bars() == recorded.entries(recorded.credit)


def test_a_long_list_renders_only_the_rows_in_view_and_scrolls_to_the_last(opened, many, tmp_path):
    report = write_report(Store(many), tmp_path / "many.html")
    page = opened.open(report.path)
    assert page.text_content("#count") == "1,503 of 1,503 runs"
    assert page.locator("#spacer .row").count() < 60  # the rows in view, not 1,503
    page.eval_on_selector("#viewport", "v => v.scrollTop = v.scrollHeight")
    page.wait_for_function("document.querySelectorAll('#spacer .row').length > 0 && "
                           "[...document.querySelectorAll('#spacer .row')].some(r => r.dataset.index === '1502')")
    oldest = next(Store(many).rows("runs", columns=["run_id"], limit=1))["run_id"]
    opened.click_run(oldest)
    assert page.text_content("#run-head h2") == oldest
    page.fill("#filter", "cand")
    assert page.text_content("#count") == "750 of 1,503 runs"
