"""The engine that calls scorers (``ScorerCalls.score_all``): each call keeps its own time
limit, a late one is given up on with its reason while the rest go on, at most
``concurrency`` calls run at once, and closing the session ends a batch at once."""

import asyncio
import threading
import time

from evaluators import NOT_SCORED

from harness.experiment import scorer_call
from harness.experiment.scorer_call import ScorerCalls, ScorerLimits
from harness.experiment.scoring import Scorer


def scorer(fn, name=None):
    s = Scorer.of(fn)
    return s if name is None else Scorer(name, fn, s.spec)


def quick(run, case):
    return {"n": float(run)}


async def quick_async(run, case):
    await asyncio.sleep(0)
    return float(run)


def test_scores_come_back_in_the_order_of_the_work_whatever_order_the_calls_end_in():
    s, a = scorer(quick), scorer(quick_async)
    work = [(s if i % 2 else a, i, None) for i in range(40)]
    with ScorerCalls([s, a], ScorerLimits(timeout=5)) as calls:
        scored = calls.score_all(work, 8)
    assert [x[0].result.value for x in scored] == [float(i) for i in range(40)]
    assert [x[0].result.name for x in scored] == [("n" if i % 2 else "quick_async") for i in range(40)]


def test_a_late_call_is_given_up_on_with_its_reason_and_the_others_go_on():
    release = threading.Event()

    def hangs(run, case):
        release.wait(30)
        return 1.0

    async def sleeps(run, case):
        await asyncio.sleep(30)

    async def blocks_its_loop(run, case):
        release.wait(30)  # a blocking call in an async scorer: its loop is stuck too

    chosen = [scorer(hangs), scorer(sleeps), scorer(blocks_its_loop), scorer(quick)]
    work = [(chosen[0], 0, None), (chosen[1], 1, None), (chosen[2], 2, None)] + [(chosen[3], i, None)
                                                                                 for i in range(3, 30)]
    started = time.monotonic()
    try:
        with ScorerCalls(chosen, ScorerLimits(timeout=0.5)) as calls:
            scored = calls.score_all(work, 3)  # all three slots are taken by late calls at first
    finally:
        release.set()
    assert time.monotonic() - started < 5
    errors = [x[0].result.error for x in scored[:3]]
    assert errors[0] == "TimeoutError: timed out after 0.5 s (its thread was left to finish on its own)"
    assert errors[1] == "TimeoutError: timed out after 0.5 s (it was cancelled)"
    assert errors[2] == ("TimeoutError: timed out after 0.5 s "
                         "(it blocked its event loop, which was left to finish on its own)")
    assert [x[0].result.value for x in scored[3:]] == [float(i) for i in range(3, 30)]


def test_at_most_concurrency_calls_run_at_once():
    lock, now, most = threading.Lock(), [0], [0]

    def counted(run, case):
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.01)
        with lock:
            now[0] -= 1
        return 1.0

    s = scorer(counted)
    with ScorerCalls([s], ScorerLimits(timeout=5)) as calls:
        calls.score_all([(s, i, None) for i in range(40)], 3)
    assert most[0] == 3


def test_closing_the_session_ends_a_batch_at_once_and_what_did_not_end_is_not_scored():
    release = threading.Event()

    def hangs(run, case):
        release.wait(30)
        return 1.0

    s = scorer(hangs)
    calls = ScorerCalls([s], ScorerLimits(timeout=60))
    threading.Timer(0.3, calls.close).start()
    started = time.monotonic()
    try:
        scored = calls.score_all([(s, i, None) for i in range(6)], 2)
    finally:
        release.set()
    assert time.monotonic() - started < 5
    assert {x[0].result.error for x in scored} == {NOT_SCORED}
    assert calls.score_all([(s, 0, None)], 1)[0][0].result.error == NOT_SCORED  # and so is any later call


def test_quick_calls_share_a_runner_and_slow_ones_bring_more_up_to_the_concurrency(monkeypatch):
    started, lock, used = [0], threading.Lock(), set()
    start = scorer_call._Batch._start

    def counted(self):
        started[0] += 1
        start(self)

    monkeypatch.setattr(scorer_call._Batch, "_start", counted)

    def slow(run, case):
        time.sleep(0.05)
        with lock:
            used.add(threading.get_ident())
        return 1.0

    q, s = scorer(quick), scorer(slow)
    with ScorerCalls([q, s], ScorerLimits(timeout=5)) as calls:
        calls.score_all([(q, i, None) for i in range(300)], 8)
        quick_runners, started[0] = started[0], 0
        begun = time.monotonic()
        calls.score_all([(s, i, None) for i in range(16)], 8)
    # threads that would only take turns holding the GIL are not started for quick calls
    assert quick_runners <= 3
    assert started[0] == len(used) == 8
    assert time.monotonic() - begun < 16 * 0.05 / 2  # the slow calls ran side by side
