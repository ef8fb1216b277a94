"""``harness report``: one self-contained HTML file to look through runs.

The file carries its data, script and styles inline and fetches nothing, so it opens
offline and can be mailed. The run list renders lazily (only the rows in view exist in the
page), so ten thousand runs scroll, sort and filter as fast as ten; a run's waterfall and
scores are drawn when it is opened, and a call picked in the waterfall shows in full
(input, output, tokens, cost, timings, error and traceback) in the panel beside it.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from ..outputs import write_text
from ..schema import truncation_marker
from ..store import Store
from .cases import CaseTable, Compare, compare_view
from .experiments import summaries_html, summarise_all
from .judges import agreement_figure, agreement_html
from .formats import abbreviate, money, number
from .model import RunView, TreeEntry, last_frames
from .production import production_html
from .read import list_runs, load_runs
from .thread_report import conversations, thread_data, turn_detail

#: Runs in a report unless ``limit`` says otherwise: the newest of the selection.
DEFAULT_LIMIT = 10_000
#: Characters of one payload (an input, output, prompt, response or error) a report carries:
#: beyond them it ends with the truncation marker (``harness show RUN --json`` has it whole).
#: Generous, and a bound: ten thousand runs with a large payload each stay a file a browser opens.
FIELD_CHARS = 100_000
#: Runs per packed block of details: opening a run unpacks only its block (a few hundred
#: kilobytes), however many runs the report holds.
BLOCK_RUNS = 100


@dataclass(frozen=True, slots=True)
class Report:
    """A written report: where, how many runs, how large, how long it took to make."""

    path: Path
    runs: int
    selected: int  # runs the selection named (more than ``runs`` when ``limit`` cut it)
    bytes: int
    seconds: float


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


#: The report's script, in parts by what they draw (static/); they share one scope, each
#: using what the others define, and run in this order.
SCRIPT_PARTS = ("base.js", "list.js", "waterfall.js", "panel.js", "run.js", "compare.js", "thread.js", "route.js")


def script() -> str:
    """The report's script: its parts inside one function, in strict mode."""
    return '(function () {\n  "use strict";\n' + "".join(_asset(part) for part in SCRIPT_PARTS) + "})();\n"


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


_KINDS = {"node": 0, "llm": 1, "tool": 2}


def _bounded(value: Any) -> Any:
    """A payload as the report carries it: at most :data:`FIELD_CHARS` characters of text
    (read from the store at most one character beyond, so a longer one is known to be cut,
    not how long it was), JSON data as it is."""
    if isinstance(value, str) and len(value) > FIELD_CHARS:
        marker = truncation_marker(FIELD_CHARS, at_least=True)
        return value[:FIELD_CHARS - len(marker)] + marker
    return value


def _decoded(value: Any) -> Any:
    """A tool's input or output, read as its stored JSON text: the data, or the text cut."""
    if isinstance(value, str) and len(value) <= FIELD_CHARS:
        try:
            return json.loads(value)
        except ValueError:
            return value
    return _bounded(value)


def _entry(view: RunView, depth: int, e: TreeEntry) -> dict[str, Any]:
    """One waterfall row and all the panel shows of it, with short keys (a report carries
    thousands): kind, name, start (ms after the run's timeline starts), duration, status and
    depth; the error, traceback (and where it failed), input and output when there are; then the
    kind's own fields."""
    d = e.details
    failed_at = last_frames(e.traceback, 1)
    row: dict[str, Any] = {"k": _KINDS[e.kind], "n": e.name, "t": _round(view.offset_ms(e)),
                           "d": _round(e.duration_ms), "st": e.status, "dp": depth}
    payloads = {"err": _bounded(e.error), "tb": e.traceback,
                "at": (f"failed in {failed_at[0].function} · {failed_at[0].file}, line {failed_at[0].line}"
                       if failed_at else None),
                "in": _decoded(d.get("input")) if e.kind == "tool" else _bounded(d.get("input")),
                "out": _decoded(d.get("output")) if e.kind == "tool" else _bounded(d.get("output"))}
    if e.kind == "node":
        fields = {"step": d.get("step"), "lg": d.get("langgraph_step"), "sd": d.get("subgraph_depth")}
    elif e.kind == "llm":
        fields = {"model": d.get("model"), "pt": d.get("prompt_tokens"), "ct": d.get("completion_tokens"),
                  "cost": d.get("cost"), "ttft": _round(d.get("time_to_first_token_ms")), "us": d.get("usage_source")}
    else:
        fields = {"cd": d.get("call_depth")}
    row.update((k, v) for k, v in {**payloads, **fields}.items() if v is not None)
    return row


def _scores(scores: Mapping[str, Any]) -> dict[str, Any]:
    """The scores a report shows: the run's pass and every row of its scores sheet (name,
    value, pass, source, scorer, explanation, error); and, for runs recorded before scores had
    a sheet of their own, the scores by kind (their lists of names only where they say what
    went wrong)."""
    listed = [{k: _bounded(v) for k, v in row.items() if v not in (None, "")} for row in scores.get("list") or []]
    keep = {"evaluation": ("score", "status"), "tool_selection": ("f1", "missing", "extra"),
            "trajectory": ("match", "missing", "extra"), "judge": ("overall", "status", "outcome", "error"),
            "agent_metrics": ("overall_score", "eval_status"), "log_test": ("status", "profile")}
    kinds = {kind: {k: v for k, v in scores[kind].items() if k in keys and v not in (None, [])}
             for kind, keys in keep.items() if scores.get(kind)}
    unknown = {"pass_unknown": True} if scores.get("pass_unknown") else {}  # shown ?, not —
    return {"passed": scores.get("passed"), "list": listed, **unknown, **kinds} if listed else kinds


def run_data(view: RunView) -> dict[str, Any]:
    """A run's line in the list and its header as the report's script reads them (short keys:
    ten thousand of these are inline). What is shown only for an opened run is :func:`detail`."""
    r = view.run
    return {
        "id": view.run_id, "ts": r.get("timestamp"), "wf": r.get("workflow"), "subj": r.get("company_name"),
        "st": r.get("status"), "ms": _round(r.get("total_time_ms")), "tok": r.get("total_tokens"),
        "cost": r.get("total_cost"), "eval": r.get("evaluation_score"), "exp": r.get("experiment"),
        "case": r.get("case_id"), "model": r.get("model"), "err": abbreviate(r.get("error"), 400) or None,
        "start": r.get("started_at"), "pass": "?" if r.get("pass_unknown") else r.get("passed"),
        **thread_data(r),
    }


def detail(view: RunView) -> dict[str, Any]:
    """What an opened run shows: its waterfall (one row per node, model call and tool call,
    depth first, each with all the panel shows of it), where and how long its timeline is
    (``t0``: epoch ms), its whole error and its scores; beside the rows, where a handoff went
    (``handoffs``) and, for a run of several agents (:meth:`RunView.agents`), each row's
    agent (``agents``), which the waterfall colours."""
    entries = list(view.entries())
    out = {"rows": [_entry(view, depth, e) for depth, e in entries], "span": _round(view.span_ms),
           "t0": _round(view.started_ms), "err": _bounded(view.run.get("error")), "scores": _scores(view.scores)}
    if view.run.get("thread_id") is not None:
        out["turn"] = turn_detail(view)
    agents = view.agents()
    if agents is not None:
        out["agents"] = [agents.get(e.id) for _, e in entries]
    if any(e.details.get("handoff_to") for _, e in entries):
        out["handoffs"] = [e.details.get("handoff_to") for _, e in entries]
    return out


def packed(data: Any) -> str:
    """``data`` as gzip-compressed JSON in base64: the runs' details, most of a report's bytes,
    shrink several times over (prompts and tool payloads repeat from run to run), and the page
    unpacks them with the browser's own ``DecompressionStream``."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).encode()
    return base64.b64encode(gzip.compress(text, compresslevel=6, mtime=0)).decode("ascii")


#: The keys of a waterfall row that hold payloads (see :func:`tabled`).
PAYLOAD_KEYS = ("in", "out", "err", "tb")


def tabled(details: list[dict[str, Any]]) -> dict[str, Any]:
    """A block of runs' details (:func:`detail`, changed in place) as ``runs``, whose rows keep
    the places of their payloads in ``values``. The values are in the order of what they are
    (kind, name, key): the same node's input of every run of the block side by side, so that
    gzip, which finds repeats only 32 KB back, finds those of runs far apart (a report five
    times smaller); a text that repeats is kept once."""
    places = [((e["k"], e["n"], key), e, key) for d in details for e in d["rows"] for key in PAYLOAD_KEYS if key in e]
    places.sort(key=lambda place: place[0])
    values: list[Any] = []
    seen: dict[str, int] = {}
    for _, e, key in places:
        value = e[key]
        at = seen.get(value) if isinstance(value, str) else None
        if at is None:
            at = len(values)
            values.append(value)
            if isinstance(value, str):
                seen[value] = at
        e[key] = at
    return {"runs": details, "values": values}




def _score_value(scores: Mapping[str, Any], name: str) -> Any:
    """The value of the run's score ``name`` (None when it has none)."""
    return next((s.get("value") for s in scores.get("list") or () if s.get("name") == name), None)


def _json_for_script(data: Any) -> str:
    """JSON that cannot end the ``<script>`` element it sits in."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).replace("<", "\\u003c")


def render(views: Iterable[RunView], *, source: str, selected: int | None = None,
           experiments: Sequence[str] = (), compare: Compare | None = None,
           agreements: Sequence[Mapping[str, Any]] = (), production: str = "") -> str:
    """The page for ``views`` (newest first) from ``source`` (the store's location);
    ``experiments`` come first among the summaries, in that order, and are the ones the
    compare view pairs (else the newest, :data:`~.cases.COMPARE_EXPERIMENTS` at most);
    ``compare(a, b)`` gives the statistics of a pair (``Comparison.to_dict()``), without which
    the compare view shows the cases only. ``views`` is read once, and each block of runs'
    details packed as soon as it is whole: the payloads of ten thousand runs are never all in
    memory. ``agreements``: the judges' agreement with people (``Agreement.to_dict()``), shown
    in a section of their own and beside each judge's score in a run. ``production``: the
    production view's HTML (:func:`~.production.production_html`), placed before the runs."""
    rows: list[Mapping[str, Any]] = []
    runs: list[dict[str, Any]] = []
    blocks: list[str] = []
    pending: list[dict[str, Any]] = []
    cases = CaseTable(named=experiments)
    for view in views:
        cases.add(len(runs), view)
        rows.append({**view.run, "answer_score": _score_value(view.scores, "answer")})
        runs.append(run_data(view))
        pending.append(detail(view))
        if len(pending) == BLOCK_RUNS:
            blocks.append(packed(tabled(pending)))
            pending = []
    if pending:
        blocks.append(packed(tabled(pending)))
    conversations(runs)
    paired = compare_view(cases, compare, _json_for_script)
    data = {"runs": runs, "source": source, "block": BLOCK_RUNS, "compare": paired.data,
            "judges": {a["score"]: f"{agreement_figure(a)} against {a['label']}" for a in agreements}}
    details = ",".join(blocks)  # base64 has no comma
    completed = sum(r.get("status") == "completed" for r in rows)
    tokens = sum(r.get("total_tokens") or 0 for r in rows)
    costs = [r["total_cost"] for r in rows if isinstance(r.get("total_cost"), (int, float))]
    cut = (f" (the newest of {selected:,})" if selected is not None and selected > len(rows) else "")
    facts = (f"{len(rows):,} runs{cut} · {completed:,} completed · {len(rows) - completed:,} failed · "
             f"{number(tokens)} tokens · {money(sum(costs)) if costs else 'cost unknown'}")
    now = datetime.now(timezone.utc).astimezone()
    offset = now.strftime("%z")
    made = now.strftime("%Y-%m-%d %H:%M") + f" (UTC{offset[:3]}:{offset[3:]})"
    title = f"Runs in {os.path.basename(source) or source}"
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{_asset('report.css')}</style></head><body>"
        f"<header><h1>{html.escape(title)}</h1><p>{html.escape(facts)}</p>"
        f"<p class=sub>{html.escape(source)} · made {made}</p></header><main>"
        + summaries_html(summarise_all(rows, experiments), rows)
        + production
        + agreement_html(agreements)
        + paired.section
        + "<section id=runs><h2>Runs</h2><div class=controls>"
        "<input type=search id=filter placeholder='Filter: id, workflow, subject, status, experiment, error…' "
        "aria-label='Filter runs'><select id=status aria-label='Status'><option value=''>any status</option>"
        "<option>completed</option><option>failed</option></select>"
        "<span id=count class=muted></span></div>"
        "<div id=list role=grid aria-label='Runs'><div id=viewport><div id=head class=row role=row></div>"
        "<div id=spacer></div></div></div></section>"
        "<section id=run hidden><div id=run-head></div><div class=run-body><div class=run-time>"
        "<h3>Where the time went</h3>"
        "<p class=legend><span class='key node'></span>node <span class='key llm'></span>LLM call "
        "<span class='key tool'></span>tool call <span class='key error'></span>error"
        "<span class=hint> · click a bar, or move with ↑ ↓ and press Enter, to see that call in full</span></p>"
        "<div id=waterfall class=waterfall></div></div>"
        "<aside id=entry class=panel aria-live=polite aria-label='The call picked in the waterfall'></aside></div>"
        "<h3>Scores</h3><div id=scores></div></section>"
        "<section id=thread hidden></section>"
        "</main><div id=tip role=tooltip hidden></div>"
        f"<script type=application/json id=report-data>{_json_for_script(data)}</script>"
        # The script comes before the packed details: the list is on screen while the parser
        # still reads them, however many megabytes they are.
        f"<script>{script()}</script>"
        f"<script type=application/octet-stream id=report-details data-encoding=gzip+base64>{details}</script>"
        + paired.after + "</body></html>"
    )


def select_runs(store: Store, *, run_ids: Sequence[str] = (), experiments: Sequence[str] = (),
                limit: int | None = DEFAULT_LIMIT) -> tuple[list[str], int]:
    """The runs a report shows, newest first: those named, plus those of ``experiments``,
    or, naming neither, the store's newest; at most ``limit``. Returns them and how many
    the selection named before the limit."""
    chosen: list[str] = []
    if experiments:
        chosen = [r["run_id"] for r in list_runs(store, experiments=experiments, limit=None)]
    if run_ids:
        named = set(run_ids)
        newest = [r["run_id"] for r in store.rows("runs", list(named), columns=["run_id"], newest_first=True)]
        chosen = list(dict.fromkeys([*newest, *chosen]))
    if not run_ids and not experiments:
        selected = store.count("runs")
        chosen = [r["run_id"] for r in store.rows("runs", columns=["run_id"], newest_first=True, limit=limit)]
        return chosen, selected
    return (chosen[:limit] if limit else chosen), len(chosen)


def write_report(store: Store, path: str | os.PathLike[str], *, run_ids: Sequence[str] = (),
                 experiments: Sequence[str] = (), limit: int | None = DEFAULT_LIMIT,
                 compare: Compare | None = None, agreements: Sequence[Mapping[str, Any]] = ()) -> Report:
    """Write the report of the runs :func:`select_runs` picks to ``path`` (UTF-8), with the
    production view of the store's runs outside experiments unless ``experiments`` are named;
    ``compare(a, b)``: the statistics of experiment ``b`` against ``a`` (``harness compare``'s,
    as ``Comparison.to_dict()``), called for every ordered pair the compare view offers;
    ``agreements``: the judges' agreement with people (:func:`render`)."""
    started = time.perf_counter()
    ids, selected = select_runs(store, run_ids=run_ids, experiments=experiments, limit=limit)
    read = 0

    def views() -> Iterator[RunView]:
        nonlocal read
        for view in load_runs(store, ids, clip=FIELD_CHARS + 1):
            read += 1
            yield view

    page = render(views(), source=store.display, selected=selected, experiments=experiments,
                  compare=compare, agreements=agreements,
                  production="" if experiments else production_html(store))
    target = write_text(path, page)  # whole or not at all, never through a link (harness.outputs)
    return Report(target, read, selected, target.stat().st_size, time.perf_counter() - started)

