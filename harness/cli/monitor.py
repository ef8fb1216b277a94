"""Watch production runs (those outside experiments): per workflow and window, runs, pass rate with its exact interval, error rate, latency p50/p95, cost and each score's mean; exit 1 when a threshold is crossed by more than its interval allows.

Examples: `harness monitor --window 1h`, `harness monitor --workflow support --window 1h --min-pass 0.9
--max-error-rate 0.05` (a cron job or CI step that alerts), `harness monitor --window 1d --windows 7 --json`,
`harness monitor --window 1h --metric polite --min 0.8` (a score's mean), `--metric latency_p95_ms --max 2000`.
A threshold is checked on each workflow's latest window (the last --window up to now) and is crossed only when the
figure's whole 95% interval lies beyond it: a few unlucky runs do not page anyone.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Optional

import typer

from ._errors import UsageError
from ._open import open_store
from ._output import printable, say, show, show_json

#: The figures --metric names besides a score's name.
METRICS = ("pass_rate", "error_rate", "latency_p50_ms", "latency_p95_ms", "cost_per_run")


def command(
    window: Annotated[str, typer.Option(help="The window's length: 15m, 1h, 1d...")] = "1h",
    windows: Annotated[int, typer.Option(min=1, max=1000, help="Windows to print per workflow, newest first.")] = 1,
    workflow: Annotated[Optional[list[str]], typer.Option("--workflow", help="Only this workflow (repeatable).")] = None,
    min_pass: Annotated[Optional[float], typer.Option(
        min=0, max=1, help="Alert when the pass rate is below this beyond its interval.")] = None,
    max_error_rate: Annotated[Optional[float], typer.Option(
        min=0, max=1, help="Alert when the share of failed runs is above this beyond its interval.")] = None,
    metric: Annotated[Optional[str], typer.Option(
        help="A figure to hold to --min/--max: a score's name (its mean), pass_rate, error_rate, latency_p50_ms, "
             "latency_p95_ms or cost_per_run.")] = None,
    minimum: Annotated[Optional[float], typer.Option("--min", help="With --metric: alert below this.")] = None,
    maximum: Annotated[Optional[float], typer.Option("--max", help="With --metric: alert above this.")] = None,
    level: Annotated[float, typer.Option(min=0.5, max=0.999, help="The intervals' confidence level.")] = 0.95,
    json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    store: Annotated[Optional[str], typer.Option(help="Store path or URL (default: $HARNESS_STORE or ./harness.db).")] = None,
) -> None:
    from evaluators import check_threshold

    from harness.online.durations import seconds_of
    from harness.view.production import rolling, series

    if metric is None and (minimum is not None or maximum is not None):
        raise UsageError("--min and --max go with --metric NAME")
    if metric is not None and minimum is None and maximum is None:
        raise UsageError(f"--metric {metric} needs --min V or --max V")
    try:
        length = seconds_of(window, "--window")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    now = dt.datetime.now(dt.timezone.utc)
    opened = open_store(store)
    try:
        if metric is not None and metric not in METRICS and next(iter(opened.rows(
                "scores", columns=["name"], where={"name": metric}, limit=1)), None) is None:
            # (a misspelt name would never alert: the cron job that runs this would stay silent)
            raise UsageError(f"--metric {metric!r} is neither {', '.join(METRICS)} nor a score's name in the store")
        found = series(opened, rolling(now, length, windows), workflows=workflow or (), level=level)
    finally:
        opened.close()
    checks = []
    if min_pass is not None:
        checks.append(("pass_rate", min_pass, None, "--min-pass"))
    if max_error_rate is not None:
        checks.append(("error_rate", None, max_error_rate, "--max-error-rate"))
    if metric is not None:
        checks.append((metric, minimum, maximum, f"--metric {metric}"))
    alerts = []
    for s in found:
        latest = s.windows[0].metrics
        for name, low, high, option in checks:
            for alert in check_threshold(latest, name, minimum=low, maximum=high):
                alerts.append((s.workflow, option, alert))
    crossed = any(a.crossed for _, _, a in alerts)
    if json:
        show_json({"window_s": length, "now": now.isoformat(timespec="seconds"), "ci_level": level,
                   "workflows": [s.to_dict() for s in found],
                   "alerts": [{"workflow": w, "option": o, **a.to_dict()} for w, o, a in alerts], "crossed": crossed})
    else:
        _print(found, alerts, length, level, now, workflow)
    if crossed:
        raise typer.Exit(1)


def _print(found: list[Any], alerts: list[Any], length: float, level: float, now: dt.datetime,
           workflows: list[str] | None) -> None:
    from rich.table import Table

    from harness.view.formats import duration, money, number
    from harness.view.production import window_words

    if not found:
        show(f"no runs outside experiments{' of ' + ', '.join(workflows) if workflows else ''} in the last "
             f"{window_words(length)} (up to {now:%Y-%m-%d %H:%M} UTC)")
    pct = f"{level:.0%}"
    for s in found:
        name = s.workflow if s.workflow is not None else "(no workflow)"
        names = sorted({n for w in s.windows for n in w.metrics.scores})
        table = Table(title=f"workflow {name} · windows of {window_words(length)} up to {now:%Y-%m-%d %H:%M} UTC",
                      title_justify="left")
        for column in ("window (UTC)", "runs", f"pass rate [{pct}]", "status", f"error rate [{pct}]", "p50",
                       f"p95 [{pct}]", "cost", *names):
            table.add_column(column, justify="left" if column in ("window (UTC)", "status") else "right")
        for w in s.windows:
            m = w.metrics
            p, e, p95 = m.pass_rate, m.error_rate, m.latency_p95_ms
            table.add_row(
                f"{w.start:%m-%d %H:%M}–{w.end:%H:%M}", f"{m.runs:,}",
                "—" if p.value is None else f"{number(p.value, 3)} [{number(p.low, 3)}, {number(p.high, 3)}] of {p.n}",
                m.status.replace("_", " "),
                "—" if e.value is None else f"{number(e.value, 3)} [{number(e.low, 3)}, {number(e.high, 3)}]",
                duration(m.latency_p50_ms.value),
                "—" if p95.value is None else f"{duration(p95.value)} [{duration(p95.low)}, {duration(p95.high)}]",
                money(m.cost_total) if m.cost_total is not None else "—",
                *(number(m.scores[n].value, 3) if n in m.scores else "—" for n in names))
        show(printable(table))
    for workflow, option, a in alerts:
        name = workflow if workflow is not None else "(no workflow)"
        if a.value is None:
            say(f"monitor: {name}: {a.metric} has no value in the latest window; {option} not checked", err=False)
            continue
        interval = f"{number(a.value, 4)} [{number(a.low, 4)}, {number(a.high, 4)}]"
        side = "below" if a.bound == "min" else "above"
        if a.crossed:
            say(f"ALERT {name}: {a.metric} {interval} is {side} {a.threshold:g} ({option}) beyond its interval",
                err=False)
        else:
            say(f"ok {name}: {a.metric} {interval} is not {side} {a.threshold:g} ({option}) beyond its interval",
                err=False)
