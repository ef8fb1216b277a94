"""Batches: runs are stored in input order, whatever order they finish in."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from workflows import PROVIDERS, SnapshotSources
from workflows._batch import BatchSettings, run_batch


class SlowFor:
    """The bundled snapshots, answering one company only once the others' runs are done (so
    its runs finish last however loaded the machine is)."""

    name = "snapshots"

    def __init__(self, slow: str, others_done: threading.Event) -> None:
        self.snapshots, self.slow, self.others_done = SnapshotSources(), slow, others_done

    def lookup(self, query: str) -> list[dict[str, Any]]:
        return self.snapshots.lookup(query)

    def fetch(self, source: str, company: Mapping[str, Any]) -> dict[str, Any]:
        if company.get("company_name") == self.slow:
            assert self.others_done.wait(60), "the other companies' runs never finished"
        return self.snapshots.fetch(source, company)


def first_seen(rows: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(r["run_id"] for r in rows))


def test_rows_of_a_batch_are_stored_in_input_order_not_finishing_order(harness):
    companies = ["Acme Corp", "Contoso Ltd", "Sakura Robotics"]
    others_done, finished = threading.Event(), []

    def on_done(outcome):
        finished.append(outcome.company)
        if sum(c != "Acme Corp" for c in finished) == 4:
            others_done.set()

    settings = BatchSettings(provider=PROVIDERS["offline"], model="offline-analyst-1", repeats=2,
                             sources=SlowFor("Acme Corp", others_done))
    outcomes = run_batch(harness, companies, settings, on_done=on_done)
    order = [o.run_id for o in outcomes]
    assert [(o.company, o.repeat) for o in outcomes] == [(c, r) for c in companies for r in range(2)]
    runs = list(harness.store.rows("runs"))
    assert [r["run_id"] for r in runs] == order
    assert max(r["completed_at"] for r in runs[2:]) < min(r["completed_at"] for r in runs[:2])  # Acme finished last
    for sheet in ("llm_calls", "tool_calls", "langgraph_events", "evaluations", "log_tests"):
        assert first_seen(list(harness.store.rows(sheet))) == order, sheet
