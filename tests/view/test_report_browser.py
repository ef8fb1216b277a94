"""The run report in a real headless Chromium (Debian's, driven by Playwright, which
downloads no browser): no console error, no request beyond the file, a click opens a run
whose waterfall has one bar per recorded node, LLM and tool call; a bar clicked, or reached
with the keyboard, shows that call in full in the panel; any hash leaves the page ready; the
list's head lines up with its cells at any width."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from langchain_core.tools import tool

from harness import Harness, Store
from harness.view.report import write_report
from tests.harness import graphs

#: A tool's output of 5,000 characters, every line numbered (none repeats another).
LONG_OUTPUT = "".join(f"line {i:04d}: the tool's output goes on\n" for i in range(160))[:5_000]


@tool
def report_text(topic: str) -> str:
    """A long text about ``topic``."""
    return LONG_OUTPUT


@pytest.fixture(scope="module")
def report(recorded, tmp_path_factory) -> Path:
    return write_report(Store(recorded.path), tmp_path_factory.mktemp("report") / "runs.html").path


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


@pytest.fixture(scope="module")
def long_report(tmp_path_factory) -> tuple[Path, str]:
    """A report of one run whose node, given a state of 12,500 characters (more than the
    store previews), calls a tool that answers 5,000 characters."""
    folder = tmp_path_factory.mktemp("long")
    h = Harness(folder / "runs.db", writer="inline")
    with h.run(subject="long", workflow="writer") as run:
        graphs.single_node(lambda s, config: (report_text.invoke({"topic": "x"}, config), {"log": []})[1]).invoke(
            {"log": ["word " * 2_500]}, run.config)
    h.flush()
    h.store.close()
    return write_report(Store(folder / "runs.db"), folder / "runs.html").path, run.run_id


def test_a_5000_character_tool_output_is_whole_and_readable_in_the_panel(opened, long_report):
    report, run_id = long_report
    page = opened.open(report, f"#run={run_id}")
    page.wait_for_selector("#waterfall svg")
    page.click("#waterfall .bar[data-kind=tool]")
    assert opened.entry() == "tool call report_text"
    output = page.locator("#entry .block.out")
    assert output.locator("pre.peek").inner_text().startswith("line 0000: the tool's output goes on\n")
    full = output.locator("pre.full")
    assert not full.is_visible()  # folded: its first lines shown...
    output.locator("summary").click()
    assert full.is_visible() and full.inner_text() == LONG_OUTPUT  # ...all of it a click away
    assert output.locator(".more").inner_text() == f"Fold · {len(LONG_OUTPUT.splitlines())} lines, 5,000 characters"
    assert page.locator("#entry .block.in pre").inner_text() == '{\n  "topic": "x"\n}'


def test_a_nodes_input_cut_by_the_store_says_so_in_the_panel(opened, long_report):
    report, run_id = long_report
    page = opened.open(report, f"#run={run_id}&entry=0")
    page.wait_for_selector("#entry .entry-head")
    assert opened.entry() == "node only"
    shown = page.locator("#entry .block.in pre.full").text_content()
    assert shown.startswith('{"log":["word word') and shown.endswith("…[truncated, 12512 chars]")
    assert page.inner_text("#entry .block.in .note").startswith(
        "Cut: the store keeps a node's input and output as a preview of their first characters (12,512 characters")
    assert page.locator("#entry .block.out .note").count() == 0  # its output is whole


def test_a_block_of_the_panel_copies_its_whole_text(tabs, long_report):
    report, run_id = long_report
    opened = tabs(permissions=["clipboard-read", "clipboard-write"])
    page = opened.open(report, f"#run={run_id}")
    page.wait_for_selector("#waterfall svg")
    page.click("#waterfall .bar[data-kind=tool]")
    page.click("#entry .block.out button.copy")
    page.wait_for_selector("#entry .block.out button.copy:text('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == LONG_OUTPUT


def test_a_failed_calls_panel_shows_its_error_input_and_traceback_to_the_failing_function(opened, report, recorded):
    page = opened.open(report, f"#run={recorded.failed}")
    page.wait_for_selector("#waterfall svg")
    page.click("#waterfall .bar[data-kind=tool]")
    assert opened.entry() == "tool call broken"
    assert page.inner_text("#entry .block.error pre") == "ValueError: backend unavailable for q"
    assert page.inner_text("#entry .block.in pre") == '{\n  "query": "q"\n}'
    trace = page.inner_text("#entry pre.traceback")
    assert trace.startswith("Traceback (most recent call last):") and ", in broken\n" in trace
    assert 'raise ValueError(f"backend unavailable for {query}")' in trace
    assert page.inner_text("#entry .where").startswith("failed in broken · ")


def test_a_model_calls_prompt_reads_as_a_conversation_with_its_tokens_and_cost(opened, report, recorded):
    page = opened.open(report, f"#run={recorded.agent}")
    page.wait_for_selector("#waterfall svg")
    page.click("#waterfall .bar[data-kind=llm] >> nth=0")
    roles = page.eval_on_selector_all("#entry .block.in .msg", "ms => ms.map(m => [m.querySelector('.role')"
                                      ".textContent, m.querySelector('pre').textContent])")
    assert roles == [["human", "make a plan"]]
    assert page.inner_text("#entry .block.out .msg pre") == "plan: look it up"
    facts = page.inner_text("#entry .facts")
    assert "11 in → 7 out · 18 in all (provider)" in facts and "$0.0000011" in facts and "llama-3.1-8b-instant" in facts


def test_the_keyboard_moves_through_the_waterfall_and_opens_a_call(opened, report, recorded):
    page = opened.open(report, f"#run={recorded.agent}")
    page.wait_for_selector("#waterfall svg")
    page.focus("#waterfall g.entry[tabindex='0']")
    for key in ("ArrowDown", "ArrowDown", "ArrowDown", "ArrowUp"):
        page.keyboard.press(key)
    assert page.evaluate("document.activeElement.dataset.i") == "2"
    assert page.locator("#entry .entry-head").count() == 0  # moving does not open
    page.keyboard.press("Enter")
    assert opened.entry() == "node research"
    page.keyboard.press("End")
    page.keyboard.press(" ")
    assert opened.entry() == "LLM call StreamingModel"
    assert page.evaluate("location.hash") == f"#run={recorded.agent}&entry=9"
    assert page.locator("#waterfall g.entry.selected").count() == 1


def test_a_link_to_a_call_opens_its_run_and_the_call(opened, report, recorded):
    page = opened.open(report, f"#run={recorded.agent[:8]}&entry=3")
    page.wait_for_selector("#entry .entry-head")
    assert page.text_content("#run-head h2") == recorded.agent and opened.entry() == "tool call outer"


@pytest.mark.parametrize("fragment", ["#run=%E0%A4%A", "#run=%", "#run=", "#%%%", "#run=zzzz", "#entry=2",
                                      "#run=AGENT&entry=x", "#run=AGENT&entry=999", "#compare=a,b"])
def test_any_hash_leaves_the_page_ready_and_one_it_cannot_use_is_ignored(opened, report, recorded, fragment):
    page = opened.open(report, fragment.replace("AGENT", recorded.agent))
    assert page.text_content("#count") == "3 of 3 runs" and page.locator("#spacer .row").count() == 3
    if "AGENT" in fragment:  # the run opens, the call it cannot find is left out
        page.wait_for_selector("#waterfall svg")
        assert page.locator("#entry .entry-head").count() == 0
    else:
        assert page.locator("#run").is_hidden()


@pytest.mark.parametrize("width", [700, 1000, 1400])
def test_the_list_head_lines_up_with_its_cells_at_any_width(tabs, report, width):
    opened = tabs(width)
    page = opened.open(report)
    edges = "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"
    head = page.eval_on_selector_all("#head button", edges)
    for row in range(3):
        cells = page.eval_on_selector_all(f"#spacer .row[data-index='{row}'] > span", edges)
        assert len(cells) == len(head) >= 8
        assert all(abs(a - b) < 1 for h, c in zip(head, cells) for a, b in zip(h, c)), (head, cells)
    page.eval_on_selector("#viewport", "v => v.scrollLeft = v.scrollWidth")  # scrolled across: still lined up
    moved = page.eval_on_selector_all("#head button", edges)
    cells = page.eval_on_selector_all("#spacer .row[data-index='0'] > span", edges)
    assert all(abs(a - b) < 1 for h, c in zip(moved, cells) for a, b in zip(h, c))
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # the page itself never scrolls sideways


def test_the_run_header_says_when_it_started_and_when_it_ended(tabs, tmp_path):
    store = Store(tmp_path / "times.db")
    store.write("runs", [{"run_id": "r-times", "status": "completed", "started_at": "2026-03-01T09:58:30+00:00",
                          "completed_at": "2026-03-01T10:04:05+00:00", "timestamp": "2026-03-01T10:04:05+00:00",
                          "total_time_ms": 335_000.0}])
    report = write_report(store, tmp_path / "times.html").path
    page = tabs(timezone_id="UTC").open(report, "#run=r-times")
    facts = page.text_content("#run-head .facts-line")
    assert "started 2026-03-01 09:58:30 · ended 2026-03-01 10:04:05 (UTC+00:00) · took 5 m 35 s" in facts
    assert page.text_content("#spacer .row .id + span") == "2026-03-01 10:04:05"  # the list: when it ended
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    assert f"made {made}" in page.text_content("header .sub")
