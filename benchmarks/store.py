"""Many processes writing one store: throughput of 8 writer processes against 1, SQLite and PostgreSQL.

Each worker process runs the overhead benchmark's graph ``--runs`` times, under the harness
(its default writer process) into one shared store, or bare. ``--latency`` adds a wait to
every run (a model's round trip: real agents spend most of a run waiting), so the figure
shows whether the store lets writers proceed in parallel; with 0 the runs are pure CPU and
the machine's cores bound what 8 processes can gain (on 2 cores, 8 bare processes take about
4-6x the wall time of one). Printed per engine: runs/second for 1 and N processes, N/1
throughput (bare beside it), the p99 time from a run's end until its ``runs`` row is
readable by another connection (polled every 5 ms), every run's rows counted at the end
(no run lost), and the ratio to SQLite.

PostgreSQL: ``--pg-url`` (or ``$HARNESS_TEST_PG_URL``), else a throwaway server is started
with ``initdb``/``pg_ctl`` (as the tests do).

    python benchmarks/store.py [--runs 200] [--processes 8] [--latency 0.05] [--engines sqlite,postgres]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scratch import scratch  # noqa: E402 - beside this script, in benchmarks/

_WORKER = """
import sys, time
sys.path[:0] = [{root!r}, {bench!r}]
from overhead import build_graph
graph = build_graph()
mode, runs, store, label, latency = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])
if mode == "bare":
    def one():
        time.sleep(latency)
        graph.invoke({{"log": []}})
        return None
else:
    from harness import Harness
    h = Harness(store=store)
    def one():
        with h.run(subject="bench", workflow=label) as run:
            time.sleep(latency)
            graph.invoke({{"log": []}}, run.config)
        return run.run_id
one()  # warm: the writer process starts now, not on the clock
print("ready", flush=True)
sys.stdin.readline()  # every worker starts at once, its imports done
for _ in range(runs):
    run_id = one()
    if run_id:
        print(run_id, time.time(), flush=True)
if mode != "bare":
    h.close()  # every run stored
"""


def wall(mode: str, processes: int, runs: int, store: str, label: str, latency: float) -> tuple[float, dict[str, float]]:
    """Seconds from releasing the workers until the last has stored its runs, and each run's end time."""
    code = _WORKER.format(root=str(ROOT), bench=str(Path(__file__).resolve().parent))
    workers = [subprocess.Popen([sys.executable, "-c", code, mode, str(runs), store, f"{label}-{i}", str(latency)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
               for i in range(processes)]
    for worker in workers:
        assert worker.stdout.readline().strip() == "ready"
    ended: dict[str, float] = {}
    start = time.perf_counter()
    for worker in workers:
        worker.stdin.write("go\n")
        worker.stdin.flush()
    for worker in workers:
        for line in worker.stdout:
            run_id, at = line.split()
            ended[run_id] = float(at)
        if worker.wait() != 0:
            raise SystemExit(f"a {mode} worker failed")
    return time.perf_counter() - start, ended


class Watcher:
    """Polls the store for new ``runs`` rows; notes when each became readable."""

    def __init__(self, store: str) -> None:
        from harness import Store

        self.store, self.seen, self._stop = Store(store), {}, threading.Event()
        self._last = int(self.store._fetchall('SELECT COALESCE(MAX(_seq), 0) FROM "runs"')[0][0])
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        mark = self.store.placeholder
        while not self._stop.is_set():
            for seq, run_id in self.store._fetchall(f'SELECT _seq, run_id FROM "runs" WHERE _seq > {mark}', (self._last,)):
                self.seen.setdefault(run_id, time.time())
                self._last = max(self._last, seq)
            time.sleep(0.005)

    def stop(self) -> None:
        time.sleep(0.05)
        self._stop.set()
        self._thread.join()
        self.store.close()


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else values[0]


def measure(engine: str, store: str, n: int, runs: int, latency: float) -> dict[str, float]:
    from harness import Store

    out: dict[str, float] = {}
    delays: list[float] = []
    for mode in ("bare", "harness"):
        for processes in (1, n):
            watcher = Watcher(store) if mode == "harness" else None
            seconds, ended = wall(mode, processes, runs, store, f"{mode}-{processes}", latency)
            if watcher is not None:
                watcher.stop()
                delays += [watcher.seen[r] - t for r, t in ended.items() if r in watcher.seen]
            out[f"{mode}-{processes}"] = processes * runs / seconds
    opened = Store(store)
    expected = (1 + n) * (runs + 1)  # every harness worker's warm-up run included
    stored = opened.count("runs")
    events = opened.count("langgraph_events")
    opened.close()
    per_run = events / stored if stored else 0
    print(f"{engine:>10}: harness 1 process {out['harness-1']:6.1f} runs/s, {n} processes {out[f'harness-{n}']:6.1f} "
          f"runs/s: {n}/1 = {out[f'harness-{n}'] / out['harness-1']:.2f}x (bare {out[f'bare-{n}'] / out['bare-1']:.2f}x), "
          f"{n}/1 wall = {n * out['harness-1'] / out[f'harness-{n}']:.2f} (bare {n * out['bare-1'] / out[f'bare-{n}']:.2f}); "
          f"p99 until readable {p99(delays) * 1000:.0f} ms (median {statistics.median(delays) * 1000:.0f} ms); "
          f"runs stored {stored} of {expected} ({expected - stored} lost), {per_run:.1f} event rows each "
          f"(all alike: {events == per_run * stored})")
    out["lost"] = expected - stored
    return out


@contextlib.contextmanager
def postgres(url: str | None):
    if url:
        yield url
        return
    from tests.support.postgres import postgres_server

    with postgres_server() as server:
        yield server


def fresh_pg_database(server: str) -> str:
    import uuid

    import psycopg

    name = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.rsplit("/", 1)[0] + f"/{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per process")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds each run waits (a model's round trip)")
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--pg-url", default=os.environ.get("HARNESS_TEST_PG_URL"),
                        help="a PostgreSQL server to create the benchmark's database on")
    args = parser.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    print(f"{args.processes} processes x {args.runs} runs, {args.latency * 1000:.0f} ms wait per run, "
          f"{os.cpu_count()} cores")
    results = {}
    if "sqlite" in engines:
        results["sqlite"] = measure("SQLite", str(scratch() / "shared.db"), args.processes,
                                    args.runs, args.latency)
    if "postgres" in engines:
        with postgres(args.pg_url) as server:
            results["postgres"] = measure("PostgreSQL", fresh_pg_database(server), args.processes, args.runs,
                                          args.latency)
    if len(results) == 2:
        n = args.processes
        print("PostgreSQL / SQLite runs/s: " + ", ".join(
            f"{p} process{'es' if p > 1 else ''} {results['postgres'][f'harness-{p}'] / results['sqlite'][f'harness-{p}']:.2f}"
            for p in (1, n)))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
