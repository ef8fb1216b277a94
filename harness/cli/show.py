"""Show one run as a tree: nodes, their model and tool calls, in the order they happened, with a timeline, errors and the run's scores.

RUN is a run id or its first 4+ characters (as `harness list` prints them), e.g. `harness show 3f2a9c1e`.
`--json` prints {"run": {...}, "tree": [...], "scores": {...}} with inputs and outputs in full and each failed
entry's traceback.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._open import open_store, run_ids
from ._output import printable, show, show_json


def command(
    run: Annotated[str, typer.Argument(metavar="RUN", help="A run id or its first 4+ characters.")],
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL (default: $HARNESS_STORE or ./harness.db).")] = None,
    json: Annotated[bool, typer.Option("--json", help="Print the run, its tree and its scores as JSON.")] = False,
) -> None:
    from harness.view import load_run
    from harness.view.text import run_tree

    opened = open_store(store)
    try:
        view = load_run(opened, run_ids(opened, [run])[0])
    finally:
        opened.close()
    if json:
        show_json(view.to_dict())
    else:
        show(run_tree(printable(view)))  # scrubbed before the tree measures and cuts it
