"""Score production runs (those outside experiments) as they arrive: sampled, within a budget, each run once per scorer version, by any number of workers.

Examples: `harness score --follow --scorer my_scorers:polite --sample 0.1` (until stopped),
`harness score --once --scorer my_scorers:polite --since 1h` (what is there, then exit: for cron),
`harness score --follow --scorer my_scorers:judged --max-cost 5 --per 1h` (judges' model calls held to $5 an hour),
`harness score --status` (what every worker has done, from the store).
Several workers on one store (processes, or hosts on PostgreSQL) share the work; one killed is replaced by the next
to look (its runs are taken back when their lease runs out). SIGUSR1 prints the counts; Ctrl-C or SIGTERM stops
(runs in flight are handed back). Exit 1 when a score could not be made (its error is stored).
"""

from __future__ import annotations

import signal
import threading
from typing import Annotated, Any, Optional

import typer

from ._errors import UsageError
from ._open import load_prices_option, open_store
from ._output import printable, say, show, show_json


def command(
    follow: Annotated[bool, typer.Option("--follow", help="Score runs as they arrive, until stopped.")] = False,
    once: Annotated[bool, typer.Option("--once", help="Score the runs there are now, then exit.")] = False,
    status: Annotated[bool, typer.Option("--status", help="Print what online scoring has done, from the store.")] = False,
    scorer: Annotated[Optional[list[str]], typer.Option(
        "--scorer", help="A scorer MODULE:FUNCTION, a function of (run, case) (repeatable).")] = None,
    workflow: Annotated[Optional[list[str]], typer.Option("--workflow", help="Only runs of this workflow (repeatable).")] = None,
    sample: Annotated[float, typer.Option(help="Share of runs scored, 0 to 1, chosen by a hash of the run id.")] = 1.0,
    since: Annotated[Optional[str], typer.Option(
        help="Only runs started since this time: an ISO date or time, or an age such as 30m, 12h, 7d.")] = None,
    max_cost: Annotated[Optional[float], typer.Option(
        help="USD the scorers' model calls may cost per window (--per); past it runs are skipped by budget.")] = None,
    per: Annotated[str, typer.Option(help="The budget's window: 15m, 1h, 1d...")] = "1h",
    scorer_timeout: Annotated[float, typer.Option(
        min=0.001, help="Seconds a scorer may take per run; past it the score is an error (default 60).")] = 60.0,
    scorer_isolation: Annotated[str, typer.Option(
        help="thread (default) or process: each scorer call in a worker process.")] = "thread",
    concurrency: Annotated[int, typer.Option(min=1, max=256, help="Scorer calls at once.")] = 4,
    batch: Annotated[int, typer.Option(min=1, max=1000, help="Runs claimed at a time.")] = 50,
    lease: Annotated[float, typer.Option(
        min=0.1, help="Seconds a claim holds before another worker may take the run back (renewed while working).")] = 30.0,
    poll: Annotated[float, typer.Option(min=0.01, help="Seconds between looks for new runs (--follow).")] = 0.25,
    progress: Annotated[Optional[float], typer.Option(
        min=0.1, help="Print the counts every this many seconds (on standard error).")] = None,
    prices: Annotated[Optional[str], typer.Option(help="A prices file (TOML) for the judges' models.")] = None,
    json: Annotated[bool, typer.Option("--json", help="With --status: print JSON.")] = False,
    store: Annotated[Optional[str], typer.Option(help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    if sum((follow, once, status)) != 1:
        raise UsageError("give one of --follow (score runs as they arrive), --once (score what is there, then exit) "
                         "or --status")
    if status:
        if scorer:
            raise UsageError("--status reads the store: it takes no --scorer")
        return _status(store, json)
    if json:
        raise UsageError("--json goes with --status")
    if not scorer:
        raise UsageError("give at least one --scorer MODULE:FUNCTION")
    worker = _worker(store, scorer, workflow, sample, since, max_cost, per, scorer_timeout, scorer_isolation,
                     concurrency, batch, lease, poll, progress, prices)
    _run(worker, follow)


def _worker(store, scorer, workflow, sample, since, max_cost, per, scorer_timeout, scorer_isolation, concurrency,
            batch, lease, poll, progress, prices) -> Any:
    from harness.experiment.errors import ExperimentError
    from harness.experiment.scorer_call import ScorerLimits
    from harness.experiment.scoring import scorers_of
    from harness.online import Budget, Worker, WorkerSettings, sample_rate
    from harness.online.durations import seconds_of, since_iso
    from harness.store.claims import RunFilter

    load_prices_option(prices)
    try:
        scorers = scorers_of(scorer)
        settings = WorkerSettings(
            sample=sample_rate(sample), filters=RunFilter(tuple(workflow or ()), since_iso(since)),
            budget=None if max_cost is None else Budget(max_cost, seconds_of(per)),
            limits=ScorerLimits(scorer_timeout, scorer_isolation), concurrency=concurrency, batch=batch,
            lease=lease, poll=poll)
    except (ExperimentError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    opened = open_store(store)
    return Worker(opened, scorers, settings, on_report=_report, report_every=progress)


def _report(lines: list[str]) -> None:
    for line in lines:
        say(f"harness score: {line}")


def _run(worker: Any, follow: bool) -> None:
    s = worker.settings
    what = ", ".join(f"{k.name} ({k.version})" for k in worker.keys)
    parts = [f"sample {s.sample:.0%}" if s.sample < 1 else "every run"]
    if s.filters.workflows:
        parts.append(f"workflow {', '.join(s.filters.workflows)}")
    if s.filters.since:
        parts.append(f"started since {s.filters.since[:19]}Z")
    if s.budget is not None:
        parts.append(f"budget {s.budget}")
    say(f"harness score: {'following' if follow else 'scoring'} runs of {worker.store.display} with {what}: "
        f"{', '.join(parts)}" + ("; SIGUSR1 prints the counts, Ctrl-C or SIGTERM stops" if follow else ""))
    previous = _signals(worker)
    interrupted = False
    spent = None
    try:
        worker.run(follow=follow)
    except KeyboardInterrupt:
        interrupted = True
        worker.stop()
        worker.close()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if worker.meter is not None:
            from harness.store import spend

            try:
                spent = spend.current(worker.store, s.budget.per)
            except Exception:  # noqa: BLE001 - the summary goes without it
                spent = None
        worker.store.close()
    _summary(worker, interrupted, spent)


def _signals(worker: Any) -> dict[int, Any]:
    """SIGUSR1: the counts, without stopping; SIGTERM: stop as Ctrl-C does (runs in flight
    handed back). Only the main thread may set handlers (a test may call from another)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    if hasattr(signal, "SIGUSR1"):
        previous[signal.SIGUSR1] = signal.signal(signal.SIGUSR1, lambda *_: worker.report_now())
    previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    return previous


def _summary(worker: Any, interrupted: bool, spent: Any) -> None:
    from rich.table import Table

    table = Table(title=f"scored by {worker.id}", title_justify="left")
    for name in ("scorer", "version", "seen", "sampled", "scored", "errored", "skipped by budget", "returned"):
        table.add_column(name, justify="left" if name in ("scorer", "version") else "right")
    errored = 0
    for key, tally in worker.counts.snapshot().items():
        errored += tally.errored
        rate = f" ({tally.sampled / tally.seen:.0%})" if tally.seen else ""
        table.add_row(key.name, key.version, f"{tally.seen:,}", f"{tally.sampled:,}{rate}", f"{tally.scored:,}",
                      f"{tally.errored:,}", f"{tally.budget:,}", f"{tally.returned:,}")
    show(printable(table))
    if worker.retaken:
        say(f"harness score: {worker.retaken} run(s) taken back from workers that stopped without finishing them")
    if spent is not None:
        say(f"harness score: budget {worker.settings.budget}: ${spent.spent:.6f} spent in this window by "
            f"{spent.calls} model call(s)" + (f", {spent.refused} refused" if spent.refused else "")
            + (f", {spent.unpriced} of them unpriced (no price for their model: give one with --prices)"
               if spent.unpriced else ""))
    for line in worker.errors:
        say(f"harness score: could not score {line}")
    if interrupted:
        say("harness score: interrupted; runs in flight were handed back")
        raise typer.Exit(130)
    if errored:
        say(f"harness score: {errored} run(s) could not be scored (their errors are stored; each run's pass is "
            "unknown)")
        raise typer.Exit(1)


def _did(key: str, tally: dict[str, int]) -> str:
    """``name: seen N, scored N`` and whatever else happened to its sampled runs."""
    parts = [f"seen {tally.get('seen', 0):,}", f"scored {tally.get('scored', 0):,}"]
    for name, words in (("errored", "errored"), ("budget", "skipped by budget"), ("returned", "returned"),
                        ("in_flight", "in flight")):
        if tally.get(name):
            parts.append(f"{words} {tally[name]:,}")
    return f"{key.split('@')[0]}: {', '.join(parts)}"


def _status(store: str | None, as_json: bool) -> None:
    from rich.table import Table

    from harness.online.status import scoring_status

    opened = open_store(store)
    try:
        data = scoring_status(opened)
    finally:
        opened.close()
    if as_json:
        show_json(data)
        return
    if not data["scorers"]:
        show("no run has been scored online in this store yet (harness score --follow --scorer MODULE:FUNCTION)")
        return
    table = Table(title="online scoring, every worker of the store", title_justify="left")
    for name in ("scorer", "version", "seen", "sampled", "scored", "errored", "skipped by budget", "in flight",
                 "stalled"):
        table.add_column(name, justify="left" if name in ("scorer", "version") else "right")
    for s in data["scorers"]:
        rate = f" ({s['sampled'] / s['seen']:.0%})" if s["seen"] else ""
        table.add_row(s["scorer"], s["version"], f"{s['seen']:,}", f"{s['sampled']:,}{rate}", f"{s['scored']:,}",
                      f"{s['errored']:,}", f"{s['budget']:,}", f"{s['in_flight']:,}", f"{s['stalled']:,}")
    show(printable(table))
    workers = Table(title="workers, newest first", title_justify="left")
    for name in ("worker", "state", "started", "last heard", "what it did, per scorer"):
        workers.add_column(name)
    for w in data["workers"]:
        workers.add_row(w["worker"], w["state"], (w["started_at"] or "")[:19].replace("T", " "),
                        f"{w['last_heard_s']:g} s ago", "\n".join(_did(key, tally)
                                                                  for key, tally in (w["counts"] or {}).items()))
    show(printable(workers))
    for s in data["spend"][:3]:
        say(f"budget window {s['window_start'][:16].replace('T', ' ')}–{s['window_end'][11:16]} UTC: "
            f"${s['spent']:.6f} by {s['calls']} call(s)" + (f", {s['refused']} refused" if s["refused"] else "")
            + (f", {s['unpriced']} unpriced" if s["unpriced"] else ""), err=False)
