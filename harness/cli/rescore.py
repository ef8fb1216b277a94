"""Score stored runs again with your own scorers, without running the graph: no run, model call or tool call is added; each run's pass follows its new scores.

Runs: an EXPERIMENT's, named ones (--run ID, its first 4+ characters), a --workflow's, those started --since a time, or the runs all the given ones agree on; inside experiments or not.
Examples: `harness rescore cand --scorer my_scorers:under_50_words`, `harness rescore --workflow support_bot --since 7d --scorer my_scorers:polite`, `harness rescore cand --delete draft_check`.
A scorer whose name a selected run already has scores of is refused unless --replace. --delete NAME removes that score from the runs first.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_harness
from ._output import say


def command(
    experiment: Annotated[Optional[str], typer.Argument(
        metavar="[EXPERIMENT]", help="The experiment whose runs are scored.")] = None,
    scorer: Annotated[Optional[list[str]], typer.Option(
        "--scorer", help="A scorer MODULE:FUNCTION, a function of (run, case) (repeatable).")] = None,
    run: Annotated[Optional[list[str]], typer.Option(
        "--run", "--runs", help="A run id or its first 4+ characters (repeatable).")] = None,
    workflow: Annotated[Optional[list[str]], typer.Option(
        "--workflow", help="Runs of this workflow (repeatable).")] = None,
    since: Annotated[Optional[str], typer.Option(
        help="Runs started since: an ISO date or time (UTC unless it says), or an age (30m, 12h, 7d).")] = None,
    delete: Annotated[Optional[list[str]], typer.Option(
        "--delete", metavar="NAME", help="Delete the runs' score NAME first (repeatable).")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Replace scores of the same name.")] = False,
    concurrency: Annotated[int, typer.Option(min=1, max=256, help="Scorers running at once.")] = 4,
    store: Annotated[Optional[str], typer.Option(
        help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    from harness.experiment.errors import ExperimentError
    from harness.experiment.scoring import delete_scores, rescore, scorers_of
    from harness.experiment.selection import RunSelection

    from .wrap import print_score_summary

    if not scorer and not delete:
        raise UsageError("give --scorer MODULE:FUNCTION to score the runs, or --delete NAME to remove a score")
    try:
        scorers = scorers_of(scorer)
        selection = RunSelection.of(experiment, runs=run, workflows=workflow, since=since)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    harness = open_harness(store)
    what = selection.describe()
    try:
        if delete:
            deleted, selected = delete_scores(harness.store, selection, delete)
            say(f"deleted {deleted} score(s) named {', '.join(delete)} from {what} ({selected} run(s)); their "
                f"pass follows", err=False, whole=True)
        if not scorers:
            return
        ids = selection.run_ids(harness.store)
        summary = rescore(harness, selection, scorers, replace=replace, concurrency=concurrency)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    say(f"rescored {what}: {summary.runs} run(s), {summary.scores} score(s) written"
        f"{f', {summary.failed} could not be made' if summary.failed else ''}; store {harness.store.display}",
        err=False, whole=True)
    print_score_summary(harness.store, ids, only={s.name for s in scorers} if not summary.refused else None)
    if summary.refused:
        say(f"harness: not replaced (give --replace): "
            f"{', '.join(f'{n} on {k} run(s)' for n, k in summary.refused.items())}")
