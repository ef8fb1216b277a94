"""List the conversations in the store: one line per LangGraph thread (its runs with one thread_id), with its turns, the status its last turn left it in (completed, waiting for a person's answer to an interrupt, failed), when it started and last ended, its time, tokens and cost (the sums of its runs') and pass.

Examples: `harness threads`, `harness threads --status waiting`, `harness threads --experiment base --json`.
`harness show --thread ID` shows one conversation turn by turn. Filters given several times keep the threads
that match any of their values. `--limit 0` lists every thread.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_store
from ._output import printable, show, show_json


def command(
    store: Annotated[Optional[str], typer.Option(help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
    experiment: Annotated[Optional[list[str]], typer.Option("--experiment", help="Only threads of this experiment (repeatable).")] = None,
    workflow: Annotated[Optional[list[str]], typer.Option("--workflow", help="Only threads of this workflow (repeatable).")] = None,
    status: Annotated[Optional[list[str]], typer.Option("--status", help="Only threads in this state: completed, waiting or failed (repeatable).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many threads, most recently active first (0: all).")] = 20,
    json: Annotated[bool, typer.Option("--json", help="Print a JSON list of objects instead of a table.")] = False,
) -> None:
    from evaluators import THREAD_STATUSES
    from harness.view.thread_text import threads_table
    from harness.view.threads import list_threads

    if limit < 0:
        raise UsageError(f"--limit must be 0 (all) or more, got {limit}")
    for value in status or []:
        if value not in THREAD_STATUSES:
            raise UsageError(f"--status must be {', '.join(THREAD_STATUSES[:-1])} or {THREAD_STATUSES[-1]}, "
                             f"got {value!r}")
    opened = open_store(store)
    try:
        found = list_threads(opened, experiments=experiment or (), workflows=workflow or (),
                             statuses=status or (), limit=limit or None)
    finally:
        opened.close()
    rows = [t.to_dict() for t in found]
    if json:
        show_json(rows)
        return
    if not rows:
        show("no threads match" if (experiment or workflow or status) else
             "no threads in the store yet (a run has a thread when its config names a thread_id)")
        return
    more = f"the {len(rows)} most recently active; --limit N for more" if limit and len(rows) == limit else None
    show(threads_table(printable(rows), caption=more))
