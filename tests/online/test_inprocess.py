"""``Harness(store, scorers=[...], sample=R)``: each finished run scored off the caller's thread,
with the same keys as a worker, so the two never score a run twice."""

from __future__ import annotations

import threading
import time

import pytest

from harness import Harness, Store
from harness.experiment.scoring import scorers_of
from harness.online import Worker, WorkerSettings, in_sample
from tests.online.support import graph, record_runs


def test_finished_runs_are_scored_off_the_callers_thread_once_each(tmp_path):
    release = threading.Event()
    threads = []

    def patient(run, case):
        threads.append(threading.current_thread())
        release.wait(30)
        return run.status == "completed"

    patient.version = "1"  # (it keeps state it changes: its version says when it is the same scorer)

    h = Harness(tmp_path / "prod.db", writer="thread", scorers=[patient], sample=0.5)
    began = time.monotonic()
    ids = _runs(h, 30)
    assert time.monotonic() - began < 20  # the runs did not wait for their scorer, which is still blocked
    release.set()
    assert h.flush(60)
    sampled = {r for r in ids if in_sample(r, 0.5)}
    scores = {r["run_id"]: r for r in h.store.rows("scores")}
    assert set(scores) == sampled
    assert all(s["passed"] == 1 and s["scorer_version"] for s in scores.values())
    assert threading.main_thread() not in threads and len(threads) == len(sampled)
    (tally,) = h.scoring.snapshot().values()
    assert (tally.seen, tally.sampled, tally.scored) == (30, len(sampled), len(sampled)) and tally.adds_up()
    h.close()
    # A worker with the same scorer finds nothing left to do.
    store = Store(tmp_path / "prod.db")
    again = Worker(store, scorers_of([patient]), WorkerSettings(sample=0.5))
    again.run(follow=False)
    assert again.counts.total().seen == 0
    store.close()


def _runs(h: Harness, count: int) -> list[str]:
    g = graph()
    ids = []
    for i in range(count):
        with h.run(workflow="support") as run:
            g.invoke({"question": f"q{i}"}, run.config)
        ids.append(run.run_id)
    return ids


def test_a_worker_following_the_same_store_never_scores_a_run_the_harness_scores(tmp_path):
    path = tmp_path / "prod.db"
    calls = []
    lock = threading.Lock()

    def once(run, case):
        with lock:
            calls.append(run.run_id)
        time.sleep(0.005)
        return 1.0

    once.version = "1"  # (it records its calls in a list it closes over)

    record_runs(path, 1)  # the store exists before the worker starts
    store = Store(path)
    worker = Worker(store, scorers_of([once]), WorkerSettings(poll=0.05, batch=5))
    following = threading.Thread(target=worker.run, kwargs={"follow": True})
    following.start()
    h = Harness(path, writer="thread", scorers=[once])
    ids = _runs(h, 60)
    h.close()
    deadline = time.monotonic() + 60
    while len(set(calls)) < 61 and time.monotonic() < deadline:
        time.sleep(0.05)
    worker.stop()
    following.join(30)
    store.close()
    assert sorted(calls) == sorted(set(calls)) and set(ids) <= set(calls)  # every run once, by one or the other
    assert len(list(Store(path).rows("scores"))) == 61


def test_the_default_writer_process_and_experiments_left_to_their_own_scorers(tmp_path):
    def seen(run, case):
        return 1.0

    h = Harness(tmp_path / "prod.db", scorers=[seen])  # the writer process writes the runs
    ids = _runs(h, 5)
    h.experiment("offline", graph(), [{"id": "a", "input": {"question": "q"}}])
    assert h.flush(60)
    scored = {r["run_id"] for r in h.store.rows("scores") if r["name"] == "seen"}
    assert scored == set(ids)
    h.close()


def test_bad_in_process_settings_are_refused_before_any_run():
    with pytest.raises(ValueError, match="sample rate"):
        Harness(":memory:", scorers=[lambda run, case: 1.0], sample=2)
    with pytest.raises(ValueError, match="--max-cost"):
        Harness(":memory:", scorers=[lambda run, case: 1.0], max_cost=-1)
