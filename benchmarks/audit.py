"""Audit time and memory against reading the same workbook with python-calamine alone.

    python benchmarks/audit.py [--rows 1000000] [--workbook /tmp/bench_audit.xlsx] [--repeat 3]

The workbook is built once and reused: an offline credit batch (every bundled company, two
models, three repeats, judge on) is run into a store, its runs are copied under fresh run
ids until the store holds ``--rows`` rows, and ``exporters.write_excel`` exports it. Every
copy is a consistent run, so the audit of the workbook is clean, as a real one should be.

Two measurements, each in a fresh child process (so peak RSS is its own), ``--repeat``
times, median time and largest peak RSS reported:

- ``read``: python-calamine opening the workbook and turning every worksheet into Python
  values (``to_python``), nothing else;
- ``audit``: ``harness.audit.audit_workbook`` end to end (read, checks, recomputation,
  cross-sheet counts, aggregates).

Printed: rows, file size, seconds and peak RSS of each, ``audit/read`` (target <= 2), and
the peak RSS of calamine parsing the largest tab alone (``largest``: what holding one parsed
tab costs, the floor of an audit that reads tabs with calamine).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.memory import own_peak_mb  # noqa: E402

_NAMESPACE = uuid.UUID("6f1c2a52-5c1e-4d1b-9a51-0c7d2b3e4f60")


def build_workbook(path: Path, rows: int) -> None:
    """Run the offline batch, copy its runs up to ``rows`` rows, export to ``path``."""
    from exporters import write_excel
    from harness import Harness
    from harness.schema import SHEET_NAMES
    from workflows import PROVIDERS
    from workflows._batch import BatchSettings, run_batch
    from workflows._sources import load_snapshots

    store_path = path.with_suffix(".db")
    store_path.unlink(missing_ok=True)
    harness = Harness(store=store_path)
    companies = [snapshot["profile"]["name"] for snapshot in load_snapshots().values()]
    settings = BatchSettings(provider=PROVIDERS["offline"], model="offline-analyst-1",
                             compare_model="offline-analyst-lite", repeats=3)
    started = time.perf_counter()
    run_batch(harness, companies, settings)
    store = harness.store
    base = {run: {name: list(store.rows(name, [run], decode_json=False)) for name in SHEET_NAMES}
            for run in store.run_ids()}
    per_copy = sum(len(r) for sheets in base.values() for r in sheets.values())
    copies = max(0, -(-rows // per_copy) - 1)
    print(f"batch: {len(base)} runs, {per_copy} rows in {time.perf_counter() - started:.1f}s; "
          f"copying them {copies} times", file=sys.stderr)
    for k in range(1, copies + 1):
        batch: dict[str, list[dict]] = {name: [] for name in SHEET_NAMES}
        renamed = {run: str(uuid.uuid5(_NAMESPACE, f"{run}:{k}")) for run in base}
        for run, sheets in base.items():
            new = renamed[run]
            for name, sheet_rows in sheets.items():
                batch[name].extend({**row, "run_id": new, "row_key": f"{new}:{name}:{i}", **_group(row, renamed)}
                                   for i, row in enumerate(sheet_rows))
        store.write_many(batch)
    started = time.perf_counter()
    result = write_excel(store, path)
    print(f"exported {result.total_rows} rows in {time.perf_counter() - started:.1f}s", file=sys.stderr)


def _group(row: dict, renamed: dict[str, str]) -> dict:
    """A group row's ``run_ids`` (the runs it covers) renamed with its copy's runs."""
    if not row.get("run_ids"):
        return {}
    return {"run_ids": json.dumps([renamed.get(r, r) for r in json.loads(row["run_ids"])], separators=(",", ":"))}


def _child(mode: str, path: str) -> None:
    started = time.perf_counter()
    if mode == "read":
        import python_calamine

        book = python_calamine.CalamineWorkbook.from_path(path)
        rows = sum(len(book.get_sheet_by_name(name).to_python(skip_empty_area=False)) for name in book.sheet_names)
        detail = {"rows_read": rows}
    elif mode == "largest":
        import python_calamine

        book = python_calamine.CalamineWorkbook.from_path(path)
        largest = max(book.sheet_names, key=lambda name: book.get_sheet_by_name(name).height)
        detail = {"tab": largest, "rows_read": book.get_sheet_by_name(largest).height}
    else:
        from harness.audit import audit_workbook

        result = audit_workbook(path)
        detail = {"findings": len(result.findings), "rows": sum(result.rows.values())}
    seconds = time.perf_counter() - started
    peak_mb = own_peak_mb()
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, **detail}))


def _measure(mode: str, path: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", mode, str(path)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workbook", type=Path, default=Path("/tmp/bench_audit.xlsx"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    if not args.workbook.is_file():
        build_workbook(args.workbook, args.rows)
    runs = {mode: [_measure(mode, args.workbook) for _ in range(args.repeat)] for mode in ("read", "audit")}
    floor = _measure("largest", args.workbook)
    read = statistics.median(r["seconds"] for r in runs["read"])
    audit = statistics.median(r["seconds"] for r in runs["audit"])
    print(f"workbook: {args.workbook} ({args.workbook.stat().st_size / 1e6:.0f} MB, "
          f"{runs['audit'][0]['rows']:,} data rows, {runs['audit'][0]['findings']} findings)")
    for mode, label in (("read", "python-calamine read"), ("audit", "harness audit")):
        seconds = [round(r["seconds"], 2) for r in runs[mode]]
        print(f"{label:22s} median {statistics.median(seconds):7.2f}s  runs {seconds}  "
              f"peak RSS {max(r['peak_mb'] for r in runs[mode]):,.0f} MB")
    print(f"{'calamine, largest tab':22s} {floor['tab']} ({floor['rows_read']:,} rows) parsed alone: "
          f"peak RSS {floor['peak_mb']:,.0f} MB (the floor of any audit that parses a tab with calamine)")
    print(f"audit/read = {audit / read:.2f} (target <= 2); audit peak RSS / read peak RSS = "
          f"{max(r['peak_mb'] for r in runs['audit']) / max(r['peak_mb'] for r in runs['read']):.2f}")


if __name__ == "__main__":
    main()
