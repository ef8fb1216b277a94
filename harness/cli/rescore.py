"""Score an experiment's stored runs again with your own scorers, without running the graph: no run, model call or tool call is added; each run's pass follows its new scores.

Example: `harness rescore cand --scorer my_scorers:under_50_words --scorer my_scorers:refund_amount`.
A scorer whose name the experiment already has scores of is refused unless --replace.
With --threads the scorers are thread scorers, functions of (thread, case) that judge a whole conversation: the
threads named with --thread (an id or its first 4+ characters), else those of EXPERIMENT, else every thread in the
store, e.g. `harness rescore --threads --thread user-42 --scorer my_scorers:resolved`. A thread's score is kept once,
on its last turn.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_harness
from ._output import say


def command(
    experiment: Annotated[Optional[str], typer.Argument(metavar="EXPERIMENT", help="The experiment whose runs (or, with --threads, threads) are scored.")] = None,
    scorer: Annotated[Optional[list[str]], typer.Option(
        "--scorer", help="A scorer MODULE:FUNCTION, a function of (run, case), or with --threads of (thread, case) (repeatable).")] = None,
    threads: Annotated[bool, typer.Option("--threads", help="Score whole threads (conversations) with thread scorers.")] = False,
    thread: Annotated[Optional[list[str]], typer.Option("--thread", metavar="ID", help="With --threads: this thread (repeatable).")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Replace scores of the same name.")] = False,
    concurrency: Annotated[int, typer.Option(min=1, max=256, help="Scorers running at once.")] = 4,
    store: Annotated[Optional[str], typer.Option(help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    from harness.experiment.errors import ExperimentError
    from harness.experiment.scoring import rescore, scorers_of

    from .wrap import print_score_summary

    if not scorer:
        raise UsageError("give at least one --scorer MODULE:FUNCTION")
    if thread and not threads:
        raise UsageError("--thread goes with --threads")
    if experiment is None and not threads:
        raise UsageError("give the EXPERIMENT whose runs to score (or --threads to score threads)")
    try:
        scorers = scorers_of(scorer)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    harness = open_harness(store)
    if threads:
        return _threads(harness, scorers, thread or None, experiment, replace, concurrency)
    try:
        summary = rescore(harness, experiment, scorers, replace=replace, concurrency=concurrency)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    say(f"rescored experiment {experiment}: {summary.runs} run(s), {summary.scores} score(s) written"
        f"{f', {summary.failed} could not be made' if summary.failed else ''}; store {harness.store.display}",
        err=False, whole=True)
    ids = [r["run_id"] for r in harness.store.rows("runs", columns=["run_id"], where={"experiment": experiment})]
    print_score_summary(harness.store, ids, only={s.name for s in scorers} if not summary.refused else None)
    if summary.refused:
        say(f"harness: not replaced (give --replace): "
            f"{', '.join(f'{n} on {k} run(s)' for n, k in summary.refused.items())}")


def _threads(harness, scorers, names, experiment, replace, concurrency) -> None:
    from harness.experiment.errors import ExperimentError
    from harness.experiment.threads import rescore_threads

    from .wrap import print_score_summary

    try:
        summary = rescore_threads(harness, scorers, threads=names, experiment=experiment, replace=replace,
                                  concurrency=concurrency)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    say(f"scored {summary.runs} thread(s): {summary.scores} score(s) written"
        f"{f', {summary.failed} could not be made' if summary.failed else ''}; store {harness.store.display}",
        err=False, whole=True)
    thread_scores = [r for r in harness.store.rows("scores", columns=["run_id", "name", "scorer", "thread_id"])
                     if r["thread_id"] is not None and r["scorer"] in {s.spec for s in scorers}]
    print_score_summary(harness.store, list(dict.fromkeys(r["run_id"] for r in thread_scores)),
                        only={r["name"] for r in thread_scores})
    for error in summary.errors[:1]:
        say(f"harness: e.g. {error}")
    if summary.refused:
        say(f"harness: not replaced (give --replace): "
            f"{', '.join(f'{n} on {k} thread(s)' for n, k in summary.refused.items())}")
