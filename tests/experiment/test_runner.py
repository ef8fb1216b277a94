"""Experiments: a user's graph over a dataset, recorded with its checks, pass and record."""

from __future__ import annotations

import asyncio

import pytest

import harness
from harness import Harness
from harness.experiment.runner import ExperimentError

from .agents import react_agent, sync_graph

COUNTRIES = ["France", "Japan", "Peru", "Kenya"]
CITIES = {"France": "Paris", "Japan": "Tokyo", "Peru": "Lima", "Kenya": "Nairobi"}


def capital_cases(n=4, **extra):
    return [{"id": f"q{i}", "input": {"messages": [["user", f"What is the capital of {COUNTRIES[i % 4]}?"]]},
             "expected_tools": ["capital_of"], "reference_answer": CITIES[COUNTRIES[i % 4]], **extra}
            for i in range(n)]


@pytest.fixture
def h(thread_harness):
    return thread_harness


def runs_of(h, experiment, *columns):
    return h.sheets(experiment=experiment, sheets=["runs"])["runs"][list(columns)].to_dict("records")


def test_an_async_react_agent_with_a_runtime_context_runs_from_a_dataset(h):
    e = h.experiment("base", react_agent(), capital_cases(require_tools=True), context={"wrong": False})
    rows = runs_of(h, "base", "case_id", "repeat_index", "status", "passed", "experiment")
    assert rows == [{"case_id": f"q{i}", "repeat_index": 0, "status": "completed", "passed": 1, "experiment": "base"}
                    for i in range(4)]
    sheets = h.sheets(e.run_ids, sheets=["tool_calls", "tool_selections", "agent_metrics"])
    assert list(sheets["tool_selections"]["f1_score"]) == [1.0] * 4
    assert list(sheets["agent_metrics"]["final_answer_quality"]) == [1.0] * 4
    assert sheets["agent_metrics"]["answer_details"][0]["check"] == "contains"


def test_the_runtime_context_reaches_the_graph(h):
    h.experiment("wrong", react_agent(), capital_cases(), context={"wrong": True})
    assert [r["passed"] for r in runs_of(h, "wrong", "passed")] == [0] * 4


def test_a_sync_graph_runs_with_ainvoke_and_with_invoke(h):
    cases = [{"id": c, "input": {"question": f"capital of {c}"}, "reference_answer": CITIES[c], "answer_check": "exact",
              "answer_path": "answer"} for c in COUNTRIES]
    for name, sync in (("via-ainvoke", False), ("via-invoke", True)):
        h.experiment(name, sync_graph(), cases, sync=sync)
        assert [r["passed"] for r in runs_of(h, name, "passed")] == [1, 1, 1, 1]


def test_a_run_past_its_timeout_is_recorded_failed_and_the_batch_goes_on(h):
    cases = [{"id": "slow", "input": {"messages": [["user", "capital of France"]]}},
             {"id": "fast", "input": {"messages": [["user", "capital of Japan"]]}}]
    h.experiment("slow", react_agent(), cases[:1], context={"delay": 2.0}, timeout=0.2)
    h.experiment("fast", react_agent(), cases[1:], timeout=5)
    slow, = runs_of(h, "slow", "status", "error", "passed", "total_time_ms")
    assert slow["status"] == "failed" and slow["error"].startswith("TimeoutError: the run took longer than its 0.2 s")
    assert slow["passed"] == 0 and slow["total_time_ms"] < 1500
    assert runs_of(h, "fast", "status") == [{"status": "completed"}]


def test_eight_at_once_keep_every_run_to_its_own_case(h):
    cases = capital_cases(24)
    e = h.experiment("busy", react_agent(), cases, concurrency=8, context={"delay": 0.02})
    runs = h.sheets(e.run_ids, sheets=["runs", "tool_calls", "llm_calls"])
    by_run = dict(zip(runs["runs"]["run_id"], runs["runs"]["case_id"]))
    for row in runs["tool_calls"].to_dict("records"):
        country = COUNTRIES[int(by_run[row["run_id"]][1:]) % 4]
        assert row["tool_input"] == {"country": country}
        assert row["tool_output"] == CITIES[country] or CITIES[country] in str(row["tool_output"])
    assert runs["llm_calls"].groupby("run_id").size().tolist() == [2] * 24
    assert list(runs["runs"]["case_id"]) == [c["id"] for c in cases]  # written in dataset order


def test_a_registered_price_is_used_by_the_writer_process(tmp_path):
    harness.register_price("acme-mini-2026", 1.5, 6.0)
    try:
        with_process = Harness(tmp_path / "p.db", writer="process")
        e = with_process.experiment("priced", react_agent(), capital_cases(1))
        calls = with_process.sheets(e.run_ids, sheets=["llm_calls"])["llm_calls"]
        with_process.close()
    finally:
        del harness.PRICES["acme-mini-2026"]
    assert list(calls["total_cost"]) == [pytest.approx(40 * 1.5 / 1e6 + 10 * 6.0 / 1e6)] * 2
    assert set(calls["price_table"]) == {"user"}


def test_a_taken_name_is_refused_unless_appended_and_repeats_continue(h):
    h.experiment("e", react_agent(), capital_cases(2), repeats=2)
    with pytest.raises(ExperimentError, match="already exists"):
        h.experiment("e", react_agent(), capital_cases(2))
    h.experiment("e", react_agent(), capital_cases(2), append=True)
    rows = runs_of(h, "e", "case_id", "repeat_index")
    assert sorted((r["case_id"], r["repeat_index"]) for r in rows) == [
        ("q0", 0), ("q0", 1), ("q0", 2), ("q1", 0), ("q1", 1), ("q1", 2)]


def test_shards_fill_one_experiment_between_them_in_any_order(h):
    for k in (2, 0, 1):
        h.experiment("sharded", react_agent(), capital_cases(7), shard=(k, 3))
    assert sorted(r["case_id"] for r in runs_of(h, "sharded", "case_id")) == sorted(f"q{i}" for i in range(7))
    assert h.store.experiment_record("sharded")["shards"] == [[0, 3], [1, 3], [2, 3]]
    with pytest.raises(ExperimentError, match="already exists"):  # a shard that ran, again
        h.experiment("sharded", react_agent(), capital_cases(7), shard=(1, 3))
    with pytest.raises(ExperimentError, match="already exists"):  # another dataset under the same name
        h.experiment("sharded", react_agent(), capital_cases(8), shard=(0, 4))


def test_the_experiment_record_says_what_ran(h, tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "input": {"messages": [["user", "capital of Peru"]]}}\n')
    h.experiment("recorded", react_agent(), path)
    table = h.experiments().set_index("name")
    row = table.loc["recorded"]
    assert row["dataset"] == str(path) and len(row["dataset_sha256"]) == 64 and row["cases"] == 1
    assert row["models"] == ["acme-mini-2026"] and row["runs"] == 1 and row["pass_rate"] == 1.0
    assert row["started_at"] <= row["finished_at"]


def test_the_summary_has_one_row_per_case_with_its_pass_rate(h):
    cases = capital_cases(2)
    cases[1]["reference_answer"] = "Atlantis"
    e = h.experiment("summary", react_agent(), cases, repeats=2)
    summary = e.summary().set_index("case_id")
    assert list(summary.columns[:4]) == ["runs", "pass_rate", "runs_with_pass", "failed_runs"]
    assert summary.loc["q0", "runs"] == 2 and summary.loc["q0", "pass_rate"] == 1.0
    assert summary.loc["q0", "runs_with_pass"] == 2 and summary.loc["q0", "failed_runs"] == 0
    assert summary.loc["q1", "pass_rate"] == 0.0 and summary.loc["q1", "answer_score"] == 0.0
    assert summary.loc["q0", "total_tokens"] == 100


def test_a_judge_case_without_a_judge_is_refused_before_running(h):
    with pytest.raises(ExperimentError, match="judge"):
        h.experiment("j", react_agent(), capital_cases(1, answer_check="judge"))
    assert h.experiments().empty


def test_the_judge_check_grades_with_the_given_chat_model(h):
    from workflows import OfflineAnalyst

    e = h.experiment("judged", react_agent(), capital_cases(2, answer_check="judge", threshold=0.2),
                     judge=OfflineAnalyst(temperature=0.0))
    scores = h.sheets(e.run_ids, sheets=["agent_metrics"])["agent_metrics"]["final_answer_quality"]
    assert all(0.2 <= s <= 1.0 for s in scores)  # the offline judge grades word overlap with the reference


def test_a_judge_grade_that_is_nan_leaves_the_case_unscored_and_its_pass_unknown(h):
    e = h.experiment("nan-judge", react_agent(), capital_cases(2, answer_check="judge"),
                     judge=lambda answer, reference, question: float("nan"))
    assert [r["passed"] for r in runs_of(h, "nan-judge", "passed")] == [None, None]
    metrics = h.sheets(e.run_ids, sheets=["agent_metrics"])["agent_metrics"]
    assert metrics["final_answer_quality"].isna().all()
    assert all("not a finite number" in d["reason"] for d in metrics["answer_details"])


def test_an_experiment_runs_from_inside_a_running_event_loop(h):
    async def notebook_cell():
        return h.experiment("nb", react_agent(), capital_cases(1))

    assert len(asyncio.run(notebook_cell()).run_ids) == 1


def test_a_runs_view_shows_its_cases_outcome(h):
    from harness.view import load_run

    cases = capital_cases(2)
    cases[1]["reference_answer"] = "Atlantis"
    e = h.experiment("shown", react_agent(), cases)
    h.flush()
    good, bad = (load_run(h.store, run_id).to_dict()["scores"]["case"] for run_id in e.run_ids)
    assert good["passed"] and good["answer"]["check"] == "contains" and good["answer"]["score"] == 1.0
    assert not bad["passed"] and bad["answer"]["reference"] == "Atlantis"


@pytest.mark.parametrize("name, message", [
    ("", "not blank"), ("   ", "not blank"), ("base\nline", "no control character"), ("\x1b[2Jbase", "no control character"),
    ("n" * 201, "at most 200 characters, not 201"),
])
def test_a_name_that_cannot_be_shown_on_one_line_is_refused_before_anything_runs(h, name, message):
    with pytest.raises(ExperimentError, match=message):
        h.experiment(name, react_agent(), capital_cases(1))
    assert h.experiments().empty and h.sheets(sheets=["runs"])["runs"].empty


def test_a_huge_name_is_refused_in_a_message_of_bounded_length(h):
    with pytest.raises(ExperimentError) as refused:
        h.experiment("n" * 100_000, react_agent(), capital_cases(1))
    assert "at most 200 characters, not 100,000" in str(refused.value) and len(str(refused.value)) < 200
