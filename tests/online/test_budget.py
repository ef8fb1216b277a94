"""A budget on judges: their model calls, seen through LangChain's context callbacks whether or
not the scorer passes a config, priced and held to --max-cost per window, never passed by more
than one call in flight, by one worker or several; runs past the cap are skipped by budget."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from harness import Score, Store, costs
from harness.experiment.scoring import scorers_of
from harness.online import Budget, BudgetExhausted, Worker, WorkerSettings
from harness.store import spend
from tests.online.support import record_runs

MODEL = "budget-judge-test"
CALL_COST = 0.01  # 1,000 input tokens at $10 per million
#: A window longer than any test: the budget's window never turns over mid-test.
FOREVER = 1e9


class PricedJudge(BaseChatModel):
    """A chat model that answers "PASS" after a short wait, reporting 1,000 input tokens."""

    delay: float = 0.02

    @property
    def _llm_type(self) -> str:
        return "priced-judge"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        time.sleep(self.delay)
        message = AIMessage("PASS", usage_metadata={"input_tokens": 1000, "output_tokens": 0, "total_tokens": 1000},
                            response_metadata={"model_name": MODEL})
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.fixture(autouse=True)
def priced(monkeypatch):
    monkeypatch.setitem(costs.PRICES, MODEL, costs.Price(10.0, 0.0))


def judged(run, case):
    """A judge that calls its model without any config: the meter sees it all the same."""
    return PricedJudge().invoke("Is this answer polite?").content == "PASS"


judged.score_source = "llm"


def counted(run, case):
    return 1.0


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "prod.db")
    yield opened
    opened.close()


def worker(store, scorers, cap, **settings) -> Worker:
    return Worker(store, scorers_of(scorers), WorkerSettings(budget=Budget(cap, FOREVER), **settings))


def test_the_cap_is_passed_by_at_most_one_call_and_the_rest_is_skipped_by_budget(store):
    record_runs(store.location, 40)
    w = worker(store, [judged], 0.05, concurrency=4, batch=10)
    w.run(follow=False)
    window = spend.current(store, FOREVER)
    assert 0.05 <= window.spent <= 0.05 + CALL_COST + 1e-12
    (tally,) = w.counts.snapshot().values()
    assert tally.scored == window.calls and tally.budget == 40 - tally.scored and tally.errored == 0
    assert tally.adds_up() and tally.in_flight == 0
    assert window.refused >= 1 or tally.budget > 0
    rows = list(store.rows("scores"))
    assert len(rows) == tally.scored and all(r["error"] is None for r in rows)  # a skip is never an error score
    states = dict(store._fetchall('SELECT state, COUNT(*) FROM "score_claims" GROUP BY state'))
    assert states == {"scored": tally.scored, "budget": tally.budget}


def test_two_workers_share_one_budget(tmp_path):
    path = tmp_path / "prod.db"
    record_runs(path, 60)
    stores = [Store(path), Store(path)]
    workers = [worker(s, [judged], 0.08, concurrency=3, batch=5) for s in stores]
    threads = [threading.Thread(target=w.run, kwargs={"follow": False}) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    window = spend.current(stores[0], FOREVER)
    assert 0.08 <= window.spent <= 0.08 + CALL_COST + 1e-12
    assert sum(w.counts.total().scored for w in workers) == window.calls
    assert sum(w.counts.total().seen for w in workers) == 60
    for s in stores:
        s.close()


def test_scorers_that_make_no_model_call_keep_scoring_past_the_cap(store):
    record_runs(store.location, 12)
    w = worker(store, [judged, counted], 0.03, concurrency=2, batch=4)
    w.run(follow=False)
    tallies = {k.name: t for k, t in w.counts.snapshot().items()}
    assert tallies["counted"].scored == 12
    assert tallies["judged"].budget > 0 and tallies["judged"].scored + tallies["judged"].budget == 12


def test_a_judge_that_catches_the_refusal_is_still_skipped_by_budget(store):
    record_runs(store.location, 8)

    def stubborn(run, case):
        try:
            PricedJudge(delay=0).invoke("polite?")
        except BudgetExhausted:
            return Score(0.0, False, "no verdict")  # would be stored as a fail if the refusal were lost
        return 1.0

    w = worker(store, [stubborn], 0.02, concurrency=1)
    w.run(follow=False)
    (tally,) = w.counts.snapshot().values()
    assert (tally.scored, tally.budget) == (2, 6)
    assert {r["value"] for r in store.rows("scores")} == {1.0}


def test_a_window_that_is_spent_skips_a_judge_without_calling_it(store):
    record_runs(store.location, 5)
    first = worker(store, [judged], 0.01, concurrency=1)
    first.run(follow=False)
    calls = spend.current(store, FOREVER).calls
    assert calls == 1
    record_runs(store.location, 5)
    second = worker(store, [judged], 0.01)
    second.run(follow=False)
    assert spend.current(store, FOREVER).calls == calls  # not one call more
    assert second.counts.total().budget == 5


def test_a_judge_that_wraps_the_refusal_in_its_own_error_is_skipped_by_budget_too(store, caplog):
    record_runs(store.location, 6)

    def wrapping(run, case):
        try:
            PricedJudge(delay=0).invoke("polite?")
        except Exception as exc:
            raise RuntimeError(f"the judge failed: {exc}") from exc
        return 1.0

    w = worker(store, [wrapping], 0.02, concurrency=1)
    w.run(follow=False)
    (tally,) = w.counts.snapshot().values()
    assert (tally.scored, tally.budget, tally.errored) == (2, 4, 0)
    assert not [r for r in caplog.records if "BudgetExhausted" in r.getMessage()]  # counted, not logged


def test_a_call_that_cost_nothing_known_does_not_make_the_next_calls_free(store):
    """A first call that failed (nothing to pay) or whose model has no price gives no estimate:
    the calls after it go one at a time until a call with a known cost is seen."""
    granted, _ = spend.hold(store, "first", cap=1.0, per=FOREVER, timeout=60)
    assert granted == spend.GRANTED
    spend.release(store, "first", cost=0.0, priced=True)
    assert spend.hold(store, "a", cap=1.0, per=FOREVER, timeout=60)[0] == spend.GRANTED
    assert spend.hold(store, "b", cap=1.0, per=FOREVER, timeout=60)[0] == spend.WAIT  # one in flight, cost unknown
    spend.release(store, "a", cost=None, priced=False)
    window = spend.current(store, FOREVER)
    assert (window.calls, window.unpriced, window.max_call) == (2, 1, None)
    assert spend.hold(store, "c", cap=1.0, per=FOREVER, timeout=60)[0] == spend.GRANTED
    assert spend.hold(store, "d", cap=1.0, per=FOREVER, timeout=60)[0] == spend.WAIT
    spend.release(store, "c", cost=0.01, priced=True)
    assert spend.hold(store, "e", cap=1.0, per=FOREVER, timeout=60)[0] == spend.GRANTED
    assert spend.hold(store, "f", cap=1.0, per=FOREVER, timeout=60)[0] == spend.GRANTED  # 0.01 each: room
