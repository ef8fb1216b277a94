"""Copy runs from one store to another (SQLite and PostgreSQL, either way), idempotently.

Rows travel as they are stored (row key included, JSON as its text), sheet by sheet in
pages, so memory stays flat; the destination skips every row whose key it has, so copying
again copies nothing twice and a copy cut short resumes. The runs' experiment records and
saved assessments go with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..schema import ALL_SHEET_NAMES
from .base import Store
from .threads import renumber

BATCH_ROWS = 2_000
_RUN_CHUNK = 500  # run ids per read


@dataclass
class Copied:
    runs: int = 0  # runs selected in the source
    rows: dict[str, int] = field(default_factory=dict)  # sheet -> rows the destination did not have
    experiments: int = 0

    @property
    def total_rows(self) -> int:
        return sum(self.rows.values())


def copy_runs(source: Store, target: Store, run_ids: Sequence[str] | None = None,
              experiments: Sequence[str] | None = None) -> Copied:
    """Copy the runs ``run_ids`` (default: every run; ``experiments``: the runs of these) of
    ``source`` into ``target``; returns what was new there."""
    if experiments:
        found = [r["run_id"] for r in source.rows("runs", columns=["run_id"], where={"experiment": list(experiments)})]
        run_ids = found if run_ids is None else [r for r in run_ids if r in set(found)]
    ids = list(run_ids) if run_ids is not None else None
    copied = Copied(runs=len(ids) if ids is not None else source.count("runs"))
    for sheet in ALL_SHEET_NAMES:
        copied.rows[sheet] = 0
        for chunk in _chunks(ids):
            batch: list[dict] = []
            for row in source.rows(sheet, chunk, with_keys=True, decode_json=False):
                batch.append(row)
                if len(batch) >= BATCH_ROWS:
                    copied.rows[sheet] += target.write(sheet, batch)
                    batch = []
            if batch:
                copied.rows[sheet] += target.write(sheet, batch)
        if sheet == "runs":  # their turns in the target's threads, which may hold other runs of them
            threads = {r["thread_id"] for chunk in _chunks(ids)
                       for r in source.rows("runs", chunk, columns=["thread_id"]) if r["thread_id"] is not None}
            if threads:
                with target.transaction():
                    renumber(target, sorted(threads))
    names = set(experiments or ())
    if ids is None or not experiments:
        names |= {r["experiment"] for chunk in _chunks(ids)
                  for r in source.rows("runs", chunk, columns=["experiment"]) if r["experiment"]}
    for name in sorted(names):
        record = source.experiment_record(name)
        if record is not None:
            mine = target.experiment_record(name)
            if mine is None or mine != record:
                merged = {**record, **({} if mine is None else {"shards": sorted(
                    {tuple(s) for s in (mine.get("shards") or []) + (record.get("shards") or [])})})}
                target.save_experiment(name, merged)
                copied.experiments += 1
    for chunk in _chunks(ids):
        for run_id in chunk if chunk is not None else source.run_ids():
            assessment = source.assessment(run_id)
            if assessment is not None and target.assessment(run_id) is None:
                target.upsert_assessment(run_id, assessment.get("company_name") or "", assessment,
                                         str(assessment.get("updated_at") or ""))
    return copied


def _chunks(ids: list[str] | None):
    if ids is None:
        yield None
        return
    for start in range(0, len(ids), _RUN_CHUNK):
        yield ids[start:start + _RUN_CHUNK]


__all__ = ["Copied", "copy_runs"]
