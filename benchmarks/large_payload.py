"""Memory of a run with a very large payload: a tool that returns N MB of text, a node that
puts N MB into the graph's state, a chat model given an N MB message; each run once bare and
once under the harness (each writer), in a process of its own under an address-space cap,
as an attacker would send it. Printed: the process's peak resident memory (VmHWM), its excess
over the same graph run bare (the target: under 400 MB for 250 MB), the writer process's own
peak, and what the store kept of the payload.

    python benchmarks/large_payload.py [--mb 250] [--cap-gb 3] [--writers thread,process,inline]
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from scratch import scratch  # noqa: E402 - beside this script, in benchmarks/

CHILD = textwrap.dedent('''
    import json, os, sys
    sys.path.insert(0, os.getcwd())
    from typing import Annotated, TypedDict
    import operator
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool
    from langgraph.graph import END, START, StateGraph

    kind, size, writer, store = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

    @tool
    def fetch(url: str) -> str:
        """Fetch a page."""
        return "x" * size

    def node(state, config):
        if kind == "tool":
            return {"log": [len(fetch.invoke({"url": "u"}, config))]}
        if kind == "state":
            return {"doc": "y" * size, "log": ["state"]}
        model = GenericFakeChatModel(messages=iter([AIMessage("ok")]))
        model.invoke([HumanMessage("h" * size)], config)
        return {"log": ["message"]}

    class State(TypedDict, total=False):
        log: Annotated[list, operator.add]
        doc: str

    graph = StateGraph(State)
    graph.add_node("work", node)
    graph.add_edge(START, "work")
    graph.add_edge("work", END)
    graph = graph.compile()

    def peak(pid="self"):
        return next(int(l.split()[1]) * 1024 for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM"))

    if writer == "bare":
        graph.invoke({"log": []})
        print(json.dumps({"peak": peak(), "writer": None}))
    else:
        from harness import Harness
        harness = Harness(store=store, writer=writer)
        with harness.run(subject="large", workflow="large") as run:
            graph.invoke({"log": []}, run.config)
        harness.flush()
        me = os.getpid()
        children = open(f"/proc/{me}/task/{me}/children").read().split()
        writer_peak = max((peak(child) for child in children), default=None)
        harness.close()
        print(json.dumps({"peak": peak(), "writer": writer_peak}))
''')


def run_child(kind: str, size: int, writer: str, store: Path, cap: int) -> dict:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    done = subprocess.run([sys.executable, "-c", CHILD, kind, str(size), writer, str(store)], capture_output=True,
                          text=True, preexec_fn=limit, cwd=Path(__file__).resolve().parents[1])
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def kept(store: Path) -> str:
    if not store.exists():
        return "no store"
    with sqlite3.connect(store) as db:
        runs = db.execute("SELECT count(*) FROM runs").fetchone()[0]
        longest = max((db.execute(f"SELECT max(length({column})) FROM {table}").fetchone()[0] or 0)
                      for table, column in (("tool_calls", "tool_output"), ("llm_calls", "prompt"),
                                            ("langgraph_events", "input_preview"), ("langgraph_events", "output_preview"),
                                            ("runs", "inputs"), ("runs", "outputs")))
    return f"{runs} run(s), longest cell {longest:,} chars"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=250)
    parser.add_argument("--cap-gb", type=float, default=3)
    parser.add_argument("--kinds", default="tool,state,message")
    parser.add_argument("--writers", default="thread,process,inline")
    args = parser.parse_args()
    size, cap = args.mb * 1_000_000, int(args.cap_gb * 1024 ** 3)
    tmp = scratch()
    print(f"{args.mb} MB payloads, every process under a {args.cap_gb:g} GB address-space cap")
    print(f"{'payload':>8}  {'writer':>8}  {'peak MB':>8}  {'over bare':>9}  {'writer MB':>9}  stored")
    for kind in args.kinds.split(","):
        bare = run_child(kind, size, "bare", tmp / "unused.db", cap)
        if "error" in bare:
            print(f"{kind:>8}  {'bare':>8}  failed: {bare['error']}")
            continue
        print(f"{kind:>8}  {'bare':>8}  {bare['peak'] / 1e6:8.0f}")
        for writer in args.writers.split(","):
            store = tmp / f"{kind}-{writer}.db"
            found = run_child(kind, size, writer, store, cap)
            if "error" in found:
                print(f"{kind:>8}  {writer:>8}  failed: {found['error']}")
                continue
            over = (found["peak"] - bare["peak"]) / 1e6
            side = f"{found['writer'] / 1e6:9.0f}" if found["writer"] else f"{'-':>9}"
            print(f"{kind:>8}  {writer:>8}  {found['peak'] / 1e6:8.0f}  {over:9.0f}  {side}  {kept(store)}")


if __name__ == "__main__":
    main()
