"""Show one run as a tree: nodes, their model and tool calls, in the order they happened, with a timeline, errors and the run's scores.

RUN is a run id or its first 4+ characters (as `harness list` prints them), e.g. `harness show 3f2a9c1e`.
`--json` prints {"run": {...}, "tree": [...], "scores": {...}} with inputs and outputs in full and each failed
entry's traceback.
`harness show --thread ID` shows a conversation instead: each turn's input (or the answer it resumed with), the
question it stopped at, its output, status, tokens and run id, then the thread's scores; with `--json`,
{"thread": {...}, "turns": [...], "scores": [...]}.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_store, run_ids
from ._output import printable, show, show_json


def command(
    run: Annotated[Optional[str], typer.Argument(metavar="RUN", help="A run id or its first 4+ characters.")] = None,
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL (default: $HARNESS_STORE or ./harness.db).")] = None,
    json: Annotated[bool, typer.Option("--json", help="Print the run, its tree and its scores as JSON.")] = False,
    thread: Annotated[Optional[str], typer.Option("--thread", metavar="ID", help="Show this thread (a thread id or its first 4+ characters) turn by turn instead of one run.")] = None,
) -> None:
    from harness.view import load_run
    from harness.view.text import run_tree

    if (run is None) == (thread is None):
        raise UsageError("give a RUN or --thread ID (harness list and harness threads list them)")
    if thread is not None:
        return _show_thread(thread, store, json)
    opened = open_store(store)
    try:
        view = load_run(opened, run_ids(opened, [run])[0])
    finally:
        opened.close()
    if json:
        show_json(view.to_dict())
    else:
        show(run_tree(printable(view)))  # scrubbed before the tree measures and cuts it


def _show_thread(thread: str, store: str | None, json: bool) -> None:
    from harness.view.thread_text import thread_text
    from harness.store import ThreadIdError, resolve_thread_id
    from harness.view.threads import load_thread

    opened = open_store(store)
    try:
        view = load_thread(opened, resolve_thread_id(opened, thread))
    except ThreadIdError as exc:
        raise UsageError(str(exc)) from None
    finally:
        opened.close()
    if json:
        show_json(view.to_dict())
    else:
        show(thread_text(printable(view)))
