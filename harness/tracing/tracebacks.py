"""A failure as its traceback: what the user's code and the graph did, bounded, and nothing
of the harness.

A traceback is formatted in the error callback (the frames it names are gone once the hook
returns), so it costs in proportion to the frames it keeps. The harness is not what failed:
frames in the harness's own files are left out, and so is an exception the harness raised
and handled itself that a failure happened to be raised during ("During handling of the
above exception ..."): a traceback starts at the user's code or at the graph's frames. The
user's own chained exceptions (``raise ... from ...``, an error in an ``except`` block of
theirs) are kept.
"""

from __future__ import annotations

import linecache
from collections import deque
from pathlib import Path
from types import TracebackType

from ..schema import truncation_marker
from .encode import PAYLOAD_CAPTURE_CHARS

#: A failure's traceback keeps the innermost frames of each exception, at most this many
#: (where it failed: the outer ones are LangGraph's and LangChain's machinery)...
TRACEBACK_FRAMES = 40
#: ...of at most this many exceptions of its chain (the cause, or the exception being
#: handled, it was raised from)...
TRACEBACK_CHAIN = 3
#: ...and at most this many characters of it: its end, led by the truncation marker when cut.
TRACEBACK_CHARS = 8_192
_REPEATS = 3  # a frame repeated more often than this in a row is counted, as Python prints it

#: Where the harness's own modules are (as imported, and with links resolved).
_HARNESS_DIRS = tuple({str(Path(__file__).parents[1]) + "/", str(Path(__file__).resolve().parents[1]) + "/"})


def describe_error(error: BaseException) -> str:
    """``Type: message``; a message longer than a cell keeps is cut where capture cuts a payload
    (an exception quoting a 250 MB payload costs what its cell keeps)."""
    text = str(error)
    if len(text) > PAYLOAD_CAPTURE_CHARS:
        text = text[:PAYLOAD_CAPTURE_CHARS]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def is_harness_frame(filename: str) -> bool:
    """Whether a frame's file is one of the harness's own modules."""
    return filename.startswith(_HARNESS_DIRS)


def _only_harness(tb: TracebackType | None) -> bool:
    """Whether every frame of ``tb`` is the harness's (an exception it raised and handled)."""
    if tb is None:
        return False
    link: TracebackType | None = tb
    while link is not None:
        if not is_harness_frame(link.tb_frame.f_code.co_filename):
            return False
        link = link.tb_next
    return True


def describe_traceback(error: BaseException) -> str:
    """``error``'s traceback as Python prints it (without its ``^^^`` position markers),
    bounded: see :data:`TRACEBACK_FRAMES`, :data:`TRACEBACK_CHAIN`, :data:`TRACEBACK_CHARS`;
    without the harness's frames, and without an exception of the harness's own that it
    was raised while handling (see the module's doc).

    It walks the traceback's links once and reads the kept frames' source lines through
    :mod:`linecache`, as :mod:`traceback` does (which costs ten times more: it parses each
    line to place its markers)."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(chain) < TRACEBACK_CHAIN and all(current is not seen for seen in chain):
        chain.append(current)
        cause = current.__cause__
        if cause is None and not current.__suppress_context__:
            context = current.__context__
            cause = None if context is not None and _only_harness(context.__traceback__) else context
        current = cause
    parts: list[str] = []
    for i, exc in enumerate(reversed(chain)):
        if i:
            parts.append("\nThe above exception was the direct cause of the following exception:\n\n"
                         if exc.__cause__ is not None else
                         "\nDuring handling of the above exception, another exception occurred:\n\n")
        if exc.__traceback__ is not None:
            parts.append("Traceback (most recent call last):\n")
            parts += _frames(exc.__traceback__)
        parts.append(describe_error(exc) + "\n")
    text = "".join(parts)
    if len(text) <= TRACEBACK_CHARS:
        return text
    marker = truncation_marker(len(text)) + "\n"
    start = len(text) - TRACEBACK_CHARS + len(marker)
    line = text.find("\n", start - 1)  # keep whole lines
    return marker + text[(line + 1 if 0 <= line < len(text) - 1 else start):]


def _frames(tb: TracebackType) -> list[str]:
    """The lines of the innermost :data:`TRACEBACK_FRAMES` frames of ``tb`` that are not the
    harness's."""
    kept: deque[TracebackType] = deque(maxlen=TRACEBACK_FRAMES)
    total = 0
    link: TracebackType | None = tb
    while link is not None:
        if not is_harness_frame(link.tb_frame.f_code.co_filename):
            kept.append(link)
            total += 1
        link = link.tb_next
    lines = [f"  [{total - len(kept)} frames above left out]\n"] if total > len(kept) else []
    last, seen = None, 0  # the frame before, and how often in a row it came
    for link in kept:
        code, lineno = link.tb_frame.f_code, link.tb_lineno
        key = (code.co_filename, lineno, code.co_name)
        if key == last:
            seen += 1
            if seen > _REPEATS:
                continue
        else:
            if seen > _REPEATS:
                lines.append(f"  [Previous line repeated {seen - _REPEATS} more times]\n")
            last, seen = key, 1
        lines.append(f'  File "{code.co_filename}", line {lineno}, in {code.co_name}\n')
        source = linecache.getline(code.co_filename, lineno or 0, link.tb_frame.f_globals).strip()
        if source:
            lines.append(f"    {source}\n")
    if seen > _REPEATS:
        lines.append(f"  [Previous line repeated {seen - _REPEATS} more times]\n")
    return lines
