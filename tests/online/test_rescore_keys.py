"""A worker's scores and ``harness rescore --runs``'s share one key (run, name, scorer version):
whichever scores a run first, the other does not score it again by accident, and a replaced
score is the same row. Scorers see production runs' real inputs and outputs."""

from __future__ import annotations

import os

from harness import Store
from tests.online.support import ROOT, record_runs, score_once
from tests.support.cli import harness_cli

SCORER = "tests.online.scorers:answer_ok"


def _scores(path) -> list[dict]:
    store = Store(path)
    try:
        return list(store.rows("scores", columns=["run_id", "name", "value", "scorer_version", "created_at"],
                               with_keys=True))
    finally:
        store.close()


def test_scorers_see_the_inputs_and_outputs_of_runs_traced_with_h_run(tmp_path):
    path = tmp_path / "prod.db"
    seen = []

    def looks(run, case):
        seen.append((run.inputs, run.outputs, run.answer, case.input))
        return "ok" in run.outputs["answer"]

    from harness.experiment.scoring import scorers_of
    from harness.online import Worker, WorkerSettings

    record_runs(path, 2, answer=lambda q: f"ok, {q}")
    store = Store(path)
    Worker(store, scorers_of([looks]), WorkerSettings()).run(follow=False)
    store.close()
    assert sorted(s[0]["question"] for s in seen) == ["question 0", "question 1"]
    assert all(outputs["answer"] == f"ok, {inputs['question']}" and case_input == inputs
               for inputs, outputs, _, case_input in seen)
    assert {s["value"] for s in _scores(path)} == {1.0}


def test_a_run_scored_by_a_worker_and_then_by_rescore_runs_keeps_one_score_under_one_key(tmp_path):
    path = tmp_path / "prod.db"
    ids = record_runs(path, 3)
    assert score_once(str(path), "--scorer", SCORER).returncode == 0
    before = {s["row_key"]: s for s in _scores(path)}
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    refused = harness_cli("rescore", "--runs", ids[0], "--scorer", SCORER, "--store", str(path), env=env)
    assert refused.returncode == 2 and "already has scores named 'answer_ok'" in refused.stderr
    replaced = harness_cli("rescore", "--runs", ids[0], "--scorer", SCORER, "--replace", "--store", str(path),
                           env=env)
    assert replaced.returncode == 0, replaced.stderr
    after = {s["row_key"]: s for s in _scores(path)}
    assert set(after) == set(before) and len(after) == 3  # the same key: replaced, not added
    assert after[f"{ids[0]}:score:answer_ok"]["scorer_version"] == before[f"{ids[0]}:score:answer_ok"][
        "scorer_version"]
    again = score_once(str(path), "--scorer", SCORER)
    assert again.returncode == 0 and "│ answer_ok │" in again.stdout and "│    0 │" in again.stdout


def test_a_run_rescore_scored_first_is_not_scored_again_by_a_worker(tmp_path):
    path = tmp_path / "prod.db"
    ids = record_runs(path, 4)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = harness_cli("rescore", "--runs", ids[0], "--runs", ids[1], "--scorer", SCORER, "--store", str(path),
                       env=env)
    assert done.returncode == 0, done.stderr
    first = {s["run_id"]: s["created_at"] for s in _scores(path)}
    worker = score_once(str(path), "--scorer", SCORER)
    assert worker.returncode == 0, worker.stderr
    after = {s["run_id"]: s["created_at"] for s in _scores(path)}
    assert set(after) == set(ids) and all(after[r] == first[r] for r in ids[:2])  # not scored twice
    store = Store(path)
    states = dict(store._fetchall('SELECT state, COUNT(*) FROM "score_claims" GROUP BY state'))
    store.close()
    assert states == {"scored": 4}
