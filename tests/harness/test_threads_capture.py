"""A thread's runs as the harness records them: each run's turn, the interrupt it stopped at
(value, node; redacted and bounded), the resume it was given and the run it resumed, with
every way of calling a graph, on real LangGraph graphs and checkpointers."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid

import pytest
from langgraph.types import Command

from harness import Harness, Store
from tests.support.conversations import approval_graph, nested_question, refund_desk, two_questions

THREAD_COLUMNS = ["run_id", "thread_id", "turn", "status", "interrupts", "resume", "resumed_from"]


def play(h: Harness, graph, inputs, *, thread: str, mode: str = "invoke") -> list:
    """Each input as one run on ``thread``, called the way ``mode`` says; the graph's results."""
    config = {"configurable": {"thread_id": thread}}
    results = []
    for given in inputs:
        with h.run(workflow="desk") as run:
            merged = {**config, **run.config}
            if mode == "invoke":
                results.append(graph.invoke(given, merged))
            elif mode == "ainvoke":
                results.append(asyncio.run(graph.ainvoke(given, merged)))
            elif mode == "stream":
                results.append(list(graph.stream(given, merged, stream_mode="updates")))
            else:
                async def collect():
                    return [chunk async for chunk in graph.astream(given, merged, stream_mode="updates")]
                results.append(asyncio.run(collect()))
    return results


def thread_rows(h: Harness, thread: str) -> list[dict]:
    h.flush()
    rows = list(h.store.rows("runs", columns=[*THREAD_COLUMNS, "started_at"], where={"thread_id": thread}))
    return sorted(rows, key=lambda r: r["turn"])


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
def test_each_turn_records_the_question_it_stopped_at_and_the_answer_it_resumed_with(thread_harness, mode):
    graph = approval_graph()
    play(thread_harness, graph, [{"messages": [("user", "refund my order")]}, Command(resume="yes")],
         thread="t-" + mode, mode=mode)
    first, second = thread_rows(thread_harness, "t-" + mode)
    assert (first["turn"], second["turn"]) == (1, 2)
    assert first["status"] == "completed"  # an interrupt is control flow, never a failure
    [asked] = first["interrupts"]
    assert asked["node"] == "approve" and asked["value"]["question"] == "Send this reply?"
    assert asked["value"]["draft"] == "You said: refund my order" and len(asked["id"]) == 32
    assert first["resume"] is None and first["resumed_from"] is None
    assert second["resume"] == "yes" and second["resumed_from"] == first["run_id"]
    assert second["interrupts"] is None and second["status"] == "completed"


def test_the_graphs_own_interrupt_result_is_returned_unchanged(thread_harness):
    graph = approval_graph()
    bare = graph.invoke({"messages": [("user", "hi")]}, {"configurable": {"thread_id": "bare"}})
    [traced] = play(thread_harness, graph, [{"messages": [("user", "hi")]}], thread="traced")
    assert [i.value for i in traced["__interrupt__"]] == [i.value for i in bare["__interrupt__"]]
    assert [m.content for m in traced["messages"]] == [m.content for m in bare["messages"]]


def test_several_interrupts_in_one_node_are_one_turn_each(thread_harness):
    results = play(thread_harness, two_questions(), [{"messages": []}, Command(resume="Ada"),
                                                      Command(resume="Paris")], thread="two")
    rows = thread_rows(thread_harness, "two")
    assert [r["turn"] for r in rows] == [1, 2, 3]
    assert [r["interrupts"] and r["interrupts"][0]["value"] for r in rows] == ["Your name?", "Your city?", None]
    assert [r["resume"] for r in rows] == [None, "Ada", "Paris"]
    assert [r["resumed_from"] for r in rows] == [None, rows[0]["run_id"], rows[1]["run_id"]]
    assert results[-1]["note"] == "Ada from Paris"


def test_an_interrupt_in_a_subgraph_names_the_inner_node_and_parallel_ones_resume_together(thread_harness):
    graph = nested_question()
    play(thread_harness, graph, [{"messages": []}, Command(resume="go")], thread="nested")
    waiting = graph.get_state({"configurable": {"thread_id": "nested"}}).interrupts
    answers = {i.id: f"ok {i.value}" for i in waiting}
    play(thread_harness, graph, [Command(resume=answers)], thread="nested")
    first, second, third = thread_rows(thread_harness, "nested")
    assert [(i["node"], i["value"]) for i in first["interrupts"]] == [("review", "Inner: approve the plan?")]
    assert sorted((i["node"], i["value"]) for i in second["interrupts"]) == [("finance", "Finance ok?"),
                                                                             ("legal", "Legal ok?")]
    assert {i["id"] for i in second["interrupts"]} == set(answers)
    assert third["resume"] == answers and third["resumed_from"] == second["run_id"]
    assert third["interrupts"] is None


def test_an_interrupt_in_a_tool_of_a_react_agent_names_the_tool_and_its_node(thread_harness):
    desk = refund_desk()
    results = play(thread_harness, desk, [{"messages": [("user", "Please refund $40")]}, Command(resume="yes"),
                                          {"messages": [("user", "thanks")]}], thread="desk")
    first, second, third = thread_rows(thread_harness, "desk")
    [asked] = first["interrupts"]
    assert (asked["node"], asked["tool"], asked["value"]) == ("tools", "refund",
                                                             {"question": "Refund $40?", "amount": 40})
    assert second["resumed_from"] == first["run_id"] and second["interrupts"] is None
    assert third["resume"] is None and third["resumed_from"] is None and third["turn"] == 3
    assert results[1]["messages"][-1].content == "Done: refunded $40."


def test_the_sqlite_checkpointer_threads_are_recorded_the_same(tmp_path, thread_harness):
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(tmp_path / "checkpoints.db", check_same_thread=False) as conn:
        graph = approval_graph(SqliteSaver(conn))
        play(thread_harness, graph, [{"messages": [("user", "hello")]}, Command(resume="no")], thread="saved")
        first, second = thread_rows(thread_harness, "saved")
    assert first["interrupts"][0]["node"] == "approve" and second["resumed_from"] == first["run_id"]


def test_an_interrupt_value_is_redacted_and_cut_like_every_payload(thread_harness):
    secret = "sk-" + "a1B2" * 12
    graph = approval_graph()
    play(thread_harness, graph, [{"messages": [("user", f"my key is {secret} " + "x" * 30_000)]},
                                 Command(resume=f"yes, {secret}")], thread="secret")
    first, second = thread_rows(thread_harness, "secret")
    value = first["interrupts"][0]["value"]
    assert isinstance(value, str) and secret not in value and "[REDACTED]" in value
    assert len(value) <= 10_000 and value.endswith("chars]")
    assert secret not in second["resume"] and "[REDACTED]" in second["resume"]


def test_runs_written_out_of_order_are_numbered_as_they_started(tmp_path):
    h = Harness(tmp_path / "runs.db", writer="inline")
    graph = two_questions()
    config = {"configurable": {"thread_id": "late"}}
    runs = []
    for given in ({"messages": []}, Command(resume="Ada"), Command(resume="Paris")):
        run = h.run(hold=True)
        with run:
            graph.invoke(given, {**config, **run.config})
        runs.append(run)
    for run in (runs[2], runs[0], runs[1]):  # the last turn reaches the store first
        run.write()
    rows = {r["run_id"]: r for r in thread_rows(h, "late")}
    assert [rows[r.run_id]["turn"] for r in runs] == [1, 2, 3]
    assert [rows[r.run_id]["resumed_from"] for r in runs] == [None, runs[0].run_id, runs[1].run_id]
    h.close()


def test_a_run_without_a_thread_has_no_turn(thread_harness):
    from tests.harness import graphs

    with thread_harness.run() as run:
        graphs.sequential().invoke({"log": []}, run.config)
    thread_harness.flush()
    [row] = thread_harness.store.rows("runs", [run.run_id], columns=["turn", "interrupts", "resume"])
    assert row == {"turn": None, "interrupts": None, "resume": None}


def test_a_store_from_before_turns_has_its_threads_numbered_when_opened(tmp_path, monkeypatch):
    from harness.store import base, migrations

    path = tmp_path / "old.db"
    store = Store(path)
    store.write("runs", [{"run_id": f"r{i}", "thread_id": "t", "started_at": f"2026-01-0{i}T00:00:00+00:00"}
                         for i in (3, 1, 2)] + [{"run_id": "solo", "started_at": "2026-01-01T00:00:00+00:00"}])
    store.close()
    with sqlite3.connect(path) as conn:  # as version 8 left it: no turns yet
        conn.execute('UPDATE runs SET turn = NULL')
        conn.execute("UPDATE harness_meta SET value = '8' WHERE key = 'schema_version'")
    assert base.SCHEMA_VERSION == migrations.SCHEMA_VERSION > 8  # opening brings it forward
    store = Store(path)
    turns = {r["run_id"]: r["turn"] for r in store.rows("runs", columns=["run_id", "turn"])}
    assert turns == {"r1": 1, "r2": 2, "r3": 3, "solo": None}


def test_a_thread_of_a_postgresql_store_is_one_chain_with_concurrent_writers(pg_url):
    """Turns of one thread written by two processes' worth of writers at once (two harnesses,
    each its own connection) are numbered in the order they started."""
    graph = two_questions()
    thread = str(uuid.uuid4())
    writers = [Harness(pg_url, writer="thread"), Harness(pg_url, writer="thread")]
    config = {"configurable": {"thread_id": thread}}
    ids = []
    for i in range(12):  # a question asked, answered, asked again ... each turn by one of the two
        with writers[i % 2].run() as run:
            graph.invoke(Command(resume=f"a{i}") if i % 2 else {"messages": []}, {**config, **run.config})
        ids.append(run.run_id)
    for h in writers:
        h.flush()
    rows = sorted(writers[0].store.rows("runs", columns=["run_id", "turn", "started_at"], where={"thread_id": thread}),
                  key=lambda r: r["started_at"])
    assert [r["run_id"] for r in rows] == ids
    assert [r["turn"] for r in rows] == list(range(1, len(ids) + 1))
    for h in writers:
        h.close()


def test_a_thread_copied_into_a_store_that_has_other_turns_of_it_is_numbered_again(tmp_path):
    from harness.store.copy import copy_runs

    graph = two_questions()
    laptop, server = Harness(tmp_path / "laptop.db", writer="inline"), Harness(tmp_path / "server.db", writer="inline")
    # turns 1 and 3 were recorded on the server, turn 2 on a laptop
    for h, given in ((server, {"messages": []}), (laptop, Command(resume="Ada")), (server, Command(resume="Rome"))):
        play(h, graph, [given], thread="shared")
    copy_runs(laptop.store, server.store)
    rows = thread_rows(server, "shared")
    assert [r["turn"] for r in rows] == [1, 2, 3]
    assert [r["resume"] for r in rows] == [None, "Ada", "Rome"]
    assert [r["resumed_from"] for r in rows] == [None, rows[0]["run_id"], rows[1]["run_id"]]
    laptop.close()
    server.close()
