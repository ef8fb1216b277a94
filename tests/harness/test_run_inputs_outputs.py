"""Every run keeps what it was given and what it returned (``runs.inputs``, ``runs.outputs``),
whoever started it: ``h.run`` around invoke, ainvoke or a batch, ``harness wrap --input`` and
experiments; redacted and bounded like every payload; and ``wrap --input`` prints the result."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest
from langgraph.graph import END, START, StateGraph

from harness import Harness
from harness.tracing.encode import RUN_PAYLOAD_CHARS
from tests.harness import graphs
from tests.support.cli import harness_cli

SECRET = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"


def answering_graph(answer=lambda state: "The capital is Paris."):
    """question -> answer (a model call), with the answer as the last AI message."""
    def respond(state, config):
        model = graphs.fake_model(answer(state))
        return {"messages": [model.invoke(state["question"], config)]}

    async def arespond(state, config):
        model = graphs.fake_model(answer(state))
        return {"messages": [await model.ainvoke(state["question"], config)]}

    builder = StateGraph(dict)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    sync = builder.compile()
    builder = StateGraph(dict)
    builder.add_node("respond", arespond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return sync, builder.compile()


def stored(h: Harness, run_id: str) -> dict:
    h.flush()
    return next(h.store.rows("runs", [run_id], columns=["status", "inputs", "outputs", "workflow"]))


def test_a_traced_run_keeps_the_graphs_input_and_output_as_json(tmp_path):
    graph, _ = answering_graph()
    h = Harness(tmp_path / "runs.db", writer="inline")
    with h.run() as run:
        graph.invoke({"question": "capital of France?"}, config=run.config)
    row = stored(h, run.run_id)
    assert row["inputs"] == {"question": "capital of France?"}
    (message,) = row["outputs"]["messages"]
    assert message["type"] == "ai" and message["content"] == "The capital is Paris."


def test_an_async_run_keeps_them_too(tmp_path):
    _, agraph = answering_graph()
    h = Harness(tmp_path / "runs.db", writer="thread")

    async def main():
        async with h.run() as run:
            await agraph.ainvoke({"question": "capital of France?"}, config=run.config)
        return run

    run = asyncio.run(main())
    row = stored(h, run.run_id)
    assert row["inputs"] == {"question": "capital of France?"}
    assert row["outputs"]["messages"][-1]["content"] == "The capital is Paris."
    h.close()


def test_the_output_is_as_the_graph_returned_it_even_when_the_caller_edits_it_afterwards(tmp_path):
    graph, _ = answering_graph()
    h = Harness(tmp_path / "runs.db", writer="inline")
    with h.run(hold=True) as run:
        result = graph.invoke({"question": "q"}, config=run.config)
        result["messages"].clear()
        result["edited"] = True
    run.write()
    row = stored(h, run.run_id)
    assert "edited" not in row["outputs"] and len(row["outputs"]["messages"]) == 1


def test_a_failed_run_keeps_its_input_and_no_output(tmp_path):
    h = Harness(tmp_path / "runs.db", writer="inline")
    with pytest.raises(ValueError):
        with h.run() as run:
            graphs.single_node(lambda s, config: graphs.broken.invoke({"query": "q"}, config)).invoke(
                {"log": ["start"]}, config=run.config)
    row = stored(h, run.run_id)
    assert row["status"] == "failed" and row["inputs"] == {"log": ["start"]} and row["outputs"] is None


def test_a_batch_keeps_each_input_beside_its_output(tmp_path):
    graph, _ = answering_graph(lambda state: f"about {state['question']}")
    h = Harness(tmp_path / "runs.db", writer="inline")
    with h.run() as run:
        graph.batch([{"question": "a"}, {"question": "b"}], config=run.config)
    row = stored(h, run.run_id)
    # In the order the batch's graphs started (its threads race), each input at its output's place.
    pairs = [(i["question"], o["messages"][-1]["content"]) for i, o in zip(row["inputs"], row["outputs"], strict=True)]
    assert sorted(pairs) == [("a", "about a"), ("b", "about b")]


def test_inputs_and_outputs_are_redacted_and_cut_at_the_bound(tmp_path):
    long_answer = "x" * (RUN_PAYLOAD_CHARS + 5_000)
    graph, _ = answering_graph(lambda state: long_answer)
    h = Harness(tmp_path / "runs.db", writer="inline")
    with h.run() as run:
        graph.invoke({"question": f"my key is {SECRET}"}, config=run.config)
    row = stored(h, run.run_id)
    assert SECRET not in json.dumps(row["inputs"]) and "[REDACTED]" in row["inputs"]["question"]
    assert isinstance(row["outputs"], str) and len(row["outputs"]) <= RUN_PAYLOAD_CHARS
    assert row["outputs"].endswith("chars]") and "…[truncated, " in row["outputs"]


AGENT = textwrap.dedent('''
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langgraph.graph import END, START, StateGraph


    def respond(state, config):
        model = GenericFakeChatModel(messages=iter([AIMessage("Lima is the capital.")]))
        return {"messages": [model.invoke(state["question"], config)]}


    def count(state):
        return {"words": len(state["question"].split())}


    def build(node):
        builder = StateGraph(dict)
        builder.add_node("node", node)
        builder.add_edge(START, "node")
        builder.add_edge("node", END)
        return builder.compile()


    chat = build(respond)
    counter = build(count)
''')


@pytest.fixture
def agent_dir(tmp_path):
    (tmp_path / "io_agent.py").write_text(AGENT)
    return tmp_path


def test_wrap_input_prints_the_answer_and_stores_the_result(agent_dir):
    store = agent_dir / "runs.db"
    done = harness_cli("wrap", "io_agent:chat", "--input", '{"question": "capital of Peru?"}', "--store", str(store),
                       cwd=agent_dir)
    assert done.returncode == 0, done.stderr
    assert "result (its last AI message; --json prints the whole output):\nLima is the capital.\n" in done.stdout
    h = Harness(store)
    (row,) = h.store.rows("runs", columns=["inputs", "outputs"])
    assert row["inputs"] == {"question": "capital of Peru?"}
    assert row["outputs"]["messages"][-1]["content"] == "Lima is the capital."
    h.close()


def test_wrap_input_json_prints_the_graphs_result_and_nothing_else(agent_dir):
    done = harness_cli("wrap", "io_agent:counter", "--input", '{"question": "capital of Peru?"}', "--json",
                       "--store", str(agent_dir / "runs.db"), cwd=agent_dir)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"words": 3}
    plain = harness_cli("wrap", "io_agent:counter", "--input", '{"question": "a b"}', "--store",
                        str(agent_dir / "runs.db"), cwd=agent_dir)
    assert 'result:\n{\n  "words": 2\n}' in plain.stdout


def test_wrap_json_with_repeats_prints_a_list_and_with_a_dataset_is_refused(agent_dir):
    done = harness_cli("wrap", "io_agent:counter", "--input", '{"question": "a b"}', "--json", "--repeats", "2",
                       "--store", str(agent_dir / "runs.db"), cwd=agent_dir)
    assert json.loads(done.stdout) == [{"words": 2}] * 2
    (agent_dir / "cases.jsonl").write_text('{"id": "c", "input": {"question": "a"}}\n')
    refused = harness_cli("wrap", "io_agent:counter", "--dataset", "cases.jsonl", "--json", cwd=agent_dir)
    assert refused.returncode == 2 and "--json go with --input" in refused.stderr
