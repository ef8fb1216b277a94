"""Threads as rich text: the thread list (``harness threads``) and a conversation turn by
turn (``harness show --thread``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from .formats import MISSING, abbreviate, duration, moment, money, number, score
from .text import RunsTable, _Column, _pass, _status
from .threads import ThreadView, Turn, answers, question, said

#: Characters of one input, question, answer or output shown per turn (``--json`` has them whole).
SHOWN_CHARS = 300


def _thread_status(value: str | None) -> Text:
    return Text(value or MISSING, style="yellow") if value == "waiting" else _status(value)


def _experiment(r: Mapping[str, Any]) -> str:
    experiment = r.get("experiment") or ""
    return f"{experiment} / {r['case_id']}" if experiment and r.get("case_id") else experiment


THREAD_COLUMNS = (
    _Column("thread", lambda r: str(r["thread_id"]), 9, wraps=True),
    _Column("turns", lambda r: number(r.get("turns")), 8, justify="right"),
    _Column("status", lambda r: _thread_status(r.get("status")), 8),
    _Column("first", lambda r: moment(r.get("first_at")), 2),
    _Column("last", lambda r: moment(r.get("last_at")), 6),
    _Column("time", lambda r: duration(r.get("total_time_ms")), 4, justify="right"),
    _Column("tokens", lambda r: number(r.get("total_tokens")), 1, justify="right"),
    _Column("cost", lambda r: money(r.get("total_cost")), 3, justify="right"),
    _Column("pass", lambda r: _pass(r.get("passed")), 7),
    _Column("last run", lambda r: str(r.get("last_run_id") or ""), 5),
    _Column("experiment", _experiment, 0, wraps=True),
)


def threads_table(rows: Sequence[Mapping[str, Any]], caption: str | None = None) -> RunsTable:
    """One line per thread, the most recently active first (laid out as ``harness list`` is)."""
    return RunsTable(rows, caption=caption, columns=THREAD_COLUMNS)


def _shown(value: Any) -> str:
    return abbreviate(value, SHOWN_CHARS) if value not in (None, "") else MISSING


def _facts(time_ms: Any, tokens: Any, cost: Any) -> list[str]:
    return [duration(time_ms), f"{number(tokens)} tokens", f"cost {money(cost)}"]


def _line(label: str, value: Any, style: str = "") -> Text:
    text = Text(f"  {label:<8} ", style="dim")
    text.append(_shown(value), style=style)
    return text


def _turn_lines(turn: Turn, before: Turn | None) -> list[Text]:
    head = Text(f"turn {turn.turn}", style="bold")
    head.append("  ").append_text(_status(turn.status))
    if turn.waiting:
        head.append(" · waiting for an answer", style="yellow")
    facts = [f"run {turn.run_id}", *_facts(turn.total_time_ms, turn.total_tokens, turn.total_cost)]
    if turn.passed is not None:
        facts.append(f"pass {'yes' if turn.passed else 'no'}")
    if turn.resumed_from and before is not None and turn.resumed_from == before.run_id:
        facts.append(f"resumes turn {before.turn}")
    head.append("  " + " · ".join(facts), style="dim")
    lines = [head]
    if turn.resume is not None:
        given = answers(turn, before.interrupts if before is not None else None)
        for asked, answer in given:  # several questions answered at once: each with its question
            shown = answer if len(given) == 1 else f"{abbreviate(asked, 80)} → {abbreviate(answer, SHOWN_CHARS)}"
            lines.append(_line("answer", shown, "bold"))
    else:
        lines.append(_line("input", said(turn.input, "human"), "bold"))
    if turn.error:
        lines.append(_line("error", turn.error, "red"))
    for interrupt in turn.interrupts or ():
        where = interrupt.get("node") or MISSING
        if interrupt.get("tool"):
            where += f" / {interrupt['tool']}"
        asked = _line("asked", question(interrupt), "yellow")
        asked.append(f"  ({where})", style="dim")
        lines.append(asked)
    if turn.output is not None and not turn.waiting:
        lines.append(_line("output", said(turn.output, "ai")))
    for s in turn.scores:
        if s.get("source") != "rule" or s.get("passed") == 0 or s.get("error"):
            lines.append(_score_line(s))
    return lines


def _score_line(s: Mapping[str, Any]) -> Text:
    gate = "" if s.get("passed") is None else (" pass" if s["passed"] else " fail")
    text = Text(f"  {'score':<8} ", style="dim")
    text.append(f"{s.get('name')} {score(s.get('value')) if s.get('value') is not None else ''}{gate}".strip(),
                style="red" if s.get("error") or s.get("passed") == 0 else "")
    said_ = s.get("error") or s.get("explanation")
    if said_:
        text.append(f"  {abbreviate(said_, 120)}", style="dim")
    return text


def thread_text(view: ThreadView) -> RenderableType:
    """``harness show --thread``: the thread's summary, then each turn: what it was given (an
    input, or the answer to the question before), the question it stopped at, what it
    answered, how it ended, its figures and its run id; then the thread's scores."""
    t = view.summary
    head = Text("thread ", style="bold").append(t.thread_id, style="bold").append("  ")
    head.append_text(_thread_status(t.status))
    facts = [f"{t.turns} turn{'s' if t.turns != 1 else ''}", f"{moment(t.first_at)} → {moment(t.last_at)}",
             *_facts(t.total_time_ms, t.total_tokens, t.total_cost),
             f"pass {MISSING if t.passed is None else 'yes' if t.passed else 'no'}"]
    head.append("\n" + " · ".join(facts))
    more = [t.workflow and f"workflow {t.workflow}", t.experiment and f"experiment {t.experiment}",
            t.case_id and f"case {t.case_id}", "harness show RUN shows a turn in full"]
    head.append("\n" + " · ".join(m for m in more if m), style="dim")
    lines: list[Text] = [head]
    before = None
    for turn in view.turns:
        lines.append(Text())
        lines.extend(_turn_lines(turn, before))
        before = turn
    if view.scores:
        lines += [Text(), Text("thread scores", style="bold")]
        lines.extend(_score_line(s) for s in view.scores)
    # One text of many lines, not a group of many texts: a thousand turns are laid out (and
    # scrubbed, measured, wrapped) once, in a fraction of the time.
    return Text("\n").join(lines)
