"""Online scoring figures: worker throughput, two workers against one, scoring lag, sample rate.

1. **Throughput** of one worker with a scorer that does nothing, over runs traced by the harness
   (a small graph: a node, its events, the runs row), on SQLite and on PostgreSQL: runs scored per
   second, beside ``score_runs`` (what ``rescore`` does: the same snapshots, calls and writes,
   without claims) on the same runs in the same process, as a ratio. Target: >= 500 runs/s on SQLite.
2. **Two workers against one**: ``harness score --once`` processes with a scorer that sleeps
   50 ms (concurrency 4 each), one alone then two at once on a copy of the same store: the ratio
   of their throughputs (target >= 1.8): the runs each worker settled over its time from its
   start (its imports done: ``score_workers.started_at``) to its last settle
   (``score_claims.updated_at``), added up over the workers.
3. **Scoring lag**: runs traced at 50 per second by a host (thread writer) while a worker follows
   the store; lag = when a run's claim was settled minus when the run completed; p50 and p95.
4. **Achieved sample rate** over 20,000 runs (random ids): seen and sampled counts of a worker at
   rates 0.01, 0.1 and 0.5 (target: within ±0.5 points of the rate), with the binomial spread
   (0.5 points is 2.4 standard deviations at 0.1, 1.4 at 0.5).

    python benchmarks/online.py [--runs 2000] [--pg URL | --no-pg] [--lag-seconds 20]

PostgreSQL: ``--pg URL``, else a throwaway server started as the tests do (tests/support/postgres.py),
else that part is skipped with the reason. Figures are printed; nothing here gates CI.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import shutil
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import Harness, Store  # noqa: E402
from harness.experiment.scoring import score_runs, scorers_of  # noqa: E402
from harness.online import Worker, WorkerSettings  # noqa: E402
from tests.online.support import graph, worker_env  # noqa: E402
from scratch import scratch  # noqa: E402 - beside this script, in benchmarks/

SLEEPER = "tests.online.scorers:logged"


def noop(run, case):
    return 1.0


noop.version = "bench"


def record(path_or_url: str, count: int, rate: float | None = None) -> float:
    """``count`` traced runs of the small graph (at ``rate`` per second when given); seconds taken."""
    h = Harness(path_or_url, writer="thread")
    g = graph()
    start = time.perf_counter()
    for i in range(count):
        with h.run(workflow="bench") as run:
            g.invoke({"question": f"q{i}"}, run.config)
        if rate:
            wait = start + (i + 1) / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
    h.close()
    return time.perf_counter() - start


def throughput(url: str, label: str) -> float:
    store = Store(url)
    ids = store.run_ids()
    worker = Worker(store, scorers_of([noop]), WorkerSettings(batch=200, concurrency=8))
    start = time.perf_counter()
    worker.run(follow=False)
    took = time.perf_counter() - start
    scored = worker.counts.total().scored
    plain = scorers_of([noop])[0]
    plain = dataclasses.replace(plain, name="noop_plain")
    start = time.perf_counter()
    score_runs(store, ids, [plain], concurrency=8)
    rescore = time.perf_counter() - start
    store.close()
    print(f"  {label}: {scored:,} runs in {took:.2f} s = {scored / took:,.0f} runs/s by the worker; "
          f"score_runs (no claims) {len(ids) / rescore:,.0f} runs/s; worker/score_runs = {rescore / took:.2f}")
    return scored / took


def one_against_two(template: Path, tmp: Path) -> None:
    def run(count: int) -> float:
        path = tmp / f"workers{count}.db"
        shutil.copy(template, path)
        runs = len(Store(path).run_ids())
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-m", "harness", "score", "--once", "--store", str(path),
                                   "--scorer", SLEEPER, "--concurrency", "4"],
                                  env=worker_env(sleep=0.05), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True) for _ in range(count)]
        for p in procs:
            _, err = p.communicate()
            if p.returncode:
                raise SystemExit(err)
        wall = time.perf_counter() - start
        # Each worker's rate while it worked: the runs it settled over the time from its start
        # (imports done, store open) to its last settle; the workers' rates add up.
        store = Store(path)
        spans = store._fetchall(
            'SELECT w.worker, w.started_at, MAX(c.updated_at), COUNT(*) FROM "score_workers" w '
            'JOIN "score_claims" c ON c.worker = w.worker GROUP BY w.worker, w.started_at')
        store.close()
        rate = sum(n / (last - first) for _, first, last, n in spans)
        print(f"  {count} worker(s): {runs:,} runs, " + ", ".join(f"{n} in {last - first:.2f} s"
                                                               for _, first, last, n in spans)
              + f" = {rate:,.1f} runs/s (50 ms scorer, concurrency 4 each; {wall:.1f} s with the processes' start)")
        return rate

    one, two = run(1), run(2)
    print(f"  two workers / one = {two / one:.2f} (target >= 1.8)")


def lag(tmp: Path, seconds: float, rate: float = 50.0) -> None:
    path = tmp / "lag.db"
    record(str(path), 1)
    follower = subprocess.Popen([sys.executable, "-m", "harness", "score", "--follow", "--store", str(path),
                                 "--scorer", "tests.online.scorers:noop", "--poll", "0.1"],
                                env=worker_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # the worker is up
    took = record(str(path), int(seconds * rate), rate)
    time.sleep(3)
    follower.terminate()
    follower.communicate(timeout=60)
    store = Store(path)
    done = dict(store._fetchall('SELECT run_id, updated_at FROM "score_claims" WHERE state = \'scored\''))
    lags = []
    for row in store.rows("runs", columns=["run_id", "completed_at"]):
        if row["run_id"] in done and row["completed_at"]:
            ended = dt.datetime.fromisoformat(row["completed_at"]).timestamp()
            lags.append(done[row["run_id"]] - ended)
    store.close()
    lags.sort()
    p95 = lags[min(len(lags) - 1, round(0.95 * (len(lags) - 1)))]
    print(f"  {len(lags):,} runs arriving at {len(lags) / took:.1f}/s: lag p50 {statistics.median(lags) * 1e3:.0f} ms, "
          f"p95 {p95 * 1e3:.0f} ms, max {lags[-1] * 1e3:.0f} ms (writer, poll every 0.1 s, claim and settle)")


def sample_rates(tmp: Path, count: int = 20_000) -> None:
    path = tmp / "rates.db"
    store = Store(path)
    now = dt.datetime.now(dt.timezone.utc).isoformat()
    for start in range(0, count, 2_000):
        store.write("runs", [{"run_id": str(uuid.uuid4()), "workflow": "bench", "status": "completed",
                              "started_at": now} for _ in range(start, min(count, start + 2_000))])
    for rate in (0.01, 0.1, 0.5):
        def at_rate(run, case):
            return 1.0

        at_rate.version = f"rate-{rate}"
        worker = Worker(store, scorers_of([at_rate]), WorkerSettings(sample=rate, batch=500))
        began = time.perf_counter()
        worker.run(follow=False)
        t = worker.counts.total()
        off = (t.sampled / t.seen - rate) * 100
        spread = (rate * (1 - rate) / t.seen) ** 0.5 * 100
        print(f"  rate {rate:.2f}: seen {t.seen:,}, sampled {t.sampled:,} = {t.sampled / t.seen:.4f} "
              f"({off:+.2f} points, {off / spread:+.1f} binomial standard deviations of {spread:.2f} points; "
              f"target within ±0.5) in {time.perf_counter() - began:.1f} s")
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="traced runs for the throughput figures")
    parser.add_argument("--two-runs", type=int, default=800, help="runs for two workers against one")
    parser.add_argument("--pg", help="a PostgreSQL URL (default: a throwaway server, as the tests start)")
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--lag-seconds", type=float, default=20.0)
    args = parser.parse_args()
    tmp = scratch()
    template = tmp / "template.db"
    print(f"recording {args.runs:,} traced runs ...")
    record(str(template), args.runs)
    print("1. throughput, a scorer that does nothing")
    sqlite_copy = tmp / "sqlite.db"
    shutil.copy(template, sqlite_copy)
    throughput(str(sqlite_copy), "SQLite")
    if not args.no_pg:
        _postgres(args.pg, template)
    print("2. two workers against one")
    few = tmp / "few.db"
    record(str(few), args.two_runs)
    one_against_two(few, tmp)
    print(f"3. scoring lag, runs arriving at 50/s for {args.lag_seconds:g} s")
    lag(tmp, args.lag_seconds)
    print("4. achieved sample rate over 20,000 runs")
    sample_rates(tmp)


def _postgres(url: str | None, template: Path) -> None:
    from contextlib import ExitStack

    with ExitStack() as stack:
        if url is None:
            try:
                from tests.support.postgres import Unavailable, fresh_database, postgres_server

                url = fresh_database(stack.enter_context(postgres_server()))
            except (ImportError, Unavailable) as exc:
                print(f"  PostgreSQL: skipped ({exc})")
                return
        copy = subprocess.run([sys.executable, "-m", "harness", "export", "--to-store", url, "--store", str(template)],
                              capture_output=True, text=True)
        if copy.returncode:
            print(f"  PostgreSQL: skipped (copying the runs failed: {copy.stderr.strip()})")
            return
        throughput(url, "PostgreSQL")


if __name__ == "__main__":
    main()
