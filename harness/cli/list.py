"""List the newest runs in the store: id, when, workflow, subject, status, pass, time, tokens, cost, evaluation score, experiment and the run's own scores.

Examples: `harness list`, `harness list --status failed --limit 50`, `harness list --experiment baseline --json`.
Filters given several times keep the runs that match any of their values. `--limit 0` lists every run.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_store
from ._output import printable, show, show_json

_STATUSES = ("completed", "failed")


def command(
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL (default: $HARNESS_STORE or ./harness.db).")] = None,
    experiment: Annotated[Optional[list[str]], typer.Option("--experiment", help="Only runs of this experiment (repeatable).")] = None,
    workflow: Annotated[Optional[list[str]], typer.Option("--workflow", help="Only runs of this workflow (repeatable).")] = None,
    status: Annotated[Optional[list[str]], typer.Option("--status", help="Only runs with this status: completed or failed (repeatable).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many runs, newest first (0: all).")] = 20,
    json: Annotated[bool, typer.Option("--json", help="Print a JSON list of objects instead of a table.")] = False,
) -> None:
    from harness.view import list_runs
    from harness.view.text import RunsTable

    if limit < 0:
        raise UsageError(f"--limit must be 0 (all) or more, got {limit}")
    for value in status or []:
        if value not in _STATUSES:
            raise UsageError(f"--status must be {' or '.join(_STATUSES)}, got {value!r}")
    opened = open_store(store)
    try:
        rows = list_runs(opened, experiments=experiment or (), workflows=workflow or (), statuses=status or (),
                         limit=limit or None, scores=True)
    finally:
        opened.close()
    if json:
        show_json(rows)
        return
    if not rows:
        show("no runs match" if (experiment or workflow or status) else "no runs in the store yet")
        return
    more = f"the newest {len(rows)}; --limit N for more" if limit and len(rows) == limit else None
    show(RunsTable(printable(rows), caption=more))  # scrubbed before its columns are measured
