"""Excel export speed and memory against raw xlsxwriter ``constant_memory``.

    python benchmarks/export_excel.py [--rows 1000000] [--store /tmp/bench_export.db] [--repeat 1]
    python benchmarks/export_excel.py --compare-writers 50000

The store is filled once (``--rows`` spread evenly over the fifteen sheets, deterministic
content: short and long text, JSON, numbers, ISO timestamps) and reused when it already
holds that many rows. Three measurements, each in a fresh child process so peak RSS is
its own:

- ``raw``: xlsxwriter ``constant_memory`` writing exactly the cells ``write_excel`` writes
  (same values, same types, same date format). The cells are read from the SQLite file with
  a streaming cursor and converted in chunks *outside* the timed sections; only the
  xlsxwriter calls and the final ``close()`` are timed.
- ``read``: reading the same rows with ``Store.rows`` alone (the SQLite share).
- ``ours``: ``exporters.write_excel`` end to end (read, convert, write, fsync, rename).

Printed: seconds and peak RSS of each, ``ours/raw`` and ``ours/(raw+read)``. With
``--compare-writers N`` it times openpyxl ``write_only`` against xlsxwriter
``constant_memory`` on the same N rows (the measurement behind the writer choice).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.memory import own_peak_mb  # noqa: E402

from exporters import write_excel  # noqa: E402
from exporters._cells import EXCEL_CONVERTERS  # noqa: E402
from harness.schema import SHEETS, Sheet  # noqa: E402
from harness.store import Store  # noqa: E402

_CHUNK = 5_000
_WORDS = "credit risk liquidity leverage covenant revenue margin filing lawsuit rating outlook".split()
_EPOCH = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _value(kind: str, name: str, i: int) -> Any:
    if kind == "int":
        return i * 7 % 1000
    if kind == "float":
        return (i * 37 % 1000) / 7
    if kind == "datetime":
        return (_EPOCH + timedelta(milliseconds=i * 137)).isoformat(timespec="microseconds")
    if kind == "json":
        return {"tool": _WORDS[i % len(_WORDS)], "score": i % 97, "items": [i % 5, i % 7]}
    words = " ".join(_WORDS[(i + k) % len(_WORDS)] for k in range(4 + i % 6))
    if name in ("prompt", "response", "reasoning", "system_prompt", "user_prompt"):
        return (words + ". ") * 8
    return f"{name}-{i} {words}"


def fill_store(path: Path, total: int) -> Store:
    """A store holding ``total`` rows spread evenly over the sheets (reused if present)."""
    store = Store(path)
    per_sheet = total // len(SHEETS)
    if all(store.count(s.name) == per_sheet for s in SHEETS):
        return store
    for s in SHEETS:
        have = store.count(s.name)
        for start in range(have, per_sheet, 10_000):
            stop = min(per_sheet, start + 10_000)
            store.write(s, [
                {"row_key": f"{s.name}-{i}", **{c.name: _value(c.kind, c.name, i) for c in s.all_columns}}
                for i in range(start, stop)
            ])
    return store


def _converted_chunks(store: Store, sheet: Sheet):
    """The cells write_excel writes, a chunk at a time, read with a streaming cursor so the
    baseline's memory is xlsxwriter's alone."""
    converters = [EXCEL_CONVERTERS[c.kind] for c in sheet.all_columns]
    columns = ", ".join(f'"{n}"' for n in sheet.all_column_names)
    with closing(sqlite3.connect(store.path)) as conn:
        cursor = conn.execute(f'SELECT {columns} FROM "{sheet.name}" ORDER BY _seq')
        while records := cursor.fetchmany(_CHUNK):
            yield [[None if v is None else conv(v) for conv, v in zip(converters, record)] for record in records]


def run_raw(store: Store, out: Path) -> float:
    import xlsxwriter

    timed = 0.0
    wb = xlsxwriter.Workbook(str(out), {"constant_memory": True, "strings_to_formulas": False,
                                        "strings_to_urls": False, "strings_to_numbers": False})
    date_format = wb.add_format({"num_format": "yyyy-mm-dd hh:mm:ss.000"})
    for sheet in SHEETS:
        ws = wb.add_worksheet(sheet.name)
        for c, name in enumerate(sheet.all_column_names):
            ws.write_string(0, c, name)
        r = 0
        for chunk in _converted_chunks(store, sheet):
            t0 = time.perf_counter()
            for cells in chunk:
                r += 1
                for c, value in enumerate(cells):
                    if value is None:
                        continue
                    kind = type(value)
                    if kind is str:
                        ws.write_string(r, c, value)
                    elif kind is datetime:
                        ws.write_datetime(r, c, value, date_format)
                    else:
                        ws.write_number(r, c, value)
            timed += time.perf_counter() - t0
    t0 = time.perf_counter()
    wb.close()
    return timed + time.perf_counter() - t0


def run_read(store: Store) -> float:
    t0 = time.perf_counter()
    for sheet in SHEETS:
        for _ in store.rows(sheet, decode_json=False):
            pass
    return time.perf_counter() - t0


def run_ours(store: Store, out: Path) -> float:
    return write_excel(store, out).seconds


def compare_writers(rows: int) -> None:
    """openpyxl write_only vs xlsxwriter constant_memory on the same cells (runs sheet shape)."""
    import openpyxl
    import xlsxwriter

    sheet = SHEETS[0]
    conv = [(c.name, EXCEL_CONVERTERS[c.kind]) for c in sheet.all_columns]
    data = [[cv(_value(c.kind, c.name, i) if c.kind != "json" else json.dumps(_value(c.kind, c.name, i)))
             for c, (_, cv) in zip(sheet.all_columns, conv)] for i in range(rows)]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        wb = xlsxwriter.Workbook(f"{tmp}/x.xlsx", {"constant_memory": True, "strings_to_formulas": False})
        ws = wb.add_worksheet("runs")
        date_format = wb.add_format({"num_format": "yyyy-mm-dd hh:mm:ss.000"})
        for r, cells in enumerate(data, 1):
            for c, v in enumerate(cells):
                if type(v) is str:
                    ws.write_string(r, c, v)
                elif type(v) is datetime:
                    ws.write_datetime(r, c, v, date_format)
                else:
                    ws.write_number(r, c, v)
        wb.close()
        xlsx_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        owb = openpyxl.Workbook(write_only=True)
        ows = owb.create_sheet("runs")
        for cells in data:
            ows.append(cells)
        owb.save(f"{tmp}/o.xlsx")
        opx_s = time.perf_counter() - t0
    lxml = "with" if openpyxl.LXML else "without"
    print(f"{rows} rows x {len(sheet.all_columns)} columns: xlsxwriter constant_memory {xlsx_s:.2f}s, "
          f"openpyxl write_only ({lxml} lxml) {opx_s:.2f}s, openpyxl/xlsxwriter = {opx_s / xlsx_s:.2f}")


def _child(mode: str, store_path: str) -> None:
    store = Store(store_path)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.xlsx"
        seconds = {"raw": lambda: run_raw(store, out), "read": lambda: run_read(store),
                   "ours": lambda: run_ours(store, out)}[mode]()
    peak_mb = own_peak_mb()
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb}))


def _measure(mode: str, store_path: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, __file__, "--child", mode, "--store", str(store_path)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--store", type=Path, default=Path(tempfile.gettempdir()) / "bench_export.db")
    parser.add_argument("--repeat", type=int, default=1, help="measurements of each kind (medians)")
    parser.add_argument("--compare-writers", type=int, metavar="ROWS")
    parser.add_argument("--child", choices=("raw", "read", "ours"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, str(args.store))
        return
    if args.compare_writers:
        compare_writers(args.compare_writers)
        return
    t0 = time.perf_counter()
    fill_store(args.store, args.rows).close()
    print(f"store {args.store}: {args.rows} rows over {len(SHEETS)} sheets (ready in {time.perf_counter() - t0:.1f}s)")
    runs: dict[str, list[dict[str, float]]] = {"raw": [], "read": [], "ours": []}
    for _ in range(args.repeat):  # alternate, so a busy spell on the machine hits both
        for mode in ("raw", "ours", "read"):
            runs[mode].append(_measure(mode, args.store))
    results = {mode: {k: statistics.median(r[k] for r in rs) for k in ("seconds", "peak_mb")}
               for mode, rs in runs.items()}
    for mode, r in results.items():
        each = ", ".join(f"{x['seconds']:.1f}" for x in runs[mode])
        print(f"{mode:5s} {r['seconds']:8.2f}s  peak RSS {r['peak_mb']:7.1f} MB   (runs: {each} s)")
    raw, read, ours = results["raw"], results["read"], results["ours"]
    print(f"time   ours/raw = {ours['seconds'] / raw['seconds']:.2f}   "
          f"ours/(raw+read) = {ours['seconds'] / (raw['seconds'] + read['seconds']):.2f}")
    print(f"memory ours/raw = {ours['peak_mb'] / raw['peak_mb']:.2f}")


if __name__ == "__main__":
    main()
