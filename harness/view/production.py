"""Production runs -- those outside experiments -- over time, per workflow: the monitor's windows.

One code path for ``harness monitor`` and the report's production view: runs are read from
the store (their status, pass, time and cost, and their scores), grouped by workflow and by
window of their start, and each window's figures are :func:`evaluators.window_metrics`'s (the
seed's production monitor: pass rate with its exact interval and status, error rate, latency
p50/p95, cost, each score's mean).
"""

from __future__ import annotations

import datetime as dt
import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from evaluators import WindowMetrics, window_metrics

from ..store import Store
from . import plots
from .formats import duration, money, number

#: The ``runs`` columns a window's figures are made of.
_COLUMNS = ("run_id", "workflow", "status", "passed", "started_at", "total_time_ms", "total_cost")
#: Windows at most in the report's view (the window length is chosen to fit the runs' span).
MAX_WINDOWS = 48
#: Window lengths the report chooses from, shortest first.
_LENGTHS = (300, 900, 3600, 6 * 3600, 86400, 7 * 86400)
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class Window:
    start: dt.datetime
    end: dt.datetime
    metrics: WindowMetrics

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start.isoformat(timespec="seconds"), "end": self.end.isoformat(timespec="seconds"),
                **self.metrics.to_dict()}


@dataclass(frozen=True, slots=True)
class Series:
    """A workflow's windows (None: runs started without a workflow name), in the order asked."""

    workflow: str | None
    windows: tuple[Window, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"workflow": self.workflow, "windows": [w.to_dict() for w in self.windows]}


def _moment(text: Any) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(str(text))
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).isoformat(timespec="microseconds")


def production_runs(store: Store, since: dt.datetime | None = None, *,
                    workflows: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Runs outside experiments started since ``since`` (all when None), of ``workflows``
    (all when empty), with ``started``: their start as a time."""
    where: dict[str, Any] = {"experiment": None}
    if workflows:
        where["workflow"] = list(workflows)
    at_least = {"started_at": _iso(since)} if since is not None else None
    out = []
    for row in store.rows("runs", columns=_COLUMNS, where=where, at_least=at_least):
        started = _moment(row["started_at"])
        if started is not None:
            out.append({**row, "started": started})
    return out


def _scores_of(store: Store, run_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for start in range(0, len(run_ids), _CHUNK):
        for row in store.rows("scores", list(run_ids[start:start + _CHUNK]), columns=["run_id", "name", "value",
                                                                                     "error"]):
            out.setdefault(row["run_id"], []).append(row)
    return out


def series(store: Store, bounds: Sequence[tuple[dt.datetime, dt.datetime]], *, workflows: Sequence[str] = (),
           level: float = 0.95, runs: list[dict[str, Any]] | None = None) -> list[Series]:
    """Per workflow (most runs first), the figures of each window ``[start, end)`` of
    ``bounds`` (in that order). ``runs``: production runs already read (:func:`production_runs`)."""
    if not bounds:
        return []
    first = min(start for start, _ in bounds)
    rows = runs if runs is not None else production_runs(store, first, workflows=workflows)
    scores = _scores_of(store, [r["run_id"] for r in rows])
    by_workflow: dict[str | None, list[dict[str, Any]]] = {}
    for row in rows:
        by_workflow.setdefault(row["workflow"], []).append(row)
    out = []
    for workflow, mine in sorted(by_workflow.items(), key=lambda kv: (-len(kv[1]), str(kv[0]))):
        windows = []
        for start, end in bounds:
            inside = [r for r in mine if start <= r["started"] < end]
            found = [s for r in inside for s in scores.get(r["run_id"], ())]
            windows.append(Window(start, end, window_metrics(inside, found, level=level)))
        out.append(Series(workflow, tuple(windows)))
    return out


def rolling(now: dt.datetime, length: float, count: int) -> list[tuple[dt.datetime, dt.datetime]]:
    """``count`` windows of ``length`` seconds ending at ``now``, newest first."""
    step = dt.timedelta(seconds=length)
    return [(now - step * (k + 1), now - step * k) for k in range(count)]


def aligned(first: dt.datetime, last: dt.datetime, *, most: int = MAX_WINDOWS) -> list[tuple[dt.datetime, dt.datetime]]:
    """Windows aligned to multiples of a length chosen so that at most ``most`` of them cover
    ``first`` .. ``last`` (the longest length: the last ``most`` windows), oldest first."""
    span = max(1.0, (last - first).total_seconds())
    length = next((size for size in _LENGTHS if span / size <= most), _LENGTHS[-1])
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    start = math.floor((first - epoch).total_seconds() / length) * length
    stop = (last - epoch).total_seconds()
    starts = []
    while start <= stop:
        starts.append(start)
        start += length
    starts = starts[-most:]
    return [(epoch + dt.timedelta(seconds=s), epoch + dt.timedelta(seconds=s + length)) for s in starts]


# --- the report's production view ----------------------------------------------------------------

def window_words(seconds: float) -> str:
    """A window's length in words: ``1 hour``, ``15 minutes``, ``1 day``."""
    for unit, size in (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} seconds"


def _when(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M")


def _pass_text(metrics: WindowMetrics) -> str:
    p = metrics.pass_rate
    if p.value is None:
        return "—"
    return f"{number(p.value, 3)} [{number(p.low, 3)}, {number(p.high, 3)}] of {p.n}"


def _figure(s: Series, salt: str) -> str:
    """Pass rate (with its interval as a band) and each score's mean, window by window."""
    fig, (axes,) = plots.figure()
    def middle(w: Window) -> dt.datetime:
        return w.start + (w.end - w.start) / 2

    known = [(middle(w), w.metrics.pass_rate) for w in s.windows if w.metrics.pass_rate.value is not None]
    drawn = False
    if known:
        axes.fill_between([x for x, _ in known], [p.low for _, p in known], [p.high for _, p in known],
                          color=plots.COLOURS[0], alpha=0.15, linewidth=0, label="pass rate, 95% interval")
        axes.plot([x for x, _ in known], [p.value for _, p in known], marker="o", markersize=3,
                  color=plots.COLOURS[0], label="pass rate")
        drawn = True
    names = sorted({name for w in s.windows for name in w.metrics.scores})
    for i, name in enumerate(names[:6], start=1):
        points = [(middle(w), w.metrics.scores[name].value) for w in s.windows if name in w.metrics.scores]
        if points:
            axes.plot([x for x, _ in points], [v for _, v in points], marker=".", linewidth=1,
                      color=plots.COLOURS[i % len(plots.COLOURS)], label=f"{name} (mean)")
            drawn = True
    if not drawn:
        plots.no_data(axes, "no passes or scores yet")
        return plots.svg(fig, salt)
    values = [v for line in axes.get_lines() for v in line.get_ydata()]
    if all(0 <= v <= 1 for v in values):
        axes.set_ylim(-0.04, 1.04)
    axes.set_xlim(s.windows[0].start, s.windows[-1].end)
    fig.autofmt_xdate()
    axes.set_ylabel("pass rate · score means")
    axes.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return plots.svg(fig, salt)


def production_html(store: Store) -> str:
    """The report's production view: per workflow of the runs outside experiments, the pass
    rate and each score's mean over time, and the latest windows' figures in a table; empty
    when every run of the store belongs to an experiment."""
    runs = production_runs(store)
    if not runs:
        return ""
    bounds = aligned(min(r["started"] for r in runs), max(r["started"] for r in runs))
    chosen = series(store, bounds, runs=[r for r in runs if r["started"] >= bounds[0][0]])
    length = (bounds[0][1] - bounds[0][0]).total_seconds()
    parts = [f"<section id=production><h2>Production</h2><p class=muted>Runs outside experiments, in windows of "
             f"{html.escape(window_words(length))} by their start (UTC). Pass rate over the runs with a pass, with "
             "its exact 95% interval; scores are means over the runs that have them (<code>harness monitor</code> "
             "prints the same figures).</p>"]
    for i, s in enumerate(chosen):
        name = s.workflow if s.workflow is not None else "(no workflow)"
        total = sum(w.metrics.runs for w in s.windows)
        parts.append(f"<div class=production data-workflow='{html.escape(name, quote=True)}'>"
                     f"<h3>{html.escape(name)} <span class=muted>· {total:,} runs</span></h3>")
        parts.append(f"<div class=plots><figure><figcaption>pass rate and scores over time</figcaption>"
                     f"{_figure(s, f'production-{i}')}</figure></div>")
        parts.append(f"<div class=table-box>{_table(s)}</div>")
        parts.append("</div>")
    parts.append("</section>")
    return "".join(parts)


def _table(s: Series, rows: int = 6) -> str:
    names = sorted({name for w in s.windows for name in w.metrics.scores})
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ("window (UTC)", "runs", "pass rate [95%]", "status",
                                                          "errors", "p50", "p95", "cost", *names))
    body = []
    for w in [w for w in reversed(s.windows) if w.metrics.runs][:rows]:
        m = w.metrics
        cells = [_when(w.start), f"{m.runs:,}", _pass_text(m), m.status.replace("_", " "),
                 f"{number(m.error_rate.value, 3)}" if m.error_rate.value is not None else "—",
                 duration(m.latency_p50_ms.value) if m.latency_p50_ms.value is not None else "—",
                 duration(m.latency_p95_ms.value) if m.latency_p95_ms.value is not None else "—",
                 money(m.cost_total) if m.cost_total is not None else "—",
                 *(number(m.scores[n].value, 3) if n in m.scores else "—" for n in names)]
        body.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return (f"<table class='summary production-windows'><caption class=muted>the latest windows with runs</caption>"
            f"<thead><tr>{head}"
            f"</tr></thead><tbody>{''.join(body)}</tbody></table>")


def describe(series_list: Iterable[Series]) -> list[dict[str, Any]]:
    """JSON-ready series."""
    return [s.to_dict() for s in series_list]


def scores_named(series_list: Iterable[Series]) -> list[str]:
    return sorted({name for s in series_list for w in s.windows for name in w.metrics.scores})

