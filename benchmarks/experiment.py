"""Experiment overhead: a dataset run as an experiment against bare ``ainvoke`` of the same cases.

The agent is an async ReAct loop (model -> tool -> model) over a chat model that answers
after ``--latency`` seconds (a provider's round trip; 0 measures pure CPU). Bare runs the
cases one after another (concurrency 1) or with ``asyncio.gather`` under a semaphore of 8;
the experiment runs the same cases with ``Harness.experiment(concurrency=1 | 8)`` (datasets
checked, every run traced, answers checked, pass stored, rows written in dataset order),
timed until every run is in the store. Modes alternate over ``--rounds``; medians compared.

An experiment has a fixed cost besides its runs: about 10 ms at its end, waiting for the
writer to store the last wave of runs, and a few ms at its start checking and recording
its name. Over 200 cases that is noise; over a few dozen it is a few percent of the wall
time at concurrency 8 (``--cases 40`` shows it).

    python benchmarks/experiment.py [--cases 200] [--rounds 3] [--latency 0.02]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from typing_extensions import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import Harness  # noqa: E402

LATENCY = 0.02


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"{topic} is documented"


class Model(BaseChatModel):
    @property
    def _llm_type(self) -> str:
        return "benchmark-model"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "Model":
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        usage = {"input_tokens": 60, "output_tokens": 12, "total_tokens": 72}
        if isinstance(messages[-1], ToolMessage):
            message = AIMessage(content=f"Answer: {messages[-1].content}", usage_metadata=usage,
                                response_metadata={"model_name": "gpt-4o-mini"})
        else:
            topic = str(messages[-1].content).split()[-1]
            message = AIMessage(content="", tool_calls=[{"name": "lookup", "args": {"topic": topic}, "id": "c1"}],
                                usage_metadata=usage, response_metadata={"model_name": "gpt-4o-mini"})
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        await asyncio.sleep(LATENCY)
        return self._generate(messages)


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


async def call_model(state: State) -> dict:
    return {"messages": [await Model().ainvoke(state["messages"])]}


def agent():
    builder = StateGraph(State)
    builder.add_node("call_model", call_model)
    builder.add_node("tools", ToolNode([lookup]))
    builder.add_edge(START, "call_model")
    builder.add_conditional_edges("call_model", lambda s: "tools" if s["messages"][-1].tool_calls else END,
                                  ["tools", END])
    builder.add_edge("tools", "call_model")
    return builder.compile()


def cases(n: int) -> list[dict[str, Any]]:
    return [{"id": f"case-{i}", "input": {"messages": [["user", f"tell me about topic{i}"]]},
             "expected_tools": ["lookup"], "reference_answer": f"topic{i} is documented"} for i in range(n)]


async def bare(graph: Any, data: list[dict[str, Any]], concurrency: int) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(case: dict[str, Any]) -> None:
        async with gate:
            await graph.ainvoke(case["input"])

    await asyncio.gather(*(one(c) for c in data))


def main() -> None:
    global LATENCY
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=LATENCY, help="seconds per model call")
    args = parser.parse_args()
    LATENCY = args.latency
    graph, data = agent(), cases(args.cases)
    with tempfile.TemporaryDirectory() as tmp:
        h = Harness(Path(tmp) / "bench.db")
        h.experiment("warm-up", graph, data[:4])
        asyncio.run(bare(graph, data[:4], 1))
        times: dict[str, list[float]] = {}
        for r in range(args.rounds):
            for concurrency in (1, 8):
                start = time.perf_counter()
                asyncio.run(bare(graph, data, concurrency))
                times.setdefault(f"bare-{concurrency}", []).append(time.perf_counter() - start)
                start = time.perf_counter()
                h.experiment(f"bench-{r}-{concurrency}", graph, data, concurrency=concurrency)
                times.setdefault(f"experiment-{concurrency}", []).append(time.perf_counter() - start)
        h.close()
    print(f"{args.cases} cases, {args.rounds} rounds, model latency {LATENCY * 1000:.0f} ms, medians:")
    for concurrency in (1, 8):
        b, e = (statistics.median(times[f"{m}-{concurrency}"]) for m in ("bare", "experiment"))
        label = "bare ainvoke one by one" if concurrency == 1 else "bare asyncio.gather, 8 at once"
        print(f"  concurrency {concurrency}: {label} {b:.3f} s, experiment {e:.3f} s, "
              f"experiment/bare {e / b:.3f}")


if __name__ == "__main__":
    main()
