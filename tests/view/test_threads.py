"""`harness threads` and `harness show --thread` as a user types them: one line per
conversation with the status its last turn left it in and the sums of its runs' own
figures; a conversation turn by turn, its questions and answers in order."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest

from harness.cli import main

from .conftest import harness_cli


@pytest.fixture
def cli(capsys, conversations):
    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main([*args, "--store", str(conversations.path)])
        out = capsys.readouterr()
        return int(info.value.code or 0), out.out, out.err

    return run


def runs_of(conversations, thread: str) -> list[dict]:
    """The thread's runs rows, read straight from SQLite (not through the code under test)."""
    with sqlite3.connect(conversations.path) as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute(
            "SELECT run_id, status, total_time_ms, total_tokens, total_cost, started_at, completed_at, interrupts, "
            "passed FROM runs WHERE thread_id = ? ORDER BY started_at", (thread,))]


def test_threads_lists_each_conversation_with_its_status_and_the_sums_of_its_runs(cli, conversations):
    code, out, err = cli("threads", "--json")
    assert code == 0 and err == ""
    listed = {t["thread_id"]: t for t in json.loads(out)}
    assert set(listed) == set(conversations.threads)  # a run without a thread is no thread
    assert {k: t["status"] for k, t in listed.items()} == {
        "desk-0001": "completed", "waiting-0002": "waiting", "nested-0003": "completed", "failed-0004": "failed"}
    for thread, run_ids in conversations.threads.items():
        rows, shown = runs_of(conversations, thread), listed[thread]
        assert [r["run_id"] for r in rows] == run_ids
        assert shown["turns"] == len(run_ids) and shown["last_run_id"] == run_ids[-1]
        assert shown["total_time_ms"] == pytest.approx(math.fsum(r["total_time_ms"] for r in rows), rel=1e-12)
        tokens = [r["total_tokens"] for r in rows if r["total_tokens"] is not None]
        assert shown["total_tokens"] == (sum(tokens) if tokens else None)
        costs = [r["total_cost"] for r in rows if r["total_cost"] is not None]
        assert shown["total_cost"] == (round(math.fsum(costs), 8) if costs else None)
        assert (shown["first_at"], shown["last_at"]) == (rows[0]["started_at"], rows[-1]["completed_at"])
    assert listed["desk-0001"]["total_tokens"] > 0 and listed["desk-0001"]["total_cost"] > 0


def test_threads_are_newest_first_and_filtered_like_list(cli, conversations):
    code, out, _ = cli("threads", "--json", "--limit", "0")
    order = [t["thread_id"] for t in json.loads(out)]
    assert order == ["failed-0004", "nested-0003", "waiting-0002", "desk-0001"]
    assert [t["thread_id"] for t in json.loads(cli("threads", "--json", "--status", "waiting")[1])] == ["waiting-0002"]
    both = json.loads(cli("threads", "--json", "--status", "failed", "--status", "waiting")[1])
    assert {t["thread_id"] for t in both} == {"failed-0004", "waiting-0002"}
    assert [t["thread_id"] for t in json.loads(cli("threads", "--json", "--workflow", "desk")[1])] == ["desk-0001"]
    assert [t["thread_id"] for t in json.loads(cli("threads", "--json", "--limit", "1")[1])] == ["failed-0004"]
    code, out, err = cli("threads", "--status", "stuck")
    assert code == 2 and out == "" and err.count("\n") == 1 and "completed, waiting or failed" in err


def test_threads_prints_a_table_with_whole_ids_when_piped(conversations):
    done = harness_cli("threads", "--store", str(conversations.path))
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert "thread" in lines[1] and "turns" in lines[1] and "status" in lines[1]
    desk = next(line for line in lines if "desk-0001" in line)
    assert conversations.threads["desk-0001"][-1] in desk and " 3 " in desk and "completed" in desk
    assert "waiting" in next(line for line in lines if "waiting-0002" in line)


def test_show_thread_prints_the_conversation_in_order(conversations):
    done = harness_cli("show", "--thread", "desk-0001", "--store", str(conversations.path))
    assert done.returncode == 0 and done.stderr == ""
    text = done.stdout
    said = ["thread desk-0001", "3 turns", "turn 1", "Please refund $40", "Refund $40?", "(tools / refund)",
            "turn 2", "answer   yes", "Done: refunded $40.", "turn 3", "thanks", "You said: thanks"]
    places = [text.index(s) for s in said]
    assert places == sorted(places)
    for turn, run_id in enumerate(conversations.threads["desk-0001"], start=1):
        assert f"run {run_id}" in text
    assert "waiting for an answer" in text.split("turn 2")[0] and "resumes turn 1" in text


def test_show_thread_json_has_every_turn_whole_with_questions_and_answers(cli, conversations):
    code, out, _ = cli("show", "--thread", "nested-0003", "--json")
    shown = json.loads(out)
    assert shown["thread"]["turns"] == 3 and shown["thread"]["status"] == "completed"
    turns = shown["turns"]
    assert [t["run_id"] for t in turns] == conversations.threads["nested-0003"]
    assert [t["turn"] for t in turns] == [1, 2, 3]
    assert [(i["node"], i["value"]) for i in turns[0]["interrupts"]] == [("review", "Inner: approve the plan?")]
    assert sorted(i["node"] for i in turns[1]["interrupts"]) == ["finance", "legal"]
    asked = {i["id"]: i["value"] for i in turns[1]["interrupts"]}
    assert turns[2]["resume"] == {key: f"ok: {value}" for key, value in asked.items()}
    assert [t["resumed_from"] for t in turns] == [None, turns[0]["run_id"], turns[1]["run_id"]]
    assert [t["waiting"] for t in turns] == [True, True, False]


def test_show_thread_answers_several_questions_each_with_its_own(conversations):
    text = harness_cli("show", "--thread", "nested-0003", "--store", str(conversations.path)).stdout
    third = text.split("turn 3")[1]
    assert "Legal ok? → ok: Legal ok?" in third and "Finance ok? → ok: Finance ok?" in third


def test_a_waiting_thread_says_what_it_waits_for_and_a_failed_one_why(cli):
    _, out, _ = cli("show", "--thread", "waiting-0002")
    assert "waiting" in out.splitlines()[0] and "Send this reply?" in out and "output" not in out
    _, out, _ = cli("show", "--thread", "failed-0004")
    assert "failed" in out.splitlines()[0] and "the caller gave up on this turn" in out


def test_a_thread_is_named_by_its_start_and_a_bad_name_is_one_line(cli):
    assert cli("show", "--thread", "nest", "--json")[0] == 0
    for args, message in ((("show", "--thread", "nobody"), "no thread 'nobody'"),
                          (("show", "--thread", "ne"), "too short"),
                          (("show",), "give a RUN or --thread ID"),
                          (("show", "some-run", "--thread", "desk"), "give a RUN or --thread ID")):
        code, out, err = cli(*args)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err, (args, err)


def test_show_of_one_run_of_a_thread_is_unchanged(cli, conversations):
    run_id = conversations.threads["desk-0001"][0]
    code, out, _ = cli("show", run_id[:8], "--json")
    shown = json.loads(out)
    assert code == 0 and shown["run"]["run_id"] == run_id and shown["run"]["turn"] == 1
    assert shown["run"]["interrupts"][0]["tool"] == "refund"


@pytest.mark.parametrize(("value", "shown"), [
    ("Your name?", "Your name?"),
    ({"question": "Refund $40?", "amount": 40}, "Refund $40?"),
    ([{"action_request": {"action": "write_email", "args": {"to": "a@example.com"}}, "description": "long"}],
     'approve write_email? {"to": "a@example.com"}'),
    ({"action_requests": [{"name": "delete_records", "args": {"table": "old"}, "description": "Tool execution"}],
      "review_configs": []}, 'approve delete_records? {"table": "old"}'),
    ({"description": "Check the plan"}, "Check the plan"),
    ({"plan": ["a", "b"]}, {"plan": ["a", "b"]}),
])
def test_a_question_reads_as_a_person_would_read_it(value, shown):
    from harness.view.threads import question

    assert question({"value": value}) == shown


def test_a_turns_output_is_its_last_answer_that_says_something():
    from harness.view.threads import said

    state = {"messages": [{"type": "human", "content": "hi"},
                          {"type": "ai", "content": "", "tool_calls": [{"name": "write_email", "args": {}}]},
                          {"type": "tool", "content": "Email sent"},
                          {"type": "ai", "content": "", "tool_calls": [{"name": "Done", "args": {"done": True}}]}]}
    assert said(state, "ai") == "Email sent" and said(state, "human") == "hi"
    assert said({"messages": [{"type": "ai", "content": "", "tool_calls": [{"name": "Done", "args": {}}]}]}, "ai") == \
        [{"tool": "Done", "args": {}}]
    assert said({"answer": 42}, "ai") == {"answer": 42}
