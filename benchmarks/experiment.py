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

Scoring: the same experiment at concurrency 8 with three cheap scorers of your own (a
tool-argument check, an async word count, a dict of two numbers) against none, alternated;
the target is scored/unscored <= 1.05 (every call under its time limit, on the scoring
threads, which quick calls share); the same with ``scorer_isolation="process"``, and the cost of process isolation per score
(a rescore of the stored runs in threads against worker processes). ``--rescore N`` then builds a store of N recorded
runs (copies of one real run's rows under new ids, in the store's own format) and times
``harness rescore`` of them with one cheap scorer in a fresh process, with its peak memory
(the target: under 60 s for 10,000 runs, memory flat in the number of runs).

    python benchmarks/experiment.py [--cases 200] [--rounds 3] [--latency 0.02] [--rescore 10000]
    python benchmarks/experiment.py --rounds 0 --rescore 10000     # the rescore alone
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


def called_lookup(run, case):
    """A tool-argument check."""
    return any(c.name == "lookup" and c.args.get("topic") for c in run.tool_calls)


async def word_count(run, case):
    """An async scorer that needs no model."""
    return len((run.answer or "").split())


def sizes(run, case):
    """A dict of two numbers."""
    return {"tool_calls": len(run.tool_calls), "tokens": run.total_tokens or 0}


SCORERS = [called_lookup, word_count, sizes]


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
    parser.add_argument("--rescore", type=int, default=0, metavar="N", help="also time rescore of N stored runs")
    args = parser.parse_args()
    LATENCY = args.latency
    graph, data = agent(), cases(args.cases)
    if args.rounds < 1:  # (--rounds 0 --rescore N: the rescore alone)
        if args.rescore:
            rescore_benchmark(args.rescore)
        return
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
            start = time.perf_counter()
            h.experiment(f"scored-{r}", graph, data, concurrency=8, scorers=SCORERS)
            times.setdefault("scored-8", []).append(time.perf_counter() - start)
            start = time.perf_counter()
            h.experiment(f"isolated-{r}", graph, data, concurrency=8, scorers=SCORERS, scorer_isolation="process")
            times.setdefault("isolated-8", []).append(time.perf_counter() - start)
        per_score = isolation_cost(h, "scored-0", args.rounds)
        h.close()
    print(f"{args.cases} cases, {args.rounds} rounds, model latency {LATENCY * 1000:.0f} ms, medians:")
    for concurrency in (1, 8):
        b, e = (statistics.median(times[f"{m}-{concurrency}"]) for m in ("bare", "experiment"))
        label = "bare ainvoke one by one" if concurrency == 1 else "bare asyncio.gather, 8 at once"
        print(f"  concurrency {concurrency}: {label} {b:.3f} s, experiment {e:.3f} s, "
              f"experiment/bare {e / b:.3f}")
    e, s = statistics.median(times["experiment-8"]), statistics.median(times["scored-8"])
    # Each round's scored experiment ran right after its unscored one: their ratio, round by
    # round, shows how far the machine's own drift moves the figure.
    paired = sorted(a / b for a, b in zip(times["scored-8"], times["experiment-8"]))
    print(f"  concurrency 8 with {len(SCORERS)} cheap scorers: {s:.3f} s, scored/unscored {s / e:.3f} "
          f"(target <= 1.05; each call time-limited, on a thread); round by round "
          f"{paired[0]:.3f}-{paired[-1]:.3f}, median {statistics.median(paired):.3f}")
    i = statistics.median(times["isolated-8"])
    print(f"  the same, --scorer-isolation process: {i:.3f} s, scored/unscored {i / e:.3f}")
    thread, process, n = per_score
    print(f"  rescore of {n} runs x {len(SCORERS)} scorers: thread {thread:.3f} s, process {process:.3f} s; "
          f"process isolation costs {(process - thread) / (n * len(SCORERS)) * 1e3:.3f} ms per score")
    if args.rescore:
        rescore_benchmark(args.rescore)


def isolation_cost(h: Harness, experiment: str, rounds: int) -> tuple[float, float, int]:
    """Medians of rescoring ``experiment``'s runs with the cheap scorers, in threads and in
    worker processes (alternated), and the number of runs: the cost of process isolation."""
    n = 0
    times: dict[str, list[float]] = {"thread": [], "process": []}
    for _ in range(max(1, rounds)):
        for isolation in ("thread", "process"):
            start = time.perf_counter()
            summary = h.rescore(experiment, SCORERS, replace=True, concurrency=8, scorer_isolation=isolation)
            times[isolation].append(time.perf_counter() - start)
            n = summary.runs
    return statistics.median(times["thread"]), statistics.median(times["process"]), n or 0


RESCORE = """
import sys, time
sys.path.insert(0, {root!r})
from benchmarks.memory import own_peak_mb
from harness import Harness
def answer_length(run, case):
    return len(run.answer or "")
h = Harness({db!r}, writer="inline")
start = time.perf_counter()
summary = h.rescore("many", [answer_length])
print(summary.runs, summary.scores, time.perf_counter() - start, own_peak_mb())
"""


def many_runs(db: Path, n: int) -> None:
    """A store of ``n`` recorded experiment runs: one real run's rows copied under new ids."""
    import uuid

    from harness import Store

    h = Harness(db, writer="inline")
    h.experiment("seed", agent(), cases(1))
    h.close()
    store = Store(db)
    (seed,) = [r["run_id"] for r in store.rows("runs", columns=["run_id"])]
    rows = {sheet: list(store.rows(sheet, [seed], with_keys=True, decode_json=False))
            for sheet in ("runs", "langgraph_events", "llm_calls", "tool_calls", "scores")}
    for start in range(0, n, 500):
        batch: dict[str, list[dict]] = {sheet: [] for sheet in rows}
        for i in range(start, min(n, start + 500)):
            run_id = str(uuid.uuid4())
            for sheet, template in rows.items():
                for row in template:
                    copy = {**row, "run_id": run_id, "row_key": row["row_key"].replace(seed, run_id)}
                    if sheet == "runs":
                        copy.update(experiment="many", case_id=f"case-{i}")
                    batch[sheet].append(copy)
        with store.transaction():
            for sheet, sheet_rows in batch.items():
                store.write(sheet, sheet_rows)
    store.close()


def rescore_benchmark(n: int) -> None:
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "many.db"
        start = time.perf_counter()
        many_runs(db, n)
        built = time.perf_counter() - start
        results = []
        for size in (n // 10, n):  # memory flat: a tenth of the runs peaks as high
            if size != n:
                small = Path(tmp) / "small.db"
                many_runs(small, size)
                target = small
            else:
                target = db
            code = RESCORE.format(root=str(Path(__file__).resolve().parents[1]), db=str(target))
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            runs, scores, seconds, rss_mb = out.split()
            results.append((int(runs), float(seconds), float(rss_mb)))
    print(f"rescore (store of {n:,} runs built in {built:.1f} s):")
    for runs, seconds, rss in results:
        print(f"  {runs:,} runs, one cheap scorer: {seconds:.1f} s ({runs / seconds:,.0f} runs/s), "
              f"peak RSS {rss:.0f} MB")
    (small_runs, _, small_rss), (big_runs, big_seconds, big_rss) = results
    print(f"  peak memory {big_runs:,} / {small_runs:,} runs: {big_rss / small_rss:.2f} (flat: ~1); "
          f"target under 60 s for 10,000 runs")


if __name__ == "__main__":
    main()
