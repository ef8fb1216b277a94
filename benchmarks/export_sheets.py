"""Google Sheets requests per exported run, against the local Sheets API of the tests.

    python benchmarks/export_sheets.py [--runs 20] [--rows-per-sheet 5]

Fills a store with ``--runs`` runs (rows in every sheet but ``consistency_scores`` and
``cross_model_eval``, as a single credit run writes them), then pushes them the way a user
would: the first run alone (the worksheets get created), the others one run per push, and
finally all runs again (nothing new: one metadata read). Printed per push kind: requests,
appends, touched worksheets, and appends per touched worksheet (target: 1.0), plus the
same first push with a 429 and a lost response injected, to show what retries cost.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exporters import SheetsPolicy, push_google_sheets  # noqa: E402
from harness.schema import SHEETS  # noqa: E402
from harness.store import Store  # noqa: E402
from tests.exporters.conftest import fill  # noqa: E402
from tests.support.sheets_server import SheetsServer  # noqa: E402

_UNTOUCHED = {"consistency_scores", "cross_model_eval"}  # written by batches, not by one run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rows-per-sheet", type=int, default=5)
    args = parser.parse_args()
    per_sheet = {s.name: args.rows_per_sheet for s in SHEETS if s.name not in _UNTOUCHED}
    touched = len(per_sheet)
    policy = SheetsPolicy(initial_wait=0.05, max_wait=0.2, jitter=0.05, timeout=2.0)
    with tempfile.TemporaryDirectory() as tmp, SheetsServer() as server:
        store = Store(Path(tmp) / "runs.db")
        for run in range(1, args.runs + 1):
            fill(store, run, per_sheet)
        client = server.client(timeout=policy.timeout)

        def push(sid: str, run_ids: list[str] | None, label: str | None = None) -> None:
            server.reset_requests()
            started = time.perf_counter()
            result = push_google_sheets(store, sid, client=client, policy=policy, run_ids=run_ids)
            seconds = time.perf_counter() - started
            if label is None:
                return
            appends = server.count("append")
            worksheets = sum(1 for name, n in result.appended.items() if n or result.recovered[name])
            ratio = f"{appends / worksheets:.2f}" if worksheets else "-"
            print(f"{label:36s} requests {server.count():3d}  appends {appends:3d}  touched worksheets "
                  f"{worksheets:2d}  appends/worksheet {ratio:>4s}  retries {result.retries}  {seconds:.2f}s")

        print(f"{args.runs} runs, {args.rows_per_sheet} rows in each of {touched} sheets per run")
        sid = server.create_spreadsheet()
        push(sid, ["run-1"], "first run (creates the worksheets)")
        for run in range(2, args.runs + 1):
            push(sid, [f"run-{run}"], f"run {run} alone" if run in (2, args.runs) else None)
        push(sid, None, "all runs again (nothing new)")

        sid = server.create_spreadsheet()
        push(sid, None, f"all {args.runs} runs in one push")

        sid = server.create_spreadsheet()
        server.fail("append", status=429, sheet="tool_calls")
        server.fail("append", status=500, apply=True, sheet="llm_calls")
        push(sid, ["run-1"], "first run, a 429 and a lost 500")
        print(f"rows in worksheet llm_calls: {len(server.values(sid, 'llm_calls')) - 1} "
              f"(store: {store.count('llm_calls', 'run-1')})")


if __name__ == "__main__":
    main()
