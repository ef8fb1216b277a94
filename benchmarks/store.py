"""Many processes writing one store: wall time of 8 processes against 1, with and without the harness.

Each worker process runs the overhead benchmark's graph ``--runs`` times, under the harness
(its default writer process) into one shared store, or bare. The machine's cores bound what
8 processes can gain (on 2 cores, 8 bare processes take about 4-6x the wall time of one);
the figure to read is how much more the harness's ratio is than bare's, and that no row is
lost: every run's ``runs`` row and every event row is counted at the end.

    python benchmarks/store.py [--runs 200] [--processes 8] [--store PATH_OR_URL]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_WORKER = """
import sys
sys.path[:0] = [{root!r}, {bench!r}]
from overhead import build_graph
graph = build_graph()
mode, runs, store, label = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if mode == "bare":
    def one():
        graph.invoke({{"log": []}})
else:
    from harness import Harness
    h = Harness(store=store)
    def one():
        with h.run(subject="bench", workflow=label) as run:
            graph.invoke({{"log": []}}, run.config)
one()  # warm: the writer process starts now, not on the clock
if mode == "bare":
    one()
print("ready", flush=True)
sys.stdin.readline()  # every worker starts at once, its imports done
for _ in range(runs):
    one()
if mode != "bare":
    h.close()  # every run stored
"""


def wall(mode: str, processes: int, runs: int, store: str, label: str) -> float:
    """Seconds from releasing the workers (imports done) until the last has stored its runs."""
    root = str(Path(__file__).resolve().parents[1])
    code = _WORKER.format(root=root, bench=str(Path(__file__).resolve().parent))
    workers = [subprocess.Popen([sys.executable, "-c", code, mode, str(runs), store, f"{label}-{i}"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
               for i in range(processes)]
    for worker in workers:
        assert worker.stdout.readline().strip() == "ready"
    start = time.perf_counter()
    for worker in workers:
        worker.stdin.write("go\n")
        worker.stdin.flush()
    for worker in workers:
        if worker.wait() != 0:
            raise SystemExit(f"a {mode} worker failed")
    return time.perf_counter() - start


def count(store: str, sql: str) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import Store

    opened = Store(store)
    try:
        return int(opened._fetchall(sql)[0][0])
    finally:
        opened.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per process")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--store", help="a store URL (default: a SQLite file in a temp dir)")
    args = parser.parse_args()
    store = args.store or str(Path(tempfile.mkdtemp()) / "shared.db")
    n, runs = args.processes, args.runs
    results = {}
    for mode in ("bare", "harness"):
        one = wall(mode, 1, runs, store, f"{mode}-one")
        many = wall(mode, n, runs, store, f"{mode}-many")
        results[mode] = (one, many)
        print(f"{mode:>8}: 1 process {one:6.2f} s ({runs / one:6.0f} runs/s); {n} processes {many:6.2f} s "
              f"({n * runs / many:6.0f} runs/s); {n}/1 wall = {many / one:.2f}")
    expected = (n + 1) * (runs + 1)  # (each worker's warm-up run included)
    stored = count(store, 'SELECT COUNT(*) FROM "runs"')
    events = count(store, "SELECT COUNT(*) FROM langgraph_events")
    per_run = events / stored if stored else 0
    print(f"runs stored: {stored} of {expected} ({expected - stored} lost); "
          f"{per_run:.1f} event rows per run (every run the same: {events == per_run * stored})")
    bare, harnessed = results["bare"], results["harness"]
    print(f"harness {n}/1 wall = {harnessed[1] / harnessed[0]:.2f} (target <= 6.5), "
          f"bare {bare[1] / bare[0]:.2f}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
