"""Runs outside experiments are scored like an experiment's: chosen by id (or its start), by
workflow, by start time, or all of these; their scores show in list, show and the scores
sheet, which carries each score's experiment and case; a score can be deleted, and the
run's pass follows."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sqlite3
import textwrap

import pytest

from harness import Harness, Score
from harness.experiment.errors import ExperimentError
from harness.experiment.selection import RunSelection, parse_since
from tests.support.cli import harness_cli

from .agents import react_agent
from .test_runner import capital_cases


def mentions_paris(run, case):
    return "Paris" in (run.answer or "")


def words(run, case):
    return Score(len((run.answer or "").split()), explanation="words in the answer")


def question(text: str) -> dict:
    return {"messages": [["user", text]]}


@pytest.fixture
def traced(tmp_path):
    """Two traced runs of the ReAct agent (workflow ``support``), one of another workflow, and a
    small experiment; the harness writes inline."""
    h = Harness(tmp_path / "runs.db", writer="inline")
    ids = {}
    for key, (workflow, text) in {"paris": ("support", "What is the capital of France?"),
                                  "lima": ("support", "What is the capital of Peru?"),
                                  "other": ("billing", "What is the capital of France?")}.items():
        with h.run(workflow=workflow) as run:
            asyncio.run(react_agent().ainvoke(question(text), config=run.config))
        ids[key] = run.run_id
    h.experiment("exp", react_agent(), capital_cases(2), context={"wrong": False})
    yield h, ids
    h.close()


def test_a_traced_run_is_scored_by_id_from_what_it_stored(traced):
    h, ids = traced
    summary = h.rescore(runs=[ids["paris"][:8]], scorers=[mentions_paris, words])
    assert summary.runs == 1 and summary.scores == 2
    scores = {r["name"]: r for r in h.store.rows("scores", [ids["paris"]])}
    assert scores["mentions_paris"]["passed"] == 1 and scores["words"]["value"] > 0
    assert next(h.store.rows("runs", [ids["paris"]], columns=["passed"]))["passed"] == 1


def test_filters_choose_a_workflows_runs_since_a_time(traced):
    h, ids = traced
    h.rescore(workflow="support", since="1h", scorers=[mentions_paris])
    passed = {r["run_id"]: r["passed"] for r in h.store.rows("runs", columns=["run_id", "passed"])}
    assert passed[ids["paris"]] == 1 and passed[ids["lima"]] == 0 and passed[ids["other"]] is None
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=5)
    with pytest.raises(ExperimentError, match="no run in the store is workflow support · started since"):
        h.rescore(workflow="support", since=later, scorers=[words])


def test_every_given_part_of_a_selection_must_hold(traced):
    h, ids = traced
    both = RunSelection.of(runs=[ids["paris"], ids["other"]], workflows=["billing"]).run_ids(h.store)
    assert both == [ids["other"]]
    assert len(RunSelection.of("exp").run_ids(h.store)) == 2
    with pytest.raises(ExperimentError, match="say which runs"):
        RunSelection.of()
    with pytest.raises(ExperimentError, match="no run 'zzzz'"):
        RunSelection.of(runs=["zzzz"]).run_ids(h.store)


def test_since_reads_iso_times_in_utc_and_ages():
    now = dt.datetime(2026, 5, 2, 12, 0, tzinfo=dt.timezone.utc)
    assert parse_since("2026-05-01", now=now) == dt.datetime(2026, 5, 1, tzinfo=dt.timezone.utc)
    assert parse_since("2026-05-01T09:30+02:00", now=now).utcoffset() == dt.timedelta(hours=2)
    assert parse_since("12h", now=now) == dt.datetime(2026, 5, 2, 0, 0, tzinfo=dt.timezone.utc)
    assert parse_since("2w", now=now) == now - dt.timedelta(days=14)
    with pytest.raises(ExperimentError, match="--since is an ISO date or time"):
        parse_since("yesterday")


def test_deleting_a_score_removes_it_and_the_pass_follows(traced):
    h, ids = traced
    h.rescore(runs=[ids["lima"]], scorers=[mentions_paris, words])
    assert next(h.store.rows("runs", [ids["lima"]], columns=["passed"]))["passed"] == 0
    assert h.delete_scores("mentions_paris", runs=[ids["lima"]]) == 1
    assert {r["name"] for r in h.store.rows("scores", [ids["lima"]])} == {"words"}
    assert next(h.store.rows("runs", [ids["lima"]], columns=["passed"]))["passed"] is None
    with pytest.raises(ExperimentError, match="no score named 'mentions_paris'"):
        h.delete_scores("mentions_paris", runs=[ids["lima"]])


def test_an_experiments_check_deleted_leaves_its_other_gates(traced):
    h, _ = traced
    assert h.delete_scores(["answer"], "exp") == 2
    assert {r["name"] for r in h.store.rows("scores", where={"experiment": "exp"})} >= {"completed"}
    assert "answer" not in {r["name"] for r in h.store.rows("scores", where={"experiment": "exp"})}
    assert {r["passed"] for r in h.store.rows("runs", columns=["passed"], where={"experiment": "exp"})} == {1}


def test_the_scores_sheet_carries_each_scores_experiment_and_case(traced):
    h, ids = traced
    h.rescore(runs=[ids["paris"]], scorers=[words])
    h.label(ids["lima"], "reviewed", True)
    scores = h.sheets()["scores"]
    assert list(scores.columns[-4:-2]) == ["experiment", "case_id"]
    of_experiment = scores[scores["experiment"] == "exp"]
    assert set(of_experiment["case_id"]) == {"q0", "q1"} and {"completed", "answer"} <= set(of_experiment["name"])
    outside = scores[scores["run_id"].isin([ids["paris"], ids["lima"]])]
    assert set(outside["name"]) == {"words", "reviewed"} and outside["experiment"].isna().all()


def test_an_older_store_gets_its_scores_experiment_and_case_from_its_runs(tmp_path):
    path = tmp_path / "old.db"
    h = Harness(path, writer="inline")
    h.experiment("exp", react_agent(), capital_cases(1), context={"wrong": False})
    h.close()
    with sqlite3.connect(path) as conn:  # as schema version 8 left it
        conn.execute('ALTER TABLE scores DROP COLUMN "experiment"')
        conn.execute('ALTER TABLE scores DROP COLUMN "case_id"')
        conn.execute("UPDATE harness_meta SET value = '8' WHERE key = 'schema_version'")
    h = Harness(path)
    assert {(r["experiment"], r["case_id"]) for r in h.store.rows("scores")} == {("exp", "q0")}
    h.close()


SCORERS = textwrap.dedent('''
    def mentions_paris(run, case):
        return "Paris" in (run.answer or "")
''')


def test_the_cli_rescores_traced_runs_and_list_and_show_give_their_scores(traced, tmp_path):
    h, ids = traced
    h.close()
    (tmp_path / "my_scorers.py").write_text(SCORERS)
    store = str(tmp_path / "runs.db")
    done = harness_cli("rescore", "--workflow", "support", "--scorer", "my_scorers:mentions_paris",
                       "--store", store, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("rescored workflow support: 2 run(s), 2 score(s) written")
    listed = harness_cli("list", "--workflow", "support", "--store", store)
    assert listed.stdout.count("mentions_paris ✓") == 1 and listed.stdout.count("mentions_paris ✗") == 1
    as_json = json.loads(harness_cli("list", "--json", "--store", store).stdout)
    by_id = {r["run_id"]: r for r in as_json}
    assert by_id[ids["paris"]]["scores"]["mentions_paris"] == {"value": 1.0, "passed": 1, "source": "code",
                                                              "error": None}
    shown = json.loads(harness_cli("show", ids["lima"][:8], "--json", "--store", store).stdout)
    assert [(s["name"], s["passed"]) for s in shown["scores"]["list"]] == [("mentions_paris", 0)]
    again = harness_cli("rescore", "--run", ids["lima"][:8], "--delete", "mentions_paris", "--store", store)
    assert again.returncode == 0 and "deleted 1 score(s) named mentions_paris from 1 named run(s)" in again.stdout
    for args, message in ((("--since", "soon", "--delete", "x"), "--since is an ISO date"), ((), "give --scorer"),
                          (("--delete", "x"), "say which runs"), (("--run", "zzzz", "--delete", "x"), "no run 'zzzz'")):
        refused = harness_cli("rescore", *args, "--store", store)
        assert refused.returncode == 2 and message in refused.stderr, (args, refused.stderr)
