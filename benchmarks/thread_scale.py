"""Threads at scale: a conversation of 1,000 turns (500 interrupt/resume cycles) recorded by
the harness, shown by ``harness show --thread`` on SQLite and PostgreSQL, checked as one
ordered chain; and the tracing overhead of a turn against that of a run.

Part 1 records the thread for real (a graph whose node asks with ``interrupt`` and is resumed
with ``Command(resume=...)``, an in-memory checkpointer) into a SQLite store, and into a
PostgreSQL server started as the tests start one (tests/support/postgres.py), or
``$HARNESS_TEST_PG_URL``; then times ``harness show --thread ID`` as a user runs it (a new
process, output to a pipe), against ``harness list --limit 1000`` in the same store (the
baseline: reading a thousand runs), medians of three. It checks the chain: turns 1..1,000 in
start order, every resume's ``resumed_from`` the turn before, no orphan.

Part 2 interleaves, round by round, a bare turn and a traced turn of that graph (an interrupt,
then its resume) with a bare and a traced run of the same graph that does not interrupt:
the harness's ratio to bare per turn beside its ratio per run.

    python benchmarks/thread_scale.py [--turns 1000] [--rounds 20] [--no-postgres] [--no-scale]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langgraph.types import Command  # noqa: E402

from harness import Harness, Store  # noqa: E402
from tests.support.conversations import steps_graph as graph  # noqa: E402
from scratch import scratch  # noqa: E402 - beside this script, in benchmarks/


def record(store: str, turns: int) -> str:
    """``turns`` turns on one new thread (an input that stops at the question, its answer)."""
    h = Harness(store, writer="thread")
    app, thread = graph(), f"long-{uuid.uuid4()}"
    config = {"configurable": {"thread_id": thread}}
    for i in range(turns):
        with h.run(workflow="long") as run:
            app.invoke(Command(resume=f"yes {i}") if i % 2 else {"n": i}, {**config, **run.config})
    h.close()
    return thread


def check_chain(store: str, thread: str, turns: int) -> str:
    s = Store(store)
    rows = sorted(s.rows("runs", columns=["run_id", "turn", "resume", "resumed_from", "interrupts", "started_at"],
                         where={"thread_id": thread}), key=lambda r: (r["started_at"], r["run_id"]))
    s.close()
    problems = []
    if [r["turn"] for r in rows] != list(range(1, turns + 1)):
        problems.append("turns are not 1..N in start order")
    orphans = [r for r in rows if r["resume"] is not None and r["resumed_from"] is None]
    wrong = [r for r, before in zip(rows[1:], rows) if r["resume"] is not None and r["resumed_from"] != before["run_id"]]
    if orphans or wrong:
        problems.append(f"{len(orphans)} orphan resume(s), {len(wrong)} resumed_from not the turn before")
    return "one ordered chain, no orphan" if not problems else "; ".join(problems)


def cli_seconds(*args: str) -> tuple[float, float]:
    """Median wall time and CPU time (user + system) of the command in a new process: on a
    machine others share, the CPU time is what the command itself costs."""
    walls, cpus = [], []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"harness {' '.join(args)} failed: {done.stderr}")
    return statistics.median(walls), statistics.median(cpus)


def scale(store: str, label: str, turns: int) -> None:
    started = time.perf_counter()
    thread = record(store, turns)
    recorded = time.perf_counter() - started
    chain = check_chain(store, thread, turns)
    shown, shown_cpu = cli_seconds("show", "--thread", thread, "--store", store)
    listed, listed_cpu = cli_seconds("list", "--limit", str(turns), "--store", store)
    as_json, json_cpu = cli_seconds("show", "--thread", thread, "--store", store, "--json")
    print(f"{label}: {turns} turns recorded in {recorded:.1f} s; {chain}; show --thread {shown:.2f} s wall, "
          f"{shown_cpu:.2f} s CPU (--json {as_json:.2f} s, {json_cpu:.2f} s CPU); list --limit {turns} {listed:.2f} s "
          f"wall, {listed_cpu:.2f} s CPU; show --thread / list: {shown / listed:.2f} wall, {shown_cpu / listed_cpu:.2f} CPU")


def overhead(rounds: int) -> None:
    """Per turn and per run, traced against bare: medians over rounds of ten of each, the
    four modes in a new random order every round."""
    import random

    h = Harness(str(scratch() / "overhead.db"), writer="thread")
    app = graph()
    modes = {"bare turn": (False, True), "traced turn": (True, True), "bare run": (False, False),
             "traced run": (True, False)}
    wall: dict[str, list[float]] = {k: [] for k in modes}

    def cycle(traced: bool, asking: bool) -> None:
        config = {"configurable": {"thread_id": str(uuid.uuid4())}}
        inputs = [{"n": 0, "ask": True}, Command(resume="yes")] if asking else [{"n": 0, "ask": False}] * 2
        for given in inputs:
            if traced:
                with h.run(workflow="overhead") as run:
                    app.invoke(given, {**config, **run.config})
            else:
                app.invoke(given, config)

    order = list(modes)
    for _ in range(rounds):
        random.shuffle(order)
        for name in order:
            started = time.perf_counter()
            for _ in range(10):
                cycle(*modes[name])
            wall[name].append((time.perf_counter() - started) / 20)
            h.flush()
    med = {k: statistics.median(v) for k, v in wall.items()}
    print(f"overhead: a turn of a thread (an interrupt, then its resume) traced/bare "
          f"{med['traced turn'] / med['bare turn']:.3f} (+{(med['traced turn'] - med['bare turn']) * 1e3:.2f} ms of "
          f"{med['bare turn'] * 1e3:.2f} ms); a run of the graph without interrupt traced/bare "
          f"{med['traced run'] / med['bare run']:.3f} (+{(med['traced run'] - med['bare run']) * 1e3:.2f} ms of "
          f"{med['bare run'] * 1e3:.2f} ms)")
    h.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-scale", action="store_true", help="only part 2, the overhead per turn")
    args = parser.parse_args()
    if not args.no_scale:
        with tempfile.TemporaryDirectory() as tmp:
            scale(os.path.join(tmp, "threads.db"), "SQLite", args.turns)
    if not args.no_postgres and not args.no_scale:
        from tests.support.postgres import Unavailable, drop_database, fresh_database, postgres_server

        try:
            with postgres_server() as server:
                url = fresh_database(server)
                scale(url, "PostgreSQL", args.turns)
                drop_database(server, url)
        except Unavailable as exc:
            print(f"PostgreSQL: skipped ({exc})")
    overhead(args.rounds)


if __name__ == "__main__":
    main()
