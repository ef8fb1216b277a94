"""Score an experiment's stored runs again with your own scorers, without running the graph: no run, model call or tool call is added; each run's pass follows its new scores.

Example: `harness rescore cand --scorer my_scorers:under_50_words --scorer my_scorers:refund_amount`.
A scorer whose name the experiment already has scores of is refused unless --replace.
Exit 1 when a score could not be made (its error is stored, the run's pass is unknown) or
another command is rescoring the experiment; 130 on Ctrl-C (what was written stays).
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_harness
from ._output import say


def command(
    experiment: Annotated[str, typer.Argument(metavar="EXPERIMENT", help="The experiment whose runs are scored.")],
    scorer: Annotated[list[str], typer.Option(
        "--scorer", help="A scorer MODULE:FUNCTION, a function of (run, case) (repeatable).")],
    replace: Annotated[bool, typer.Option("--replace", help="Replace scores of the same name.")] = False,
    concurrency: Annotated[int, typer.Option(min=1, max=256, help="Scorers running at once.")] = 4,
    scorer_timeout: Annotated[float, typer.Option(
        min=0.001, help="Seconds a scorer may take per run; past it the score is an error (default 60).")] = 60.0,
    scorer_isolation: Annotated[str, typer.Option(
        help="thread (default) or process: each scorer call in a worker process, so one that crashes "
             "its process costs one error score.")] = "thread",
    store: Annotated[Optional[str], typer.Option(help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    from harness.experiment.errors import ExperimentError
    from harness.experiment.scorer_call import ScorerLimits
    from harness.experiment.scoring import Interrupted, rescore, scorers_of

    from .wrap import print_score_summary

    try:
        scorers = scorers_of(scorer)
        limits = ScorerLimits(scorer_timeout, scorer_isolation)
    except ExperimentError as exc:
        raise UsageError(str(exc)) from None
    harness = open_harness(store)
    try:
        summary = rescore(harness, experiment, scorers, replace=replace, concurrency=concurrency, limits=limits)
    except Interrupted as exc:  # Ctrl-C: the batches written stay; one line says what was not rescored
        say(f"harness: {exc}")
        raise typer.Exit(130) from None
    except ExperimentError as exc:
        busy = "being rescored by another command" in str(exc)
        raise UsageError(str(exc), code=1 if busy else 2) from None
    say(f"rescored experiment {experiment}: {summary.runs} run(s), {summary.scores} score(s) written"
        f"{f', {summary.failed} could not be made' if summary.failed else ''}; store {harness.store.display}",
        err=False, whole=True)
    ids = [r["run_id"] for r in harness.store.rows("runs", columns=["run_id"], where={"experiment": experiment})]
    print_score_summary(harness.store, ids, only={s.name for s in scorers} if not summary.refused else None)
    if summary.refused:
        say(f"harness: not replaced (give --replace): "
            f"{', '.join(f'{n} on {k} run(s)' for n, k in summary.refused.items())}")
    if summary.failed:
        say(f"harness: {summary.errors_line()}; the runs and every other score are stored")
        raise typer.Exit(1)
