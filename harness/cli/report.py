"""Write one self-contained HTML report to look through runs: a sortable, filterable run list with each run's pass, each run's waterfall (nodes, LLM and tool calls on a time axis) and scores, experiment summaries, and a compare view of any two experiments case by case.

Examples: `harness report`, `harness report --experiment baseline --experiment candidate --out compare.html` (the compare view opens on baseline → candidate, with the statistics of `harness compare baseline candidate`), `harness report --run 3f2a9c1e --run 77b0`.
Without --run or --experiment the report holds the newest runs of the store (at most --limit). The compare view pairs the report's 12 newest experiments (or the first 12 named), every ordered pair compared as `harness compare` does. The file needs no network: open it in any browser, or mail it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ._errors import UsageError
from ._open import open_store, run_ids
from ._output import say
from ._paths import writable_file


def command(
    store: Annotated[Optional[str], typer.Option(help="Store path or sqlite:/// URL (default: $HARNESS_STORE or ./harness.db).")] = None,
    experiment: Annotated[Optional[list[str]], typer.Option("--experiment", help="Runs of this experiment (repeatable).")] = None,
    run: Annotated[Optional[list[str]], typer.Option("--run", help="This run: an id or its first 4+ characters (repeatable).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many runs, the newest (0: all).")] = 10_000,
    out: Annotated[Path, typer.Option(help="The HTML file to write.")] = Path("report.html"),
) -> None:
    from harness.outputs import NotAFile
    from harness.view import list_runs, write_report

    if limit < 0:
        raise UsageError(f"--limit must be 0 (all) or more, got {limit}")
    writable_file(out, "--out")
    opened = open_store(store)
    try:
        ids = run_ids(opened, run) if run else []
        if not list_runs(opened, limit=1):
            raise UsageError("nothing to report: the store has no runs")
        missing = [e for e in experiment or [] if not list_runs(opened, experiments=[e], limit=1)]
        if missing:
            raise UsageError(f"no runs of experiment {', '.join(map(repr, missing))} in the store")
        from harness.experiment.compare import ExperimentRuns, compare_experiments

        read: dict[str, ExperimentRuns] = {}  # every pair is compared: each experiment is read once

        def compare(a: str, b: str) -> dict[str, Any]:
            """What `harness compare A B --json` prints, for the report's compare view."""
            return compare_experiments(opened, a, b, read=read).to_dict()

        from harness.experiment.agreement import remembered
        from harness.experiment.instruments import agreements

        try:
            judges = agreements(opened, list(remembered(opened)))  # what harness agreement measured
            report = write_report(opened, out, run_ids=ids, experiments=experiment or (), limit=limit or None,
                                  compare=compare, agreements=judges)
        except (OSError, NotAFile) as exc:
            raise UsageError(f"cannot write {str(out)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    finally:
        opened.close()
    cut = f" (the newest of {report.selected:,}; --limit to change)" if report.selected > report.runs else ""
    size = f"{report.bytes / 1e6:.1f} MB" if report.bytes >= 1e6 else f"{max(1, round(report.bytes / 1e3))} KB"
    say(f"wrote {report.path}: {report.runs:,} runs{cut}, {size} in {report.seconds:.1f}s", whole=True)
