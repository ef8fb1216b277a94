"""Many runs from a few recorded ones: every row of template runs (their scores too) written
again under new run ids, with their own event, call and span ids, payloads marked with their
copy's number, timestamps moved on by a second a copy and run durations that vary, through
:meth:`Store.write` (for scale tests and benchmarks)."""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from harness.schema import EXTRA_SHEETS, SHEETS

#: Every sheet a run has rows in: the fifteen and the extra ones (its scores).
_ALL = (*SHEETS, *EXTRA_SHEETS)
from harness.store import Store

#: Columns holding ids that are unique per run (events, calls, spans): renamed in each copy.
_ID_COLUMNS = frozenset({"event_id", "parent_event_id", "llm_call_id", "tool_call_id", "parent_tool_id",
                         "trace_id", "span_id", "parent_span_id", "batch_id"})
#: Payloads given a mark of their copy, so no two copies say exactly the same thing.
_JSON_PAYLOADS = frozenset({"tool_input", "tool_output"})
_PAYLOAD_COLUMNS = _JSON_PAYLOADS | {"input_preview", "output_preview", "prompt", "response"}
_TIME_COLUMNS = frozenset(c.name for s in _ALL for c in s.all_columns if c.kind == "datetime")


def _templates(store: Store, run_ids: Sequence[str]) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {r: [] for r in run_ids}
    for s in _ALL:
        for row in store.rows(s, list(run_ids), decode_json=False):
            for column in _TIME_COLUMNS & row.keys():
                if isinstance(row[column], str):
                    row[column] = datetime.fromisoformat(row[column])
            out[row["run_id"]].append((s.name, row))
    return out


def copy_runs(store: Store, run_ids: Sequence[str], copies: int, *, seed: int = 7, batch: int = 200,
              experiments: Sequence[str | None] = (None,)) -> list[str]:
    """Write ``copies`` runs, cycling through the templates ``run_ids``; returns the new ids
    in the order written. Copy ``i`` belongs to ``experiments[i % len(experiments)]``."""
    templates = _templates(store, run_ids)
    rnd = random.Random(seed)
    new_ids: list[str] = []
    pending: dict[str, list[dict[str, Any]]] = {s.name: [] for s in _ALL}
    for i in range(copies):
        template = run_ids[i % len(run_ids)]
        run_id = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
        new_ids.append(run_id)
        shift = timedelta(seconds=i)
        stretch = rnd.uniform(0.6, 1.6)
        experiment = experiments[i % len(experiments)]
        renamed: dict[str, str] = {}
        for n, (sheet, row) in enumerate(templates[template]):
            copy = dict(row, run_id=run_id, row_key=f"{run_id}:{sheet}:{n}")
            for column in _ID_COLUMNS & copy.keys():
                if copy[column]:
                    copy[column] = renamed.setdefault(copy[column], uuid.uuid4().hex)
            for column in _TIME_COLUMNS & copy.keys():
                if isinstance(copy[column], datetime):
                    copy[column] = (copy[column] + shift).isoformat(timespec="microseconds")
            for column in _PAYLOAD_COLUMNS & copy.keys():  # every copy says something of its own
                if isinstance(copy[column], str):
                    copy[column] = (f'{{"copy":{i},"value":{copy[column]}}}' if column in _JSON_PAYLOADS
                                    else f"#{i} {copy[column]}")
            if sheet == "runs":
                copy["total_time_ms"] = (copy["total_time_ms"] or 0.0) * stretch
                copy["experiment"] = experiment
                copy["case_id"] = f"case-{i // len(experiments) % 50}" if experiment else None
            pending[sheet].append(copy)
        if (i + 1) % batch == 0 or i + 1 == copies:
            failed = {name: outcome for name, outcome in store.write_many(pending).items()
                      if isinstance(outcome, Exception)}
            if failed:
                raise RuntimeError(f"copies not written: {failed}")
            pending = {s.name: [] for s in _ALL}
    return new_ids
