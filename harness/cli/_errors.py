"""One-line errors for the CLI."""

from __future__ import annotations

import traceback

from ._output import say


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code ``code`` (2 by default)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, *, code: int = 2, debug: bool = False) -> None:
    """``harness: error: MESSAGE`` on standard error, scrubbed and cut to one line
    (:func:`._output.one_line`), then exit with ``code``."""
    if debug:
        traceback.print_exc()
    say(f"harness: error: {message}")
    raise SystemExit(code)
