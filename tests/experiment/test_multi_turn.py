"""Multi-turn cases: a dataset case holds a conversation (inputs and answers to interrupts),
played in order on one fresh thread per case and repeat; a turn that interrupts where the
case does not expect it, or does not where it does, fails the case with the reason; compare
pairs multi-turn experiments by case, a case's repeat counting once."""

from __future__ import annotations

import json

import pytest

from harness import DatasetError, ExperimentError, Harness, load_dataset
from tests.support.cli import harness_cli
from tests.support.conversations import approval_graph, refund_desk

ASK = {"messages": [["user", "refund my order"]]}
CASES = [
    {"id": "approve", "turns": [{"input": ASK}, {"resume": "yes"}], "reference_answer": "Sent."},
    {"id": "decline", "turns": [{"input": ASK}, {"resume": "no"}], "reference_answer": "Not sent."},
    {"id": "waits", "turns": [{"input": ASK, "interrupt": True}]},
]


def runs_of(h, experiment: str) -> list[dict]:
    h.flush()
    return list(h.store.rows("runs", columns=["run_id", "case_id", "repeat_index", "thread_id", "turn", "status",
                                              "passed", "resume", "resumed_from", "inputs", "total_time_ms",
                                              "total_tokens"], where={"experiment": experiment}))


def scores_of(h, run_id: str) -> dict[str, dict]:
    return {s["name"]: s for s in h.store.rows("scores", [run_id], columns=["name", "value", "passed",
                                                                           "explanation"])}


def test_each_case_plays_its_turns_in_order_on_a_fresh_thread_per_repeat(thread_harness):
    h = thread_harness
    e = h.experiment("hitl", approval_graph(), CASES, repeats=2)
    runs = runs_of(h, "hitl")
    assert len(e.run_ids) == len(runs) == 2 * (2 + 2 + 1)
    threads: dict[tuple, list[dict]] = {}
    for r in runs:
        threads.setdefault((r["case_id"], r["repeat_index"]), []).append(r)
    assert sorted(threads) == [(c, k) for c in ("approve", "decline", "waits") for k in (0, 1)]
    assert len({turns[0]["thread_id"] for turns in threads.values()}) == 6  # one fresh thread each
    for turns in threads.values():
        assert len({r["thread_id"] for r in turns}) == 1
        assert [r["turn"] for r in turns] == list(range(1, len(turns) + 1))
    approve = threads["approve", 0]
    assert approve[1]["resume"] == "yes" and approve[1]["resumed_from"] == approve[0]["run_id"]
    assert approve[1]["inputs"] == {"resume": "yes"} and approve[0]["inputs"] == ASK
    last = scores_of(h, approve[1]["run_id"])
    assert last["turns"]["passed"] == 1 and last["turns"]["explanation"] == "all 2 turns did what the case expects"
    assert last["answer"]["passed"] == 1 and "answer" not in scores_of(h, approve[0]["run_id"])
    assert all(r["passed"] == 1 for r in runs)


def test_a_turn_that_does_not_do_what_the_case_expects_fails_it_with_the_reason(thread_harness):
    h = thread_harness
    cases = [
        {"id": "asks-unexpectedly", "turns": [{"input": ASK}]},
        {"id": "never-asks", "turns": [{"input": {"messages": [["user", "hello"]]}}, {"resume": "yes"}]},
        {"id": "told-it-asks", "turns": [{"input": {"messages": [["user", "hi"]]}, "interrupt": True}]},
    ]
    h.experiment("unexpected", approval_graph(), cases[:1])
    h.experiment("missing", refund_desk(), cases[1:])
    [asks] = runs_of(h, "unexpected")
    verdict = scores_of(h, asks["run_id"])["turns"]
    assert verdict["passed"] == 0 and verdict["value"] == 0.0
    assert verdict["explanation"].startswith("turn 1 of 1 stopped at an interrupt the case does not expect")
    assert "Send this reply?" in verdict["explanation"] and asks["passed"] == 0
    missing = runs_of(h, "missing")
    assert [r["case_id"] for r in missing] == ["never-asks", "told-it-asks"]  # the rest of the case is not played
    for r in missing:
        verdict = scores_of(h, r["run_id"])["turns"]
        assert verdict["passed"] == 0 and r["passed"] == 0
        assert "turn 1 of" in verdict["explanation"] and "finished without stopping at the interrupt" in \
            verdict["explanation"]


def test_a_turns_own_reference_answer_is_checked_on_that_turn(thread_harness):
    h = thread_harness
    cases = [{"id": "two-checks", "turns": [
        {"input": {"messages": [["user", "Please refund $40"]]}, "reference_answer": "refund", "interrupt": True},
    ]}, {"id": "turn-answer", "turns": [
        {"input": {"messages": [["user", "Please refund $40"]]}}, {"resume": "yes", "reference_answer": "refunded $40"},
        {"input": {"messages": [["user", "thanks"]]}, "reference_answer": "You said: thanks",
         "answer_check": "exact"}]}]
    h.experiment("desk", refund_desk(), cases)
    runs = runs_of(h, "desk")
    answers = [scores_of(h, r["run_id"]).get("answer", {}).get("passed") for r in runs]
    assert answers == [0, None, 1, 1]  # an interrupted turn has no answer yet
    assert [r["passed"] for r in runs] == [0, 1, 1, 1]


def test_a_graph_without_a_checkpointer_is_given_an_in_memory_one(thread_harness):
    graph = approval_graph(compiled_with=False)
    thread_harness.experiment("lent", graph, CASES[:1], sync=True)
    assert [r["passed"] for r in runs_of(thread_harness, "lent")] == [1, 1]
    assert graph.checkpointer is None  # the user's graph is left as it was


def test_a_graph_that_cannot_keep_a_conversation_is_one_clear_error(thread_harness):
    from langchain_core.runnables import RunnableLambda

    with pytest.raises(ExperimentError, match="no checkpointer.*compile it with checkpointer=InMemorySaver"):
        thread_harness.experiment("plain", RunnableLambda(lambda x: x), CASES[:1], target="echo")


@pytest.mark.parametrize(("case", "problem"), [
    ({"id": "a", "input": "hi", "turns": [{"input": "hi"}]}, "field 'input': a multi-turn case has turns instead"),
    ({"id": "a", "turns": []}, "field 'turns': a non-empty list"),
    ({"id": "a", "turns": [{"resume": "yes"}]}, "field 'turns[0].resume': the first turn starts the conversation"),
    ({"id": "a", "turns": [{"input": "hi"}, {"resume": "y", "input": "x"}]}, "field 'turns[1]': give input"),
    ({"id": "a", "turns": [{"input": "hi", "answer": "x"}]}, "field 'turns[0].answer': unknown field"),
    ({"id": "a", "turns": [{"input": "hi", "interrupt": "yes"}]}, "field 'turns[0].interrupt': true or false"),
    ({"id": "a", "turns": [{"input": "hi", "answer_check": "exact"}]}, "field 'turns[0].reference_answer': required"),
    ({"id": "a", "turns": [{"input": "hi"}], "expected_tools": ["x"]}, "field 'expected_tools': not for a multi-turn"),
    ({"id": "a", "turns": [{"input": "hi", "reference_answer": "x"}], "reference_answer": "y"},
     "field 'reference_answer': the last turn has one already"),
])
def test_a_bad_turn_is_named_by_file_line_and_field(tmp_path, case, problem):
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "ok", "input": "fine"}) + "\n" + json.dumps(case) + "\n")
    with pytest.raises(DatasetError) as raised:
        load_dataset(path)
    assert str(raised.value).startswith(f"{path}:2: {problem}"), str(raised.value)


def test_compare_pairs_multi_turn_experiments_by_case_each_repeat_once(thread_harness):
    h = thread_harness
    cases = [{"id": f"c{i}", "turns": [{"input": {"messages": [["user", f"refund order {i}"]]}}, {"resume": "yes"}],
              "reference_answer": "Sent.", "answer_check": "exact"} for i in range(8)]
    h.experiment("sends", approval_graph(), cases, repeats=2)
    h.experiment("never", approval_graph(never_sends=True), cases, repeats=2)
    comparison = h.compare("sends", "never")
    assert comparison.paired_cases == 8 and not any("unequal repeats" in w for w in comparison.warnings)
    pass_rate = comparison.metric("pass_rate")
    assert (pass_rate.a, pass_rate.b, pass_rate.n, pass_rate.verdict) == (1.0, 0.0, 8, "regressed")
    runs = runs_of(h, "sends")
    by_case = {}
    for r in runs:
        if r["case_id"] == "c0":
            by_case.setdefault(r["repeat_index"], []).append(r["total_time_ms"])
    latency = comparison.metric("latency_ms")
    assert latency.n == 8 and latency.a > 0  # a case's latency is its turns' sum, averaged over its repeats
    table = h.experiments().set_index("name")
    assert table.loc["sends", "runs"] == 32 and table.loc["sends", "runs_with_pass"] == 16
    assert table.loc["never", "pass_rate"] == 0.0
    summary = h.experiment("again", approval_graph(), cases[:2], repeats=1).summary()
    assert list(summary["runs"]) == [1, 1] and list(summary["pass_rate"]) == [1.0, 1.0]
    assert all(len(v) == 2 for v in by_case.values())


def test_wrap_dataset_plays_multi_turn_cases_and_threads_lists_them(tmp_path):
    (tmp_path / "desk.py").write_text("from tests.support.conversations import approval_graph\n"
                                      "graph = approval_graph(compiled_with=False)\n")
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in CASES) + "\n")
    import os
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{Path(__file__).resolve().parents[2]}"}
    done = harness_cli("wrap", "desk:graph", "--dataset", "cases.jsonl", "--experiment", "hitl", "--store", "runs.db",
                       cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "experiment hitl: 5 run(s) of 3 case(s)" in done.stdout
    listed = json.loads(harness_cli("threads", "--experiment", "hitl", "--json", "--store", "runs.db",
                                    cwd=tmp_path).stdout)
    assert sorted((t["case_id"], t["turns"], t["status"], t["passed"]) for t in listed) == [
        ("approve", 2, "completed", True), ("decline", 2, "completed", True), ("waits", 1, "waiting", True)]
    h = Harness(tmp_path / "runs.db", writer="inline")
    assert h.compare("hitl", "hitl").paired_cases == 3
    h.close()
