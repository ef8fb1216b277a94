"""Score stored runs again with your own scorers, without running the graph: no run, model call or tool call is added; each run's pass follows its new scores.

Runs: an EXPERIMENT's, named ones (--run ID, its first 4+ characters), a --workflow's, those started --since a time, or the runs all the given ones agree on; inside experiments or not.
Examples: `harness rescore cand --scorer my_scorers:under_50_words`, `harness rescore --workflow support_bot --since 7d --scorer my_scorers:polite`, `harness rescore cand --delete draft_check`.
A scorer whose name a selected run already has scores of is refused unless --replace. --delete NAME removes that score from the runs first.
With --threads the scorers are thread scorers, functions of (thread, case) that judge a whole conversation: the
threads named with --thread (an id or its first 4+ characters), else those of EXPERIMENT, else every thread in the
store, e.g. `harness rescore --threads --thread user-42 --scorer my_scorers:resolved`. A thread's score is kept once,
on its last turn.
Exit 1 when a score could not be made (its error is stored, the run's pass is unknown) or
another command is rescoring the runs; 130 on Ctrl-C (what was written stays).
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_harness
from ._output import say


def command(
    experiment: Annotated[Optional[str], typer.Argument(
        metavar="[EXPERIMENT]", help="The experiment whose runs (or, with --threads, threads) are scored.")] = None,
    scorer: Annotated[Optional[list[str]], typer.Option(
        "--scorer", help="A scorer MODULE:FUNCTION, a function of (run, case), or with --threads of (thread, case) "
                         "(repeatable).")] = None,
    run: Annotated[Optional[list[str]], typer.Option(
        "--run", "--runs", help="A run id or its first 4+ characters (repeatable).")] = None,
    workflow: Annotated[Optional[list[str]], typer.Option(
        "--workflow", help="Runs of this workflow (repeatable).")] = None,
    since: Annotated[Optional[str], typer.Option(
        help="Runs started since: an ISO date or time (UTC unless it says), or an age (30m, 12h, 7d).")] = None,
    delete: Annotated[Optional[list[str]], typer.Option(
        "--delete", metavar="NAME", help="Delete the runs' score NAME first (repeatable).")] = None,
    threads: Annotated[bool, typer.Option("--threads", help="Score whole threads (conversations) with thread scorers.")] = False,
    thread: Annotated[Optional[list[str]], typer.Option("--thread", metavar="ID", help="With --threads: this thread (repeatable).")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Replace scores of the same name.")] = False,
    concurrency: Annotated[int, typer.Option(min=1, max=256, help="Scorers running at once.")] = 4,
    scorer_timeout: Annotated[float, typer.Option(
        min=0.001, help="Seconds a scorer may take per run; past it the score is an error (default 60).")] = 60.0,
    scorer_isolation: Annotated[str, typer.Option(
        help="thread (default) or process: each scorer call in a worker process, so one that crashes "
             "its process costs one error score.")] = "thread",
    store: Annotated[Optional[str], typer.Option(
        help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    from harness.experiment.errors import ExperimentError
    from harness.experiment.scorer_call import ScorerLimits
    from harness.experiment.scoring import Interrupted, delete_scores, rescore, scorers_of
    from harness.experiment.selection import RunSelection

    from .wrap import print_score_summary

    if thread and not threads:
        raise UsageError("--thread goes with --threads")
    if threads and (run or workflow or since is not None or delete):
        raise UsageError("--run, --workflow, --since and --delete choose runs, not threads: give them without "
                         "--threads")
    if not scorer and not delete:
        raise UsageError("give --scorer MODULE:FUNCTION to score the runs, or --delete NAME to remove a score")
    try:
        scorers = scorers_of(scorer)
        limits = ScorerLimits(scorer_timeout, scorer_isolation)
        selection = None if threads else RunSelection.of(experiment, runs=run, workflows=workflow, since=since)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    harness = open_harness(store)
    if threads:
        return _threads(harness, scorers, thread or None, experiment, replace, concurrency, limits)
    what = selection.describe()
    try:
        if delete:
            deleted, selected = delete_scores(harness.store, selection, delete)
            say(f"deleted {deleted} score(s) named {', '.join(delete)} from {what} ({selected} run(s)); their "
                f"pass follows", err=False, whole=True)
        if not scorers:
            return
        ids = selection.run_ids(harness.store)
        summary = rescore(harness, selection, scorers, replace=replace, concurrency=concurrency, limits=limits)
    except Interrupted as exc:  # Ctrl-C: the batches written stay; one line says what was not rescored
        say(f"harness: {exc}")
        raise typer.Exit(130) from None
    except ExperimentError as exc:
        busy = "being rescored by another command" in str(exc)
        raise UsageError(str(exc), code=1 if busy else 2) from None
    say(f"rescored {what}: {summary.runs} run(s), {summary.scores} score(s) written"
        f"{f', {summary.failed} could not be made' if summary.failed else ''}; store {harness.store.display}",
        err=False, whole=True)
    print_score_summary(harness.store, ids, only={s.name for s in scorers} if not summary.refused else None)
    _refused_and_failed(summary, "run(s)", "the runs")


def _threads(harness, scorers, names, experiment, replace, concurrency, limits) -> None:
    from harness.experiment.errors import ExperimentError
    from harness.experiment.scoring import Interrupted
    from harness.experiment.threads import rescore_threads

    from .wrap import print_score_summary

    try:
        summary = rescore_threads(harness, scorers, threads=names, experiment=experiment, replace=replace,
                                  concurrency=concurrency, limits=limits)
    except Interrupted as exc:
        say(f"harness: {exc}")
        raise typer.Exit(130) from None
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    say(f"scored {summary.runs} thread(s): {summary.scores} score(s) written"
        f"{f', {summary.failed} could not be made' if summary.failed else ''}; store {harness.store.display}",
        err=False, whole=True)
    thread_scores = [r for r in harness.store.rows("scores", columns=["run_id", "name", "scorer", "thread_id"])
                     if r["thread_id"] is not None and r["scorer"] in {s.spec for s in scorers}]
    print_score_summary(harness.store, list(dict.fromkeys(r["run_id"] for r in thread_scores)),
                        only={r["name"] for r in thread_scores})
    _refused_and_failed(summary, "thread(s)", "the threads' runs")


def _refused_and_failed(summary, units: str, kept: str) -> None:
    """The lines after a rescore's summary: scores not replaced, and those that could not be
    made (then exit 1: what was scored stays)."""
    if summary.refused:
        say(f"harness: not replaced (give --replace): "
            f"{', '.join(f'{n} on {k} {units}' for n, k in summary.refused.items())}")
    if summary.failed:
        say(f"harness: {summary.errors_line()}; {kept} and every other score are stored")
        raise typer.Exit(1)
