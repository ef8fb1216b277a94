"""Terminal output that survives pipes, for every command.

- Piped (``harness list | cat``), a table is printed at its natural width instead of the 80
  columns rich assumes without a terminal, so no id is cut or wrapped.
- A reader that goes away (``| head``) silences standard output instead of raising: the
  command finishes its work (runs already recorded are still written) and exits with the
  status it would have had, with no broken-pipe message.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, RenderableType
from rich.measure import Measurement


def show(renderable: RenderableType) -> None:
    """Print to standard output: at the terminal's width on a terminal, else at the width the
    renderable needs."""
    console = Console()
    if not console.is_terminal:
        unbounded = console.options.update_width(1_000_000)
        console = Console(width=max(80, Measurement.get(console, unbounded, renderable).maximum))
    console.print(renderable)


def show_json(data: Any) -> None:
    """JSON on standard output (for scripts: never coloured, never wrapped)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


class _QuietWhenClosed:
    """Standard output that, once its reader has closed the pipe, points the descriptor at
    ``/dev/null`` and carries on: later writes and the final flush succeed, silently."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
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
def quiet_when_closed() -> Iterator[None]:
    """Standard output as :class:`_QuietWhenClosed` for the block; flushed through it at the
    end, so nothing is left for the interpreter's own flush at exit to fail on."""
    original = sys.stdout
    sys.stdout = _QuietWhenClosed(original)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stdout = original
