"""Label a run with a person's judgement: NAME=true or NAME=false is a pass/fail label that gates the run; NAME=NUMBER is a value.

Examples: `harness label 3f2a9c1e helpful=true --comment "answers the question"`, `harness label 3f2a9c1e tone=4 --by alice`.
RUN is a run id or its first 4+ characters. A label replaces an earlier label of the same name by the same person (--by); labels by different people stand side by side, for `harness agreement`. It never takes the name of a check's or a scorer's score.
By the file: `harness label --queue EXP --name helpful --n 20 --out queue.jsonl` writes the runs most worth a look (judge and rule disagree, failures, the judge near its threshold, then a random sample) with their input, output and scores; fill in each `"label": {"helpful": null}` with true, false or a number, then `harness label --import queue.jsonl --by alice`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._errors import UsageError
from ._open import open_harness
from ._output import say


def command(
    run: Annotated[Optional[str], typer.Argument(metavar="RUN", help="A run id or its first 4+ characters.")] = None,
    assignment: Annotated[Optional[str], typer.Argument(metavar="NAME=VALUE", help="The label: true/false, or a number.")] = None,
    comment: Annotated[Optional[str], typer.Option(help="Why, in words (shown with the label).")] = None,
    by: Annotated[Optional[str], typer.Option(help="Who labels (labels by several people stand side by side).")] = None,
    queue: Annotated[Optional[list[str]], typer.Option(
        "--queue", metavar="EXP", help="Write the runs of this experiment (repeatable) most worth labelling to "
                                       "--out.")] = None,
    name: Annotated[Optional[str], typer.Option(help="With --queue: the label to fill in.")] = None,
    n: Annotated[int, typer.Option("--n", help="With --queue: how many runs.")] = 20,
    score: Annotated[Optional[str], typer.Option(
        help="With --queue: the judge's score (default: the experiment's judge scores).")] = None,
    threshold: Annotated[Optional[float], typer.Option(
        help="With --queue: the judge's threshold (default: where its passes turn).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="With --queue: the JSONL file to write.")] = None,
    import_file: Annotated[Optional[Path], typer.Option(
        "--import", metavar="FILE", help="Store the labels filled in a queue file.")] = None,
    store: Annotated[Optional[str], typer.Option(help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    modes = sum(x is not None for x in (queue, import_file)) + (run is not None or assignment is not None)
    if modes != 1:
        raise UsageError("give RUN NAME=VALUE, or --queue EXP (with --name and --out), or --import FILE")
    if queue is not None:
        _queue(queue, name=name, n=n, score=score, threshold=threshold, out=out, by=by, store=store)
    elif import_file is not None:
        _import(import_file, by=by, store=store)
    else:
        _one(run, assignment, comment=comment, by=by, store=store)


def _one(run: str | None, assignment: str | None, *, comment: str | None, by: str | None, store: str | None) -> None:
    from harness.store import RunIdError

    if run is None or assignment is None:
        raise UsageError("a label is RUN NAME=VALUE (e.g. 3f2a9c1e helpful=true)")
    name, sep, value = assignment.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise UsageError(f"a label is NAME=VALUE (e.g. helpful=true or tone=4), not {assignment!r}")
    harness = open_harness(store)
    try:
        row = harness.label(run, name, value, comment=comment, by=by)
    except (RunIdError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    verdict = {1: "pass", 0: "fail"}.get(row["passed"], f"value {row['value']:g}")
    passed = next(iter(harness.store.rows("runs", [row["run_id"]], columns=["passed"])), {}).get("passed")
    who = f" by {by}" if by else ""
    say(f"run {row['run_id']}: label {row['name']} = {verdict}{who}{f' ({comment})' if comment else ''}; the run "
        f"{'passes' if passed else 'does not pass' if passed == 0 else 'has no pass'}", err=False)


def _queue(experiments: list[str], *, name: str | None, n: int, score: str | None, threshold: float | None,
           out: Path | None, by: str | None, store: str | None) -> None:
    from collections import Counter

    from harness.experiment.errors import ExperimentError
    from harness.experiment.labelling import queue, write_queue

    from ._paths import writable_file

    if name is None or out is None:
        raise UsageError("--queue needs --name (the label to fill in) and --out (a .jsonl file)")
    writable_file(out, "--out", ".jsonl")
    harness = open_harness(store)
    harness.flush()
    try:
        lines = queue(harness.store, experiments, name=name, n=n, score=score, threshold=threshold, by=by)
    except (ExperimentError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    try:
        write_queue(lines, out)
    except (OSError, ValueError) as exc:  # ValueError: the path became no file since it was checked
        raise UsageError(f"cannot write {str(out)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    reasons = Counter(line["picked"] for line in lines)
    said = "; ".join(f"{why}: {count}" for why, count in reasons.items())
    say(f"wrote {out}: {len(lines)} run(s) of {', '.join(experiments)} to label {name} ({said or 'none left to label'}); "
        f"fill in each \"label\" with true, false or a number, then: harness label --import {out}", err=False)


def _import(path: Path, *, by: str | None, store: str | None) -> None:
    from harness.experiment.errors import ExperimentError
    from harness.experiment.labelling import import_labels
    from harness.secrets.redact import host_redactor

    harness = open_harness(store)
    harness.flush()
    try:
        done = import_labels(harness.store, path, by=by, redact=host_redactor(harness.redact_rules))
    except (ExperimentError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    names = ", ".join(f"{name} {count}" for name, count in done.names.items()) or "none"
    say(f"stored {done.stored} label(s) from {path} ({names}); {done.unfilled} left unfilled", err=False)
