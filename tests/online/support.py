"""Real runs for the online tests: a small LangGraph graph traced with ``h.run(...)``, as a
production service records them, and the calls a scorer logged."""

from __future__ import annotations

import operator
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph

from harness import Harness

ROOT = Path(__file__).resolve().parents[2]


class State(TypedDict, total=False):
    question: str
    answer: str
    log: Annotated[list, operator.add]


def graph(answer=lambda q: f"ok: {q}"):
    def respond(state):
        return {"answer": answer(state["question"]), "log": ["respond"]}

    builder = StateGraph(State)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile()


def record_runs(store, count: int, *, workflow: str = "support", answer=lambda q: f"ok: {q}",
                harness: Harness | None = None) -> list[str]:
    """``count`` runs of the graph, traced into ``store`` (a path or URL), their ids in order."""
    h = harness or Harness(store, writer="thread")
    g = graph(answer)
    ids = []
    try:
        for i in range(count):
            with h.run(workflow=workflow) as run:
                g.invoke({"question": f"question {i}"}, run.config)
            ids.append(run.run_id)
    finally:
        if harness is None:
            h.close()
        else:
            h.flush()
    return ids


def calls(log: Path) -> list[tuple[str, int, str]]:
    """(run id, pid, token) of every call ``tests.online.scorers.logged`` finished."""
    if not log.exists():
        return []
    return [(a, int(b), c) for a, b, c in (line.split() for line in log.read_text().splitlines() if line.strip())]


def calls_per_run(log: Path) -> Counter:
    return Counter(run_id for run_id, _, _ in calls(log))


def worker_env(log: Path | None = None, sleep: float = 0.0) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), ONLINE_SLEEP=str(sleep))
    if log is not None:
        env["ONLINE_LOG"] = str(log)
    return env


def start_worker(store: str, *args: str, log: Path | None = None, sleep: float = 0.0,
                 cwd: Path | None = None) -> subprocess.Popen:
    """``harness score --follow ...`` in a child process, as a user starts it."""
    return subprocess.Popen([sys.executable, "-m", "harness", "score", "--store", str(store), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=worker_env(log, sleep),
                            cwd=cwd)


def score_once(store: str, *args: str, log: Path | None = None, sleep: float = 0.0,
               timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", "score", "--once", "--store", str(store), *args],
                          capture_output=True, text=True, env=worker_env(log, sleep), timeout=timeout)
