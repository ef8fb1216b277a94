"""One-line errors for the CLI."""

from __future__ import annotations

import sys
import traceback


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code ``code`` (2 by default)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, *, code: int = 2, debug: bool = False) -> None:
    if debug:
        traceback.print_exc()
    first = " ".join(str(message).split()) or "error"
    print(f"harness: error: {first}", file=sys.stderr)
    raise SystemExit(code)
