"""Runs as rich text: the run list (``harness list``) and a run as a tree (``harness show``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from .formats import MISSING, abbreviate, duration, moment, money, number, score, score_glance
from .model import Frame, RunView, TreeEntry, last_frames

#: Characters of the timeline bar of ``harness show``.
BAR_WIDTH = 24
_EIGHTHS = " ▏▎▍▌▋▊▉"
_KIND_STYLE = {"node": "blue", "llm": "magenta", "tool": "cyan"}
_STATUS_STYLE = {"completed": "green", "ok": "green", "failed": "bold red", "error": "bold red",
                 "interrupted": "yellow", "unfinished": "yellow"}


def _status(value: str | None) -> Text:
    return Text(value or MISSING, style=_STATUS_STYLE.get(value or "", ""))


def _pass(value: Any, unknown: bool = False) -> Text:
    """A run's pass: yes, no, ? (unknown: a score that could gate it could not be made), or —
    (it has no score that gates it)."""
    if value is None:
        return Text("?", style="yellow") if unknown else Text(MISSING, style="dim")
    return Text("yes", style="green") if value else Text("no", style="bold red")


def _scores(r: Mapping[str, Any]) -> str:
    """The run's own scores at a glance (scorers', judges', labels'): the built-in checks are
    in its pass and evaluation already."""
    return ", ".join(score_glance(name, s.get("value"), s.get("passed"), s.get("error"))
                     for name, s in (r.get("scores") or {}).items() if s.get("source") != "rule")


@dataclass(frozen=True, slots=True)
class _Column:
    header: str
    cell: Callable[[Mapping[str, Any]], str | Text]
    keep: int  # the lower, the sooner it is left out to fit a narrow terminal
    wraps: bool = False  # text that may wrap (at 10 characters or more); the others are never cut
    justify: Literal["left", "right"] = "left"


def _experiment(r: Mapping[str, Any]) -> str:
    experiment = r.get("experiment") or ""
    return f"{experiment} / {r['case_id']}" if experiment and r.get("case_id") else experiment


_RUN_COLUMNS = (
    _Column("run id", lambda r: str(r["run_id"]), 9),
    _Column("when", lambda r: moment(r.get("timestamp")), 3),
    _Column("workflow", lambda r: r.get("workflow") or "", 7, wraps=True),
    _Column("subject", lambda r: r.get("company_name") or "", 2, wraps=True),
    _Column("status", lambda r: _status(r.get("status")), 8),
    _Column("pass", lambda r: _pass(r.get("passed"), bool(r.get("pass_unknown"))), 8),
    _Column("time", lambda r: duration(r.get("total_time_ms")), 5, justify="right"),
    _Column("tokens", lambda r: number(r.get("total_tokens")), 0, justify="right"),
    _Column("cost", lambda r: money(r.get("total_cost")), 1, justify="right"),
    _Column("eval", lambda r: score(r.get("evaluation_score")), 6, justify="right"),
    _Column("experiment", _experiment, 4, wraps=True),
    _Column("scores", _scores, 1, wraps=True),
)
_WRAPPED_WIDTH = 10


class RunsTable:
    """One line per run, newest first: what ``harness list`` prints. Run ids and numbers are
    never cut and text wraps; on a terminal too narrow for every column the least useful
    columns are left out (the caption says which); piped, every column is printed whole.

    Column widths come from the cells, measured once here: rich then lays out ten thousand
    rows without measuring each cell again."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], caption: str | None = None,
                 columns: Sequence[_Column] | None = None) -> None:
        self.caption = caption
        optional = {"experiment": _experiment, "scores": _scores}
        columns = [c for c in columns or _RUN_COLUMNS if c.header not in optional or any(map(optional[c.header], rows))]
        cells = [[Text(v) if isinstance(v, str) else v for v in (c.cell(r) for c in columns)] for r in rows]
        self.columns = {c: (_widest(c.header, cells, i), [row[i] for row in cells]) for i, c in enumerate(columns)}

    @staticmethod
    def _span(widths: Iterable[int]) -> int:
        """The table's width: each column and a space either side, one more between columns and at each edge."""
        widths = list(widths)
        return sum(widths) + 3 * len(widths) + 1

    def _narrowest(self, c: _Column) -> int:
        widest = self.columns[c][0]
        return min(_WRAPPED_WIDTH, widest) if c.wraps else widest

    def table(self, width: int | None = None) -> Table:
        """The table, leaving out columns until their narrowest layout fits ``width``."""
        columns = list(self.columns)
        while width is not None and len(columns) > 2 and self._span(map(self._narrowest, columns)) > width:
            columns.remove(min(columns, key=lambda c: c.keep))
        left_out = [c.header for c in self.columns if c not in columns]
        notes = [self.caption] if self.caption else []
        if left_out:
            notes.append(f"left out to fit the terminal: {', '.join(left_out)} (pipe it or use --json for all)")
        table = Table(box=box.SIMPLE_HEAD, header_style="bold", caption="\n".join(notes) or None,
                      caption_justify="left")
        whole = width is None or self._span(self.columns[c][0] for c in columns) <= width
        for c in columns:
            widest = self.columns[c][0]
            table.add_column(c.header, justify=c.justify, no_wrap=not c.wraps, overflow="fold",
                             width=widest if whole or not c.wraps else None, min_width=self._narrowest(c))
        for row in zip(*(self.columns[c][1] for c in columns)):
            table.add_row(*row)
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        whole = self._span(width for width, _ in self.columns.values())
        return Measurement(min(whole, self._span(self._narrowest(c) for c in list(self.columns)[:2])), whole)


def _widest(header: str, cells: list[list[str | Text]], i: int) -> int:
    return max([len(header), *(len(row[i]) for row in cells)])


def bar(offset_ms: float | None, duration_ms: float | None, span_ms: float, width: int = BAR_WIDTH) -> str:
    """Where an entry's time lies within the run, in ``width`` characters: blanks up to its
    start, then a block as long as it lasted, in eighths of a character (at least one)."""
    if offset_ms is None or span_ms <= 0:
        return ""
    start = min(width - 1, int(offset_ms / span_ms * width))
    eighths = max(1, min((width - start) * 8, round((duration_ms or 0.0) / span_ms * width * 8)))
    full, rest = divmod(eighths, 8)
    return " " * start + "█" * full + (_EIGHTHS[rest] if rest else "")


def _what(prefix: str, entry: TreeEntry) -> RenderableType:
    """The tree guides, the entry's kind and name, then what it did (or its error, in red);
    under a failed entry, dim, the last frames of its traceback, one line each (cut to fit)."""
    text = Text(prefix, style="dim")
    if entry.kind == "node":
        text.append(entry.name, style="bold")
    else:
        text.append(entry.kind + " ", style=_KIND_STYLE[entry.kind])
        text.append(entry.name)
    if entry.details.get("handoff_to"):
        text.append(" → " + entry.details["handoff_to"])
    detail = _details(entry)
    if detail:
        text.append("  ")
        text.append_text(detail)
    frames = last_frames(entry.traceback) if entry.status == "error" else []
    if not frames:
        return text
    guide = prefix[:-3] + ("│  " if prefix.endswith("├─ ") else "   ") if prefix else ""
    return Group(text, *(Text(f"{guide}  {_where(frame)}", style="dim", no_wrap=True, overflow="ellipsis")
                         for frame in frames))


def _where(frame: Frame) -> str:
    """A frame on one line: its file (from the working directory or ``site-packages``, when
    under either), line, function and source."""
    file, cwd = frame.file, os.getcwd() + os.sep
    if file.startswith(cwd):
        file = file[len(cwd):]
    elif "site-packages" + os.sep in file:
        file = file.rsplit("site-packages" + os.sep, 1)[1]
    return f"{file}:{frame.line} in {frame.function}" + (f": {frame.source}" if frame.source else "")


def _kinds(d: dict, *pairs: str) -> str:
    """`` (3,000 cached, 200 written)``: the kinds of a call's tokens it reported, nonzero ones only."""
    said = [f"{number(d[key])} {word}" for key, word in zip(pairs[::2], pairs[1::2]) if d.get(key)]
    return f" ({', '.join(said)})" if said else ""


def _details(entry: TreeEntry) -> Text:
    d = entry.details
    if entry.status == "error" and entry.error:
        text = Text(f"{abbreviate(d.get('input'), 50)} → ", style="dim") if entry.kind == "tool" else Text()
        return text.append(abbreviate(entry.error, 200), style="red")
    if entry.kind == "llm":
        read = _kinds(d, "cache_read_tokens", "cached", "cache_write_tokens", "written")
        tokens = (f"{number(d.get('prompt_tokens'))}{read} → {number(d.get('completion_tokens'))}"
                  f"{_kinds(d, 'reasoning_tokens', 'reasoning')} tokens"
                  if d.get("prompt_tokens") is not None else "tokens unknown")
        parts = [d.get("model") or "", tokens, money(d.get("cost"))]
        if d.get("time_to_first_token_ms") is not None:
            parts.append(f"first token {duration(d['time_to_first_token_ms'])}")
        return Text(" · ".join(p for p in parts if p), style="dim")
    if entry.kind == "tool" and not d.get("handoff_to"):  # a handoff's output is its command: the name says it
        return Text(f"{abbreviate(d.get('input'), 50)} → {abbreviate(d.get('output'), 50)}", style="dim")
    return Text("")


def agent_sections(view: RunView) -> dict[str, str] | None:
    """The agent column of ``show``: entry id -> its agent path on the first line of each
    stretch of lines of one agent; None where the run's agents are its nodes (see
    :meth:`RunView.agents`)."""
    paths = view.agents()
    if paths is None:
        return None
    labels: dict[str, str] = {}
    last = None
    for _, entry in view.entries():
        path = paths.get(entry.id)
        if path is not None and path != last:
            labels[entry.id] = last = path
    return labels


class RunTree:
    """The run's nodes and calls in the order they happened, one line each: step and
    subgraph depth (nodes), status, duration and a timeline bar on the left, the agent where
    a new agent's lines start (see :func:`agent_sections`), then the tree with what each did
    on the right, where long text wraps."""

    def __init__(self, view: RunView) -> None:
        self.view = view

    def table(self, width: int | None = None) -> Table:
        view = self.view
        agents = agent_sections(view)
        # The fixed columns take 40 characters (and the agent column, when shown) and the bar;
        # the tree keeps at least 30.
        fixed = 70 + (max(map(len, agents.values())) + 1 if agents else 0)
        bar_width = BAR_WIDTH if width is None else max(8, min(BAR_WIDTH, width - fixed))
        table = Table(box=None, header_style="bold", pad_edge=False)
        table.add_column("step", justify="right")
        table.add_column("depth", justify="right")
        table.add_column("status", no_wrap=True)
        table.add_column("time", justify="right", no_wrap=True)
        table.add_column(f"0 – {duration(view.span_ms)}", no_wrap=True, min_width=bar_width)
        if agents:
            table.add_column("agent", style="bold", overflow="fold")
        table.add_column("what", overflow="fold", ratio=1 if width is not None else None)

        def add(entry: TreeEntry, prefix: str, last: bool, top: bool) -> None:
            is_node = entry.kind == "node"
            table.add_row(
                str(entry.details.get("step") or "") if is_node else "",
                str(entry.details.get("subgraph_depth") or 0) if is_node else "",
                _status(entry.status), duration(entry.duration_ms),
                Text(bar(view.offset_ms(entry), entry.duration_ms, view.span_ms, bar_width),
                     style="red" if entry.status == "error" else _KIND_STYLE[entry.kind]),
                *([agents.get(entry.id, "")] if agents else []),
                _what("" if top else prefix + ("└─ " if last else "├─ "), entry))
            below = "" if top else prefix + ("   " if last else "│  ")
            for i, child in enumerate(entry.children):
                add(child, below, i == len(entry.children) - 1, False)

        for entry in view.tree:
            add(entry, "", True, True)
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.table())


def _header(view: RunView) -> Text:
    run = view.run
    text = Text()
    text.append("run ", style="bold").append(view.run_id, style="bold").append("  ")
    text.append_text(_status(run.get("status")))
    facts = [run.get("workflow"), run.get("company_name") and f"subject {run['company_name']}",
             f"started {moment(run.get('started_at'))}", duration(run.get("total_time_ms")),
             _count(run.get("total_steps"), "step"), _count(run.get("total_llm_calls"), "LLM call"),
             _count(run.get("total_tokens"), "token"), f"cost {money(run.get('total_cost'))}"]
    text.append("\n" + " · ".join(f for f in facts if f))
    models = view.models()  # a run of several models (a multi-agent run) names them all
    more = [f"models {', '.join(models)}" if len(models) > 1 else run.get("model") and f"model {run['model']}",
            run.get("experiment") and f"experiment {run['experiment']}",
            run.get("case_id") and f"case {run['case_id']}",
            run.get("repeat_index") is not None and f"repeat {run['repeat_index']}",
            run.get("batch_id") and f"batch {run['batch_id']}", run.get("thread_id") and f"thread {run['thread_id']}"]
    if any(more):
        text.append("\n" + " · ".join(m for m in more if m), style="dim")
    if run.get("error"):
        text.append(f"\nerror: {run['error']}", style="bold red")
    return text


def _count(value: int | None, noun: str) -> str:
    return f"{number(value)} {noun}{'' if value == 1 else 's'}"


def _ratio(value: Any) -> str:
    return score(value) if isinstance(value, (int, float)) else MISSING


def scores_table(scores: Mapping[str, Any]) -> Table:
    """One line per score of the run (its scores sheet: checks, judges, scorers, labels), led by
    its pass; a run recorded before scores had a sheet of their own shows one line per kind."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_column()
    table.add_column(style="dim")
    listed = scores.get("list") or []
    if listed:
        verdict = scores.get("passed")
        unknown = bool(scores.get("pass_unknown"))
        table.add_row("pass", "", _pass(verdict, unknown), "every score that gates the run holds" if verdict else
                      "a score that gates the run does not hold" if verdict is not None else
                      "unknown: a score that could gate the run could not be made" if unknown else
                      "no score gates the run")
        for s in listed:
            gate = "" if s.get("passed") is None else ("pass" if s["passed"] else "fail")
            detail = s.get("error") or s.get("explanation") or ""
            value = "" if s.get("value") is None else score(s["value"])
            name = f"{s['name']} (by {s['rater']})" if s.get("rater") else s["name"]
            table.add_row(name, value, _status_word(gate if not s.get("error") else "error"),
                          Text(f"{s.get('source')} · {abbreviate(detail, 200)}" if detail else str(s.get("source")),
                               style="red" if s.get("error") else "dim"))
        return table

    def names(values: Any) -> str:
        return ", ".join(values) if values else MISSING

    c = scores.get("case")
    if c:
        answer = c.get("answer") or {}
        detail = (f"{answer.get('check')} check: answer {_short(answer.get('answer'))} · reference "
                  f"{_short(answer.get('reference'))} · passes at {_ratio(answer.get('threshold'))}"
                  + (f" · {answer['reason']}" if answer.get("reason") else "")) if answer else "no answer check"
        table.add_row("case", _ratio(answer.get("score")) if answer else "",
                      _status_word("pass" if c.get("passed") else "fail"), detail)
    e = scores.get("evaluation")
    if e:
        parts = [f"{label} {_ratio(e.get(key))}" for key, label in
                 (("tool_selection", "tool selection"), ("data_quality", "data quality"), ("synthesis", "synthesis"))
                 if e.get(key) is not None]
        table.add_row("evaluation", _ratio(e.get("score")), _status_word(e.get("status")), " · ".join(parts))
    t = scores.get("tool_selection")
    if t:
        table.add_row("tool F1", _ratio(t.get("f1")), "",
                      f"precision {_ratio(t.get('precision'))} · recall {_ratio(t.get('recall'))} · "
                      f"missing {names(t.get('missing'))} · extra {names(t.get('extra'))}")
    tr = scores.get("trajectory")
    if tr:
        table.add_row("trajectory", _ratio(tr.get("match")), "",
                      f"missing {names(tr.get('missing'))} · extra {names(tr.get('extra'))}")
    j = scores.get("judge")
    if j:
        detail = (j.get("error") or "judge failed") if j.get("outcome") == "error" else " · ".join(
            f"{k.replace('_', ' ')} {_ratio(j.get(k))}" for k in
            ("accuracy", "completeness", "consistency", "actionability", "data_utilization") if j.get(k) is not None)
        table.add_row("judge", _ratio(j.get("overall")), _status_word(j.get("status") or j.get("outcome")), detail)
    a = scores.get("agent_metrics")
    if a:
        table.add_row("agent metrics", _ratio(a.get("overall_score")), _status_word(a.get("eval_status")),
                      " · ".join(f"{k.replace('_', ' ')} {_ratio(a.get(k))}" for k in
                                 ("intent_correctness", "plan_quality", "tool_choice_correctness",
                                  "tool_completeness", "trajectory_match", "final_answer_quality")
                                 if a.get(k) is not None))
    log = scores.get("log_test")
    if log:
        table.add_row("log test", "", _status_word(log.get("status")),
                      f"profile {log.get('profile') or MISSING} · {number(log.get('sheets_logged'))} sheets logged")
    return table


def _short(value: Any, width: int = 60) -> str:
    text = value if isinstance(value, str) else MISSING if value is None else str(value)
    return repr(text if len(text) <= width else text[:width - 1] + "…")


def _status_word(value: str | None) -> Text:
    style = {"good": "green", "pass": "green", "average": "yellow", "partial": "yellow", "bad": "red",
             "fail": "red", "error": "red"}.get(value or "", "")
    return Text(value or "", style=style)


def run_tree(view: RunView) -> RenderableType:
    """``harness show``: the header, the tree with its timeline, then the scores."""
    parts: list[RenderableType] = [_header(view), Text()]
    parts.append(RunTree(view) if view.tree else Text("no node, model or tool call was recorded", style="dim"))
    scores = scores_table(view.scores)
    parts += [Text(), Text("scores", style="bold"), scores if scores.row_count else Text("none recorded", style="dim")]
    return Group(*parts)
