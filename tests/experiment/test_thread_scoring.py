"""Thread scorers judge a whole conversation: they see its runs, its messages across turns,
its interrupts with their answers, its final answer and its status; their scores are kept
once per thread (on its last turn), move when the thread grows, gate its pass and can be
gated on by compare."""

from __future__ import annotations

import asyncio
import shutil
import textwrap

import pytest
from langgraph.types import Command

from harness import ExperimentError, Harness, Score, ThreadSnapshot
from tests.experiment.agents import react_agent
from tests.experiment.test_runner import capital_cases
from tests.support.cli import harness_cli
from tests.support.conversations import two_questions

seen: dict[str, ThreadSnapshot] = {}


def remembers(thread, case) -> float:
    """Records what it was shown; its value is the number of turns."""
    seen[thread.thread_id] = thread
    return float(thread.turns)


def refunded(thread, case) -> Score:
    """Passes when the conversation ended with a refund that a person approved."""
    approved = [i for i in thread.interrupts if i.tool == "refund" and i.answer == "yes"]
    said = " ".join(str(m.get("content")) for m in thread.messages if isinstance(m, dict))
    ok = bool(approved) and "refunded $40" in said and thread.status == "completed"
    return Score(1.0 if ok else 0.0, passed=ok, explanation=f"{len(approved)} approved refund(s)")


@pytest.fixture
def store_copy(conversations, tmp_path):
    path = tmp_path / "threads.db"
    shutil.copy(conversations.path, path)
    h = Harness(path, writer="inline")
    yield h
    h.close()


def scores_of(h, thread: str) -> list[dict]:
    return list(h.store.rows("scores", columns=["run_id", "name", "value", "passed", "thread_id", "source"],
                             where={"thread_id": thread}))


def test_a_thread_scorer_sees_the_whole_conversation(store_copy, conversations):
    summary = store_copy.score_threads([remembers], threads=["desk-0001", "waiting-0002", "nested-0003"])
    assert summary.runs == 3 and summary.scores == 3 and summary.failed == 0
    desk = seen["desk-0001"]
    assert [r.run_id for r in desk.runs] == conversations.threads["desk-0001"]
    assert [(m["type"], m["content"]) for m in desk.messages] == [
        ("human", "Please refund $40"), ("ai", ""), ("tool", "refunded $40"), ("ai", "Done: refunded $40."),
        ("human", "thanks"), ("ai", "You said: thanks")]
    [asked] = desk.interrupts
    assert (asked.turn, asked.node, asked.tool, asked.value, asked.answer, asked.answered) == (
        1, "tools", "refund", {"question": "Refund $40?", "amount": 40}, "yes", True)
    assert desk.final_answer == "You said: thanks" and desk.status == "completed" and desk.turns == 3
    waiting = seen["waiting-0002"]
    assert waiting.status == "waiting" and waiting.final_answer is None
    assert [(i.value["question"], i.answered) for i in waiting.interrupts] == [("Send this reply?", False)]
    nested = seen["nested-0003"]
    answered = {i.node: i.answer for i in nested.interrupts}
    assert answered == {"review": "go", "legal": "ok: Legal ok?", "finance": "ok: Finance ok?"}


def test_a_thread_score_is_kept_once_on_its_last_turn_and_gates_its_pass(store_copy, conversations):
    store_copy.score_threads([refunded], threads=["desk-0001", "waiting-0002"])
    [desk] = scores_of(store_copy, "desk-0001")
    assert (desk["run_id"], desk["value"], desk["passed"], desk["source"]) == (
        conversations.threads["desk-0001"][-1], 1.0, 1, "code")
    [waiting] = scores_of(store_copy, "waiting-0002")
    assert waiting["passed"] == 0
    passes = {r["run_id"]: r["passed"] for r in store_copy.store.rows("runs", columns=["run_id", "passed"])}
    assert passes[conversations.threads["desk-0001"][-1]] == 1 and passes[conversations.threads["waiting-0002"][0]] == 0
    assert passes[conversations.threads["desk-0001"][0]] is None  # the other turns have no score that gates
    with pytest.raises(ExperimentError, match="already have scores named 'refunded'"):
        store_copy.score_threads([refunded], threads=["desk-0001"])
    store_copy.score_threads([refunded], threads=["desk"], replace=True)
    assert len(scores_of(store_copy, "desk-0001")) == 1


def test_when_the_thread_grows_its_score_moves_to_the_new_last_turn(tmp_path):
    h = Harness(tmp_path / "runs.db", writer="inline")
    graph = two_questions()
    config = {"configurable": {"thread_id": "grows"}}
    ids = []
    for given in ({"messages": []}, Command(resume="Ada")):
        with h.run() as run:
            graph.invoke(given, {**config, **run.config})
        ids.append(run.run_id)

    def finished(thread, case) -> bool:
        return thread.status == "completed"

    h.score_threads([finished], threads=["grows"])
    assert [(s["run_id"], s["passed"]) for s in scores_of(h, "grows")] == [(ids[1], 0)]
    with h.run() as run:
        graph.invoke(Command(resume="Paris"), {**config, **run.config})
    ids.append(run.run_id)
    h.score_threads([finished], threads=["grows"], replace=True)
    assert [(s["run_id"], s["passed"]) for s in scores_of(h, "grows")] == [(ids[2], 1)]
    passes = {r["run_id"]: r["passed"] for r in h.store.rows("runs", columns=["run_id", "passed"])}
    assert [passes[i] for i in ids] == [None, None, 1]  # the old last turn no longer fails
    h.close()


def test_a_failing_thread_scorer_is_an_error_score_and_the_others_go_on(store_copy):
    def broken(thread, case):
        raise RuntimeError("cannot judge")

    async def turns(thread, case) -> int:
        await asyncio.sleep(0)
        return thread.turns

    summary = store_copy.score_threads([broken, turns], threads=["nested-0003"])
    assert summary.failed == 1 and "cannot judge" in summary.errors[0]
    found = {s["name"]: s for s in store_copy.store.rows("scores", columns=["name", "value", "error"],
                                                        where={"thread_id": "nested-0003"})}
    assert found["turns"]["value"] == 3 and "RuntimeError: cannot judge" in found["broken"]["error"]


def test_rescore_threads_from_the_command_line(conversations, tmp_path):
    shutil.copy(conversations.path, tmp_path / "threads.db")
    (tmp_path / "thread_scorers.py").write_text(textwrap.dedent('''
        def long_conversation(thread, case):
            return {"turns": thread.turns, "long": thread.turns > 2}
    '''))
    done = harness_cli("rescore", "--threads", "--scorer", "thread_scorers:long_conversation",
                       "--store", "threads.db", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "scored 4 thread(s): 8 score(s) written" in done.stdout
    again = harness_cli("rescore", "--threads", "--thread", "desk", "--scorer", "thread_scorers:long_conversation",
                        "--store", "threads.db", cwd=tmp_path)
    assert again.returncode == 0 and "not replaced (give --replace): turns on 1 thread(s), long on 1 thread(s)" in \
        again.stderr
    named = harness_cli("rescore", "--threads", "--thread", "desk", "--scorer", "thread_scorers:long_conversation",
                        "--scorer", "thread_scorers:long_conversation", "--store", "threads.db", cwd=tmp_path)
    assert named.returncode == 2 and named.stderr.count("\n") == 1 and "two scorers are named" in named.stderr
    h = Harness(tmp_path / "threads.db", writer="inline")
    longs = {s["thread_id"]: s["passed"] for s in h.store.rows("scores", columns=["thread_id", "name", "passed"])
             if s["name"] == "long"}
    assert longs == {"desk-0001": 1, "waiting-0002": 0, "nested-0003": 1, "failed-0004": 0}
    h.close()
    bad = harness_cli("rescore", "--thread", "desk", "--scorer", "thread_scorers:long_conversation",
                      "--store", "threads.db", cwd=tmp_path)
    assert bad.returncode == 2 and "--thread goes with --threads" in bad.stderr


def answered_right(thread, case) -> bool:
    """A thread scorer: the conversation's final answer names the case's city."""
    return bool(thread.final_answer) and str(case.reference_answer) in thread.final_answer


def test_an_experiments_thread_scores_gate_compare(thread_harness):
    h = thread_harness
    cases = capital_cases(8)
    good = h.experiment("good", react_agent(), cases, thread_scorers=[answered_right])
    bad = h.experiment("bad", react_agent(), cases, thread_scorers=[answered_right], context={"wrong": True})
    assert good.thread_scoring.runs == 8 and good.thread_scoring.failed == 0
    values = [s["value"] for s in h.store.rows("scores", good.run_ids, columns=["value"],
                                              where={"name": "answered_right"})]
    assert values == [1.0] * 8
    comparison = h.compare("good", "bad", gate=["answered_right"])
    assert comparison.metric("answered_right").verdict == "regressed" and comparison.regressed
