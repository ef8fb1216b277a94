"""Stores filled straight from ``harness.schema`` (no workflow), and a local Sheets API."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from exporters import SheetsPolicy
from harness.schema import SHEETS, Sheet
from harness.store import Store
from tests.support.sheets_server import SheetsServer

#: Text that a spreadsheet would evaluate or convert if it were not stored as text.
TRICKY_TEXT = ("=SUM(A1:A2)", "+1", "-5", "@cmd", "\tindent", "\rcarriage", "007", "NA", "", "naïve ✓ 𝄞")
_START = datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc)


def value_for(sheet: Sheet, kind: str, name: str, run: int, i: int) -> Any:
    """A deterministic value of ``kind`` that varies by column, run and row."""
    seed = run * 1000 + i
    if kind == "int":
        return -seed if name.endswith("depth") else seed * 3
    if kind == "float":
        return seed / 7 - 2.5
    if kind == "datetime":
        return (_START + timedelta(seconds=seed, microseconds=123_000)).isoformat(timespec="microseconds")
    if kind == "json":
        return {"sheet": sheet.name, "row": i, "tools": ["sec_edgar", "web_search"], "ok": True}
    if name in ("eval_status",):
        return ("good", "average", "bad")[seed % 3]
    if name in ("verification_status",):
        return ("pass", "partial", "fail")[seed % 3]
    if name == "run_id":
        return f"run-{run}"
    return TRICKY_TEXT[(seed + len(name)) % len(TRICKY_TEXT)] if i % 2 else f"{name} {run}.{i}"


def make_rows(sheet: Sheet, run: int, count: int) -> list[dict[str, Any]]:
    """Rows with every column of ``sheet`` set (one column left empty, to cover None)."""
    rows = []
    for i in range(count):
        row = {c.name: value_for(sheet, c.kind, c.name, run, i) for c in sheet.all_columns}
        row[sheet.all_columns[-1].name] = None
        row["row_key"] = f"{sheet.name}:{run}:{i}"
        rows.append(row)
    return rows


def fill(store: Store, run: int, per_sheet: dict[str, int] | int = 3) -> None:
    """Add run ``run`` with ``per_sheet`` rows in each sheet (a count, or counts by name)."""
    for sheet in SHEETS:
        count = per_sheet if isinstance(per_sheet, int) else per_sheet.get(sheet.name, 0)
        if count:
            store.write(sheet, make_rows(sheet, run, count))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "runs.db")
    yield opened
    opened.close()


@pytest.fixture
def filled(store: Store) -> Store:
    """Two runs: run-1 with 3 rows in every sheet, run-2 with 2 rows in a few."""
    fill(store, 1)
    fill(store, 2, {"runs": 1, "tool_calls": 2, "evaluations": 2, "log_tests": 1})
    return store


@pytest.fixture
def sheets_server() -> Iterator[SheetsServer]:
    with SheetsServer() as server:
        yield server


@pytest.fixture
def policy() -> SheetsPolicy:
    """Real retries and pacing, with waits short enough for tests (and a timeout long
    enough that a busy machine does not add retries the tests do not expect)."""
    return SheetsPolicy(initial_wait=0.01, max_wait=0.05, jitter=0.01, timeout=10.0)
