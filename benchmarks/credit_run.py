"""Figures of the offline credit workflow (not a test; run by hand):

    python benchmarks/credit_run.py [--runs 30] [--batch 100]

1. wall time of one offline run with evaluation under the harness (median over --runs),
   as the caller sees it and including the background write of its rows;
2. a --batch-company batch through the CLI code path (``harness run ... --store ...``,
   Excel export included), in process;
3. LLM calls per run;
4. label accuracy of the offline models' risk level against the snapshots' expected risk.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import AGENT_NAMES, Harness  # noqa: E402
from harness.cli import main  # noqa: E402
from workflows import NODE_TYPES, WORKFLOW_PHASES, OfflineAnalyst, SnapshotSources, build_graph  # noqa: E402


def one_run_times(runs: int, folder: Path) -> tuple[list[float], list[float], list[int]]:
    h = Harness(store=folder / "single.db")
    graph = build_graph()
    caller, stored, calls = [], [], []
    names = [s["profile"]["name"] for s in SnapshotSources().snapshots.values()]
    for i in range(runs + 2):
        name = names[i % len(names)]
        start = time.perf_counter()
        with h.run(subject=name, workflow="credit_analysis", profile="credit", agent_names=AGENT_NAMES,
                   node_types=NODE_TYPES, phases=WORKFLOW_PHASES) as run:
            graph.invoke({"company_name": name}, config=run.config)
        returned = time.perf_counter()
        h.flush()
        done = time.perf_counter()
        if i >= 2:  # the first two warm up imports and caches
            caller.append(returned - start)
            stored.append(done - start)
            calls.append(h.store.count("llm_calls", run.run_id))
    return caller, stored, calls


def batch_time(n: int, folder: Path) -> tuple[float, int]:
    names = [s["profile"]["name"] for s in SnapshotSources().snapshots.values()]
    names += [f"Unlisted Trading Company {i:03d}" for i in range(n - len(names))]
    store = folder / "batch.db"
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(["run", *names[:n], "--store", str(store), "--out", str(folder / "batch.xlsx")])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return time.perf_counter() - start, code


def label_accuracy(model_name: str) -> tuple[int, int, list[str]]:
    graph = build_graph()
    snaps = SnapshotSources()
    hits, misses = 0, []
    for snap in snaps.snapshots.values():
        name, expected = snap["profile"]["name"], snap["profile"]["expected_risk"]
        out = graph.invoke({"company_name": name},
                           config={"configurable": {"model": OfflineAnalyst(model_name=model_name), "judge": False}})
        got = out["assessment"]["risk_level"]
        hits += got == expected
        if got != expected:
            misses.append(f"{name}: {got} (expected {expected})")
    return hits, len(snaps.snapshots), misses


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        caller, stored, calls = one_run_times(args.runs, folder)
        print(f"one offline run with evaluation, median of {len(caller)}: {statistics.median(caller) * 1000:.0f} ms "
              f"returned to the caller, {statistics.median(stored) * 1000:.0f} ms with its rows stored "
              f"(p90 {sorted(stored)[int(0.9 * len(stored)) - 1] * 1000:.0f} ms)")
        print(f"LLM calls per run: {statistics.mean(calls):.1f} (min {min(calls)}, max {max(calls)})")
        seconds, code = batch_time(args.batch, folder)
        print(f"{args.batch}-company batch through `harness run` (Excel export included): {seconds:.1f} s, exit {code}")
    for model_name in ("offline-analyst-1", "offline-analyst-lite"):
        hits, total, misses = label_accuracy(model_name)
        print(f"label accuracy {model_name}: {hits}/{total} = {hits / total:.0%}" + (f"; misses: {'; '.join(misses)}" if misses else ""))


if __name__ == "__main__":
    main_()
