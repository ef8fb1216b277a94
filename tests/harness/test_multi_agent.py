"""Multi-agent graphs traced as they ran: the README systems of langgraph-supervisor and
langgraph-swarm, with the real packages, driven by a scripted tool-calling model."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pandas as pd
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness import Harness, current_run
from harness.cli import main

from . import graphs
from .teams import (QUESTION, ScriptedChatModel, say, supervisor_scripts, supervisor_system, swarm_system,
                    transcript, web_search)

pytest.importorskip("langgraph_supervisor")
pytest.importorskip("langgraph_swarm")
# langgraph-supervisor builds its supervisor with create_react_agent, which LangGraph 1.x marks as moved
pytestmark = pytest.mark.filterwarnings("ignore:create_react_agent has been moved")

SWARM_TURNS = ("i'd like to speak to Bob", "what's 5 + 7?")


@pytest.fixture
def harness(thread_harness):
    return thread_harness


def supervisor_run(harness, **kwargs):
    with harness.run(workflow="supervisor", **kwargs) as run:
        supervisor_system().invoke(QUESTION, run.config)
    return harness.sheets([run.run_id])


def swarm_run(harness, thread_id="1"):
    graph = swarm_system()
    with harness.run(workflow="swarm") as run:
        for turn in SWARM_TURNS:
            graph.invoke({"messages": [{"role": "user", "content": turn}]},
                         {**run.config, "configurable": {"thread_id": thread_id}})
    return harness.sheets([run.run_id])


# --- agent attribution ---------------------------------------------------------------------

def test_every_model_and_tool_call_of_a_supervisor_run_belongs_to_the_agent_it_ran_in(harness):
    f = supervisor_run(harness)
    llm = f["llm_calls"]
    assert list(zip(llm.agent_name, llm.node)) == [
        ("supervisor", "agent"), ("research_expert", "agent"), ("research_expert", "agent"), ("supervisor", "agent"),
        ("math_expert", "agent"), ("math_expert", "agent"), ("supervisor", "agent")]
    assert list(llm.model) == ["gpt-4o", "gpt-4o-mini", "gpt-4o-mini", "gpt-4o", "gpt-4o-mini", "gpt-4o-mini",
                               "gpt-4o"]
    tools = f["tool_calls"]
    assert list(zip(tools.tool_name, tools.agent_name, tools.node)) == [
        ("transfer_to_research_expert", "supervisor", "tools"), ("web_search", "research_expert", "tools"),
        ("transfer_to_math_expert", "supervisor", "tools"), ("add", "math_expert", "tools")]
    prompts = f["prompts"].set_index("llm_call_id")
    assert [prompts.agent_name[i] for i in llm.llm_call_id] == list(llm.agent_name)
    assert list(llm.agent_path) == list(llm.agent_name)


def test_node_events_name_the_inner_node_and_its_agent(harness):
    f = supervisor_run(harness)
    ev = f["langgraph_events"]
    nodes = ev[(ev.event_kind == "node") & (ev.status == "started")]
    assert list(zip(nodes.node, nodes.agent_name, nodes.subgraph_depth))[:4] == [
        ("supervisor", "supervisor", 0), ("agent", "supervisor", 1), ("tools", "supervisor", 1),
        ("research_expert", "research_expert", 0)]
    assert set(nodes.agent_name) == {"supervisor", "research_expert", "math_expert"}
    calls = ev[ev.event_kind.isin(["llm", "tool"])]
    assert calls.agent_name.notna().all()
    graph = ev[ev.event_kind == "graph"]
    assert graph.agent_name.isna().all()
    assert f["runs"].iloc[0].agent_name == "supervisor"  # the last node to finish: the supervisor's answer


def test_a_swarms_calls_belong_to_alice_or_bob(harness):
    f = swarm_run(harness)
    llm = f["llm_calls"]
    assert list(zip(llm.agent_name, llm.node)) == [("Alice", "model"), ("Bob", "model"), ("Bob", "model"),
                                                    ("Alice", "model"), ("Alice", "model")]
    tools = f["tool_calls"]
    assert list(zip(tools.tool_name, tools.agent_name)) == [
        ("transfer_to_bob", "Alice"), ("transfer_to_alice", "Bob"), ("add", "Alice")]


def test_in_a_supervisor_of_supervisors_the_agent_is_the_top_level_team_and_the_path_names_the_inner_agent(harness):
    from langgraph_supervisor import create_supervisor

    from .teams import _react_agent

    researcher = _react_agent(ScriptedChatModel(script=[
        say("", ("web_search", {"query": "Apple headcount"})), say("Apple: 164,000.")]),
        [web_search], "research_expert", "You research.")
    team = create_supervisor(
        [researcher], supervisor_name="research_supervisor",
        model=ScriptedChatModel(script=[say("", ("transfer_to_research_expert", {})), say("Apple: 164,000.")]),
    ).compile(name="research_team")
    top = create_supervisor(
        [team], supervisor_name="top_supervisor",
        model=ScriptedChatModel(script=[say("", ("transfer_to_research_team", {})), say("164,000 people.")]),
    ).compile(name="top")
    with harness.run(workflow="teams") as run:
        top.invoke({"messages": [{"role": "user", "content": "Apple's headcount?"}]}, run.config)
    f = harness.sheets([run.run_id])
    llm = f["llm_calls"]
    assert list(zip(llm.agent_name, llm.agent_path)) == [
        ("top_supervisor", "top_supervisor"),
        ("research_team", "research_team/research_supervisor"),
        ("research_team", "research_team/research_expert"), ("research_team", "research_team/research_expert"),
        ("research_team", "research_team/research_supervisor"),
        ("top_supervisor", "top_supervisor")]
    tools = f["tool_calls"]
    assert list(zip(tools.tool_name, tools.agent_path)) == [
        ("transfer_to_research_team", "top_supervisor"),
        ("transfer_to_research_expert", "research_team/research_supervisor"),
        ("web_search", "research_team/research_expert")]
    ev = f["langgraph_events"]
    assert set(ev[ev.event_kind == "node"].subgraph_depth) == {0, 1, 2}


def test_agent_names_rename_root_level_agents_and_single_graphs_keep_their_node_names(harness):
    f = supervisor_run(harness, agent_names={"research_expert": "researcher"})
    assert list(f["llm_calls"].agent_name)[:3] == ["supervisor", "researcher", "researcher"]
    with harness.run(agent_names={"plan": "planner"}) as run:
        graphs.sequential().invoke({"question": "q"}, run.config)
    single = harness.sheets([run.run_id])
    assert list(zip(single["llm_calls"].node, single["llm_calls"].agent_name)) == [
        ("plan", "planner"), ("answer", "answer")]
    assert list(single["tool_calls"].agent_name) == ["act"]
    assert list(single["llm_calls"].agent_path) == ["planner", "answer"]


def test_rows_a_node_logs_inside_a_subgraph_carry_its_agent_and_inner_node(harness):
    def worker(state, config):
        current_run(config).log("plans", {"num_tasks": 1, "full_plan": [{"step": 1}]}, config=config)
        return {"log": ["worker"]}

    outer = graphs.single_node(graphs.single_node(worker, "worker"), "planner_agent")
    with harness.run() as run:
        outer.invoke({"log": []}, run.config)
    plan = harness.sheets([run.run_id])["plans"].iloc[0]
    assert (plan.node, plan.agent_name) == ("worker", "planner_agent")


def test_spans_carry_the_agent_in_both_conventions(tmp_path):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    h = Harness(store=tmp_path / "runs.db", tracer_provider=provider, writer="thread")
    with h.run() as run:
        supervisor_system().invoke(QUESTION, run.config)
    h.close()
    spans = exporter.get_finished_spans()
    calls = [s for s in spans if s.attributes["harness.event_kind"] in ("llm", "tool")]
    assert len(calls) == 11
    assert [s.attributes["gen_ai.agent.name"] for s in calls if s.attributes["harness.event_kind"] == "llm"] == [
        "supervisor", "research_expert", "research_expert", "supervisor", "math_expert", "math_expert", "supervisor"]
    assert all(s.attributes["agent.name"] == s.attributes["gen_ai.agent.name"] for s in calls)
    (graph,) = [s for s in spans if s.attributes["harness.event_kind"] == "graph"]
    assert "gen_ai.agent.name" not in graph.attributes


# --- handoffs ------------------------------------------------------------------------------

def test_a_handoff_completes_the_node_and_tool_that_made_it_and_records_where_it_went(harness):
    f = supervisor_run(harness)
    ev = f["langgraph_events"]
    ends = ev[ev.status != "started"]
    assert "interrupted" not in set(ends.status) and "error" not in set(ends.status)
    handoffs = ends[ends.handoff_to.notna()].sort_values("timestamp")  # in the order they ended
    assert list(zip(handoffs.event_kind, handoffs.node, handoffs.agent_name, handoffs.handoff_to)) == [
        ("tool", "tools", "supervisor", "research_expert"), ("node", "tools", "supervisor", "research_expert"),
        ("node", "supervisor", "supervisor", "research_expert"),
        ("tool", "tools", "supervisor", "math_expert"), ("node", "tools", "supervisor", "math_expert"),
        ("node", "supervisor", "supervisor", "math_expert")]
    assert set(handoffs.event_type) == {"on_chain_end", "on_tool_end"} and handoffs.error.isna().all()
    tools = f["tool_calls"]
    transfers = tools[tools.tool_name.str.startswith("transfer_to_")]
    assert list(zip(transfers.tool_name, transfers.status, transfers.handoff_to)) == [
        ("transfer_to_research_expert", "ok", "research_expert"), ("transfer_to_math_expert", "ok", "math_expert")]
    assert [out["goto"] for out in transfers.tool_output] == ["research_expert", "math_expert"]
    assert list(next(iter(transfers.tool_output)))[0] == "goto"
    assert tools[~tools.tool_name.str.startswith("transfer_to_")].handoff_to.isna().all()


def test_swarm_handoffs_go_between_alice_and_bob(harness):
    f = swarm_run(harness)
    tools = f["tool_calls"]
    assert list(zip(tools.tool_name, tools.agent_name, tools.handoff_to.fillna(""))) == [
        ("transfer_to_bob", "Alice", "Bob"), ("transfer_to_alice", "Bob", "Alice"), ("add", "Alice", "")]
    ev = f["langgraph_events"]
    agents = ev[(ev.event_kind == "node") & ev.node.isin(["Alice", "Bob"]) & (ev.status != "started")]
    assert list(zip(agents.node, agents.status, agents.handoff_to.fillna(""))) == [
        ("Alice", "ok", "Bob"), ("Bob", "ok", ""), ("Bob", "ok", "Alice"), ("Alice", "ok", "")]


def test_a_human_in_the_loop_interrupt_inside_an_agent_stays_interrupted(harness):
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command, interrupt

    def approve(state):
        return {"log": [f"approved:{interrupt('approve?')}"]}

    graph = graphs.single_node(graphs.single_node(approve, "approve"), "reviewer", checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "review"}}
    with harness.run() as run:
        graph.invoke({"log": []}, {**run.config, **config})
        out = graph.invoke(Command(resume="yes"), {**run.config, **config})
    assert out["log"] == ["approved:yes"]
    assert run.status == "completed"
    ev = harness.sheets([run.run_id])["langgraph_events"]
    ends = ev[(ev.event_kind == "node") & (ev.status != "started")].sort_values("timestamp")
    assert list(zip(ends.node, ends.status)) == [("approve", "interrupted"), ("reviewer", "interrupted"),
                                                 ("approve", "ok"), ("reviewer", "ok")]
    assert ends.handoff_to.isna().all()


# --- the run's status and thread --------------------------------------------------------------

def failing_supervisor():
    scripts = supervisor_scripts()
    scripts["math_expert"][0] = ConnectionError("model endpoint unreachable")
    return supervisor_system(scripts)


def list_failed(harness, capsys) -> list[str]:
    harness.flush()
    with pytest.raises(SystemExit) as done:
        main(["list", "--status", "failed", "--json", "--store", str(harness.store.path)])
    assert done.value.code == 0
    return [r["run_id"] for r in json.loads(capsys.readouterr().out)]


def test_a_run_whose_graph_raised_is_failed_even_when_the_caller_caught_the_exception(harness, capsys):
    with harness.run(workflow="supervisor") as run:
        with pytest.raises(ConnectionError):
            failing_supervisor().invoke(QUESTION, run.config)
    assert (run.status, run.error) == ("failed", "ConnectionError: model endpoint unreachable")
    runs = harness.sheets([run.run_id])["runs"].iloc[0]
    assert (runs.status, runs.error) == ("failed", "ConnectionError: model endpoint unreachable")
    assert list_failed(harness, capsys) == [run.run_id]


def test_a_caught_failure_fails_the_run_under_ainvoke_astream_stream_and_batch(harness):
    async def ainvoke(run):
        with contextlib.suppress(ConnectionError):
            await failing_supervisor().ainvoke(QUESTION, run.config)

    async def astream(run):
        with contextlib.suppress(ConnectionError):
            async for _ in failing_supervisor().astream(QUESTION, run.config):
                pass

    async def under(drive):
        async with harness.run() as run:
            await drive(run)
        return run

    runs = [asyncio.run(under(ainvoke)), asyncio.run(under(astream))]
    with harness.run() as run:
        with contextlib.suppress(ConnectionError):
            for _ in failing_supervisor().stream(QUESTION, run.config, stream_mode="updates"):
                pass
    runs.append(run)
    with harness.run() as run:
        answers = failing_supervisor().batch([QUESTION], run.config, return_exceptions=True)
    assert isinstance(answers[0], ConnectionError)
    runs.append(run)
    assert [(r.status, r.error) for r in runs] == [("failed", "ConnectionError: model endpoint unreachable")] * 4
    stored = harness.sheets([r.run_id for r in runs])["runs"]
    assert set(stored.status) == {"failed"}


def test_a_run_whose_graph_completes_is_completed_however_it_was_driven(harness):
    async def drive():
        async with harness.run() as run:
            await supervisor_system().ainvoke(QUESTION, run.config)
        async with harness.run() as stopped:
            async for _ in supervisor_system().astream(QUESTION, stopped.config):
                break  # the caller stops reading: the graph did not fail
        return run, stopped

    runs = list(asyncio.run(drive()))
    with harness.run() as run:
        for _ in supervisor_system().stream(QUESTION, run.config):
            break
    runs.append(run)
    with harness.run() as run:
        supervisor_system().batch([QUESTION], run.config)
    runs.append(run)
    assert [(r.status, r.error) for r in runs] == [("completed", None)] * 4


def test_the_runs_thread_id_is_the_one_the_graph_ran_with_wherever_it_was_given(harness):
    swarm_run(harness, thread_id="t-3")
    (from_invoke,) = harness.sheets()["runs"].thread_id
    with harness.run(config={"configurable": {"thread_id": "t-run"}}) as run:
        swarm_system().invoke({"messages": [{"role": "user", "content": SWARM_TURNS[0]}]}, run.config)
    with harness.run() as plain:
        supervisor_system().invoke(QUESTION, plain.config)
    stored = harness.sheets([run.run_id, plain.run_id])["runs"].set_index("run_id").thread_id
    assert (from_invoke, stored[run.run_id]) == ("t-3", "t-run") and pd.isna(stored[plain.run_id])


# --- tracing never changes the answer ----------------------------------------------------------

def test_the_supervisors_answer_is_the_same_with_and_without_the_harness(harness):
    bare = transcript(supervisor_system().invoke(QUESTION))
    with harness.run() as run:
        traced = transcript(supervisor_system().invoke(QUESTION, run.config))
    assert traced == bare
    assert bare[-1] == ("ai", "Apple and Netflix had 178,000 employees in 2024.", "supervisor", ())
    assert harness.errors == 0 and harness.sheets([run.run_id])["runs"].iloc[0].harness_errors == 0


def test_the_swarms_answers_are_the_same_with_and_without_the_harness(harness):
    def conversation(config: dict) -> list:
        graph = swarm_system()
        return [transcript(graph.invoke({"messages": [{"role": "user", "content": turn}]},
                                        {**config, "configurable": {"thread_id": "1"}}))
                for turn in SWARM_TURNS]

    bare = conversation({})
    with harness.run() as run:
        traced = conversation(run.config)
    assert traced == bare
    assert bare[1][-1] == ("ai", "5 + 7 = 12.", "Alice", ())
    assert harness.errors == 0
