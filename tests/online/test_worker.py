"""The scoring worker on a SQLite store: each sampled run outside experiments scored once per
scorer version, counts that add up, leases taken back, errors kept, labels never overwritten."""

from __future__ import annotations

import dataclasses
import time

import pytest

from harness import Harness, Score, Store
from harness.experiment.scoring import score_runs, scorers_of
from harness.online import Worker, WorkerSettings, in_sample
from harness.online.status import scoring_status
from harness.store import claims
from harness.store.claims import RunFilter, ScorerKey
from tests.online.support import graph, record_runs


def polite(run, case):
    return Score(1.0 if run.status == "completed" else 0.0, run.status == "completed")


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "prod.db")
    yield opened
    opened.close()


def run_worker(store, scorers, **settings) -> Worker:
    worker = Worker(store, scorers_of(scorers), WorkerSettings(**settings))
    worker.run(follow=False)
    return worker


def scores(store, name=None):
    return [r for r in store.rows("scores") if name is None or r["name"] == name]


def test_each_sampled_run_is_scored_once_and_the_counts_add_up(store):
    ids = record_runs(store.location, 120)
    worker = run_worker(store, [polite], sample=0.4, batch=17)
    sampled = {r for r in ids if in_sample(r, 0.4)}
    assert {s["run_id"] for s in scores(store)} == sampled and len(scores(store)) == len(sampled)
    (tally,) = worker.counts.snapshot().values()
    assert (tally.seen, tally.sampled, tally.scored, tally.in_flight) == (120, len(sampled), len(sampled), 0)
    assert tally.adds_up() and tally.not_sampled == 120 - len(sampled)
    # The runs' pass follows their scores; the runs outside the sample have none.
    passed = {r["run_id"]: r["passed"] for r in store.rows("runs", columns=["run_id", "passed"])}
    assert all(passed[r] == 1 for r in sampled) and all(passed[r] is None for r in set(ids) - sampled)
    again = run_worker(store, [polite], sample=0.4)
    assert again.counts.total().seen == 0  # nothing left: every run seen once for this version
    status = scoring_status(store)["scorers"][0]
    assert (status["seen"], status["sampled"], status["scored"], status["not_sampled"]) == (
        120, len(sampled), len(sampled), 120 - len(sampled))


def test_a_higher_rate_later_scores_the_runs_it_adds_and_only_those(store):
    ids = record_runs(store.location, 80)
    run_worker(store, [polite], sample=0.2)
    first = {s["run_id"]: s["created_at"] for s in scores(store)}
    wider = run_worker(store, [polite], sample=0.6)
    after = {s["run_id"]: s["created_at"] for s in scores(store)}
    assert set(after) == {r for r in ids if in_sample(r, 0.6)}
    assert all(after[r] == first[r] for r in first)  # the lower rate's runs were not scored again
    assert wider.counts.total().scored == len(after) - len(first)


def test_a_new_scorer_version_scores_every_run_again_and_replaces_its_scores(store):
    record_runs(store.location, 10)

    def mood(run, case):
        return 0.25

    mood.version = "1"
    run_worker(store, [mood])
    assert {s["value"] for s in scores(store)} == {0.25}

    def mood(run, case):  # noqa: F811 - the scorer, edited and versioned anew
        return 0.75

    mood.version = "2"
    redone = run_worker(store, [mood])
    assert redone.counts.total().scored == 10
    assert {(s["value"], s["scorer_version"]) for s in scores(store)} == {(0.75, "2")} and len(scores(store)) == 10
    key_states = {(k.version, state): n for k, counts in claims.totals(store).items() for state, n in counts.items()
                  if n}
    assert key_states == {("1", "scored"): 10, ("2", "scored"): 10}


def test_runs_of_experiments_and_of_other_workflows_or_times_are_left_alone(store, tmp_path):
    h = Harness(store.location, writer="thread")
    h.experiment("offline", graph(), [{"id": "a", "input": {"question": "q"}}])
    h.close()
    old = record_runs(store.location, 5, workflow="billing")
    time.sleep(0.05)
    since = time.time()
    billing = record_runs(store.location, 5, workflow="billing")
    record_runs(store.location, 5, workflow="support")
    import datetime as dt

    worker = run_worker(store, [polite], filters=RunFilter(("billing",), dt.datetime.fromtimestamp(
        since, dt.timezone.utc).isoformat(timespec="microseconds")))
    assert {s["run_id"] for s in scores(store, "polite")} == set(billing)
    assert not set(old) & {s["run_id"] for s in scores(store, "polite")}
    assert worker.counts.total().seen == 5


def test_a_scorer_that_raises_leaves_an_error_score_and_the_runs_pass_unknown(store):
    ids = record_runs(store.location, 6)

    def fragile(run, case):
        raise RuntimeError("the judge is down")

    worker = run_worker(store, [polite, fragile])
    by_name = {(s["run_id"], s["name"]): s for s in scores(store)}
    assert all(by_name[(r, "fragile")]["error"] == "RuntimeError: the judge is down" for r in ids)
    assert all(r["passed"] is None for r in store.rows("runs", columns=["passed"]))
    counts = {k.name: t for k, t in worker.counts.snapshot().items()}
    assert (counts["fragile"].errored, counts["polite"].scored) == (6, 6)
    assert any("the judge is down" in line for line in worker.errors)


def test_a_persons_label_of_the_same_name_is_never_overwritten(store):
    (run_id,) = record_runs(store.location, 1)
    Harness(store.location, writer="thread").label(run_id, "polite", False, comment="rude reply")
    worker = run_worker(store, [polite])
    (label,) = scores(store, "polite")
    assert (label["source"], label["explanation"]) == ("human", "rude reply")
    assert worker.counts.total().errored == 1
    assert "already has a human score named 'polite'" in worker.errors[0]


def test_a_claim_whose_lease_ran_out_is_taken_back_and_its_first_holder_writes_nothing(store):
    ids = record_runs(store.location, 3)
    (scorer,) = scorers_of([polite])
    key = ScorerKey(scorer.name, scorer.version)
    lost = claims.claim(store, "stalled-worker", [key], rate=1.0, point=lambda _: 0.0, lease=0.05)
    assert set(lost.work) == set(ids)
    time.sleep(0.1)
    worker = run_worker(store, [polite])
    assert worker.retaken == 3 and worker.counts.total().scored == 3
    # The stalled worker wakes up and tries to settle: nothing of it is written.
    written = []
    held = claims.settle(store, "stalled-worker", [claims.Outcome(r, key, claims.SCORED) for r in ids],
                         lambda pairs: written.append(pairs))
    assert held == set() and written == []
    assert {w for _, _, w, _ in store._fetchall('SELECT run_id, state, worker, attempts FROM "score_claims"')} == {
        worker.id}


def test_a_run_whose_workers_keep_dying_gets_an_error_score_instead_of_a_fourth_try(store):
    (run_id,) = record_runs(store.location, 1)
    (scorer,) = scorers_of([polite])
    key = ScorerKey(scorer.name, scorer.version)
    for attempt in range(3):
        claims.claim(store, f"doomed-{attempt}", [key], rate=1.0, point=lambda _: 0.0, lease=0.01)
        time.sleep(0.02)
    worker = run_worker(store, [polite], max_attempts=3)
    (score,) = scores(store)
    assert score["error"].startswith("not scored: the workers that claimed this run stopped 3 times")
    assert worker.counts.total().errored == 1


def test_a_run_rescored_with_the_same_scorer_version_counts_as_scored_without_a_call(store):
    ids = record_runs(store.location, 4)
    chosen = scorers_of([polite])
    score_runs(store, ids[:2], chosen)  # what rescore --runs does: no claim
    calls = []

    def polite_spy(run, case):
        calls.append(run.run_id)
        return polite(run, case)

    spy = dataclasses.replace(chosen[0], fn=polite_spy)
    worker = Worker(store, [spy], WorkerSettings())
    worker.run(follow=False)
    assert sorted(calls) == sorted(ids[2:])
    assert worker.counts.total().scored == 4 and worker.counts.total().adds_up()


def test_stopping_hands_runs_in_flight_back_and_counts_them_returned(store):
    record_runs(store.location, 8)
    started = []

    def slow(run, case):
        started.append(run.run_id)
        time.sleep(5)
        return 1.0

    slow.version = "1"
    worker = Worker(store, scorers_of([slow]), WorkerSettings(concurrency=8, batch=8))
    import threading

    threading.Timer(0.5, worker.stop).start()
    began = time.monotonic()
    worker.run(follow=True)
    assert time.monotonic() - began < 4
    tally = worker.counts.total()
    assert (tally.returned, tally.in_flight, tally.scored) == (8, 0, 0) and tally.adds_up()

    def slow(run, case):  # noqa: F811 - the same scorer (version 1), quick this time
        return 1.0

    slow.version = "1"
    later = run_worker(store, [slow])
    assert later.counts.total().scored == 8  # the next worker takes them at once
    assert len(scores(store)) == 8


def test_runs_handed_back_on_stop_are_free_at_once_and_their_attempt_not_counted_twice(store):
    """Stopped mid-batch, a worker hands its runs back: they are no longer its (its heartbeat
    does not renew them, its close does not hand them back a second time) and each keeps the
    attempts it had before this worker claimed it."""
    import threading

    record_runs(store.location, 12)
    started, release = threading.Event(), threading.Event()

    def slow(run, case):
        started.set()
        release.wait(30)
        return 1.0

    worker = Worker(store, scorers_of([slow]), WorkerSettings(batch=12, concurrency=2))
    running = threading.Thread(target=worker.run, kwargs={"follow": True})
    running.start()
    assert started.wait(30)
    worker.stop()
    release.set()
    running.join(30)
    assert not running.is_alive()
    claimed = store._fetchall('SELECT worker, attempts FROM "score_claims" WHERE state = \'claimed\'')
    assert claimed and all(who == "" and attempts == 0 for who, attempts in claimed)
