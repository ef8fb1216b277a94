"""From callbacks alone, any compiled graph becomes rows of the five captured sheets."""

import asyncio
import json
from typing import TypedDict

import pandas as pd

import pytest
from langgraph.graph import END, START, StateGraph

from harness import Harness

from . import graphs


@pytest.fixture
def harness(tmp_path):
    return Harness(store=tmp_path / "runs.db")


def events_of(frames, kind, types=("on_chain_start", "on_chat_model_start", "on_tool_start")):
    ev = frames["langgraph_events"]
    return ev[(ev.event_kind == kind) & ev.event_type.isin(types)]


def test_sequential_graph_writes_runs_events_llm_tool_and_prompt_rows(harness):
    with harness.run(subject="Acme", workflow="seq") as run:
        out = graphs.sequential().invoke({"question": "q"}, run.config)
    assert out["log"] == ["plan", "act", "answer"]
    f = harness.sheets([run.run_id])
    runs = f["runs"].iloc[0]
    assert runs.status == "completed" and runs.company_name == "Acme"
    assert runs.total_steps == 3 and runs.total_llm_calls == 2 and runs.tools_used == ["lookup"]
    assert runs.node == "answer" and runs.started_at < runs.completed_at
    nodes = events_of(f, "node")
    assert list(nodes.node) == ["plan", "act", "answer"] and list(nodes.step_number) == [1, 2, 3]
    llm = f["llm_calls"]
    assert list(llm.step_number) == [1, 3] and list(llm.node) == ["plan", "answer"]
    assert set(llm.model) == {"llama-3.1-8b-instant"}
    assert list(llm.prompt_tokens) == [11, 11] and list(llm.total_tokens) == [18, 18]
    assert list(llm.usage_source) == ["provider", "provider"]
    assert llm.input_cost.iloc[0] == pytest.approx(11 * 0.05 / 1e6)
    assert llm.output_cost.iloc[0] == pytest.approx(7 * 0.08 / 1e6)
    assert llm.response.iloc[1] == "final answer" and "answer now" in llm.prompt.iloc[1]
    tools = f["tool_calls"].iloc[0]
    assert (tools.tool_name, tools.status, tools.step_number, tools.parent_node) == ("lookup", "ok", 2, "act")
    assert tools.tool_input == {"query": "facts"} and tools.tool_output == {"query": "facts", "hits": 3}
    assert tools.call_depth == 0 and tools.parent_tool_id is None
    assert len(f["prompts"]) == 2 and f["log_tests"].iloc[0].verification_status == "pass"


def test_parallel_branches_get_their_own_steps_within_one_superstep(harness):
    with harness.run(subject="fan") as run:
        out = graphs.fan_out().invoke({"log": []}, run.config)
    assert sorted(out["log"]) == ["join", "left", "right", "split"]
    f = harness.sheets([run.run_id])
    nodes = events_of(f, "node")
    assert sorted(nodes.step_number) == [1, 2, 3, 4]
    by_node = dict(zip(nodes.node, nodes.langgraph_step))
    assert by_node["left"] == by_node["right"] == by_node["split"] + 1
    tools = f["tool_calls"]
    steps = dict(zip(nodes.node, nodes.step_number))
    assert {(r.parent_node, r.step_number) for r in tools.itertuples()} == {
        ("left", steps["left"]), ("right", steps["right"])}


def test_send_map_reduce_records_each_mapped_execution(harness):
    with harness.run(subject="map") as run:
        graphs.map_reduce().invoke({"items": ["a", "b", "c"], "log": []}, run.config)
    f = harness.sheets([run.run_id])
    work = events_of(f, "node")
    work = work[work.node == "work"]
    assert len(work) == 3 and work.langgraph_step.nunique() == 1
    assert sorted(f["tool_calls"].tool_input.map(lambda v: v["query"])) == ["a", "b", "c"]
    assert f["runs"].iloc[0].total_steps == 5


def test_subgraph_nodes_carry_their_depth_and_enclosing_node(harness):
    with harness.run(subject="sub") as run:
        graphs.with_subgraph().invoke({"log": []}, run.config)
    f = harness.sheets([run.run_id])
    nodes = events_of(f, "node")
    depth = dict(zip(nodes.node, nodes.subgraph_depth))
    assert depth == {"before": 0, "child": 0, "inner_a": 1, "inner_b": 1, "after": 0}
    tool = f["tool_calls"].iloc[0]
    assert tool.parent_node == "inner_a"
    inner_a = nodes[nodes.node == "inner_a"].iloc[0]
    child = nodes[nodes.node == "child"].iloc[0]
    assert inner_a.parent_event_id == child.event_id


def test_functional_api_tasks_are_nodes_of_the_entrypoints_graph(harness):
    with harness.run(subject="func", reference_trajectory=["research", "fetch", "digest", "summarise"]) as run:
        assert graphs.functional().invoke("llamas", run.config) == "summary"
    f = harness.sheets([run.run_id])
    nodes = events_of(f, "node")
    assert list(nodes.node) == ["research", "fetch", "fetch", "digest", "split", "left", "right", "join", "summarise"]
    assert list(nodes.step_number) == list(range(1, 10))
    depth = dict(zip(nodes.node, nodes.subgraph_depth))
    # tasks run in the entrypoint's graph (LangGraph streams them at its top level); the
    # subgraph that ``digest`` runs is one level down
    assert depth == {"research": 0, "fetch": 0, "digest": 0, "summarise": 0, "split": 1, "left": 1, "right": 1,
                     "join": 1}
    ids = dict(zip(nodes.node, nodes.event_id))
    parents = dict(zip(nodes.node, nodes.parent_event_id))
    assert parents["fetch"] == parents["digest"] == parents["summarise"] == ids["research"]
    assert parents["split"] == ids["digest"]
    tools = f["tool_calls"]
    assert [(t.parent_node, t.step_number) for t in tools.itertuples()][:2] == [("fetch", 2), ("fetch", 3)]
    assert sorted(t["query"] for t in tools.tool_input[:2]) == ["llamas a", "llamas b"]
    assert list(f["llm_calls"].node) == ["summarise"] and list(f["llm_calls"].step_number) == [9]
    assert f["agent_metrics"].iloc[0].trajectory_match == 1.0


def test_async_nodes_under_ainvoke_are_recorded(harness):
    async def main():
        async with harness.run(subject="async") as run:
            await graphs.async_graph().ainvoke({"log": []}, run.config)
        return run

    run = asyncio.run(main())
    f = harness.sheets([run.run_id])
    assert list(events_of(f, "node").node) == ["fetch", "think"]
    assert f["llm_calls"].iloc[0].step_number == 2 and f["tool_calls"].iloc[0].step_number == 1


def test_astream_events_is_recorded_and_still_streams_to_the_caller(harness):
    async def main():
        seen = []
        async with harness.run(subject="events") as run:
            async for event in graphs.async_graph().astream_events({"log": []}, run.config, version="v2"):
                seen.append(event["event"])
        return run, seen

    run, seen = asyncio.run(main())
    assert "on_chat_model_end" in seen
    f = harness.sheets([run.run_id])
    assert len(f["llm_calls"]) == 1 and len(f["tool_calls"]) == 1 and f["runs"].iloc[0].total_steps == 2


def test_streamed_chat_model_counts_tokens_once_and_times_the_first_token(harness):
    model = graphs.StreamingModel()

    def node(state, config):
        text = "".join(chunk.content for chunk in model.stream("say it", config))
        return {"log": [text]}

    with harness.run(subject="stream") as run:
        out = graphs.single_node(node).invoke({"log": []}, run.config)
    assert out["log"] == ["the answer is forty two"]
    llm = harness.sheets([run.run_id])["llm_calls"].iloc[0]
    assert (llm.prompt_tokens, llm.completion_tokens, llm.total_tokens) == (20, 5, 25)
    assert llm.model == "llama-3.3-70b-versatile" and llm.response == "the answer is forty two"
    assert 0 <= llm.time_to_first_token_ms <= llm.execution_time_ms


def failing_tool_run(harness):
    """The sheets of a run whose one node calls ``graphs.broken`` and survives its ValueError."""
    def node(state, config):
        try:
            graphs.broken.invoke({"query": "x"}, config)
        except ValueError:
            pass
        return {"log": ["survived"]}

    with harness.run(subject="tools") as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    return harness.sheets([run.run_id])


def test_tool_that_raises_is_a_failed_tool_call_with_its_error(harness):
    f = failing_tool_run(harness)
    tool = f["tool_calls"].iloc[0]
    assert tool.status == "fail" and "backend unavailable for x" in tool.error and tool.tool_output is None
    assert f["runs"].iloc[0].status == "completed"


def test_a_tool_that_raises_keeps_its_traceback_down_to_the_failing_line(harness):
    f = failing_tool_run(harness)
    trace = f["tool_calls"].iloc[0].traceback
    assert trace.startswith("Traceback (most recent call last):\n")
    assert trace.endswith("ValueError: backend unavailable for x\n")
    last_frame = trace.splitlines()[-3:-1]  # the innermost frame: where, then the line itself
    assert last_frame[0].endswith(", in broken") and "graphs.py" in last_frame[0]
    assert last_frame[1] == '    raise ValueError(f"backend unavailable for {query}")'
    ev = f["langgraph_events"]
    assert list(ev[ev.status == "error"].traceback) == [trace]  # the tool's error row, and no other
    assert ev[ev.status != "error"].traceback.isna().all()


def test_a_node_that_raises_keeps_its_traceback_on_its_and_the_graphs_error_rows(harness):
    def exploding(state):
        raise RuntimeError("node exploded")

    with pytest.raises(RuntimeError):
        with harness.run(subject="boom") as run:
            graphs.single_node(exploding).invoke({"log": []}, run.config)
    ev = harness.sheets([run.run_id])["langgraph_events"]
    errors = ev[ev.event_type == "on_chain_error"].set_index("event_kind")
    for kind in ("node", "graph"):
        trace = errors.loc[kind].traceback
        assert ", in exploding\n" in trace and trace.endswith("RuntimeError: node exploded\n")


def test_a_traceback_keeps_the_innermost_frames_and_is_bounded(harness):
    def descend(depth: int) -> int:
        return descend(depth + 1) if depth < 500 else int("not a number")

    def node(state):
        descend(0)

    with pytest.raises(ValueError):
        with harness.run(subject="deep") as run:
            graphs.single_node(node).invoke({"log": []}, run.config)
    ev = harness.sheets([run.run_id])["langgraph_events"]
    trace = ev[(ev.event_kind == "node") & (ev.status == "error")].traceback.iloc[0]
    assert len(trace) <= 8_192
    assert "frames above left out]" in trace and "[Previous line repeated" in trace
    assert trace.count(", in descend\n") == 3  # a repeated frame shown three times, as Python does
    assert trace.endswith("ValueError: invalid literal for int() with base 10: 'not a number'\n")


def test_an_interrupt_is_not_a_failure_and_has_no_traceback(harness):
    graph = graphs.interrupting()
    with harness.run(subject="hitl", config={"configurable": {"thread_id": "t-2"}}) as run:
        graph.invoke({"log": []}, run.config)
    ev = harness.sheets([run.run_id])["langgraph_events"]
    assert set(ev[ev.node == "ask"].status) >= {"interrupted"} and ev.traceback.isna().all()


def test_nested_tool_calls_record_depth_and_parent_tool(harness):
    def node(state, config):
        graphs.outer.invoke({"query": "q"}, config)
        return {"log": ["ok"]}

    with harness.run() as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    tools = harness.sheets([run.run_id])["tool_calls"].set_index("tool_name")
    assert tools.loc["outer"].call_depth == 0 and tools.loc["lookup"].call_depth == 1
    assert tools.loc["lookup"].parent_tool_id == tools.loc["outer"].tool_call_id
    assert tools.loc["lookup"].parent_node == "only"


def test_node_that_raises_records_a_failed_run_and_reraises_the_same_exception(harness):
    error = RuntimeError("node exploded")

    def node(state):
        raise error

    with pytest.raises(RuntimeError) as caught:
        with harness.run(subject="boom") as run:
            graphs.single_node(node).invoke({"log": []}, run.config)
    assert caught.value is error
    f = harness.sheets([run.run_id])
    runs = f["runs"].iloc[0]
    assert run.status == "failed" and runs.status == "failed" and "node exploded" in runs.error
    errors = f["langgraph_events"][f["langgraph_events"].event_type == "on_chain_error"]
    assert set(errors.event_kind) == {"node", "graph"} and errors.error.str.contains("node exploded").all()


def test_a_retried_node_records_each_attempt_and_counts_one_visit(harness):
    with harness.run(subject="retry", reference_trajectory=["flaky", "after"]) as run:
        out = graphs.retried(failures=2).invoke({"log": []}, run.config)
    assert out["log"] == ["flaky", "after"]
    f = harness.sheets([run.run_id])
    ev = f["langgraph_events"]
    flaky = ev[(ev.node == "flaky") & (ev.event_type != "on_chain_start")]
    assert list(flaky.status) == ["error", "error", "ok"]
    assert list(flaky.error.iloc[:2]) == ["ConnectionError: attempt 1 failed", "ConnectionError: attempt 2 failed"]
    assert flaky.langgraph_step.nunique() == 1  # the attempts are one LangGraph step...
    assert list(events_of(f, "node").step_number) == [1, 2, 3, 4]  # ...and three executions (then after's)
    runs = f["runs"].iloc[0]
    assert runs.status == "completed" and runs.total_steps == 4 and pd.isna(runs.error)
    trajectory = f["agent_metrics"].iloc[0]
    assert trajectory.trajectory_details["actual"] == ["flaky", "after"] and trajectory.trajectory_match == 1.0


def test_a_node_served_from_the_node_cache_has_no_rows_as_langgraph_runs_no_callbacks_for_it(harness):
    # Documented limit (README, Decisions): when LangGraph starts reporting cache hits to
    # callbacks, this fails and the rows should say "cached".
    from langgraph.cache.memory import InMemoryCache
    from langgraph.types import CachePolicy

    g = StateGraph(graphs.State)
    g.add_node("slow", lambda s: {"log": ["slow"]}, cache_policy=CachePolicy())
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(START, "slow")
    g.add_edge("slow", "after")
    g.add_edge("after", END)
    graph = g.compile(cache=InMemoryCache())
    seen = []
    for _ in range(2):
        with harness.run(subject="cached") as run:
            assert graph.invoke({"log": []}, run.config)["log"] == ["slow", "after"]
        seen.append(list(events_of(harness.sheets([run.run_id]), "node").node))
    assert seen == [["slow", "after"], ["after"]]


def test_interrupt_is_control_flow_not_an_error(harness):
    graph = graphs.interrupting()
    config = {"configurable": {"thread_id": "t-1"}}
    with harness.run(subject="hitl", config=config) as run:
        out = graph.invoke({"log": []}, run.config)
    assert "__interrupt__" in out
    f = harness.sheets([run.run_id])
    assert f["runs"].iloc[0].status == "completed" and f["runs"].iloc[0].thread_id == "t-1"
    ev = f["langgraph_events"]
    assert (ev.status != "error").all()
    ask = ev[(ev.node == "ask") & (ev.event_type != "on_chain_start")]
    assert set(ask.status) == {"interrupted"}


def test_user_callbacks_and_config_are_kept(harness):
    from langchain_core.callbacks import BaseCallbackHandler

    class Counter(BaseCallbackHandler):
        starts = 0

        def on_chain_start(self, *args, **kwargs):
            Counter.starts += 1

    with harness.run(config={"callbacks": [Counter()], "tags": ["mine"]}) as run:
        graphs.fan_out().invoke({"log": []}, run.config)
    assert Counter.starts >= 5 and run.config["tags"] == ["mine"]


def test_run_config_works_with_batch_and_stream(harness):
    graph = graphs.fan_out()
    with harness.run(subject="batch") as run:
        graph.batch([{"log": []}, {"log": []}], run.config)
    assert harness.sheets([run.run_id])["runs"].iloc[0].total_steps == 8
    with harness.run(subject="stream") as run:
        chunks = list(graph.stream({"log": []}, run.config))
    assert len(chunks) == 4 and harness.sheets([run.run_id])["runs"].iloc[0].total_steps == 4


def test_domain_rows_logged_in_a_node_carry_that_nodes_step_and_agent(harness):
    from harness import current_run

    def node(state, config):
        current_run(config).log("plans", {"num_tasks": 2, "full_plan": [{"a": 1}]}, config=config)
        current_run(config).set_result(risk_level="LOW", credit_score=700, confidence=0.9)
        return {"log": ["planned"]}

    with harness.run(subject="Acme", agent_names={"only": "tool_supervisor"}) as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    f = harness.sheets([run.run_id])
    plan = f["plans"].iloc[0]
    assert (plan.node, plan.agent_name, plan.num_tasks, plan.full_plan) == ("only", "tool_supervisor", 2, [{"a": 1}])
    runs = f["runs"].iloc[0]
    assert (runs.risk_level, runs.credit_score, runs.confidence) == ("LOW", 700, 0.9)
    assert current_run({"callbacks": []}) is None


def test_per_run_state_is_released_when_the_run_ends(harness):
    with harness.run() as run:
        graphs.sequential().invoke({"question": "q"}, run.config)
    harness.flush()
    assert run.handler.log == [] and run.handler.streamed == {} and run.handler._assembly.events == {}


def test_unknown_model_gets_no_cost_and_missing_usage_is_estimated_not_zero(harness):
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    priced_nowhere = graphs.fake_model("hello there", model="mystery-model-9000")
    silent = GenericFakeChatModel(messages=iter([AIMessage(content="no usage reported here")]))

    def node(state, config):
        priced_nowhere.invoke("hi", config)
        silent.invoke("a prompt of some length", config)
        return {"log": ["ok"]}

    with harness.run() as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    llm = harness.sheets([run.run_id])["llm_calls"]
    unknown, estimated = llm.iloc[0], llm.iloc[1]
    assert unknown.model == "mystery-model-9000" and unknown.prompt_tokens == 11
    assert pd.isna(unknown.input_cost) and pd.isna(unknown.total_cost) and unknown.usage_source == "provider"
    assert estimated.usage_source == "estimated" and estimated.prompt_tokens > 0 and estimated.completion_tokens > 0


def test_a_model_call_that_raises_is_an_error_row_with_missing_usage(harness):
    class Down(graphs.StreamingModel):
        def _generate(self, *args, **kwargs):
            raise ConnectionError("provider down")

    def node(state, config):
        try:
            Down().invoke("hi", config)
        except ConnectionError:
            pass
        return {"log": ["ok"]}

    with harness.run() as run:
        graphs.single_node(node).invoke({"log": []}, run.config)
    llm = harness.sheets([run.run_id])["llm_calls"].iloc[0]
    assert llm.status == "error" and "provider down" in llm.error
    assert llm.usage_source == "missing" and pd.isna(llm.prompt_tokens) and pd.isna(llm.total_cost)
    assert ", in _generate\n" in llm.traceback and llm.traceback.endswith("ConnectionError: provider down\n")


class Shared(TypedDict, total=False):
    items: list
    notes: dict
    messages: list


@pytest.mark.parametrize("writer", ["inline", "thread", "process"])
def test_each_step_shows_its_payloads_as_they_were_even_when_later_nodes_mutate_them(tmp_path, writer):
    model = graphs.fake_model("first draft")
    args = {"query": "facts"}

    def draft(state, config):
        answer = model.invoke("write a draft", config)
        graphs.lookup.invoke(args, config)
        args["query"] = "changed after the call"
        return {"items": ["draft"], "notes": {"seen": ["draft"]}, "messages": [answer]}

    def edit(state):  # in-place edits of what earlier steps returned, as user code often does
        state["items"].append("edited")
        state["notes"]["seen"].append("edit")
        state["messages"][-1].content = "rewritten"
        return {}

    g = StateGraph(Shared).add_sequence([draft, edit])
    g.add_edge(START, "draft")
    g.add_edge("edit", END)
    harness = Harness(store=tmp_path / "runs.db", writer=writer)
    with harness.run() as run:
        out = g.compile().invoke({"items": []}, run.config)
    assert out["items"] == ["draft", "edited"] and out["messages"][-1].content == "rewritten"
    f = harness.sheets([run.run_id])
    ev = f["langgraph_events"].set_index(["node", "event_type"])
    as_returned = json.loads(ev.loc[("draft", "on_chain_end"), "output_preview"])
    assert as_returned["items"] == ["draft"] and as_returned["notes"] == {"seen": ["draft"]}
    as_received = json.loads(ev.loc[("edit", "on_chain_start"), "input_preview"])
    assert as_received["items"] == ["draft"] and as_received["notes"] == {"seen": ["draft"]}
    assert "first draft" in ev.loc[("edit", "on_chain_start"), "input_preview"]
    assert f["llm_calls"].iloc[0].response == "first draft"
    assert f["tool_calls"].iloc[0].tool_input == {"query": "facts"}
