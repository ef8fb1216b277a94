"""Label a run with a person's judgement: NAME=true or NAME=false is a pass/fail label that gates the run; NAME=NUMBER is a value.

Examples: `harness label 3f2a9c1e helpful=true --comment "answers the question"`, `harness label 3f2a9c1e tone=4`.
RUN is a run id or its first 4+ characters. A label replaces an earlier label of the same name; it never takes the name of a check's or a scorer's score.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_harness
from ._output import say


def command(
    run: Annotated[str, typer.Argument(metavar="RUN", help="A run id or its first 4+ characters.")],
    assignment: Annotated[str, typer.Argument(metavar="NAME=VALUE", help="The label: true/false, or a number.")],
    comment: Annotated[Optional[str], typer.Option(help="Why, in words (shown with the label).")] = None,
    store: Annotated[Optional[str], typer.Option(help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    from harness.store import RunIdError

    name, sep, value = assignment.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise UsageError(f"a label is NAME=VALUE (e.g. helpful=true or tone=4), not {assignment!r}")
    harness = open_harness(store)
    try:
        row = harness.label(run, name, value, comment=comment)
    except (RunIdError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    verdict = {1: "pass", 0: "fail"}.get(row["passed"], f"value {row['value']:g}")
    passed = next(iter(harness.store.rows("runs", [row["run_id"]], columns=["passed"])), {}).get("passed")
    say(f"run {row['run_id']}: label {row['name']} = {verdict}{f' ({comment})' if comment else ''}; the run "
        f"{'passes' if passed else 'does not pass' if passed == 0 else 'has no pass'}", err=False)
