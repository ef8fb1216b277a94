"""Everything the CLI prints goes through here, on standard output and standard error.

- **Scrubbed**: secrets become ``[REDACTED]``, with the redactor the store uses
  (:func:`harness.secrets.redact.host_redactor`): tables and trees before they are laid out
  (a key folded over two lines of a narrow column is still found whole), ``--json`` value
  by value, one-line messages, and every write to either stream as a last net, logging
  and warnings of any library included.
- **Inert**: control characters from stored data (C0 but tab and newline, DEL, C1) are
  shown as escapes, ESC as the text ``\\x1b``, in every table and tree, on a terminal and
  piped: a tool's output cannot retitle the window or clear the screen. So are the
  characters that hide or reorder text without showing themselves (bidirectional controls,
  zero-width characters, line and paragraph separators: ``\\u202e``), so what is shown is
  what is stored (Trojan Source). Data is never
  read as rich markup, so it cannot open a hyperlink either. Our own colours still reach a
  terminal; other writers keep their colours (SGR sequences) and lose every other control.
- **One line**: a message is one line of bounded length; a word of more than
  :data:`MAX_WORD` characters (a 100,000-character name) is cut with the count of what was
  left out, and so is the middle of a line longer than :data:`MAX_LINE`.
- Piped (``harness list | cat``), a table is printed at its natural width instead of the 80
  columns rich assumes without a terminal, so no id is cut or wrapped.
- A reader that goes away (``| head``) silences standard output instead of raising: the
  command finishes its work (runs already recorded are still written) and exits with the
  status it would have had, with no broken-pipe message.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

from harness.secrets.names import INVISIBLE_CLASS

#: Characters of one word of a one-line message, and of the whole line, before they are cut.
MAX_WORD = 200
MAX_LINE = 1_000

_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE_CLASS}]")
_ANY_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{INVISIBLE_CLASS}]")
#: Another writer's colour (SGR) sequence, kept, or any other control character, made inert.
_FOREIGN = re.compile(f"(\x1b\\[[0-9;:]*m)|([\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{INVISIBLE_CLASS}])")
#: DEL, C1 controls and invisible characters, which ``json.dumps(ensure_ascii=False)`` leaves raw.
_JSON_RAW = re.compile(f"[\x7f-\x9f{INVISIBLE_CLASS}]")


def _redactor() -> Callable[[str], str]:
    """The host's redactor as of now (see :func:`harness.secrets.redact.host_redactor`)."""
    from harness.secrets.redact import host_redactor

    return host_redactor()


def _redact(text: str) -> str:
    return _redactor()(text)


def inert(text: str) -> str:
    """``text`` with its control characters (but tab and newline) as visible escapes:
    ``\\x1b`` for ESC, ``\\x9b`` for the C1 CSI; a CR before a newline is dropped."""
    return _CONTROL.sub(_escape, text.replace("\r\n", "\n"))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def scrub(text: str) -> str:
    """``text`` redacted, then made :func:`inert`."""
    return inert(_redact(text))


def one_line(message: object) -> str:
    """``message`` scrubbed and as one line (whitespace runs become one space), a word
    longer than :data:`MAX_WORD` and a line longer than :data:`MAX_LINE` cut in the middle
    with the number of characters left out."""
    words = [_cut(word, MAX_WORD) for word in scrub(str(message)).split()]
    return _cut(" ".join(words), MAX_LINE, tail=200) or "error"


def clip(text: str, limit: int) -> str:
    """``text`` redacted, then cut to ``limit`` characters with an ellipsis: for a table
    cell (cut first, a secret could lose the part its rule recognises)."""
    text = _redact(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _cut(text: str, limit: int, tail: int = 40) -> str:
    if len(text) <= limit:
        return text
    head = limit - tail - 30
    return f"{text[:head]}…[{len(text) - head - tail:,} more characters]…{text[-tail:]}"


def _safe_text(text: Text) -> Text:
    """``text`` redacted and inert, its styles kept. A style run is scrubbed on its own;
    a secret straddling two runs is caught on the whole text, which then keeps its base
    style only."""
    plain = text.plain
    clean = _redact(plain)
    if clean == plain and not _CONTROL.search(plain):
        return text
    cuts = sorted({0, len(plain), *(s.start for s in text.spans), *(s.end for s in text.spans)})
    out = text.blank_copy()
    for start, end in zip(cuts, cuts[1:]):
        at = len(out)
        out.append(scrub(plain[start:end]))
        for span in text.spans:
            if span.start <= start and span.end >= end:
                out.stylize(span.style, at, len(out))
    if _redact(out.plain) != out.plain:
        return text.blank_copy(inert(clean))
    return out


class SafeConsole(Console):
    """A console that scrubs every text (:func:`scrub`) before it is laid out (a string
    before it is measured too; a Text is measured as given, so a column may come out a
    little wider or narrower than its scrubbed text), and never reads text as markup or
    emoji codes: data stays data."""

    def __init__(self, **options: Any) -> None:
        super().__init__(markup=False, emoji=False, **options)

    def render_str(self, text: str, **options: Any) -> Text:
        return super().render_str(scrub(text), **options)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        if isinstance(renderable, Text):
            renderable = _safe_text(renderable)
        return super().render(renderable, options)


def console(*, stderr: bool = False, **options: Any) -> SafeConsole:
    """A :class:`SafeConsole` on standard output (or error) as the command holds it now."""
    stream = sys.stderr if stderr else sys.stdout
    return SafeConsole(file=getattr(stream, "own", stream), **options)


def show(renderable: RenderableType) -> None:
    """Print to standard output: at the terminal's width on a terminal, else at the width the
    renderable needs."""
    out = console()
    if not out.is_terminal:
        unbounded = out.options.update_width(1_000_000)
        out = console(width=max(80, Measurement.get(out, unbounded, renderable).maximum))
    out.print(renderable)


def show_json(data: Any, *, indent: int | None = 2) -> None:
    """JSON on standard output (for scripts: never coloured, never wrapped): every text
    redacted, keys included; DEL and C1 controls written as ``\\u`` escapes, so the JSON is
    exactly the data and still inert on a terminal."""
    text = json.dumps(redacted(data), indent=indent, ensure_ascii=False, default=lambda v: _redact(str(v)))
    stream = sys.stdout
    getattr(stream, "own", stream).write(_JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def redacted(value: Any) -> Any:
    """``value`` with every text in it redacted (see :func:`_texts_mapped`)."""
    return _texts_mapped(value, _redactor())


def printable(value: Any) -> Any:
    """``value`` with every text in it scrubbed (:func:`scrub`), for a renderer: it then
    measures and cuts the text as it will be printed (a tool's output in ``harness show``
    is cut to 50 characters; cut first, a secret could lose the part its rule recognises)."""
    redact = _redactor()
    return _texts_mapped(value, lambda text: inert(redact(text)))


def _texts_mapped(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every text in it: in mappings (keys too),
    lists, tuples and dataclasses (copied)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {change(k) if isinstance(k, str) else k: _texts_mapped(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_texts_mapped(v, change) for v in value]
    if isinstance(value, tuple):
        return tuple(_texts_mapped(v, change) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _texts_mapped(getattr(value, f.name), change)
                                             for f in dataclasses.fields(value) if f.init})
    return value


def say(message: object, *, err: bool = True, whole: bool = False) -> None:
    """One line (:func:`one_line`) on standard error, or standard output with ``err=False``.
    ``whole``: a line that names a file the user may copy (``wrote PATH``) is redacted and
    every control character in it shown, newline and tab too, but neither its spaces nor
    its length are touched."""
    line = _ANY_CONTROL.sub(_escape, _redact(str(message))) if whole else one_line(message)
    stream = sys.stderr if err else sys.stdout
    getattr(stream, "own", stream).write(line + "\n")


@contextmanager
def progress(label: str, total: int, *, enabled: bool = True) -> Iterator[Callable[..., None] | None]:
    """A transient progress bar on standard error when it is a terminal, else None. The
    callable takes ``advance`` (default 1), or ``completed``, ``total`` and ``description``."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar_console = console(stderr=True)
    if not enabled or not bar_console.is_terminal:
        yield None
        return
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=bar_console, transient=True) as bar:
        task = bar.add_task(label, total=total)

        def update(advance: int = 1, *, completed: int | None = None, total: int | None = None,
                   description: str | None = None) -> None:
            if completed is None:
                bar.update(task, advance=advance, total=total, description=description)
            else:
                bar.update(task, completed=completed, total=total, description=description)

        yield update


class _Guarded:
    """A standard stream for the running command. Every write is redacted; a write that
    does not come from our own printing (:attr:`own`: a library's log line, a warning, a
    traceback, the user's graph) also has its control characters made inert, colours
    aside. Once the reader has closed the pipe, the descriptor points at ``/dev/null`` and
    later writes and the final flush succeed silently."""

    def __init__(self, stream: Any, *, foreign: bool = True) -> None:
        self._stream = stream
        self._foreign = foreign
        self.own = _Guarded(stream, foreign=False) if foreign else self

    def write(self, text: str) -> int:
        clean = _redact(text)
        if self._foreign:
            clean = _FOREIGN.sub(lambda m: m.group(1) or _escape(m), clean)
        try:
            self._stream.write(clean)
        except BrokenPipeError:
            self._silence()
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._silence()

    def _silence(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def guarded_output() -> Iterator[None]:
    """Standard output and error as :class:`_Guarded` streams for the block; flushed
    through them at the end, so nothing is left for the interpreter's own flush at exit to
    fail on."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Guarded(saved[0]), _Guarded(saved[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = saved
