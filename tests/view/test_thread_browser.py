"""The report's thread view in a real headless Chromium: ``#thread=ID`` shows the
conversation turn by turn (inputs, questions, answers, outputs, each turn's run), with the
sums of its runs' figures; it is reached from the run list and from a run's header; no
console error, nothing fetched."""

from __future__ import annotations

import sqlite3

import pytest

from harness import Store
from harness.view.formats import number
from harness.view.report import write_report


@pytest.fixture(scope="module")
def report(conversations, tmp_path_factory):
    return write_report(Store(conversations.path), tmp_path_factory.mktemp("threads") / "threads.html").path


def turns(page) -> list[dict]:
    page.wait_for_selector("#thread[data-ready=yes]")
    return page.eval_on_selector_all("#thread li.turn", """items => items.map(li => ({
        run: li.dataset.run, head: li.querySelector('.turn-head').textContent,
        said: Array.from(li.querySelectorAll('dt')).map((dt, i) => [dt.textContent,
              li.querySelectorAll('dd')[i].textContent.trim()])}))""")


def test_a_thread_link_shows_the_conversation_turn_by_turn(opened, report, conversations):
    page = opened.open(report, "#thread=desk-0001")
    shown = turns(page)
    assert [t["run"] for t in shown] == conversations.threads["desk-0001"]
    assert shown[0]["said"] == [["input", "Please refund $40"], ["asked", "Refund $40?  (tools / refund)"]]
    assert "waiting for an answer" in shown[0]["head"]
    assert shown[1]["said"] == [["answer", "yes"], ["output", "Done: refunded $40."]]
    assert shown[2]["said"] == [["input", "thanks"], ["output", "You said: thanks"]]
    assert page.is_hidden("#run")


def test_the_threads_totals_are_the_sums_of_its_runs_figures(opened, report, conversations):
    page = opened.open(report, "#thread=desk-0001")
    turns(page)
    facts = page.text_content("#thread .facts-line")
    with sqlite3.connect(conversations.path) as db:
        tokens, turns_ = db.execute("SELECT SUM(total_tokens), COUNT(*) FROM runs WHERE thread_id = 'desk-0001'"
                                    ).fetchone()
    assert facts.startswith("completed") and f"{turns_} turns" in facts and f"{number(tokens)} tokens" in facts


def test_a_waiting_thread_and_several_answers_at_once(opened, report):
    page = opened.open(report, "#thread=waiting-0002")
    [only] = turns(page)
    assert page.text_content("#thread .facts-line").startswith("waiting")
    assert ["asked", "Send this reply?  (approve)"] in only["said"]
    page = opened.open(report, "#thread=nested-0003")
    third = turns(page)[2]
    assert third["said"][0][0] == "answer" and "ok: Legal ok?" in third["said"][0][1]


def test_the_list_and_a_runs_header_lead_to_its_thread(opened, report, conversations):
    page = opened.open(report)
    first = conversations.threads["desk-0001"][0]
    row = page.locator("#spacer .row", has_text=first)
    assert row.locator("[data-thread]").text_content() == "desk-0001 · turn 1"
    row.locator("[data-thread]").click()
    assert [t["run"] for t in turns(page)] == conversations.threads["desk-0001"]
    assert page.evaluate("location.hash") == "#thread=desk-0001"
    page.locator("#thread a.run-link", has_text=conversations.threads["desk-0001"][1]).click()
    page.wait_for_selector("#run:not([hidden])")
    assert page.is_hidden("#thread")
    link = page.locator("#run-head a.thread-link")
    assert link.text_content() == "turn 2 of thread desk-0001"
    link.click()
    assert len(turns(page)) == 3


def test_a_run_alone_on_its_thread_is_no_conversation_and_an_unknown_thread_is_ignored(opened, report):
    page = opened.open(report, "#thread=nobody")
    assert page.is_hidden("#thread")
    plain = page.locator("#spacer .row", has_text="plain")
    assert plain.count() == 1 and plain.locator("[data-thread]").count() == 0
